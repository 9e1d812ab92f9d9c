// SPDX-License-Identifier: Apache-2.0
// The per-op overlap term of the end-to-end formula: per_op_overlap x the sum over ops of
// max(host, GPU) + (1 - per_op_overlap) x max(all host, all GPU). Every latency below is
// SYNTHETIC (the formula evaluated with known terms): none is a measurement.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/zoo.hpp"
#include "synthetic_e2e.hpp"

namespace cnnperf {
namespace {

using testing::named_gpu;

LayerPrediction kernel(double ms, int kernels = 1) {
  LayerPrediction p;
  p.kernel_ms = ms;
  p.kernels = kernels;
  return p;
}

Layer layer_of(Op op) {
  Layer l;
  l.op = op;
  return l;
}

TEST(EagerPerOp, OpCostsMergeIdenticalOpsAndSkipOpsWithoutKernels) {
  const std::vector<Layer> layers{layer_of(Op::kConv2d),  layer_of(Op::kRelu),
                                  layer_of(Op::kConv2d),  layer_of(Op::kRelu),
                                  layer_of(Op::kFlatten), layer_of(Op::kConv2d)};
  const std::vector<LayerPrediction> predictions{kernel(0.5), kernel(0.1),    kernel(0.5),
                                                 kernel(0.1), kernel(0.0, 0), kernel(0.5, 2)};
  const auto costs = eager_op_costs(layers, predictions);
  ASSERT_EQ(costs.size(), 3U);  // relu 0.1 x2, conv 0.5 x2, conv 0.5 with 2 kernels
  int ops = 0;
  int heavy = 0;
  for (const auto& c : costs) {
    ops += c.count;
    heavy += c.heavy ? c.count : 0;
    if (!c.heavy) {
      EXPECT_DOUBLE_EQ(c.kernel_ms, 0.1);
      EXPECT_EQ(c.count, 2);
    }
  }
  EXPECT_EQ(ops, 5);
  EXPECT_EQ(heavy, 3);
}

TEST(EagerPerOp, StepIsTheBlendOfPerOpMaxAndMaxOfSums) {
  EagerOverhead o;
  o.host_ms_per_op = 0.01;
  o.heavy_op_factor = 3.0;
  o.gpu_gap_ms_per_kernel = 0.001;
  o.kernel_time_scale = 2.0;
  o.fixed_ms = 1.0;
  o.h2d_gbs = 0;  // no input copy
  EagerTerms t;
  // 10 light ops of 0.002 ms kernels (host-bound), 4 heavy ops of 0.1 ms (GPU-bound).
  t.op_costs = {{0.002, 1, false, 10}, {0.1, 1, true, 4}};
  t.ops = 14;
  t.heavy_ops = 4;
  t.kernels = 14;
  t.kernel_ms = 10 * 0.002 + 4 * 0.1;
  const double host = 0.01 * (10 + 4 * 3.0);
  const double gpu = 2.0 * t.kernel_ms + 14 * 0.001;
  const double per_op = 10 * std::max(0.01, 2 * 0.002 + 0.001) + 4 * std::max(0.03, 0.2 + 0.001);
  o.per_op_overlap = 0;
  EXPECT_NEAR(eager_latency_ms(t, o), 1.0 + std::max(host, gpu), 1e-12);
  o.per_op_overlap = 1;
  EXPECT_NEAR(eager_latency_ms(t, o), 1.0 + per_op, 1e-12);
  o.per_op_overlap = 0.25;
  EXPECT_NEAR(eager_latency_ms(t, o), 1.0 + 0.25 * per_op + 0.75 * std::max(host, gpu), 1e-12);
  // The per-op sum is never below the max of the sums: overlap only adds.
  EXPECT_GT(per_op, std::max(host, gpu));
  // Training multiplies every op's host time.
  t.training = true;
  o.training_host_factor = 10;
  o.per_op_overlap = 1;
  EXPECT_NEAR(eager_latency_ms(t, o), 1.0 + 10 * std::max(0.1, 0.005) + 4 * std::max(0.3, 0.201),
              1e-12);
  // Terms without op costs (older callers) fall back to the max of the sums.
  t.op_costs.clear();
  EXPECT_NEAR(eager_latency_ms(t, o), 1.0 + std::max(10 * 0.01 * 22, gpu), 1e-12);
}

TEST(EagerPerOp, JsonKeepsTheOverlapAndOlderFilesReadAsZero) {
  testing::expect_optional_field(&EagerOverhead::per_op_overlap, "per_op_overlap", 0.6, 0.0);
}

TEST(EagerPerOp, PredictedNetworkCarriesOpCostsThatAddUpToItsTerms) {
  NetworkOptions options;
  options.batch = 8;
  const Network net = build_zoo_network("resnet18", options);
  const auto gpu = GpuDatabase::bundled().find("a100-sxm4-40gb");
  ASSERT_TRUE(gpu);
  const AnalyticalModel model;
  const NetworkPrediction r = predict_network(net, *gpu, model, Mode::kInference, PowerModel{});
  int ops = 0;
  int heavy = 0;
  int kernels = 0;
  double kernel_ms = 0;
  for (const auto& c : r.eager.op_costs) {
    ops += c.count;
    heavy += c.heavy ? c.count : 0;
    kernels += c.count * c.kernels;
    kernel_ms += c.count * c.kernel_ms;
  }
  EXPECT_EQ(ops, r.eager.ops);
  EXPECT_EQ(heavy, r.eager.heavy_ops);
  EXPECT_EQ(kernels, r.eager.kernels);
  EXPECT_NEAR(kernel_ms, r.eager.kernel_ms, 1e-9 * r.eager.kernel_ms);
  EXPECT_LT(r.eager.op_costs.size(), static_cast<std::size_t>(r.eager.ops));  // merged
}

TEST(EagerPerOp, CalibrationRecoversTheOverlapFromTransitionalSteps) {
  EagerOverhead truth;  // heavy and light ops cost the host the same here
  truth.host_ms_per_op = 0.012;
  truth.gpu_gap_ms_per_kernel = 0.0;
  truth.fixed_ms = 1.5;
  truth.per_op_overlap = 0.7;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> count(20, 200);
  std::uniform_real_distribution<double> slow_ms(0.02, 0.08);
  // Host-bound light ops next to GPU-bound heavy ones.
  const auto d = testing::one_gpu_rows(truth, 60, [&](int) {
    E2eTerms t;
    t.op_costs = {{0.002, 1, false, count(rng)}, {slow_ms(rng), 1, true, count(rng) / 4}};
    for (const auto& c : t.op_costs) {
      t.ops += c.count;
      t.kernels += c.count;
      t.heavy_ops += c.heavy ? c.count : 0;
      t.kernel_ms += c.count * c.kernel_ms;
    }
    return t;
  });
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, testing::every_row(d));
  EXPECT_NEAR(fit.per_op_overlap, 0.7, 0.05);
  EXPECT_NEAR(fit.host_ms_per_op, 0.012, 0.001);
  const E2eEvaluation ev = evaluate_e2e(d.rows, d.terms, fit);
  EXPECT_LT(ev.overall.mape_pct, 1.0);
}

}  // namespace
}  // namespace cnnperf
