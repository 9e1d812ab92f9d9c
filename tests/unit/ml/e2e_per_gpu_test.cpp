// SPDX-License-Identifier: Apache-2.0
// Per-GPU end-to-end calibration: a GPU with its own end-to-end rows gets its measuring
// machine's host time per op and kernel-time scale; other GPUs keep the shared terms.
// The rows below are SYNTHETIC: latencies generated from known terms, not measurements.
#include <gtest/gtest.h>

#include <cmath>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "synthetic_e2e.hpp"

namespace cnnperf {
namespace {

using testing::every_row;
using testing::named_gpu;
using testing::synthetic_e2e_rows;
using testing::SyntheticE2e;
using testing::two_machine_truth;

TEST(EagerOverheadPerGpu, AppliesAGpusOwnTermsAndKeepsTheSharedOnesForOthers) {
  EagerOverhead o = two_machine_truth();
  o.gpu_gap_ms_per_kernel = 0.001;
  o.source = "test fixture (synthetic numbers)";
  const EagerOverhead b = overhead_for_gpu(o, named_gpu("gpu-b"));
  EXPECT_DOUBLE_EQ(b.host_ms_per_op, 0.07);
  EXPECT_DOUBLE_EQ(b.fixed_ms, 2.0);
  EXPECT_DOUBLE_EQ(b.training_host_factor, 6.0);
  EXPECT_DOUBLE_EQ(b.kernel_time_scale, 1.3);
  EXPECT_DOUBLE_EQ(b.gpu_gap_ms_per_kernel, 0.001);  // shared
  EXPECT_TRUE(b.per_gpu.empty());
  EXPECT_NE(b.source.find("gpu-b fitted on its 120 end-to-end rows"), std::string::npos);
  const EagerOverhead c = overhead_for_gpu(o, named_gpu("gpu-c"));  // no terms of its own
  EXPECT_DOUBLE_EQ(c.host_ms_per_op, 0.04);
  EXPECT_DOUBLE_EQ(c.fixed_ms, 1.0);
  EXPECT_DOUBLE_EQ(c.kernel_time_scale, 1.0);
  EXPECT_EQ(c.source, o.source);

  // The scale multiplies kernel time on the GPU side of the formula, not the host side.
  EagerTerms gpu_bound{10.0, 100, 100, 0, false, 0, 1, 0, {}};
  EXPECT_NEAR(eager_latency_ms(gpu_bound, b), 2.0 + 10.0 * 1.3 + 100 * 0.001, 1e-12);
  EXPECT_NEAR(eager_latency_ms(gpu_bound, c), 1.0 + 10.0 + 100 * 0.001, 1e-12);
  EagerTerms host_bound{1.0, 100, 100, 0, false, 0, 1, 0, {}};
  EXPECT_NEAR(eager_latency_ms(host_bound, b), 2.0 + 100 * 0.07, 1e-12);
  host_bound.training = true;
  EXPECT_NEAR(eager_latency_ms(host_bound, b), 2.0 + 100 * 0.07 * 6.0, 1e-12);
}

TEST(EagerOverheadPerGpu, RoundTripsThroughJsonAndReadsFilesWithoutIt) {
  EagerOverhead o = two_machine_truth();
  o.source = "test fixture (synthetic numbers)";
  const EagerOverhead back = eager_overhead_from_json(to_json(o), "x");
  ASSERT_EQ(back.per_gpu.size(), 2u);
  EXPECT_DOUBLE_EQ(back.per_gpu.at("gpu-b").host_ms_per_op, 0.07);
  EXPECT_DOUBLE_EQ(back.per_gpu.at("gpu-b").fixed_ms, 2.0);
  EXPECT_DOUBLE_EQ(back.per_gpu.at("gpu-b").training_host_factor, 6.0);
  EXPECT_DOUBLE_EQ(back.per_gpu.at("gpu-b").kernel_time_scale, 1.3);
  EXPECT_EQ(back.per_gpu.at("gpu-b").rows, 120);

  nlohmann::json old = to_json(o);  // a file without the per-GPU terms
  old.erase("per_gpu");
  old.erase("kernel_time_scale");
  const EagerOverhead plain = eager_overhead_from_json(old, "x");
  EXPECT_TRUE(plain.per_gpu.empty());
  EXPECT_DOUBLE_EQ(plain.kernel_time_scale, 1.0);

  nlohmann::json bad = to_json(o);
  bad["per_gpu"]["gpu-a"]["kernel_time_scale"] = 0;
  testing::expect_overhead_error_naming(bad, "per_gpu.gpu-a");
  bad = to_json(o);
  bad["per_gpu"]["gpu-a"].erase("rows");
  EXPECT_THROW((void)eager_overhead_from_json(bad, "x"), InputError);
}

// SYNTHETIC rows from known terms: two machines with different host speeds and kernel
// efficiencies, and a third GPU with too few rows for terms of its own.
SyntheticE2e synthetic_rows(const EagerOverhead& truth) {
  return synthetic_e2e_rows(
      truth, {{"gpu-a", 120}, {"gpu-b", 120}, {"gpu-c", 20}}, 7,
      [](int i, E2eRow& row) {
        row.network = "net" + std::to_string(i % 12);
        row.mode = i % 2 == 0 ? Mode::kInference : Mode::kTraining;
      },
      1.8e6);
}

TEST(EagerOverheadPerGpu, CalibrationRecoversEachMachinesTerms) {
  EagerOverhead truth = two_machine_truth();
  truth.per_gpu["gpu-c"] = {0.04, 1.0, 4.0, 1.0, 20, {}};
  const SyntheticE2e d = synthetic_rows(truth);
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, every_row(d));
  ASSERT_EQ(fit.per_gpu.count("gpu-a"), 1u);
  ASSERT_EQ(fit.per_gpu.count("gpu-b"), 1u);
  EXPECT_EQ(fit.per_gpu.count("gpu-c"), 0u) << "20 rows are too few for terms of its own";
  EXPECT_NEAR(fit.per_gpu.at("gpu-a").host_ms_per_op, 0.03, 0.003);
  EXPECT_NEAR(fit.per_gpu.at("gpu-a").kernel_time_scale, 0.8, 0.05);
  EXPECT_NEAR(fit.per_gpu.at("gpu-b").host_ms_per_op, 0.07, 0.007);
  EXPECT_NEAR(fit.per_gpu.at("gpu-b").kernel_time_scale, 1.3, 0.08);
  EXPECT_NEAR(fit.per_gpu.at("gpu-a").training_host_factor, 3.0, 0.3);
  EXPECT_NEAR(fit.per_gpu.at("gpu-b").training_host_factor, 6.0, 0.6);
  EXPECT_NEAR(fit.per_gpu.at("gpu-a").fixed_ms, 0.5, 0.1);
  EXPECT_NEAR(fit.per_gpu.at("gpu-b").fixed_ms, 2.0, 0.2);
  EXPECT_EQ(fit.per_gpu.at("gpu-a").rows, 120);
  // In sample, the per-GPU terms reproduce the two machines' rows closely.
  const E2eEvaluation ev = evaluate_e2e(d.rows, d.terms, fit);
  EXPECT_LT(ev.per_gpu.at("gpu-a").mape_pct, 3.0);
  EXPECT_LT(ev.per_gpu.at("gpu-b").mape_pct, 3.0);
}

TEST(EagerOverheadPerGpu, AFitEndingAtABoundStillGivesFiniteTermsPerGpu) {
  // The shared fit ends at the training factor's upper bound (10) and near zero fixed cost, as
  // with the learned model's kernel times; stage two must start from finite values.
  EagerOverhead truth;
  truth.host_ms_per_op = 0.02;
  truth.gpu_gap_ms_per_kernel = 0.0;
  truth.fixed_ms = 1e-6;
  truth.training_host_factor = 10;
  truth.per_gpu["gpu-a"] = {0.02, 1e-6, 10.0, 0.6, 120, {}};
  truth.per_gpu["gpu-b"] = {0.03, 1e-6, 10.0, 0.9, 120, {}};
  const SyntheticE2e d = synthetic_rows(truth);
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, every_row(d));
  ASSERT_EQ(fit.per_gpu.size(), 2u);
  for (const auto& [gpu, c] : fit.per_gpu) {
    EXPECT_TRUE(std::isfinite(c.host_ms_per_op) && std::isfinite(c.fixed_ms) &&
                std::isfinite(c.training_host_factor) && std::isfinite(c.kernel_time_scale))
        << gpu;
  }
  EXPECT_NEAR(fit.per_gpu.at("gpu-a").kernel_time_scale, 0.6, 0.05);
  // The JSON form of such a fit reads back (a NaN would be written as null).
  EXPECT_NO_THROW((void)eager_overhead_from_json(to_json(fit), "x"));
}

TEST(EagerOverheadPerGpu, LeaveNetworkOutPredictsEveryRowFromFitsWithoutItsNetwork) {
  const SyntheticE2e d = synthetic_rows(two_machine_truth());
  const E2eEvaluation lono = evaluate_e2e_leave_network_out(d.rows, d.terms);
  ASSERT_EQ(lono.predicted_ms.size(), d.rows.size());
  for (const double p : lono.predicted_ms) EXPECT_GT(p, 0);
  // The synthetic rows follow the formula exactly, so held-out networks are predicted well
  // on the two GPUs with their own terms; leave-one-GPU-out cannot know them.
  const E2eEvaluation logo = evaluate_e2e_leave_gpu_out(d.rows, d.terms);
  EXPECT_LT(lono.per_gpu.at("gpu-b").mape_pct, 3.0);
  EXPECT_GT(logo.per_gpu.at("gpu-b").mape_pct, 10.0);
}

TEST(EagerOverheadPerGpu, SharedTermsWeighEachGpuEquallyNotEachRow) {
  // SYNTHETIC: three machines differing only in host time per op; the fast one has three
  // times the rows of each other. The shared terms stand for an unknown machine, so they must
  // sit with the middle machine (0.04), not with the one measured most (0.02).
  EagerOverhead truth = two_machine_truth();  // shared: 0.04 ms per op, 1 ms per step
  truth.per_gpu.clear();
  truth.per_gpu["gpu-fast"] = {0.02, 1.0, 4.0, 1.0, 300, {}};
  truth.per_gpu["gpu-mid"] = {0.04, 1.0, 4.0, 1.0, 100, {}};
  truth.per_gpu["gpu-slow"] = {0.05, 1.0, 4.0, 1.0, 100, {}};
  const SyntheticE2e d =
      synthetic_e2e_rows(truth, {{"gpu-fast", 300}, {"gpu-mid", 100}, {"gpu-slow", 100}}, 11,
                         [](int i, E2eRow& row) { row.network = "net" + std::to_string(i % 12); });
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, every_row(d));
  EXPECT_NEAR(fit.host_ms_per_op, 0.04, 0.006);
  // Each machine keeps its own terms.
  EXPECT_NEAR(fit.per_gpu.at("gpu-fast").host_ms_per_op, 0.02, 0.002);
}

// SYNTHETIC terms: two GPUs of one architecture with terms of their own, one of another.
EagerOverhead three_gpus_two_architectures() {
  EagerOverhead o = two_machine_truth();  // shared: 0.04 ms per op, 1 ms, factor 4, scale 1
  o.per_gpu["gpu-a"].architecture = "alpha";
  o.per_gpu["gpu-b"].architecture = "alpha";
  o.per_gpu["gpu-z"] = {0.5, 9.0, 9.0, 1.9, 120, "omega"};
  o.source = "test fixture (synthetic numbers)";
  return o;
}

GpuSpec gpu_of(const std::string& name, const std::string& architecture) {
  GpuSpec g = named_gpu(name);
  g.architecture = architecture;
  return g;
}

TEST(EagerOverheadUnseenGpu, ArchitectureTermsAreTheMeanOfItsGenerationsGpus) {
  EagerOverhead o = three_gpus_two_architectures();
  o.unseen_gpu_terms = UnseenGpuTerms::kArchitecture;
  const EagerOverhead c = overhead_for_gpu(o, gpu_of("gpu-c", "alpha"));
  // gpu-a {0.03, 0.5, 3, 0.8} and gpu-b {0.07, 2.0, 6, 1.3}: geometric means, factor averaged.
  EXPECT_NEAR(c.host_ms_per_op, std::sqrt(0.03 * 0.07), 1e-12);
  EXPECT_NEAR(c.fixed_ms, std::sqrt(0.5 * 2.0), 1e-12);
  EXPECT_NEAR(c.kernel_time_scale, std::sqrt(0.8 * 1.3), 1e-12);
  EXPECT_NEAR(c.training_host_factor, 4.5, 1e-12);
  EXPECT_EQ(c.terms_architecture, "alpha");  // predict's table says whose terms these are
  EXPECT_EQ(eager_overhead_from_json(to_json(c), "x").terms_architecture, "alpha");
  EXPECT_NE(c.source.find("its architecture's (alpha) 2 GPUs with end-to-end rows (gpu-a, gpu-b)"),
            std::string::npos)
      << c.source;
  // A GPU of its own keeps its terms; one of an architecture without rows, or with none
  // named, gets the shared ones.
  EXPECT_DOUBLE_EQ(overhead_for_gpu(o, gpu_of("gpu-a", "alpha")).host_ms_per_op, 0.03);
  for (const GpuSpec& g : {gpu_of("gpu-d", "delta"), gpu_of("gpu-e", "")}) {
    const EagerOverhead shared = overhead_for_gpu(o, g);
    EXPECT_DOUBLE_EQ(shared.host_ms_per_op, 0.04) << g.name;
    EXPECT_DOUBLE_EQ(shared.kernel_time_scale, 1.0) << g.name;
    EXPECT_EQ(shared.source, o.source) << g.name;
    EXPECT_TRUE(shared.terms_architecture.empty()) << g.name;
  }
  // Under the shared policy (the default) the generation does not matter.
  o.unseen_gpu_terms = UnseenGpuTerms::kShared;
  EXPECT_DOUBLE_EQ(overhead_for_gpu(o, gpu_of("gpu-c", "alpha")).host_ms_per_op, 0.04);
}

TEST(EagerOverheadUnseenGpu, PolicyAndArchitecturesRoundTripThroughJson) {
  EagerOverhead o = three_gpus_two_architectures();
  o.unseen_gpu_terms = UnseenGpuTerms::kArchitecture;
  const EagerOverhead back = eager_overhead_from_json(to_json(o), "x");
  EXPECT_EQ(back.unseen_gpu_terms, UnseenGpuTerms::kArchitecture);
  EXPECT_EQ(back.per_gpu.at("gpu-a").architecture, "alpha");
  EXPECT_EQ(back.per_gpu.at("gpu-z").architecture, "omega");
  // A file without either key: the shared policy, and a database GPU's architecture read
  // from the database (a name outside it stays without one).
  nlohmann::json old = to_json(o);
  old.erase("unseen_gpu_terms");
  old["per_gpu"]["titan-xp"] = old["per_gpu"]["gpu-a"];
  for (auto& [gpu, c] : old["per_gpu"].items()) c.erase("architecture");
  const EagerOverhead before = eager_overhead_from_json(old, "x");
  EXPECT_EQ(before.unseen_gpu_terms, UnseenGpuTerms::kShared);
  EXPECT_EQ(before.per_gpu.at("titan-xp").architecture, "pascal");
  EXPECT_EQ(before.per_gpu.at("gpu-a").architecture, "");
  nlohmann::json bad = to_json(o);
  bad["unseen_gpu_terms"] = "nearest";
  testing::expect_overhead_error_naming(bad, "unseen_gpu_terms");
  bad["unseen_gpu_terms"] = 1;
  testing::expect_overhead_error_naming(bad, "unseen_gpu_terms");
  bad = to_json(o);
  bad["per_gpu"]["gpu-a"]["architecture"] = 3;
  testing::expect_overhead_error_naming(bad, "per_gpu.gpu-a.architecture");
  EXPECT_THROW((void)unseen_gpu_terms_from_string("Shared"), InputError);
}

// Another board of a chip with terms of its own (an A100-PCIe beside the DGX's A100-SXM4) runs
// the same kernels: it takes that board's kernel-time scale, and the host terms of a GPU
// without rows, since those are the machine's.
TEST(EagerOverheadUnseenGpu, AnotherBoardOfACalibratedChipTakesItsKernelTimeScale) {
  EagerOverhead o;  // SYNTHETIC terms
  o.host_ms_per_op = 0.03;
  o.fixed_ms = 1.0;
  GpuEagerCalibration sxm4;
  sxm4.host_ms_per_op = 0.05;
  sxm4.fixed_ms = 0.5;
  sxm4.kernel_time_scale = 1.3;
  sxm4.rows = 108;
  sxm4.architecture = "ampere";
  o.per_gpu["a100-sxm4-40gb"] = sxm4;
  const GpuSpec pcie = *GpuDatabase::bundled().find("a100-pcie-40gb");
  const EagerOverhead board = overhead_for_gpu(o, pcie);
  EXPECT_DOUBLE_EQ(board.kernel_time_scale, 1.3);
  EXPECT_DOUBLE_EQ(board.host_ms_per_op, 0.03);
  EXPECT_DOUBLE_EQ(board.fixed_ms, 1.0);
  EXPECT_EQ(board.kernel_time_scale_board, "a100-sxm4-40gb");
  EXPECT_NE(board.source.find("that of a100-sxm4-40gb, another board of its chip, fitted on its "
                              "108 end-to-end rows"),
            std::string::npos)
      << board.source;
  EXPECT_EQ(eager_overhead_from_json(to_json(board), "x").kernel_time_scale_board,
            "a100-sxm4-40gb");
  // Another chip of its architecture (an A10) does not; the calibrated board keeps its own.
  const EagerOverhead other = overhead_for_gpu(o, *GpuDatabase::bundled().find("a10"));
  EXPECT_DOUBLE_EQ(other.kernel_time_scale, 1.0);
  EXPECT_TRUE(other.kernel_time_scale_board.empty());
  const EagerOverhead own = overhead_for_gpu(o, *GpuDatabase::bundled().find("a100-sxm4-40gb"));
  EXPECT_DOUBLE_EQ(own.host_ms_per_op, 0.05);
  EXPECT_TRUE(own.kernel_time_scale_board.empty());
}

TEST(EagerOverheadUnseenGpu, LeaveGpuOutScoresEachPolicyOnTheSameFits) {
  // SYNTHETIC rows: one machine held both "alpha" GPUs and another both "omega" ones, as
  // HELP's did for each generation. A held-out GPU is then predicted from its sibling's
  // terms far better than from terms shared with the other machine.
  EagerOverhead truth = two_machine_truth();
  truth.per_gpu.clear();
  truth.per_gpu["a1"] = {0.02, 0.5, 3.0, 0.8, 100, "alpha"};
  truth.per_gpu["a2"] = {0.02, 0.5, 3.0, 0.8, 100, "alpha"};
  truth.per_gpu["o1"] = {0.08, 2.0, 6.0, 1.3, 100, "omega"};
  truth.per_gpu["o2"] = {0.08, 2.0, 6.0, 1.3, 100, "omega"};
  const SyntheticE2e d = synthetic_e2e_rows(
      truth, {{"a1", 100}, {"a2", 100}, {"o1", 100}, {"o2", 100}}, 5, [](int i, E2eRow& row) {
        row.network = "net" + std::to_string(i % 12);
        row.mode = i % 2 == 0 ? Mode::kInference : Mode::kTraining;
        row.gpu.architecture = row.gpu_name[0] == 'a' ? "alpha" : "omega";
      });
  const E2eEvaluation shared = evaluate_e2e_leave_gpu_out(d.rows, d.terms);
  const E2eEvaluation generation =
      evaluate_e2e_leave_gpu_out(d.rows, d.terms, UnseenGpuTerms::kArchitecture);
  EXPECT_LT(generation.overall.mape_pct, 2.0);
  EXPECT_GT(shared.overall.mape_pct, 10.0);
}

}  // namespace
}  // namespace cnnperf
