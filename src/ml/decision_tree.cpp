// SPDX-License-Identifier: Apache-2.0
// CART regression tree. Split search scans each candidate feature in presorted order, so a
// node costs O(rows x features) with no per-node sorting; after a split every feature's
// order is stably partitioned into the two children (the classic presort scheme).
#include "decision_tree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "cnnperf/common/error.hpp"
#include "regressor_internal.hpp"

namespace cnnperf::ml_detail {

SortedColumns::SortedColumns(const FeatureMatrix& x)
    : rows(x.rows), order(x.rows * x.cols), rank(x.rows * x.cols) {
  if (x.rows > std::numeric_limits<std::uint32_t>::max()) {
    throw InputError("decision tree: more than 2^32 rows are not supported");
  }
  std::vector<double> column(x.rows);
  for (std::size_t f = 0; f < x.cols; ++f) {
    for (std::size_t r = 0; r < x.rows; ++r) column[r] = x(r, f);
    auto* begin = order.data() + f * x.rows;
    std::iota(begin, begin + x.rows, std::uint32_t{0});
    std::sort(begin, begin + x.rows, [&](std::uint32_t a, std::uint32_t b) {
      return column[a] < column[b] || (column[a] == column[b] && a < b);
    });
    std::uint32_t* ranks = rank.data() + f * x.rows;
    std::uint32_t current = 0;
    for (std::size_t i = 0; i < x.rows; ++i) {
      if (i > 0 && column[begin[i]] != column[begin[i - 1]]) ++current;
      ranks[begin[i]] = current;
    }
  }
}

std::size_t resolve_max_features(double max_features, std::size_t cols) {
  if (max_features <= 1.0) {
    const auto n =
        static_cast<std::size_t>(std::ceil(max_features * static_cast<double>(cols) - 1e-9));
    return std::clamp<std::size_t>(n, 1, cols);
  }
  return std::clamp<std::size_t>(static_cast<std::size_t>(max_features), 1, cols);
}

TreeParams tree_params_from(const nlohmann::json& params, std::size_t cols) {
  TreeParams tp;
  tp.max_depth = params.at("max_depth").get<std::int64_t>();
  tp.min_samples_split = params.at("min_samples_split").get<std::size_t>();
  tp.min_samples_leaf = params.at("min_samples_leaf").get<std::size_t>();
  tp.max_features = resolve_max_features(params.at("max_features").get<double>(), cols);
  return tp;
}

void normalise(std::vector<double>& importance) {
  const double total = std::accumulate(importance.begin(), importance.end(), 0.0);
  if (total > 0.0) {
    for (double& v : importance) v /= total;
  }
}

namespace {

struct Work {
  std::size_t begin;
  std::size_t end;
  std::int64_t depth;
  std::int32_t node;
};

std::int32_t add_node(Tree& tree) {
  tree.feature.push_back(-1);
  tree.threshold.push_back(0.0);
  tree.left.push_back(-1);
  tree.right.push_back(-1);
  tree.value.push_back(0.0);
  return static_cast<std::int32_t>(tree.feature.size() - 1);
}

}  // namespace

namespace {

// The rows with positive weight, renumbered 0..m-1, with their data column-major, so the
// split scans touch small contiguous arrays instead of the whole row-major matrix.
struct LocalRows {
  std::vector<double> yl;
  std::vector<double> wl;
  std::vector<double> xl;  ///< column-major, m per feature
  /// Per feature, m entries (dense value rank << 32 | local row): the split scan compares
  /// ranks read sequentially instead of chasing feature values, and partitions move one word
  /// per row.
  std::vector<std::uint64_t> buf;
};

LocalRows local_rows(const FeatureMatrix& x, std::span<const double> y,
                     std::span<const double> weights, const SortedColumns& sorted) {
  const std::size_t n = x.rows;
  const std::size_t n_feat = x.cols;
  LocalRows out;
  std::vector<double>& yl = out.yl;
  std::vector<double>& wl = out.wl;
  std::vector<std::int64_t> local_of(n, -1);
  for (std::size_t r = 0; r < n; ++r) {
    const double w = weights.empty() ? 1.0 : weights[r];
    if (w > 0.0) {
      local_of[r] = static_cast<std::int64_t>(yl.size());
      yl.push_back(y[r]);
      wl.push_back(w);
    }
  }
  const std::size_t m = yl.size();
  if (m == 0) throw InputError("decision tree: no row with a positive weight");
  std::vector<double>& xl = out.xl;
  xl.resize(m * n_feat);
  for (std::size_t r = 0; r < n; ++r) {
    if (local_of[r] < 0) continue;
    const auto l = static_cast<std::size_t>(local_of[r]);
    for (std::size_t f = 0; f < n_feat; ++f) xl[f * m + l] = x(r, f);
  }
  std::vector<std::uint64_t>& buf = out.buf;
  buf.resize(m * n_feat);
  for (std::size_t f = 0; f < n_feat; ++f) {
    std::size_t k = 0;
    const std::uint32_t* src = sorted.order.data() + f * n;
    const std::uint32_t* ranks = sorted.rank.data() + f * n;
    std::uint64_t* dst = buf.data() + f * m;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t l = local_of[src[i]];
      if (l >= 0) dst[k++] = (std::uint64_t{ranks[src[i]]} << 32) | static_cast<std::uint64_t>(l);
    }
  }
  return out;
}

}  // namespace

Tree grow_tree(const FeatureMatrix& x, std::span<const double> y, std::span<const double> weights,
               const SortedColumns& sorted, const TreeParams& params, std::uint64_t seed,
               std::vector<double>& importance) {
  const std::size_t n_feat = x.cols;
  LocalRows local = local_rows(x, y, weights, sorted);
  const std::vector<double>& yl = local.yl;
  const std::vector<double>& wl = local.wl;
  const std::vector<double>& xl = local.xl;
  std::vector<std::uint64_t>& buf = local.buf;
  const std::size_t m = yl.size();

  const std::size_t max_feat = params.max_features == 0 ? n_feat : params.max_features;
  const std::size_t min_leaf = std::max<std::size_t>(1, params.min_samples_leaf);
  const std::size_t min_split = std::max<std::size_t>({2, params.min_samples_split, 2 * min_leaf});
  std::vector<std::size_t> feat_order(n_feat);
  std::iota(feat_order.begin(), feat_order.end(), std::size_t{0});
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> goes_left(m);
  std::vector<std::uint64_t> tmp(m);
  // Weight and weighted target side by side (one cache line per row in the scan); targets
  // centred on the root mean so node sums stay small even for targets far from zero.
  double root_w = 0.0;
  double root_wy = 0.0;
  for (std::size_t r = 0; r < m; ++r) {
    root_w += wl[r];
    root_wy += wl[r] * yl[r];
  }
  const double root_mean = root_wy / root_w;
  std::vector<double> wwy(2 * m);
  for (std::size_t r = 0; r < m; ++r) {
    wwy[2 * r] = wl[r];
    wwy[2 * r + 1] = wl[r] * (yl[r] - root_mean);
  }
  constexpr std::uint64_t kRowMask = 0xFFFFFFFFULL;

  Tree tree;
  std::vector<Work> stack;
  stack.push_back({0, m, 0, add_node(tree)});
  while (!stack.empty()) {
    const Work work = stack.back();
    stack.pop_back();
    const std::size_t count = work.end - work.begin;
    const std::uint64_t* seg0 = buf.data() + work.begin;  // feature 0 block
    double w_sum = 0.0;
    double wy_sum = 0.0;
    double y_min = std::numeric_limits<double>::infinity();
    double y_max = -y_min;
    for (std::size_t i = 0; i < count; ++i) {
      const auto r = static_cast<std::uint32_t>(seg0[i] & kRowMask);
      w_sum += wl[r];
      wy_sum += wl[r] * yl[r];
      y_min = std::min(y_min, yl[r]);
      y_max = std::max(y_max, yl[r]);
    }
    const double mean = wy_sum / w_sum;
    const auto node = static_cast<std::size_t>(work.node);
    tree.value[node] = mean;
    if ((params.max_depth > 0 && work.depth >= params.max_depth) || count < min_split ||
        y_min == y_max) {
      continue;
    }
    // Sums of centred targets, S = sum w*y - mean * sum w: the gain S_L^2/W_L + S_R^2/W_R
    // then does not square the (possibly large) raw target sums.
    double c_sum = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto r = static_cast<std::uint32_t>(seg0[i] & kRowMask);
      c_sum += wl[r] * (yl[r] - mean);
    }

    double best_gain = -std::numeric_limits<double>::infinity();
    std::size_t best_feat = n_feat;
    std::size_t best_pos = 0;
    double best_threshold = 0.0;
    std::size_t visited = 0;
    for (std::size_t i = 0; i < n_feat && visited < max_feat; ++i) {
      // Partial Fisher-Yates: a fresh random feature each step; constant features do not
      // count towards max_features (as in scikit-learn).
      const std::size_t j = i + static_cast<std::size_t>(uniform_below(rng, n_feat - i));
      std::swap(feat_order[i], feat_order[j]);
      const std::size_t f = feat_order[i];
      const std::uint64_t* seg = buf.data() + f * m + work.begin;
      if ((seg[0] >> 32) == (seg[count - 1] >> 32)) continue;
      ++visited;
      double w_left = 0.0;
      double wy_left = 0.0;
      for (std::size_t k = 0; k + 1 < count; ++k) {
        const std::uint64_t e = seg[k];
        const std::size_t r = e & kRowMask;
        w_left += wwy[2 * r];
        wy_left += wwy[2 * r + 1];
        const std::size_t n_left = k + 1;
        if (n_left < min_leaf) continue;
        if (count - n_left < min_leaf) break;
        if ((e >> 32) == (seg[k + 1] >> 32)) continue;  // equal values: no threshold between
        const double w_right = w_sum - w_left;
        if (w_right <= 0.0) continue;
        const double s_left = wy_left - (mean - root_mean) * w_left;
        const double s_right = c_sum - s_left;
        const double gain = s_left * s_left / w_left + s_right * s_right / w_right;
        if (gain > best_gain) {
          best_gain = gain;
          best_feat = f;
          best_pos = k;
        }
      }
    }
    if (best_feat == n_feat) continue;

    importance[best_feat] += std::max(0.0, best_gain - c_sum * c_sum / w_sum);
    const std::uint64_t* best_seg = buf.data() + best_feat * m + work.begin;
    {
      const double* col = xl.data() + best_feat * m;
      const double xv = col[best_seg[best_pos] & kRowMask];
      const double xn = col[best_seg[best_pos + 1] & kRowMask];
      double mid = xv + 0.5 * (xn - xv);
      if (!(mid < xn)) mid = xv;  // adjacent doubles: the midpoint rounds up to xn
      best_threshold = mid;
    }
    for (std::size_t k = 0; k < count; ++k) {
      goes_left[best_seg[k] & kRowMask] = k <= best_pos ? 1 : 0;
    }
    const std::size_t n_left = best_pos + 1;
    for (std::size_t f = 0; f < n_feat; ++f) {
      std::uint64_t* seg = buf.data() + f * m + work.begin;
      std::size_t li = 0;
      std::size_t ri = 0;
      // Branch-free stable partition: the side is data-dependent and unpredictable.
      for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t e = seg[k];
        const std::size_t g = goes_left[e & kRowMask];
        seg[li] = e;
        tmp[ri] = e;
        li += g;
        ri += 1 - g;
      }
      std::copy_n(tmp.data(), ri, seg + li);
    }
    const std::int32_t left = add_node(tree);
    const std::int32_t right = add_node(tree);
    tree.feature[node] = static_cast<std::int32_t>(best_feat);
    tree.threshold[node] = best_threshold;
    tree.left[node] = left;
    tree.right[node] = right;
    stack.push_back({work.begin + n_left, work.end, work.depth + 1, right});
    stack.push_back({work.begin, work.begin + n_left, work.depth + 1, left});
  }
  return tree;
}

nlohmann::json Tree::to_json() const {
  return {{"feature", feature},
          {"threshold", threshold},
          {"left", left},
          {"right", right},
          {"value", value}};
}

Tree Tree::from_json(const nlohmann::json& doc, std::size_t n_features, const std::string& at) {
  Tree t;
  t.feature = int32_array(doc, "feature", at);
  t.threshold = number_array(doc, "threshold", at);
  t.left = int32_array(doc, "left", at);
  t.right = int32_array(doc, "right", at);
  t.value = number_array(doc, "value", at);
  const std::size_t size = t.feature.size();
  if (size == 0 || t.threshold.size() != size || t.left.size() != size || t.right.size() != size ||
      t.value.size() != size) {
    throw FieldError(at, "expected node arrays of one non-zero length");
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (t.feature[i] < 0) continue;
    // Children always come after their parent, which also rules out cycles.
    const auto ok = [&](std::int32_t c) {
      return c > static_cast<std::int32_t>(i) && static_cast<std::size_t>(c) < size;
    };
    if (static_cast<std::size_t>(t.feature[i]) >= n_features || !ok(t.left[i]) || !ok(t.right[i])) {
      throw FieldError(at, "node " + std::to_string(i) +
                               ": expected a feature index below n_features and children after it");
    }
  }
  return t;
}

// ---------------------------------------------------------------------------------------------

namespace {

class DecisionTreeRegressor final : public Regressor {
 public:
  explicit DecisionTreeRegressor(nlohmann::json params) : Regressor(std::move(params)) {}

  [[nodiscard]] RegressorKind kind() const override { return RegressorKind::kDecisionTree; }
  [[nodiscard]] std::vector<double> feature_importances() const override { return importance_; }

 protected:
  void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                std::span<const double> weights) override {
    const TreeParams tp = tree_params_from(params_, x.cols);
    const SortedColumns sorted(x);
    importance_.assign(x.cols, 0.0);
    tree_ =
        grow_tree(x, y, weights, sorted, tp, params_.at("seed").get<std::uint64_t>(), importance_);
    normalise(importance_);
  }

  [[nodiscard]] std::vector<double> predict_impl(const FeatureMatrix& x) const override {
    std::vector<double> out(x.rows);
    for (std::size_t r = 0; r < x.rows; ++r) out[r] = tree_.predict_row(x.row(r));
    return out;
  }

  [[nodiscard]] nlohmann::json model_to_json() const override {
    return {{"tree", tree_.to_json()}, {"feature_importances", importance_}};
  }

  void model_from_json(const nlohmann::json& model) override {
    tree_ = Tree::from_json(require(model, "tree"), n_features(), "model.tree");
    importance_ = number_array(model, "feature_importances");
    if (importance_.size() != n_features()) {
      throw FieldError("model.feature_importances", "expected n_features entries");
    }
  }

 private:
  Tree tree_;
  std::vector<double> importance_;
};

}  // namespace

void read_tree_params(ParamReader& reader, double default_max_features) {
  reader.get_int("max_depth", 0, 0, 1000);
  reader.get_int("min_samples_split", 2, 2, 1 << 30);
  reader.get_int("min_samples_leaf", 1, 1, 1 << 30);
  reader.get_double("max_features", default_max_features, 1e-9, 1e9);
}

std::unique_ptr<Regressor> make_decision_tree(const nlohmann::json& params) {
  ParamReader reader("dtree", params);
  reader.get_common();
  read_tree_params(reader, 1.0);
  return std::make_unique<DecisionTreeRegressor>(reader.finish());
}

}  // namespace cnnperf::ml_detail
