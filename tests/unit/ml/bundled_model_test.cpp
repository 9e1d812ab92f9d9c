// SPDX-License-Identifier: Apache-2.0
// The bundled learned model (models/cnnperf_default.json) as `predict --layers` uses it by
// default: each row's measurement source is honoured, and the file's own training ranges
// flag layers outside them.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/io.hpp"
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

}  // namespace
}  // namespace cnnperf
