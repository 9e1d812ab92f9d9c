// SPDX-License-Identifier: Apache-2.0
// The bundled learned model's predictions on real layer rows, against the values recorded in
// tests/data/model/bundled_model_predictions.csv: a change in how the file is stored or read
// must not move a single prediction.
//
// The recorded values are model outputs, not measurements: the bundled model's predictions
// for rows of datasets/layers_neusight.csv.gz and datasets/layers_mlpredict.csv.gz (two rows
// per op and GPU), each row predicted three ways: as its own source measures on its own GPU,
// as kernel time (the reference source) on its own GPU, and as kernel time on a T4, a GPU
// outside every family's training data (the gpu-blind regressors). They were written from the
// model file as train writes it, by
//   CNNPERF_WRITE_BUNDLED_PREDICTIONS=<model file> build/tests/test_ml
//   --gtest_filter='BundledModelPredictions.*'   (one command line)
// which writes the file instead of comparing. A retrained bundled model changes every value:
// write the file again from the new model then. Both sides run with the fallback and the batch
// chain off (FamilyModel::fallback_spans infinite, batch_monotone false): the values are the
// regressors' own, which is what the file stores; those are tested in fallback_test.cpp and
// batch_monotone_test.cpp.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer_io.hpp"

namespace cnnperf {
namespace {

const std::string kSourceDir = CNNPERF_SOURCE_DIR_FOR_TESTS;
const std::string kFixture =
    std::string(CNNPERF_TEST_DATA_DIR) + "/model/bundled_model_predictions.csv";
constexpr const char* kUnseenGpu = "t4";

struct Predicted {
  double own_ms = 0;
  double reference_ms = 0;
  double unseen_gpu_ms = 0;
};

/// Two rows per (op, gpu) of a dataset: the first and the middle one.
std::vector<std::size_t> pick_rows(const CsvTable& all) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;
  for (std::size_t r = 0; r < all.rows.size(); ++r) {
    groups[{all.get(r, "op").value_or(""), all.get(r, "gpu").value_or("")}].push_back(r);
  }
  std::vector<std::size_t> out;
  for (const auto& [key, rows] : groups) {
    out.push_back(rows.front());
    if (rows.size() > 2) out.push_back(rows[rows.size() / 2]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Predicted> predict_rows(const LearnedModel& model, const CsvTable& all,
                                    const std::vector<std::size_t>& rows) {
  std::string text = csv_line(all.header) + "\n";
  for (const std::size_t r : rows) text += csv_line(all.rows[r]) + "\n";
  const LayerTable table = parse_layers_csv(text, all.source);
  const GpuSpec unseen = GpuDatabase::bundled().resolve(kUnseenGpu);
  std::vector<Predicted> out;
  for (std::size_t i = 0; i < table.layers.size(); ++i) {
    const GpuSpec gpu = GpuDatabase::bundled().resolve(table.table.get(i, "gpu").value_or(""));
    const std::vector<Layer> layer{table.layers[i]};
    Predicted p;
    const std::string source = table.table.get(i, "source").value_or("");
    p.own_ms = model.predict_layers_as(layer, gpu, {source})[0].latency_ms();
    p.reference_ms = model.predict_layers(layer, gpu)[0].latency_ms();
    p.unseen_gpu_ms = model.predict_layers(layer, unseen)[0].latency_ms();
    out.push_back(p);
  }
  return out;
}

const std::vector<std::string> kDatasets{"layers_neusight.csv.gz", "layers_mlpredict.csv.gz"};

CsvTable dataset(const std::string& name) {
  return read_csv(kSourceDir + "/datasets/" + name);
}

void write_fixture(const std::string& model_path) {
  const auto model = LearnedModel::load(model_path);
  model->set_fallback_spans(std::numeric_limits<double>::infinity());
  model->set_batch_monotone(false);
  std::string out = "dataset,row,own_ms,reference_ms,unseen_gpu_ms\n";
  for (const auto& name : kDatasets) {
    const CsvTable all = dataset(name);
    const auto rows = pick_rows(all);
    const auto predicted = predict_rows(*model, all, rows);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += name + "," + std::to_string(rows[i]);
      for (const double v :
           {predicted[i].own_ms, predicted[i].reference_ms, predicted[i].unseen_gpu_ms}) {
        std::array<char, 32> buf{};
        (void)std::snprintf(buf.data(), buf.size(), ",%.17g", v);  // round-trips a double
        out += buf.data();
      }
      out += "\n";
    }
  }
  write_output(kFixture, out);
}

TEST(BundledModelPredictions, EqualTheRecordedOnesOnRealRows) {
  if (const char* from = std::getenv("CNNPERF_WRITE_BUNDLED_PREDICTIONS")) {
    write_fixture(from);
    GTEST_SKIP() << "wrote " << kFixture << " from " << from;
  }
  const CsvTable fixture = read_csv(kFixture);
  const auto model = LearnedModel::load(kSourceDir + "/models/cnnperf_default.json");
  model->set_fallback_spans(std::numeric_limits<double>::infinity());
  model->set_batch_monotone(false);
  std::size_t compared = 0;
  for (const auto& name : kDatasets) {
    const CsvTable all = dataset(name);
    std::vector<std::size_t> rows;
    std::vector<Predicted> expected;
    for (std::size_t i = 0; i < fixture.rows.size(); ++i) {
      if (fixture.get(i, "dataset") != name) continue;
      rows.push_back(std::stoul(fixture.get(i, "row").value_or("")));
      expected.push_back({*fixture.get_number(i, "own_ms"), *fixture.get_number(i, "reference_ms"),
                          *fixture.get_number(i, "unseen_gpu_ms")});
    }
    ASSERT_GE(rows.size(), 20U) << name;
    const auto got = predict_rows(*model, all, rows);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto where = name + " row " + std::to_string(rows[i]);
      EXPECT_NEAR(got[i].own_ms, expected[i].own_ms, 1e-9 * expected[i].own_ms) << where;
      EXPECT_NEAR(got[i].reference_ms, expected[i].reference_ms, 1e-9 * expected[i].reference_ms)
          << where;
      EXPECT_NEAR(got[i].unseen_gpu_ms, expected[i].unseen_gpu_ms, 1e-9 * expected[i].unseen_gpu_ms)
          << where;
    }
    compared += rows.size();
  }
  EXPECT_GE(compared, 60U);
}

}  // namespace
}  // namespace cnnperf
