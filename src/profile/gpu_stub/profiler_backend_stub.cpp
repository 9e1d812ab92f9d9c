// SPDX-License-Identifier: Apache-2.0
// The profiler back end of a build without CUDA: it exists so `profile` links and explains
// itself; every request reports "built without CUDA".
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

const char* const kReason =
    "built without CUDA (reconfigure with the CUDA toolkit, cuDNN and CUPTI installed and "
    "-DCNNPERF_WITH_CUDA=AUTO or ON; see docs/profiling.md)";

class StubPowerMeter final : public PowerMeter {
 public:
  [[nodiscard]] Status available() const override { return {Outcome::kNotRun, kReason}; }
  void begin_window() override {}
  [[nodiscard]] EnergyReading end_window() override {
    EnergyReading r;
    r.status = available();
    r.method = "not available: built without CUDA";
    return r;
  }
};

class StubBackend final : public ProfilerBackend {
 public:
  [[nodiscard]] Status open(int /*gpu_index*/) override { return {Outcome::kNotRun, kReason}; }
  [[nodiscard]] DeviceInfo device() const override { return {}; }
  [[nodiscard]] std::vector<AlgoChoice> heuristic_algos(const Layer& /*layer*/, Layout /*layout*/,
                                                        Status& status) override {
    status = {Outcome::kNotRun, kReason};
    return {};
  }
  [[nodiscard]] Prepared prepare(const Layer& /*layer*/, Layout /*layout*/,
                                 const AlgoChoice& choice) override {
    Prepared p;
    p.status = {Outcome::kNotRun, kReason};
    p.algo = choice.algo;
    return p;
  }
  [[nodiscard]] std::vector<KernelRecord> collect_kernels() override { return {}; }
  [[nodiscard]] std::uint64_t dropped_records() override { return 0; }
  [[nodiscard]] PowerMeter& power_meter() override { return meter_; }

 private:
  StubPowerMeter meter_;
};

}  // namespace

std::unique_ptr<ProfilerBackend> make_profiler_backend() {
  return std::make_unique<StubBackend>();
}

}  // namespace cnnperf
