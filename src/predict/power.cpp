// SPDX-License-Identifier: Apache-2.0
// The power model: per-layer power from utilizations, its file form, and power caps.
#include "cnnperf/predict/power.hpp"

#include <algorithm>
#include <cmath>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

namespace {

// `where` is "FILE: object" (the file, then the JSON path of `object`).
double number_field(const nlohmann::json& object, const char* key, const std::string& where,
                    double low, double high) {
  const std::string field = where + "." + key;
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) {
    throw InputError(input_message(field, "missing or not a number", "a number"));
  }
  const double value = object[key].get<double>();
  if (!std::isfinite(value) || value < low || value > high) {
    throw InputError(
        input_message(field, "out of range (" + format_number(value) + ")",
                      "a number in [" + format_number(low) + ", " + format_number(high) + "]"));
  }
  return value;
}

}  // namespace

double layer_power_w(double compute_utilization, double memory_utilization, int kernels,
                     const GpuSpec& gpu, const PowerParams& p) {
  if (kernels == 0) {
    return gpu.idle_power_w;
  }
  const double activity =
      std::clamp(std::max(p.floor_activity, p.compute_weight * compute_utilization +
                                                p.memory_weight * memory_utilization),
                 0.0, 1.0);
  return gpu.idle_power_w + (gpu.tdp_w - gpu.idle_power_w) * activity;
}

PowerModel PowerModel::from_json(const nlohmann::json& doc, const std::string& where) {
  if (!doc.is_object()) {
    throw InputError(input_message(where, "not a JSON object", "an object"));
  }
  if (doc.value("schema_version", 0) != kPowerModelSchemaVersion) {
    throw InputError(input_message(where + ": schema_version", "unsupported",
                                   std::to_string(kPowerModelSchemaVersion)));
  }
  if (doc.value("kind", "") != "power_model") {
    throw InputError(input_message(where + ": kind", "not a power model", "\"power_model\""));
  }
  PowerModel m;
  const auto activity = doc.value("activity", nlohmann::json());
  m.activity.compute_weight = number_field(activity, "compute_weight", where + ": activity", 0, 2);
  m.activity.memory_weight = number_field(activity, "memory_weight", where + ": activity", 0, 2);
  m.activity.floor_activity = number_field(activity, "floor_activity", where + ": activity", 0, 1);
  const auto cap = doc.value("cap", nlohmann::json());
  m.cap.core_energy_exponent = number_field(cap, "core_energy_exponent", where + ": cap", 0, 4);
  m.cap.voltage_floor_clock_ratio =
      number_field(cap, "voltage_floor_clock_ratio", where + ": cap", 0.05, 1);
  m.cap.min_clock_ratio = number_field(cap, "min_clock_ratio", where + ": cap", 0.05, 1);
  if (!doc.contains("source") || !doc["source"].is_string()) {
    throw InputError(input_message(where + ": source", "missing", "a string naming the data"));
  }
  m.source = doc["source"].get<std::string>();
  m.calibration = doc.value("calibration", nlohmann::json::object());
  // A file without per-GPU scales gives every GPU the shared one.
  if (doc.contains("activity_scale_by_gpu")) {
    const auto& scales = doc["activity_scale_by_gpu"];
    if (!scales.is_object()) {
      throw InputError(
          input_message(where + ": activity_scale_by_gpu", "not an object", "{\"gpu\": scale}"));
    }
    for (const auto& [gpu, v] : scales.items()) {
      m.activity_scale_by_gpu[gpu] =
          number_field(scales, gpu.c_str(), where + ": activity_scale_by_gpu", 0.1, 10);
    }
  }
  return m;
}

PowerParams PowerModel::activity_for(const GpuSpec& gpu) const {
  PowerParams out = activity;
  const auto it = activity_scale_by_gpu.find(gpu.name);
  if (it != activity_scale_by_gpu.end()) {
    out.compute_weight *= it->second;
    out.memory_weight *= it->second;
  }
  return out;
}

nlohmann::json PowerModel::to_json() const {
  return {{"schema_version", kPowerModelSchemaVersion},
          {"tool_version", CNNPERF_VERSION},
          {"kind", "power_model"},
          {"source", source},
          {"activity",
           {{"compute_weight", activity.compute_weight},
            {"memory_weight", activity.memory_weight},
            {"floor_activity", activity.floor_activity}}},
          {"cap",
           {{"core_energy_exponent", cap.core_energy_exponent},
            {"voltage_floor_clock_ratio", cap.voltage_floor_clock_ratio},
            {"min_clock_ratio", cap.min_clock_ratio}}},
          {"activity_scale_by_gpu", activity_scale_by_gpu},
          {"calibration", calibration}};
}

PowerModel PowerModel::load(const std::string& path) {
  return from_json(read_json_file(path), path);
}

const PowerModel& PowerModel::bundled() {
  static const PowerModel model = load(find_resource("models/power_model.json").string());
  return model;
}

}  // namespace cnnperf
