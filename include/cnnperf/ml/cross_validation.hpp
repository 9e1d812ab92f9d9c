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

#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/metrics.hpp"

namespace cnnperf {

/// Cross-validation schemes. kLeaveSourceOut holds out one measurement source (the rows'
/// `source` column) per fold: the kernel-time model is trained on the other sources only.
enum class CvScheme { kKfold, kGroupShape, kLeaveGpuOut, kLeaveSourceOut };
[[nodiscard]] CvScheme cv_scheme_from_string(std::string_view text);
[[nodiscard]] std::string to_string(CvScheme scheme);

/// Out-of-fold results of one regressor on one family.
struct CvResult {
  RegressorKind kind = RegressorKind::kXgboost;
  OpFamily family = OpFamily::kConv;
  std::vector<std::size_t> rows;  ///< data rows evaluated
  std::vector<double> predicted_ms;
  /// The same folds' models with the fallback off (FamilyModel::fallback_spans infinite):
  /// what the fallback changed, row by row, in the same run.
  std::vector<double> predicted_without_fallback_ms;
  Metrics overall;
  std::map<std::string, Metrics> per_gpu;
  std::map<std::string, Metrics> per_source;  ///< by the rows' `source` column
  double train_seconds = 0;
  /// Non-empty when the scheme does not apply to the family's rows (leave-source-out on rows
  /// of one source): why. Then nothing was fitted and the metrics are empty (n = 0).
  std::string not_applicable;
  /// Leave-source-out, per held-out source: its rows on GPUs no other source of the family
  /// has (by GPU name), which are unseen GPUs as well.
  std::map<std::string, std::size_t> unseen_gpu_rows;
};

/// Why `scheme` cannot cross-validate these rows of `data` without failing, or "" when it
/// can: leave-source-out on rows of fewer than two sources (one fold would hold every row).
[[nodiscard]] std::string scheme_not_applicable(const TrainingData& data,
                                                const std::vector<std::size_t>& rows,
                                                CvScheme scheme);

/// The harness terms a fold's models get (FamilyModel::harness): fitted on `train`, and under
/// leave-source-out also those of the held-out source fitted on its own `test` rows, as they
/// are the measuring harness's terms, not the GPU's.
[[nodiscard]] HarnessTerms fold_harness_terms(const TrainingData& data,
                                              const std::vector<std::size_t>& train,
                                              const std::vector<std::size_t>& test,
                                              CvScheme scheme);

/// The fold of each of `rows` (a family's rows of `data`) under `scheme`, as
/// cross_validate_family assigns them; `n_folds` (when non-null) receives the fold count
/// (leave-gpu-out: the number of GPUs; leave-source-out: of sources, in name order). Throws
/// InputError for leave-gpu-out on one GPU and leave-source-out on one source.
[[nodiscard]] std::vector<int> family_folds(const TrainingData& data,
                                            const std::vector<std::size_t>& rows, CvScheme scheme,
                                            int folds, std::uint64_t seed, int* n_folds);

/// Cross-validates a regressor on a family's rows (each fold fitted as fit_family_models
/// with `split` and `host_floor` would fit it: floors as fold_harness_terms gives them).
/// Leave-source-out on rows of one source returns a result with `not_applicable` set.
/// `fallback_spans` is each fold model's FamilyModel::fallback_spans (infinity: no fallback).
[[nodiscard]] CvResult cross_validate_family(const TrainingData& data, OpFamily family,
                                             RegressorKind kind, const FamilyParams& params,
                                             const FeatureSpec& spec, CvScheme scheme, int folds,
                                             std::uint64_t seed,
                                             SourceSplit split = SourceSplit::kSplit,
                                             bool host_floor = true,
                                             double fallback_spans = kFallbackSpans);

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
  /// Each candidate's held-out residuals on the compared rows, one fold per held-out GPU and
  /// grouped by machine: what an unseen GPU's intervals are fitted on (chosen_residuals).
  /// unseen_gpu_check fills the learned and analytical ones; gpu_blind_residuals are the
  /// caller's, with gpu_blind_mape_pct.
  std::vector<IntervalResidual> learned_residuals;
  std::vector<IntervalResidual> analytical_residuals;
  std::vector<IntervalResidual> gpu_blind_residuals;
  /// The most accurate: "learned", "analytical" or "gpu-blind" (ties keep the earlier).
  [[nodiscard]] std::string choice() const;
  /// The residuals of choice()'s candidate.
  [[nodiscard]] const std::vector<IntervalResidual>& chosen_residuals() const;
  /// One held-out GPU's rows and each candidate's MAPE on them (gpu-blind NaN when not
  /// cross-validated).
  struct GpuScores {
    std::size_t rows = 0;
    double learned_mape_pct = 0;
    double analytical_mape_pct = 0;
    double gpu_blind_mape_pct = std::numeric_limits<double>::quiet_NaN();
  };
  /// Per held-out GPU (database name), from the residuals: where a candidate wins or loses,
  /// which the pooled MAPEs average away.
  [[nodiscard]] std::map<std::string, GpuScores> per_gpu() const;
  [[nodiscard]] bool prefer_analytical() const { return choice() == "analytical"; }
};
/// The check from a leave-one-GPU-out CvResult of the family (cv.rows, cv.predicted_ms).
/// With `host_floor`, the analytical side is what the fallback predicts: analytical + the host
/// floor an unseen GPU gets, fitted (like the learned side's) without the held-out GPU's rows.
[[nodiscard]] UnseenGpuCheck unseen_gpu_check(const TrainingData& data, const CvResult& logo,
                                              bool host_floor = true);

}  // namespace cnnperf
