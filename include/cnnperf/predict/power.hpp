// SPDX-License-Identifier: Apache-2.0
// Board power and energy: per-layer average power from utilizations, and what a power cap
// does to clocks, latency and energy. One model, calibrated on measured power
// (datasets/power_zeus.csv) and bundled as models/power_model.json.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cnnperf/model/gpu_spec.hpp"

namespace cnnperf {

inline constexpr int kPowerModelSchemaVersion = 1;

/// Average board power of a running layer: idle + (tdp - idle) x activity, where
/// activity = max(floor, compute_weight x compute utilization + memory_weight x memory
/// utilization), clamped to [0, 1].
struct PowerParams {
  double compute_weight = 0.85;  ///< activity per unit compute utilization
  double memory_weight = 0.60;   ///< activity per unit memory utilization
  double floor_activity = 0.25;  ///< activity of a busy but stalled GPU (launch-bound)
};

/// How a GPU meets a power cap: the driver lowers the SM clock (ratio s of boost, not below
/// min_clock_ratio). Time that was compute-bound grows as 1/s; memory-bound time does not.
/// Core dynamic energy per operation scales as max(s, voltage_floor_clock_ratio)^
/// core_energy_exponent: a lower clock allows a lower voltage until the voltage reaches its
/// minimum, below which energy per operation stops falling. Memory energy does not change.
struct PowerCapParams {
  double core_energy_exponent = 1.0;       ///< dynamic core energy per op ~ s^exponent
  double voltage_floor_clock_ratio = 0.3;  ///< clock (share of boost) at the minimum voltage
  double min_clock_ratio = 0.3;            ///< lowest SM clock the driver goes to, share of boost
};

/// The power model: activity weights, cap response, and where the numbers came from.
struct PowerModel {
  PowerParams activity;
  PowerCapParams cap;
  /// Per GPU database name (GpuSpec::name): a factor on the compute and memory weights, fitted
  /// on that GPU's own measured power (the board's real draw against its TDP). Empty: none.
  std::map<std::string, double> activity_scale_by_gpu;
  std::string source = "default";  ///< "default", or the calibration data and command
  nlohmann::json calibration = nlohmann::json::object();  ///< fit metrics, as written

  /// models/power_model.json (loaded once); throws Error when it cannot be found.
  [[nodiscard]] static const PowerModel& bundled();
  /// Loads a power model file; throws InputError naming the file and field.
  [[nodiscard]] static PowerModel load(const std::string& path);
  [[nodiscard]] static PowerModel from_json(const nlohmann::json& doc, const std::string& where);
  [[nodiscard]] nlohmann::json to_json() const;
  /// The activity weights as they apply to `gpu`: compute and memory weights times the GPU's
  /// own scale when it has one (a copy of three numbers: called once per prediction).
  [[nodiscard]] PowerParams activity_for(const GpuSpec& gpu) const;
};

/// Average board power (W) of a layer with these utilizations of its own latency (each in
/// [0, 1]); `kernels` == 0 (a view) runs at idle power.
[[nodiscard]] double layer_power_w(double compute_utilization, double memory_utilization,
                                   int kernels, const GpuSpec& gpu, const PowerParams& params);

}  // namespace cnnperf
