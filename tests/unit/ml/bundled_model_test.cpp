// SPDX-License-Identifier: Apache-2.0
// The bundled learned model (models/cnnperf_default.json) as `predict --layers` uses it by
// default: each row's measurement source is honoured, and the file's own training ranges
// flag layers outside them.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "predict/predict_command.hpp"
#include "synthetic_data.hpp"

namespace cnnperf {
namespace {

using testing::conv3x3;

std::string bundled_model_path() {
  return std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/" + kBundledLearnedModel;
}

double mape_pct(const std::vector<LayerPrediction>& predicted, const LayerTable& rows) {
  double sum = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double measured = std::stod(*rows.table.get(i, "latency_ms"));
    sum += std::abs(predicted[i].latency_ms() / measured - 1);
  }
  return 100 * sum / static_cast<double>(predicted.size());
}

TEST(BundledModel, RowsOfAKnownSourceArePredictedAsThatSourceMeasures) {
  // Real rows: every 400th MLPredict V100 conv2d row (TensorFlow 1.10 session timing, whose
  // overheads differ from kernel time). Predicted as MLPredict rows they must come much
  // closer to what MLPredict measured than predicted as kernel time.
  const CsvTable all =
      read_csv(std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/layers_mlpredict.csv.gz");
  std::string text = csv_line(all.header) + "\n";
  int taken = 0;
  for (std::size_t r = 0; r < all.rows.size(); ++r) {
    if (all.get(r, "op") == "conv2d" && all.get(r, "gpu") == "Tesla V100" &&
        all.get(r, "symmetric_pad_exact") == "1" && r % 400 == 0) {
      text += csv_line(all.rows[r]) + "\n";
      ++taken;
    }
  }
  ASSERT_GE(taken, 20);
  const LayerTable rows = parse_layers_csv(text, "mlpredict_v100_sample");
  const auto model = LearnedModel::load(bundled_model_path());
  const GpuSpec gpu = GpuDatabase::bundled().resolve("v100-sxm2-16gb");
  const std::vector<std::string> sources(rows.layers.size(), "mlpredict");
  const double own = mape_pct(model->predict_layers_as(rows.layers, gpu, sources), rows);
  const double reference = mape_pct(model->predict_layers(rows.layers, gpu), rows);
  EXPECT_LT(own, 15.0);
  EXPECT_LT(own * 1.5, reference);
}

TEST(BundledModel, FlagsALayerFarOutsideItsTrainingRanges) {
  const auto model = LearnedModel::load(bundled_model_path());
  const GpuSpec gpu = GpuDatabase::bundled().resolve("v100-sxm2-16gb");
  const auto p = model->predict_layers({conv3x3(4096, 4096, 512)}, gpu);
  EXPECT_FALSE(p[0].in_distribution);
  EXPECT_GE(p[0].kernel_ms, p[0].roofline_ms);
}

TEST(BundledModel, ANetworksStepHasAnIntervalFromTheCalibrationsHeldOutGpus) {
  // The file's command calibrates its eager overhead on datasets/e2e_torchvision.csv (--e2e):
  // the steps' leave-one-GPU-out residuals, 652 single-GPU rows, size the step's interval.
  const auto model = LearnedModel::load(bundled_model_path());
  const auto& coverage = model->metadata()["intervals"]["coverage"]["e2e leave-gpu-out"];
  EXPECT_EQ(coverage["overall"]["rows"].get<std::size_t>(), 652U);
  const double share = coverage["overall"]["coverage"].get<double>();
  EXPECT_GT(share, 0.0);
  EXPECT_LE(share, 1.0);
  PredictOptions options;
  options.net = "resnet50";
  options.gpu = "a100";
  options.model = bundled_model_path();
  options.format = "json";
  options.output = (std::filesystem::temp_directory_path() /
                    ("cnnperf_bundled_step_" + std::to_string(::getpid()) + ".json"))
                       .string();
  ASSERT_EQ(run_predict(options), 0);
  const auto total = nlohmann::json::parse(read_text_file(options.output))["total"];
  std::filesystem::remove(options.output);
  ASSERT_TRUE(total["latency_ms_lo"].is_number()) << total.dump();
  const double latency = total["latency_ms"].get<double>();
  const IntervalChoice choice = intervals_for(*model);
  ASSERT_TRUE(choice.table.has_value());
  const auto expected = choice.table->interval(kNetworkIntervalFamily, latency);
  ASSERT_TRUE(expected.has_value());
  EXPECT_DOUBLE_EQ(total["latency_ms_lo"].get<double>(), expected->lo_ms);
  EXPECT_DOUBLE_EQ(total["latency_ms_hi"].get<double>(), expected->hi_ms);
  EXPECT_LT(expected->lo_ms, latency);
  EXPECT_GT(expected->hi_ms, latency);
}

}  // namespace
}  // namespace cnnperf
