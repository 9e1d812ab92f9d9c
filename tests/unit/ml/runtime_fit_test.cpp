// SPDX-License-Identifier: Apache-2.0
// The pytorch-compile / tensorrt overhead fit on SYNTHETIC rows: every latency below is the
// step formula evaluated with known terms (no measurement), so the fit must recover them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/runtime_fit.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {
namespace {

struct Synthetic {
  std::vector<RuntimeRow> rows;
  std::vector<EagerTerms> terms;
};

// The modelled step of a synthetic row: a SingleStream latency is the whole step with the gap
// at the row's GPU clock; an Offline throughput's batches overlap, so it is the kernels alone.
double synthetic_latency_ms(const RuntimeRow& row, const EagerTerms& t, const EagerOverhead& o) {
  if (row.scenario == kOfflineScenario) return t.kernel_ms * o.kernel_time_scale;
  return eager_latency_ms(t, overhead_for_gpu(o, row.gpu));
}

// SYNTHETIC: three GPUs (1.0, 1.5 and 2.0 GHz) x 12 networks, kernel time 0.2-80 ms and
// 40-300 kernels per step.
Synthetic synthetic_rows(const EagerOverhead& truth, std::uint64_t seed) {
  Synthetic s;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_kernel(std::log(0.2), std::log(80.0));
  std::uniform_int_distribution<int> kernels(40, 300);
  double clock_mhz = 1000;
  for (const std::string gpu : {"gpu-a", "gpu-b", "gpu-c"}) {
    for (int n = 0; n < 12; ++n) {
      RuntimeRow row;
      row.network = "net" + std::to_string(n);
      row.gpu.name = gpu;
      row.gpu.boost_clock_mhz = clock_mhz;
      row.runtime = Runtime::kTensorrt;
      row.scenario = n % 2 == 0 ? kSingleStreamScenario : kOfflineScenario;
      row.batch = n % 2 == 0 ? 1 : kOfflinePricedBatch;
      EagerTerms t;
      t.kernel_ms = std::exp(log_kernel(rng));
      t.kernels = kernels(rng);
      t.ops = t.kernels;
      row.latency_ms = synthetic_latency_ms(row, t, truth);
      s.rows.push_back(row);
      s.terms.push_back(t);
    }
    clock_mhz += 500;
  }
  return s;
}

EagerOverhead truth_terms() {
  EagerOverhead truth;
  truth.h2d_gbs = 0;
  truth.host_ms_per_op = 0;
  truth.training_host_factor = 1;
  truth.kernel_time_scale = 0.7;
  truth.gpu_gap_ms_per_kernel = 0.003;
  truth.fixed_ms = 0.15;
  return truth;
}

RuntimeFitSpec spec_without_host() {
  RuntimeFitSpec spec;
  spec.base.h2d_gbs = 0;
  spec.base.host_ms_per_op = 0;
  spec.base.training_host_factor = 1;
  return spec;
}

TEST(RuntimeFit, RecoversTheTermsOfSyntheticSteps) {
  const EagerOverhead truth = truth_terms();
  const Synthetic s = synthetic_rows(truth, 7);
  std::vector<std::size_t> all(s.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const EagerOverhead fit = fit_runtime_overhead(s.rows, s.terms, all, spec_without_host());
  EXPECT_NEAR(fit.kernel_time_scale, 0.7, 0.01);
  EXPECT_NEAR(fit.gpu_gap_ms_per_kernel, 0.003, 3e-4);
  EXPECT_NEAR(fit.fixed_ms, 0.15, 0.02);
  EXPECT_EQ(fit.host_ms_per_op, 0.0);  // not freed by the spec
}

TEST(RuntimeFit, LeaveOneGpuOutPredictsAHeldOutGpuOfTheSameTerms) {
  const Synthetic s = synthetic_rows(truth_terms(), 11);
  std::vector<std::string> gpu_of;
  for (const auto& r : s.rows) gpu_of.push_back(r.gpu.name);
  const std::vector<double> held =
      predict_leave_group_out(s.rows, s.terms, gpu_of, spec_without_host());
  ASSERT_EQ(held.size(), s.rows.size());
  for (std::size_t i = 0; i < held.size(); ++i) {
    EXPECT_NEAR(held[i] / s.rows[i].latency_ms, 1.0, 0.02) << "row " << i;
  }
}

TEST(RuntimeFit, ASecondGpuWithOtherTermsShowsInTheHeldOutError) {
  // SYNTHETIC: gpu-c's kernels run 1.5x slower than the others'; holding it out must miss.
  Synthetic s = synthetic_rows(truth_terms(), 5);
  EagerOverhead slow = truth_terms();
  slow.kernel_time_scale = 1.05;
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    if (s.rows[i].gpu.name == "gpu-c") {
      s.rows[i].latency_ms = synthetic_latency_ms(s.rows[i], s.terms[i], slow);
    }
  }
  std::vector<std::string> gpu_of;
  for (const auto& r : s.rows) gpu_of.push_back(r.gpu.name);
  const std::vector<double> held =
      predict_leave_group_out(s.rows, s.terms, gpu_of, spec_without_host());
  double worst = 0;
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (s.rows[i].gpu.name == "gpu-c") {
      worst = std::max(worst, std::abs(held[i] / s.rows[i].latency_ms - 1.0));
    }
  }
  EXPECT_GT(worst, 0.2);
}

// SYNTHETIC: the gap is 6,000 SM cycles, 6, 4 and 3 us on the three clocks. Fitted in cycles it
// is recovered and a held-out GPU predicted; one gap in ms cannot follow the clocks.
TEST(RuntimeFit, AGapInCyclesIsRecoveredAndFollowsAHeldOutGpusClock) {
  EagerOverhead truth = truth_terms();
  truth.gpu_gap_ms_per_kernel = 0;
  truth.gpu_gap_cycles_per_kernel = 6000;
  const Synthetic s = synthetic_rows(truth, 13);
  std::vector<std::size_t> all(s.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  RuntimeFitSpec cycles = spec_without_host();
  cycles.gap_in_cycles = true;
  const EagerOverhead fit = fit_runtime_overhead(s.rows, s.terms, all, cycles);
  EXPECT_NEAR(fit.gpu_gap_cycles_per_kernel, 6000, 300);
  EXPECT_EQ(fit.gpu_gap_ms_per_kernel, 0.0);
  EXPECT_NEAR(fit.kernel_time_scale, 0.7, 0.01);
  std::vector<std::string> gpu_of;
  for (const auto& r : s.rows) gpu_of.push_back(r.gpu.name);
  double worst_cycles = 0;
  double worst_ms = 0;
  const auto held_cycles = predict_leave_group_out(s.rows, s.terms, gpu_of, cycles);
  const auto held_ms = predict_leave_group_out(s.rows, s.terms, gpu_of, spec_without_host());
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    worst_cycles = std::max(worst_cycles, std::abs(held_cycles[i] / s.rows[i].latency_ms - 1));
    worst_ms = std::max(worst_ms, std::abs(held_ms[i] / s.rows[i].latency_ms - 1));
  }
  EXPECT_LT(worst_cycles, 0.02);
  EXPECT_GT(worst_ms, 0.05);
}

// SYNTHETIC: an Offline row's per-kernel gap and fixed cost overlap other batches: however
// large they are, they do not enter its time.
TEST(RuntimeFit, AnOfflineThroughputIsItsKernelTimeAlone) {
  EagerOverhead truth = truth_terms();
  const Synthetic s = synthetic_rows(truth, 17);
  truth.fixed_ms = 40;
  truth.gpu_gap_ms_per_kernel = 0.04;
  std::vector<std::string> gpu_of;
  for (const auto& r : s.rows) gpu_of.push_back(r.gpu.name);
  std::vector<std::size_t> offline;
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    if (s.rows[i].scenario == kOfflineScenario) offline.push_back(i);
  }
  // Fitted on Offline rows alone, only the kernel-time scale is determined, and it predicts
  // them exactly whatever the other terms.
  RuntimeFitSpec spec = spec_without_host();
  const EagerOverhead fit = fit_runtime_overhead(s.rows, s.terms, offline, spec);
  EXPECT_NEAR(fit.kernel_time_scale, 0.7, 1e-3);
  const auto held = predict_leave_group_out(s.rows, s.terms, gpu_of, spec);
  for (const std::size_t i : offline) {
    EXPECT_NEAR(held[i] / s.rows[i].latency_ms, 1.0, 0.01) << "row " << i;
  }
}

TEST(RuntimeFit, OneGroupIsAnInputError) {
  const Synthetic s = synthetic_rows(truth_terms(), 3);
  const std::vector<std::string> one(s.rows.size(), "gpu-a");
  EXPECT_THROW((void)predict_leave_group_out(s.rows, s.terms, one, spec_without_host()),
               InputError);
  EXPECT_THROW((void)fit_runtime_overhead(s.rows, s.terms, {}, spec_without_host()), InputError);
}

TEST(RuntimeFit, TensorrtPricesInt8WhereTheGpuHasTheRate) {
  GpuSpec gpu;
  gpu.tensor_int8_tops = 624;
  EXPECT_EQ(tensorrt_precision(gpu), DType::kInt8);
  gpu.tensor_int8_tops = 0;
  EXPECT_EQ(tensorrt_precision(gpu), DType::kFp16);
}

TEST(RuntimeFit, TheBundledFilesLoadAndKnowTheirRuntime) {
  for (const Runtime runtime : {Runtime::kPytorchCompile, Runtime::kTensorrt}) {
    const auto overhead = bundled_runtime_overhead(runtime);
    ASSERT_TRUE(overhead.has_value()) << to_string(runtime);
    EXPECT_GT(overhead->kernel_time_scale, 0.0);
    EXPECT_NE(overhead->source.find(to_string(runtime)), std::string::npos) << overhead->source;
  }
  EXPECT_FALSE(bundled_runtime_overhead(Runtime::kPytorch).has_value());
  // A file of the other runtime is refused by kind.
  EXPECT_THROW((void)load_runtime_overhead(
                   std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/tensorrt_overhead.json",
                   Runtime::kPytorchCompile),
               InputError);
}

// The bundled MLPerf rows (measured): the report lists each row with its held-out prediction,
// and its leave-one-GPU-out MAPE is those rows' (an Offline row scored as a throughput).
TEST(RuntimeFit, TheTensorrtReportHoldsEveryRowItScoresLeaveOneGpuOut) {
  const RuntimeCalibration c = calibrate_runtime(
      Runtime::kTensorrt,
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/e2e_mlperf_inference.csv.gz",
      AnalyticalModel());
  EXPECT_GT(c.overhead.gpu_gap_cycles_per_kernel, 0.0);
  EXPECT_EQ(c.overhead.gpu_gap_ms_per_kernel, 0.0);
  const nlohmann::json& logo = c.report.at("leave-gpu-out");
  const nlohmann::json& held = logo.at("held_out");
  ASSERT_EQ(held.size(), c.report.at("rows").get<std::size_t>());
  double sum = 0;
  for (const auto& r : held) {
    double measured = r.at("measured_ms").get<double>();
    double predicted = r.at("predicted_ms").get<double>();
    ASSERT_GT(measured, 0) << r.dump();
    ASSERT_GT(predicted, 0) << r.dump();
    if (r.at("scenario") == kOfflineScenario) {
      const double batch = r.at("batch").get<double>();
      measured = batch / measured;
      predicted = batch / predicted;
    }
    sum += std::abs(predicted - measured) / measured;
  }
  EXPECT_NEAR(100 * sum / static_cast<double>(held.size()),
              logo.at("overall").at("mape_pct").get<double>(), 1e-9);
  // The same held-out steps give the runtime's step interval: every GPU a group, each GPU's
  // steps scored with a table fitted on the other GPUs' alone.
  const nlohmann::json& iv = c.report.at("intervals");
  EXPECT_EQ(iv.at("residuals").get<std::size_t>(), held.size());
  EXPECT_EQ(iv.at("gpus").get<std::size_t>(), c.report.at("gpus").size());
  EXPECT_EQ(iv.at("coverage").at("overall").at("rows").get<std::size_t>(), held.size());
  EXPECT_EQ(iv.at("coverage").at("per_group").size(), c.report.at("gpus").size());
  ASSERT_FALSE(c.step_intervals.empty());
  const auto interval = c.step_intervals.interval(kNetworkIntervalFamily, 2.0);
  ASSERT_TRUE(interval.has_value());
  EXPECT_LT(interval->lo_ms, 2.0);
  EXPECT_GT(interval->hi_ms, 2.0);
  EXPECT_TRUE(to_json(c).contains("step_intervals"));
}

// timm's compiled steps are of two GPUs: a fold would fit one GPU's spread and none between
// GPUs, so the file gets no step table and says why, and scores the eager steps' table that
// predict gives such a step instead.
TEST(RuntimeFit, TwoGpusWriteNoStepIntervalTable) {
  const RuntimeCalibration c = calibrate_runtime(
      Runtime::kPytorchCompile,
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/e2e_timm.csv.gz", AnalyticalModel());
  EXPECT_TRUE(c.step_intervals.empty());
  const nlohmann::json& iv = c.report.at("intervals");
  EXPECT_EQ(iv.at("gpus").get<std::size_t>(), 2U);
  EXPECT_NE(iv.at("table").get<std::string>().find("2 GPUs"), std::string::npos) << iv.dump();
  EXPECT_FALSE(to_json(c).contains("step_intervals"));
  ASSERT_TRUE(bundled_intervals().has_value());
  const nlohmann::json& eager = iv.at("eager_table");
  EXPECT_EQ(eager.at("file").get<std::string>(), kBundledIntervals);
  const nlohmann::json& coverage = eager.at("coverage");
  EXPECT_EQ(coverage.at("rows").get<std::size_t>(), iv.at("residuals").get<std::size_t>());
  EXPECT_EQ(coverage.at("no_interval").get<std::size_t>(), 0U);
  EXPECT_GT(coverage.at("inside").get<std::size_t>(), 0U);
}

TEST(RuntimeFit, TheBundledTensorrtFileHoldsAStepTableAndPredictUsesIt) {
  ASSERT_NE(bundled_runtime_step_intervals(Runtime::kTensorrt), nullptr);
  EXPECT_EQ(bundled_runtime_step_intervals(Runtime::kPytorchCompile), nullptr);
  EXPECT_EQ(bundled_runtime_step_intervals(Runtime::kPytorch), nullptr);
  EXPECT_EQ(bundled_runtime_step_intervals(Runtime::kCudnn), nullptr);
  const auto& table = bundled_intervals();
  ASSERT_TRUE(table.has_value());
  NetworkOptions options;
  options.batch = 1;
  const Network net = build_zoo_network("resnet50", options);
  const GpuSpec gpu = GpuDatabase::bundled().resolve("a100-pcie-40gb");
  const auto model = bundled_analytical_model();
  for (const Runtime runtime : {Runtime::kTensorrt, Runtime::kPytorchCompile, Runtime::kCudnn}) {
    NetworkPrediction p =
        predict_network(net, gpu, *model, Mode::kInference, PowerModel{}, runtime);
    attach_network_intervals(p, *table, kBundledIntervals);
    if (runtime == Runtime::kTensorrt) {
      ASSERT_TRUE(p.latency_interval.has_value());
      EXPECT_LT(p.latency_interval->lo_ms, p.latency_ms);
      EXPECT_GT(p.latency_interval->hi_ms, p.latency_ms);
      EXPECT_NE(p.interval_source.find("tensorrt_overhead.json"), std::string::npos);
    } else if (runtime == Runtime::kPytorchCompile) {
      // No table of its own: the eager steps' cell at the step's predicted time.
      const auto eager = table->interval(kNetworkIntervalFamily, p.latency_ms);
      ASSERT_TRUE(eager.has_value());
      ASSERT_TRUE(p.latency_interval.has_value());
      EXPECT_DOUBLE_EQ(p.latency_interval->lo_ms, eager->lo_ms);
      EXPECT_DOUBLE_EQ(p.latency_interval->hi_ms, eager->hi_ms);
      EXPECT_NE(p.interval_note.find("the eager steps'"), std::string::npos) << p.interval_note;
      // On several GPUs the residuals of one GPU's steps do not apply.
      NetworkPrediction two = p;
      two.eager.num_gpus = 2;
      attach_network_intervals(two, *table, kBundledIntervals);
      EXPECT_FALSE(two.latency_interval.has_value());
    } else {
      EXPECT_FALSE(p.latency_interval.has_value()) << to_string(runtime);
      EXPECT_NE(p.interval_note.find("the step has none under the " + to_string(runtime)),
                std::string::npos)
          << p.interval_note;
    }
  }
}

}  // namespace
}  // namespace cnnperf
