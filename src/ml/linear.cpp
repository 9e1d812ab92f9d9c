// SPDX-License-Identifier: Apache-2.0
// Ordinary (weighted) least squares on standardised features, solved with Eigen's
// complete orthogonal decomposition: a rank-deficient design (collinear or constant
// features) gets the minimum-norm solution instead of a failure.
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "cnnperf/common/error.hpp"
#include "regressor_internal.hpp"

namespace cnnperf::ml_detail {
namespace {

class LinearRegressor final : public Regressor {
 public:
  explicit LinearRegressor(nlohmann::json params) : Regressor(std::move(params)) {
    l2_ = params_.at("l2").get<double>();
  }

  [[nodiscard]] RegressorKind kind() const override { return RegressorKind::kLinear; }

 protected:
  void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                std::span<const double> weights) override {
    const std::size_t n = x.rows;
    const std::size_t p = x.cols;
    std::vector<double> w(n, 1.0);
    if (!weights.empty()) w.assign(weights.begin(), weights.end());
    const double w_sum = std::accumulate(w.begin(), w.end(), 0.0);

    // Weighted means and standard deviations: standardising keeps the solve well
    // conditioned when features span many orders of magnitude (FLOPs next to one-hots).
    std::vector<double> mean(p, 0.0);
    std::vector<double> scale(p, 0.0);
    double y_mean = 0.0;
    for (std::size_t r = 0; r < n; ++r) {
      const double* row = x.row(r);
      for (std::size_t c = 0; c < p; ++c) mean[c] += w[r] * row[c];
      y_mean += w[r] * y[r];
    }
    for (double& m : mean) m /= w_sum;
    y_mean /= w_sum;
    for (std::size_t r = 0; r < n; ++r) {
      const double* row = x.row(r);
      for (std::size_t c = 0; c < p; ++c) {
        const double d = row[c] - mean[c];
        scale[c] += w[r] * d * d;
      }
    }
    for (double& s : scale) {
      s = std::sqrt(s / w_sum);
      if (!(s > 0.0)) s = 1.0;  // constant column: all zeros after centring, coefficient 0
    }

    const std::size_t extra = l2_ > 0.0 ? p : 0;
    Eigen::MatrixXd a(static_cast<Eigen::Index>(n + extra), static_cast<Eigen::Index>(p));
    Eigen::VectorXd b(static_cast<Eigen::Index>(n + extra));
    for (std::size_t r = 0; r < n; ++r) {
      const double sw = std::sqrt(w[r]);
      const double* row = x.row(r);
      const auto ri = static_cast<Eigen::Index>(r);
      for (std::size_t c = 0; c < p; ++c) {
        a(ri, static_cast<Eigen::Index>(c)) = sw * (row[c] - mean[c]) / scale[c];
      }
      b(ri) = sw * (y[r] - y_mean);
    }
    if (extra > 0) {
      // Ridge as extra rows sqrt(l2)*I: same solver, no normal equations.
      const double s = std::sqrt(l2_);
      for (std::size_t c = 0; c < p; ++c) {
        const auto ri = static_cast<Eigen::Index>(n + c);
        a.row(ri).setZero();
        a(ri, static_cast<Eigen::Index>(c)) = s;
        b(ri) = 0.0;
      }
    }
    const Eigen::VectorXd beta = a.completeOrthogonalDecomposition().solve(b);

    coef_.assign(p, 0.0);
    intercept_ = y_mean;
    for (std::size_t c = 0; c < p; ++c) {
      coef_[c] = beta(static_cast<Eigen::Index>(c)) / scale[c];
      intercept_ -= coef_[c] * mean[c];
    }
    mean_ = std::move(mean);
    scale_ = std::move(scale);
    y_mean_ = y_mean;
  }

  [[nodiscard]] std::vector<double> predict_impl(const FeatureMatrix& x) const override {
    std::vector<double> out(x.rows);
    for (std::size_t r = 0; r < x.rows; ++r) {
      // Centred form: the same arithmetic as training, robust for large feature offsets.
      const double* row = x.row(r);
      double v = y_mean_;
      for (std::size_t c = 0; c < x.cols; ++c) v += coef_[c] * (row[c] - mean_[c]);
      out[r] = v;
    }
    return out;
  }

  [[nodiscard]] nlohmann::json model_to_json() const override {
    return {{"intercept", intercept_},
            {"coefficients", coef_},
            {"feature_mean", mean_},
            {"feature_scale", scale_},
            {"target_mean", y_mean_}};
  }

  void model_from_json(const nlohmann::json& model) override {
    intercept_ = number_member(model, "intercept");
    coef_ = number_array(model, "coefficients");
    mean_ = number_array(model, "feature_mean");
    scale_ = number_array(model, "feature_scale");
    y_mean_ = number_member(model, "target_mean");
    if (coef_.size() != n_features_for_check() || mean_.size() != coef_.size() ||
        scale_.size() != coef_.size()) {
      throw FieldError("model.coefficients",
                       "expected n_features entries, as many as feature_mean and feature_scale");
    }
  }

 private:
  [[nodiscard]] std::size_t n_features_for_check() const { return n_features(); }

  double l2_ = 0.0;
  double intercept_ = 0.0;
  double y_mean_ = 0.0;
  std::vector<double> coef_;
  std::vector<double> mean_;
  std::vector<double> scale_;
};

}  // namespace

std::unique_ptr<Regressor> make_linear(const nlohmann::json& params) {
  ParamReader reader("linear", params);
  reader.get_common();
  reader.get_double("l2", 0.0, 0.0, 1e12);
  return std::make_unique<LinearRegressor>(reader.finish());
}

}  // namespace cnnperf::ml_detail
