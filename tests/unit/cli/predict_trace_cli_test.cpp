// SPDX-License-Identifier: Apache-2.0
// End-to-end: `cnnperf predict --net ... --trace FILE`, the Chrome trace of the predicted step.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace cnnperf {
namespace {

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::temp_dir;

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = temp_dir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

bool is_empty_dir(const std::filesystem::path& dir) {
  return std::filesystem::directory_iterator(dir) == std::filesystem::directory_iterator();
}

TEST(PredictTraceCli, WritesTheStepThatThePredictionPrints) {
  const auto dir = fresh_dir("trace_ok");
  const auto file = dir / "step.json";
  const RunResult r =
      run_cnnperf("predict --net resnet50 --gpu a100 --batch 4 --format json --trace \"" +
                  file.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto prediction = nlohmann::json::parse(r.out);
  std::ifstream in(file);
  const auto trace = nlohmann::json::parse(in);
  const auto& other = trace.at("otherData");
  EXPECT_EQ(other.at("kind"), "prediction_trace");
  EXPECT_EQ(other.at("gpu"), prediction.at("gpu").at("name"));
  EXPECT_EQ(other.at("network"), "resnet50");
  EXPECT_EQ(other.at("batch"), 4);
  EXPECT_EQ(other.at("runtime"), "pytorch");
  EXPECT_DOUBLE_EQ(other.at("latency_ms").get<double>(),
                   prediction.at("total").at("latency_ms").get<double>());
  EXPECT_DOUBLE_EQ(other.at("kernel_ms").get<double>(),
                   prediction.at("total").at("kernel_ms").get<double>());
  double end_us = 0;
  int kernels = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    end_us = std::max(end_us, e.at("ts").get<double>() + e.at("dur").get<double>());
    kernels += e.at("cat") == "kernel" ? 1 : 0;
  }
  EXPECT_NEAR(end_us / 1000.0, prediction.at("total").at("latency_ms").get<double>(), 1e-9);
  EXPECT_EQ(kernels, 174);  // ResNet-50's 175 layers but its flatten, a view
}

TEST(PredictTraceCli, BadInputLeavesNoTraceFile) {
  const auto dir = fresh_dir("trace_bad");
  const std::string file = "\"" + (dir / "step.json").string() + "\"";
  RunResult r = run_cnnperf("predict --net resnet50 --gpu no-such-gpu --trace " + file);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_cnnperf("predict --net no_such_net --gpu a100 --trace " + file);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const auto csv = dir.parent_path() / "trace_layers.csv";
  std::ofstream(csv) << "op,batch,c_in,c_out\nlinear,8,512,512\n";
  r = run_cnnperf("predict --layers \"" + csv.string() + "\" --gpu v100 --trace " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
  r = run_cnnperf("predict --net resnet18 --gpu a100 --trace " + file + " -o " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trace and --output"), std::string::npos) << r.err;
  // A sweep is many predictions; a trace is of one.
  r = run_cnnperf("predict --net resnet18 --gpu a100,t4 --trace " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trace: a trace is of one prediction"), std::string::npos) << r.err;
  // No trace, and no temporary file beside where it would have gone.
  EXPECT_TRUE(is_empty_dir(dir));
  r = run_cnnperf("predict --net resnet18 --gpu a100 --trace \"" +
                  (dir / "missing" / "step.json").string() + "\"");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(is_empty_dir(dir));
}

TEST(PredictTraceCli, AStepOverBudgetStillWritesItsTrace) {
  const auto dir = fresh_dir("trace_budget");
  const auto file = dir / "step.json";
  const RunResult r = run_cnnperf(
      "predict --net resnet50 --gpu t4 --max-latency-ms 0.001 --trace \"" + file.string() + "\"");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  std::ifstream in(file);
  EXPECT_EQ(nlohmann::json::parse(in).at("otherData").at("gpu"), "t4");
}

}  // namespace
}  // namespace cnnperf
