// SPDX-License-Identifier: Apache-2.0
// Per-network step scales: a zoo network whose measured steps run off the end-to-end formula
// on every GPU gets a scale of its own, shrunk toward 1, applied only to that network.
// The rows below are SYNTHETIC: latencies generated from known terms, not measurements.
#include <gtest/gtest.h>

#include <cmath>

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

// Shared terms, two machines and one network that runs 1.4x the formula (SYNTHETIC numbers).
EagerOverhead truth_with_slow_network() {
  EagerOverhead truth = testing::two_machine_truth();
  truth.per_network[network_step_key("net0", DType::kFp32, Mode::kInference)] = {1.4, 0};
  return truth;
}

TEST(EagerOverheadPerNetwork, ScalesTheStepOfItsNetworkOnly) {
  EagerOverhead o = truth_with_slow_network();
  o.source = "test fixture (synthetic numbers)";
  const std::string key = network_step_key("net0", DType::kFp32, Mode::kInference);
  EXPECT_EQ(key, "net0 fp32 inference");
  const EagerOverhead scaled = overhead_for(o, named_gpu("gpu-b"), key);
  EXPECT_DOUBLE_EQ(scaled.step_scale, 1.4);
  EXPECT_DOUBLE_EQ(scaled.kernel_time_scale, 1.3);  // the GPU's own terms still apply
  EXPECT_TRUE(scaled.per_network.empty());
  EXPECT_TRUE(scaled.per_gpu.empty());
  EXPECT_NE(scaled.source.find("step time of net0 fp32 inference x 1.4"), std::string::npos)
      << scaled.source;
  for (const std::string& other :
       {std::string(), network_step_key("net0", DType::kFp16, Mode::kInference),
        network_step_key("net1", DType::kFp32, Mode::kInference)}) {
    EXPECT_DOUBLE_EQ(overhead_for(o, named_gpu("gpu-b"), other).step_scale, 1.0) << other;
  }

  // The scale multiplies the bound term (GPU or host), not the fixed cost or the copy.
  const EagerTerms gpu_bound{10.0, 100, 100, 1.1e6, false, 0, 1, 0, {}};
  const double copy_ms = 1.1e6 / (scaled.h2d_gbs * 1e6);
  EXPECT_NEAR(eager_latency_ms(gpu_bound, scaled), 2.0 + copy_ms + 1.4 * (10.0 * 1.3), 1e-12);
  const EagerTerms host_bound{1.0, 100, 100, 0, false, 0, 1, 0, {}};
  EXPECT_NEAR(eager_latency_ms(host_bound, scaled), 2.0 + 1.4 * (100 * 0.07), 1e-12);
}

TEST(EagerOverheadPerNetwork, RoundTripsThroughJsonAndReadsFilesWithoutIt) {
  EagerOverhead o = truth_with_slow_network();
  o.per_network.begin()->second.rows = 4;
  o.source = "test fixture (synthetic numbers)";
  const EagerOverhead back = eager_overhead_from_json(to_json(o), "x");
  ASSERT_EQ(back.per_network.size(), 1u);
  EXPECT_DOUBLE_EQ(back.per_network.at("net0 fp32 inference").step_scale, 1.4);
  EXPECT_EQ(back.per_network.at("net0 fp32 inference").rows, 4);

  nlohmann::json old = to_json(o);  // a file without the per-network scales
  old.erase("per_network");
  old.erase("step_scale");
  EXPECT_TRUE(eager_overhead_from_json(old, "x").per_network.empty());
  EXPECT_DOUBLE_EQ(eager_overhead_from_json(old, "x").step_scale, 1.0);
  // A prediction's overhead carries the scale it applied.
  const nlohmann::json applied =
      to_json(overhead_for(o, named_gpu("gpu-a"), "net0 fp32 inference"));
  EXPECT_DOUBLE_EQ(applied.at("step_scale").get<double>(), 1.4);
  EXPECT_FALSE(applied.contains("per_network"));

  nlohmann::json bad = to_json(o);
  bad["per_network"]["net0 fp32 inference"]["step_scale"] = 0;
  testing::expect_overhead_error_naming(bad, "per_network.net0 fp32 inference.step_scale");
  bad = to_json(o);
  bad["per_network"] = 3;
  EXPECT_THROW((void)eager_overhead_from_json(bad, "x"), InputError);
}

// SYNTHETIC rows from known terms: 12 networks on two machines, both modes, five batch sizes.
SyntheticE2e synthetic_rows(const EagerOverhead& truth) {
  return synthetic_e2e_rows(truth, {{"gpu-a", 120}, {"gpu-b", 120}}, 11, [](int i, E2eRow& row) {
    row.network = "net" + std::to_string(i % 12);
    row.batch = i / 24 + 1;
    row.mode = (i / 12) % 2 == 0 ? Mode::kInference : Mode::kTraining;
  });
}

TEST(EagerOverheadPerNetwork, CalibrationFindsTheSlowNetworkShrunkByItsRowCount) {
  const SyntheticE2e d = synthetic_rows(truth_with_slow_network());
  const EagerOverhead fit = calibrate_overhead(d.rows, d.terms, every_row(d));
  // Every network, precision and mode of the rows has a scale.
  EXPECT_EQ(fit.per_network.size(), 24u);
  const auto& slow = fit.per_network.at("net0 fp32 inference");
  EXPECT_EQ(slow.rows, 10);
  // Ten rows at ratio 1.4 and the prior's one row at ratio 1: 1.4^(10/11).
  EXPECT_NEAR(slow.step_scale, std::pow(1.4, 10.0 / 11.0), 0.03);
  for (const auto& [key, s] : fit.per_network) {
    if (key != "net0 fp32 inference") {
      EXPECT_NEAR(s.step_scale, 1.0, 0.03) << key;
    }
  }
  // In sample the scale takes most of the slow network's error away (the per-GPU terms,
  // fitted before it, absorbed a little of it: a few rows stay 6-8 % off).
  const E2eEvaluation ev = evaluate_e2e(d.rows, d.terms, fit);
  EXPECT_LT(ev.overall.mape_pct, 3.0);
  double slow_error = 0;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    if (d.rows[i].network == "net0" && d.rows[i].mode == Mode::kInference) {
      slow_error += std::fabs(ev.predicted_ms[i] / d.rows[i].latency_ms - 1) / 10;
    }
  }
  EXPECT_LT(slow_error, 0.06);
}

TEST(EagerOverheadPerNetwork, ConfigFoldsKnowTheNetworkAndLeaveNetworkOutDoesNot) {
  const SyntheticE2e d = synthetic_rows(truth_with_slow_network());
  const E2eEvaluation folds = evaluate_e2e_config_folds(d.rows, d.terms, 5, 42);
  const E2eEvaluation lono = evaluate_e2e_leave_network_out(d.rows, d.terms);
  ASSERT_EQ(folds.predicted_ms.size(), d.rows.size());
  double folds_error = 0;
  double lono_error = 0;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    if (d.rows[i].network != "net0" || d.rows[i].mode != Mode::kInference) continue;
    folds_error += std::fabs(folds.predicted_ms[i] / d.rows[i].latency_ms - 1);
    lono_error += std::fabs(lono.predicted_ms[i] / d.rows[i].latency_ms - 1);
  }
  // Held-out configurations of net0 still get its scale from the others; a held-out network
  // is predicted ~1.4x too fast.
  EXPECT_LT(folds_error, 0.5 * lono_error);
  EXPECT_GT(lono_error / 10, 0.2);
  // The same seed gives the same folds.
  EXPECT_EQ(evaluate_e2e_config_folds(d.rows, d.terms, 5, 42).predicted_ms, folds.predicted_ms);
  EXPECT_THROW((void)evaluate_e2e_config_folds(d.rows, d.terms, 1, 42), InputError);
}

TEST(EagerOverheadPerNetwork, AZooNetworkWithoutRowsTakesItsFamilysScaleAtThatSetting) {
  EagerOverhead o;
  o.source = "test fixture (synthetic numbers)";
  const auto key = [](const char* net, DType dtype, Mode mode) {
    return network_step_key(net, dtype, mode);
  };
  o.per_network[key("vgg11", DType::kFp16, Mode::kTraining)] = {1.2, 5};
  o.per_network[key("vgg16_bn", DType::kFp16, Mode::kTraining)] = {1.35, 7};
  o.per_network[key("vgg16_bn", DType::kFp32, Mode::kInference)] = {0.86, 7};
  o.per_network[key("resnet50", DType::kFp16, Mode::kTraining)] = {1.08, 7};

  const FamilyStepScale vgg = family_step_scale(o, key("vgg13_bn", DType::kFp16, Mode::kTraining));
  EXPECT_EQ(vgg.family, "vgg");
  EXPECT_EQ(vgg.networks, 2);  // not resnet50, not vgg16_bn at fp32 inference
  EXPECT_NEAR(vgg.step_scale, std::sqrt(1.2 * 1.35), 1e-12);
  EXPECT_NEAR(family_step_scale(o, key("vgg19", DType::kFp32, Mode::kInference)).step_scale, 0.86,
              1e-12);
  for (const std::string& none :
       {key("densenet169", DType::kFp16, Mode::kTraining),  // a family without rows
        key("vgg13", DType::kFp32, Mode::kTraining),        // no sibling at that setting
        key("nas-bench-201", DType::kFp32, Mode::kInference), std::string("vgg13"),
        std::string()}) {
    const FamilyStepScale f = family_step_scale(o, none);
    EXPECT_EQ(f.networks, 0) << none;
    EXPECT_EQ(f.step_scale, 1.0) << none;
  }

  // A network's own scale wins; without one it gets its family's, and the source says so.
  const GpuSpec gpu = named_gpu("gpu-x");
  EXPECT_DOUBLE_EQ(overhead_for(o, gpu, key("vgg16_bn", DType::kFp16, Mode::kTraining)).step_scale,
                   1.35);
  const EagerOverhead sibling =
      overhead_for(o, gpu, key("vgg13_bn", DType::kFp16, Mode::kTraining));
  EXPECT_NEAR(sibling.step_scale, std::sqrt(1.2 * 1.35), 1e-12);
  EXPECT_NE(sibling.source.find("its family's (vgg) 2 networks"), std::string::npos)
      << sibling.source;
  EXPECT_EQ(sibling.step_scale_family, "vgg");
  EXPECT_EQ(eager_overhead_from_json(to_json(sibling), "x").step_scale_family, "vgg");
  EXPECT_EQ(overhead_for(o, gpu, key("vgg16_bn", DType::kFp16, Mode::kTraining)).step_scale_family,
            "");
  EXPECT_DOUBLE_EQ(
      overhead_for(o, gpu, key("densenet169", DType::kFp16, Mode::kTraining)).step_scale, 1.0);

  // predict --net says whose scale it used.
  const auto v100 = GpuDatabase::bundled().find("v100-sxm2-16gb");
  ASSERT_TRUE(v100);
  NetworkOptions options;
  options.batch = 2;
  options.dtype = DType::kFp16;
  const Network net = build_zoo_network("vgg13_bn", options);
  const AnalyticalModel model(AnalyticalParams{}, o);
  const NetworkPrediction p = predict_network(net, *v100, model, Mode::kTraining, PowerModel{});
  EXPECT_NEAR(p.overhead.step_scale, std::sqrt(1.2 * 1.35), 1e-12);
  const std::string table = format_prediction(p, OutputFormat::kTable);
  EXPECT_NE(table.find("its family's (vgg networks') measured fp16 training steps"),
            std::string::npos)
      << table;
}

TEST(EagerOverheadPerNetwork, LeaveNetworkOutPredictsAHeldOutNetworkWithItsSiblingsScale) {
  // SYNTHETIC rows: two VGGs that both run 1.4x the formula, and two ResNets at 1.0; held out,
  // a VGG gets the other VGG's fitted scale instead of 1.
  EagerOverhead truth = testing::two_machine_truth();
  for (const char* vgg : {"vgg11", "vgg13"}) {
    truth.per_network[network_step_key(vgg, DType::kFp32, Mode::kInference)] = {1.4, 0};
  }
  static const char* kNets[] = {"vgg11", "vgg13", "resnet18", "resnet34"};
  const SyntheticE2e d =
      synthetic_e2e_rows(truth, {{"gpu-a", 80}, {"gpu-b", 80}}, 5, [](int i, E2eRow& row) {
        row.network = kNets[i % 4];
        row.batch = i / 4 + 1;
      });
  const E2eEvaluation lono = evaluate_e2e_leave_network_out(d.rows, d.terms);
  double vgg_error = 0;
  int vgg_rows = 0;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    if (d.rows[i].network.rfind("vgg", 0) != 0) continue;
    vgg_error += std::fabs(lono.predicted_ms[i] / d.rows[i].latency_ms - 1);
    ++vgg_rows;
  }
  // Without the family's scale every held-out VGG row would be ~1/1.4 - 1 = 29 % too fast; the
  // sibling's scale is shrunk toward 1 by one row in 40, so a few % remain.
  ASSERT_EQ(vgg_rows, 80);
  EXPECT_LT(vgg_error / vgg_rows, 0.05);
}

TEST(EagerOverheadPerNetwork, PredictNetworkAppliesTheScaleToZooNetworksOnly) {
  const auto gpu = GpuDatabase::bundled().find("v100-sxm2-16gb");
  ASSERT_TRUE(gpu);
  NetworkOptions options;
  options.batch = 8;
  Network net = build_zoo_network("resnet18", options);
  EagerOverhead plain;
  plain.source = "test fixture (synthetic numbers)";
  EagerOverhead with_scale = plain;
  with_scale.per_network[network_step_key("resnet18", DType::kFp32, Mode::kInference)] = {1.5, 3};
  const AnalyticalModel a(AnalyticalParams{}, plain);
  const AnalyticalModel b(AnalyticalParams{}, with_scale);
  const NetworkPrediction pa = predict_network(net, *gpu, a, Mode::kInference, PowerModel{});
  const NetworkPrediction pb = predict_network(net, *gpu, b, Mode::kInference, PowerModel{});
  const double copy_ms = pa.eager.input_bytes / (plain.h2d_gbs * 1e6);
  EXPECT_NEAR(pb.latency_ms - plain.fixed_ms - copy_ms,
              1.5 * (pa.latency_ms - plain.fixed_ms - copy_ms), 1e-9);
  EXPECT_DOUBLE_EQ(pb.kernel_ms, pa.kernel_ms);  // per-layer kernel time is the model's
  EXPECT_GT(pb.energy_j, pa.energy_j);
  // Training, or the same layers from a file, are other networks as far as the scale goes.
  const NetworkPrediction training = predict_network(net, *gpu, b, Mode::kTraining, PowerModel{});
  EXPECT_DOUBLE_EQ(training.overhead.step_scale, 1.0);
  net.source = "resnet18.onnx";
  const NetworkPrediction from_file = predict_network(net, *gpu, b, Mode::kInference, PowerModel{});
  EXPECT_DOUBLE_EQ(from_file.latency_ms, pa.latency_ms);
}

}  // namespace
}  // namespace cnnperf
