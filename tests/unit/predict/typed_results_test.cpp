// SPDX-License-Identifier: Apache-2.0
// The predict module's results read back from their own JSON: to_json(from_json(j)) == j for a
// network prediction, a sweep and a plan, each the library's output (analytical model, bundled
// GPU database and power model, published top-1 of the bundled accuracy table); and what the
// parsers accept of files older versions wrote.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/model/zoo_accuracy.hpp"
#include "cnnperf/predict/plan.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/sweep.hpp"

namespace cnnperf {
namespace {

NetworkPrediction predict(const std::string& net, const std::string& gpu, std::int64_t batch) {
  NetworkOptions options;
  options.batch = batch;
  return predict_network(build_zoo_network(net, options), GpuDatabase::bundled().resolve(gpu),
                         AnalyticalModel{}, Mode::kInference, PowerModel::bundled());
}

TEST(TypedResults, NetworkPredictionReadsBackToItsJson) {
  NetworkPrediction capped = predict("resnet18", "v100", 32);
  apply_power_limit(capped, 150, PowerModel::bundled());
  for (const NetworkPrediction& p : {predict("resnet50", "a100", 1), capped}) {
    const nlohmann::json j = to_json(p);
    const NetworkPredictionRecord record = network_prediction_from_json(j);
    EXPECT_EQ(to_json(record), j) << p.network;
    ASSERT_EQ(record.layers.size(), p.layers.size());
    EXPECT_EQ(record.layers.front().op, to_string(p.layers.front().op));
    EXPECT_EQ(record.layers.back().flops, p.layers.back().flops());
    EXPECT_EQ(record.power_cap.has_value(), p.power_cap.has_value());
  }
}

TEST(TypedResults, ANetworkPredictionOfAnOlderLayoutIsRead) {
  // SYNTHETIC: the GPU named by a string and a layer's kernel time as latency_ms alone (files
  // of older versions); an op this build does not know is kept as written.
  const auto record = network_prediction_from_json(nlohmann::json::parse(
      R"({"gpu": "t4", "network": "n", "layers": [{"name": "a", "op": "warp9", "latency_ms": 2}]})"));
  EXPECT_EQ(record.gpu.name, "t4");
  ASSERT_EQ(record.layers.size(), 1U);
  EXPECT_EQ(record.layers[0].prediction.kernel_ms, 2);
  EXPECT_EQ(record.layers[0].op, "warp9");
  EXPECT_THROW((void)network_prediction_from_json(nlohmann::json::parse(R"({"batch": "x"})")),
               nlohmann::json::type_error);
}

TEST(TypedResults, PredictionSweepReadsBackToItsJson) {
  PredictionSweep sweep;
  sweep.network = "mobilenet_v2";
  for (const char* gpu : {"a100", "t4"}) {
    sweep.gpus.push_back(GpuDatabase::bundled().resolve(gpu));
    for (const std::int64_t batch : {1, 16})
      sweep.rows.push_back(sweep_row(predict(sweep.network, gpu, batch)));
  }
  sweep.rows[1].over_budget = "latency budget exceeded: set by this test";
  const nlohmann::ordered_json j = to_json(sweep);
  const PredictionSweep back = prediction_sweep_from_json(j);
  EXPECT_EQ(to_json(back), j);
  ASSERT_EQ(back.rows.size(), 4U);
  EXPECT_EQ(back.rows[1].over_budget, sweep.rows[1].over_budget);
  EXPECT_EQ(back.gpus.size(), 2U);
}

TEST(TypedResults, PlanReadsBackToItsJson) {
  const AccuracyTable& accuracy = AccuracyTable::bundled();
  std::vector<PlanCandidate> candidates;
  for (const char* net : {"resnet50", "mobilenet_v2"}) {
    for (const char* gpu : {"t4", "a100"}) {
      const NetworkPrediction p = predict(net, gpu, 8);
      PlanCandidate c;
      c.network = net;
      c.gpu = p.gpu.name;
      c.batch = p.batch;
      c.latency_ms = p.latency_ms;
      c.energy_j = p.energy_j;
      c.avg_power_w = p.avg_power_w;
      if (const PublishedAccuracy* a = accuracy.find(net)) c.top1_percent = a->top1_percent;
      candidates.push_back(c);
    }
  }
  candidates.back().power_limit_w = 150;
  SocTolerances tolerances;
  tolerances.max_latency_ms = candidates.front().latency_ms;  // some candidates infeasible
  PlanResult plan;
  plan.settings = make_soc_settings(TaskProfile::kInteractive, std::nullopt, tolerances);
  plan.mode = "inference";
  PlanScoring scoring = score_candidates(candidates, plan.settings);
  plan.ranked = scoring.ranked;
  plan.warnings = scoring.warnings;
  plan.candidates_total = plan.ranked.size();
  for (const auto& c : plan.ranked) plan.candidates_feasible += c.feasible ? 1 : 0;
  ASSERT_LT(plan.candidates_feasible, plan.candidates_total);

  const PlanResult first = first_candidates(plan, 3);
  EXPECT_EQ(first.ranked.size(), 3U);
  for (const PlanResult& r : {plan, first}) {
    const nlohmann::ordered_json j = to_json(r);
    const PlanResult back = plan_result_from_json(j);
    EXPECT_EQ(to_json(back), j);
    EXPECT_EQ(back.candidates_total, 4U);
    EXPECT_EQ(back.ranked.size(), r.ranked.size());
  }
}

}  // namespace
}  // namespace cnnperf
