// SPDX-License-Identifier: Apache-2.0
// A fake NVML behind NvmlLibrary's entry points (no driver needed). It is no kinder than the
// real library: each rule quotes the documentation it follows. Readings are synthetic.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

#include "../../src/gpu/nvml_power.hpp"

namespace cnnperf::gpu::fake {

struct FakeNvml {
  std::chrono::steady_clock::time_point loaded = std::chrono::steady_clock::now();
  /// The synthetic GPU's draw in W, by ms since the fake was loaded.
  std::function<double(double)> power_w = [](double) { return 250.0; };
  bool energy_counter_supported = true;  // Volta or newer
  bool instant_field_supported = true;   // nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)
  std::set<int> failing_energy_calls;    // 1-based indexes of total_energy calls that fail
  int energy_calls = 0;

  [[nodiscard]] double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - loaded)
        .count();
  }
  /// Energy drawn over [from_ms, to_ms), mJ (1 ms steps).
  [[nodiscard]] double energy_mj(double from_ms, double to_ms) const {
    double mj = 0;
    for (double t = std::max(from_ms, 0.0); t < to_ms; t += 1) mj += power_w(t);  // W * 1 ms
    return mj;
  }
};

inline FakeNvml& nvml_state() {
  static FakeNvml s;
  return s;
}

// Any non-null handle: the fake has one device.
inline NvmlLibrary::Device fake_device() {
  static int device = 0;
  return reinterpret_cast<NvmlLibrary::Device>(&device);
}

/// An NvmlLibrary over nvml_state(), reset to a fresh fake.
inline std::shared_ptr<NvmlLibrary> nvml_library() {
  nvml_state() = FakeNvml{};
  std::shared_ptr<NvmlLibrary> lib = NvmlLibrary::without_library();
  lib->error_string = [](int) { return "synthetic NVML error"; };
  lib->handle_by_uuid = [](const char*, NvmlLibrary::Device* device) {
    *device = fake_device();
    return static_cast<int>(kNvmlSuccess);
  };
  lib->total_energy = [](NvmlLibrary::Device, unsigned long long* mj) {
    auto& s = nvml_state();
    const int call = ++s.energy_calls;
    if (!s.energy_counter_supported) return static_cast<int>(kNvmlErrorNotSupported);
    if (s.failing_energy_calls.count(call) != 0) return static_cast<int>(kNvmlErrorUnknown);
    // The counter is updated about every 100 ms, not at every read.
    const double updated_ms = std::floor(s.elapsed_ms() / 100) * 100;
    *mj = static_cast<unsigned long long>(s.energy_mj(0, updated_ms));
    return static_cast<int>(kNvmlSuccess);
  };
  // nvmlDeviceGetPowerUsage on Ampere (except GA100) and newer: the average over the last
  // second (NVML_FI_DEV_POWER_AVERAGE, "GPU power averaged over 1 sec interval").
  lib->power_usage = [](NvmlLibrary::Device, unsigned int* mw) {
    const auto& s = nvml_state();
    const double now = s.elapsed_ms();
    *mw = static_cast<unsigned int>(s.energy_mj(now - 1000, now));  // mJ over 1 s = mW
    return static_cast<int>(kNvmlSuccess);
  };
  // NVML_FI_DEV_POWER_INSTANT: "Current GPU power, supported on all architectures."
  lib->field_values = [](NvmlLibrary::Device, int count, NvmlFieldValue* values) {
    const auto& s = nvml_state();
    for (int i = 0; i < count; ++i) {
      NvmlFieldValue& v = values[i];
      if (!s.instant_field_supported || v.field_id != kNvmlFieldPowerInstant) {
        v.nvml_return = kNvmlErrorNotSupported;
        continue;
      }
      v.nvml_return = kNvmlSuccess;
      v.value_type = 1;  // NVML_VALUE_TYPE_UNSIGNED_INT
      v.value.ui = static_cast<unsigned int>(s.power_w(s.elapsed_ms()) * 1000);
    }
    return static_cast<int>(kNvmlSuccess);
  };
  lib->clock_info = [](NvmlLibrary::Device, int, unsigned int* mhz) {
    *mhz = 1410;
    return static_cast<int>(kNvmlSuccess);
  };
  lib->power_limit = [](NvmlLibrary::Device, unsigned int* mw) {
    *mw = 400000;
    return static_cast<int>(kNvmlSuccess);
  };
  return lib;
}

}  // namespace cnnperf::gpu::fake
