// SPDX-License-Identifier: Apache-2.0
// Metrics against values computed by hand (the numbers in comments are the hand calculation).
#include <cmath>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/metrics.hpp"

namespace cnnperf {
namespace {

TEST(Metrics, MapeByHand) {
  const std::vector<double> t{1.0, 2.0, 4.0};
  const std::vector<double> p{1.1, 1.5, 4.0};
  // |0.1|/1 = 0.1, |0.5|/2 = 0.25, 0 -> mean 0.35/3 -> 11.666..%
  EXPECT_NEAR(mape_percent(t, p), 100.0 * 0.35 / 3.0, 1e-12);
}

TEST(Metrics, MapeSkipsZeroTargets) {
  const std::vector<double> t{0.0, 2.0};
  const std::vector<double> p{5.0, 3.0};
  EXPECT_NEAR(mape_percent(t, p), 50.0, 1e-12);
  const std::vector<double> zeros{0.0};
  EXPECT_TRUE(std::isnan(mape_percent(zeros, zeros)));
}

TEST(Metrics, R2AndAdjustedByHand) {
  const std::vector<double> t{1.0, 2.0, 3.0, 4.0, 5.0};
  const std::vector<double> p{1.0, 2.0, 3.0, 4.0, 6.0};
  // mean 3, SS_tot = 4+1+0+1+4 = 10, SS_res = 1 -> R2 = 0.9
  EXPECT_NEAR(r2_score(t, p), 0.9, 1e-12);
  // n=5, p=2: 1 - 0.1*4/2 = 0.8
  EXPECT_NEAR(adjusted_r2(0.9, 5, 2), 0.8, 1e-12);
  EXPECT_TRUE(std::isnan(adjusted_r2(0.9, 3, 2)));
  EXPECT_DOUBLE_EQ(r2_score(t, t), 1.0);
  // Constant targets whose mean does not round exactly (0.1 x 50) have no R^2; it came out
  // near -1e28 from dividing by the rounding error.
  const std::vector<double> same(50, 0.1);
  const std::vector<double> off(50, 0.11);
  ASSERT_NE(std::accumulate(same.begin(), same.end(), 0.0) / 50.0, 0.1);
  EXPECT_TRUE(std::isnan(r2_score(same, off)));
}

TEST(Metrics, WithinTenPercentIncludesTheBoundary) {
  const std::vector<double> t{10.0, 10.0, 10.0, 10.0};
  const std::vector<double> p{11.0, 9.0, 11.5, 10.0};
  // 11 and 9 are exactly 10% off (inside), 11.5 is 15% off (outside): 3 of 4
  EXPECT_NEAR(within_tolerance_percent(t, p), 75.0, 1e-12);
}

TEST(Metrics, SpearmanWithTiesByHand) {
  const std::vector<double> a{1.0, 2.0, 2.0, 3.0};
  const std::vector<double> b{1.0, 3.0, 2.0, 4.0};
  // ranks a = 1, 2.5, 2.5, 4; ranks b = 1, 3, 2, 4; both mean 2.5
  // deviations a: -1.5 0 0 1.5; b: -1.5 .5 -.5 1.5
  // cov = 2.25+0+0+2.25 = 4.5; var a = 4.5; var b = 2.25+.25+.25+2.25 = 5
  // rho = 4.5 / sqrt(4.5*5) = 0.9486832980505138
  EXPECT_NEAR(spearman(a, b), 4.5 / std::sqrt(22.5), 1e-12);
  const std::vector<double> ranks = average_ranks(a);
  EXPECT_EQ(ranks, (std::vector<double>{1.0, 2.5, 2.5, 4.0}));
  // Monotone but non-linear: rank correlation is exactly 1.
  const std::vector<double> x{1.0, 2.0, 3.0, 10.0};
  const std::vector<double> y{1.0, 4.0, 9.0, 100.0};
  EXPECT_DOUBLE_EQ(spearman(x, y), 1.0);
  const std::vector<double> c{1.0, 1.0, 1.0};
  EXPECT_TRUE(std::isnan(spearman(c, c)));
}

TEST(Metrics, RmseByHand) {
  const std::vector<double> t{0.0, 0.0, 0.0, 0.0};
  const std::vector<double> p{1.0, -1.0, 3.0, 1.0};
  // (1+1+9+1)/4 = 3 -> sqrt(3)
  EXPECT_NEAR(rmse(t, p), std::sqrt(3.0), 1e-12);
}

TEST(Metrics, ComputeMetricsBundlesAllAndChecksSizes) {
  const std::vector<double> t{1.0, 2.0, 3.0, 4.0, 5.0};
  const std::vector<double> p{1.0, 2.0, 3.0, 4.0, 6.0};
  const Metrics m = compute_metrics(t, p, 2);
  EXPECT_EQ(m.n, 5U);
  EXPECT_NEAR(m.r2, 0.9, 1e-12);
  EXPECT_NEAR(m.adjusted_r2, 0.8, 1e-12);
  EXPECT_NEAR(m.mape_pct, 100.0 * 0.2 / 5.0, 1e-12);
  EXPECT_NEAR(m.within_10pct, 80.0, 1e-12);
  EXPECT_NEAR(m.rmse, std::sqrt(0.2), 1e-12);
  EXPECT_NEAR(m.spearman, 1.0, 1e-12);
  const nlohmann::json j = to_json(m);
  EXPECT_EQ(j.at("n"), 5);
  EXPECT_NEAR(j.at("r2").get<double>(), 0.9, 1e-12);
  const std::vector<double> short_pred{1.0};
  EXPECT_THROW((void)compute_metrics(t, short_pred, 1), InputError);
}

}  // namespace
}  // namespace cnnperf
