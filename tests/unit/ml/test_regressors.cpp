// SPDX-License-Identifier: Apache-2.0
// KNN, decision tree, random forest and XGBoost on SYNTHETIC data with known answers,
// determinism across runs and thread counts, and exact JSON round trips for every kind.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/ml/regressor.hpp"
#include "synthetic_data.hpp"

namespace cnnperf {
namespace {

using testing::make_synthetic;
using testing::smooth_function;

double mape_of(const Regressor& model, const testing::SyntheticData& d) {
  return mape_percent(d.y, model.predict(d.x));
}

// --- KNN -------------------------------------------------------------------------------------

TEST(Knn, KEqualsOneReturnsTrainingTargets) {
  auto d = make_synthetic(300, 4, 1, smooth_function);
  auto model = make_regressor(RegressorKind::kKnn, {{"k", 1}});
  model->fit(d.x, d.y);
  EXPECT_EQ(model->predict(d.x), d.y);
}

TEST(Knn, AveragesTheKNearestByHand) {
  // Synthetic 1-D points 0,1,2,10 with targets 1,2,3,100: the 3 nearest of 0.9 are 0,1,2.
  FeatureMatrix x(4, 1, {0.0, 1.0, 2.0, 10.0});
  const std::vector<double> y{1.0, 2.0, 3.0, 100.0};
  auto uniform = make_regressor(RegressorKind::kKnn, {{"k", 3}});
  uniform->fit(x, y);
  EXPECT_NEAR(uniform->predict(FeatureMatrix(1, 1, {0.9}))[0], 2.0, 1e-12);
  // Distance weights 1/d in scaled units: the scale cancels in the ratio.
  auto weighted = make_regressor(RegressorKind::kKnn, {{"k", 3}, {"weights", "distance"}});
  weighted->fit(x, y);
  const double w0 = 1.0 / 0.9;
  const double w1 = 1.0 / 0.1;
  const double w2 = 1.0 / 1.1;
  EXPECT_NEAR(weighted->predict(FeatureMatrix(1, 1, {0.9}))[0],
              (w0 * 1.0 + w1 * 2.0 + w2 * 3.0) / (w0 + w1 + w2), 1e-12);
  // An exact match wins outright under distance weighting.
  EXPECT_DOUBLE_EQ(weighted->predict(FeatureMatrix(1, 1, {2.0}))[0], 3.0);
  // Log-space averaging = geometric mean of 1, 2, 3.
  auto log_knn = make_regressor(RegressorKind::kKnn, {{"k", 3}, {"log_target", true}});
  log_knn->fit(x, y);
  EXPECT_NEAR(log_knn->predict(FeatureMatrix(1, 1, {0.9}))[0], std::cbrt(6.0), 1e-12);
}

TEST(Knn, ScalesFeaturesSoLargeColumnsDoNotDominate) {
  // Synthetic: column 1 is 1e6 times larger but carries the same information as column 0.
  FeatureMatrix x(3, 2, {0.0, 0.0, 1.0, 3e6, 2.0, 1e6});
  const std::vector<double> y{10.0, 20.0, 30.0};
  auto model = make_regressor(RegressorKind::kKnn, {{"k", 1}});
  model->fit(x, y);
  // Query (2, 0): unscaled, row 0 would be nearest (distance 2 vs 1e6); scaled, row 2 is.
  EXPECT_DOUBLE_EQ(model->predict(FeatureMatrix(1, 2, {2.0, 0.0}))[0], 30.0);
}

// --- Decision tree ------------------------------------------------------------------------------

TEST(DecisionTree, FitsAStepFunctionExactly) {
  // Synthetic step function of x0 with levels 1, 5, -2; x1 is noise the tree must ignore.
  auto step = [](const double* v) { return v[0] < 0.3 ? 1.0 : (v[0] < 0.7 ? 5.0 : -2.0); };
  auto d = make_synthetic(500, 2, 3, step);
  auto model = make_regressor(RegressorKind::kDecisionTree);
  model->fit(d.x, d.y);
  EXPECT_EQ(model->predict(d.x), d.y);
  // Fresh points on the same function (away from the thresholds) are exact too.
  auto fresh = make_synthetic(200, 2, 99, step);
  const auto pred = model->predict(fresh.x);
  for (std::size_t r = 0; r < fresh.x.rows; ++r) {
    if (std::abs(fresh.x(r, 0) - 0.3) > 0.01 && std::abs(fresh.x(r, 0) - 0.7) > 0.01) {
      EXPECT_EQ(pred[r], fresh.y[r]) << "row " << r;
    }
  }
  // Two splits suffice: a root, two internal-or-leaf levels -> at most 5 nodes.
  const auto nodes = model->to_json().at("model").at("tree").at("feature").size();
  EXPECT_EQ(nodes, 5U);
  const auto imp = model->feature_importances();
  ASSERT_EQ(imp.size(), 2U);
  EXPECT_DOUBLE_EQ(imp[0], 1.0);
  EXPECT_DOUBLE_EQ(imp[1], 0.0);
}

TEST(DecisionTree, RespectsDepthAndLeafLimits) {
  auto d = make_synthetic(400, 3, 5, smooth_function);
  auto stump = make_regressor(RegressorKind::kDecisionTree, {{"max_depth", 1}});
  stump->fit(d.x, d.y);
  EXPECT_EQ(stump->to_json().at("model").at("tree").at("feature").size(), 3U);
  auto leafy = make_regressor(RegressorKind::kDecisionTree, {{"min_samples_leaf", 50}});
  leafy->fit(d.x, d.y);
  // Every leaf holds at least 50 of 400 rows -> at most 8 leaves -> at most 15 nodes.
  EXPECT_LE(leafy->to_json().at("model").at("tree").at("feature").size(), 15U);
  // A full-depth tree interpolates the training set of distinct rows.
  auto full = make_regressor(RegressorKind::kDecisionTree);
  full->fit(d.x, d.y);
  EXPECT_EQ(full->predict(d.x), d.y);
}

TEST(DecisionTree, SampleWeightsShiftLeafMeans) {
  // Synthetic: identical features, so the tree is one leaf holding the weighted mean.
  FeatureMatrix x(3, 1, {1.0, 1.0, 1.0});
  const std::vector<double> y{0.0, 3.0, 6.0};
  const std::vector<double> w{1.0, 1.0, 4.0};
  auto model = make_regressor(RegressorKind::kDecisionTree);
  model->fit(x, y, w);
  EXPECT_NEAR(model->predict(x)[0], (0.0 + 3.0 + 24.0) / 6.0, 1e-12);
}

// --- Random forest
// --------------------------------------------------------------------------------

TEST(RandomForest, LowErrorOnASmoothFunction) {
  auto train = make_synthetic(3000, 4, 21, smooth_function);
  auto test = make_synthetic(500, 4, 22, smooth_function);
  auto model =
      make_regressor(RegressorKind::kRandomForest, {{"n_trees", 50}, {"max_features", 1.0}});
  model->fit(train.x, train.y);
  EXPECT_LT(mape_of(*model, test), 3.0);
  const auto imp = model->feature_importances();
  // x3 is not in the function: least important.
  EXPECT_LT(imp[3], imp[0]);
  EXPECT_LT(imp[3], imp[1]);
}

TEST(RandomForest, DeterministicAcrossRunsAndThreadCounts) {
  auto d = make_synthetic(1500, 5, 31, smooth_function);
  auto run = [&](int threads, int seed) {
    auto model = make_regressor(RegressorKind::kRandomForest,
                                {{"n_trees", 24}, {"n_threads", threads}, {"seed", seed}});
    model->fit(d.x, d.y);
    return model->predict(d.x);
  };
  const auto a = run(1, 7);
  EXPECT_EQ(a, run(1, 7));
  EXPECT_EQ(a, run(2, 7));
  EXPECT_EQ(a, run(5, 7));
  EXPECT_NE(a, run(2, 8));  // the seed matters
}

// --- XGBoost
// ---------------------------------------------------------------------------------------

TEST(Xgboost, LowErrorOnASmoothFunction) {
  auto train = make_synthetic(3000, 4, 41, smooth_function);
  auto test = make_synthetic(500, 4, 42, smooth_function);
  auto model = make_regressor(RegressorKind::kXgboost,
                              {{"n_estimators", 300}, {"max_depth", 4}, {"n_threads", 1}});
  model->fit(train.x, train.y);
  EXPECT_LT(mape_of(*model, test), 2.0);
  const auto imp = model->feature_importances();
  ASSERT_EQ(imp.size(), 4U);
  EXPECT_LT(imp[3], imp[1]);
}

TEST(Xgboost, DeterministicAcrossRunsAndThreadCounts) {
  auto d = make_synthetic(2000, 5, 51, smooth_function);
  auto run = [&](int threads, double subsample) {
    auto model = make_regressor(RegressorKind::kXgboost, {{"n_estimators", 60},
                                                          {"n_threads", threads},
                                                          {"subsample", subsample},
                                                          {"colsample_bytree", 0.8}});
    model->fit(d.x, d.y);
    return model->predict(d.x);
  };
  const auto a = run(1, 0.7);
  EXPECT_EQ(a, run(1, 0.7));
  EXPECT_EQ(a, run(2, 0.7));
  EXPECT_EQ(a, run(3, 0.7));
}

TEST(Xgboost, ModelIsTreeArrays) {
  auto d = make_synthetic(200, 3, 61, smooth_function);
  auto model = make_regressor(RegressorKind::kXgboost, {{"n_estimators", 5}, {"n_threads", 1}});
  model->fit(d.x, d.y);
  const auto doc = model->to_json();
  const auto& m = doc.at("model");
  EXPECT_EQ(m.at("format"), "cnnperf-trees");
  EXPECT_EQ(m.at("trees"), 5);
  EXPECT_GT(m.at("nodes").get<int>(), 5);
  EXPECT_TRUE(m.at("tree_arrays").is_string());
  EXPECT_FALSE(m.contains("booster"));
}

TEST(Xgboost, ReportsXgboostErrors) {
  auto d = make_synthetic(50, 3, 71, smooth_function);  // smooth_function reads 3 features
  auto doc = [&] {
    auto model = make_regressor(RegressorKind::kXgboost, {{"n_estimators", 2}, {"n_threads", 1}});
    model->fit(d.x, d.y);
    return model->to_json();
  }();
  doc["model"]["booster"] = nlohmann::json{{"not", "a model"}};
  EXPECT_THROW((void)Regressor::from_json(doc), Error);
}

// --- All kinds
// ------------------------------------------------------------------------------------

class EveryKind : public ::testing::TestWithParam<RegressorKind> {};

TEST_P(EveryKind, JsonRoundTripPredictsIdentically) {
  auto train = make_synthetic(400, 4, 81, smooth_function);
  auto test = make_synthetic(100, 4, 82, smooth_function);
  train.x.names = {"a", "b", "c", "d"};
  nlohmann::json params = {{"log_target", true}};
  if (GetParam() == RegressorKind::kRandomForest) params["n_trees"] = 10;
  if (GetParam() == RegressorKind::kXgboost) params["n_estimators"] = 30;
  if (GetParam() != RegressorKind::kLinear && GetParam() != RegressorKind::kDecisionTree) {
    params["n_threads"] = 1;  // OpenMP spinning on a shared 2-core machine is slow
  }
  auto model = make_regressor(GetParam(), params);
  model->fit(train.x, train.y);
  const std::string text = model->to_json().dump();
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc.at("schema_version"), kRegressorSchemaVersion);
  EXPECT_EQ(doc.at("kind"), to_string(GetParam()));
  auto loaded = Regressor::from_json(doc);
  EXPECT_EQ(loaded->kind(), GetParam());
  EXPECT_EQ(loaded->feature_names(), train.x.names);
  EXPECT_EQ(loaded->predict(test.x), model->predict(test.x));
  EXPECT_EQ(loaded->to_json().dump(), text);
  // Predicting with differently named columns is refused.
  test.x.names = {"a", "b", "x", "d"};
  EXPECT_THROW((void)loaded->predict(test.x), InputError);
}

TEST_P(EveryKind, BeatsTheMeanOnASmoothFunction) {
  auto train = make_synthetic(2000, 3, 91, smooth_function);
  auto test = make_synthetic(300, 3, 92, smooth_function);
  nlohmann::json params = nlohmann::json::object();
  if (GetParam() != RegressorKind::kLinear && GetParam() != RegressorKind::kDecisionTree) {
    params["n_threads"] = 1;
  }
  auto model = make_regressor(GetParam(), params);
  model->fit(train.x, train.y);
  const auto m = compute_metrics(test.y, model->predict(test.x), 3);
  EXPECT_GT(m.r2, 0.5) << to_string(GetParam());
  EXPECT_GT(m.spearman, 0.7) << to_string(GetParam());
}

TEST_P(EveryKind, RejectsUnknownParams) {
  EXPECT_THROW((void)make_regressor(GetParam(), {{"no_such_param", 1}}), InputError);
  EXPECT_THROW((void)make_regressor(GetParam(), {{"seed", -1}}), InputError);
  EXPECT_THROW((void)make_regressor(GetParam(), {{"log_target", "yes"}}), InputError);
}

INSTANTIATE_TEST_SUITE_P(Ml, EveryKind,
                         ::testing::Values(RegressorKind::kLinear, RegressorKind::kKnn,
                                           RegressorKind::kDecisionTree,
                                           RegressorKind::kRandomForest, RegressorKind::kXgboost),
                         [](const auto& info) { return to_string(info.param); });

}  // namespace
}  // namespace cnnperf
