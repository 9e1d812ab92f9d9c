// SPDX-License-Identifier: Apache-2.0
// End-to-end: `cnnperf predict` with comma lists (a sweep): one row per combination, in the
// order gpu, precision, runtime, batch, each row the single prediction of its combination.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

using cli_test::json_of;
using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::temp_dir;

// The single prediction of one row's combination, as `predict` prints it without lists.
nlohmann::json single_of(const std::string& net, const nlohmann::json& row) {
  return json_of("predict --net " + net + " --gpu " + row.at("gpu").get<std::string>() +
                 " --batch " + std::to_string(row.at("batch").get<int>()) + " --precision " +
                 row.at("precision").get<std::string>() + " --runtime " +
                 row.at("runtime").get<std::string>() + " --format json");
}

// Every figure of the row is the single prediction's own `total` figure, digit for digit.
void expect_row_is_single(const std::string& net, const nlohmann::json& row) {
  const nlohmann::json single = single_of(net, row);
  const nlohmann::json& total = single.at("total");
  for (const char* key :
       {"kernel_ms", "overhead_ms", "latency_ms", "latency_ms_lo", "latency_ms_hi", "energy_j",
        "avg_power_w", "min_memory_gb", "params", "flops"}) {
    EXPECT_EQ(row.at(key), total.at(key)) << key << " of " << row.dump();
  }
  EXPECT_EQ(row.at("gpu"), single.at("gpu").at("name"));
  EXPECT_EQ(row.at("model"), single.at("model"));
  const double samples = row.at("batch").get<double>() * 1e3 / total.at("latency_ms").get<double>();
  EXPECT_DOUBLE_EQ(row.at("throughput_samples_per_s").get<double>(), samples);
}

TEST(SweepCli, CsvHasOneRowPerCombinationInGpuPrecisionRuntimeBatchOrder) {
  const RunResult r = run_cnnperf(
      "predict --net resnet18 --gpu t4,a100 --batch 8,1 --precision fp32,fp16 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CsvTable table = parse_csv(r.out, "sweep.csv");
  ASSERT_EQ(table.rows.size(), 8U) << r.out;
  const auto column = [&](const std::string& name) {
    const auto it = std::find(table.header.begin(), table.header.end(), name);
    EXPECT_NE(it, table.header.end()) << name;
    return static_cast<std::size_t>(it - table.header.begin());
  };
  // The lists' own order, gpu outermost and batch innermost.
  const std::vector<std::string> gpus{"t4", "t4", "t4", "t4", "a100", "a100", "a100", "a100"};
  const std::vector<std::string> precisions{"fp32", "fp32", "fp16", "fp16",
                                            "fp32", "fp32", "fp16", "fp16"};
  const std::vector<std::string> batches{"8", "1", "8", "1", "8", "1", "8", "1"};
  const std::string t4 = json_of("gpus show t4 --format json").at("gpu").at("name");
  const std::string a100 = json_of("gpus show a100 --format json").at("gpu").at("name");
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const auto& row = table.rows[i];
    EXPECT_EQ(row[column("gpu")], gpus[i] == "t4" ? t4 : a100) << i;
    EXPECT_EQ(row[column("precision")], precisions[i]) << i;
    EXPECT_EQ(row[column("batch")], batches[i]) << i;
    EXPECT_EQ(row[column("runtime")], "pytorch") << i;
    EXPECT_EQ(row[column("network")], "resnet18") << i;
    EXPECT_TRUE(row[column("over_budget")].empty()) << i;
  }
  // The CSV's figures are the single prediction's total row, as its CSV prints them.
  const RunResult single =
      run_cnnperf("predict --net resnet18 --gpu a100 --batch 1 --precision fp16 --format csv");
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const CsvTable one = parse_csv(single.out, "single.csv");
  const auto& total = one.rows.back();
  const auto one_column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(one.header.begin(), one.header.end(), name) -
                                    one.header.begin());
  };
  for (const char* key : {"kernel_ms", "overhead_ms", "latency_ms", "latency_ms_lo",
                          "latency_ms_hi", "avg_power_w", "roofline_ms", "params", "flops"}) {
    EXPECT_EQ(table.rows[7][column(key)], total[one_column(key)]) << key;
  }
}

TEST(SweepCli, EachJsonRowIsTheSinglePredictionOfItsCombination) {
  const nlohmann::json doc = json_of(
      "predict --net resnet18 --gpu a100,t4 --batch 1,16 --precision fp32,fp16 --format json");
  EXPECT_EQ(doc.at("kind"), "prediction_sweep");
  EXPECT_EQ(doc.at("schema_version"), 1);
  EXPECT_EQ(doc.at("network"), "resnet18");
  EXPECT_EQ(doc.at("gpus").size(), 2U);
  ASSERT_EQ(doc.at("rows").size(), 8U);
  for (const auto& row : doc.at("rows")) expect_row_is_single("resnet18", row);
}

// A runtime list, the precision left to each runtime (TensorRT: INT8 where the GPU has the
// rate), still gives each row its single prediction.
TEST(SweepCli, RuntimeListRowsMatchTheirSinglePredictions) {
  const nlohmann::json doc = json_of(
      "predict --net mobilenet_v2 --gpu a100,t4 --runtime pytorch,tensorrt --batch 1,8 "
      "--format json");
  ASSERT_EQ(doc.at("rows").size(), 8U);
  const std::vector<std::string> runtimes{"pytorch", "pytorch", "tensorrt", "tensorrt"};
  for (std::size_t i = 0; i < 8; ++i) {
    const auto& row = doc.at("rows").at(i);
    EXPECT_EQ(row.at("runtime"), runtimes[i % 4]) << i;
    expect_row_is_single("mobilenet_v2", row);
  }
}

TEST(SweepCli, TableHasOneLinePerRow) {
  const RunResult r = run_cnnperf("predict --net resnet18 --gpu a100,t4 --batch 1,8,32");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("resnet18, inference: 6 predictions", 0), 0U) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    const bool numbered = !line.empty() && line[0] >= '1' && line[0] <= '6' && line[1] == ' ';
    rows += numbered ? 1 : 0;
  }
  EXPECT_EQ(rows, 6) << r.out;
}

TEST(SweepCli, BadListEntriesAreExitTwoNamingTheOptionAndTheEntry) {
  const std::string base = "predict --net resnet18 --gpu a100 ";
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--batch 1,x", "--batch: expected a positive integer, got x (entry 2 of '1,x')"},
           {"--batch 1,0", "--batch: expected a positive integer, got 0"},
           {"--batch 1,,8", "--batch: empty entry in '1,,8'"},
           {"--batch 8,1,8", "--batch: '8' and '8' are one value"},
           {"--precision fp32,fp9", "--precision: "},
           {"--precision fp16,half", "--precision: 'fp16' and 'half' are one value"},
           {"--runtime pytorch,torch", "--runtime: "},
           {"--runtime tensorrt,tensorrt", "--runtime: 'tensorrt' and 'tensorrt' are one value"},
       }) {
    const RunResult r = run_cnnperf(base + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(cli_test::count_lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  // The bad entry is named.
  RunResult r = run_cnnperf(base + "--precision fp32,fp9");
  EXPECT_NE(r.err.find("fp9"), std::string::npos) << r.err;
  r = run_cnnperf(base + "--runtime pytorch,torch");
  EXPECT_NE(r.err.find("torch not in {cudnn,pytorch,pytorch-compile,tensorrt} (entry 2"),
            std::string::npos)
      << r.err;
  r = run_cnnperf("predict --net resnet18 --gpu a100,nosuchgpu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: --gpu: unknown GPU 'nosuchgpu'", 0), 0U) << r.err;
  r = run_cnnperf("predict --net resnet18 --gpu a100,A100-SXM4-40GB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpu: 'a100' and 'A100-SXM4-40GB' are one GPU"), std::string::npos)
      << r.err;
}

TEST(SweepCli, TooManyCombinationsOrListsOnLayerRowsAreExitTwo) {
  std::string batches = "1";
  for (int b = 2; b <= 129; ++b) batches += "," + std::to_string(b);
  RunResult r =
      run_cnnperf("predict --net resnet18 --gpu a100 --precision fp32,fp16 --batch " + batches);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("258 combinations; expected at most 256"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  const auto csv = temp_dir() / "sweep_layers.csv";
  std::ofstream(csv)
      << "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w\nconv2d,1,64,56,56,64,3,3\n";
  for (const std::string list :
       {"--gpu a100,t4", "--runtime cudnn,pytorch", "--batch 1,8", "--precision fp32,fp16"}) {
    r = run_cnnperf("predict --layers \"" + csv.string() + "\" " + list +
                    (list.starts_with("--gpu") ? "" : " --gpu a100"));
    EXPECT_EQ(r.exit_code, 2) << list;
    EXPECT_NE(r.err.find(list.substr(0, list.find(' ')) + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not to --layers rows"), std::string::npos) << r.err;
  }
}

// A GPU spec file is one GPU, whatever its name holds.
TEST(SweepCli, AGpuSpecFileStaysOneGpu) {
  const auto spec = temp_dir() / "a,b.json";
  const RunResult shown = run_cnnperf("gpus show t4 --format json");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::ofstream(spec) << nlohmann::json::parse(shown.out).at("gpu").dump();
  const RunResult r = run_cnnperf("predict --net resnet18 --gpu \"" + spec.string() +
                                  "\" --batch 1,2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("rows").size(), 2U);
  EXPECT_EQ(doc.at("gpus").size(), 1U);
}

TEST(SweepCli, BudgetsApplyToEveryRowAndNameTheRowsOver) {
  const std::string args = "predict --net resnet18 --gpu a100,t4 --batch 1,32 --format json";
  const nlohmann::json free = json_of(args);
  std::vector<double> latencies;
  for (const auto& row : free.at("rows")) latencies.push_back(row.at("latency_ms").get<double>());
  const double slowest = *std::max_element(latencies.begin(), latencies.end());
  const double fastest = *std::min_element(latencies.begin(), latencies.end());
  ASSERT_LT(fastest, slowest);
  const double budget = (fastest + slowest) / 2;
  RunResult r = run_cnnperf(args + " --max-latency-ms " + format_number(budget, 6));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto doc = nlohmann::json::parse(r.out);  // the output is written all the same
  std::size_t over = 0;
  for (std::size_t i = 0; i < latencies.size(); ++i) {
    const auto& row = doc.at("rows").at(i);
    const bool expected = latencies[i] > budget;
    over += expected ? 1 : 0;
    EXPECT_EQ(!row.at("over_budget").is_null(), expected) << row.dump();
    if (expected) {
      EXPECT_NE(r.err.find("[row " + std::to_string(i + 1) + ", " +
                           row.at("gpu").get<std::string>() + " fp32 pytorch batch " +
                           std::to_string(row.at("batch").get<int>()) + "] latency budget"),
                std::string::npos)
          << r.err;
    }
  }
  ASSERT_GT(over, 0U);
  EXPECT_NE(r.err.find(std::to_string(over) + " of 4 rows over budget"), std::string::npos)
      << r.err;
  EXPECT_EQ(cli_test::count_lines(r.err), 1) << r.err;
  // Above every row: exit 0; an energy budget under every row: all four named.
  EXPECT_EQ(run_cnnperf(args + " --max-latency-ms " + format_number(slowest * 2, 6)).exit_code, 0);
  r = run_cnnperf(args + " --max-energy-j 1e-9");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("4 of 4 rows over budget"), std::string::npos) << r.err;
}

// A prediction that is not finite stays an error, naming the combination that gave it.
TEST(SweepCli, AnErrorInOneCombinationNamesIt) {
  const RunResult r =
      run_cnnperf("predict --net resnet18 --gpu a100,t4 --batch 1,2 --host-ms-per-op 1e308");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: --gpu ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find("--host-ms-per-op"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(SweepCli, ReportDrawsASweep) {
  const auto json = temp_dir() / "sweep.json";
  const auto html = temp_dir() / "sweep.html";
  RunResult r = run_cnnperf("predict --net resnet18 --gpu a100,t4 --batch 1,8 --format json -o \"" +
                            json.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cnnperf("report \"" + json.string() + "\" -o \"" + html.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<h2>1. prediction sweep: resnet18, 4 rows</h2>"), std::string::npos);
  EXPECT_NE(page.find("Predicted latency_ms against batch"), std::string::npos);
  EXPECT_NE(page.find("Predicted energy_j against batch"), std::string::npos);
  EXPECT_NE(page.find("latency_ms at batch 8"), std::string::npos);
}

}  // namespace
}  // namespace cnnperf
