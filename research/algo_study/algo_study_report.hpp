// SPDX-License-Identifier: Apache-2.0
// The algorithm study as a command: options, the report (JSON) and its rendering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/io.hpp"

namespace cnnperf {

struct AlgoStudyReportOptions {
  std::vector<std::string> data;      ///< measured layer CSVs with kernel names (NeuSight's)
  std::string regressor = "xgboost";  ///< linear|knn|dtree|rf|xgboost|all
  std::string variants = "all";       ///< "all" or a comma list of algo_study_variants()
  std::string classifier = "rf";      ///< regressor kind of the one-vs-rest classifier
  int inner_folds = 3;                ///< inner folds for the training rows' probabilities
  int folds = 5;
  std::uint64_t seed = 42;
  /// JSON object: its keys replace default_params' of every kind run (regressor and
  /// classifier alike).
  std::string params;
};

/// Loads every row of `data` (the labels are read back row by row, so no sample) and runs
/// the study for each regressor kind. Throws InputError (ParameterError naming the member)
/// for bad options or data.
[[nodiscard]] nlohmann::json algo_study_report(const AlgoStudyReportOptions& options);

/// The report as a table (variant metrics, then the classifier's accuracy) or CSV.
[[nodiscard]] std::string render_algo_study(const nlohmann::json& report, OutputFormat format);

}  // namespace cnnperf
