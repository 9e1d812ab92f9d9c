// SPDX-License-Identifier: Apache-2.0
// End-to-end: `cnnperf train --cv leave-source-out` on a tiny subset of REAL measured rows
// (every 150th row of datasets/layers_neusight.csv.gz and every 500th of
// datasets/layers_mlpredict.csv.gz, copied unchanged into temporary CSVs).
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/results.hpp"
#include "cnnperf/model/gpu_spec.hpp"

namespace {

namespace fs = std::filesystem;

using cnnperf::cli_test::run_cnnperf;
using cnnperf::cli_test::RunResult;
using cnnperf::cli_test::temp_dir;

// Rows per (source, op family) of the fixture, and of those on GPUs no other source has: what
// the report must say, counted here from the files themselves.
struct Expected {
  std::map<std::pair<std::string, std::string>, std::size_t> rows;
  std::map<std::pair<std::string, std::string>, std::size_t> unseen;
};

std::string family_of(const std::string& op) {
  if (op == "conv2d") return "conv";
  if (op == "linear") return "gemm";
  return "pointwise";
}

class TrainSchemeCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path datasets = fs::path(CNNPERF_SOURCE_DIR_FOR_TESTS) / "datasets";
    std::map<std::string, std::set<std::string>> sources_of_gpu;          // family|gpu -> sources
    std::vector<std::tuple<std::string, std::string, std::string>> kept;  // source, family, gpu
    for (const auto& [name, step] : {std::pair{"neusight", 150}, std::pair{"mlpredict", 500}}) {
      const auto table = cnnperf::read_csv(datasets / ("layers_" + std::string(name) + ".csv.gz"));
      const std::size_t op = *table.column("op");
      const std::size_t gpu = *table.column("gpu");
      std::string text = cnnperf::csv_line(table.header) + "\n";
      for (std::size_t r = 0; r < table.rows.size(); r += static_cast<std::size_t>(step)) {
        text += cnnperf::csv_line(table.rows[r]) + "\n";
        const std::string family = family_of(table.rows[r][op]);
        const std::string resolved = cnnperf::GpuDatabase::bundled().find(table.rows[r][gpu])->name;
        kept.emplace_back(name, family, resolved);
        sources_of_gpu[family + "|" + resolved].insert(name);
      }
      const fs::path path = temp_dir() / ("lso_" + std::string(name) + ".csv");
      cnnperf::write_output(path.string(), text);
      files_ += " " + path.string();
    }
    for (const auto& [source, family, gpu] : kept) {
      ++expected_.rows[{source, family}];
      if (sources_of_gpu[family + "|" + gpu].size() == 1) ++expected_.unseen[{source, family}];
    }
  }
  static inline std::string files_;
  static inline Expected expected_;
};

TEST_F(TrainSchemeCli, LeaveSourceOutScoresEachHeldOutSourcePerFamily) {
  const RunResult r = run_cnnperf("train --data" + files_ +
                                  " --regressor dtree --params '{\"max_depth\": 6}' "
                                  "--cv leave-source-out --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report.at("cv_scheme"), "leave-source-out");
  std::set<std::string> scored;  // family/source of each per-source row
  bool pointwise_reason = false;
  for (const auto& row : report.at("cv")) {
    EXPECT_EQ(row.at("cv"), "leave-source-out");
    const std::string family = row.at("family");
    if (row.contains("not_applicable")) {
      // Only NeuSight measured pointwise ops.
      EXPECT_EQ(family, "pointwise");
      EXPECT_NE(row["not_applicable"].get<std::string>().find("only 'neusight'"),
                std::string::npos);
      EXPECT_EQ(row.at("n"), 0);
      EXPECT_FALSE(row.contains("mape_pct"));
      pointwise_reason = true;
      continue;
    }
    if (!row.contains("source")) continue;  // the family's pooled row
    const std::string source = row["source"];
    scored.insert(family + "/" + source);
    const std::pair<std::string, std::string> key{source, family};
    EXPECT_EQ(row.at("n").get<std::size_t>(), expected_.rows.at(key));
    EXPECT_EQ(row.at("unseen_gpu_rows").get<std::size_t>(), expected_.unseen[key]);
    for (const char* metric : {"mape_pct", "within_10pct", "spearman"}) {
      EXPECT_TRUE(row.at(metric).is_number()) << row.dump();
    }
    EXPECT_GT(row["mape_pct"].get<double>(), 0.0);
  }
  EXPECT_TRUE(pointwise_reason);
  // What report reads: the typed result gives back every member train wrote.
  EXPECT_EQ(nlohmann::json(report.get<cnnperf::TrainResult>()), report);
  EXPECT_EQ(scored, (std::set<std::string>{"conv/mlpredict", "conv/neusight", "gemm/mlpredict",
                                           "gemm/neusight"}));
}

TEST_F(TrainSchemeCli, LeaveSourceOutTableSaysWhatWasNotScoredAndWhatWasUnseen) {
  const RunResult r = run_cnnperf("train --data" + files_ +
                                  " --regressor dtree --params '{\"max_depth\": 6}' "
                                  "--cv leave-source-out");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("all (neusight rows)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all (mlpredict rows)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all (not applicable)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dtree pointwise: not applicable, rows of only 'neusight' source"),
            std::string::npos)
      << r.out;
  const std::pair<std::string, std::string> key{"mlpredict", "conv"};
  const std::string unseen =
      "dtree conv, mlpredict held out: " + std::to_string(expected_.unseen[key]) + " of its " +
      std::to_string(expected_.rows.at(key)) + " rows";
  EXPECT_NE(r.out.find(unseen), std::string::npos) << r.out;
}

TEST_F(TrainSchemeCli, AnUnknownSchemeNamesTheChoices) {
  const RunResult r = run_cnnperf("train --data" + files_ + " --cv leave-sources-out");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("leave-source-out"), std::string::npos) << r.err;
}

}  // namespace
