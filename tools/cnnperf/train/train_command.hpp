// SPDX-License-Identifier: Apache-2.0
// `cnnperf train latency|e2e|power`: the learned latency model (cross-validated metrics per
// regressor and op family, and the model file), the analytical baseline's eager overhead, and
// the power model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// `train latency` (also plain `train`).
struct TrainOptions {
  std::vector<std::string> data;      ///< measured layer CSVs (plain or .gz)
  std::string regressor = "xgboost";  ///< linear|knn|dtree|rf|xgboost|all
  std::string features = "default";   ///< FeatureSpec::parse text
  std::string cv = "kfold";           ///< kfold|group-shape|leave-gpu-out|leave-source-out
  std::string sources = "split";      ///< split (a model per measurement source) | joint
  /// Fit each (source, GPU)'s host floor and regress on analytical + floor (FamilyModel::
  /// host_floor_ms); false: floor 0.
  bool host_floor = true;
  /// Also run leave-one-GPU-out per family and keep, for GPUs outside the training data, the
  /// best of the learned model, the same fitted without GPU features and the analytical model
  /// (FamilyModel::gpu_blind_regressor, FamilyModel::analytical_for_unseen_gpus).
  bool unseen_gpu_check = false;
  int folds = 5;
  std::string out;               ///< model file to write; empty: metrics only
  std::vector<std::string> e2e;  ///< end-to-end CSVs: calibrate the eager overhead
  std::size_t max_rows = 0;      ///< 0: all rows; else a seeded uniform sample
  std::uint64_t seed = 42;
  std::string format = "table";
  std::string output;        ///< metrics destination; empty: stdout
  std::string params;        ///< JSON object overriding default_params (per kind)
  std::string command_line;  ///< recorded in the model metadata
  /// Non-empty: write the feature matrix (feature_matrix_csv, folds of `cv`) to this CSV
  /// instead of training, for fitting other learners on exactly what `train` fits.
  std::string export_features;
};

/// `train e2e` and `train power`: calibrations on all rows of their CSVs.
struct TrainCalibrationOptions {
  std::vector<std::string> data;  ///< end-to-end CSVs (e2e) or power CSVs (power)
  std::string out;                ///< the overhead or power model file to write; empty: none
  std::string format = "table";
  std::string output;          ///< metrics destination; empty: stdout
  bool cross_validate = true;  ///< e2e: false fits without the cross-validation report
  /// `train e2e`: the runtime whose overhead to fit: pytorch (eager, the default),
  /// pytorch-compile (timm's eager/compiled pairs) or tensorrt (MLPerf ResNet-50 results).
  std::string runtime = "pytorch";
};

/// `train intervals`: the 80 % intervals of the analytical default, from its held-out
/// residuals, and their held-out coverage under every validation scheme.
struct TrainIntervalsOptions {
  std::vector<std::string> data;     ///< measured layer CSVs (plain or .gz)
  std::vector<std::string> e2e;      ///< end-to-end CSVs: the network totals' interval
  std::string cv = "leave-gpu-out";  ///< the scheme whose residuals the written table is fitted on
  int folds = 5;
  std::size_t max_rows = 0;  ///< 0: all rows; else a seeded uniform sample
  std::uint64_t seed = 42;
  std::string out;  ///< the intervals file to write; empty: coverage only
  std::string format = "table";
  std::string output;  ///< coverage report destination; empty: stdout
};

/// `train latency`: cross-validates and (with `out`) writes the model; returns the whole
/// result (metrics rows, model metadata) as JSON. Throws InputError for bad options or data.
[[nodiscard]] nlohmann::json train_report(const TrainOptions& options);

/// `train e2e`: the analytical baseline's eager overhead, calibrated on end-to-end rows
/// (leave-one-GPU-out, leave-one-network-out and in-sample), written as an overhead file.
[[nodiscard]] nlohmann::json train_e2e_report(const TrainCalibrationOptions& options);

/// `train power`: the power model, calibrated leave-one-GPU-out on power rows.
[[nodiscard]] nlohmann::json train_power_report(const TrainCalibrationOptions& options);

/// `train intervals`: coverage per scheme and family (and with `out` the table file).
[[nodiscard]] nlohmann::json train_intervals_report(const TrainIntervalsOptions& options);

/// Runs `train latency`: writes the metrics (and the model when `out`), returns 0.
int run_train(const TrainOptions& options);
/// Runs `train intervals`.
int run_train_intervals(const TrainIntervalsOptions& options);
/// Runs `train e2e`.
int run_train_e2e(const TrainCalibrationOptions& options);
/// Runs `train power`.
int run_train_power(const TrainCalibrationOptions& options);

}  // namespace cnnperf
