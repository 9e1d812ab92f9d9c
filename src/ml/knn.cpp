// SPDX-License-Identifier: Apache-2.0
// K-nearest-neighbours regression over a nanoflann KD-tree. Features are standardised with
// the training mean/std so that no single large-magnitude feature (FLOPs) dominates the
// distance. With log_target the neighbours are averaged in log space (a geometric mean),
// which suits latency targets spanning orders of magnitude.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <thread>

#include <nanoflann.hpp>

#include "cnnperf/common/error.hpp"
#include "regressor_internal.hpp"

namespace cnnperf::ml_detail {
namespace {

/// nanoflann dataset adaptor over our row-major scaled training points.
struct PointCloud {
  const std::vector<double>* points = nullptr;
  std::size_t dims = 0;
  [[nodiscard]] std::size_t kdtree_get_point_count() const { return points->size() / dims; }
  [[nodiscard]] double kdtree_get_pt(std::size_t idx, std::size_t dim) const {
    return (*points)[idx * dims + dim];
  }
  template <class Bbox>
  bool kdtree_get_bbox(Bbox& /*bb*/) const {
    return false;
  }
};

using KdTree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, PointCloud>,
                                                   PointCloud, -1, std::size_t>;

class KnnRegressor final : public Regressor {
 public:
  explicit KnnRegressor(nlohmann::json params) : Regressor(std::move(params)) {
    k_ = static_cast<std::size_t>(params_.at("k").get<std::int64_t>());
    distance_weighted_ = params_.at("weights").get<std::string>() == "distance";
    n_threads_ = params_.at("n_threads").get<std::int64_t>();
  }

  [[nodiscard]] RegressorKind kind() const override { return RegressorKind::kKnn; }

 protected:
  void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                std::span<const double> weights) override {
    const std::size_t n = x.rows;
    const std::size_t p = x.cols;
    mean_.assign(p, 0.0);
    scale_.assign(p, 0.0);
    // Unweighted scaling: sample weights change how much a neighbour counts, not the metric.
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t c = 0; c < p; ++c) mean_[c] += x(r, c);
    }
    for (double& m : mean_) m /= static_cast<double>(n);
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t c = 0; c < p; ++c) scale_[c] += (x(r, c) - mean_[c]) * (x(r, c) - mean_[c]);
    }
    for (double& s : scale_) {
      s = std::sqrt(s / static_cast<double>(n));
      if (!(s > 0.0)) s = 1.0;
    }
    points_.resize(n * p);
    targets_.clear();
    point_weights_.clear();
    std::size_t kept = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const double w = weights.empty() ? 1.0 : weights[r];
      if (w <= 0.0) continue;  // a zero-weight row can never contribute: leave it out
      for (std::size_t c = 0; c < p; ++c) points_[kept * p + c] = (x(r, c) - mean_[c]) / scale_[c];
      targets_.push_back(y[r]);
      point_weights_.push_back(w);
      ++kept;
    }
    points_.resize(kept * p);
    build_index(p);
  }

  [[nodiscard]] std::vector<double> predict_impl(const FeatureMatrix& x) const override {
    std::vector<double> out(x.rows);
    const unsigned threads = std::min<unsigned>(resolve_threads(n_threads_),
                                                static_cast<unsigned>((x.rows + 255) / 256));
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      const std::size_t k = std::min(k_, targets_.size());
      std::vector<std::size_t> idx(k);
      std::vector<double> dist_sq(k);
      std::vector<double> query(x.cols);
      for (;;) {
        const std::size_t begin = next.fetch_add(256);
        if (begin >= x.rows) break;
        const std::size_t end = std::min(begin + 256, x.rows);
        for (std::size_t r = begin; r < end; ++r) {
          for (std::size_t c = 0; c < x.cols; ++c) query[c] = (x(r, c) - mean_[c]) / scale_[c];
          const std::size_t found = index_->knnSearch(query.data(), k, idx.data(), dist_sq.data());
          out[r] = combine(idx.data(), dist_sq.data(), found);
        }
      }
    };
    if (threads <= 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
      for (auto& th : pool) th.join();
    }
    return out;
  }

  [[nodiscard]] nlohmann::json model_to_json() const override {
    // KNN is instance-based: the model is the (scaled) training set itself.
    return {{"feature_mean", mean_},
            {"feature_scale", scale_},
            {"points", points_},
            {"targets", targets_},
            {"weights", point_weights_}};
  }

  void model_from_json(const nlohmann::json& model) override {
    mean_ = number_array(model, "feature_mean");
    scale_ = number_array(model, "feature_scale");
    points_ = number_array(model, "points");
    targets_ = number_array(model, "targets");
    point_weights_ = number_array(model, "weights");
    const std::size_t p = n_features();
    if (mean_.size() != p || scale_.size() != p || targets_.empty() ||
        points_.size() != targets_.size() * p || point_weights_.size() != targets_.size()) {
      throw FieldError("model", "expected array sizes that match n_features and the targets");
    }
    build_index(p);
  }

 private:
  void build_index(std::size_t dims) {
    cloud_ = PointCloud{&points_, dims};
    index_ = std::make_unique<KdTree>(static_cast<int>(dims), cloud_,
                                      nanoflann::KDTreeSingleIndexAdaptorParams(16));
    index_->buildIndex();
  }

  /// Weighted mean of the neighbours' targets. With distance weighting an exact match
  /// (distance 0) takes precedence, as 1/d would be infinite.
  [[nodiscard]] double combine(const std::size_t* idx, const double* dist_sq,
                               std::size_t found) const {
    double num = 0.0;
    double den = 0.0;
    if (distance_weighted_) {
      for (std::size_t i = 0; i < found; ++i) {
        if (dist_sq[i] == 0.0) {
          num += point_weights_[idx[i]] * targets_[idx[i]];
          den += point_weights_[idx[i]];
        }
      }
      if (den > 0.0) return num / den;
      for (std::size_t i = 0; i < found; ++i) {
        const double w = point_weights_[idx[i]] / std::sqrt(dist_sq[i]);
        num += w * targets_[idx[i]];
        den += w;
      }
      return num / den;
    }
    for (std::size_t i = 0; i < found; ++i) {
      num += point_weights_[idx[i]] * targets_[idx[i]];
      den += point_weights_[idx[i]];
    }
    return num / den;
  }

  std::size_t k_ = 5;
  bool distance_weighted_ = false;
  std::int64_t n_threads_ = 0;
  std::vector<double> mean_;
  std::vector<double> scale_;
  std::vector<double> points_;
  std::vector<double> targets_;
  std::vector<double> point_weights_;
  PointCloud cloud_;
  std::unique_ptr<KdTree> index_;
};

}  // namespace

std::unique_ptr<Regressor> make_knn(const nlohmann::json& params) {
  ParamReader reader("knn", params);
  reader.get_common();
  reader.get_int("k", 5, 1, 100000);
  reader.get_choice("weights", "uniform", {"uniform", "distance"});
  reader.get_int("n_threads", 0, 0, 1024);
  return std::make_unique<KnnRegressor>(reader.finish());
}

}  // namespace cnnperf::ml_detail
