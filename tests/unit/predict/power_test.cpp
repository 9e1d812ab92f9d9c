// SPDX-License-Identifier: Apache-2.0
// The power model: its file form, per-layer power, and what a power cap does to a prediction.
#include <gtest/gtest.h>

#include <cmath>

#include "cnnperf/common/error.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"
#include "synthetic_gpu.hpp"

namespace cnnperf {
namespace {

using test::synthetic_gpu;

NetworkPrediction resnet50_training(const PowerModel& power) {
  NetworkOptions options;
  options.batch = 32;
  return predict_network(build_zoo_network("resnet50", options), synthetic_gpu(), AnalyticalModel(),
                         Mode::kTraining, power);
}

TEST(PowerModel, JsonRoundTripKeepsEveryParameter) {
  PowerModel m;
  m.activity = {0.9, 0.5, 0.2};
  m.cap = {2.25, 0.6, 0.35};
  m.source = "test fixture (synthetic numbers)";
  m.calibration = {{"rows", 3}};
  const PowerModel back = PowerModel::from_json(m.to_json(), "mem");
  EXPECT_DOUBLE_EQ(back.activity.compute_weight, 0.9);
  EXPECT_DOUBLE_EQ(back.activity.memory_weight, 0.5);
  EXPECT_DOUBLE_EQ(back.activity.floor_activity, 0.2);
  EXPECT_DOUBLE_EQ(back.cap.core_energy_exponent, 2.25);
  EXPECT_DOUBLE_EQ(back.cap.voltage_floor_clock_ratio, 0.6);
  EXPECT_DOUBLE_EQ(back.cap.min_clock_ratio, 0.35);
  EXPECT_EQ(back.source, m.source);
  EXPECT_EQ(back.calibration["rows"], 3);
}

TEST(PowerModel, BadFieldsNameTheFieldAndExitTwo) {
  nlohmann::json doc = PowerModel{}.to_json();
  doc["cap"].erase("core_energy_exponent");
  try {
    (void)PowerModel::from_json(doc, "pm.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pm.json: cap.core_energy_exponent"), std::string::npos)
        << e.what();
  }
  doc = PowerModel{}.to_json();
  doc["activity"]["floor_activity"] = 1.5;
  EXPECT_THROW((void)PowerModel::from_json(doc, "pm.json"), InputError);
  doc = PowerModel{}.to_json();
  doc["schema_version"] = 99;
  EXPECT_THROW((void)PowerModel::from_json(doc, "pm.json"), InputError);
}

TEST(PowerModel, BundledFileIsCalibratedAndSaysOnWhat) {
  const PowerModel& m = PowerModel::bundled();
  EXPECT_NE(m.source.find("power_zeus.csv"), std::string::npos) << m.source;
  EXPECT_TRUE(m.calibration.contains("leave_gpu_out"));
}

TEST(LayerPower, BetweenIdleAndBoardPowerAndGrowsWithUtilization) {
  const GpuSpec gpu = synthetic_gpu();
  const PowerParams p;
  EXPECT_DOUBLE_EQ(layer_power_w(0.5, 0.5, 0, gpu, p), gpu.idle_power_w);  // a view
  const double low = layer_power_w(0.1, 0.1, 1, gpu, p);
  const double high = layer_power_w(0.9, 0.1, 1, gpu, p);
  EXPECT_GE(low, gpu.idle_power_w + (gpu.tdp_w - gpu.idle_power_w) * p.floor_activity - 1e-9);
  EXPECT_GT(high, low);
  EXPECT_LE(layer_power_w(1, 1, 1, gpu, p), gpu.tdp_w);
}

TEST(SetPower, ChangesPowerAndEnergyButNotLatency) {
  PowerModel low;
  low.activity = {0.3, 0.2, 0.1};
  NetworkPrediction p = resnet50_training(PowerModel{});
  const double latency = p.latency_ms;
  const double power = p.avg_power_w;
  set_power(p, low);
  EXPECT_DOUBLE_EQ(p.latency_ms, latency);
  EXPECT_LT(p.avg_power_w, power);
  EXPECT_NEAR(p.energy_j * 1e3, p.avg_power_w * p.latency_ms, 1e-6 * p.energy_j * 1e3);
}

TEST(PowerCap, AboveTheDrawnPowerChangesNothingButIsRecorded) {
  const PowerModel power;
  const NetworkPrediction base = resnet50_training(power);
  NetworkPrediction p = base;
  apply_power_limit(p, base.avg_power_w + 1, power);
  ASSERT_TRUE(p.power_cap.has_value());
  EXPECT_FALSE(p.power_cap->binding);
  EXPECT_DOUBLE_EQ(p.power_cap->clock_ratio, 1.0);
  EXPECT_DOUBLE_EQ(p.latency_ms, base.latency_ms);
  EXPECT_DOUBLE_EQ(p.energy_j, base.energy_j);
}

TEST(PowerCap, BindingCapLowersTheClockUntilThePowerFits) {
  const PowerModel power;
  const NetworkPrediction base = resnet50_training(power);
  ASSERT_GT(base.avg_power_w, 200);
  NetworkPrediction p = base;
  apply_power_limit(p, 200, power);
  ASSERT_TRUE(p.power_cap.has_value());
  EXPECT_TRUE(p.power_cap->binding);
  EXPECT_FALSE(p.power_cap->at_clock_floor);
  EXPECT_LT(p.power_cap->clock_ratio, 1.0);
  EXPECT_NEAR(p.avg_power_w, 200, 0.5);
  EXPECT_GT(p.latency_ms, base.latency_ms);
  EXPECT_DOUBLE_EQ(p.power_cap->uncapped_latency_ms, base.latency_ms);
  EXPECT_DOUBLE_EQ(p.power_cap->uncapped_avg_power_w, base.avg_power_w);
  // Per layer: never faster than uncapped, never below the roofline bound.
  for (std::size_t i = 0; i < p.predictions.size(); ++i) {
    EXPECT_GE(p.predictions[i].kernel_ms, base.predictions[i].kernel_ms - 1e-12);
    EXPECT_GE(p.predictions[i].kernel_ms, p.predictions[i].roofline_ms);
  }
}

TEST(PowerCap, LowerCapsSlowDownMore) {
  const PowerModel power;
  const NetworkPrediction base = resnet50_training(power);
  double previous_latency = base.latency_ms;
  for (const double cap : {300.0, 250.0, 200.0, 150.0}) {
    NetworkPrediction p = base;
    apply_power_limit(p, cap, power);
    EXPECT_GE(p.latency_ms, previous_latency) << cap;
    previous_latency = p.latency_ms;
  }
}

TEST(PowerCap, ComputeBoundLayersStretchMoreThanMemoryBoundOnes) {
  const PowerModel power;
  const NetworkPrediction base = resnet50_training(power);
  NetworkPrediction p = base;
  apply_power_limit(p, 150, power);
  double compute_stretch = 0, memory_stretch = 0;
  for (std::size_t i = 0; i < p.predictions.size(); ++i) {
    const auto& b = base.predictions[i];
    if (b.kernel_ms <= 0) continue;
    const double stretch = p.predictions[i].kernel_ms / b.kernel_ms;
    if (b.compute_utilization > 0.9) compute_stretch = std::max(compute_stretch, stretch);
    if (b.compute_utilization < 0.1 && b.kernels > 0)
      memory_stretch = std::max(memory_stretch, stretch);
  }
  ASSERT_GT(compute_stretch, 0);
  ASSERT_GT(memory_stretch, 0);
  EXPECT_GT(compute_stretch, memory_stretch);
  EXPECT_NEAR(compute_stretch, 1 / p.power_cap->clock_ratio, 0.15 / p.power_cap->clock_ratio);
}

TEST(PowerCap, EnergyFallsOnlyWhenVoltageScalingPaysForTheLongerRun) {
  // Exponent 0: core energy per operation does not fall with the clock, so a cap only adds
  // idle-power time. Exponent 2 (f*V^2): a moderate cap saves energy, as Zeus measured.
  PowerModel flat;
  flat.cap.core_energy_exponent = 0;
  PowerModel cubic;
  cubic.cap.core_energy_exponent = 2;
  const NetworkPrediction base = resnet50_training(flat);
  NetworkPrediction a = base;
  apply_power_limit(a, 250, flat);
  NetworkPrediction b = base;
  apply_power_limit(b, 250, cubic);
  EXPECT_GT(a.energy_j, base.energy_j);
  EXPECT_LT(b.energy_j, base.energy_j);
  EXPECT_LT(b.latency_ms, a.latency_ms);  // cheaper clocks: the cap binds less hard
}

TEST(PowerCap, BelowTheVoltageFloorEnergyRisesAgain) {
  // With a voltage floor at 70 % of boost, capping the clock below it only stretches time:
  // the step's energy is lowest near the floor (Zeus's measured energy minimum).
  PowerModel power;
  power.cap.core_energy_exponent = 2;
  power.cap.voltage_floor_clock_ratio = 0.7;
  const NetworkPrediction base = resnet50_training(power);
  double best_energy = base.energy_j;
  double best_clock = 1;
  double last_energy = 0;
  for (double cap = base.avg_power_w; cap > 80; cap -= 5) {
    NetworkPrediction p = base;
    apply_power_limit(p, cap, power);
    if (p.energy_j < best_energy) {
      best_energy = p.energy_j;
      best_clock = p.power_cap->clock_ratio;
    }
    last_energy = p.energy_j;
  }
  EXPECT_LT(best_energy, base.energy_j);
  EXPECT_GT(last_energy, best_energy);
  EXPECT_NEAR(best_clock, 0.7, 0.06);
}

TEST(PowerCap, BelowWhatTheLowestClockDrawsRunsAtTheFloorWithAWarning) {
  PowerModel power;
  power.cap.min_clock_ratio = 0.8;
  const NetworkPrediction base = resnet50_training(power);
  NetworkPrediction p = base;
  apply_power_limit(p, 60, power);
  ASSERT_TRUE(p.power_cap.has_value());
  EXPECT_TRUE(p.power_cap->at_clock_floor);
  EXPECT_DOUBLE_EQ(p.power_cap->clock_ratio, 0.8);
  EXPECT_GT(p.avg_power_w, 60);
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings.back().find("lowest clock"), std::string::npos);
}

TEST(PowerCap, AtOrBelowIdlePowerIsBadInput) {
  NetworkPrediction p = resnet50_training(PowerModel{});
  EXPECT_THROW(apply_power_limit(p, 50, PowerModel{}), InputError);
  EXPECT_THROW(apply_power_limit(p, 10, PowerModel{}), InputError);
}

TEST(PowerCap, JsonAndTableShowTheOutcome) {
  NetworkPrediction p = resnet50_training(PowerModel{});
  apply_power_limit(p, 200, PowerModel{});
  const auto j = to_json(p);
  ASSERT_TRUE(j.contains("power_cap"));
  EXPECT_EQ(j["power_cap"]["binding"], true);
  EXPECT_GT(j["power_cap"]["slowdown"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["power_limit_w"].get<double>(), 200);
  const std::string table = format_prediction(p, OutputFormat::kTable);
  EXPECT_NE(table.find("power_cap"), std::string::npos);
  EXPECT_NE(table.find("binding"), std::string::npos);
}

}  // namespace
}  // namespace cnnperf
