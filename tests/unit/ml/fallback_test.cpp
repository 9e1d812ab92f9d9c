// SPDX-License-Identifier: Apache-2.0
// The learned model's fallback: outside a family's training ranges its log ratio fades
// smoothly to the analytical estimate (distance_outside, learned_share).
// The rows are SYNTHETIC: "measured" latency = analytical estimate x 2.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>

#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/e2e.hpp"
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

// ratio_model() written to a file and read back as predict reads it (LearnedModel::load sets
// the bundled kernel params).
std::unique_ptr<LearnedModel> loaded_ratio_model() {
  const auto path = std::filesystem::temp_directory_path() /
                    ("cnnperf_fallback_" + std::to_string(::getpid()) + ".json");
  write_output(path.string(), ratio_model()->to_json().dump());
  auto loaded = LearnedModel::load(path.string());
  std::filesystem::remove(path);
  return loaded;
}

// A 32x64x56x56 3x3 conv in fp16: tensor-core eligible on Volta and later.
Layer fp16_conv() {
  Layer l = testing::conv3x3(32, 64, 56);
  l.dtype = DType::kFp16;
  return l;
}

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

// The math unit: every row above runs on CUDA cores (fp32 on a V100 and a P100), so the
// regressor never saw a tensor-core kernel.
TEST(Fallback, ALayerOnTensorCoresNoTrainingRowRanKeepsTheAnalyticalEstimate) {
  const auto model = ratio_model();
  ASSERT_EQ(model->families().at(0).tensor_core_rows, std::optional<std::size_t>(0));
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  Layer fp16 = conv3x3(16, 64, 28);
  fp16.dtype = DType::kFp16;
  ASSERT_TRUE(runs_on_tensor_cores(fp16, v100));
  const LayerPrediction p = model->predict_layers({fp16}, v100)[0];
  EXPECT_DOUBLE_EQ(p.kernel_ms, estimate_layer(fp16, v100).latency_ms);
  EXPECT_FALSE(p.in_distribution);
  // TF32: an fp32 convolution allowed it, on a GPU that has it.
  const GpuSpec a100 = gpu("a100-sxm4-40gb");
  Layer tf32 = conv3x3(16, 64, 28);
  tf32.allow_tf32 = true;
  ASSERT_TRUE(runs_on_tensor_cores(tf32, a100));
  EXPECT_DOUBLE_EQ(model->predict_layers({tf32}, a100)[0].kernel_ms,
                   estimate_layer(tf32, a100).latency_ms);
  // The same layer held to strict fp32 runs on CUDA cores, as the training rows did: learned.
  tf32.allow_tf32 = false;
  EXPECT_GT(learned_ratio(*model, tf32, a100), 1.2);
  // An fp16 convolution the analytical model keeps on CUDA cores (channels not a multiple of
  // 8) is not held back by this rule.
  Layer odd = conv3x3(16, 63, 28);
  odd.dtype = DType::kFp16;
  ASSERT_FALSE(runs_on_tensor_cores(odd, v100));
  EXPECT_GT(learned_ratio(*model, odd, v100), 1.05);
}

// A model file as predict loads it: a held-back layer gets the default analytical model's
// kernel time, its fitted tensor-core efficiencies included.
TEST(Fallback, ALoadedModelHoldsBackTensorCoreLayersToTheDefaultAnalyticalModel) {
  const auto loaded = loaded_ratio_model();
  const GpuSpec h100 = gpu("h100-sxm5-80gb");
  const Layer fp16 = fp16_conv();
  const double analytical = bundled_analytical_model()->predict_layers({fp16}, h100)[0].kernel_ms;
  // The fitted efficiency differs from the default one, so the comparison can tell them apart.
  ASSERT_NE(analytical, estimate_layer(fp16, h100).latency_ms);
  EXPECT_DOUBLE_EQ(loaded->predict_layers({fp16}, h100)[0].kernel_ms, analytical);
}

TEST(Fallback, CrossValidationHoldsBackTensorCoreRowsTheSameWay) {
  const auto model = ratio_model();
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  TrainingData rows;
  Layer fp16 = conv3x3(16, 64, 28);
  fp16.dtype = DType::kFp16;
  testing::add_row(rows, fp16, v100, kReferenceSource, 1.0);
  testing::add_row(rows, conv3x3(16, 64, 28), v100, kReferenceSource, 1.0);
  const std::vector<double> p =
      predict_rows(model->families().at(0), rows, testing::all_rows(rows), model->feature_spec());
  EXPECT_DOUBLE_EQ(p[0], estimate_layer(fp16, v100).latency_ms);
  EXPECT_NEAR(p[1] / estimate_layer(conv3x3(16, 64, 28), v100).latency_ms, kRatio, 1e-9);
}

TEST(Fallback, ScoringALoadedModelHoldsBackTensorCoreRowsAsPredictDoes) {
  const auto loaded = loaded_ratio_model();
  const GpuSpec h100 = gpu("h100-sxm5-80gb");
  const Layer fp16 = fp16_conv();
  TrainingData rows;
  testing::add_row(rows, fp16, h100, kKernelTimeSource, 1.0);  // kernel time: no floor
  const auto& family = loaded->families().at(0);
  const double scored = predict_rows(family, rows, testing::all_rows(rows), loaded->feature_spec(),
                                     loaded->kernel_params())[0];
  EXPECT_DOUBLE_EQ(scored, loaded->predict_layers({fp16}, h100)[0].kernel_ms);
  // Without the model's kernel params the row gets the unfitted default efficiency.
  EXPECT_DOUBLE_EQ(predict_rows(family, rows, testing::all_rows(rows), loaded->feature_spec())[0],
                   estimate_layer(fp16, h100).latency_ms);
  EXPECT_NE(scored, estimate_layer(fp16, h100).latency_ms);
}

TEST(Fallback, AFamilyTrainedOnTensorCoreRowsKeepsItsRatioThere) {
  std::mt19937_64 rng(29);
  TrainingData data;
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  for (int i = 0; i < 300; ++i) {
    Layer l = testing::random_conv3x3(rng);
    l.c_in -= l.c_in % 8;  // tensor-core shapes, in fp16
    l.c_out -= l.c_out % 8;
    l.dtype = DType::kFp16;
    l.layout = Layout::kNhwc;  // no layout transposes, which a learned ratio does not scale
    testing::add_row(data, l, v100, kReferenceSource, estimate_layer(l, v100).latency_ms * kRatio);
  }
  const auto model = testing::tree_model(data, OpFamily::kConv, 3);
  EXPECT_EQ(model->families().at(0).tensor_core_rows, std::optional<std::size_t>(300));
  model->set_fallback_spans(testing::kNoFallback);  // the ranges' edges are not what is tested
  Layer fp16 = conv3x3(16, 64, 28);
  fp16.dtype = DType::kFp16;
  fp16.layout = Layout::kNhwc;
  EXPECT_NEAR(learned_ratio(*model, fp16, v100), kRatio, 1e-9);
}

TEST(Fallback, AFamilyThatDoesNotRecordItsMathUnitsHoldsNothingBack) {
  const auto model = ratio_model();
  nlohmann::json doc = model->to_json();
  ASSERT_EQ(doc["families"][0]["tensor_core_rows"], 0);
  EXPECT_EQ(LearnedModel::from_json(doc, "new.json")->families().at(0).tensor_core_rows,
            std::optional<std::size_t>(0));
  doc["families"][0].erase("tensor_core_rows");
  const auto old = LearnedModel::from_json(doc, "old.json");
  EXPECT_FALSE(old->families().at(0).tensor_core_rows.has_value());
  const GpuSpec v100 = gpu("v100-sxm2-16gb");
  Layer fp16 = conv3x3(16, 64, 28);
  fp16.dtype = DType::kFp16;
  EXPECT_GT(learned_ratio(*old, fp16, v100), 1.05);
}

}  // namespace
}  // namespace cnnperf
