// SPDX-License-Identifier: Apache-2.0
// The analytical baseline's eager overhead: its file form, and that the bundled file is the
// calibration `cnnperf train e2e --data datasets/e2e_torchvision.csv datasets/e2e_timm.csv.gz`
// gives today.
#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"

namespace cnnperf {
namespace {

TEST(EagerOverheadJson, RoundTripsAndNamesBadFields) {
  EagerOverhead o;
  o.host_ms_per_op = 0.031;
  o.gpu_gap_ms_per_kernel = 0.001;
  o.fixed_ms = 0.7;
  o.h2d_gbs = 12;
  o.training_host_factor = 4.5;
  o.source = "test fixture (synthetic numbers)";
  const EagerOverhead back = eager_overhead_from_json(to_json(o), "x");
  EXPECT_DOUBLE_EQ(back.host_ms_per_op, 0.031);
  EXPECT_DOUBLE_EQ(back.gpu_gap_ms_per_kernel, 0.001);
  EXPECT_DOUBLE_EQ(back.fixed_ms, 0.7);
  EXPECT_DOUBLE_EQ(back.h2d_gbs, 12);
  EXPECT_DOUBLE_EQ(back.training_host_factor, 4.5);
  EXPECT_EQ(back.source, o.source);
  nlohmann::json bad = to_json(o);
  bad.erase("fixed_ms");
  try {
    (void)eager_overhead_from_json(bad, "f.json: eager_overhead");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: eager_overhead.fixed_ms"), std::string::npos);
  }
  bad = to_json(o);
  bad["host_ms_per_op"] = -1;
  EXPECT_THROW((void)eager_overhead_from_json(bad, "x"), InputError);
}

TEST(EagerOverheadCalibration, BundledFileIsTheFitOnAllRowsAndBeatsTheDefaults) {
  const std::vector<std::string> paths = {
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/e2e_torchvision.csv",
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/e2e_timm.csv.gz"};
  // The kernel model's fp16 tensor-core efficiencies, then the overhead on its kernel times.
  const AnalyticalE2eCalibration both = calibrate_analytical_e2e(paths);
  const E2eCalibration& cal = both.e2e;
  const AnalyticalModel analytical(both.params);
  const AnalyticalParams bundled_params = load_analytical_params(
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/eager_overhead.json");
  EXPECT_EQ(bundled_params.tensor_core_fp16_efficiency.size(),
            both.params.tensor_core_fp16_efficiency.size());
  for (const auto& [arch, efficiency] : both.params.tensor_core_fp16_efficiency) {
    ASSERT_TRUE(bundled_params.tensor_core_fp16_efficiency.contains(arch)) << arch;
    EXPECT_NEAR(bundled_params.tensor_core_fp16_efficiency.at(arch), efficiency, 1e-9) << arch;
  }
  const EagerOverhead& bundled = bundled_analytical_overhead();
  EXPECT_NEAR(bundled.host_ms_per_op, cal.overhead.host_ms_per_op, 1e-9);
  EXPECT_NEAR(bundled.gpu_gap_ms_per_kernel, cal.overhead.gpu_gap_ms_per_kernel, 1e-9);
  // A gap is 0 or at least a nanosecond: not the fit's logistic tail (1e-29 ms per kernel,
  // which every --runtime cudnn row would print as its overhead_ms).
  EXPECT_TRUE(cal.overhead.gpu_gap_ms_per_kernel == 0 || cal.overhead.gpu_gap_ms_per_kernel >= 1e-6)
      << cal.overhead.gpu_gap_ms_per_kernel;
  EXPECT_NEAR(bundled.fixed_ms, cal.overhead.fixed_ms, 1e-9);
  EXPECT_NEAR(bundled.training_host_factor, cal.overhead.training_host_factor, 1e-9);
  EXPECT_NEAR(bundled.heavy_op_factor, cal.overhead.heavy_op_factor, 1e-9);
  EXPECT_NEAR(bundled.per_op_overlap, cal.overhead.per_op_overlap, 1e-9);
  EXPECT_NE(bundled.source.find("e2e_torchvision.csv"), std::string::npos) << bundled.source;
  // Each end-to-end GPU with 50 rows or more (five of the seven; the RTX 4090 and 5090 have
  // fewer) has its own host time and kernel-time scale.
  ASSERT_EQ(bundled.per_gpu.size(), 5u);
  ASSERT_EQ(cal.overhead.per_gpu.size(), 5u);
  for (const auto& [gpu, c] : cal.overhead.per_gpu) {
    ASSERT_EQ(bundled.per_gpu.count(gpu), 1u) << gpu;
    EXPECT_NEAR(bundled.per_gpu.at(gpu).host_ms_per_op, c.host_ms_per_op, 1e-9) << gpu;
    EXPECT_NEAR(bundled.per_gpu.at(gpu).kernel_time_scale, c.kernel_time_scale, 1e-9) << gpu;
    EXPECT_EQ(bundled.per_gpu.at(gpu).architecture, c.architecture) << gpu;
  }
  // A GPU without rows gets the shared terms: on these rows (one machine per GPU) they
  // predict a held-out GPU better than its architecture's terms do.
  EXPECT_EQ(bundled.unseen_gpu_terms, cal.overhead.unseen_gpu_terms);
  EXPECT_EQ(cal.overhead.unseen_gpu_terms, UnseenGpuTerms::kShared);
  const auto& choice = cal.report["unseen_gpu_terms"];
  EXPECT_EQ(choice["kept"], "shared");
  EXPECT_LT(choice["leave_gpu_out_mape_pct"]["shared"].get<double>(),
            choice["leave_gpu_out_mape_pct"]["architecture"].get<double>());
  EXPECT_DOUBLE_EQ(choice["leave_gpu_out_mape_pct"]["shared"].get<double>(),
                   cal.report["leave-gpu-out"]["overall"]["mape_pct"].get<double>());
  // Leave-one-GPU-out, the fitted overhead predicts held-out GPUs better than the defaults.
  const auto rows = load_e2e_rows(paths);
  const auto terms = e2e_terms(rows, analytical);
  const double defaults_mape = evaluate_e2e(rows, terms, EagerOverhead{}).overall.mape_pct;
  const double logo_mape = cal.report["leave-gpu-out"]["overall"]["mape_pct"].get<double>();
  EXPECT_LT(logo_mape, defaults_mape);
  EXPECT_EQ(cal.report["leave-gpu-out"]["per_gpu"].size(), 7u);
  // Unseen networks on seen GPUs (the per-GPU terms apply) are predicted better than
  // unseen GPUs (they cannot).
  const double lono_mape = cal.report["leave-network-out"]["overall"]["mape_pct"].get<double>();
  EXPECT_LT(lono_mape, logo_mape);
}

}  // namespace
}  // namespace cnnperf
