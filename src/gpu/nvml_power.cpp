// SPDX-License-Identifier: Apache-2.0
// NVML by dlopen, and the NVML PowerMeter (see nvml_power.hpp).
#include "nvml_power.hpp"

#include <dlfcn.h>

#include <array>
#include <chrono>

#include <spdlog/spdlog.h>

namespace cnnperf::gpu {
namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return fn != nullptr;
}

}  // namespace

Outcome outcome_from_nvml(int nvml_return) {
  switch (nvml_return) {
    case kNvmlSuccess: return Outcome::kPassed;
    case kNvmlErrorNotSupported: return Outcome::kNotSupported;
    case kNvmlErrorInvalidArgument:
    case kNvmlErrorNotFound: return Outcome::kInvalidProblem;
    default: return Outcome::kFailed;
  }
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::load(Status& status, const char* soname) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    spdlog::info("dlopen({}): {}", soname, why != nullptr ? why : "unknown");
    status = {Outcome::kNotRun, std::string(soname) + " not found"};
    return nullptr;
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  InitFn init = nullptr;
  const bool ok = resolve(handle, "nvmlInit_v2", init) &&
                  resolve(handle, "nvmlShutdown", lib->shutdown) &&
                  resolve(handle, "nvmlErrorString", lib->error_string) &&
                  resolve(handle, "nvmlDeviceGetHandleByUUID", lib->handle_by_uuid) &&
                  resolve(handle, "nvmlDeviceGetHandleByIndex_v2", lib->handle_by_index) &&
                  resolve(handle, "nvmlDeviceGetTotalEnergyConsumption", lib->total_energy) &&
                  resolve(handle, "nvmlDeviceGetPowerUsage", lib->power_usage) &&
                  resolve(handle, "nvmlDeviceGetClockInfo", lib->clock_info) &&
                  resolve(handle, "nvmlDeviceGetPowerManagementLimit", lib->power_limit) &&
                  resolve(handle, "nvmlSystemGetDriverVersion", lib->driver_version_fn);
  (void)resolve(handle, "nvmlDeviceGetFieldValues", lib->field_values);  // optional
  if (!ok) {
    status = {Outcome::kFailed, std::string(soname) + ": missing NVML entry point"};
    lib->shutdown = nullptr;  // nvmlInit_v2 was not called
    return nullptr;
  }
  const int r = init();
  if (r != kNvmlSuccess) {
    status = {outcome_from_nvml(r), "nvmlInit_v2: " + lib->describe(r)};
    lib->shutdown = nullptr;
    return nullptr;
  }
  status = {};
  return lib;
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::without_library() {
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary());
}

NvmlLibrary::~NvmlLibrary() {
  if (shutdown != nullptr) shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

std::string NvmlLibrary::describe(int nvml_return) const {
  const char* text = error_string != nullptr ? error_string(nvml_return) : nullptr;
  return "NVML error " + std::to_string(nvml_return) +
         (text != nullptr ? std::string(": ") + text : "");
}

std::string NvmlLibrary::driver_version() const {
  std::array<char, 96> buffer{};
  if (driver_version_fn == nullptr ||
      driver_version_fn(buffer.data(), static_cast<unsigned int>(buffer.size())) != kNvmlSuccess) {
    return "";
  }
  return buffer.data();
}

double integrate_power_mj(const std::vector<std::pair<std::int64_t, unsigned int>>& samples) {
  double mj = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const double dt_s = static_cast<double>(samples[i].first - samples[i - 1].first) / 1.0e9;
    mj += 0.5 * (samples[i].second + samples[i - 1].second) * dt_s;  // mW * s = mJ
  }
  return mj;
}

std::optional<double> energy_from_updates_mj(const std::vector<CounterUpdate>& updates,
                                             double window_ms) {
  if (updates.size() < 2) return std::nullopt;
  const CounterUpdate& first = updates.front();
  const CounterUpdate& last = updates.back();
  const double between_ms = static_cast<double>(last.host_ns - first.host_ns) / 1.0e6;
  if (between_ms <= 0 || last.energy_mj < first.energy_mj) return std::nullopt;
  return static_cast<double>(last.energy_mj - first.energy_mj) / between_ms * window_ms;
}

NvmlPowerMeter::NvmlPowerMeter(std::shared_ptr<NvmlLibrary> nvml, const std::string& uuid,
                               Status load_status)
    : nvml_(std::move(nvml)), status_(std::move(load_status)) {
  if (!nvml_) {
    if (status_.ok()) status_ = {Outcome::kNotRun, "NVML not loaded"};
    return;
  }
  int r = nvml_->handle_by_uuid(uuid.c_str(), &device_);
  if (r != kNvmlSuccess) {
    status_ = {outcome_from_nvml(r),
               "nvmlDeviceGetHandleByUUID(" + uuid + "): " + nvml_->describe(r)};
    return;
  }
  unsigned long long mj = 0;
  r = nvml_->total_energy(device_, &mj);
  if (r == kNvmlSuccess) {
    use_counter_ = true;
    status_ = {};
    return;
  }
  spdlog::info("nvmlDeviceGetTotalEnergyConsumption: {}; falling back to power samples",
               nvml_->describe(r));
  unsigned int mw = 0;
  instant_power_ = read_instant_power_mw(mw) == kNvmlSuccess;
  const int p = nvml_->power_usage(device_, &mw);
  if (p != kNvmlSuccess) {
    status_ = {outcome_from_nvml(p), "nvmlDeviceGetTotalEnergyConsumption: " + nvml_->describe(r) +
                                         "; nvmlDeviceGetPowerUsage: " + nvml_->describe(p)};
    return;
  }
  status_ = {};
}

NvmlPowerMeter::~NvmlPowerMeter() {
  stop_sampler();
}

void NvmlPowerMeter::stop_sampler() {
  sampling_ = false;
  if (sampler_.joinable()) sampler_.join();
}

int NvmlPowerMeter::read_power_mw(unsigned int& mw) const {
  return instant_power_ ? read_instant_power_mw(mw) : nvml_->power_usage(device_, &mw);
}

int NvmlPowerMeter::read_instant_power_mw(unsigned int& mw) const {
  if (nvml_->field_values == nullptr) return kNvmlErrorNotSupported;
  NvmlFieldValue field;
  field.field_id = kNvmlFieldPowerInstant;
  const int r = nvml_->field_values(device_, 1, &field);
  if (r != kNvmlSuccess) return r;
  if (field.nvml_return != kNvmlSuccess) return field.nvml_return;
  mw = field.value.ui;
  return kNvmlSuccess;
}

void NvmlPowerMeter::begin_window() {
  // A thread still joinable here would std::terminate on the assignment below.
  stop_sampler();
  if (!status_.ok()) return;
  start_ns_ = now_ns();
  if (use_counter_) {
    const int r = nvml_->total_energy(device_, &energy_start_mj_);
    window_start_ = r == kNvmlSuccess
                        ? Status{}
                        : Status{outcome_from_nvml(r),
                                 "nvmlDeviceGetTotalEnergyConsumption at the window's start: " +
                                     nvml_->describe(r)};
    if (!window_start_.ok()) return;
    // The counter moves in steps (about every 100 ms): a difference of two reads is off by
    // up to a step at each end. The poller notes when each step lands instead.
    counter_updates_.clear();
    counter_read_error_ = kNvmlSuccess;
    sampling_ = true;
    sampler_ = std::thread([this] {
      unsigned long long last = energy_start_mj_;
      while (sampling_) {
        unsigned long long mj = 0;
        const int r = nvml_->total_energy(device_, &mj);
        if (r != kNvmlSuccess) {
          counter_read_error_ = r;
        } else if (mj != last) {
          counter_updates_.push_back({now_ns(), mj});
          last = mj;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kCounterPollIntervalMs));
      }
    });
    return;
  }
  samples_.clear();
  sampling_ = true;
  sampler_ = std::thread([this] {
    while (sampling_) {
      unsigned int mw = 0;
      if (read_power_mw(mw) == kNvmlSuccess) samples_.emplace_back(now_ns(), mw);
      std::this_thread::sleep_for(std::chrono::milliseconds(kPowerSampleIntervalMs));
    }
  });
}

EnergyReading NvmlPowerMeter::end_window() {
  EnergyReading reading;
  reading.status = status_;
  if (!status_.ok()) {
    reading.method = "not available: " + status_.reason;
    return reading;
  }
  if (use_counter_) {
    stop_sampler();
    reading.window_ms = static_cast<double>(now_ns() - start_ns_) / 1.0e6;
    reading.method = "nvml-total-energy-counter";
    reading.counter_updates = static_cast<int>(counter_updates_.size());
    const std::optional<double> mj = energy_from_updates_mj(counter_updates_, reading.window_ms);
    if (!window_start_.ok()) {
      // Without the start value the difference would span earlier windows too.
      reading.status = window_start_;
    } else if (!mj) {
      // Fewer than 2 updates: the window was shorter than the counter's update interval.
      std::string why = "energy counter updated " + std::to_string(counter_updates_.size()) +
                        " time(s) in " + format_number(reading.window_ms) +
                        " ms, 2 needed (expected a longer energy window)";
      if (counter_read_error_ != kNvmlSuccess) {
        why += "; nvmlDeviceGetTotalEnergyConsumption: " + nvml_->describe(counter_read_error_);
      }
      reading.status = {Outcome::kFailed, why};
    } else {
      reading.energy_mj = *mj;
    }
  } else {
    stop_sampler();
    reading.window_ms = static_cast<double>(now_ns() - start_ns_) / 1.0e6;
    reading.method = instant_power_ ? "nvml-instant-power-samples" : "nvml-power-samples";
    reading.power_samples = static_cast<int>(samples_.size());
    if (samples_.size() < 2) {
      reading.status = {Outcome::kFailed, "fewer than 2 power samples in " +
                                              format_number(reading.window_ms) + " ms"};
    } else {
      reading.energy_mj = integrate_power_mj(samples_);
    }
  }
  unsigned int mhz = 0;
  if (nvml_->clock_info(device_, 1, &mhz) == kNvmlSuccess) reading.sm_clock_mhz = mhz;
  if (nvml_->clock_info(device_, 2, &mhz) == kNvmlSuccess) reading.mem_clock_mhz = mhz;
  unsigned int limit_mw = 0;
  if (nvml_->power_limit(device_, &limit_mw) == kNvmlSuccess) {
    reading.power_limit_w = limit_mw / 1000.0;
  }
  return reading;
}

}  // namespace cnnperf::gpu
