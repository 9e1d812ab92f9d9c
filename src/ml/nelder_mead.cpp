// SPDX-License-Identifier: Apache-2.0
// Nelder-Mead simplex search (reflection, expansion, contraction, shrink).
#include "nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cnnperf {

NelderMeadResult nelder_mead(const std::function<double(const std::vector<double>&)>& objective,
                             const std::vector<double>& start, double step, int max_iterations,
                             double tolerance) {
  const std::size_t n = start.size();
  std::vector<std::vector<double>> simplex(n + 1, start);
  for (std::size_t i = 1; i <= n; ++i) {
    simplex[i][i - 1] += step;
  }
  std::vector<double> f(n + 1);
  for (std::size_t i = 0; i <= n; ++i) {
    f[i] = objective(simplex[i]);
  }
  std::vector<std::size_t> order(n + 1);
  for (int iter = 0; iter < max_iterations && n > 0; ++iter) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return f[a] < f[b]; });
    const std::size_t best = order[0], worst = order[n], second = order[n - 1];
    if (std::fabs(f[worst] - f[best]) < tolerance) {
      break;
    }
    std::vector<double> centroid(n, 0.0);
    for (std::size_t i = 0; i <= n; ++i) {
      if (i == worst) {
        continue;
      }
      for (std::size_t d = 0; d < n; ++d) {
        centroid[d] += simplex[i][d] / static_cast<double>(n);
      }
    }
    auto along = [&](double t) {
      std::vector<double> v(n);
      for (std::size_t d = 0; d < n; ++d) {
        v[d] = centroid[d] + t * (simplex[worst][d] - centroid[d]);
      }
      return v;
    };
    auto replace_worst = [&](std::vector<double> v, double fv) {
      simplex[worst] = std::move(v);
      f[worst] = fv;
    };
    std::vector<double> reflected = along(-1.0);
    const double fr = objective(reflected);
    if (fr < f[best]) {
      std::vector<double> expanded = along(-2.0);
      const double fe = objective(expanded);
      if (fe < fr) {
        replace_worst(std::move(expanded), fe);
      } else {
        replace_worst(std::move(reflected), fr);
      }
    } else if (fr < f[second]) {
      replace_worst(std::move(reflected), fr);
    } else {
      std::vector<double> contracted = along(0.5);
      const double fc = objective(contracted);
      if (fc < f[worst]) {
        replace_worst(std::move(contracted), fc);
      } else {
        for (std::size_t i = 0; i <= n; ++i) {
          if (i == best) {
            continue;
          }
          for (std::size_t d = 0; d < n; ++d) {
            simplex[i][d] = simplex[best][d] + 0.5 * (simplex[i][d] - simplex[best][d]);
          }
          f[i] = objective(simplex[i]);
        }
      }
    }
  }
  const auto best = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
  return {simplex[best], f[best]};
}

}  // namespace cnnperf
