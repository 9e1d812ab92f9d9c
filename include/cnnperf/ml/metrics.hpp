// SPDX-License-Identifier: Apache-2.0
// Accuracy metrics for regressors: the figures `train` and `validate` print.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// Mean absolute percentage error in percent, over rows with y_true != 0
/// (NaN when there are none).
[[nodiscard]] double mape_percent(std::span<const double> y_true, std::span<const double> y_pred);
/// Coefficient of determination 1 - SS_res/SS_tot (NaN when y_true is constant or empty).
[[nodiscard]] double r2_score(std::span<const double> y_true, std::span<const double> y_pred);
/// Adjusted R^2 = 1 - (1 - R^2)(n - 1)/(n - p - 1) for p features; NaN when n <= p + 1.
[[nodiscard]] double adjusted_r2(double r2, std::size_t n_samples, std::size_t n_features);
/// Share of rows (percent) whose relative error |pred - true| / |true| is at most
/// `tolerance` (0.10 = ±10%), over rows with y_true != 0.
[[nodiscard]] double within_tolerance_percent(std::span<const double> y_true,
                                              std::span<const double> y_pred,
                                              double tolerance = 0.10);
/// Spearman rank correlation; tied values get the average of their ranks.
/// NaN when either side is constant or there are fewer than 2 rows.
[[nodiscard]] double spearman(std::span<const double> a, std::span<const double> b);
/// Root mean squared error, in the unit of the target.
[[nodiscard]] double rmse(std::span<const double> y_true, std::span<const double> y_pred);
/// Ranks 1..n of `values`, ties averaged (the ranks Spearman correlates).
[[nodiscard]] std::vector<double> average_ranks(std::span<const double> values);

/// All metrics of one prediction run.
struct Metrics {
  std::size_t n = 0;          ///< number of rows
  double mape_pct = 0.0;      ///< mean absolute percentage error, %
  double r2 = 0.0;            ///< coefficient of determination
  double adjusted_r2 = 0.0;   ///< R^2 adjusted for the number of features
  double within_10pct = 0.0;  ///< share of rows within ±10%, %
  double spearman = 0.0;      ///< Spearman rank correlation
  double rmse = 0.0;          ///< root mean squared error, target unit
};

/// Computes every metric. Throws InputError when the sizes differ.
[[nodiscard]] Metrics compute_metrics(std::span<const double> y_true,
                                      std::span<const double> y_pred, std::size_t n_features);

/// {"n", "mape_pct", "r2", "adjusted_r2", "within_10pct", "spearman", "rmse"}; NaN -> null.
[[nodiscard]] nlohmann::json to_json(const Metrics& metrics);

}  // namespace cnnperf
