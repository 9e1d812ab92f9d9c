// SPDX-License-Identifier: Apache-2.0
// What train fits, written out, to fit other learners on the same features and folds.
#pragma once

#include <cstdint>
#include <string>

#include "cnnperf/ml/cross_validation.hpp"

namespace cnnperf {

/// What `train` fits, as CSV text, one row per measured row of each op family: `family`,
/// `source`, `gpu`, `fold` (the row's fold under `scheme`, `folds`, `seed`, as the
/// cross-validation would hold it out), every feature of `spec` (feature_names order),
/// `baseline_ms` (analytical
/// + the harness terms fitted, as in cross_validate_family, by fold_harness_terms), the measured
/// `latency_ms` and `log_ratio` = log(latency_ms / baseline_ms), the regression target. A
/// family the scheme does not apply to (scheme_not_applicable) is left out, with a warning.
[[nodiscard]] std::string feature_matrix_csv(const TrainingData& data, const FeatureSpec& spec,
                                             CvScheme scheme, int folds, std::uint64_t seed,
                                             bool host_floor = true);

}  // namespace cnnperf
