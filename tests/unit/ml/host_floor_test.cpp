// SPDX-License-Identifier: Apache-2.0
// The host floor per (source, GPU): how it is fitted, what an unseen GPU gets, that the
// regressor's baseline and the analytical fallback carry it, and that the model file keeps it.
// The rows are SYNTHETIC: "measured" latency = analytical estimate + a floor per GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/network.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

constexpr double kV100FloorMs = 0.05;
constexpr double kP100FloorMs = 0.02;

// SYNTHETIC rows: `n` conv rows per GPU of one source, measured = analytical + the GPU's floor.
TrainingData floored_rows(std::size_t n, const std::string& source = "neusight") {
  std::mt19937_64 rng(11);
  TrainingData data;
  for (const auto& [name, floor] :
       {std::pair{"v100-sxm2-16gb", kV100FloorMs}, std::pair{"p100-pcie-16gb", kP100FloorMs}}) {
    const GpuSpec gpu = *GpuDatabase::bundled().find(name);
    for (std::size_t i = 0; i < n; ++i) {
      const Layer l = testing::random_conv3x3(rng);
      testing::add_row(data, l, gpu, source, estimate_layer(l, gpu).latency_ms + floor);
    }
  }
  return data;
}

using testing::all_rows;

const nlohmann::json kTreeParams = {{"log_target", true}, {"max_depth", 4}};

// One conv model of `source` fitted on `data` (its floors and a tree), as a LearnedModel.
std::unique_ptr<LearnedModel> conv_model(const TrainingData& data, const std::string& source,
                                         bool analytical_for_unseen_gpus = false) {
  const FeatureSpec spec = FeatureSpec::parse("default");
  std::vector<FamilyModel> fams;
  fams.push_back(fit_family(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree,
                            kTreeParams, spec));
  fams.back().source = source;
  fams.back().analytical_for_unseen_gpus = analytical_for_unseen_gpus;
  return std::make_unique<LearnedModel>(spec, std::move(fams), EagerOverhead{},
                                        nlohmann::json::object());
}

TEST(HostFloor, FitsEachPairsFloorFromItsFastestRows) {
  const TrainingData data = floored_rows(600);
  const auto floors = fit_host_floors(data, all_rows(data));
  ASSERT_EQ(floors.size(), 2u);
  EXPECT_NEAR(floors.at({"neusight", "v100-sxm2-16gb"}), kV100FloorMs, 1e-12);
  EXPECT_NEAR(floors.at({"neusight", "p100-pcie-16gb"}), kP100FloorMs, 1e-12);

  // The fastest rows decide: slow rows measured far above the estimate do not move it.
  TrainingData noisy = data;
  for (std::size_t r = 0; r < noisy.latency_ms.size(); r += 2) noisy.latency_ms[r] *= 3.0;
  const double slowest_fast_row = [&] {
    std::vector<double> v100;
    for (std::size_t r = 0; r < 600; ++r) v100.push_back(noisy.latency_ms[r]);
    std::sort(v100.begin(), v100.end());
    return v100[kFloorMinRows - 1];
  }();
  // A tripled row measures over 3 x the floor: none of them is among the fastest.
  ASSERT_LT(slowest_fast_row, 3 * kV100FloorMs);
  EXPECT_NEAR(fit_host_floors(noisy, all_rows(noisy)).at({"neusight", "v100-sxm2-16gb"}),
              kV100FloorMs, 1e-12);

  // Measured below the estimate: no negative floor.
  TrainingData fast = data;
  for (std::size_t r = 0; r < fast.latency_ms.size(); ++r) {
    fast.latency_ms[r] = 0.5 * estimate_layer(fast.layers[r], fast.gpus[r]).latency_ms;
  }
  for (const auto& [key, floor] : fit_host_floors(fast, all_rows(fast))) {
    EXPECT_EQ(floor, 0.0) << key.second;
  }
}

TEST(HostFloor, AnUnseenGpuGetsTheGeometricMeanOfItsSourcesFloors) {
  FamilyModel m;
  EXPECT_EQ(m.floor_ms("neusight", "v100-sxm2-16gb"), 0.0) << "no floors: a file without them";
  m.harness.floor_ms = {{{"neusight", "v100-sxm2-16gb"}, 0.04},
                        {{"neusight", "p100-pcie-16gb"}, 0.01},
                        {{"mlpredict", "k80"}, 0.25}};
  EXPECT_DOUBLE_EQ(m.floor_ms("neusight", "p100-pcie-16gb"), 0.01);
  EXPECT_NEAR(m.floor_ms("neusight", "t4"), 0.02, 1e-12);  // sqrt(0.04 * 0.01)
  EXPECT_DOUBLE_EQ(m.floor_ms("mlpredict", "v100-sxm2-16gb"), 0.25);
  EXPECT_NEAR(m.floor_ms("other-bench", "t4"), std::cbrt(0.04 * 0.01 * 0.25), 1e-12)
      << "a source without floors: all sources'";
  EXPECT_EQ(m.floor_ms("cnnperf-profile", "t4"), 0.0) << "kernel time carries no harness";
}

TEST(HostFloor, PredictionsAreAnalyticalPlusTheFloorTimesTheLearnedRatio) {
  // measured / (analytical + floor) is exactly 1 on every row: the tree learns the constant.
  const auto fitted = conv_model(floored_rows(600), "neusight");
  const LearnedModel& model = *fitted;
  std::mt19937_64 rng(7);
  std::vector<Layer> layers;
  for (int i = 0; i < 10; ++i) layers.push_back(testing::random_conv3x3(rng));
  const GpuSpec v100 = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  const GpuSpec unseen = *GpuDatabase::bundled().find("rtx-2080-ti");
  const double mean_floor = std::sqrt(kV100FloorMs * kP100FloorMs);
  const auto on_v100 = model.predict_layers(layers, v100);
  const auto on_unseen = model.predict_layers(layers, unseen);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_NEAR(on_v100[i].latency_ms(), estimate_layer(layers[i], v100).latency_ms + kV100FloorMs,
                1e-9);
    EXPECT_NEAR(on_unseen[i].latency_ms(),
                estimate_layer(layers[i], unseen).latency_ms + mean_floor, 1e-9);
  }

  // Rows measured as kernel time (cnnperf profile) carry no harness, though the regressor
  // stands in with the reference source for them (no training row of theirs).
  const auto as_profiled = model.predict_layers_as(
      layers, v100, std::vector<std::string>(layers.size(), "cnnperf-profile"));
  const auto as_neusight =
      model.predict_layers_as(layers, v100, std::vector<std::string>(layers.size(), "neusight"));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_EQ(as_profiled[i].overhead_ms, 0.0);
    EXPECT_DOUBLE_EQ(as_profiled[i].kernel_ms, as_neusight[i].kernel_ms);
    EXPECT_GT(as_neusight[i].overhead_ms, 0.0);
  }

  // The file keeps the floors; a file without them predicts without.
  const nlohmann::json doc = model.to_json();
  ASSERT_EQ(doc["families"][0]["host_floor_ms"].size(), 2u);
  const auto back = LearnedModel::from_json(doc, "round trip");
  const auto back_v100 = back->predict_layers(layers, v100);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(back_v100[i].kernel_ms, on_v100[i].kernel_ms);
    EXPECT_DOUBLE_EQ(back_v100[i].overhead_ms, on_v100[i].overhead_ms);
  }
  nlohmann::json old = doc;
  old["families"][0].erase("host_floor_ms");
  const auto no_floor = LearnedModel::from_json(old, "old file")->predict_layers(layers, v100);
  EXPECT_NEAR(no_floor[0].kernel_ms, estimate_layer(layers[0], v100).latency_ms, 1e-9);

  nlohmann::json bad = doc;
  bad["families"][0]["host_floor_ms"][1]["floor_ms"] = -0.01;
  try {
    (void)LearnedModel::from_json(bad, "bad.json");
    ADD_FAILURE() << "a negative floor was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: families[0].host_floor_ms[1].floor_ms"),
              std::string::npos)
        << e.what();
  }
  bad["families"][0]["host_floor_ms"] = "0.05";
  EXPECT_THROW((void)LearnedModel::from_json(bad, "bad.json"), InputError);
}

TEST(HostFloor, InsideANetworkTheFloorIsLeftToTheEagerOverhead) {
  const auto fitted = conv_model(floored_rows(600), kReferenceSource);
  const LearnedModel& model = *fitted;
  Network net;
  net.name = "synthetic";
  std::mt19937_64 rng(13);
  for (int i = 0; i < 5; ++i) net.layers.push_back(testing::random_conv3x3(rng));
  const GpuSpec v100 = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  const auto per_op = model.predict_layers(net.layers, v100);
  const auto kernels = model.predict_network_layers(net.layers, v100);
  const NetworkPrediction whole = predict_network(net, v100, model, Mode::kInference, PowerModel{});
  ASSERT_EQ(whole.predictions.size(), net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const double analytical = estimate_layer(net.layers[i], v100).latency_ms;
    EXPECT_NEAR(per_op[i].latency_ms(), analytical + kV100FloorMs, 1e-9);
    EXPECT_NEAR(kernels[i].kernel_ms, analytical, 1e-9);  // the learned ratio here is 1
    // The harness's floor is its overhead; the kernel time is the network's.
    EXPECT_NEAR(per_op[i].overhead_ms, kV100FloorMs, 1e-9);
    EXPECT_DOUBLE_EQ(per_op[i].kernel_ms, kernels[i].kernel_ms);
    EXPECT_DOUBLE_EQ(whole.predictions[i].kernel_ms, kernels[i].kernel_ms);
  }
}

TEST(HostFloor, TheAnalyticalFallbackAndItsCheckCarryTheFloorOfTheOtherGpus) {
  const TrainingData data = floored_rows(600);
  // A fake leave-one-GPU-out result: learned predictions 2x the truth everywhere.
  CvResult logo;
  logo.family = OpFamily::kConv;
  logo.rows = all_rows(data);
  for (const auto r : logo.rows) logo.predicted_ms.push_back(2.0 * data.latency_ms[r]);
  const UnseenGpuCheck with = unseen_gpu_check(data, logo);
  const UnseenGpuCheck without = unseen_gpu_check(data, logo, /*host_floor=*/false);
  // With floors, each held-out GPU gets the other GPU's floor: 0.02 for the V100 rows (true
  // 0.05) and 0.05 for the P100 rows (true 0.02). Recompute that MAPE here.
  double ape_sum = 0;
  for (const auto r : logo.rows) {
    const bool v100 = data.gpus[r].name == "v100-sxm2-16gb";
    const double predicted = estimate_layer(data.layers[r], data.gpus[r]).latency_ms +
                             (v100 ? kP100FloorMs : kV100FloorMs);
    ape_sum += std::abs(predicted / data.latency_ms[r] - 1);
  }
  EXPECT_NEAR(with.analytical_mape_pct, 100 * ape_sum / static_cast<double>(logo.rows.size()),
              1e-9);
  EXPECT_GT(without.analytical_mape_pct, with.analytical_mape_pct);
  EXPECT_NEAR(with.learned_mape_pct, 100.0, 1e-9);

  const auto fitted = conv_model(data, kReferenceSource, /*analytical_for_unseen_gpus=*/true);
  const LearnedModel& model = *fitted;
  std::mt19937_64 rng(9);
  const std::vector<Layer> layers = {testing::random_conv3x3(rng)};
  const GpuSpec unseen = *GpuDatabase::bundled().find("rtx-2080-ti");
  const auto p = model.predict_layers(layers, unseen);
  EXPECT_NEAR(p[0].latency_ms(),
              estimate_layer(layers[0], unseen).latency_ms + std::sqrt(kV100FloorMs * kP100FloorMs),
              1e-12);
  EXPECT_FALSE(p[0].in_distribution);
}

TEST(HostFloor, CrossValidationFitsFloorsOnTheTrainingFoldOnly) {
  // Leave-one-GPU-out on two GPUs: the held-out GPU's rows are predicted with the other GPU's
  // floor, so the error is what swapping the floors costs, not 0.
  const TrainingData data = floored_rows(600);
  const FeatureSpec spec = FeatureSpec::parse("layer,analytical");
  const CvResult logo = cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree,
                                              kTreeParams, spec, CvScheme::kLeaveGpuOut, 2, 42);
  ASSERT_EQ(logo.predicted_ms.size(), data.layers.size());
  for (std::size_t i = 0; i < logo.rows.size(); ++i) {
    const auto r = logo.rows[i];
    const bool v100 = data.gpus[r].name == "v100-sxm2-16gb";
    EXPECT_NEAR(logo.predicted_ms[i],
                estimate_layer(data.layers[r], data.gpus[r]).latency_ms +
                    (v100 ? kP100FloorMs : kV100FloorMs),
                1e-9)
        << r;
  }
  const CvResult kfold = cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree,
                                               kTreeParams, spec, CvScheme::kKfold, 3, 42);
  EXPECT_LT(kfold.overall.mape_pct, 1e-6) << "each GPU's floor is seen in every training fold";
}

}  // namespace
}  // namespace cnnperf
