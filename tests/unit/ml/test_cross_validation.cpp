// SPDX-License-Identifier: Apache-2.0
// The learned model's cross-validation: fold-assignment properties of each scheme and
// out-of-fold predictions, on SYNTHETIC rows (each test says how its latency is made).
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/interval_residuals.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

GpuSpec gpu(const char* name) {
  return *GpuDatabase::bundled().find(name);
}

// SYNTHETIC: `layers` on `gpu_name`, measured = analytical x `ratio`.
void add_scaled(TrainingData& data, const std::vector<Layer>& layers, const char* gpu_name,
                double ratio) {
  for (const auto& l : layers) {
    testing::add_row(data, l, gpu(gpu_name), kReferenceSource,
                     estimate_layer(l, gpu(gpu_name)).latency_ms * ratio);
  }
}

std::vector<Layer> random_convs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Layer> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(testing::random_conv3x3(rng));
  return out;
}

std::vector<int> folds_of(const TrainingData& data, CvScheme scheme, int k, std::uint64_t seed,
                          int* n_folds) {
  return family_folds(data, testing::all_rows(data), scheme, k, seed, n_folds);
}

// SYNTHETIC: the same `n` random convs on two GPUs of the reference source, measured =
// analytical x 2 on the V100 and x 4 on the P100.
TrainingData ratio_two_and_four(std::size_t n, std::uint64_t seed) {
  TrainingData data;
  const auto layers = random_convs(n, seed);
  add_scaled(data, layers, "v100-sxm2-16gb", 2.0);
  add_scaled(data, layers, "p100-pcie-16gb", 4.0);
  return data;
}

// Leave-one-GPU-out of a depth-3 tree on the conv rows, without host floors or the fallback
// (the routing gives exact ratios).
CvResult tree_leave_gpu_out(const TrainingData& data) {
  const nlohmann::json tree = {{"log_target", true}, {"max_depth", 3}};
  return cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree, tree,
                               FeatureSpec::parse("-gpu"), CvScheme::kLeaveGpuOut, 5, 1,
                               SourceSplit::kSplit, /*host_floor=*/false,
                               std::numeric_limits<double>::infinity());
}

TEST(Folds, KFoldHoldsEveryRowOutExactlyOnceWithBalancedSizes) {
  TrainingData data;
  add_scaled(data, random_convs(103, 1), "v100-sxm2-16gb", 1.0);
  int n_folds = 0;
  const auto a = folds_of(data, CvScheme::kKfold, 5, 1, &n_folds);
  ASSERT_EQ(n_folds, 5);
  ASSERT_EQ(a.size(), 103U);
  std::map<int, std::size_t> size;
  for (const int f : a) ++size[f];
  ASSERT_EQ(size.size(), 5U);
  for (const auto& [f, n] : size) EXPECT_TRUE(n == 20 || n == 21) << "fold " << f << ": " << n;
  EXPECT_EQ(a, folds_of(data, CvScheme::kKfold, 5, 1, nullptr));  // seeded: reproducible
  EXPECT_NE(a, folds_of(data, CvScheme::kKfold, 5, 2, nullptr));  // and the seed matters
  try {
    (void)folds_of(data, CvScheme::kKfold, 104, 1, nullptr);
    ADD_FAILURE() << "more folds than rows";
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "folds");
  }
}

TEST(Folds, GroupShapeNeverSplitsAShape) {
  // Shape g has (g % 7) + 1 rows, on two GPUs: a shape's rows stay in one fold.
  const auto shapes = random_convs(40, 9);
  std::vector<Layer> layers;
  std::vector<std::size_t> shape_of;  // per row of one GPU
  for (std::size_t g = 0; g < shapes.size(); ++g) {
    for (std::size_t i = 0; i <= g % 7; ++i) {
      layers.push_back(shapes[g]);
      shape_of.push_back(g);
    }
  }
  TrainingData data;
  add_scaled(data, layers, "v100-sxm2-16gb", 1.0);
  add_scaled(data, layers, "p100-pcie-16gb", 1.0);
  int n_folds = 0;
  const auto a = folds_of(data, CvScheme::kGroupShape, 4, 9, &n_folds);
  ASSERT_EQ(n_folds, 4);
  std::map<std::size_t, std::set<int>> folds_of_shape;
  for (std::size_t r = 0; r < a.size(); ++r)
    folds_of_shape[shape_of[r % layers.size()]].insert(a[r]);
  EXPECT_EQ(folds_of_shape.size(), shapes.size());
  for (const auto& [g, folds] : folds_of_shape) EXPECT_EQ(folds.size(), 1U) << "shape " << g;
  EXPECT_THROW((void)folds_of(data, CvScheme::kGroupShape, 41, 1, nullptr), ParameterError);
}

TEST(Folds, LeaveGpuOutHasOneFoldPerGpu) {
  TrainingData data;
  const auto layers = random_convs(5, 3);
  for (const char* name : {"t4", "a100-sxm4-40gb", "v100-sxm2-16gb"}) {
    add_scaled(data, layers, name, 1.0);
  }
  int n_folds = 0;
  const auto a = folds_of(data, CvScheme::kLeaveGpuOut, 5, 1, &n_folds);
  ASSERT_EQ(n_folds, 3);
  std::map<std::string, std::set<int>> folds_of_gpu;
  for (std::size_t r = 0; r < a.size(); ++r) folds_of_gpu[data.gpus[r].name].insert(a[r]);
  std::set<int> used;
  for (const auto& [name, folds] : folds_of_gpu) {
    ASSERT_EQ(folds.size(), 1U) << name;
    used.insert(*folds.begin());
  }
  EXPECT_EQ(used.size(), 3U);
  TrainingData one;
  add_scaled(one, layers, "t4", 1.0);
  EXPECT_THROW((void)folds_of(one, CvScheme::kLeaveGpuOut, 5, 1, nullptr), InputError);
  // cross_validate_family names the family: another family of the data may hold more GPUs.
  try {
    (void)cross_validate_family(one, OpFamily::kConv, RegressorKind::kDecisionTree, {},
                                FeatureSpec::parse("default"), CvScheme::kLeaveGpuOut, 5, 1);
    ADD_FAILURE() << "leave-one-GPU-out on one GPU";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("conv rows: ", 0), 0U) << e.what();
  }
}

TEST(CrossValidate, OutOfFoldPredictionsComeFromModelsThatDidNotSeeTheRow) {
  // Leave-one-GPU-out, each GPU is predicted by a model that saw only the other's ratio.
  const TrainingData data = ratio_two_and_four(60, 11);
  const CvResult cv = tree_leave_gpu_out(data);
  ASSERT_EQ(cv.rows.size(), data.layers.size());
  for (std::size_t i = 0; i < cv.rows.size(); ++i) {
    const auto r = cv.rows[i];
    const double other = data.gpus[r].name == "v100-sxm2-16gb" ? 4.0 : 2.0;
    EXPECT_NEAR(cv.predicted_ms[i], estimate_layer(data.layers[r], data.gpus[r]).latency_ms * other,
                1e-9 * data.latency_ms[r])
        << "row " << r;
  }
  ASSERT_EQ(cv.per_gpu.size(), 2U);
  EXPECT_NEAR(cv.per_gpu.at("v100-sxm2-16gb").mape_pct, 100.0, 1e-6);  // 4 vs 2
  EXPECT_NEAR(cv.per_gpu.at("p100-pcie-16gb").mape_pct, 50.0, 1e-6);   // 2 vs 4
  EXPECT_NEAR(cv.overall.mape_pct, 75.0, 1e-6);
}

TEST(CrossValidate, IntervalResidualsNameTheirRowsMachine) {
  const TrainingData data = ratio_two_and_four(40, 13);
  const CvResult cv = tree_leave_gpu_out(data);
  const auto learned = cv_residuals(data, cv, CvScheme::kLeaveGpuOut, 5, 1);
  const auto analytical = analytical_residuals(data, CvScheme::kLeaveGpuOut, 5, 1);
  ASSERT_EQ(learned.size(), data.layers.size());
  ASSERT_EQ(analytical.size(), data.layers.size());
  std::map<std::string, std::size_t> learned_groups;
  std::map<std::string, std::size_t> analytical_groups;
  for (const auto& r : learned) ++learned_groups[r.group];
  for (const auto& r : analytical) ++analytical_groups[r.group];
  const std::map<std::string, std::size_t> machines{
      {std::string(kReferenceSource) + "/p100-pcie-16gb", 40},
      {std::string(kReferenceSource) + "/v100-sxm2-16gb", 40}};
  EXPECT_EQ(learned_groups, machines);
  EXPECT_EQ(analytical_groups, machines);
}

TEST(CrossValidate, RejectsAnUnknownScheme) {
  EXPECT_EQ(cv_scheme_from_string("Group"), CvScheme::kGroupShape);
  EXPECT_EQ(cv_scheme_from_string("logo"), CvScheme::kLeaveGpuOut);
  try {
    (void)cv_scheme_from_string("loo");
    ADD_FAILURE() << "unknown scheme";
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "cv");
  }
}

}  // namespace
}  // namespace cnnperf
