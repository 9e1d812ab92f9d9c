// SPDX-License-Identifier: Apache-2.0
// A profiler back end that cannot run: a build without CUDA, or a CUDA build whose back-end
// module or CUDA libraries are missing on this machine. It exists so `profile` explains itself.
#include <utility>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

class UnavailablePowerMeter final : public PowerMeter {
 public:
  explicit UnavailablePowerMeter(std::string reason) : reason_(std::move(reason)) {}
  [[nodiscard]] Status available() const override { return {Outcome::kNotRun, reason_}; }
  void begin_window() override {}
  [[nodiscard]] EnergyReading end_window() override {
    EnergyReading r;
    r.status = available();
    r.method = "not available: " + reason_;
    return r;
  }

 private:
  std::string reason_;
};

class UnavailableBackend final : public ProfilerBackend {
 public:
  explicit UnavailableBackend(std::string reason) : reason_(std::move(reason)), meter_(reason_) {}
  [[nodiscard]] Status open(int /*gpu_index*/) override { return {Outcome::kNotRun, reason_}; }
  [[nodiscard]] DeviceInfo device() const override { return {}; }
  [[nodiscard]] std::vector<AlgoChoice> heuristic_algos(const Layer& /*layer*/, Layout /*layout*/,
                                                        Status& status) override {
    status = {Outcome::kNotRun, reason_};
    return {};
  }
  [[nodiscard]] Prepared prepare(const Layer& /*layer*/, Layout /*layout*/,
                                 const AlgoChoice& choice) override {
    Prepared p;
    p.status = {Outcome::kNotRun, reason_};
    p.algo = choice.algo;
    return p;
  }
  [[nodiscard]] std::vector<KernelRecord> collect_kernels() override { return {}; }
  [[nodiscard]] std::uint64_t dropped_records() override { return 0; }
  [[nodiscard]] PowerMeter& power_meter() override { return meter_; }

 private:
  std::string reason_;
  UnavailablePowerMeter meter_;
};

}  // namespace

std::unique_ptr<ProfilerBackend> make_unavailable_backend(std::string reason) {
  return std::make_unique<UnavailableBackend>(std::move(reason));
}

}  // namespace cnnperf
