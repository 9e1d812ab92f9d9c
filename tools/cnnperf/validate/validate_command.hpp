// SPDX-License-Identifier: Apache-2.0
// `cnnperf validate`: accuracy of a model file on measured data, per GPU and overall,
// per layer and end to end.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnnperf {

struct ValidateOptions {
  std::string model;               ///< LearnedModel file; empty: predict's defaults
  std::vector<std::string> data;   ///< measured layer CSVs (may be empty when e2e is given)
  std::vector<std::string> e2e;    ///< end-to-end CSVs (e2e_torchvision.csv or NAS schema)
  std::vector<std::string> power;  ///< power CSVs (datasets/power_zeus.csv schema)
  std::string power_model;         ///< power model file; empty: the bundled one
  std::optional<double> fail_if_mape_above;  ///< percent; unset: never fail (0 fails any error)
  std::string format = "table";
  std::string output;
};

/// Computes the metrics as JSON: {"layers": {"overall", "per_gpu", "per_family"},
/// "e2e": {"overall", "per_gpu"}, "power": power_validation_report} (sections absent when
/// their input is not given). --model is needed for "layers" and "e2e" only.
[[nodiscard]] nlohmann::json validate_report(const ValidateOptions& options);

/// Runs the subcommand. Returns 0, or 1 (with one line on stderr) when a reported overall
/// MAPE (per-layer, end-to-end, or the power-cap slowdown) exceeds --fail-if-mape-above.
int run_validate(const ValidateOptions& options);

}  // namespace cnnperf
