// SPDX-License-Identifier: Apache-2.0
// NVML loaded at run time with dlopen("libnvidia-ml.so.1") — never linked, no nvml.h needed:
// the few entry points are declared here from NVML's documented signatures. Energy comes from
// the total-energy counter (mJ, Volta+) over a window; power samples (mW) are the fallback.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf::gpu {

/// NVML's return codes we name (nvmlReturn_t; values from NVML's documentation).
enum NvmlReturn : int {
  kNvmlSuccess = 0,
  kNvmlErrorUninitialized = 1,
  kNvmlErrorInvalidArgument = 2,
  kNvmlErrorNotSupported = 3,
  kNvmlErrorNoPermission = 4,
  kNvmlErrorNotFound = 6,
  kNvmlErrorGpuIsLost = 15,
  kNvmlErrorUnknown = 999,
};
/// nvmlFieldValue_t, declared from NVML's documented layout.
struct NvmlFieldValue {
  unsigned int field_id = 0;
  unsigned int scope_id = 0;  ///< for power fields: 0 = the GPU (NVML_POWER_SCOPE_GPU)
  long long timestamp_us = 0;
  long long latency_us = 0;
  int value_type = 0;  ///< nvmlValueType_t
  int nvml_return = 0;
  union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value{};
};
/// NVML_FI_DEV_POWER_INSTANT: "Current GPU power, supported on all architectures", mW.
/// nvmlDeviceGetPowerUsage is a 1-second average on Ampere (except GA100) and newer, too slow
/// for a window of a few hundred ms.
inline constexpr unsigned int kNvmlFieldPowerInstant = 186;

/// not supported -> kNotSupported; invalid argument / not found -> kInvalidProblem;
/// other failures -> kFailed; success -> kPassed.
[[nodiscard]] Outcome outcome_from_nvml(int nvml_return);

/// The loaded library: function pointers resolved with dlsym, nvmlInit_v2 done.
class NvmlLibrary {
 public:
  using Device = struct NvmlDeviceOpaque*;  ///< nvmlDevice_t
  using InitFn = int (*)();
  using ShutdownFn = int (*)();
  using ErrorStringFn = const char* (*)(int);
  using HandleByUuidFn = int (*)(const char*, Device*);
  using HandleByIndexFn = int (*)(unsigned int, Device*);
  using TotalEnergyFn = int (*)(Device, unsigned long long*);  // mJ since driver load
  using PowerUsageFn = int (*)(Device, unsigned int*);         // mW
  using ClockInfoFn = int (*)(Device, int, unsigned int*);     // MHz; 1 = SM, 2 = memory
  using PowerLimitFn = int (*)(Device, unsigned int*);         // mW
  using DriverVersionFn = int (*)(char*, unsigned int);
  using FieldValuesFn = int (*)(Device, int, NvmlFieldValue*);

  /// dlopen + dlsym + nvmlInit_v2. On failure returns null and sets `status`, e.g.
  /// {kNotRun, "libnvidia-ml.so.1 not found"}.
  [[nodiscard]] static std::unique_ptr<NvmlLibrary> load(Status& status,
                                                         const char* soname = "libnvidia-ml.so.1");
  /// No library loaded and no entry point set: tests fill the pointers with fakes.
  [[nodiscard]] static std::unique_ptr<NvmlLibrary> without_library();
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  /// "NVML_ERROR_...: text" via nvmlErrorString.
  [[nodiscard]] std::string describe(int nvml_return) const;
  [[nodiscard]] std::string driver_version() const;

  ShutdownFn shutdown = nullptr;
  ErrorStringFn error_string = nullptr;
  HandleByUuidFn handle_by_uuid = nullptr;
  HandleByIndexFn handle_by_index = nullptr;
  TotalEnergyFn total_energy = nullptr;
  PowerUsageFn power_usage = nullptr;
  ClockInfoFn clock_info = nullptr;
  PowerLimitFn power_limit = nullptr;
  DriverVersionFn driver_version_fn = nullptr;
  FieldValuesFn field_values = nullptr;  ///< optional: null where the driver lacks it

 private:
  NvmlLibrary() = default;
  void* handle_ = nullptr;
};

/// An update of the energy counter as the poller saw it.
struct CounterUpdate {
  std::int64_t host_ns = 0;  ///< when the new value was first read
  unsigned long long energy_mj = 0;
};

/// Energy of a window of `window_ms` from the counter's updates inside it: the average power
/// between the first and the last update (both ends on an update, so no partial step counts)
/// times the window. Nullopt with fewer than 2 updates.
[[nodiscard]] std::optional<double> energy_from_updates_mj(
    const std::vector<CounterUpdate>& updates, double window_ms);

/// PowerMeter over NVML for one device (found by the CUDA device's UUID).
class NvmlPowerMeter final : public PowerMeter {
 public:
  /// Never fails: an unusable NVML makes available() report why.
  NvmlPowerMeter(std::shared_ptr<NvmlLibrary> nvml, const std::string& uuid, Status load_status);
  ~NvmlPowerMeter() override;
  [[nodiscard]] Status available() const override { return status_; }
  /// Also closes a window left open (its runner threw before end_window).
  void begin_window() override;
  [[nodiscard]] EnergyReading end_window() override;
  /// Interval between power samples (fallback method), ms.
  static constexpr int kPowerSampleIntervalMs = 10;
  /// Interval between reads of the energy counter, ms: finds its updates (about every 100 ms)
  /// to within this.
  static constexpr int kCounterPollIntervalMs = 1;

 private:
  void stop_sampler();
  /// The instantaneous power field where it works, else nvmlDeviceGetPowerUsage.
  [[nodiscard]] int read_power_mw(unsigned int& mw) const;
  [[nodiscard]] int read_instant_power_mw(unsigned int& mw) const;
  std::shared_ptr<NvmlLibrary> nvml_;
  NvmlLibrary::Device device_ = nullptr;
  Status status_;
  bool use_counter_ = false;
  bool instant_power_ = false;  ///< NVML_FI_DEV_POWER_INSTANT answered
  unsigned long long energy_start_mj_ = 0;
  Status window_start_;  ///< not ok: the start-of-window read failed, the window has no energy
  std::int64_t start_ns_ = 0;
  std::atomic<bool> sampling_{false};
  std::thread sampler_;
  std::vector<std::pair<std::int64_t, unsigned int>> samples_;  // (host ns, mW)
  std::vector<CounterUpdate> counter_updates_;                  // seen during the window
  int counter_read_error_ = kNvmlSuccess;                       // last failed poll
};

/// Trapezoidal integral of (host ns, mW) samples, in mJ; 0 with fewer than 2 samples.
[[nodiscard]] double integrate_power_mj(
    const std::vector<std::pair<std::int64_t, unsigned int>>& samples);

}  // namespace cnnperf::gpu
