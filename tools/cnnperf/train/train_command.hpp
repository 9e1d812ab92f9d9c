// SPDX-License-Identifier: Apache-2.0
// `cnnperf train`: cross-validated metrics per regressor and op family, and the model file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnnperf {

struct TrainOptions {
  std::vector<std::string> data;      ///< measured layer CSVs (plain or .gz)
  std::string regressor = "xgboost";  ///< linear|knn|dtree|rf|xgboost|all
  std::string features = "default";   ///< FeatureSpec::parse text
  std::string cv = "kfold";           ///< kfold|group-shape|leave-gpu-out
  std::string sources = "split";      ///< split (a model per measurement source) | joint
  /// Fit each (source, GPU)'s host floor and regress on analytical + floor (FamilyModel::
  /// host_floor_ms); false: floor 0, the model before 2026-11-24.
  bool host_floor = true;
  /// Also run leave-one-GPU-out per family and keep, for GPUs outside the training data, the
  /// best of the learned model, the same fitted without GPU features and the analytical model
  /// (FamilyModel::gpu_blind_regressor, FamilyModel::analytical_for_unseen_gpus).
  bool unseen_gpu_check = false;
  int folds = 5;
  std::string out;                 ///< model file to write; empty: metrics only
  std::vector<std::string> e2e;    ///< end-to-end CSVs: calibrate the eager overhead
  std::vector<std::string> power;  ///< power CSVs: calibrate the power model (not with data)
  std::size_t max_rows = 0;        ///< 0: all rows; else a seeded uniform sample
  std::uint64_t seed = 42;
  std::string format = "table";
  std::string output;        ///< metrics destination; empty: stdout
  std::string params;        ///< JSON object overriding default_params (per kind)
  std::string command_line;  ///< recorded in the model metadata
  /// Non-empty: write the feature matrix (feature_matrix_csv, folds of `cv`) to this CSV
  /// instead of training, for fitting other learners on exactly what `train` fits.
  std::string export_features;
};

/// Trains and reports; returns the whole result (metrics rows, model metadata) as JSON.
/// Throws InputError for bad options or data.
[[nodiscard]] nlohmann::json train_report(const TrainOptions& options);

/// Runs the subcommand: writes the metrics (and the model when --out), returns 0.
int run_train(const TrainOptions& options);

}  // namespace cnnperf
