// SPDX-License-Identifier: Apache-2.0
// The results `train` and `validate` write as JSON, as types: each command fills one of these
// and its JSON is to_json of it, so a field is spelled in one place and a reader (a test, a
// later version) parses it back with from_json.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/metrics.hpp"

namespace cnnperf {

/// The "kind" of `train`'s cross-validation result (metrics per regressor and op family).
inline constexpr const char* kTrainMetricsKind = "train_metrics";
/// The "kind" of train's feature-matrix export result.
inline constexpr const char* kFeatureExportKind = "feature_export";
/// The "kind" of the cuDNN-algorithm study's result.
inline constexpr const char* kAlgoStudyKind = "algo_study";
/// The "kind" of `validate`'s result.
inline constexpr const char* kValidationMetricsKind = "validation_metrics";
/// Schema version of train's results (train_metrics, feature_export, algo_study).
inline constexpr int kTrainResultSchemaVersion = 1;
/// Schema version of validate's result.
inline constexpr int kValidationMetricsSchemaVersion = 1;

/// What every train result on layer rows opens with: versions, the data and its fingerprint,
/// folds and seed.
struct TrainDataHeader {
  int schema_version = kTrainResultSchemaVersion;
  std::string tool_version;
  std::vector<std::string> data;  ///< the measured layer CSVs read
  std::string fingerprint;        ///< of the rows read
  int folds = 0;
  std::uint64_t seed = 0;
};

/// One row of the cross-validation table: a regressor's metrics on one op family, over all
/// rows ("all"), one GPU's rows or one measurement source's rows.
struct TrainCvRow {
  Metrics metrics;
  std::string regressor;
  std::string family;
  std::string cv;                     ///< the fold scheme
  std::string gpu;                    ///< a GPU name, or "all"
  std::optional<std::string> source;  ///< set: the rows of this source only
  std::optional<double> train_s;      ///< wall time of the fits (absent on per-part rows)
  /// leave-source-out, a held-out source's row: how many of its rows were on GPUs no other
  /// source measured
  std::optional<std::size_t> unseen_gpu_rows;
  /// set: the scheme did not apply to this family (why); the row then carries no metric but n
  std::optional<std::string> not_applicable;
};

/// The unseen-GPU check of one family: which of the learned model, the same without GPU
/// features and the analytical model predicts a GPU outside the training data best.
struct TrainUnseenGpuRow {
  std::string family;
  std::string regressor;
  std::string source;
  std::size_t rows = 0;
  double learned_mape_pct = 0;
  std::optional<double> gpu_blind_mape_pct;  ///< unset: not measured (written as null)
  double analytical_mape_pct = 0;
  std::string unseen_gpu;  ///< the choice: learned, gpu-blind or analytical
  /// Per held-out GPU: {"rows", "learned_mape_pct", "gpu_blind_mape_pct" (null: not measured),
  /// "analytical_mape_pct"}
  nlohmann::json per_gpu = nlohmann::json::object();
};

/// The model file a train run wrote.
struct TrainedModelRef {
  std::string path;
  std::map<std::string, std::string> regressor_per_family;
};

/// `train`'s cross-validation result (kind train_metrics).
// As for ValidateResult below: clang-tidy 14 reads the implicit move of the nlohmann::json
// members as throwing.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct TrainResult {
  TrainDataHeader header;
  std::size_t rows = 0;
  std::size_t skipped_rows = 0;
  std::string features;  ///< FeatureSpec text
  std::string sources;   ///< split|joint
  bool host_floor = true;
  std::string cv_scheme;
  std::vector<TrainCvRow> cv;
  std::vector<std::string> unused_params_sections;  ///< absent when empty
  std::optional<std::vector<TrainUnseenGpuRow>> unseen_gpu_check;
  nlohmann::json intervals;  ///< to_json(CoverageReport) of the best kinds; null: absent
  /// The same for the unseen-GPU table, on the check's leave-one-GPU-out residuals; null: absent
  nlohmann::json unseen_gpu_intervals;
  /// The same for the steps' table (--e2e), on the calibration's leave-one-GPU-out residuals
  nlohmann::json step_intervals;
  nlohmann::json e2e;  ///< calibrate_e2e's report; null: absent
  std::optional<TrainedModelRef> model;
};

/// train's feature-matrix export result (kind feature_export).
struct FeatureExportResult {
  TrainDataHeader header;
  std::string features;
  std::vector<std::string> feature_names;
  bool host_floor = true;
  std::string cv_scheme;
  std::map<std::string, std::size_t> rows_per_family;
  std::string path;  ///< the CSV written
};

/// The cuDNN-algorithm study's result (kind algo_study).
struct AlgoStudyReport {
  TrainDataHeader header;
  std::string cv_scheme;
  std::string algo_classifier;
  int algo_inner_folds = 0;
  nlohmann::json algo_study = nlohmann::json::object();  ///< regressor -> run_algo_study's JSON
};

/// `validate`'s per-layer scores.
struct ValidateLayerScores {
  std::vector<std::string> files;
  std::string fingerprint;
  std::size_t rows = 0;  ///< rows scored
  std::size_t skipped_rows = 0;
  std::size_t unmodelled_rows = 0;  ///< rows of op families the model has no regressor for
  std::string source_features;      ///< which source each row is predicted with
  Metrics overall;
  std::map<std::string, Metrics> per_gpu;
  std::map<std::string, Metrics> per_family;
  /// Rows the model was trained on and rows it was not, scored apart: {"recorded": false,
  /// "note"} when the model file records no training rows, else {"recorded": true,
  /// "model_rows", "false_positive_rate", "seen": {"rows", "overall"}, "unseen": {...}}.
  nlohmann::json training_rows = nlohmann::json::object();
  /// The share of rows whose measurement lies inside their 80 % interval, from the model
  /// file's tables as predict gives them: {"table", "overall", "per_family", "per_gpu"}, each
  /// share as to_json(Coverage); {"table": "none: why"} for a file without tables.
  nlohmann::json intervals = nlohmann::json::object();
};

/// `validate`'s end-to-end scores.
struct ValidateE2eScores {
  std::string file;
  std::string latency_model;  ///< "analytical" or the model file
  std::size_t rows = 0;
  std::string eager_overhead_source;
  nlohmann::json evaluation = nlohmann::json::object();  ///< to_json(E2eEvaluation), merged in
  std::optional<std::size_t> unmodelled_multi_gpu_rows;
};

/// `validate`'s result (kind validation_metrics); a section is absent when its input was not
/// given.
// clang-tidy 14 reads the implicit move of the nlohmann::json and std::optional members as
// throwing; they are noexcept.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ValidateResult {
  int schema_version = kValidationMetricsSchemaVersion;
  std::string tool_version;
  std::optional<std::string> model;
  std::optional<std::string> model_fingerprint;
  std::optional<ValidateLayerScores> layers;
  std::optional<ValidateE2eScores> e2e;
  nlohmann::json power;  ///< power_validation_report; null: absent
};

/// {"n", "mape_pct", ...} as to_json(Metrics) writes it; null reads back as NaN.
[[nodiscard]] Metrics metrics_from_json(const nlohmann::json& j);

void to_json(nlohmann::json& j, const TrainCvRow& row);
void from_json(const nlohmann::json& j, TrainCvRow& row);
void to_json(nlohmann::json& j, const TrainUnseenGpuRow& row);
void from_json(const nlohmann::json& j, TrainUnseenGpuRow& row);
void to_json(nlohmann::json& j, const TrainedModelRef& model);
void from_json(const nlohmann::json& j, TrainedModelRef& model);
void to_json(nlohmann::json& j, const TrainResult& result);
void from_json(const nlohmann::json& j, TrainResult& result);
void to_json(nlohmann::json& j, const FeatureExportResult& result);
void from_json(const nlohmann::json& j, FeatureExportResult& result);
void to_json(nlohmann::json& j, const AlgoStudyReport& result);
void from_json(const nlohmann::json& j, AlgoStudyReport& result);
void to_json(nlohmann::json& j, const ValidateLayerScores& scores);
void from_json(const nlohmann::json& j, ValidateLayerScores& scores);
void to_json(nlohmann::json& j, const ValidateE2eScores& scores);
void from_json(const nlohmann::json& j, ValidateE2eScores& scores);
void to_json(nlohmann::json& j, const ValidateResult& result);
void from_json(const nlohmann::json& j, ValidateResult& result);

}  // namespace cnnperf
