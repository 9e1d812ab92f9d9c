// SPDX-License-Identifier: Apache-2.0
// Cross-validation: fold assignment (k-fold, group k-fold, leave-one-group-out) and a
// generic out-of-fold evaluation of any regressor kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/ml/regressor.hpp"

namespace cnnperf {

/// Which fold each row is held out in.
struct FoldAssignment {
  std::vector<int> fold_of_row;  ///< fold index in [0, n_folds) per row
  int n_folds = 0;
  std::vector<std::string> fold_labels;  ///< "fold 1".. or the held-out group's name

  /// Row indices held out in `fold` (ascending).
  [[nodiscard]] std::vector<std::size_t> test_rows(int fold) const;
  /// Row indices used for training when `fold` is held out (ascending).
  [[nodiscard]] std::vector<std::size_t> train_rows(int fold) const;
};

/// Plain k-fold after a seeded shuffle; fold sizes differ by at most one.
/// Throws InputError when k < 2 or k > n_rows.
[[nodiscard]] FoldAssignment kfold(std::size_t n_rows, int k, std::uint64_t seed);

/// Group k-fold: rows sharing a group key (e.g. a layer-shape hash) are always in the same
/// fold. Groups are shuffled with `seed`, then placed largest first into the fold with the
/// fewest rows, which balances fold sizes. Throws InputError when k < 2 or k > #groups.
[[nodiscard]] FoldAssignment group_kfold(std::span<const std::string> groups, int k,
                                         std::uint64_t seed);
[[nodiscard]] FoldAssignment group_kfold(std::span<const std::uint64_t> groups, int k,
                                         std::uint64_t seed);

/// One fold per distinct group (e.g. group = GPU name), in sorted group order, labelled with
/// the group. Throws InputError with fewer than 2 groups.
[[nodiscard]] FoldAssignment leave_one_group_out(std::span<const std::string> groups);

/// Options for cross_validate.
struct CvOptions {
  std::span<const double> weights;  ///< empty or one sample weight per row
  unsigned parallel_folds = 1;      ///< folds trained at once (each fold's own n_threads apply)
  std::size_t n_features_for_metrics = 0;  ///< p of adjusted R^2; 0 = x.cols
};

/// Result of one held-out fold.
struct FoldResult {
  int fold = 0;
  std::string label;
  std::size_t n_train = 0;
  std::size_t n_test = 0;
  double fit_seconds = 0.0;  ///< wall time of fit()
  Metrics metrics;
};

/// Out-of-fold predictions (each row predicted by the model that did not see it),
/// per-fold metrics and metrics over all out-of-fold predictions.
struct CvResult {
  std::vector<double> oof_predictions;
  std::vector<FoldResult> folds;
  Metrics overall;
};

/// Trains `make_regressor(kind, params)` once per fold. Results do not depend on
/// `parallel_folds`. Throws InputError on size mismatches or a fold with no training rows.
[[nodiscard]] CvResult cross_validate(RegressorKind kind, const nlohmann::json& params,
                                      const FeatureMatrix& x, std::span<const double> y,
                                      const FoldAssignment& folds, const CvOptions& options = {});

/// {"overall": metrics, "folds": [{fold, label, n_train, n_test, fit_seconds, metrics}]}.
[[nodiscard]] nlohmann::json to_json(const CvResult& result);

}  // namespace cnnperf
