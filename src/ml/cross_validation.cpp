// SPDX-License-Identifier: Apache-2.0
// Fold assignment and out-of-fold evaluation.
#include "cnnperf/ml/cross_validation.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <random>

#include "cnnperf/common/error.hpp"
#include "parallel.hpp"
#include "regressor_internal.hpp"

namespace cnnperf {

std::vector<std::size_t> FoldAssignment::test_rows(int fold) const {
  std::vector<std::size_t> out;
  for (std::size_t r = 0; r < fold_of_row.size(); ++r) {
    if (fold_of_row[r] == fold) out.push_back(r);
  }
  return out;
}

std::vector<std::size_t> FoldAssignment::train_rows(int fold) const {
  std::vector<std::size_t> out;
  for (std::size_t r = 0; r < fold_of_row.size(); ++r) {
    if (fold_of_row[r] != fold) out.push_back(r);
  }
  return out;
}

namespace {

template <class T>
void seeded_shuffle(std::vector<T>& items, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::size_t i = items.size(); i > 1; --i) {
    std::swap(items[i - 1], items[ml_detail::uniform_below(rng, i)]);
  }
}

std::vector<std::string> numbered_labels(int k) {
  std::vector<std::string> labels;
  labels.reserve(static_cast<std::size_t>(std::max(k, 0)));
  for (int f = 0; f < k; ++f) labels.push_back("fold " + std::to_string(f + 1));
  return labels;
}

/// Group k-fold over dense group ids 0..n_groups-1.
FoldAssignment group_kfold_ids(const std::vector<std::size_t>& group_of_row, std::size_t n_groups,
                               int k, std::uint64_t seed) {
  if (k < 2) throw InputError("group k-fold: expected at least 2 folds, got " + std::to_string(k));
  if (static_cast<std::size_t>(k) > n_groups) {
    throw InputError("group k-fold: " + std::to_string(k) +
                     " folds need at least as many groups, got " + std::to_string(n_groups));
  }
  std::vector<std::size_t> size(n_groups, 0);
  for (std::size_t g : group_of_row) ++size[g];
  std::vector<std::size_t> order(n_groups);
  std::iota(order.begin(), order.end(), std::size_t{0});
  seeded_shuffle(order, seed);
  // Stable: equal-sized groups keep their shuffled order, so the seed decides among them.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return size[a] > size[b]; });
  std::vector<std::size_t> fold_rows(static_cast<std::size_t>(k), 0);
  std::vector<int> fold_of_group(n_groups, 0);
  for (std::size_t g : order) {
    const auto lightest = static_cast<std::size_t>(
        std::min_element(fold_rows.begin(), fold_rows.end()) - fold_rows.begin());
    fold_of_group[g] = static_cast<int>(lightest);
    fold_rows[lightest] += size[g];
  }
  FoldAssignment out;
  out.n_folds = k;
  out.fold_labels = numbered_labels(k);
  out.fold_of_row.resize(group_of_row.size());
  for (std::size_t r = 0; r < group_of_row.size(); ++r) {
    out.fold_of_row[r] = fold_of_group[group_of_row[r]];
  }
  return out;
}

template <class Key>
std::vector<std::size_t> dense_ids(std::span<const Key> groups, std::size_t& n_groups) {
  std::map<Key, std::size_t> ids;  // sorted keys: ids do not depend on row order
  for (const auto& g : groups) ids.emplace(g, 0);
  std::size_t next = 0;
  for (auto& [key, id] : ids) id = next++;
  n_groups = next;
  std::vector<std::size_t> out;
  out.reserve(groups.size());
  for (const auto& g : groups) out.push_back(ids.at(g));
  return out;
}

}  // namespace

FoldAssignment kfold(std::size_t n_rows, int k, std::uint64_t seed) {
  if (k < 2) throw InputError("k-fold: expected at least 2 folds, got " + std::to_string(k));
  if (static_cast<std::size_t>(k) > n_rows) {
    throw InputError("k-fold: " + std::to_string(k) + " folds need at least " + std::to_string(k) +
                     " rows, got " + std::to_string(n_rows));
  }
  std::vector<std::size_t> order(n_rows);
  std::iota(order.begin(), order.end(), std::size_t{0});
  seeded_shuffle(order, seed);
  FoldAssignment out;
  out.n_folds = k;
  out.fold_labels = numbered_labels(k);
  out.fold_of_row.resize(n_rows);
  for (std::size_t i = 0; i < n_rows; ++i) {
    out.fold_of_row[order[i]] = static_cast<int>(i % static_cast<std::size_t>(k));
  }
  return out;
}

FoldAssignment group_kfold(std::span<const std::string> groups, int k, std::uint64_t seed) {
  std::size_t n_groups = 0;
  const auto ids = dense_ids(groups, n_groups);
  return group_kfold_ids(ids, n_groups, k, seed);
}

FoldAssignment group_kfold(std::span<const std::uint64_t> groups, int k, std::uint64_t seed) {
  std::size_t n_groups = 0;
  const auto ids = dense_ids(groups, n_groups);
  return group_kfold_ids(ids, n_groups, k, seed);
}

FoldAssignment leave_one_group_out(std::span<const std::string> groups) {
  std::map<std::string, int> ids;
  for (const auto& g : groups) ids.emplace(g, 0);
  if (ids.size() < 2) {
    throw InputError("leave-one-group-out: expected at least 2 distinct groups, got " +
                     std::to_string(ids.size()));
  }
  FoldAssignment out;
  for (auto& [name, id] : ids) {
    id = out.n_folds++;
    out.fold_labels.push_back(name);
  }
  out.fold_of_row.reserve(groups.size());
  for (const auto& g : groups) out.fold_of_row.push_back(ids.at(g));
  return out;
}

CvResult cross_validate(RegressorKind kind, const nlohmann::json& params, const FeatureMatrix& x,
                        std::span<const double> y, const FoldAssignment& folds,
                        const CvOptions& options) {
  if (y.size() != x.rows || folds.fold_of_row.size() != x.rows) {
    throw InputError("cross-validation: expected " + std::to_string(x.rows) +
                     " targets and fold entries, got " + std::to_string(y.size()) + " and " +
                     std::to_string(folds.fold_of_row.size()));
  }
  if (!options.weights.empty() && options.weights.size() != x.rows) {
    throw InputError("cross-validation: expected one weight per row");
  }
  for (int f : folds.fold_of_row) {
    if (f < 0 || f >= folds.n_folds) throw InputError("cross-validation: fold index out of range");
  }
  (void)make_regressor(kind, params);  // bad params fail before any training starts
  const std::size_t p =
      options.n_features_for_metrics == 0 ? x.cols : options.n_features_for_metrics;

  CvResult result;
  result.oof_predictions.assign(x.rows, 0.0);
  result.folds.resize(static_cast<std::size_t>(folds.n_folds));
  auto run_fold = [&](std::size_t f) {
    const int fold = static_cast<int>(f);
    const auto train = folds.train_rows(fold);
    const auto test = folds.test_rows(fold);
    FoldResult& fr = result.folds[f];
    fr.fold = fold;
    fr.label =
        f < folds.fold_labels.size() ? folds.fold_labels[f] : "fold " + std::to_string(f + 1);
    fr.n_train = train.size();
    fr.n_test = test.size();
    if (test.empty()) return;  // an empty fold has nothing to score
    if (train.empty()) {
      throw InputError("cross-validation: fold '" + fr.label + "' leaves no rows for training");
    }
    std::vector<double> y_train;
    std::vector<double> w_train;
    std::vector<double> y_test;
    y_test.reserve(test.size());
    for (std::size_t r : train) {
      y_train.push_back(y[r]);
      if (!options.weights.empty()) w_train.push_back(options.weights[r]);
    }
    for (std::size_t r : test) y_test.push_back(y[r]);
    auto model = make_regressor(kind, params);
    const auto t0 = std::chrono::steady_clock::now();
    model->fit(x.select_rows(train), y_train, w_train);
    fr.fit_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto pred = model->predict(x.select_rows(test));
    for (std::size_t i = 0; i < test.size(); ++i) result.oof_predictions[test[i]] = pred[i];
    fr.metrics = compute_metrics(y_test, pred, p);
  };

  // Folds in parallel (options.parallel_folds workers, at most one per fold).
  ml_detail::parallel_for(static_cast<std::size_t>(folds.n_folds), options.parallel_folds,
                          run_fold);
  // Overall metrics over rows that were scored (every row belongs to exactly one fold).
  result.overall = compute_metrics(y, result.oof_predictions, p);
  return result;
}

nlohmann::json to_json(const CvResult& result) {
  nlohmann::json folds = nlohmann::json::array();
  for (const auto& f : result.folds) {
    folds.push_back({{"fold", f.fold},
                     {"label", f.label},
                     {"n_train", f.n_train},
                     {"n_test", f.n_test},
                     {"fit_seconds", f.fit_seconds},
                     {"metrics", to_json(f.metrics)}});
  }
  return {{"overall", to_json(result.overall)}, {"folds", std::move(folds)}};
}

}  // namespace cnnperf
