// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict --from`: measured rows carried to another GPU by the model's ratio.
#include <cstddef>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace cnnperf::cli_test {
namespace {

// SYNTHETIC fixture: made-up latency_ms values, not measurements; only the arithmetic on them
// is checked. Two GPUs, two shapes, and a duplicates column as `cnnperf profile` writes.
constexpr const char* kSyntheticRows =
    "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,pad_h,pad_w,latency_ms,gpu,duplicates\n"
    "conv2d,32,256,28,28,256,3,3,1,1,1.5,v100,1\n"
    "conv2d,32,256,28,28,256,3,3,1,1,0.25,NVIDIA A100-PCIE-40GB,2\n"
    "linear,64,1024,1,1,4096,1,1,0,0,0.125,v100,3\n";

std::string write_fixture(const std::string& name, const std::string& text) {
  const auto path = temp_dir() / name;
  std::ofstream(path) << text;
  return "\"" + path.string() + "\"";
}

nlohmann::json rows_of(const std::string& args) {
  return json_of(args)["rows"];
}

TEST(PredictFromCli, OnTheGpuItWasMeasuredOnARowKeepsItsMeasurement) {
  const std::string csv = write_fixture("from_same.csv", kSyntheticRows);
  const auto rows = rows_of("predict --from " + csv + " --gpu v100 --format json");
  ASSERT_EQ(rows.size(), 3U);
  for (const std::size_t i : {0U, 2U}) {
    EXPECT_EQ(rows[i]["kernel_ms"].get<double>(),
              std::stod(rows[i]["latency_ms"].get<std::string>()))
        << i;
    EXPECT_EQ(rows[i]["measured_ms_on_source_gpu"].get<double>(),
              rows[i]["kernel_ms"].get<double>());
    EXPECT_EQ(rows[i]["source_gpu"], "v100-sxm2-16gb");
  }
  // The A100 row, carried to the V100, is no longer its measurement.
  EXPECT_NE(rows[1]["kernel_ms"].get<double>(), 0.25);
  EXPECT_EQ(rows[1]["source_gpu"], "a100-pcie-40gb");
}

// kernel_ms on B = the row's measurement x the model's kernel_ms on B / on the row's own GPU,
// each row with its own GPU and measurement; the other columns are --layers' on B.
TEST(PredictFromCli, EachRowTakesTheModelsRatioBetweenItsGpuAndTheTarget) {
  const std::string csv = write_fixture("from_ratio.csv", kSyntheticRows);
  const auto from = rows_of("predict --from " + csv + " --gpu t4 --format json");
  const auto on_own = rows_of("predict --layers " + csv + " --format json");
  const auto on_t4 = rows_of("predict --layers " + csv + " --gpu t4 --format json");
  ASSERT_EQ(from.size(), 3U);
  ASSERT_EQ(on_own.size(), 3U);
  ASSERT_EQ(on_t4.size(), 3U);
  for (std::size_t i = 0; i < from.size(); ++i) {
    const double measured = std::stod(from[i]["latency_ms"].get<std::string>());
    const double expected =
        measured * on_t4[i]["kernel_ms"].get<double>() / on_own[i]["kernel_ms"].get<double>();
    EXPECT_NEAR(from[i]["kernel_ms"].get<double>(), expected, 1e-12 * expected) << i;
    EXPECT_EQ(from[i]["overhead_ms"], on_t4[i]["overhead_ms"]) << i;
    EXPECT_EQ(from[i]["avg_power_w"], on_t4[i]["avg_power_w"]) << i;
    EXPECT_NEAR(from[i]["energy_mj"].get<double>(), from[i]["avg_power_w"].get<double>() * expected,
                1e-9 * expected)
        << i;
    EXPECT_TRUE(from[i]["latency_ms_lo"].is_null()) << i;
  }
  // Rows 0 and 1 are one shape measured on two GPUs: two different answers on the T4.
  EXPECT_NE(from[0]["kernel_ms"], from[1]["kernel_ms"]);
}

TEST(PredictFromCli, TheTotalCountsEachRowAsOftenAsItsDuplicatesSay) {
  const std::string csv = write_fixture("from_total.csv", kSyntheticRows);
  const auto doc = json_of("predict --from " + csv + " --gpu a100 --format json");
  const auto& rows = doc["rows"];
  ASSERT_EQ(rows.size(), 3U);
  double kernel_ms = 0;
  double latency_ms = 0;
  const double counts[] = {1, 2, 3};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    kernel_ms += counts[i] * rows[i]["kernel_ms"].get<double>();
    latency_ms += counts[i] * rows[i]["predicted_latency_ms"].get<double>();
  }
  const auto& total = doc["total"];
  EXPECT_EQ(total["rows"], 3);
  EXPECT_EQ(total["layers"].get<double>(), 6);
  EXPECT_NEAR(total["kernel_ms"].get<double>(), kernel_ms, 1e-12);
  EXPECT_NEAR(total["latency_ms"].get<double>(), latency_ms, 1e-12);
  EXPECT_NEAR(total["measured_ms_on_source_gpu"].get<double>(), 1.5 + 2 * 0.25 + 3 * 0.125, 1e-12);
  EXPECT_EQ(doc["source_gpus"], nlohmann::json::array({"a100-pcie-40gb", "v100-sxm2-16gb"}));

  const RunResult table = run_cnnperf("predict --from " + csv + " --gpu a100 --format table");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("network end to end (3 rows, 6 layers"), std::string::npos) << table.out;
  const RunResult text = run_cnnperf("predict --from " + csv + " --gpu a100");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(",in_distribution,measured_ms_on_source_gpu,source_gpu,model,"),
            std::string::npos)
      << text.out.substr(0, 400);
}

TEST(PredictFromCli, BadRowsAndOptionsAreBadInputNamingWhere) {
  const std::string header = "op,batch,c_in,h_in,w_in,c_out,latency_ms,gpu\n";
  struct Case {
    std::string name;
    std::string text;
    std::string extra;
    std::string error;
  };
  const Case cases[] = {
      {"from_no_value.csv", header + "relu,1,64,8,8,64,0.1,v100\nrelu,1,64,8,8,64,,v100\n", "",
       "from_no_value.csv:3: field 'latency_ms'"},
      {"from_zero.csv", header + "relu,1,64,8,8,64,0,v100\n", "",
       "from_zero.csv:2: field 'latency_ms'"},
      {"from_unknown_gpu.csv", header + "relu,1,64,8,8,64,0.1,rtx9999\n", "",
       "from_unknown_gpu.csv:2: field 'gpu'"},
      {"from_no_gpu.csv", "op,batch,c_in,h_in,w_in,c_out,latency_ms\nrelu,1,64,8,8,64,0.1\n", "",
       "from_no_gpu.csv:1: field 'gpu'"},
      {"from_no_latency.csv", "op,batch,c_in,h_in,w_in,c_out,gpu\nrelu,1,64,8,8,64,v100\n", "",
       "from_no_latency.csv:1: field 'latency_ms'"},
      {"from_dup.csv",
       "op,batch,c_in,h_in,w_in,c_out,latency_ms,gpu,duplicates\nrelu,1,64,8,8,64,0.1,v100,0\n", "",
       "from_dup.csv:2: field 'duplicates'"},
      {"from_net.csv", header + "relu,1,64,8,8,64,0.1,v100\n", " --net resnet18",
       "--net and --from"},
      {"from_layers.csv", header + "relu,1,64,8,8,64,0.1,v100\n", " --layers x.csv",
       "--layers and --from"},
  };
  for (const Case& c : cases) {
    const std::string csv = write_fixture(c.name, c.text);
    const RunResult r = run_cnnperf("predict --from " + csv + " --gpu a100" + c.extra);
    EXPECT_EQ(r.exit_code, 2) << c.name << "\n" << r.out;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.name << "\n" << r.err;
  }
  const std::string csv = write_fixture("from_ok.csv", header + "relu,1,64,8,8,64,0.1,v100\n");
  RunResult r = run_cnnperf("predict --from " + csv + " --gpu rtx9999");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown GPU 'rtx9999'"), std::string::npos) << r.err;
  r = run_cnnperf("predict --from " + csv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpu: required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cnnperf::cli_test
