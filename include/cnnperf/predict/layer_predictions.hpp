// SPDX-License-Identifier: Apache-2.0
// What `predict --layers` writes as JSON (kind "layer_predictions"): each row of a layer CSV
// with its cells as given and the columns of its prediction, and what the rows share.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/runtime.hpp"

namespace cnnperf {

/// The columns a row's prediction adds, in order.
inline constexpr std::array<const char*, 9> kLayerPredictionColumns{
    "kernel_ms", "overhead_ms", "latency_ms",  "latency_ms_lo",  "latency_ms_hi",
    "energy_mj", "avg_power_w", "roofline_ms", "in_distribution"};
using LayerPredictionColumnNames = std::array<std::string, kLayerPredictionColumns.size()>;

/// The names the prediction's columns take beside an input of `input_columns`: each of
/// kLayerPredictionColumns, prefixed with "predicted_" until no input column has the name (an
/// input holding both latency_ms and predicted_latency_ms keeps both).
[[nodiscard]] LayerPredictionColumnNames layer_prediction_column_names(
    const std::vector<std::string>& input_columns);

/// One row: the input's cells as text, in column order, and the row's prediction.
struct LayerPredictionRow {
  std::vector<std::pair<std::string, std::string>> cells;  ///< (column, cell)
  LayerPrediction prediction;
};

/// A `predict --layers` result.
struct LayerPredictions {
  std::string model;  ///< LatencyModel::name()
  Runtime runtime = Runtime::kPytorch;
  /// The GPU of every row; unset: each row's `gpu` cell names its own. A file of an older
  /// version with a GPU object of name and display_name alone: those two.
  std::optional<GpuSpec> gpu;
  std::vector<std::string> gpus;  ///< the GPUs of the rows (database names)
  std::string source;             ///< the input CSV
  std::string intervals;          ///< the interval table, or "none: " and why
  /// The prediction's column names (layer_prediction_column_names of the input's columns).
  LayerPredictionColumnNames columns{};
  std::vector<LayerPredictionRow> rows;
};

/// The JSON of the result; `predict --layers` writes it with the rows left empty, then each
/// row's to_json as it is predicted, so its memory stays flat in the row count.
[[nodiscard]] nlohmann::ordered_json to_json(const LayerPredictions& result);
/// One element of "rows": the cells, then the prediction under `columns`.
[[nodiscard]] nlohmann::ordered_json to_json(const LayerPredictionRow& row,
                                             const LayerPredictionColumnNames& columns);
/// Parses what to_json writes (to_json of the result gives the document back). A row's string
/// members are its input cells; a member of a prediction column (possibly renamed) that is a
/// number or boolean is the prediction, null: none (an interval's bound, or a file that left
/// it out). A row without kernel_ms takes its latency_ms as kernel time (older files). A
/// member the layout lacks takes the default; one of the wrong type throws nlohmann's
/// type_error, an unknown runtime InputError.
[[nodiscard]] LayerPredictions layer_predictions_from_json(const nlohmann::ordered_json& doc);

}  // namespace cnnperf
