// SPDX-License-Identifier: Apache-2.0
// The learned model's fallback: outside a family's training ranges its log ratio fades
// smoothly to the analytical estimate (distance_outside, learned_share).
// The rows are SYNTHETIC: "measured" latency = analytical estimate x 2.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

constexpr double kRatio = 2.0;

GpuSpec gpu(const char* name) {
  return *GpuDatabase::bundled().find(name);
}

// A neusight conv model fitted on SYNTHETIC rows (measured = analytical x kRatio, no floor)
// of random 3x3 convs (batch 1-32, 16-215 channels, 7-56 pixels) on a V100 and a P100.
std::unique_ptr<LearnedModel> ratio_model() {
  std::mt19937_64 rng(23);
  TrainingData data;
  for (const char* name : {"v100-sxm2-16gb", "p100-pcie-16gb"}) {
    for (int i = 0; i < 300; ++i) {
      const Layer l = testing::random_conv3x3(rng);
      testing::add_row(data, l, gpu(name), kReferenceSource,
                       estimate_layer(l, gpu(name)).latency_ms * kRatio);
    }
  }
  return testing::tree_model(data, OpFamily::kConv, 3);
}

using testing::conv3x3;

// kernel_ms / the analytical estimate of `layer` on `g`.
double learned_ratio(const LearnedModel& model, const Layer& layer, const GpuSpec& g) {
  return model.predict_layers({layer}, g)[0].kernel_ms / estimate_layer(layer, g).latency_ms;
}

TEST(Fallback, DistanceIsZeroInsideAndCountsRangesOutside) {
  FamilyModel m;
  m.feature_min = {0.0, 10.0};
  m.feature_max = {4.0, 10.0};  // a range of width 4, and a constant
  const FeatureMatrix x(4, 2, {2.0, 10.0, 6.0, 10.0, -4.0, 10.0, 2.0, 12.5});
  EXPECT_DOUBLE_EQ(distance_outside(m, x, 0, {1.0, 1.0}), 0.0);
  EXPECT_DOUBLE_EQ(distance_outside(m, x, 1, {1.0, 1.0}), 0.5);  // 2 beyond a width of 4
  EXPECT_DOUBLE_EQ(distance_outside(m, x, 2, {1.0, 1.0}), 1.0);
  EXPECT_DOUBLE_EQ(distance_outside(m, x, 3, {1.0, 1.0}),
                   2.5);  // a constant counts in its own units
}

TEST(Fallback, ShareIsOneInsideAndFadesSmoothlyToNothing) {
  EXPECT_DOUBLE_EQ(learned_share(0.0), 1.0);
  EXPECT_DOUBLE_EQ(learned_share(kFallbackSpans), std::exp(-1.0));
  double last = 1.0;
  for (double d = 0.05; d < 40.0; d += 0.05) {
    const double share = learned_share(d);
    ASSERT_LT(share, last) << d;
    ASSERT_GT(share, last * std::exp(-0.05 / kFallbackSpans) - 1e-12) << "a jump at " << d;
    last = share;
  }
  EXPECT_LT(learned_share(40.0), 1e-15);
  EXPECT_DOUBLE_EQ(learned_share(40.0, std::numeric_limits<double>::infinity()), 1.0);
}

TEST(Fallback, InsideTheRangesTheLearnedRatioIsKept) {
  const auto model = ratio_model();
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  EXPECT_NEAR(learned_ratio(*model, conv3x3(16, 64, 28), v100), kRatio, 1e-9);
  EXPECT_TRUE(model->predict_layers({conv3x3(16, 64, 28)}, v100)[0].in_distribution);
}

TEST(Fallback, FarOutsideTheRangesALayerGetsTheAnalyticalEstimate) {
  const auto model = ratio_model();
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  const Layer huge = conv3x3(4096, 2048, 448);  // 128x the batch, 10x the channels, 8x the side
  const double faded = learned_ratio(*model, huge, v100);
  EXPECT_GE(faded, 1.0);
  EXPECT_LT(faded, 1.01);
  // Without the fallback the tree's constant leaf carries the ratio there unchanged.
  model->set_fallback_spans(std::numeric_limits<double>::infinity());
  EXPECT_NEAR(learned_ratio(*model, huge, v100), kRatio, 1e-9);
}

TEST(Fallback, JustOutsideTheRangesTheRatioBarelyMoves) {
  const auto model = ratio_model();
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  // Batch 36: log2 5.17 against a largest 32 (5.0) over a range of 5: 0.03 ranges out.
  const double near = learned_ratio(*model, conv3x3(36, 64, 28), v100);
  EXPECT_LT(near, kRatio);
  EXPECT_GT(near, std::pow(kRatio, std::exp(-0.05)));
}

TEST(Fallback, AGpuBeyondTheTrainedOnesFadesToTheAnalyticalEstimate) {
  const auto model = ratio_model();
  // An H100 lies outside the V100 and P100 on every GPU feature (SMs, clocks, L2, rates).
  const GpuSpec h100 = gpu("h100-sxm5-80gb");
  const Layer inside = conv3x3(16, 64, 28);
  const double faded = learned_ratio(*model, inside, h100);
  EXPECT_LT(faded, std::pow(kRatio, 0.5));
  EXPECT_GE(faded, 1.0);
  EXPECT_FALSE(model->predict_layers({inside}, h100)[0].in_distribution);
}

}  // namespace
}  // namespace cnnperf
