// SPDX-License-Identifier: Apache-2.0
// `train --export-features`: the CSV holds exactly the features, folds and target `train`
// fits, so another learner can be put on the same split. The rows are SYNTHETIC: "measured"
// latency = 1.3 x analytical + a floor per GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/feature_export.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

// SYNTHETIC: each shape measured on two GPUs, conv and linear rows.
TrainingData two_gpu_rows() {
  std::mt19937_64 rng(5);
  TrainingData data;
  const GpuSpec v100 = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  const GpuSpec p100 = *GpuDatabase::bundled().find("p100-pcie-16gb");
  for (int i = 0; i < 60; ++i) {
    Layer conv = testing::random_conv3x3(rng);
    Layer fc;
    fc.op = Op::kLinear;
    fc.batch = 1 + i;
    fc.c_in = 64 * (1 + i % 7);
    fc.c_out = 100 + 10 * i;
    for (const GpuSpec* gpu : {&v100, &p100}) {
      const double floor_ms = gpu == &v100 ? 0.03 : 0.05;
      for (const Layer* l : std::vector<const Layer*>{&conv, &fc}) {
        testing::add_row(data, *l, *gpu, "neusight",
                         1.3 * estimate_layer(*l, *gpu).latency_ms + floor_ms);
      }
    }
  }
  return data;
}

TEST(FeatureExport, HoldsTheFeaturesFoldsAndTargetTrainFits) {
  const TrainingData data = two_gpu_rows();
  const FeatureSpec spec = FeatureSpec::parse("default");
  const CsvTable table =
      parse_csv(feature_matrix_csv(data, spec, CvScheme::kGroupShape, 3, 42), "export");
  const auto names = feature_names(spec);
  ASSERT_EQ(table.rows.size(), data.layers.size());
  const auto& header = table.header;
  ASSERT_EQ(header.size(), 4 + names.size() + 3);
  EXPECT_EQ(header[0], "family");
  EXPECT_EQ(header[3], "fold");
  for (std::size_t c = 0; c < names.size(); ++c) EXPECT_EQ(header[4 + c], names[c]);
  EXPECT_EQ(header.back(), "log_ratio");

  // Rows come family by family, each family in data order, with train's folds.
  std::size_t line = 0;
  for (const auto family : {OpFamily::kConv, OpFamily::kGemm}) {
    const auto family_ids = family_rows(data, family);
    const auto folds = family_folds(data, family_ids, CvScheme::kGroupShape, 3, 42, nullptr);
    // Each fold's floors come from the family's rows outside it, as in cross-validation.
    std::map<int, FamilyModel> fitted;
    for (int f = 0; f < 3; ++f) {
      std::vector<std::size_t> train;
      for (std::size_t i = 0; i < family_ids.size(); ++i) {
        if (folds[i] != f) train.push_back(family_ids[i]);
      }
      fitted[f].harness.floor_ms = fit_host_floors(data, train);
    }
    for (std::size_t i = 0; i < family_ids.size(); ++i, ++line) {
      const auto r = family_ids[i];
      const auto& cells = table.rows[line];
      ASSERT_EQ(cells.size(), header.size());
      EXPECT_EQ(cells[0], to_string(family));
      EXPECT_EQ(cells[2], data.gpus[r].name);
      EXPECT_EQ(std::stoi(cells[3]), folds[i]);
      const auto expected = feature_row(data.layers[r], data.gpus[r], "neusight", spec);
      for (std::size_t c = 0; c < names.size(); ++c) {
        EXPECT_NEAR(std::stod(cells[4 + c]), expected[c], 1e-8 * (1 + std::fabs(expected[c])))
            << names[c];
      }
      const double baseline = estimate_layer(data.layers[r], data.gpus[r]).latency_ms +
                              fitted[folds[i]].floor_ms("neusight", data.gpus[r].name);
      const double baseline_cell = std::stod(cells[cells.size() - 3]);
      EXPECT_NEAR(baseline_cell, baseline, 1e-8 * baseline);
      EXPECT_GT(baseline_cell, estimate_layer(data.layers[r], data.gpus[r]).latency_ms);
      EXPECT_NEAR(std::stod(cells[cells.size() - 1]), std::log(data.latency_ms[r] / baseline),
                  1e-8);
    }
  }
}

// Held out, a GPU's rows get the other GPUs' floor, as leave-one-GPU-out CV gives them: its
// own would leak what it measured at the smallest work.
TEST(FeatureExport, AHeldOutGpuGetsTheOtherGpusFloor) {
  const TrainingData data = two_gpu_rows();
  const CsvTable table = parse_csv(
      feature_matrix_csv(data, FeatureSpec::parse("default"), CvScheme::kLeaveGpuOut, 5, 42),
      "export");
  const auto conv = family_rows(data, OpFamily::kConv);  // the file's first rows, in this order
  FamilyModel all;
  all.harness.floor_ms = fit_host_floors(data, conv);
  const std::string v100 = "v100-sxm2-16gb";
  const std::string p100 = "p100-pcie-16gb";
  // The synthetic floors differ (0.03 and 0.05 ms), so taking the wrong one shows.
  ASSERT_GT(std::fabs(all.floor_ms("neusight", v100) - all.floor_ms("neusight", p100)), 0.01);
  for (std::size_t i = 0; i < conv.size(); ++i) {
    const auto r = conv[i];
    const std::string& gpu = data.gpus[r].name;
    ASSERT_EQ(table.get(i, "gpu"), gpu);
    const double other_floor = all.floor_ms("neusight", gpu == v100 ? p100 : v100);
    const double expected = estimate_layer(data.layers[r], data.gpus[r]).latency_ms + other_floor;
    EXPECT_NEAR(table.get_number(i, "baseline_ms").value_or(0), expected, 1e-8 * expected) << gpu;
  }
}

TEST(FeatureExport, GroupShapeFoldsKeepAShapeTogetherAndLeaveGpuOutFoldsAreGpus) {
  const TrainingData data = two_gpu_rows();
  const auto conv = family_rows(data, OpFamily::kConv);
  const auto folds = family_folds(data, conv, CvScheme::kGroupShape, 4, 7, nullptr);
  std::map<std::string, std::set<int>> folds_of_shape;
  for (std::size_t i = 0; i < conv.size(); ++i) {
    const Layer& l = data.layers[conv[i]];
    folds_of_shape[std::to_string(l.batch) + "/" + std::to_string(l.c_in) + "/" +
                   std::to_string(l.c_out) + "/" + std::to_string(l.h_in)]
        .insert(folds[i]);
  }
  std::set<int> used;
  for (const auto& [shape, f] : folds_of_shape) {
    EXPECT_EQ(f.size(), 1U) << shape;
    used.insert(*f.begin());
  }
  EXPECT_EQ(used.size(), 4U);

  int n_folds = 0;
  const auto logo = family_folds(data, conv, CvScheme::kLeaveGpuOut, 5, 7, &n_folds);
  EXPECT_EQ(n_folds, 2);
  std::map<std::string, std::set<int>> folds_of_gpu;
  for (std::size_t i = 0; i < conv.size(); ++i)
    folds_of_gpu[data.gpus[conv[i]].name].insert(logo[i]);
  ASSERT_EQ(folds_of_gpu.size(), 2U);
  for (const auto& [gpu, f] : folds_of_gpu) EXPECT_EQ(f.size(), 1U) << gpu;
  EXPECT_NE(*folds_of_gpu.begin()->second.begin(), *folds_of_gpu.rbegin()->second.begin());
}

}  // namespace
}  // namespace cnnperf
