// SPDX-License-Identifier: Apache-2.0
// The held-out residuals prediction intervals are fitted on: the analytical model's under a
// cross-validation scheme, a learned model's out-of-fold ones, and the end-to-end steps'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/training_data.hpp"

namespace cnnperf {

/// Row r's group in the interval residuals (IntervalResidual::group): its machine, "source/gpu",
/// the source's harness on its GPU, which shifts all its rows alike.
[[nodiscard]] std::string interval_group(const TrainingData& data, std::size_t r);

/// The analytical model's residuals on every row of `data`, folds as family_folds assigns
/// them under `scheme`: each row predicted as the analytical estimate plus its harness terms
/// (floor, traffic) fitted on the fold's training rows (fold_harness_terms: under
/// leave-source-out the held-out source's own). The analytical model itself fits nothing, so
/// only the harness terms and the quantiles need the folds. Families
/// the scheme cannot split are left out, with why in `not_applicable` (when non-null). Each
/// residual's group is its machine, "source/gpu".
[[nodiscard]] std::vector<IntervalResidual> analytical_residuals(
    const TrainingData& data, CvScheme scheme, int folds, std::uint64_t seed,
    std::map<std::string, std::string>* not_applicable = nullptr);

/// A learned model's out-of-fold residuals from its cross-validation (`cv`, run with `scheme`,
/// `folds` and `seed`), each row in the fold family_folds gave it.
[[nodiscard]] std::vector<IntervalResidual> cv_residuals(const TrainingData& data,
                                                         const CvResult& cv, CvScheme scheme,
                                                         int folds, std::uint64_t seed);

/// The single-GPU end-to-end rows' residuals of a leave-one-GPU-out evaluation
/// (`evaluation.predicted_ms`, one per row of `rows`), family kNetworkIntervalFamily, one fold
/// per GPU.
[[nodiscard]] std::vector<IntervalResidual> e2e_residuals(const std::vector<E2eRow>& rows,
                                                          const E2eEvaluation& evaluation);

}  // namespace cnnperf
