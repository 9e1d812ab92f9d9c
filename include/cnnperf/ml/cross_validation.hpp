// SPDX-License-Identifier: Apache-2.0
// Cross-validation of the learned model, per op family: the fold schemes, out-of-fold
// predictions fitted as the model file's would be, and the unseen-GPU check.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/metrics.hpp"

namespace cnnperf {

/// Cross-validation schemes.
enum class CvScheme { kKfold, kGroupShape, kLeaveGpuOut };
[[nodiscard]] CvScheme cv_scheme_from_string(std::string_view text);
[[nodiscard]] std::string to_string(CvScheme scheme);

/// Out-of-fold results of one regressor on one family.
struct CvResult {
  RegressorKind kind = RegressorKind::kXgboost;
  OpFamily family = OpFamily::kConv;
  std::vector<std::size_t> rows;  ///< data rows evaluated
  std::vector<double> predicted_ms;
  Metrics overall;
  std::map<std::string, Metrics> per_gpu;
  std::map<std::string, Metrics> per_source;  ///< by the rows' `source` column
  double train_seconds = 0;
};

/// The fold of each of `rows` (a family's rows of `data`) under `scheme`, as
/// cross_validate_family assigns them; `n_folds` (when non-null) receives the fold count
/// (leave-gpu-out: the number of GPUs). Throws InputError for leave-gpu-out on one GPU.
[[nodiscard]] std::vector<int> family_folds(const TrainingData& data,
                                            const std::vector<std::size_t>& rows, CvScheme scheme,
                                            int folds, std::uint64_t seed, int* n_folds);

/// Cross-validates a regressor on a family's rows (each fold fitted as fit_family_models
/// with `split` and `host_floor` would fit it: floors from the fold's training rows only).
[[nodiscard]] CvResult cross_validate_family(const TrainingData& data, OpFamily family,
                                             RegressorKind kind, const FamilyParams& params,
                                             const FeatureSpec& spec, CvScheme scheme, int folds,
                                             std::uint64_t seed,
                                             SourceSplit split = SourceSplit::kSplit,
                                             bool host_floor = true);

/// Leave-one-GPU-out, on a family's rows of the reference source: the learned model's and the
/// analytical model's MAPE, and whether unseen GPUs should get the analytical estimate (plus
/// the host floor, FamilyModel::floor_ms).
struct UnseenGpuCheck {
  OpFamily family = OpFamily::kConv;
  std::size_t rows = 0;  ///< reference-source rows compared (0: none, no decision)
  double learned_mape_pct = 0;
  double analytical_mape_pct = 0;
  /// The learned model with the gpu group held at 0, on the same rows and folds; NaN when
  /// not cross-validated (then it is not a candidate).
  double gpu_blind_mape_pct = std::numeric_limits<double>::quiet_NaN();
  /// The most accurate: "learned", "analytical" or "gpu-blind" (ties keep the earlier).
  [[nodiscard]] std::string choice() const;
  [[nodiscard]] bool prefer_analytical() const { return choice() == "analytical"; }
};
/// The check from a leave-one-GPU-out CvResult of the family (cv.rows, cv.predicted_ms).
/// With `host_floor`, the analytical side is what the fallback predicts: analytical + the host
/// floor an unseen GPU gets, fitted (like the learned side's) without the held-out GPU's rows.
[[nodiscard]] UnseenGpuCheck unseen_gpu_check(const TrainingData& data, const CvResult& logo,
                                              bool host_floor = true);

}  // namespace cnnperf
