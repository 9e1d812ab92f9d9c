// SPDX-License-Identifier: Apache-2.0
// Linear regression on SYNTHETIC data with a known closed-form answer.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/regressor.hpp"
#include "synthetic_data.hpp"

namespace cnnperf {
namespace {

using testing::make_synthetic;

TEST(Linear, RecoversExactCoefficients) {
  // Synthetic: y = 3 + 2 x0 - 5 x1 + 0.25 x2 exactly, features on very different scales.
  auto d = make_synthetic(
      200, 3, 7, [](const double* v) { return 3.0 + 2.0 * v[0] - 5.0 * v[1] + 0.25 * v[2]; });
  for (std::size_t r = 0; r < d.x.rows; ++r) {
    d.x(r, 2) *= 1e6;
    d.y[r] = 3.0 + 2.0 * d.x(r, 0) - 5.0 * d.x(r, 1) + 0.25 * d.x(r, 2);
  }
  auto model = make_regressor(RegressorKind::kLinear);
  model->fit(d.x, d.y);
  const auto j = model->to_json();
  const auto coef = j.at("model").at("coefficients").get<std::vector<double>>();
  ASSERT_EQ(coef.size(), 3U);
  EXPECT_NEAR(coef[0], 2.0, 1e-9);
  EXPECT_NEAR(coef[1], -5.0, 1e-9);
  EXPECT_NEAR(coef[2], 0.25, 1e-12);
  EXPECT_NEAR(j.at("model").at("intercept").get<double>(), 3.0, 1e-6);
  const auto pred = model->predict(d.x);
  for (std::size_t r = 0; r < d.x.rows; ++r) EXPECT_NEAR(pred[r], d.y[r], 1e-6 * std::abs(d.y[r]));
}

TEST(Linear, RankDeficientDesignStillFits) {
  // Synthetic: x1 = 2*x0 (collinear) and x2 constant; y = 1 + 4 x0.
  auto d = make_synthetic(50, 3, 3, [](const double* v) { return 1.0 + 4.0 * v[0]; });
  for (std::size_t r = 0; r < d.x.rows; ++r) {
    d.x(r, 1) = 2.0 * d.x(r, 0);
    d.x(r, 2) = 7.0;
  }
  auto model = make_regressor(RegressorKind::kLinear);
  model->fit(d.x, d.y);
  const auto pred = model->predict(d.x);
  for (std::size_t r = 0; r < d.x.rows; ++r) EXPECT_NEAR(pred[r], d.y[r], 1e-9);
  const auto coef = model->to_json().at("model").at("coefficients").get<std::vector<double>>();
  EXPECT_NEAR(coef[2], 0.0, 1e-12);
  // Minimum norm is taken on standardised features, where x0 and x1 become the same column:
  // it shares the weight equally, beta0 = beta1, so c0 = 2 c1 and c0 + 2 c1 = 4 -> c0 = 2, c1 = 1.
  EXPECT_NEAR(coef[0], 2.0, 1e-9);
  EXPECT_NEAR(coef[1], 1.0, 1e-9);
}

TEST(Linear, SampleWeightsSelectRows) {
  // Synthetic: two lines; weight 0 on the second half means only y = 2x is fitted.
  FeatureMatrix x(4, 1, {1.0, 2.0, 1.0, 2.0});
  const std::vector<double> y{2.0, 4.0, 10.0, 30.0};
  const std::vector<double> w{1.0, 1.0, 0.0, 0.0};
  auto model = make_regressor(RegressorKind::kLinear);
  model->fit(x, y, w);
  const auto pred = model->predict(FeatureMatrix(1, 1, {3.0}));
  EXPECT_NEAR(pred[0], 6.0, 1e-12);
}

TEST(Linear, LogTargetFitsAPowerLaw) {
  // Synthetic: y = 3 * a^2 / b, linear in log space with features log a, log b.
  auto d = make_synthetic(
      100, 2, 11, [](const double* v) { return 3.0 * std::exp(2.0 * v[0] - v[1]); }, 0.0, 3.0);
  auto model = make_regressor(RegressorKind::kLinear, {{"log_target", true}});
  model->fit(d.x, d.y);
  const auto pred = model->predict(d.x);
  for (std::size_t r = 0; r < d.x.rows; ++r) EXPECT_NEAR(pred[r] / d.y[r], 1.0, 1e-9);
  std::vector<double> bad = d.y;
  bad[5] = -1.0;
  EXPECT_THROW(model->fit(d.x, bad), InputError);
}

TEST(Linear, RejectsBadInputAndUnknownParams) {
  EXPECT_THROW((void)make_regressor(RegressorKind::kLinear, {{"l3", 1.0}}), InputError);
  EXPECT_THROW((void)make_regressor(RegressorKind::kLinear, {{"l2", -1.0}}), InputError);
  EXPECT_THROW((void)make_regressor(RegressorKind::kLinear, nlohmann::json::array()), InputError);
  auto model = make_regressor(RegressorKind::kLinear);
  FeatureMatrix x(2, 1, {1.0, 2.0});
  EXPECT_THROW((void)model->predict(x), Error);
  const std::vector<double> y1{1.0};
  EXPECT_THROW(model->fit(x, y1), InputError);
  FeatureMatrix nan_x(2, 1, {1.0, std::nan("")});
  const std::vector<double> y2{1.0, 2.0};
  EXPECT_THROW(model->fit(nan_x, y2), InputError);
  model->fit(x, y2);
  EXPECT_THROW((void)model->predict(FeatureMatrix(1, 2)), InputError);
}

TEST(Linear, JsonRoundTripIsExact) {
  // Synthetic noisy-looking target (deterministic), so coefficients are not round numbers.
  auto d =
      make_synthetic(80, 4, 5, [](const double* v) { return std::sin(v[0]) + v[1] * v[2] - v[3]; });
  auto model = make_regressor(RegressorKind::kLinear, {{"l2", 0.5}});
  model->fit(d.x, d.y);
  const std::string text = model->to_json().dump();
  auto loaded = Regressor::from_json(nlohmann::json::parse(text));
  EXPECT_EQ(loaded->kind(), RegressorKind::kLinear);
  EXPECT_EQ(loaded->predict(d.x), model->predict(d.x));
  EXPECT_EQ(loaded->to_json().dump(), text);
}

TEST(RegressorKindNames, RoundTrip) {
  for (RegressorKind k : all_regressor_kinds()) {
    EXPECT_EQ(regressor_kind_from_string(to_string(k)), k);
  }
  EXPECT_EQ(regressor_kind_from_string("XGBoost"), RegressorKind::kXgboost);
  EXPECT_THROW((void)regressor_kind_from_string("svm"), InputError);
}

TEST(RegressorJson, RejectsWrongSchemaVersion) {
  FeatureMatrix x(2, 1, {1.0, 2.0});
  const std::vector<double> y{1.0, 2.0};
  auto model = make_regressor(RegressorKind::kLinear);
  model->fit(x, y);
  auto doc = model->to_json();
  doc["schema_version"] = 99;
  EXPECT_THROW((void)Regressor::from_json(doc), InputError);
  doc = model->to_json();
  doc.erase("model");
  EXPECT_THROW((void)Regressor::from_json(doc), InputError);
}

}  // namespace
}  // namespace cnnperf
