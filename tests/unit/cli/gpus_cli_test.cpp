// SPDX-License-Identifier: Apache-2.0
// End-to-end: runs the built cnnperf binary for `gpus` and checks exit codes and output.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/config.hpp"
#include "cnnperf/model/gpu_spec.hpp"

namespace {

namespace fs = std::filesystem;

using cnnperf::cli_test::count_lines;
using cnnperf::cli_test::run_cnnperf;
using cnnperf::cli_test::RunResult;

TEST(GpusCli, ListsTheDatabaseAsATable) {
  const RunResult r = run_cnnperf("gpus");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("tensor FP16 TFLOPS"), std::string::npos);
  EXPECT_NE(r.out.find("a100-sxm4-40gb"), std::string::npos);
  EXPECT_NE(r.out.find("rtx-5090"), std::string::npos);
  EXPECT_GE(count_lines(r.out), 60 + 2);  // header, rule, >= 60 rows
}

TEST(GpusCli, ShowFamilyAsJsonGivesTheDefaultVariant) {
  const RunResult r = run_cnnperf("gpus show a100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("schema_version"), 1);
  EXPECT_EQ(doc.at("tool_version"), CNNPERF_VERSION);
  EXPECT_EQ(doc.at("query"), "a100");
  EXPECT_EQ(doc.at("gpu").at("name"), "a100-sxm4-40gb");
  EXPECT_EQ(doc.at("gpu").at("sm_count"), 108);
  EXPECT_NE(doc.at("database").get<std::string>().find("gpus.json"), std::string::npos);
  EXPECT_TRUE(doc.at("gpu").at("sources").contains("default"));
  // What report reads: the typed result gives back every member it wrote.
  EXPECT_EQ(nlohmann::json(doc.get<cnnperf::GpuSpecResult>()), doc);
}

TEST(GpusCli, ShowTableHasEveryFieldWithItsSource) {
  const RunResult r = run_cnnperf("gpus show \"Tesla V100-PCIE-32GB\"");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("v100-pcie-32gb"), std::string::npos);
  // Every field starts a row of its own (the table's first column).
  std::set<std::string> row_fields;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    row_fields.insert(line.substr(0, line.find(' ')));
  }
  for (const std::string& field : cnnperf::gpu_spec_field_names()) {
    if (field == "sources") continue;  // the table's third column, not a row
    EXPECT_TRUE(row_fields.contains(field)) << field << " has no row in\n" << r.out;
  }
  EXPECT_NE(r.out.find("estimate"), std::string::npos);  // idle_power_w's source
  EXPECT_NE(r.out.find("CUDA C++ Programming Guide"), std::string::npos);
}

TEST(GpusCli, UnknownGpuExitsTwoWithClosestNames) {
  const RunResult r = run_cnnperf("gpus show \"RTX 4095\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("unknown GPU 'RTX 4095'; closest: rtx-4090"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;  // one line, no stack trace
}

TEST(GpusCli, BadOptionValuesExitTwo) {
  EXPECT_EQ(run_cnnperf("gpus --format xml").exit_code, 2);
  EXPECT_EQ(run_cnnperf("gpus --segment mainframe").exit_code, 2);
  EXPECT_EQ(run_cnnperf("gpus --database /nonexistent/gpus.json").exit_code, 2);
}

// A filter beside `show` was ignored, and a blank name was blamed on a --gpu option that
// `gpus show` does not have.
TEST(GpusCli, ShowRefusesListFiltersAndNamesItselfForABlankName) {
  RunResult r = run_cnnperf("gpus --arch hopper show t4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err,
            "cnnperf: error: --arch: filters the list; `gpus show` takes one GPU by name "
            "(drop the filter)\n");
  r = run_cnnperf("gpus show \" \"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("cnnperf: error: gpus show: expected a GPU name", 0), 0U) << r.err;
  // An option given twice is named in plain words, not CLI11's.
  r = run_cnnperf("gpus --format csv --format json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cnnperf: error: --format: given 2 times; expected once (see --help)\n");
}

TEST(GpusCli, CsvWithFiltersKeepsOnlyMatchingRows) {
  const RunResult r = run_cnnperf("gpus --format csv --segment jetson");
  ASSERT_EQ(r.exit_code, 0);
  std::istringstream lines(r.out);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("name,display_name,family,architecture,segment,", 0), 0u) << header;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    ++rows;
    EXPECT_NE(line.find(",jetson,"), std::string::npos) << line;
  }
  EXPECT_GE(rows, 5);

  const RunResult hopper = run_cnnperf("gpus --format json --arch hopper");
  ASSERT_EQ(hopper.exit_code, 0);
  const auto doc = nlohmann::json::parse(hopper.out);
  EXPECT_GE(doc.at("count").get<int>(), 3);
  for (const auto& g : doc.at("gpus")) EXPECT_EQ(g.at("architecture"), "hopper");
}

TEST(GpusCli, OutputFileAndSpecFile) {
  const fs::path dir = cnnperf::cli_test::temp_dir();
  const fs::path out = dir / "gpus.json";
  const RunResult r = run_cnnperf("gpus --format json --output '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.empty());
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_GE(doc.at("gpus").size(), 60u);

  // Synthetic GPU spec (not a real product) given as a file instead of a name.
  const fs::path spec = dir / "synthetic_gpu.json";
  std::ofstream(spec) << R"({"name": "synthetic-gpu", "architecture": "hopper",
    "compute_capability": "9.0", "sm_count": 4, "fp32_cores_per_sm": 128,
    "boost_clock_mhz": 1000, "memory_bandwidth_gbs": 100, "tdp_w": 50})";
  const RunResult shown = run_cnnperf("gpus show '" + spec.string() + "' --format json");
  ASSERT_EQ(shown.exit_code, 0);
  const auto g = nlohmann::json::parse(shown.out).at("gpu");
  EXPECT_EQ(g.at("name"), "synthetic-gpu");
  EXPECT_DOUBLE_EQ(g.at("fp32_tflops").get<double>(), 2.0 * 4 * 128 * 1000 / 1e6);
}

}  // namespace
