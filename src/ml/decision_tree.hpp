// SPDX-License-Identifier: Apache-2.0
// Private: the CART regression tree shared by the decision-tree and random-forest kinds.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/regressor.hpp"

namespace cnnperf::ml_detail {

/// Growth limits of one tree.
struct TreeParams {
  std::int64_t max_depth = 0;         ///< 0 = unlimited
  std::size_t min_samples_split = 2;  ///< rows needed to try a split
  std::size_t min_samples_leaf = 1;   ///< rows needed on each side of a split
  std::size_t max_features = 0;       ///< candidate features per node (0 = all)
};

/// Row indices of the training matrix sorted by each feature (stable, ties by row index).
/// Computed once and shared by every tree of a forest.
struct SortedColumns {
  std::size_t rows = 0;
  std::vector<std::uint32_t> order;  ///< cols blocks of `rows` indices each
  std::vector<std::uint32_t> rank;   ///< cols blocks: dense rank of each row's value (ties equal)
  explicit SortedColumns(const FeatureMatrix& x);
};

/// A fitted tree as flat arrays (node 0 is the root; a leaf has feature -1).
/// A row goes left when x[feature] <= threshold.
struct Tree {
  std::vector<std::int32_t> feature;
  std::vector<double> threshold;
  std::vector<std::int32_t> left;
  std::vector<std::int32_t> right;
  std::vector<double> value;

  [[nodiscard]] double predict_row(const double* row) const {
    std::int32_t node = 0;
    while (feature[static_cast<std::size_t>(node)] >= 0) {
      const auto n = static_cast<std::size_t>(node);
      node = row[feature[n]] <= threshold[n] ? left[n] : right[n];
    }
    return value[static_cast<std::size_t>(node)];
  }
  [[nodiscard]] nlohmann::json to_json() const;
  /// Validates structure (indices in range, features < n_features); throws InputError.
  [[nodiscard]] static Tree from_json(const nlohmann::json& doc, std::size_t n_features,
                                      const std::string& at);
};

/// Grows one CART tree by weighted variance reduction over the rows with weight > 0.
/// `importance` (size x.cols) accumulates the weighted squared-error reduction per feature.
/// Deterministic for a given seed (feature subsampling is the only randomness).
[[nodiscard]] Tree grow_tree(const FeatureMatrix& x, std::span<const double> y,
                             std::span<const double> weights, const SortedColumns& sorted,
                             const TreeParams& params, std::uint64_t seed,
                             std::vector<double>& importance);

/// Resolves a max_features parameter (fraction if <= 1, else a count) to a count in [1, cols].
[[nodiscard]] std::size_t resolve_max_features(double max_features, std::size_t cols);
/// Tree parameters from validated regressor params (shared by dtree and rf).
[[nodiscard]] TreeParams tree_params_from(const nlohmann::json& params, std::size_t cols);

/// Normalises importances to sum 1 (all zero stays all zero).
void normalise(std::vector<double>& importance);

}  // namespace cnnperf::ml_detail

namespace cnnperf::ml_detail {
class ParamReader;
/// Reads max_depth, min_samples_split, min_samples_leaf, max_features (shared with rf).
void read_tree_params(ParamReader& reader, double default_max_features);
}  // namespace cnnperf::ml_detail
