// SPDX-License-Identifier: Apache-2.0
// A scripted ProfilerBackend for tests: synthetic kernel timings (not measurements), vendor
// refusals and energy readings chosen by the test, so the measurement loop runs without a GPU.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf::test {

class FakePowerMeter final : public PowerMeter {
 public:
  Status status;  ///< what available() says
  double energy_mj_per_window = 500;
  double window_ms = 250;
  /// Energy counter updates the window saw (nvmlDeviceGetTotalEnergyConsumption moves about
  /// every 100 ms, Zeus / anchors E4; cnnperf needs two to resolve a window).
  int counter_updates = 3;
  int windows = 0;
  int open_windows = 0;  ///< begun and not ended
  [[nodiscard]] Status available() const override { return status; }
  void begin_window() override {
    ++windows;
    ++open_windows;
  }
  [[nodiscard]] EnergyReading end_window() override {
    --open_windows;
    EnergyReading r;
    r.status = status;
    r.energy_mj = energy_mj_per_window;
    r.window_ms = window_ms;
    r.method = "nvml-total-energy-counter";
    r.counter_updates = counter_updates;
    r.sm_clock_mhz = 1410;
    r.mem_clock_mhz = 1215;
    return r;
  }
};

/// Launches produce synthetic kernel records whose duration comes from `latency_ns(sample)`.
class FakeBackend final : public ProfilerBackend {
 public:
  Status open_status;
  std::map<ConvAlgo, Status> refuse;  ///< prepare() result per algorithm
  /// The heuristic's ranking, best first, with its math types.
  std::vector<AlgoChoice> heuristic{{ConvAlgo::kImplicitPrecompGemm, MathType::kTensorOp},
                                    {ConvAlgo::kGemm, MathType::kDefault}};
  std::vector<AlgoChoice> prepared;  ///< every prepare() request, in order
  std::function<std::uint64_t(std::uint32_t)> latency_ns = [](std::uint32_t) { return 100000; };
  FakePowerMeter meter;
  int launches = 0;  ///< every launch, traced or not
  int traced = 0;
  int l2_flushes = 0;
  bool drop_all = false;  ///< deliver no kernel records
  /// Samples whose main kernel comes with start = end = 0, as CUPTI reports a kernel it could
  /// not time ("timestamp information could not be collected", CUpti_ActivityKernel10).
  std::function<bool(std::uint32_t)> untimed = [](std::uint32_t) { return false; };
  /// Untraced launches after the traced samples (the energy window) throw, as a lost device.
  bool fail_energy_window = false;
  /// The main kernel starts this long before the transform ends (programmatic dependent
  /// launch).
  std::uint64_t overlap_ns = 0;
  bool lose_device = false;  ///< every launch throws DeviceLost, as after a sticky CUDA error
  std::string launch_mode = "cuda-graph";  ///< what the runner says of its untraced launches

  Status open(int /*gpu_index*/) override { return open_status; }
  [[nodiscard]] DeviceInfo device() const override {
    DeviceInfo d;
    d.name = "Fake GPU (synthetic)";
    d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    d.cc_major = 8;
    d.cuda_runtime = "13.0";
    d.cuda_driver = "13.0";
    d.cudnn = "9.19.0";
    d.cupti = "130001";
    return d;
  }
  std::vector<AlgoChoice> heuristic_algos(const Layer&, Layout, Status& status) override {
    status = {};
    return heuristic;
  }
  Prepared prepare(const Layer&, Layout, const AlgoChoice& choice) override;
  std::vector<KernelRecord> collect_kernels() override {
    auto out = std::move(pending_);
    pending_.clear();
    return out;
  }
  std::uint64_t dropped_records() override { return drop_all ? 7 : 0; }
  PowerMeter& power_meter() override { return meter; }

  void record(std::uint64_t job, std::uint32_t sample, bool trace) {
    ++launches;
    if (!trace) return;
    ++traced;
    if (drop_all) return;
    const std::uint64_t ns = latency_ns(sample);
    // Two kernels per launch, like cuDNN's transform + main kernel.
    KernelRecord pre;
    pre.name = "synthetic_transform";
    pre.start_ns = clock_ns_;
    pre.end_ns = clock_ns_ + ns / 10;
    pre.external_id = make_external_id(job, sample);
    KernelRecord main;
    main.name = "synthetic_main";
    main.start_ns = pre.end_ns - overlap_ns;
    main.end_ns = pre.end_ns + ns - ns / 10;
    main.grid = {4, 2, 1};
    main.block = {256, 1, 1};
    main.registers_per_thread = 96;
    main.external_id = pre.external_id;
    clock_ns_ = main.end_ns + 1000;
    if (untimed(sample)) main.start_ns = main.end_ns = 0;
    pending_.push_back(main);  // out of order on purpose: grouping sorts by start
    pending_.push_back(pre);
  }

 private:
  std::vector<KernelRecord> pending_;
  std::uint64_t clock_ns_ = 1000;
};

class FakeRunner final : public ConvRunner {
 public:
  explicit FakeRunner(FakeBackend& backend) : backend_(backend) {}
  void run(int launches, bool trace, std::uint64_t job, std::uint32_t first_sample) override {
    if (backend_.lose_device) throw DeviceLost("GPU lost: synthetic illegal address");
    if (backend_.fail_energy_window && !trace && backend_.traced > 0) {
      throw Error("synthetic launch failure in the energy window");
    }
    for (int i = 0; i < launches; ++i)
      backend_.record(job, first_sample + static_cast<std::uint32_t>(i), trace);
  }
  void flush_l2() override { ++backend_.l2_flushes; }
  [[nodiscard]] std::int64_t workspace_bytes() const override { return 4096; }
  [[nodiscard]] std::string untraced_launch_mode() const override { return backend_.launch_mode; }

 private:
  FakeBackend& backend_;
};

inline Prepared FakeBackend::prepare(const Layer&, Layout, const AlgoChoice& choice) {
  prepared.push_back(choice);
  Prepared p;
  p.algo = choice.algo;
  auto it = refuse.find(choice.algo);
  if (it != refuse.end()) {
    p.status = it->second;
    return p;
  }
  p.runner = std::make_unique<FakeRunner>(*this);
  return p;
}

}  // namespace cnnperf::test
