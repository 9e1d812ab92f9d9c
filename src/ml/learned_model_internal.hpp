// SPDX-License-Identifier: Apache-2.0
// Helpers the learned model's sources share (training, cross-validation, feature export).
#pragma once

#include <cstddef>
#include <vector>

#include "cnnperf/ml/learned_model.hpp"

namespace cnnperf::ml_detail {

/// The analytical estimate of `layer` on `gpu`, in ms: the regressors' baseline.
[[nodiscard]] double analytical_ms(const Layer& layer, const GpuSpec& gpu);

/// The feature matrix of `rows` of `data`; `feature_gpus` (one per row), when given, replace
/// the rows' own GPUs in the features.
[[nodiscard]] FeatureMatrix matrix_for_rows(
    const TrainingData& data, const std::vector<std::size_t>& rows, const FeatureSpec& spec,
    const std::vector<const GpuSpec*>* feature_gpus = nullptr);

}  // namespace cnnperf::ml_detail
