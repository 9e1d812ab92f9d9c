// SPDX-License-Identifier: Apache-2.0
// The typed results of `predict`, `plan` and `predict --layers` read back what the binary
// writes: to_json(from_json(output)) prints the output again, byte for byte (report renders
// from the parsed result). The predictions and the plan are the analytical model's; the layer
// CSVs are NeuSight's measured held-out rows (datasets/layers_neusight_test.csv.gz) and a zoo
// network's layers as `nets show` writes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/predict/layer_predictions.hpp"
#include "cnnperf/predict/plan.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/sweep.hpp"

namespace cnnperf::cli_test {
namespace {

// Where two texts first differ (their shorter length when one starts the other), so a failure
// does not print megabytes of JSON.
std::size_t first_difference(const std::string& a, const std::string& b) {
  const auto at = std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first;
  return static_cast<std::size_t>(at - a.begin());
}

// The JSON `cnnperf ARGS` prints, read back by `parse` and printed again: the same text.
template <typename Parse>
void expect_printed_again(const std::string& args, Parse parse, bool over_budget = false) {
  const RunResult r = run_cnnperf(args);
  ASSERT_EQ(r.exit_code, over_budget ? 3 : 0) << args << "\n" << r.err;
  const std::string again = json_text(to_json(parse(r.out))) + "\n";
  EXPECT_TRUE(again == r.out) << args << ": differs at " << first_difference(again, r.out);
}

TEST(TypedResultsCli, NetworkPredictionJsonReadsBackToTheSameText) {
  // With the 80 % intervals of models/intervals.json; a power cap, a fusing runtime
  // (fused_into) and data-parallel GPUs fill the optional members.
  const auto parse = [](const std::string& text) {
    return network_prediction_from_json(nlohmann::json::parse(text));
  };
  for (const char* args :
       {"predict --net resnet50 --gpu a100 --format json",
        "predict --net resnet50 --gpu v100 --mode training --batch 64 --power-limit 150 "
        "--format json",
        "predict --net mobilenet_v2 --gpu t4 --runtime tensorrt --format json",
        "predict --net resnet18 --gpu titan-rtx --batch 12 --num-gpus 4 --mode training "
        "--format json"}) {
    expect_printed_again(args, parse);
  }
}

TEST(TypedResultsCli, PredictionSweepJsonReadsBackToTheSameText) {
  const auto parse = [](const std::string& text) {
    return prediction_sweep_from_json(nlohmann::ordered_json::parse(text));
  };
  expect_printed_again(
      "predict --net resnet50 --batch 1,8 --gpu a100,t4 --precision fp32,fp16 --format json",
      parse);
  // Every row over budget: over_budget set, exit 3 after the output.
  expect_printed_again(
      "predict --net resnet18 --batch 4 --gpu a100,t4 --max-latency-ms 2 "
      "--format json",
      parse, true);
}

TEST(TypedResultsCli, PlanJsonReadsBackToTheSameText) {
  const auto parse = [](const std::string& text) {
    return plan_result_from_json(nlohmann::ordered_json::parse(text));
  };
  // A cut list (--top) keeps the counts of every candidate; power caps and an infeasible
  // candidate fill the optional members.
  expect_printed_again(
      "plan --nets resnet50,mobilenet_v2 --gpus t4,a100 --batch 1,8 --analytical --top 3 "
      "--power-limits none,150 --format json",
      parse);
  expect_printed_again(
      "plan --profile realtime --nets resnet18 --gpus t4 --batch 1,64 --analytical "
      "--max-latency-ms 5 --min-top1 60 --format json",
      parse);
}

TEST(TypedResultsCli, PlanCountsStayThoseOfEveryCandidateWhenTheListIsCut) {
  const RunResult r = run_cnnperf(
      "plan --nets resnet50,mobilenet_v2 --gpus t4 --batch 1,8 --analytical --top 2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const PlanResult plan = plan_result_from_json(nlohmann::ordered_json::parse(r.out));
  EXPECT_EQ(plan.ranked.size(), 2U);
  EXPECT_EQ(plan.candidates_total, 4U);
  EXPECT_EQ(plan.settings.profile, TaskProfile::kInteractive);
}

TEST(TypedResultsCli, LayerPredictionsJsonReadsBackToTheSameText) {
  const auto parse = [](const std::string& text) {
    return layer_predictions_from_json(nlohmann::ordered_json::parse(text));
  };
  // The measured rows carry latency_ms (predict's own columns are then predicted_*) and a gpu
  // column (each row on its GPU); the zoo layers run on --gpu.
  const std::filesystem::path layers = temp_dir() / "typed_r18.csv";
  const RunResult shown =
      run_cnnperf("nets show resnet18 --batch 8 --format csv -o \"" + layers.string() + "\"");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  expect_printed_again("predict --layers \"" + layers.string() + "\" --gpu v100 --format json",
                       parse);
  expect_printed_again(
      "predict --layers \"" + layers.string() + "\" --gpu a100 --runtime cudnn --format json",
      parse);
  expect_printed_again(
      "predict --layers " + source_file("datasets/layers_neusight_test.csv.gz") + " --format json",
      parse);
}

TEST(TypedResultsCli, LayerPredictionsKeepTheInputCellsAndRenamePredictedColumns) {
  const RunResult r = run_cnnperf(
      "predict --layers " + source_file("datasets/layers_neusight_test.csv.gz") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const LayerPredictions result = layer_predictions_from_json(nlohmann::ordered_json::parse(r.out));
  ASSERT_FALSE(result.rows.empty());
  EXPECT_FALSE(result.gpu.has_value());  // the gpu column names each row's
  EXPECT_EQ(result.columns[2], "predicted_latency_ms");
  EXPECT_EQ(result.columns[0], "kernel_ms");
  EXPECT_GT(result.rows.front().prediction.latency_ms(), 0);
  EXPECT_EQ(result.rows.front().cells.front().first, "op");
}

}  // namespace
}  // namespace cnnperf::cli_test
