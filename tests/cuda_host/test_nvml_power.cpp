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
  EXPECT_EQ(r.method, "nvml-power-samples");
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

}  // namespace
}  // namespace cnnperf::gpu
