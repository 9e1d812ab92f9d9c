// SPDX-License-Identifier: Apache-2.0
// A learned kernel time never falls when the batch doubles: each layer is also predicted at its
// batch chain (batch / 2, batch / 4, ..., 1) and keeps the largest.
// The rows are SYNTHETIC: a "measured" time that halves from batch 8 to batch 16, which a
// regressor learns and the chain must not pass on.
#include <gtest/gtest.h>

#include <random>

#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

GpuSpec v100() {
  return *GpuDatabase::bundled().find("v100-sxm2-16gb");
}

// SYNTHETIC rows of 3x3 convs at batch 1, 2, 4, 8 and 16: "measured" = the batch-1 analytical
// estimate x 3 up to batch 8, and half of that at batch 16.
TrainingData falling_rows() {
  TrainingData data;
  for (const std::int64_t channels : {32, 48, 64, 96, 128}) {
    for (const std::int64_t side : {14, 28, 56}) {
      const double base = estimate_layer(testing::conv3x3(1, channels, side), v100()).latency_ms;
      for (const std::int64_t batch : {1, 2, 4, 8, 16}) {
        testing::add_row(data, testing::conv3x3(batch, channels, side), v100(), kReferenceSource,
                         batch == 16 ? 1.5 * base : 3.0 * base);
      }
    }
  }
  return data;
}

std::unique_ptr<LearnedModel> falling_model(const TrainingData& data) {
  return testing::tree_model(data, OpFamily::kConv, 8);
}

TEST(BatchChain, HalvesDownToOne) {
  EXPECT_EQ(batch_chain(1), std::vector<std::int64_t>{});
  EXPECT_EQ(batch_chain(2), std::vector<std::int64_t>{1});
  EXPECT_EQ(batch_chain(12), (std::vector<std::int64_t>{6, 3, 1}));
  EXPECT_EQ(batch_chain(16), (std::vector<std::int64_t>{8, 4, 2, 1}));
}

TEST(BatchChain, DoublingTheBatchNeverLowersTheLearnedKernelTime) {
  const TrainingData data = falling_rows();
  const auto model = falling_model(data);
  for (const std::int64_t channels : {32, 64, 128}) {
    const Layer at8 = testing::conv3x3(8, channels, 28);
    const Layer at16 = testing::conv3x3(16, channels, 28);
    const auto p = model->predict_layers({at8, at16}, v100());
    EXPECT_GE(p[1].kernel_ms, p[0].kernel_ms) << channels;
    EXPECT_DOUBLE_EQ(p[1].kernel_ms, p[0].kernel_ms) << "batch 16 keeps batch 8's time";
    // The layer alone gives the same: the chain does not depend on what else is predicted.
    EXPECT_DOUBLE_EQ(model->predict_layers({at16}, v100())[0].kernel_ms, p[1].kernel_ms);
  }
  // The regressor alone learned the synthetic halving: without the chain, batch 16 falls.
  model->set_batch_monotone(false);
  const auto raw =
      model->predict_layers({testing::conv3x3(8, 64, 28), testing::conv3x3(16, 64, 28)}, v100());
  EXPECT_LT(raw[1].kernel_ms, 0.75 * raw[0].kernel_ms);
}

TEST(BatchChain, CrossValidationPredictsAsPredictDoes) {
  const TrainingData data = falling_rows();
  const auto model = falling_model(data);
  const std::vector<double> rows =
      predict_rows(model->families().front(), data, testing::all_rows(data), model->feature_spec());
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    EXPECT_DOUBLE_EQ(rows[r], model->predict_layers({data.layers[r]}, v100())[0].kernel_ms)
        << "row " << r;
  }
  // The batch-16 rows are the ones the chain lifts above their synthetic "measurement".
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    if (data.layers[r].batch == 16) {
      EXPECT_GT(rows[r], 1.5 * data.latency_ms[r]) << "row " << r;
    }
  }
}

}  // namespace
}  // namespace cnnperf
