// SPDX-License-Identifier: Apache-2.0
// NvmlPowerMeter against the fake NVML of fake_nvml.hpp: windows left open, failed reads.
#include <gtest/gtest.h>

#include <thread>

#include "fake_nvml.hpp"

namespace cnnperf::gpu {
namespace {

TEST(NvmlPowerMeterFake, AWindowLeftOpenIsClosedByTheNextOne) {
  auto lib = fake::nvml_library();
  fake::nvml_state().energy_counter_supported = false;  // the power-sampling fallback
  NvmlPowerMeter meter(lib, "GPU-fake", {});
  ASSERT_TRUE(meter.available().ok()) << meter.available().reason;
  meter.begin_window();
  // The runner threw here: no end_window. The next window must not std::terminate.
  meter.begin_window();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const EnergyReading r = meter.end_window();
  EXPECT_EQ(r.method, "nvml-instant-power-samples");
  EXPECT_TRUE(r.status.ok()) << r.status.reason;
  EXPECT_GE(r.power_samples, 2);
}

TEST(NvmlPowerMeterFake, AFailedStartReadLeavesTheWindowWithoutEnergy) {
  auto lib = fake::nvml_library();
  NvmlPowerMeter meter(lib, "GPU-fake", {});  // energy call 1: the probe
  ASSERT_TRUE(meter.available().ok()) << meter.available().reason;
  fake::nvml_state().failing_energy_calls = {2};  // the start of the first window
  meter.begin_window();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const EnergyReading r = meter.end_window();
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(r.energy_mj, 0);
  EXPECT_NE(r.status.reason.find("start"), std::string::npos) << r.status.reason;
}

TEST(NvmlPowerMeterFake, CounterEnergyIsTakenBetweenUpdates) {
  auto lib = fake::nvml_library();  // 250 W, counter updated every 100 ms
  NvmlPowerMeter meter(lib, "GPU-fake", {});
  ASSERT_TRUE(meter.available().ok()) << meter.available().reason;
  meter.begin_window();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const EnergyReading r = meter.end_window();
  ASSERT_TRUE(r.status.ok()) << r.status.reason;
  EXPECT_EQ(r.method, "nvml-total-energy-counter");
  EXPECT_GE(r.counter_updates, 2);
  // Two reads 250 ms apart differ by 200 or 300 ms of energy (20 % off); between updates
  // the power is exact.
  EXPECT_NEAR(r.energy_mj / r.window_ms, 250.0, 250.0 * 0.1);
}

TEST(NvmlPowerMeterFake, AWindowWithFewerThanTwoUpdatesHasNoEnergy) {
  auto lib = fake::nvml_library();
  NvmlPowerMeter meter(lib, "GPU-fake", {});
  meter.begin_window();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const EnergyReading r = meter.end_window();
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.reason.find("2 needed"), std::string::npos) << r.status.reason;
}

TEST(EnergyFromUpdates, AveragePowerBetweenUpdatesTimesTheWindow) {
  const std::int64_t ms = 1000000;
  EXPECT_FALSE(energy_from_updates_mj({{5 * ms, 1000}}, 200));
  // 2000 mJ in 100 ms = 20 W; over a 250 ms window: 5000 mJ.
  const auto mj = energy_from_updates_mj({{5 * ms, 1000}, {55 * ms, 2000}, {105 * ms, 3000}}, 250);
  ASSERT_TRUE(mj);
  EXPECT_DOUBLE_EQ(*mj, 5000.0);
}

// The window starts while the GPU goes from 100 W to 300 W: the energy must be the 300 W the
// window drew, not the lagging 1-second average.
double average_power_w_after_a_step(bool instant_field) {
  auto lib = fake::nvml_library();
  auto& s = fake::nvml_state();
  s.energy_counter_supported = false;
  s.instant_field_supported = instant_field;
  NvmlPowerMeter meter(lib, "GPU-fake", {});
  EXPECT_TRUE(meter.available().ok()) << meter.available().reason;
  const double step_ms = s.elapsed_ms();
  s.power_w = [step_ms](double t) { return t < step_ms ? 100.0 : 300.0; };
  meter.begin_window();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const EnergyReading r = meter.end_window();
  EXPECT_TRUE(r.status.ok()) << r.status.reason;
  EXPECT_EQ(r.method, instant_field ? "nvml-instant-power-samples" : "nvml-power-samples");
  return r.energy_mj / r.window_ms;  // mJ / ms = W
}

TEST(NvmlPowerMeterFake, PowerSamplesUseTheInstantaneousField) {
  EXPECT_GT(average_power_w_after_a_step(true), 250.0);
}

TEST(NvmlPowerMeterFake, WithoutTheFieldPowerUsageIsSampled) {
  // The 1-second average lags: this is why the instantaneous field comes first.
  EXPECT_LT(average_power_w_after_a_step(false), 200.0);
}

}  // namespace
}  // namespace cnnperf::gpu
