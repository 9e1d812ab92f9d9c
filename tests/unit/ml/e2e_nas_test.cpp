// SPDX-License-Identifier: Apache-2.0
// End-to-end rows of the NAS spaces (HELP's layout) and the per-op-kind host time: heavy
// ops (convolutions, normalizations) cost heavy_op_factor elementwise ops on the host.
// Every latency below is SYNTHETIC (a formula evaluated with known terms, or a made-up
// number in a temporary CSV): none is a measurement.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "synthetic_e2e.hpp"
#include "temp_file.hpp"

namespace cnnperf {
namespace {

using testing::named_gpu;

const std::string kCell =
    "|nor_conv_3x3~0|+|none~0|nor_conv_1x1~1|+|skip_connect~0|nor_conv_1x1~1|none~2|";

using testing::write_temp;

TEST(EagerHeavyOps, HostTimeCountsHeavyOpsAsFactorElementwiseOps) {
  EagerOverhead o;
  o.host_ms_per_op = 0.01;
  o.heavy_op_factor = 2.5;
  o.fixed_ms = 1.0;
  o.training_host_factor = 4.0;
  EagerTerms t;
  t.kernel_ms = 0.1;  // host-bound
  t.ops = 100;
  t.kernels = 100;
  t.heavy_ops = 40;
  EXPECT_NEAR(host_issue_ms(t, o), 0.01 * (60 + 40 * 2.5), 1e-12);
  EXPECT_NEAR(eager_latency_ms(t, o), 1.0 + 0.01 * (60 + 40 * 2.5), 1e-12);
  t.training = true;
  EXPECT_NEAR(host_issue_ms(t, o), 4.0 * 0.01 * (60 + 40 * 2.5), 1e-12);
  // The factor is kept in files; files without it count every op the same.
  testing::expect_optional_field(&EagerOverhead::heavy_op_factor, "heavy_op_factor", 2.5, 1.0);
}

TEST(EagerHeavyOps, CalibrationRecoversTheFactorAndLeavesAnUnseenTrainingFactorAlone) {
  EagerOverhead truth;
  truth.host_ms_per_op = 0.012;
  truth.heavy_op_factor = 2.5;
  truth.gpu_gap_ms_per_kernel = 0.0;
  truth.fixed_ms = 1.5;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> ops(100, 500);
  std::uniform_real_distribution<double> heavy_share(0.1, 0.9);
  // Inference only, host-bound.
  const auto d = testing::one_gpu_rows(truth, 40, [&](int) {
    E2eTerms t;
    t.ops = ops(rng);
    t.kernels = t.ops;
    t.heavy_ops = static_cast<int>(t.ops * heavy_share(rng));
    t.kernel_ms = 0.5;
    return t;
  });
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, testing::every_row(d));
  EXPECT_NEAR(fit.heavy_op_factor, 2.5, 0.05);
  EXPECT_NEAR(fit.host_ms_per_op, 0.012, 0.0005);
  EXPECT_DOUBLE_EQ(fit.training_host_factor, EagerOverhead{}.training_host_factor);
  EXPECT_NE(fit.source.find("training_host_factor not fitted"), std::string::npos) << fit.source;
}

// `space_rows` of each GPU's rows are FBNet networks, the rest zoo-like networks with two rows
// per GPU; gpu-b runs FBNet 1.3x what the shared terms say (SYNTHETIC rows).
std::pair<std::vector<E2eRow>, EagerOverhead> machine_scale_fit(int rows_per_gpu, int space_rows) {
  EagerOverhead truth = testing::two_machine_truth();
  const std::string key = network_step_key(kFbnetSource, DType::kFp32, Mode::kInference);
  truth.per_gpu_network["gpu-b " + key] = {1.3, 0};
  auto d = testing::synthetic_e2e_rows(
      truth, {{"gpu-a", rows_per_gpu}, {"gpu-b", rows_per_gpu}}, 11, [&](int i, E2eRow& row) {
        row.network = i < space_rows ? std::string(kFbnetSource) : "net" + std::to_string(i / 2);
      });
  // Generated under the space's key; the rows carry a spec of that space, as loaded ones do.
  for (auto& row : d.rows) {
    if (row.network == kFbnetSource) row.network = "fbnet:k3_e1";
  }
  return {d.rows, calibrate_overhead(d.rows, d.terms, testing::every_row(d))};
}

TEST(EagerMachineScales, AKeyWithManyRowsOnOneGpuGetsThatMachinesScaleOnTop) {
  const std::string key = network_step_key(kFbnetSource, DType::kFp32, Mode::kInference);
  const auto [rows, fit] = machine_scale_fit(200, 60);
  ASSERT_EQ(fit.per_gpu_network.count("gpu-b " + key), 1U);
  ASSERT_EQ(fit.per_gpu_network.count("gpu-a " + key), 1U);
  // The space's shared scale sits between the machines; their ratio is the 1.3 put in.
  const double ratio = fit.per_gpu_network.at("gpu-b " + key).step_scale /
                       fit.per_gpu_network.at("gpu-a " + key).step_scale;
  EXPECT_NEAR(ratio, 1.3, 0.08);
  EXPECT_EQ(fit.per_gpu_network.size(), 2U);  // zoo-like keys have 2 rows per GPU
  // overhead_for multiplies the two; JSON keeps them.
  const EagerOverhead b = overhead_for(fit, named_gpu("gpu-b"), key);
  EXPECT_NEAR(
      b.step_scale,
      fit.per_network.at(key).step_scale * fit.per_gpu_network.at("gpu-b " + key).step_scale,
      1e-12);
  EXPECT_TRUE(b.per_gpu_network.empty());
  EXPECT_EQ(eager_overhead_from_json(to_json(fit), "x").per_gpu_network.size(), 2U);
  // Under 50 rows of the space per GPU: no machine scale.
  EXPECT_TRUE(machine_scale_fit(200, 40).second.per_gpu_network.empty());
}

TEST(E2eNasRows, LoadsHelpsLayoutWithTheGpuModelAndFp32) {
  // SYNTHETIC latencies in HELP's dataset layout.
  const auto path = write_temp(
      "cnnperf_e2e_help.csv",
      "space,arch_index,arch,gpu,gpu_name,batch,mode,latency_ms,input_h,input_w,source\n"
      "nasbench201,0," +
          kCell +
          ",titanx,TITAN X (Pascal),32,inference,5.5,,,help\n"
          "fbnet,3,k3_e1 skip k3_e1 skip k5_e1_g2 k5_e1_g2 k3_e1_g2 k3_e1 k3_e3 k5_e6 k5_e6 k5_e1 "
          "k5_e6 k3_e6 k3_e1 k5_e1_g2 k5_e3 k5_e1_g2 k5_e3 k3_e1_g2 k3_e3 k3_e1,2080ti,GeForce RTX "
          "2080 Ti,1,inference,8.0,32,32,help\n");
  const auto rows = load_e2e_rows(path.string());
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].network, "nb201:" + kCell);
  EXPECT_EQ(rows[0].gpu.name, "titan-x-pascal");
  EXPECT_EQ(rows[0].dtype, DType::kFp32);
  EXPECT_EQ(rows[0].batch, 32);
  EXPECT_EQ(nas_space_of(rows[1].network), kFbnetSource);
  EXPECT_EQ(rows[1].gpu.name, "rtx-2080-ti");
  EXPECT_EQ(e2e_network_source(rows), kNasBench201Source);

  // The terms build each row's network: heavy ops are a part of its kernel-launching ops.
  const auto terms = e2e_terms(rows, AnalyticalModel());
  ASSERT_EQ(terms.size(), 2U);
  for (const auto& t : terms) {
    EXPECT_GT(t.heavy_ops, 0);
    EXPECT_LT(t.heavy_ops, t.ops);
  }

  const auto bad = write_temp("cnnperf_e2e_help_bad.csv",
                              "space,arch,gpu,batch,mode,latency_ms\n"
                              "darts,x,2080ti,1,inference,1.0\n");
  try {
    (void)load_e2e_rows(bad.string());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":2: field 'space': expected nasbench201 or fbnet"),
              std::string::npos)
        << e.what();
  }
}

TEST(E2eNasRows, NasNetworksUseTheirOwnOverheadAndSpaceScale) {
  EagerOverhead zoo;
  zoo.fixed_ms = 1.0;
  zoo.source = "test fixture (synthetic numbers): zoo";
  EagerOverhead nas;
  nas.fixed_ms = 7.0;
  nas.source = "test fixture (synthetic numbers): nas";
  nas.per_network[network_step_key(kNasBench201Source, DType::kFp32, Mode::kInference)] = {1.2, 10};
  const AnalyticalModel model(AnalyticalParams{}, zoo, nas);
  const GpuSpec gpu = GpuDatabase::bundled().resolve("titan-xp");
  const NetworkPrediction a = predict_network(build_nas_network("nb201:" + kCell), gpu, model,
                                              Mode::kInference, PowerModel{});
  EXPECT_DOUBLE_EQ(a.overhead.fixed_ms, 7.0);
  EXPECT_DOUBLE_EQ(a.overhead.step_scale, 1.2);  // the space's scale, not the cell's
  const NetworkPrediction b =
      predict_network(build_zoo_network("resnet18"), gpu, model, Mode::kInference, PowerModel{});
  EXPECT_DOUBLE_EQ(b.overhead.fixed_ms, 1.0);
  EXPECT_DOUBLE_EQ(b.overhead.step_scale, 1.0);
  // Without a NAS overhead every network gets the one overhead.
  EXPECT_DOUBLE_EQ(
      AnalyticalModel(AnalyticalParams{}, zoo).eager_overhead_for(kFbnetSource).fixed_ms, 1.0);
}

TEST(E2eNasRows, BundledNasOverheadPredictsHelpsRowsBetterThanTheZooOne) {
  // Refitting on all 222k rows takes minutes (docs/accuracy.md has the command); this checks
  // the bundled fit on every 40th row of the real file, where it was fitted (in sample).
  const auto all =
      load_e2e_rows(std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/e2e_help_nas.csv.gz");
  ASSERT_EQ(all.size(), 222132U);
  std::vector<E2eRow> rows;
  for (std::size_t i = 0; i < all.size(); i += 40) rows.push_back(all[i]);
  const EagerOverhead& nas = bundled_nas_overhead();
  EXPECT_NE(nas.source.find("e2e_help_nas.csv.gz"), std::string::npos) << nas.source;
  EXPECT_GT(nas.heavy_op_factor, 1.5);
  EXPECT_EQ(nas.per_gpu.size(), 4U);
  EXPECT_EQ(nas.per_network.count(network_step_key(kFbnetSource, DType::kFp32, Mode::kInference)),
            1U);
  EXPECT_EQ(nas.per_gpu_network.size(), 8U);  // 2 spaces on each of the 4 machines
  // HELP's GPUs of one generation ran alike (one machine per generation, by their host
  // times), so `train e2e` kept the architecture terms for a GPU without rows: HELP's
  // fifth GPU, the GTX 1080 Ti, gets the mean of the two Pascal TITANs' terms.
  EXPECT_EQ(nas.unseen_gpu_terms, UnseenGpuTerms::kArchitecture);
  const auto gtx = GpuDatabase::bundled().find("gtx-1080-ti");
  ASSERT_TRUE(gtx.has_value());
  EXPECT_NEAR(overhead_for_gpu(nas, *gtx).host_ms_per_op,
              std::sqrt(nas.per_gpu.at("titan-x-pascal").host_ms_per_op *
                        nas.per_gpu.at("titan-xp").host_ms_per_op),
              1e-12);
  const auto terms = e2e_terms(rows, AnalyticalModel());
  const E2eEvaluation own = evaluate_e2e(rows, terms, nas);
  const E2eEvaluation zoo = evaluate_e2e(rows, terms, bundled_analytical_overhead());
  EXPECT_LT(own.overall.mape_pct, 10.0);  // 7.0 % on all rows
  EXPECT_LT(own.overall.mape_pct, zoo.overall.mape_pct);
  EXPECT_EQ(own.per_slice.size(), 24U);  // 2 spaces x 3 batches x 4 GPUs
}

// Several --e2e files are read as one: the bundled torchvision rows split in two give the
// same rows in the same order; a file named twice counts once; NAS and torchvision rows do not
// mix (their overheads are fitted apart).
TEST(E2eRowsOfSeveralFiles, ReadAsOneFileOfOneKind) {
  const std::string whole =
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/e2e_torchvision.csv";
  const auto [a, b] = testing::split_csv(whole, 1000, "cnnperf_e2e_part");
  const auto one = load_e2e_rows(whole);
  const auto two = load_e2e_rows(std::vector<std::string>{a.string(), b.string()});
  ASSERT_EQ(two.size(), one.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(two[i].network, one[i].network) << i;
    EXPECT_EQ(two[i].gpu.name, one[i].gpu.name) << i;
    EXPECT_EQ(two[i].latency_ms, one[i].latency_ms) << i;
  }
  EXPECT_EQ(load_e2e_rows(std::vector<std::string>{a.string(), a.string()}).size(),
            load_e2e_rows(a.string()).size());

  // SYNTHETIC latency in HELP's layout.
  const auto nas = write_temp("cnnperf_e2e_nas_one.csv",
                              "space,arch_index,arch,gpu,gpu_name,batch,mode,latency_ms\n"
                              "nasbench201,0," +
                                  kCell + ",titanx,TITAN X (Pascal),32,inference,5.5\n");
  try {
    (void)load_e2e_rows(std::vector<std::string>{a.string(), nas.string()});
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              nas.string() + ": NAS networks after torchvision networks in " + a.string() +
                  "; expected files of one kind (calibrate and validate "
                  "them apart)");
  }
  EXPECT_THROW((void)load_e2e_rows(std::vector<std::string>{}), InputError);
  for (const auto& p : {a, b, nas}) std::filesystem::remove(p);
}

}  // namespace
}  // namespace cnnperf
