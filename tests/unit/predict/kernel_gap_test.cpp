// SPDX-License-Identifier: Apache-2.0
// A gap between kernels counted in SM cycles (gpu_gap_ms_per_kernel, overhead_for_gpu) and
// its file form, on the synthetic GPU (synthetic_gpu.hpp: not a real GPU).
#include <gtest/gtest.h>

#include <string>

#include "cnnperf/common/error.hpp"
#include "cnnperf/predict/predict.hpp"
#include "synthetic_gpu.hpp"

namespace cnnperf {
namespace {

using test::synthetic_gpu;

TEST(KernelGap, CyclesBecomeMsAtTheGpusBoostClock) {
  EagerOverhead o;
  o.gpu_gap_ms_per_kernel = 0.001;
  o.gpu_gap_cycles_per_kernel = 6000;
  GpuSpec slow = synthetic_gpu();  // 1,500 MHz
  GpuSpec fast = synthetic_gpu();
  fast.boost_clock_mhz = 2000;
  EXPECT_DOUBLE_EQ(gpu_gap_ms_per_kernel(o, slow), 0.001 + 6000 / 1.5e6);
  EXPECT_DOUBLE_EQ(gpu_gap_ms_per_kernel(o, fast), 0.001 + 6000 / 2.0e6);
  // overhead_for_gpu folds it into the ms term, which every step formula reads.
  const EagerOverhead on_fast = overhead_for_gpu(o, fast);
  EXPECT_DOUBLE_EQ(on_fast.gpu_gap_ms_per_kernel, 0.004);
  EXPECT_EQ(on_fast.gpu_gap_cycles_per_kernel, 0.0);
  EXPECT_NE(on_fast.source.find("SM cycles"), std::string::npos) << on_fast.source;
  // A spec built in code without a clock takes the reference clock, as a kernel's cost does.
  GpuSpec unknown = synthetic_gpu();
  unknown.boost_clock_mhz = 0;
  EXPECT_DOUBLE_EQ(gpu_gap_ms_per_kernel(o, unknown),
                   0.001 + 6000 / (kReferenceBoostClockMhz * 1e3));
  o.gpu_gap_cycles_per_kernel = 0;
  EXPECT_DOUBLE_EQ(gpu_gap_ms_per_kernel(o, fast), 0.001);
}

TEST(KernelGap, TheCycleTermIsWrittenWhereSetAndReadBack) {
  EagerOverhead o;
  EXPECT_FALSE(to_json(o).contains("gpu_gap_cycles_per_kernel"));  // files without it stay
  o.gpu_gap_cycles_per_kernel = 6380;
  const nlohmann::json j = to_json(o);
  EXPECT_DOUBLE_EQ(eager_overhead_from_json(j, "o").gpu_gap_cycles_per_kernel, 6380);
  nlohmann::json bad = j;
  bad["gpu_gap_cycles_per_kernel"] = -1;
  try {
    (void)eager_overhead_from_json(bad, "o");
    FAIL() << "a negative gap was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("o.gpu_gap_cycles_per_kernel"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cnnperf
