// SPDX-License-Identifier: Apache-2.0
// Derivative-free minimization for the small calibrations (eager overhead, power model).
#pragma once

#include <functional>
#include <vector>

namespace cnnperf {

struct NelderMeadResult {
  std::vector<double> x;  ///< best point found
  double value = 0;       ///< objective at x
};

/// Minimizes `objective` from `start` with a simplex whose edges are `step` long along each
/// axis; stops after `max_iterations` or when the simplex values agree within `tolerance`.
[[nodiscard]] NelderMeadResult nelder_mead(
    const std::function<double(const std::vector<double>&)>& objective,
    const std::vector<double>& start, double step, int max_iterations = 600,
    double tolerance = 1e-7);

}  // namespace cnnperf
