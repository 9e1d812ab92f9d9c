// SPDX-License-Identifier: Apache-2.0
// nn.DataParallel steps: what each GPU beyond the first adds (weights broadcast, every
// replica's ops, gradient reduce), fitted on multi-GPU rows, applied by --num-gpus.
// The rows below are SYNTHETIC: latencies generated from known terms, not measurements.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "synthetic_e2e.hpp"

namespace cnnperf {
namespace {

using testing::every_row;
using testing::named_gpu;
using testing::synthetic_e2e_rows;
using testing::SyntheticE2e;
using testing::two_machine_truth;

// Two machines: gpu-a with cheap broadcasts (a fast link), gpu-b with a slow one (SYNTHETIC).
EagerOverhead data_parallel_truth() {
  EagerOverhead truth = two_machine_truth();
  truth.data_parallel = {2.0, 0.03, 0.05, 0.08, 0.04, 1};
  truth.data_parallel_per_gpu["gpu-a"] = {0.5, 0.001, 0.002, 0.09, 0.03, 1};
  truth.data_parallel_per_gpu["gpu-b"] = {3.0, 0.07, 0.1, 0.06, 0.045, 1};
  return truth;
}

TEST(EagerOverheadDataParallel, EachExtraGpuAddsItsTerms) {
  EagerOverhead o = data_parallel_truth();
  o.source = "test fixture (synthetic numbers)";
  EagerTerms t{10.0, 100, 100, 2e6, false, 50e6, 1, 0, {}};
  const EagerOverhead b = overhead_for_gpu(o, named_gpu("gpu-b"));
  EXPECT_DOUBLE_EQ(b.data_parallel.fixed_ms, 3.0);
  EXPECT_TRUE(b.data_parallel_per_gpu.empty());
  EXPECT_DOUBLE_EQ(overhead_for_gpu(o, named_gpu("gpu-c")).data_parallel.fixed_ms, 2.0);
  // Shared terms describe PCIe: an NVLink GPU without terms of its own pays 15.75/315 of the
  // weight broadcast; a machine's own terms are its own link's and stay as fitted.
  GpuSpec nvlink = named_gpu("gpu-c");
  nvlink.nvlink_gbs = 315;
  const DataParallelTerms scaled = overhead_for_gpu(o, nvlink).data_parallel;
  EXPECT_DOUBLE_EQ(scaled.ms_per_weight_mb, 0.03 * 0.05);
  EXPECT_DOUBLE_EQ(scaled.training_ms_per_weight_mb, 0.05 * 0.05);
  EXPECT_DOUBLE_EQ(scaled.host_ms_per_op, 0.08);
  GpuSpec own = named_gpu("gpu-b");
  own.nvlink_gbs = 315;
  EXPECT_DOUBLE_EQ(overhead_for_gpu(o, own).data_parallel.ms_per_weight_mb, 0.07);
  const double one = eager_latency_ms(t, b);
  const double copy_ms = 2e6 / (b.h2d_gbs * 1e6);
  t.num_gpus = 3;
  // Two extra GPUs: fixed + 50 MB of weights + 100 ops each; the input copy grows with the
  // global batch.
  EXPECT_NEAR(eager_latency_ms(t, b) - one, 2 * (3.0 + 50 * 0.07 + 100 * 0.06) + 2 * copy_ms, 1e-9);
  t.training = true;
  t.num_gpus = 1;
  const double one_training = eager_latency_ms(t, b);
  t.num_gpus = 2;
  EXPECT_NEAR(eager_latency_ms(t, b) - one_training,
              3.0 + 50 * (0.07 + 0.1) + 100 * (0.06 + 0.045) + copy_ms, 1e-9);
}

TEST(EagerOverheadDataParallel, RoundTripsThroughJsonAndReadsFilesWithoutIt) {
  EagerOverhead o = data_parallel_truth();
  o.source = "test fixture (synthetic numbers)";
  const EagerOverhead back = eager_overhead_from_json(to_json(o), "x");
  EXPECT_DOUBLE_EQ(back.data_parallel.ms_per_weight_mb, 0.03);
  EXPECT_EQ(back.data_parallel.rows, 1);
  ASSERT_EQ(back.data_parallel_per_gpu.size(), 2u);
  EXPECT_DOUBLE_EQ(back.data_parallel_per_gpu.at("gpu-b").training_host_ms_per_op, 0.045);

  nlohmann::json old = to_json(o);  // a file without the data-parallel terms
  old.erase("data_parallel");
  old.erase("data_parallel_per_gpu");
  const EagerOverhead plain = eager_overhead_from_json(old, "x");
  EXPECT_EQ(plain.data_parallel.rows, 0);
  EXPECT_TRUE(plain.data_parallel_per_gpu.empty());

  nlohmann::json bad = to_json(o);
  bad["data_parallel_per_gpu"]["gpu-a"]["host_ms_per_op"] = -1;
  testing::expect_overhead_error_naming(bad, "data_parallel_per_gpu.gpu-a.host_ms_per_op");
}

// SYNTHETIC rows: 12 networks, both modes, on one to four GPUs of two machines.
SyntheticE2e synthetic_rows(const EagerOverhead& truth) {
  SyntheticE2e d =
      synthetic_e2e_rows(truth, {{"gpu-a", 240}, {"gpu-b", 240}}, 5, [](int i, E2eRow& row) {
        row.network = "net" + std::to_string(i % 12);
        row.mode = (i / 12) % 2 == 0 ? Mode::kInference : Mode::kTraining;
        row.num_gpus = 1 + (i / 24) % 4;
      });
  // Weights differ by network; the latencies are recomputed with them (and num_gpus).
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    d.terms[i].weight_bytes = 1e6 * (5 + 20 * (i % 12));
    d.terms[i].num_gpus = d.rows[i].num_gpus;
    d.rows[i].latency_ms = eager_latency_ms(d.terms[i], overhead_for_gpu(truth, d.rows[i].gpu));
  }
  return d;
}

TEST(EagerOverheadDataParallel, CalibrationRecoversEachMachinesTerms) {
  const SyntheticE2e d = synthetic_rows(data_parallel_truth());
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, every_row(d));
  EXPECT_EQ(fit.data_parallel.rows, 336);  // 168 of each GPU's 240 rows have 2-4 GPUs
  ASSERT_EQ(fit.data_parallel_per_gpu.size(), 2u);
  const auto& a = fit.data_parallel_per_gpu.at("gpu-a");
  const auto& b = fit.data_parallel_per_gpu.at("gpu-b");
  EXPECT_EQ(b.rows, 168);
  EXPECT_NEAR(b.ms_per_weight_mb, 0.07, 0.01);
  EXPECT_NEAR(b.host_ms_per_op, 0.06, 0.01);
  EXPECT_NEAR(b.training_host_ms_per_op, 0.045, 0.01);
  EXPECT_LT(a.ms_per_weight_mb, 0.01);  // the fast link
  const E2eEvaluation ev = evaluate_e2e(d.rows, d.terms, fit);
  EXPECT_EQ(ev.data_parallel_rows, 336u);
  EXPECT_LT(ev.data_parallel.mape_pct, 3.0);
  EXPECT_EQ(ev.overall.n, 144u);  // the single-GPU rows
  // Stages one to three read the single-GPU rows only: the same fit without the others.
  std::vector<std::size_t> single;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    if (d.rows[i].num_gpus == 1) single.push_back(i);
  }
  const EagerOverhead single_fit = calibrate_overhead(d.rows, d.terms, single);
  EXPECT_EQ(single_fit.data_parallel.rows, 0);
  EXPECT_DOUBLE_EQ(single_fit.host_ms_per_op, fit.host_ms_per_op);
  EXPECT_DOUBLE_EQ(single_fit.per_gpu.at("gpu-b").kernel_time_scale,
                   fit.per_gpu.at("gpu-b").kernel_time_scale);
  EXPECT_DOUBLE_EQ(evaluate_e2e(d.rows, d.terms, single_fit).overall.mape_pct, ev.overall.mape_pct);
  // A held-out machine gets the shared terms: worse on its 2-4 GPU rows than its own.
  const E2eEvaluation logo = evaluate_e2e_leave_gpu_out(d.rows, d.terms);
  EXPECT_GT(logo.data_parallel_per_gpu.at("gpu-b").mape_pct,
            ev.data_parallel_per_gpu.at("gpu-b").mape_pct);
}

TEST(EagerOverheadDataParallel, SetNumGpusRecomputesTheStepAndChecksItsInput) {
  const auto gpu = GpuDatabase::bundled().find("titan-rtx");
  ASSERT_TRUE(gpu);
  NetworkOptions options;
  options.batch = 12;
  const Network net = build_zoo_network("resnet50", options);
  EagerOverhead overhead = data_parallel_truth();
  overhead.source = "test fixture (synthetic numbers)";
  const AnalyticalModel model(AnalyticalParams{}, overhead);
  const NetworkPrediction one = predict_network(net, *gpu, model, Mode::kInference, PowerModel{});
  EXPECT_EQ(one.eager.num_gpus, 1);
  EXPECT_NEAR(one.eager.weight_bytes, 4.0 * 25557032, 4.0 * 25557032 * 0.01);  // ResNet-50
  NetworkPrediction four = one;
  set_num_gpus(four, 4, PowerModel{});
  const double copy_ms = one.eager.input_bytes / (overhead.h2d_gbs * 1e6);
  EXPECT_NEAR(four.latency_ms - one.latency_ms,
              3 * (2.0 + one.eager.weight_bytes / 1e6 * 0.03 + one.eager.ops * 0.08 + copy_ms),
              1e-6);
  EXPECT_DOUBLE_EQ(four.kernel_ms, one.kernel_ms);  // per GPU
  EXPECT_GT(four.energy_j, 3.5 * one.energy_j);     // four GPUs, each busy longer
  EXPECT_THROW(apply_power_limit(four, 200, PowerModel{}), InputError);

  NetworkPrediction bad = one;
  EXPECT_THROW(set_num_gpus(bad, 0, PowerModel{}), InputError);
  EXPECT_THROW(set_num_gpus(bad, kMaxDataParallelGpus + 1, PowerModel{}), InputError);
  // A model calibrated without data-parallel terms cannot say.
  EagerOverhead old = overhead;
  old.data_parallel = {};
  old.data_parallel_per_gpu.clear();
  const AnalyticalModel old_model(AnalyticalParams{}, old);
  NetworkPrediction uncalibrated =
      predict_network(net, *gpu, old_model, Mode::kInference, PowerModel{});
  EXPECT_THROW(set_num_gpus(uncalibrated, 2, PowerModel{}), InputError);
  EXPECT_NO_THROW(set_num_gpus(uncalibrated, 1, PowerModel{}));
}

TEST(EagerOverheadDataParallel, LoadingRowsChecksTheGpuCount) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto path = dir / ("cnnperf_dp_rows_" + std::to_string(::getpid()) + ".csv");
  const std::string header = "network,gpu,num_gpus,batch,dtype,mode,latency_ms\n";
  {
    // SYNTHETIC: two invented latencies; only the num_gpus column is under test.
    std::ofstream(path) << header << "resnet18,TITAN RTX,1,12,fp32,inference,9.5\n"
                        << "resnet18,TITAN RTX,3,12,fp32,inference,30.1\n";
  }
  const auto rows = load_e2e_rows(path.string());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].num_gpus, 1);
  EXPECT_EQ(rows[1].num_gpus, 3);
  EXPECT_NO_THROW(require_single_gpu_rows(rows, path.string()));
  // Multi-GPU rows alone have nothing to add to: an input error, as in train and validate.
  const std::vector<E2eRow> multi_only(rows.begin() + 1, rows.end());
  EXPECT_THROW(require_single_gpu_rows(multi_only, path.string()), InputError);
  for (const std::string bad : {"0", "2.5", "99"}) {
    { std::ofstream(path) << header << "resnet18,TITAN RTX," << bad << ",12,fp32,inference,9\n"; }
    try {
      (void)load_e2e_rows(path.string());
      ADD_FAILURE() << "expected InputError for num_gpus " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(":2: field 'num_gpus'"), std::string::npos) << e.what();
    }
  }
  // A network outside the zoo and a non-positive time are left out (and said); an empty cell
  // is an error naming the line and field (it was read through an empty optional).
  {
    // SYNTHETIC: invented latencies; only which rows load is under test.
    std::ofstream(path) << header << "resnet18,TITAN RTX,1,12,fp32,inference,9.5\n"
                        << "nosuchnet,TITAN RTX,1,12,fp32,inference,9.5\n"
                        << "resnet18,TITAN RTX,1,12,fp32,inference,0\n";
  }
  EXPECT_EQ(load_e2e_rows(path.string()).size(), 1u);
  for (const std::string row :
       {"resnet18,TITAN RTX,1,,fp32,inference,9.5", "resnet18,TITAN RTX,1,12,fp32,inference,",
        ",TITAN RTX,1,12,fp32,inference,9.5", "resnet18,,1,12,fp32,inference,9.5"}) {
    { std::ofstream(path) << header << row << "\n"; }
    try {
      (void)load_e2e_rows(path.string());
      ADD_FAILURE() << "expected InputError for " << row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(":2: field '"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("': expected a "), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cnnperf
