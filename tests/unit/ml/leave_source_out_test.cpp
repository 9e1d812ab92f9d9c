// SPDX-License-Identifier: Apache-2.0
// Leave-source-out cross-validation (train --cv leave-source-out): a held-out source's rows
// never train its fold's kernel-time model, its own host floors come from its own rows, a
// family of one source says why it is not scored, and rows on GPUs no other source has are
// counted. The rows are SYNTHETIC: "measured" latency = analytical estimate x a factor per
// source (+ a floor per source where a test says so).
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/feature_export.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

const nlohmann::json kTreeParams = {{"log_target", true}, {"max_depth", 4}};

struct SourceRows {
  const char* source;
  const char* gpu;
  std::size_t n;
  double factor;    ///< measured / analytical
  double floor_ms;  ///< added after the factor
};

// SYNTHETIC rows of random 3x3 convs, one block per entry.
TrainingData synthetic(const std::vector<SourceRows>& blocks) {
  std::mt19937_64 rng(17);
  TrainingData data;
  for (const auto& b : blocks) {
    const GpuSpec gpu = *GpuDatabase::bundled().find(b.gpu);
    for (std::size_t i = 0; i < b.n; ++i) {
      const Layer l = testing::random_conv3x3(rng);
      testing::add_row(data, l, gpu, b.source,
                       estimate_layer(l, gpu).latency_ms * b.factor + b.floor_ms);
    }
  }
  return data;
}

TEST(LeaveSourceOut, OneFoldPerSourceInNameOrder) {
  const TrainingData data = synthetic({{"neusight", "v100-sxm2-16gb", 30, 1.5, 0},
                                       {"mlpredict", "p100-pcie-16gb", 20, 4.0, 0},
                                       {"cnnperf-profile", "t4", 10, 1.0, 0}});
  int n_folds = 0;
  const auto fold =
      family_folds(data, testing::all_rows(data), CvScheme::kLeaveSourceOut, 5, 1, &n_folds);
  ASSERT_EQ(n_folds, 3);  // not --folds: one per source
  for (std::size_t r = 0; r < fold.size(); ++r) {
    const int expected = data.sources[r] == "cnnperf-profile" ? 0
                         : data.sources[r] == "mlpredict"     ? 1
                                                              : 2;
    EXPECT_EQ(fold[r], expected) << "row " << r << " of " << data.sources[r];
  }
  EXPECT_EQ(cv_scheme_from_string("Leave-Source-Out"), CvScheme::kLeaveSourceOut);
  EXPECT_EQ(to_string(CvScheme::kLeaveSourceOut), "leave-source-out");
}

TEST(LeaveSourceOut, TheHeldOutSourceNeverTrainsItsFold) {
  // Each source's factor is a constant a tree learns exactly from its own rows (the source
  // one-hot is among the features). Held out, each source must get the OTHER source's factor:
  // a row of its own in the fold's training rows would pull the prediction to its own.
  const TrainingData data = synthetic(
      {{"neusight", "v100-sxm2-16gb", 120, 1.5, 0}, {"mlpredict", "v100-sxm2-16gb", 80, 4.0, 0}});
  const CvResult cv =
      cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree, kTreeParams,
                            FeatureSpec::parse("default"), CvScheme::kLeaveSourceOut, 5, 1,
                            SourceSplit::kSplit, /*host_floor=*/false, testing::kNoFallback);
  ASSERT_TRUE(cv.not_applicable.empty()) << cv.not_applicable;
  ASSERT_EQ(cv.predicted_ms.size(), data.layers.size());
  for (std::size_t i = 0; i < cv.rows.size(); ++i) {
    const auto r = cv.rows[i];
    const double other = data.sources[r] == "neusight" ? 4.0 : 1.5;
    EXPECT_NEAR(cv.predicted_ms[i], estimate_layer(data.layers[r], data.gpus[r]).latency_ms * other,
                1e-9 * data.latency_ms[r])
        << "row " << r << " (" << data.sources[r] << ")";
  }
  ASSERT_EQ(cv.per_source.size(), 2U);
  EXPECT_EQ(cv.per_source.at("neusight").n, 120U);
  EXPECT_NEAR(cv.per_source.at("neusight").mape_pct, 100.0 * (4.0 - 1.5) / 1.5, 1e-6);
  EXPECT_NEAR(cv.per_source.at("mlpredict").mape_pct, 100.0 * (4.0 - 1.5) / 4.0, 1e-6);
  // One GPU for both sources: nothing unseen.
  EXPECT_EQ(cv.unseen_gpu_rows.at("neusight"), 0U);
  EXPECT_EQ(cv.unseen_gpu_rows.at("mlpredict"), 0U);
}

TEST(LeaveSourceOut, TheHeldOutSourceKeepsItsOwnHostFloor) {
  // Both sources time the kernel exactly (factor 1) plus a constant per-call floor of their
  // own. The other source's model learns ratio 1 over analytical + floor; the held-out rows
  // are exact only with the held-out source's own floor (fitted on its rows), not with the
  // training source's (0.002 vs 0.05 ms).
  const TrainingData data = synthetic({{"neusight", "v100-sxm2-16gb", 150, 1.0, 0.002},
                                       {"mlpredict", "p100-pcie-16gb", 150, 1.0, 0.05}});
  const CvResult cv =
      cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree, kTreeParams,
                            FeatureSpec::parse("default"), CvScheme::kLeaveSourceOut, 5, 1,
                            SourceSplit::kSplit, /*host_floor=*/true);
  EXPECT_LT(cv.per_source.at("neusight").mape_pct, 1e-6);
  EXPECT_LT(cv.per_source.at("mlpredict").mape_pct, 1e-6);
  // Each source's GPU is one the other did not measure: all its rows are unseen GPUs too.
  EXPECT_EQ(cv.unseen_gpu_rows.at("neusight"), 150U);
  EXPECT_EQ(cv.unseen_gpu_rows.at("mlpredict"), 150U);

  // The exported baseline of a held-out row is analytical + its own source's floor.
  const CsvTable csv = parse_csv(
      feature_matrix_csv(data, FeatureSpec::parse("default"), CvScheme::kLeaveSourceOut, 5, 1),
      "export");
  const std::size_t baseline = *csv.column("baseline_ms");
  const std::size_t latency = *csv.column("latency_ms");
  ASSERT_EQ(csv.rows.size(), data.layers.size());
  for (const auto& row : csv.rows) {
    EXPECT_NEAR(std::stod(row[baseline]), std::stod(row[latency]), 1e-6 * std::stod(row[latency]));
  }
}

TEST(LeaveSourceOut, CountsTheRowsOnGpusNoOtherSourceHas) {
  const TrainingData data = synthetic({{"neusight", "v100-sxm2-16gb", 40, 1.5, 0},
                                       {"neusight", "t4", 25, 1.5, 0},
                                       {"mlpredict", "v100-sxm2-16gb", 30, 4.0, 0},
                                       {"mlpredict", "p100-pcie-16gb", 35, 4.0, 0},
                                       {"mlpredict", "k80", 5, 4.0, 0}});
  const CvResult cv =
      cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree, kTreeParams,
                            FeatureSpec::parse("default"), CvScheme::kLeaveSourceOut, 5, 1,
                            SourceSplit::kSplit, /*host_floor=*/false);
  EXPECT_EQ(cv.unseen_gpu_rows.at("neusight"), 25U);   // t4
  EXPECT_EQ(cv.unseen_gpu_rows.at("mlpredict"), 40U);  // p100 + k80
}

TEST(LeaveSourceOut, AFamilyOfOneSourceSaysWhyItIsNotScored) {
  const TrainingData data =
      synthetic({{"neusight", "v100-sxm2-16gb", 30, 1.5, 0}, {"neusight", "t4", 30, 1.5, 0}});
  const CvResult cv =
      cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree, kTreeParams,
                            FeatureSpec::parse("default"), CvScheme::kLeaveSourceOut, 5, 1);
  EXPECT_EQ(cv.not_applicable,
            "rows of only 'neusight' source; leave-source-out trains on the other sources and "
            "needs rows of two or more");
  EXPECT_EQ(cv.overall.n, 0U);
  EXPECT_TRUE(cv.predicted_ms.empty());
  EXPECT_TRUE(cv.per_source.empty());
  // The fold assignment itself refuses (a caller that did not ask scheme_not_applicable).
  EXPECT_THROW(
      (void)family_folds(data, testing::all_rows(data), CvScheme::kLeaveSourceOut, 5, 1, nullptr),
      InputError);
  // Other schemes apply to the same rows.
  EXPECT_EQ(scheme_not_applicable(data, testing::all_rows(data), CvScheme::kLeaveGpuOut), "");
  // The export leaves the family out rather than failing.
  const CsvTable csv = parse_csv(
      feature_matrix_csv(data, FeatureSpec::parse("default"), CvScheme::kLeaveSourceOut, 5, 1),
      "export");
  EXPECT_TRUE(csv.rows.empty());
}

}  // namespace
}  // namespace cnnperf
