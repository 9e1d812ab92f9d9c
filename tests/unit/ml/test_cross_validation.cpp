// SPDX-License-Identifier: Apache-2.0
// Fold-assignment properties and out-of-fold evaluation on SYNTHETIC data.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "synthetic_data.hpp"

namespace cnnperf {
namespace {

void expect_partition(const FoldAssignment& a, std::size_t n_rows) {
  ASSERT_EQ(a.fold_of_row.size(), n_rows);
  ASSERT_EQ(a.fold_labels.size(), static_cast<std::size_t>(a.n_folds));
  std::vector<int> seen(n_rows, 0);
  for (int f = 0; f < a.n_folds; ++f) {
    const auto test = a.test_rows(f);
    const auto train = a.train_rows(f);
    EXPECT_FALSE(test.empty()) << "fold " << f;
    EXPECT_EQ(test.size() + train.size(), n_rows);
    for (std::size_t r : test) ++seen[r];
  }
  for (std::size_t r = 0; r < n_rows; ++r) EXPECT_EQ(seen[r], 1) << "row " << r;
}

TEST(Folds, KFoldHoldsEveryRowOutExactlyOnceWithBalancedSizes) {
  const auto a = kfold(103, 5, 1);
  expect_partition(a, 103);
  for (int f = 0; f < 5; ++f) {
    const auto n = a.test_rows(f).size();
    EXPECT_TRUE(n == 20 || n == 21) << n;
  }
  EXPECT_EQ(a.fold_of_row, kfold(103, 5, 1).fold_of_row);  // seeded: reproducible
  EXPECT_NE(a.fold_of_row, kfold(103, 5, 2).fold_of_row);  // and the seed matters
  EXPECT_THROW((void)kfold(3, 5, 1), InputError);
  EXPECT_THROW((void)kfold(10, 1, 1), InputError);
}

TEST(Folds, GroupKFoldNeverSplitsAGroup) {
  // Synthetic groups of uneven sizes: group g has (g % 7) + 1 rows, rows interleaved.
  std::vector<std::string> groups;
  for (int g = 0; g < 40; ++g) {
    for (int i = 0; i <= g % 7; ++i) groups.push_back("shape" + std::to_string(g));
  }
  std::swap(groups[0], groups[groups.size() - 1]);
  const auto a = group_kfold(groups, 4, 9);
  expect_partition(a, groups.size());
  std::map<std::string, std::set<int>> folds_of_group;
  for (std::size_t r = 0; r < groups.size(); ++r)
    folds_of_group[groups[r]].insert(a.fold_of_row[r]);
  for (const auto& [g, folds] : folds_of_group) EXPECT_EQ(folds.size(), 1U) << g;
  // Largest-first into the lightest fold: sizes within one largest group (7 rows).
  std::size_t lo = groups.size();
  std::size_t hi = 0;
  for (int f = 0; f < 4; ++f) {
    lo = std::min(lo, a.test_rows(f).size());
    hi = std::max(hi, a.test_rows(f).size());
  }
  EXPECT_LE(hi - lo, 7U);
  EXPECT_THROW((void)group_kfold(groups, 41, 1), InputError);
  // Integer keys (e.g. a layer-shape hash) behave the same.
  std::vector<std::uint64_t> hashes;
  for (std::size_t r = 0; r < 50; ++r) hashes.push_back((r % 10) * 0x9E3779B97F4A7C15ULL);
  const auto b = group_kfold(hashes, 3, 1);
  expect_partition(b, 50);
  for (std::size_t r = 0; r < 50; ++r) EXPECT_EQ(b.fold_of_row[r], b.fold_of_row[r % 10]);
}

TEST(Folds, LeaveOneGroupOutHasOneFoldPerGroup) {
  const std::vector<std::string> gpus{"T4", "A100", "T4", "V100", "A100", "T4"};
  const auto a = leave_one_group_out(gpus);
  expect_partition(a, gpus.size());
  ASSERT_EQ(a.n_folds, 3);
  EXPECT_EQ(a.fold_labels, (std::vector<std::string>{"A100", "T4", "V100"}));
  EXPECT_EQ(a.test_rows(1), (std::vector<std::size_t>{0, 2, 5}));
  const std::vector<std::string> one{"T4", "T4"};
  EXPECT_THROW((void)leave_one_group_out(one), InputError);
}

TEST(CrossValidate, OutOfFoldPredictionsComeFromModelsThatDidNotSeeTheRow) {
  // Synthetic: two groups with different constant targets; a leave-one-group-out tree
  // must predict each group with the other group's value.
  FeatureMatrix x(6, 1, {1, 2, 3, 1, 2, 3});
  const std::vector<double> y{10, 10, 10, 20, 20, 20};
  const std::vector<std::string> g{"a", "a", "a", "b", "b", "b"};
  const auto folds = leave_one_group_out(g);
  const auto res = cross_validate(RegressorKind::kDecisionTree, {}, x, y, folds);
  EXPECT_EQ(res.oof_predictions, (std::vector<double>{20, 20, 20, 10, 10, 10}));
  ASSERT_EQ(res.folds.size(), 2U);
  EXPECT_EQ(res.folds[0].label, "a");
  EXPECT_EQ(res.folds[0].n_train, 3U);
  EXPECT_EQ(res.folds[0].n_test, 3U);
  EXPECT_NEAR(res.folds[0].metrics.mape_pct, 100.0, 1e-12);  // 20 vs 10
  EXPECT_NEAR(res.overall.mape_pct, 75.0, 1e-12);            // mean of 100% and 50%
}

TEST(CrossValidate, ParallelFoldsGiveTheSameResult) {
  auto d = testing::make_synthetic(600, 3, 3, testing::smooth_function);
  const auto folds = kfold(600, 5, 4);
  const nlohmann::json params = {{"n_trees", 8}, {"n_threads", 1}};
  const auto serial = cross_validate(RegressorKind::kRandomForest, params, d.x, d.y, folds);
  CvOptions opt;
  opt.parallel_folds = 3;
  const auto parallel = cross_validate(RegressorKind::kRandomForest, params, d.x, d.y, folds, opt);
  EXPECT_EQ(serial.oof_predictions, parallel.oof_predictions);
  EXPECT_LT(serial.overall.mape_pct, 10.0);
  EXPECT_GT(serial.overall.r2, 0.8);
  const auto j = to_json(serial);
  EXPECT_EQ(j.at("folds").size(), 5U);
  EXPECT_TRUE(j.at("overall").contains("spearman"));
}

TEST(CrossValidate, RejectsMismatchedInput) {
  FeatureMatrix x(4, 1, {1, 2, 3, 4});
  const std::vector<double> y{1, 2, 3};
  EXPECT_THROW((void)cross_validate(RegressorKind::kLinear, {}, x, y, kfold(4, 2, 1)), InputError);
  const std::vector<double> y4{1, 2, 3, 4};
  EXPECT_THROW((void)cross_validate(RegressorKind::kLinear, {{"bogus", 1}}, x, y4, kfold(4, 2, 1)),
               InputError);
}

}  // namespace
}  // namespace cnnperf
