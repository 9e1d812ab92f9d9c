// SPDX-License-Identifier: Apache-2.0
// A fake NVML behind NvmlLibrary's entry points (no driver needed). It is no kinder than the
// real library: each rule quotes the documentation it follows. Readings are synthetic.
#pragma once

#include <chrono>
#include <cstring>
#include <memory>
#include <set>

#include "../../src/profile/gpu/nvml_power.hpp"

namespace cnnperf::gpu::fake {

struct FakeNvml {
  std::chrono::steady_clock::time_point loaded = std::chrono::steady_clock::now();
  double power_w = 250;                  // constant draw of the synthetic GPU
  bool energy_counter_supported = true;  // Volta or newer
  std::set<int> failing_energy_calls;    // 1-based indexes of total_energy calls that fail
  int energy_calls = 0;
  int power_calls = 0;

  [[nodiscard]] double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - loaded)
        .count();
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
    // The counter advances in steps of about 100 ms (the driver's update interval).
    const double updated_ms =
        static_cast<double>(static_cast<long long>(s.elapsed_ms() / 100)) * 100;
    *mj = static_cast<unsigned long long>(s.power_w * updated_ms);  // W * ms = mJ
    return static_cast<int>(kNvmlSuccess);
  };
  lib->power_usage = [](NvmlLibrary::Device, unsigned int* mw) {
    auto& s = nvml_state();
    ++s.power_calls;
    *mw = static_cast<unsigned int>(s.power_w * 1000);
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
