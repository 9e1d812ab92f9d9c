// SPDX-License-Identifier: Apache-2.0
// A harness's traffic terms: multiples of a layer's tensors' DRAM time that a framework graph
// around the layer adds (MLPredict's TensorFlow session). How they are fitted, for which
// sources, that they are overhead and never kernel time, and that the model file keeps them.
// The rows are SYNTHETIC: "measured" = analytical + a floor per GPU + known multiples of the
// traffic time.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

using testing::all_rows;

constexpr double kFloorMs = 0.03;
// Weights are a small share of a 3x3 conv's bytes: their multiple needs to be large to be seen.
constexpr TrafficMultiples kForward{2.0, 5.0, 20.0};
constexpr TrafficMultiples kTraining{20.0, 40.0, 80.0};

double traffic_of(const TrafficMultiples& x, const Layer& l, const GpuSpec& gpu) {
  const auto t = traffic_ms(l, gpu);
  return x.input * t[0] + x.output * t[1] + x.weight * t[2];
}

// SYNTHETIC rows of `source` on two GPUs, `n` per GPU and pass; each measured = analytical +
// kFloorMs + the pass's multiples of its traffic time.
TrainingData traffic_rows(std::size_t n, const std::string& source) {
  std::mt19937_64 rng(5);
  TrainingData data;
  for (const char* name : {"v100-sxm2-16gb", "p100-pcie-16gb"}) {
    const GpuSpec gpu = *GpuDatabase::bundled().find(name);
    for (const Pass pass : {Pass::kForward, Pass::kTraining}) {
      for (std::size_t i = 0; i < n; ++i) {
        Layer l = testing::random_conv3x3(rng);
        l.pass = pass;
        const auto& x = pass == Pass::kForward ? kForward : kTraining;
        testing::add_row(data, l, gpu, source,
                         estimate_layer(l, gpu).latency_ms + kFloorMs + traffic_of(x, l, gpu));
      }
    }
  }
  return data;
}

TEST(HarnessTraffic, TrafficTimeIsEachTensorsBytesAtOneBytePerSmCycle) {
  Layer l;
  l.batch = 8;
  l.c_in = 64;
  l.h_in = l.w_in = 56;
  l.c_out = 128;
  l.kernel_h = l.kernel_w = 3;
  l.pad_h = l.pad_w = 1;
  const GpuSpec gpu = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  // One byte per SM per cycle of the boost clock: 80 SMs at 1,530 MHz.
  const double bytes_per_ms = 80 * 1530e3;
  const auto t = traffic_ms(l, gpu);
  EXPECT_DOUBLE_EQ(t[0], 4.0 * 8 * 64 * 56 * 56 / bytes_per_ms);
  EXPECT_DOUBLE_EQ(t[1], 4.0 * 8 * 128 * 56 * 56 / bytes_per_ms);
  EXPECT_DOUBLE_EQ(t[2], 4.0 * 64 * 128 * 9 / bytes_per_ms);
  l.dtype = DType::kFp16;
  EXPECT_DOUBLE_EQ(traffic_ms(l, gpu)[0], t[0] / 2) << "two bytes an element";
}

TEST(HarnessTraffic, FitsEachPassesMultiplesOfASourceWithExtraKernels) {
  const TrainingData data = traffic_rows(300, "mlpredict");
  const HarnessTerms terms = fit_harness_terms(data, all_rows(data));
  ASSERT_EQ(terms.traffic.size(), 2u) << "one set per pass, shared by the GPUs";
  for (const auto& [pass, want] :
       {std::pair{"forward", kForward}, std::pair{"training", kTraining}}) {
    const TrafficMultiples& got = terms.traffic.at({"mlpredict", pass});
    // The floor is read from the fastest rows, which carry a little traffic too, so the
    // multiples come back close, not exact.
    EXPECT_NEAR(got.input, want.input, 0.1 * want.input + 0.5) << pass;
    EXPECT_NEAR(got.output, want.output, 0.1 * want.output + 0.5) << pass;
    EXPECT_NEAR(got.weight, want.weight, 0.1 * want.weight + 0.5) << pass;
  }
  // With them, the harness explains the rows: analytical + harness_ms is close to measured,
  // on a GPU without rows too (the multiples are the source's; the floor the typical one).
  FamilyModel m;
  m.harness = terms;
  double worst = 0;
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    const double predicted = estimate_layer(data.layers[r], data.gpus[r]).latency_ms +
                             m.harness_ms("mlpredict", data.layers[r], data.gpus[r]);
    worst = std::max(worst, std::fabs(predicted / data.latency_ms[r] - 1));
  }
  EXPECT_LT(worst, 0.05);
  const GpuSpec t4 = *GpuDatabase::bundled().find("t4");
  const Layer& l = data.layers[0];
  EXPECT_NEAR(m.harness_ms("mlpredict", l, t4),
              m.floor_ms("mlpredict", t4.name) +
                  traffic_of(terms.traffic.at({"mlpredict", "forward"}), l, t4),
              1e-12);
  // A pass without multiples keeps the floor alone; kernel time has no harness at all.
  Layer backward = l;
  backward.pass = Pass::kBackwardData;
  EXPECT_DOUBLE_EQ(m.harness_ms("mlpredict", backward, data.gpus[0]),
                   m.floor_ms("mlpredict", data.gpus[0].name));
  EXPECT_EQ(m.harness_ms(kKernelTimeSource, l, data.gpus[0]), 0.0);
}

TEST(HarnessTraffic, NoneForTheReferenceSourceKernelTimeOrTooFewRows) {
  EXPECT_TRUE(harness_runs_extra_kernels("mlpredict"));
  EXPECT_TRUE(harness_runs_extra_kernels("my-bench"));
  EXPECT_FALSE(harness_runs_extra_kernels(kReferenceSource));
  EXPECT_FALSE(harness_runs_extra_kernels(kKernelTimeSource));
  for (const char* source : {kReferenceSource, kKernelTimeSource}) {
    const TrainingData data = traffic_rows(300, source);
    EXPECT_TRUE(fit_harness_terms(data, all_rows(data)).traffic.empty()) << source;
  }
  // Fewer than kTrafficMinRows rows of a (source, pass): no multiples for it.
  const TrainingData few = traffic_rows(kTrafficMinRows / 4, "mlpredict");
  EXPECT_TRUE(fit_harness_terms(few, all_rows(few)).traffic.empty());
}

TEST(HarnessTraffic, MultiplesAreNeverNegative) {
  // Rows measured below the estimate by a share of their traffic: least squares would give
  // negative multiples; a harness cannot make kernels faster.
  TrainingData data = traffic_rows(300, "mlpredict");
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    const auto t = traffic_ms(data.layers[r], data.gpus[r]);
    data.latency_ms[r] = estimate_layer(data.layers[r], data.gpus[r]).latency_ms +
                         std::max(1e-4, 0.5 * t[2] - 0.2 * t[0]);
  }
  for (const auto& [key, x] : fit_harness_terms(data, all_rows(data)).traffic) {
    EXPECT_GE(x.input, 0.0) << key.second;
    EXPECT_GE(x.output, 0.0) << key.second;
    EXPECT_GE(x.weight, 0.0) << key.second;
  }
}

TEST(HarnessTraffic, IsOverheadNotKernelTimeAndTheFileKeepsIt) {
  const TrainingData data = traffic_rows(300, "mlpredict");
  const FeatureSpec spec = FeatureSpec::parse("default");
  std::vector<FamilyModel> fams;
  fams.push_back(fit_family(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree,
                            {{"log_target", true}, {"max_depth", 4}}, spec));
  fams.back().source = "mlpredict";
  ASSERT_EQ(fams.back().harness.traffic.size(), 2u);
  const LearnedModel model(spec, std::move(fams), EagerOverhead{}, nlohmann::json::object());

  std::mt19937_64 rng(9);
  std::vector<Layer> layers;
  for (int i = 0; i < 6; ++i) {
    layers.push_back(testing::random_conv3x3(rng));
    layers.back().pass = i % 2 == 0 ? Pass::kForward : Pass::kTraining;
  }
  const GpuSpec v100 = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  const auto as_source =
      model.predict_layers_as(layers, v100, std::vector<std::string>(layers.size(), "mlpredict"));
  const auto kernels = model.predict_network_layers(layers, v100);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    // The source's traffic is in its overhead, beyond its floor; kernel time has none of it.
    EXPECT_GT(as_source[i].overhead_ms, model.families()[0].floor_ms("mlpredict", v100.name) * 0.5)
        << i;
    EXPECT_EQ(kernels[i].overhead_ms, 0.0) << i;
  }

  const nlohmann::json doc = model.to_json();
  ASSERT_EQ(doc["families"][0]["harness_traffic"].size(), 2u);
  const auto back = LearnedModel::from_json(doc, "round trip");
  const auto back_pred =
      back->predict_layers_as(layers, v100, std::vector<std::string>(layers.size(), "mlpredict"));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(back_pred[i].overhead_ms, as_source[i].overhead_ms);
  }
  nlohmann::json old = doc;
  old["families"][0].erase("harness_traffic");
  const auto floor_only =
      LearnedModel::from_json(old, "old file")
          ->predict_layers_as(layers, v100, std::vector<std::string>(layers.size(), "mlpredict"));
  // A file whose multiples name no basis holds them over DRAM bandwidth: read as SM-clock
  // multiples they would give other times, so it is refused, naming the field.
  nlohmann::json unnamed = doc;
  unnamed["families"][0]["harness_traffic"][0].erase("basis");
  try {
    (void)LearnedModel::from_json(unnamed, "bandwidth.json");
    ADD_FAILURE() << "multiples without a basis accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "bandwidth.json: families[0].harness_traffic[0].basis: expected \"sm_clock\""),
              std::string::npos)
        << e.what();
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_LT(floor_only[i].overhead_ms, as_source[i].overhead_ms) << "a file without: floor only";
    // The same regressor and features: the traffic moves time between overhead and nothing
    // else; the kernel time does not depend on the harness.
    EXPECT_DOUBLE_EQ(floor_only[i].kernel_ms, as_source[i].kernel_ms) << i;
  }

  for (const auto& [field, value] :
       {std::pair{"weight_x", nlohmann::json(-1.0)}, std::pair{"pass", nlohmann::json("sideways")},
        std::pair{"input_x", nlohmann::json("2")},
        std::pair{"basis", nlohmann::json("dram_bandwidth")}}) {
    nlohmann::json bad = doc;
    bad["families"][0]["harness_traffic"][1][field] = value;
    try {
      (void)LearnedModel::from_json(bad, "bad.json");
      ADD_FAILURE() << field << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json: families[0].harness_traffic[1]." +
                                           std::string(field)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(HarnessTraffic, LeaveSourceOutFitsTheHeldOutSourcesOwnMultiples) {
  // Two sources: the reference's rows (floor only) and a framework's (traffic). Held out, the
  // framework's rows are scored after its own harness terms, fitted on its rows: with them the
  // analytical side explains its rows, as the regressor never saw them.
  TrainingData data = traffic_rows(300, "mlpredict");
  std::mt19937_64 rng(3);
  const GpuSpec v100 = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  for (int i = 0; i < 600; ++i) {
    const Layer l = testing::random_conv3x3(rng);
    testing::add_row(data, l, v100, kReferenceSource, estimate_layer(l, v100).latency_ms + 0.01);
  }
  const std::vector<std::size_t> rows = all_rows(data);
  std::vector<std::size_t> train, test;
  for (const auto r : rows) (data.sources[r] == "mlpredict" ? test : train).push_back(r);
  const HarnessTerms lso = fold_harness_terms(data, train, test, CvScheme::kLeaveSourceOut);
  EXPECT_EQ(lso.traffic.size(), 2u) << "the held-out source's own multiples";
  const HarnessTerms logo = fold_harness_terms(data, train, test, CvScheme::kLeaveGpuOut);
  EXPECT_TRUE(logo.traffic.empty()) << "no training row of the source: none";
}

}  // namespace
}  // namespace cnnperf
