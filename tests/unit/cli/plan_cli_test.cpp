// SPDX-License-Identifier: Apache-2.0
// End-to-end: the built `cnnperf plan` binary (CNNPERF_BINARY) ranks a small set of
// candidates in every format, keeps infeasible ones with their reasons, and exits 2 on bad
// --weights or an unknown network. Latency/energy values are the model's and are not pinned.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using cnnperf::cli_test::run_cnnperf;
using cnnperf::cli_test::RunResult;
using cnnperf::cli_test::temp_dir;

const char* const kSmallPlan =
    "plan --nets resnet50,mobilenet_v2 --gpus t4,A100-SXM4-40GB --batch 1,4 --analytical";

TEST(PlanCli, SmallPlanAsJsonHasEveryKeyAndARanking) {
  const RunResult r = run_cnnperf(std::string(kSmallPlan) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "plan");
  EXPECT_FALSE(doc["tool_version"].get<std::string>().empty());
  EXPECT_EQ(doc["profile"], "interactive");
  EXPECT_EQ(doc["latency_model"], "analytical");
  EXPECT_FALSE(doc["power_model"].get<std::string>().empty());
  EXPECT_NE(doc["accuracy_source"].get<std::string>().find("zoo_accuracy.json"), std::string::npos);
  const double wsum = doc["weights"]["latency"].get<double>() +
                      doc["weights"]["energy"].get<double>() +
                      doc["weights"]["accuracy"].get<double>();
  EXPECT_NEAR(wsum, 1.0, 1e-9);
  ASSERT_TRUE(doc["tolerances"].contains("max_latency_ms"));
  EXPECT_TRUE(doc["tolerances"]["max_latency_ms"].is_null());
  EXPECT_EQ(doc["gpus"], nlohmann::json({"t4", "a100-sxm4-40gb"}));
  const auto& candidates = doc["candidates"];
  ASSERT_EQ(candidates.size(), 8u);  // 2 nets x 2 GPUs x 2 batches
  EXPECT_EQ(doc["candidates_total"], 8);
  double previous = 2.0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    EXPECT_EQ(c["rank"], static_cast<int>(i) + 1);
    for (const char* key : {"network", "gpu", "batch", "precision", "power_limit_w", "latency_ms",
                            "energy_j", "energy_per_image_j", "avg_power_w", "top1_percent",
                            "feasible", "infeasible_reason", "terms", "score"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
    EXPECT_TRUE(c["power_limit_w"].is_null());
    EXPECT_TRUE(c["feasible"].get<bool>());
    EXPECT_NEAR(c["energy_per_image_j"].get<double>(),
                c["energy_j"].get<double>() / c["batch"].get<double>(), 1e-12);
    const double score = c["score"].get<double>();
    EXPECT_LE(score, previous + 1e-12) << "rank " << i + 1;
    previous = score;
    const double expected =
        doc["weights"]["latency"].get<double>() * c["terms"]["latency"].get<double>() +
        doc["weights"]["energy"].get<double>() * c["terms"]["energy"].get<double>() +
        doc["weights"]["accuracy"].get<double>() * c["terms"]["accuracy"].get<double>();
    EXPECT_NEAR(score, expected, 1e-9);
  }
  // resnet50's published figure is the V1 weights' 76.13, from the bundled table.
  bool saw_resnet = false;
  for (const auto& c : candidates) {
    if (c["network"] == "resnet50") {
      EXPECT_DOUBLE_EQ(c["top1_percent"].get<double>(), 76.13);
      saw_resnet = true;
    }
  }
  EXPECT_TRUE(saw_resnet);
}

TEST(PlanCli, EachCandidateIsPredictedAsPredictDoes) {
  // plan must not have a prediction path of its own: same net, GPU, batch, precision and
  // cap give the same latency and energy as `cnnperf predict`.
  const RunResult plan = run_cnnperf(
      "plan --nets resnet50 --gpus t4 --batch 4 --precision fp16 --power-limits none,40 "
      "--analytical --format json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto doc = nlohmann::json::parse(plan.out);
  ASSERT_EQ(doc["candidates"].size(), 2u);
  for (const auto& c : doc["candidates"]) {
    std::string args =
        "predict --net resnet50 --gpu t4 --batch 4 --precision fp16 --analytical "
        "--format json";
    if (!c["power_limit_w"].is_null()) args += " --power-limit 40";
    const RunResult predict = run_cnnperf(args);
    ASSERT_EQ(predict.exit_code, 0) << predict.err;
    const auto total = nlohmann::json::parse(predict.out)["total"];
    EXPECT_DOUBLE_EQ(c["latency_ms"].get<double>(), total["latency_ms"].get<double>()) << args;
    EXPECT_DOUBLE_EQ(c["energy_j"].get<double>(), total["energy_j"].get<double>()) << args;
    EXPECT_DOUBLE_EQ(c["avg_power_w"].get<double>(), total["avg_power_w"].get<double>()) << args;
  }
}

std::vector<std::string> fields(const std::string& line, char separator) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  if (separator == ' ') {
    while (in >> field) out.push_back(field);
  } else {
    while (std::getline(in, field, separator)) out.push_back(field);
  }
  return out;
}

TEST(PlanCli, TableAndCsvShowTheJsonRanking) {
  const RunResult json = run_cnnperf(std::string(kSmallPlan) + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto candidates = nlohmann::json::parse(json.out)["candidates"];
  ASSERT_EQ(candidates.size(), 8u);
  auto same_row = [&](const std::vector<std::string>& f, std::size_t i) {
    ASSERT_GE(f.size(), 4u);
    EXPECT_EQ(f[0], std::to_string(candidates[i]["rank"].get<int>()));
    EXPECT_EQ(f[1], candidates[i]["network"].get<std::string>());
    EXPECT_EQ(f[2], candidates[i]["gpu"].get<std::string>());
    EXPECT_EQ(f[3], std::to_string(candidates[i]["batch"].get<int>()));
  };

  const RunResult csv = run_cnnperf(std::string(kSmallPlan) + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream csv_lines(csv.out);
  std::string line;
  std::getline(csv_lines, line);
  EXPECT_EQ(line.rfind("rank,network,gpu,batch,precision,power_limit_w,latency_ms", 0), 0u);
  EXPECT_NE(line.find("term_accuracy"), std::string::npos);
  EXPECT_NE(line.find("schema_version"), std::string::npos);
  std::size_t rows = 0;
  while (std::getline(csv_lines, line)) {
    if (line.empty()) continue;
    ASSERT_LT(rows, candidates.size());
    same_row(fields(line, ','), rows++);
  }
  EXPECT_EQ(rows, candidates.size());

  const RunResult table = run_cnnperf(kSmallPlan);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("s_accuracy"), std::string::npos);
  EXPECT_NE(table.out.find("8 candidates: 8 feasible, 0 infeasible"), std::string::npos)
      << table.out;
  std::istringstream table_lines(table.out);
  bool in_rows = false;
  rows = 0;
  while (std::getline(table_lines, line)) {
    if (line.rfind("----", 0) == 0) {
      in_rows = true;
      continue;
    }
    if (!in_rows) continue;
    const auto f = fields(line, ' ');
    // The summary line after the rows also starts with a number: "8 candidates: ...".
    if (f.size() < 2 || f[1] == "candidates:" ||
        f[0].find_first_not_of("0123456789") != std::string::npos) {
      break;
    }
    ASSERT_LT(rows, candidates.size());
    same_row(f, rows++);
  }
  EXPECT_EQ(rows, candidates.size());
}

TEST(PlanCli, TopLimitsRowsButCountsAll) {
  const RunResult r = run_cnnperf(std::string(kSmallPlan) + " --format json --top 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["candidates"].size(), 3u);
  EXPECT_EQ(doc["candidates_total"], 8);
}

TEST(PlanCli, DeadlineMissesAreListedAsInfeasibleAndNothingFeasibleIsExitThree) {
  const RunResult r = run_cnnperf(
      "plan --profile realtime --max-latency-ms 0.001 --nets resnet50 --gpus t4 --format json");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["candidates"].size(), 1u);
  const auto& c = doc["candidates"][0];
  EXPECT_FALSE(c["feasible"].get<bool>());
  EXPECT_TRUE(c["score"].is_null());
  EXPECT_NE(c["infeasible_reason"].get<std::string>().find("deadline"), std::string::npos);
  EXPECT_EQ(doc["latency_target_ms"], 0.001);
  EXPECT_NE(r.err.find("no candidate is feasible"), std::string::npos) << r.err;
}

TEST(PlanCli, PowerCapsOutsideIdleToBoardPowerAreSkippedWithAWarning) {
  // The T4's idle power in the bundled database is 10 W and its board power 70 W: 5 W and
  // 70 W are skipped (nothing runs; the same as uncapped), 40 W is ranked.
  const RunResult r = run_cnnperf(
      "plan --nets resnet50 --gpus t4 --power-limits none,5,40,70 --analytical --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["candidates"].size(), 2u);
  bool capped = false;
  for (const auto& c : doc["candidates"]) {
    if (!c["power_limit_w"].is_null()) {
      EXPECT_EQ(c["power_limit_w"], 40.0);
      capped = true;
    }
  }
  EXPECT_TRUE(capped);
  EXPECT_NE(r.err.find("power limit 5 W skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("power limit 70 W skipped on t4: not below its board power"),
            std::string::npos)
      << r.err;
  ASSERT_FALSE(doc["warnings"].empty());
  // Limits under every GPU's idle power leave nothing that could run: bad input, exit 2, and
  // no file (it was exit 3 after writing an empty plan).
  const auto out = temp_dir() / "plan_no_candidate.json";
  const RunResult none = run_cnnperf("plan --nets resnet50 --gpus t4 --power-limits 5,8 " +
                                     std::string("--analytical --format json -o ") + out.string());
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("--power-limits: every limit is at or below the idle power of every "
                          "GPU (t4 10 W) (expected a limit above a GPU's idle power, or none)"),
            std::string::npos)
      << none.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A precision a GPU has no rate for cannot run there: that pair is skipped with a warning and
// the rest ranked (it aborted the whole plan); with no pair left, exit 2 naming --precision.
TEST(PlanCli, APrecisionAGpuHasNoRateForIsSkippedWithAWarning) {
  const RunResult r = run_cnnperf(
      "plan --nets resnet50 --gpus k80,t4 --precision fp32,int8 --analytical --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["candidates"].size(), 3u);
  for (const auto& c : doc["candidates"]) {
    EXPECT_FALSE(c["gpu"] == "k80" && c["precision"] == "int8") << c.dump();
  }
  EXPECT_NE(r.err.find("int8 skipped on k80: k80 has no INT8 tensor-core rate"), std::string::npos)
      << r.err;
  const RunResult none =
      run_cnnperf("plan --nets resnet50 --gpus k80 --precision int8 --analytical");
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("--precision: no GPU of the list runs it"), std::string::npos)
      << none.err;
  // The T4 runs int8 but under a cap below its idle power: the limit is what left no pair,
  // and the GPUs it names are those that ran a precision asked.
  const RunResult capped = run_cnnperf(
      "plan --nets resnet50 --gpus k80,t4 --precision int8 --power-limits 5 --analytical");
  EXPECT_EQ(capped.exit_code, 2) << capped.err;
  EXPECT_NE(capped.err.find("--power-limits: every limit is at or below the idle power of every "
                            "GPU that runs a precision asked (t4 10 W)"),
            std::string::npos)
      << capped.err;
}

// Without `none` in the list, a limit at or above the board power is the uncapped candidate,
// once: the GPU was dropped from the ranking before.
TEST(PlanCli, ALimitAtTheBoardPowerStandsForUncappedWhenNoneIsNotListed) {
  const RunResult r = run_cnnperf(
      "plan --nets resnet50 --gpus t4,a100 --power-limits 70,80 --analytical --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["candidates"].size(), 3u) << "t4 at 70 W; a100 at 70 and 80 W";
  std::vector<double> t4_limits;
  for (const auto& c : doc["candidates"]) {
    if (c["gpu"] == "t4") t4_limits.push_back(c["power_limit_w"].get<double>());
  }
  EXPECT_EQ(t4_limits, std::vector<double>{70.0});
  EXPECT_NE(r.err.find("power limit 80 W skipped on t4: not below its board power 70 W (same as "
                       "70 W)"),
            std::string::npos)
      << r.err;
  const RunResult uncapped = run_cnnperf(
      "plan --nets resnet50 --gpus t4 --power-limits none,70 --analytical --format json");
  ASSERT_EQ(uncapped.exit_code, 0) << uncapped.err;
  EXPECT_EQ(nlohmann::json::parse(uncapped.out)["candidates"].size(), 1u);
  EXPECT_NE(uncapped.err.find("(same as uncapped)"), std::string::npos) << uncapped.err;
}

// An empty value meant "not given", which for --nets and --gpus is "all of them".
TEST(PlanCli, AnEmptyZeroOrNanValueIsExitTwoNotNothingOrEverything) {
  for (const std::string args : {"plan --nets '' --gpus t4", "plan --gpus ''", "gpus show ''"}) {
    const RunResult r = run_cnnperf(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(": expected a value, got an empty string"), std::string::npos) << r.err;
  }
  // 0 is the options' "not given" inside, so typed it was a silent "no cap" or "no limit";
  // NaN compared false and meant "none" too.
  for (const std::string args : {"predict --net resnet18 --gpu t4 --power-limit 0",
                                 "predict --net resnet18 --gpu t4 --max-latency-ms 0",
                                 "plan --nets resnet18 --gpus t4 --max-energy-j 0",
                                 "plan --nets resnet18 --gpus t4 --min-top1 nan"}) {
    const RunResult r = run_cnnperf(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("expected a positive number"), std::string::npos) << r.err;
  }
}

// Repeated list entries gave duplicate candidates, ranked twice.
TEST(PlanCli, RepeatedListEntriesAreOneCandidate) {
  const RunResult r = run_cnnperf(
      "plan --nets resnet18 --gpus t4 --batch 1,1 --precision fp32,fp32 --power-limits "
      "none,none,60,60.0 --analytical --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["candidates"].size(), 2U);  // uncapped and 60 W
}

TEST(PlanCli, HostTimePerOpReachesEveryCandidate) {
  const char* base = "plan --nets mobilenet_v2 --gpus a100 --batch 1 --analytical --format json";
  const RunResult calibrated = run_cnnperf(base);
  const RunResult fast = run_cnnperf(std::string(base) + " --host-ms-per-op 0.005");
  ASSERT_EQ(calibrated.exit_code, 0) << calibrated.err;
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  const double slow_ms =
      nlohmann::json::parse(calibrated.out)["candidates"][0]["latency_ms"].get<double>();
  const double fast_ms =
      nlohmann::json::parse(fast.out)["candidates"][0]["latency_ms"].get<double>();
  EXPECT_LT(fast_ms, slow_ms);
  const RunResult predicted = run_cnnperf(
      "predict --net mobilenet_v2 --gpu a100 --batch 1 --analytical --host-ms-per-op 0.005 "
      "--format json");
  ASSERT_EQ(predicted.exit_code, 0) << predicted.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(predicted.out)["total"]["latency_ms"].get<double>(),
                   fast_ms);
  EXPECT_EQ(run_cnnperf(std::string(base) + " --host-ms-per-op -2").exit_code, 2);
}

TEST(PlanCli, UnknownAccuracyIsReportedNotDropped) {
  // A synthetic accuracy table that lists only resnet50.
  const fs::path table = temp_dir() / "accuracy.json";
  std::ofstream(table) << R"({"schema_version": 1, "networks": [{"name": "resnet50",
      "top1_percent": 76.13, "dataset": "ImageNet-1k val", "weights": "synthetic test entry",
      "source": "test fixture", "url": "https://example.invalid"}]})";
  const std::string base =
      "plan --nets resnet50,mobilenet_v2 --gpus t4 --format json --accuracy \"" + table.string() +
      "\"";
  const RunResult r = run_cnnperf(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["candidates"].size(), 2u);
  const auto& last = doc["candidates"][1];
  EXPECT_EQ(last["network"], "mobilenet_v2");
  EXPECT_TRUE(last["top1_percent"].is_null());
  EXPECT_FALSE(last["feasible"].get<bool>());
  EXPECT_NE(doc["warnings"].dump().find("mobilenet_v2"), std::string::npos);

  const RunResult no_acc = run_cnnperf(base + " --weights latency=1,energy=1");
  ASSERT_EQ(no_acc.exit_code, 0) << no_acc.err;
  const auto doc2 = nlohmann::json::parse(no_acc.out);
  for (const auto& c : doc2["candidates"]) EXPECT_TRUE(c["feasible"].get<bool>());
}

TEST(PlanCli, BadWeightsExitTwoWithOneLine) {
  const RunResult r = run_cnnperf("plan --weights latency=0.5,speed=0.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--weights"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("speed"), std::string::npos) << r.err;
  EXPECT_EQ(cnnperf::cli_test::count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(PlanCli, UnknownNetworkExitTwoWithSuggestions) {
  const RunResult r = run_cnnperf("plan --nets resnet50,resnet51 --gpus t4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown network 'resnet51'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resnet50"), std::string::npos) << r.err;
}

TEST(PlanCli, UnknownGpuAndBadListsExitTwo) {
  EXPECT_EQ(run_cnnperf("plan --nets resnet50 --gpus t5000x").exit_code, 2);
  EXPECT_EQ(run_cnnperf("plan --nets resnet50 --gpus t4 --batch 1,,8").exit_code, 2);
  EXPECT_EQ(run_cnnperf("plan --nets resnet50 --gpus t4 --precision fp8").exit_code, 2);
  EXPECT_EQ(run_cnnperf("plan --nets resnet50 --gpus t4 --power-limits -3").exit_code, 2);
  EXPECT_EQ(run_cnnperf("plan --profile offline").exit_code, 2);
}

TEST(PlanCli, HelpHasExamples) {
  const RunResult r = run_cnnperf("plan --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos);
  EXPECT_NE(r.out.find("cnnperf plan --profile realtime"), std::string::npos);
}

}  // namespace
