// SPDX-License-Identifier: Apache-2.0
// A synthetic GPU spec for core tests: round A100-like numbers, not a database entry and not
// a real product, so expectations can be checked by hand.
#pragma once

#include "cnnperf/model/gpu_spec.hpp"

namespace cnnperf::test {

inline GpuSpec synthetic_gpu() {
  GpuSpec g;
  g.name = "synthetic";
  g.display_name = "Synthetic GPU";
  g.architecture = "ampere";
  g.sm_count = 100;
  g.fp32_cores_per_sm = 64;
  g.boost_clock_mhz = 1500;
  g.fp32_tflops = 19.2;
  g.fp16_tflops = 76.8;
  g.tensor_fp16_tflops = 307.2;
  g.memory_bandwidth_gbs = 1500;
  g.l2_cache_mb = 40;
  g.shared_mem_per_sm_kb = 164;
  g.registers_per_sm = 65536;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  g.tdp_w = 400;
  g.idle_power_w = 50;
  return g;
}

}  // namespace cnnperf::test
