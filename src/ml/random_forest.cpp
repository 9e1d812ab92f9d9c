// SPDX-License-Identifier: Apache-2.0
// Random forest: bagged CART trees with per-node feature subsampling. Tree t draws its
// bootstrap and its features from a stream seeded by (seed, t) alone, and trees are stored
// and averaged in index order, so the model is bit-identical for any thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include "cnnperf/common/error.hpp"
#include "decision_tree.hpp"
#include "parallel.hpp"
#include "regressor_internal.hpp"

namespace cnnperf::ml_detail {
namespace {

class RandomForestRegressor final : public Regressor {
 public:
  explicit RandomForestRegressor(nlohmann::json params) : Regressor(std::move(params)) {}

  [[nodiscard]] RegressorKind kind() const override { return RegressorKind::kRandomForest; }
  [[nodiscard]] std::vector<double> feature_importances() const override { return importance_; }

 protected:
  void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                std::span<const double> weights) override {
    const TreeParams tp = tree_params_from(params_, x.cols);
    const auto n_trees = params_.at("n_trees").get<std::size_t>();
    const bool bootstrap = params_.at("bootstrap").get<bool>();
    const double max_samples = params_.at("max_samples").get<double>();
    const auto seed = params_.at("seed").get<std::uint64_t>();
    const unsigned threads = resolve_threads(params_.at("n_threads").get<std::int64_t>());

    const SortedColumns sorted(x);  // shared by all trees: sorting once, not per tree
    const std::size_t n = x.rows;
    const auto draws = std::max<std::size_t>(
        1, static_cast<std::size_t>(std::llround(max_samples * static_cast<double>(n))));
    std::vector<Tree> trees(n_trees);
    std::vector<std::vector<double>> importances(n_trees, std::vector<double>(x.cols, 0.0));
    parallel_for(n_trees, threads, [&](std::size_t t) {
      std::vector<double> w(n, 0.0);
      std::mt19937_64 rng(mix_seed(seed, 2 * t));
      if (bootstrap) {
        for (std::size_t d = 0; d < draws; ++d) w[uniform_below(rng, n)] += 1.0;
      } else if (draws >= n) {
        std::fill(w.begin(), w.end(), 1.0);
      } else {
        // Without replacement: partial Fisher-Yates over row indices.
        std::vector<std::size_t> idx(n);
        for (std::size_t i = 0; i < n; ++i) idx[i] = i;
        for (std::size_t i = 0; i < draws; ++i) {
          std::swap(idx[i], idx[i + uniform_below(rng, n - i)]);
          w[idx[i]] = 1.0;
        }
      }
      if (!weights.empty()) {
        for (std::size_t r = 0; r < n; ++r) w[r] *= weights[r];
      }
      if (std::none_of(w.begin(), w.end(), [](double v) { return v > 0.0; })) {
        // Every drawn row has zero user weight: fall back to all weighted rows.
        for (std::size_t r = 0; r < n; ++r) w[r] = weights.empty() ? 1.0 : weights[r];
      }
      trees[t] = grow_tree(x, y, w, sorted, tp, mix_seed(seed, 2 * t + 1), importances[t]);
    });
    trees_ = std::move(trees);
    importance_.assign(x.cols, 0.0);
    for (const auto& imp : importances) {
      for (std::size_t f = 0; f < x.cols; ++f) importance_[f] += imp[f];
    }
    normalise(importance_);
  }

  [[nodiscard]] std::vector<double> predict_impl(const FeatureMatrix& x) const override {
    std::vector<double> out(x.rows, 0.0);
    const unsigned threads = resolve_threads(params_.at("n_threads").get<std::int64_t>());
    const std::size_t chunk = 1024;
    const std::size_t n_chunks = (x.rows + chunk - 1) / chunk;
    parallel_for(n_chunks, threads, [&](std::size_t c) {
      const std::size_t end = std::min(x.rows, (c + 1) * chunk);
      for (std::size_t r = c * chunk; r < end; ++r) {
        double sum = 0.0;
        for (const Tree& t : trees_) sum += t.predict_row(x.row(r));  // fixed order
        out[r] = sum / static_cast<double>(trees_.size());
      }
    });
    return out;
  }

  [[nodiscard]] nlohmann::json model_to_json() const override {
    nlohmann::json trees = nlohmann::json::array();
    for (const Tree& t : trees_) trees.push_back(t.to_json());
    return {{"trees", std::move(trees)}, {"feature_importances", importance_}};
  }

  void model_from_json(const nlohmann::json& model) override {
    const auto& trees = require(model, "trees");
    if (!trees.is_array() || trees.empty()) {
      throw FieldError("model.trees", "expected a non-empty array");
    }
    trees_.clear();
    for (std::size_t i = 0; i < trees.size(); ++i) {
      trees_.push_back(
          Tree::from_json(trees[i], n_features(), "model.trees[" + std::to_string(i) + "]"));
    }
    importance_ = number_array(model, "feature_importances");
    if (importance_.size() != n_features()) {
      throw FieldError("model.feature_importances", "expected n_features entries");
    }
  }

 private:
  std::vector<Tree> trees_;
  std::vector<double> importance_;
};

}  // namespace

std::unique_ptr<Regressor> make_random_forest(const nlohmann::json& params) {
  ParamReader reader("rf", params);
  reader.get_common();
  // 1/3 of the features per split: Breiman's regression default, and much faster than all.
  read_tree_params(reader, 1.0 / 3.0);
  reader.get_int("n_trees", 100, 1, 100000);
  reader.get_bool("bootstrap", true);
  reader.get_double("max_samples", 1.0, 1e-9, 1.0);
  reader.get_int("n_threads", 0, 0, 1024);
  return std::make_unique<RandomForestRegressor>(reader.finish());
}

}  // namespace cnnperf::ml_detail
