// SPDX-License-Identifier: Apache-2.0
// The 80 % intervals as a user sees them: `predict --layers` and `--net` put every latency
// inside its interval, in JSON, CSV and table; `train intervals` reports held-out coverage.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::source_file;
using cli_test::temp_dir;

nlohmann::json json_of(const std::string& args) {
  const RunResult r = run_cnnperf(args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return nlohmann::json::parse(r.out);
}

// lo <= latency <= hi for a JSON object with the three fields; counts the ones with an
// interval.
void expect_inside(const nlohmann::json& o, int& with_interval, const std::string& what) {
  if (o.at("latency_ms_lo").is_null()) {
    EXPECT_TRUE(o.at("latency_ms_hi").is_null()) << what;
    return;
  }
  ++with_interval;
  const double lo = o["latency_ms_lo"].get<double>();
  const double hi = o["latency_ms_hi"].get<double>();
  const double latency = o.at("latency_ms").get<double>();
  EXPECT_GT(lo, 0) << what;
  EXPECT_LE(lo, latency) << what;
  EXPECT_GE(hi, latency) << what;
}

TEST(IntervalsCli, NetPutsEveryLayerAndTheStepInsideItsInterval) {
  for (const char* gpu : {"a100", "t4"}) {
    const auto doc =
        json_of(std::string("predict --net resnet18 --gpu ") + gpu + " --batch 8 --format json");
    EXPECT_EQ(doc.at("schema_version"), 2);
    int with = 0;
    int measured_classes = 0;
    for (const auto& layer : doc.at("layers")) {
      expect_inside(layer, with, layer.at("name"));
      const std::string op = layer.at("op");
      // Convolutions, linear layers, normalizations and elementwise ops have measured
      // residuals; pools, which no dataset measures, have no interval.
      const bool measured =
          op == "conv2d" || op == "linear" || op == "batchnorm" || op == "relu" || op == "add";
      if (measured) ++measured_classes;
      if (op == "maxpool" || op == "avgpool" || op == "global_avgpool") {
        EXPECT_TRUE(layer.at("latency_ms_lo").is_null()) << layer.at("name");
      }
    }
    EXPECT_EQ(with, measured_classes) << gpu;
    EXPECT_GT(with, 20) << gpu;
    int total = 0;
    expect_inside(doc.at("total"), total, "total");
    EXPECT_EQ(total, 1) << doc["intervals"].dump();
    EXPECT_EQ(doc["intervals"]["source"], "models/intervals.json");
  }
}

TEST(IntervalsCli, NetCsvAndTableCarryTheInterval) {
  const RunResult csv = run_cnnperf("predict --net resnet18 --gpu a100 --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const CsvTable table = parse_csv(csv.out, "predict csv");
  const auto at = [&](const std::string& name) {
    return std::find(table.header.begin(), table.header.end(), name) - table.header.begin();
  };
  EXPECT_EQ(at("latency_ms_lo"), at("latency_ms") + 1);
  EXPECT_EQ(at("latency_ms_hi"), at("latency_ms") + 2);
  ASSERT_FALSE(table.rows.empty());
  int with = 0;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const std::string lo = table.get(i, "latency_ms_lo").value_or("");
    if (lo.empty()) continue;  // an op class without residuals (pools)
    ++with;
    const double latency = std::stod(table.get(i, "latency_ms").value());
    EXPECT_LE(std::stod(lo), latency) << i;
    EXPECT_GE(std::stod(table.get(i, "latency_ms_hi").value()), latency) << i;
  }
  EXPECT_GT(with, 20);
  EXPECT_EQ(table.get(table.rows.size() - 1, "name").value_or(""), "total");
  EXPECT_FALSE(table.get(table.rows.size() - 1, "latency_ms_lo").value_or("").empty());
  const RunResult text = run_cnnperf("predict --net resnet18 --gpu a100");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("80 % interval"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("latency_ms 80%"), std::string::npos) << text.out;
}

TEST(IntervalsCli, LayersRowsPutTheLatencyInsideItsInterval) {
  const std::string dir = temp_dir().string();
  const std::string layers = dir + "/interval_layers.csv";
  const RunResult shown = run_cnnperf("nets show resnet18 --batch 8 --format csv -o " + layers);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const RunResult csv = run_cnnperf("predict --layers " + layers + " --gpu v100 --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const CsvTable table = parse_csv(csv.out, "predict --layers csv");
  const auto at = [&](const std::string& name) {
    return std::find(table.header.begin(), table.header.end(), name) - table.header.begin();
  };
  EXPECT_EQ(at("latency_ms_lo"), at("latency_ms") + 1);
  EXPECT_EQ(at("latency_ms_hi"), at("latency_ms") + 2);
  int in_csv = 0;
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const std::string lo = table.get(i, "latency_ms_lo").value_or("");
    if (lo.empty()) continue;  // pools
    ++in_csv;
    const double latency = std::stod(table.get(i, "latency_ms").value());
    EXPECT_LE(std::stod(lo), latency) << i;
    EXPECT_GE(std::stod(table.get(i, "latency_ms_hi").value()), latency) << i;
  }
  const auto doc = json_of("predict --layers " + layers + " --gpu v100 --format json");
  int with = 0;
  for (const auto& row : doc.at("rows")) expect_inside(row, with, row.dump());
  EXPECT_EQ(with, in_csv);
  EXPECT_GT(with, 20);
  // The same layers in a network get the same per-layer interval (same latency_ms).
  const auto net = json_of("predict --net resnet18 --batch 8 --gpu v100 --format json");
  ASSERT_EQ(net["layers"].size(), doc["rows"].size());
  for (std::size_t i = 0; i < doc["rows"].size(); ++i) {
    EXPECT_EQ(net["layers"][i]["latency_ms_lo"].is_null(),
              doc["rows"][i]["latency_ms_lo"].is_null())
        << i;
  }
}

TEST(IntervalsCli, AModelFileWithoutATableGivesNoIntervalRatherThanAMadeUpOne) {
  const auto doc = json_of(
      "predict --net resnet18 --gpu a100 --format json --model models/cnnperf_default.json");
  if (doc.contains("intervals") && doc["intervals"]["source"] == "") {
    EXPECT_TRUE(doc["total"]["latency_ms_lo"].is_null());
    for (const auto& layer : doc["layers"]) EXPECT_TRUE(layer["latency_ms_lo"].is_null());
    EXPECT_NE(doc["intervals"]["note"].get<std::string>().find("no interval table"),
              std::string::npos);
  } else {
    // A bundled model trained with intervals carries its own table.
    int with = 0;
    for (const auto& layer : doc.at("layers")) expect_inside(layer, with, layer.at("name"));
    EXPECT_GT(with, 0);
  }
  // Under a power cap the residuals (measured uncapped) do not apply.
  const auto capped =
      json_of("predict --net resnet18 --gpu a100 --format json --power-limit 150 --batch 64");
  EXPECT_TRUE(capped["total"]["latency_ms_lo"].is_null());
}

// On a small real sample: the printed coverage is the share of held-out rows inside, and
// k-fold coverage is within the 70-90 % a calibrated 80 % interval gives.
TEST(IntervalsCli, TrainIntervalsReportsHeldOutCoverageAndWritesATablePredictCanRead) {
  const std::string dir = temp_dir().string();
  const std::string out = dir + "/intervals_sample.json";
  const RunResult r =
      run_cnnperf("train intervals --data " + source_file("datasets/layers_neusight.csv.gz") + " " +
                  source_file("datasets/layers_mlpredict.csv.gz") +
                  " --max-rows 4000 --format json --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  for (const char* scheme : {"kfold", "leave-gpu-out", "leave-source-out"}) {
    ASSERT_TRUE(report["schemes"].contains(scheme)) << scheme;
    const auto& c = report["schemes"][scheme]["overall"];
    const auto rows = c["rows"].get<std::size_t>();
    const auto scored = rows - c["no_interval"].get<std::size_t>();
    ASSERT_GT(scored, 0U) << scheme;
    EXPECT_DOUBLE_EQ(
        c["coverage"].get<double>(),
        static_cast<double>(c["inside"].get<std::size_t>()) / static_cast<double>(scored))
        << scheme;
  }
  const double kfold = report["schemes"]["kfold"]["overall"]["coverage"].get<double>();
  EXPECT_GE(kfold, 0.7);
  EXPECT_LE(kfold, 0.9);
  // Coverage per family and regime adds up to the family's.
  std::size_t conv_rows = 0;
  for (const auto& [key, c] : report["schemes"]["kfold"]["per_regime"].items()) {
    if (key.rfind("conv ", 0) == 0) conv_rows += c["rows"].get<std::size_t>();
  }
  EXPECT_EQ(conv_rows, report["schemes"]["kfold"]["per_family"]["conv"]["rows"].get<std::size_t>());
  // Coverage per machine: a layer row's machine is its source's harness on its GPU.
  const auto& machines = report["schemes"]["leave-gpu-out"]["per_group"];
  EXPECT_TRUE(machines.contains("neusight/v100-pcie-32gb")) << machines.dump();
  EXPECT_TRUE(machines.contains("mlpredict/v100-sxm2-16gb")) << machines.dump();
  // Pointwise rows are all one source's (NeuSight): leave-source-out cannot split them.
  EXPECT_TRUE(report["schemes"]["leave-source-out"]["not_applicable"].contains("pointwise"));
  std::ifstream in(out);
  const auto file = nlohmann::json::parse(in);
  EXPECT_EQ(file.at("kind"), "latency_intervals");
  EXPECT_EQ(file.at("provenance").at("scheme"), "leave-gpu-out");
  EXPECT_NE(file["provenance"]["command_line"].get<std::string>().find("train intervals"),
            std::string::npos);
  for (const char* family : {"conv", "gemm", "pointwise", "normalization"}) {
    const auto& all = file.at("families").at(family).at("all");
    EXPECT_LT(all.at("log_lo").get<double>(), all.at("log_hi").get<double>()) << family;
  }
}

TEST(IntervalsCli, TrainIntervalsBadOptionsAreExitTwo) {
  const std::string data = source_file("datasets/layers_neusight.csv.gz");
  RunResult r = run_cnnperf("train intervals --data " + data + " --cv sideways");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cv"), std::string::npos) << r.err;
  r = run_cnnperf("train intervals --data " + data + " --folds 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--folds"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cnnperf
