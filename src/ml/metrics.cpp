// SPDX-License-Identifier: Apache-2.0
// Accuracy metrics. Percent-error metrics skip rows whose true value is 0 (undefined ratio).
#include "cnnperf/ml/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "cnnperf/common/error.hpp"

namespace cnnperf {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_sizes(std::span<const double> a, std::span<const double> b, const char* what) {
  if (a.size() != b.size()) {
    throw InputError(std::string(what) + ": expected equal lengths, got " +
                     std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0.0;
  double saa = 0.0;
  double sbb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0.0 || sbb <= 0.0) return kNaN;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace

double mape_percent(std::span<const double> y_true, std::span<const double> y_pred) {
  check_sizes(y_true, y_pred, "mape");
  double sum = 0.0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    if (y_true[i] == 0.0) continue;
    sum += std::abs(y_pred[i] - y_true[i]) / std::abs(y_true[i]);
    ++count;
  }
  return count == 0 ? kNaN : 100.0 * sum / static_cast<double>(count);
}

double r2_score(std::span<const double> y_true, std::span<const double> y_pred) {
  check_sizes(y_true, y_pred, "r2");
  if (y_true.empty()) return kNaN;
  const double mean =
      std::accumulate(y_true.begin(), y_true.end(), 0.0) / static_cast<double>(y_true.size());
  double ss_res = 0.0;
  double ss_tot = 0.0;
  double ss_raw = 0.0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    ss_res += (y_true[i] - y_pred[i]) * (y_true[i] - y_pred[i]);
    ss_tot += (y_true[i] - mean) * (y_true[i] - mean);
    ss_raw += y_true[i] * y_true[i];
  }
  // Constant targets leave only the mean's rounding error in ss_tot (~1e-32 of ss_raw): R^2 is
  // undefined then, not the huge number dividing by that rounding would give.
  if (ss_tot <= 1e-20 * ss_raw) return kNaN;
  return 1.0 - ss_res / ss_tot;
}

double adjusted_r2(double r2, std::size_t n_samples, std::size_t n_features) {
  if (n_samples <= n_features + 1) return kNaN;
  const double n = static_cast<double>(n_samples);
  const double p = static_cast<double>(n_features);
  return 1.0 - (1.0 - r2) * (n - 1.0) / (n - p - 1.0);
}

double within_tolerance_percent(std::span<const double> y_true, std::span<const double> y_pred,
                                double tolerance) {
  check_sizes(y_true, y_pred, "within_tolerance");
  std::size_t hits = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    if (y_true[i] == 0.0) continue;
    ++count;
    // A small relative slack so that an error of exactly 10% counts as within ±10%
    // despite binary rounding of the ratio.
    if (std::abs(y_pred[i] - y_true[i]) / std::abs(y_true[i]) <= tolerance * (1.0 + 1e-12)) ++hits;
  }
  return count == 0 ? kNaN : 100.0 * static_cast<double>(hits) / static_cast<double>(count);
}

std::vector<double> average_ranks(std::span<const double> values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n);
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = i + 1;
    while (j < n && values[order[j]] == values[order[i]]) ++j;
    // Rows i..j-1 (0-based) tie: each gets the mean of ranks i+1..j.
    const double rank = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j));
    for (std::size_t k = i; k < j; ++k) ranks[order[k]] = rank;
    i = j;
  }
  return ranks;
}

double spearman(std::span<const double> a, std::span<const double> b) {
  check_sizes(a, b, "spearman");
  if (a.size() < 2) return kNaN;
  return pearson(average_ranks(a), average_ranks(b));
}

double rmse(std::span<const double> y_true, std::span<const double> y_pred) {
  check_sizes(y_true, y_pred, "rmse");
  if (y_true.empty()) return kNaN;
  double ss = 0.0;
  for (std::size_t i = 0; i < y_true.size(); ++i) {
    ss += (y_true[i] - y_pred[i]) * (y_true[i] - y_pred[i]);
  }
  return std::sqrt(ss / static_cast<double>(y_true.size()));
}

Metrics compute_metrics(std::span<const double> y_true, std::span<const double> y_pred,
                        std::size_t n_features) {
  check_sizes(y_true, y_pred, "metrics");
  Metrics m;
  m.n = y_true.size();
  m.mape_pct = mape_percent(y_true, y_pred);
  m.r2 = r2_score(y_true, y_pred);
  m.adjusted_r2 = adjusted_r2(m.r2, m.n, n_features);
  m.within_10pct = within_tolerance_percent(y_true, y_pred, 0.10);
  m.spearman = spearman(y_true, y_pred);
  m.rmse = rmse(y_true, y_pred);
  return m;
}

nlohmann::json to_json(const Metrics& metrics) {
  auto num = [](double v) -> nlohmann::json {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"n", metrics.n},
          {"mape_pct", num(metrics.mape_pct)},
          {"r2", num(metrics.r2)},
          {"adjusted_r2", num(metrics.adjusted_r2)},
          {"within_10pct", num(metrics.within_10pct)},
          {"spearman", num(metrics.spearman)},
          {"rmse", num(metrics.rmse)}};
}

}  // namespace cnnperf
