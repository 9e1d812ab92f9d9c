// SPDX-License-Identifier: Apache-2.0
// End-to-end: `cnnperf predict --format json` written to a file, then `cnnperf report` on it
// (the built binary, CNNPERF_BINARY): the HTML file exists with a chart and the network name;
// bad JSON and no input exit 2 with one line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

using cli_test::run_cnnperf;
using cli_test::RunResult;
using cli_test::temp_dir;

TEST(ReportCli, PredictionJsonToHtmlFile) {
  const fs::path json = temp_dir() / "mnas.json";
  const fs::path html = temp_dir() / "mnas.html";
  // stdout redirected to a file, as a user would do it.
  const RunResult predict =
      run_cnnperf("predict --net mnasnet1_0 --gpu t4 --format json > \"" + json.string() + "\"");
  ASSERT_EQ(predict.exit_code, 0) << predict.err;
  const RunResult report = run_cnnperf(
      "report \"" + json.string() + "\" --title \"T4 study\" --output \"" + html.string() + "\"");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(report.out.empty());  // the page goes to the file only
  ASSERT_TRUE(fs::exists(html));
  const std::string page = read_text_file(html);
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_NE(page.find("mnasnet1_0"), std::string::npos);
  EXPECT_NE(page.find("<title>T4 study</title>"), std::string::npos);
  EXPECT_NE(page.find(json.string()), std::string::npos);  // names its input file
  EXPECT_NE(page.find("</html>"), std::string::npos);
}

TEST(ReportCli, StdinToStdout) {
  const fs::path json = temp_dir() / "gpu.json";
  ASSERT_EQ(run_cnnperf("gpus show t4 --format json --output \"" + json.string() + "\"").exit_code,
            0);
  const RunResult r = run_cnnperf("report - < \"" + json.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU specification"), std::string::npos);
  EXPECT_NE(r.out.find("(stdin)"), std::string::npos);
}

TEST(ReportCli, BadJsonExits2NamingFileLineAndColumn) {
  const fs::path bad = temp_dir() / "bad.json";
  std::ofstream(bad) << "{\"a\": }";
  const fs::path html = temp_dir() / "never.html";
  const RunResult r = run_cnnperf("report \"" + bad.string() + "\" -o \"" + html.string() + "\"");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad.string() + ": invalid JSON: parse error at line 1, column 7"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(html));
}

TEST(ReportCli, NoInputExits2WithUsage) {
  const RunResult r = run_cnnperf("report");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("usage: cnnperf report INPUT.json"), std::string::npos) << r.err;
  EXPECT_EQ(run_cnnperf("report /nonexistent/x.json").exit_code, 2);
}

TEST(ReportCli, HelpHasExamples) {
  const RunResult r = run_cnnperf("report --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("cnnperf report r50.json --output report.html"), std::string::npos);
}

}  // namespace
}  // namespace cnnperf
