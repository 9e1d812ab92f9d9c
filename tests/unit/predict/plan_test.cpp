// SPDX-License-Identifier: Apache-2.0
// plan scoring (plan.hpp) on hand-made candidates, and the bundled published-accuracy table.
// The candidates' latency/energy numbers are synthetic: chosen to make each rule visible,
// not predictions of any real network.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/error.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/model/zoo_accuracy.hpp"
#include "cnnperf/predict/plan.hpp"

namespace cnnperf {
namespace {

PlanCandidate synthetic(const std::string& network, double latency_ms, double energy_j,
                        std::optional<double> top1, std::int64_t batch = 1,
                        const std::string& gpu = "gpu-a") {
  PlanCandidate c;
  c.network = network;
  c.gpu = gpu;
  c.batch = batch;
  c.latency_ms = latency_ms;
  c.energy_j = energy_j;
  c.avg_power_w = latency_ms > 0 ? energy_j / (latency_ms / 1000.0) : 0;
  c.top1_percent = top1;
  return c;
}

const ScoredCandidate& find(const PlanScoring& scoring, const std::string& network) {
  for (const auto& s : scoring.ranked) {
    if (s.candidate.network == network) return s;
  }
  ADD_FAILURE() << "no candidate " << network;
  return scoring.ranked.front();
}

std::string input_error_of(const std::string& weights) {
  try {
    (void)parse_soc_weights(weights);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// ---- weights and profiles ---------------------------------------------------------------

TEST(PlanWeights, ParsesAnyOrderAndNormalizesToOne) {
  const SocWeights w = parse_soc_weights("accuracy=3, latency=5,energy=2");
  EXPECT_DOUBLE_EQ(w.latency, 0.5);
  EXPECT_DOUBLE_EQ(w.energy, 0.2);
  EXPECT_DOUBLE_EQ(w.accuracy, 0.3);
}

TEST(PlanWeights, MissingTermsAreZero) {
  const SocWeights w = parse_soc_weights("energy=1");
  EXPECT_DOUBLE_EQ(w.latency, 0.0);
  EXPECT_DOUBLE_EQ(w.energy, 1.0);
  EXPECT_DOUBLE_EQ(w.accuracy, 0.0);
}

TEST(PlanWeights, RejectsMalformedInputNamingTheParameter) {
  for (const std::string bad :
       {"latency=0.5,speed=0.5", "latency=0.5,latency=0.2", "latency", "latency=abc",
        "latency=-0.1,energy=1", "latency=0,energy=0,accuracy=0", "latency=1,,energy=1", "",
        "latency=nan"}) {
    const std::string message = input_error_of(bad);
    EXPECT_EQ(message.rfind("weights: ", 0), 0U) << "'" << bad << "' -> " << message;
  }
  EXPECT_NE(input_error_of("latency=1,speed=1").find("speed"), std::string::npos);
}

TEST(PlanProfiles, ParseAndDefaults) {
  EXPECT_EQ(task_profile_from_string("realtime"), TaskProfile::kRealtime);
  EXPECT_EQ(task_profile_from_string("Interactive"), TaskProfile::kInteractive);
  EXPECT_EQ(task_profile_from_string("background"), TaskProfile::kBackground);
  EXPECT_THROW((void)task_profile_from_string("batch"), InputError);
  for (const auto p :
       {TaskProfile::kRealtime, TaskProfile::kInteractive, TaskProfile::kBackground}) {
    const ProfileDefaults& d = profile_defaults(p);
    EXPECT_NEAR(d.weights.latency + d.weights.energy + d.weights.accuracy, 1.0, 1e-12);
    EXPECT_FALSE(d.target_source.empty());
  }
  EXPECT_EQ(profile_defaults(TaskProfile::kRealtime).latency_shape, LatencyShape::kDeadline);
  EXPECT_NEAR(profile_defaults(TaskProfile::kRealtime).latency_target_ms, 33.333, 1e-3);
  EXPECT_EQ(profile_defaults(TaskProfile::kInteractive).latency_target_ms, 100.0);
  EXPECT_EQ(profile_defaults(TaskProfile::kBackground).latency_shape, LatencyShape::kThroughput);
}

TEST(PlanSettings, MaxLatencyReplacesDeadlineAndCapsSoftTarget) {
  SocTolerances tol;
  tol.max_latency_ms = 20;
  EXPECT_EQ(make_soc_settings(TaskProfile::kRealtime, std::nullopt, tol).latency_target_ms, 20);
  EXPECT_EQ(make_soc_settings(TaskProfile::kInteractive, std::nullopt, tol).latency_target_ms, 20);
  tol.max_latency_ms = 500;  // looser than the interactive target: the target stays
  EXPECT_EQ(make_soc_settings(TaskProfile::kInteractive, std::nullopt, tol).latency_target_ms, 100);
  EXPECT_EQ(make_soc_settings(TaskProfile::kRealtime, std::nullopt, tol).latency_target_ms, 500);
}

TEST(PlanSettings, OverrideWeightsAreNormalizedAndBadTolerancesRejected) {
  const SocSettings s =
      make_soc_settings(TaskProfile::kBackground, SocWeights{2, 0, 2}, SocTolerances{});
  EXPECT_DOUBLE_EQ(s.weights.latency, 0.5);
  EXPECT_DOUBLE_EQ(s.weights.accuracy, 0.5);
  SocTolerances bad;
  bad.max_energy_per_image_j = -1;
  EXPECT_THROW((void)make_soc_settings(TaskProfile::kRealtime, std::nullopt, bad), InputError);
  SocTolerances pct;
  pct.min_top1_percent = 120;
  EXPECT_THROW((void)make_soc_settings(TaskProfile::kRealtime, std::nullopt, pct), InputError);
}

// ---- scoring ------------------------------------------------------------------------------

TEST(PlanScore, RealtimeDeadlineIsHardAndInfeasibleRowsStayListed) {
  const SocSettings s = make_soc_settings(TaskProfile::kRealtime, std::nullopt, {});
  const PlanScoring r =
      score_candidates({synthetic("slow", 50, 1, 80), synthetic("fast", 10, 1, 70)}, s);
  ASSERT_EQ(r.ranked.size(), 2u);
  EXPECT_EQ(r.ranked[0].candidate.network, "fast");
  EXPECT_EQ(r.ranked[0].rank, 1);
  const ScoredCandidate& slow = r.ranked[1];
  EXPECT_EQ(slow.candidate.network, "slow");
  EXPECT_EQ(slow.rank, 2);
  EXPECT_FALSE(slow.feasible);
  EXPECT_FALSE(slow.score.has_value());
  EXPECT_NE(slow.infeasible_reason.find("deadline"), std::string::npos) << slow.infeasible_reason;
  EXPECT_EQ(*slow.terms.latency, 0.0);
  EXPECT_EQ(*r.ranked[0].terms.latency, 1.0);
}

TEST(PlanScore, InteractiveLatencyFallsOffAsTargetOverLatency) {
  const SocSettings s = make_soc_settings(TaskProfile::kInteractive, std::nullopt, {});
  const PlanScoring r =
      score_candidates({synthetic("quick", 50, 1, 75), synthetic("late", 200, 1, 75),
                        synthetic("later", 400, 1, 75)},
                       s);
  EXPECT_DOUBLE_EQ(*find(r, "quick").terms.latency, 1.0);
  EXPECT_DOUBLE_EQ(*find(r, "late").terms.latency, 0.5);
  EXPECT_DOUBLE_EQ(*find(r, "later").terms.latency, 0.25);
  EXPECT_TRUE(find(r, "later").feasible);  // a soft target never excludes
}

TEST(PlanScore, BackgroundLatencyIsLogTimePerImage) {
  const SocSettings s = make_soc_settings(TaskProfile::kBackground, std::nullopt, {});
  // Time per image 1, 10 and 100 ms (the first is a batch of 8 taking 8 ms).
  const PlanScoring r =
      score_candidates({synthetic("batched", 8, 8, 75, 8), synthetic("mid", 10, 1, 75),
                        synthetic("slowest", 100, 1, 75)},
                       s);
  EXPECT_NEAR(*find(r, "batched").terms.latency, 1.0, 1e-12);
  EXPECT_NEAR(*find(r, "mid").terms.latency, 0.5, 1e-12);
  EXPECT_NEAR(*find(r, "slowest").terms.latency, 0.0, 1e-12);
}

TEST(PlanScore, EnergyIsPerImageOnALogScale) {
  const SocSettings s = make_soc_settings(TaskProfile::kInteractive, std::nullopt, {});
  // Per image: 8 J / 8 = 1 J, 10 J, 100 J; the batch-8 row spends most per batch but least
  // per image.
  const PlanScoring r =
      score_candidates({synthetic("b8", 10, 8, 75, 8), synthetic("ten", 10, 10, 75),
                        synthetic("hundred", 10, 100, 75)},
                       s);
  EXPECT_DOUBLE_EQ(find(r, "b8").energy_per_image_j, 1.0);
  EXPECT_NEAR(*find(r, "b8").terms.energy, 1.0, 1e-12);
  EXPECT_NEAR(*find(r, "ten").terms.energy, 0.5, 1e-12);
  EXPECT_NEAR(*find(r, "hundred").terms.energy, 0.0, 1e-12);
}

TEST(PlanScore, AccuracyIsLinearBetweenLowestAndHighestAndScoreIsTheWeightedSum) {
  const SocSettings s = make_soc_settings(TaskProfile::kInteractive, SocWeights{0.5, 0.2, 0.3}, {});
  const PlanScoring r = score_candidates(
      {synthetic("lo", 10, 1, 70), synthetic("mid", 10, 10, 75), synthetic("hi", 10, 100, 80)}, s);
  const ScoredCandidate& mid = find(r, "mid");
  EXPECT_NEAR(*mid.terms.accuracy, 0.5, 1e-12);
  EXPECT_NEAR(*mid.score, 0.5 * 1.0 + 0.2 * 0.5 + 0.3 * 0.5, 1e-12);
  EXPECT_NEAR(*find(r, "lo").score, 0.5 + 0.2, 1e-12);
  EXPECT_NEAR(*find(r, "hi").score, 0.5 + 0.3, 1e-12);
  // Scores 0.8 (hi), 0.75 (mid), 0.7 (lo): ranks follow the score.
  EXPECT_EQ(r.ranked[0].candidate.network, "hi");
  EXPECT_EQ(r.ranked[1].candidate.network, "mid");
  EXPECT_EQ(r.ranked[2].candidate.network, "lo");
}

TEST(PlanScore, WeightsChangeTheWinner) {
  const std::vector<PlanCandidate> c = {synthetic("accurate", 10, 100, 84),
                                        synthetic("frugal", 10, 1, 60)};
  const auto top = [&](SocWeights w) {
    return score_candidates(c, make_soc_settings(TaskProfile::kInteractive, w, {}))
        .ranked.front()
        .candidate.network;
  };
  EXPECT_EQ(top({0, 0.1, 0.9}), "accurate");
  EXPECT_EQ(top({0, 0.9, 0.1}), "frugal");
}

TEST(PlanScore, UnknownAccuracyIsInfeasibleOnlyWhenAccuracyMatters) {
  const std::vector<PlanCandidate> c = {synthetic("known", 10, 1, 75),
                                        synthetic("mystery", 5, 0.5, std::nullopt)};
  const PlanScoring weighted =
      score_candidates(c, make_soc_settings(TaskProfile::kInteractive, std::nullopt, {}));
  const ScoredCandidate& m = find(weighted, "mystery");
  EXPECT_FALSE(m.feasible);
  EXPECT_NE(m.infeasible_reason.find("no published top-1"), std::string::npos);
  EXPECT_FALSE(m.terms.accuracy.has_value());
  ASSERT_FALSE(weighted.warnings.empty());
  EXPECT_NE(weighted.warnings.front().find("mystery"), std::string::npos);

  const PlanScoring unweighted =
      score_candidates(c, make_soc_settings(TaskProfile::kInteractive, SocWeights{1, 1, 0}, {}));
  EXPECT_TRUE(find(unweighted, "mystery").feasible);
  EXPECT_EQ(unweighted.ranked.front().candidate.network, "mystery");
  EXPECT_TRUE(unweighted.warnings.empty());

  SocTolerances floor;
  floor.min_top1_percent = 50;
  const PlanScoring floored =
      score_candidates(c, make_soc_settings(TaskProfile::kInteractive, SocWeights{1, 1, 0}, floor));
  EXPECT_FALSE(find(floored, "mystery").feasible);
}

TEST(PlanScore, TolerancesExcludeWithEveryReason) {
  SocTolerances tol;
  tol.max_latency_ms = 20;
  tol.max_energy_per_image_j = 2;
  tol.min_top1_percent = 72;
  const SocSettings s = make_soc_settings(TaskProfile::kBackground, std::nullopt, tol);
  const PlanScoring r = score_candidates(
      {synthetic("ok", 10, 1, 75), synthetic("bad", 30, 3, 70), synthetic("heavy", 10, 24, 80, 8)},
      s);
  const ScoredCandidate& bad = find(r, "bad");
  EXPECT_FALSE(bad.feasible);
  EXPECT_NE(bad.infeasible_reason.find("latency"), std::string::npos);
  EXPECT_NE(bad.infeasible_reason.find("energy"), std::string::npos);
  EXPECT_NE(bad.infeasible_reason.find("top-1"), std::string::npos);
  // 24 J for a batch of 8 is 3 J per image: over the 2 J/image budget.
  EXPECT_FALSE(find(r, "heavy").feasible);
  EXPECT_TRUE(find(r, "ok").feasible);
  EXPECT_EQ(r.ranked.front().candidate.network, "ok");
}

// predict puts a cap below the lowest clock's draw at that clock: such a candidate draws more
// than its cap and cannot be what a plan under that cap offers.
TEST(PlanScore, ACapTheLowestClockCannotMeetIsInfeasible) {
  // 1 J in 10 ms: 100 W on average (synthetic).
  PlanCandidate over = synthetic("over", 10, 1, 75);
  over.power_limit_w = 60;
  PlanCandidate at = synthetic("at", 10, 1, 75);
  at.power_limit_w = 99.95;  // within the clock bisection's tolerance of the cap
  PlanCandidate under = synthetic("under", 10, 1, 75);
  under.power_limit_w = 150;
  const PlanScoring r = score_candidates(
      {over, at, under}, make_soc_settings(TaskProfile::kInteractive, std::nullopt, {}));
  const ScoredCandidate& o = find(r, "over");
  EXPECT_FALSE(o.feasible);
  EXPECT_EQ(o.infeasible_reason, "draws 100 W even at the lowest clock, over its 60 W cap");
  EXPECT_FALSE(o.score.has_value());
  EXPECT_TRUE(find(r, "at").feasible);
  EXPECT_TRUE(find(r, "under").feasible);
  EXPECT_EQ(r.ranked.back().candidate.network, "over");
}

TEST(PlanScore, AllInfeasibleWarnsAndNothingIsDropped) {
  SocTolerances tol;
  tol.max_latency_ms = 1;
  const PlanScoring r =
      score_candidates({synthetic("a", 10, 1, 75), synthetic("b", 20, 1, 76)},
                       make_soc_settings(TaskProfile::kInteractive, std::nullopt, tol));
  ASSERT_EQ(r.ranked.size(), 2u);
  EXPECT_FALSE(r.ranked[0].feasible);
  EXPECT_FALSE(r.ranked[1].feasible);
  EXPECT_EQ(r.ranked[0].candidate.network, "a");  // infeasible rows by latency
  // With nothing feasible, all candidates set the bounds: the terms still discriminate.
  EXPECT_DOUBLE_EQ(*r.ranked[0].terms.accuracy, 0.0);
  EXPECT_DOUBLE_EQ(*r.ranked[1].terms.accuracy, 1.0);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("no candidate"), std::string::npos);
}

TEST(PlanScore, TiesBreakOnLatencyAndASingleCandidateScoresOne) {
  const SocSettings s = make_soc_settings(TaskProfile::kRealtime, SocWeights{1, 0, 0}, {});
  const PlanScoring tie =
      score_candidates({synthetic("slower", 20, 1, 75), synthetic("faster", 10, 1, 75)}, s);
  EXPECT_EQ(*tie.ranked[0].score, *tie.ranked[1].score);
  EXPECT_EQ(tie.ranked[0].candidate.network, "faster");
  const PlanScoring one =
      score_candidates({synthetic("only", 10, 1, 75)},
                       make_soc_settings(TaskProfile::kBackground, std::nullopt, {}));
  EXPECT_DOUBLE_EQ(*one.ranked[0].score, 1.0);
}

// ---- published accuracy ---------------------------------------------------------------------

TEST(PlanAccuracy, BundledTableCoversTheZooAndAgreesWithIt) {
  const AccuracyTable& table = AccuracyTable::bundled();
  EXPECT_FALSE(table.source_path().empty());
  for (const ZooEntry& entry : zoo_entries()) {
    const PublishedAccuracy* acc = table.find(entry.name);
    ASSERT_NE(acc, nullptr) << entry.name;
    // The zoo reads its figure from this table (one copy of each published figure).
    EXPECT_DOUBLE_EQ(acc->top1_percent, entry.top1_accuracy) << entry.name;
    EXPECT_NE(entry.accuracy_source.find(acc->weights), std::string::npos) << entry.name;
    EXPECT_EQ(acc->dataset, "ImageNet-1k val") << entry.name;
    EXPECT_NE(acc->url.find("https://"), std::string::npos) << entry.name;
    EXPECT_FALSE(acc->weights.empty()) << entry.name;
  }
  EXPECT_EQ(table.all().size(), zoo_entries().size());
  EXPECT_NE(table.find("ResNet50"), nullptr);
  EXPECT_EQ(table.find("resnet51"), nullptr);
  EXPECT_NE(table.find("resnet50")->weights.find("IMAGENET1K_V1"), std::string::npos);
}

TEST(PlanAccuracy, RejectsBadTablesNamingTheField) {
  const auto error_of = [](const nlohmann::json& doc) -> std::string {
    try {
      (void)AccuracyTable::from_json(doc, "acc.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const nlohmann::json entry = {{"name", "resnet50"},    {"top1_percent", 76.13},
                                {"dataset", "ImageNet"}, {"weights", "w"},
                                {"source", "s"},         {"url", "https://x"}};
  EXPECT_EQ(error_of({{"schema_version", 1}, {"networks", {entry}}}), "");
  EXPECT_NE(error_of({{"schema_version", 2}, {"networks", {entry}}}).find("schema_version"),
            std::string::npos);
  nlohmann::json bad = entry;
  bad["top1_percent"] = 120;
  EXPECT_NE(error_of({{"schema_version", 1}, {"networks", {bad}}}).find("networks[0].top1_percent"),
            std::string::npos);
  bad = entry;
  bad.erase("url");
  EXPECT_NE(error_of({{"schema_version", 1}, {"networks", {bad}}}).find("url"), std::string::npos);
  EXPECT_NE(error_of({{"schema_version", 1}, {"networks", {entry, entry}}}).find("twice"),
            std::string::npos);
}

}  // namespace
}  // namespace cnnperf
