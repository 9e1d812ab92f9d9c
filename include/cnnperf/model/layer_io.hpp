// SPDX-License-Identifier: Apache-2.0
// Reading and writing layers in the canonical layer CSV schema (DESIGN §3).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {

/// A layer CSV: the parsed table (every column, for pass-through) and one Layer per row.
struct LayerTable {
  CsvTable table;
  std::vector<Layer> layers;  ///< layers[i] is table.rows[i]
};

/// Builds the Layer of one row. Missing columns take DESIGN's defaults; `kernel`, `stride`,
/// `padding`, `dilation` (square) are accepted when the _h/_w columns are absent.
/// Throws InputError "file:line: field 'x': expected ..." for bad values.
[[nodiscard]] Layer layer_from_row(const CsvTable& table, std::size_t row);
/// Every column layer_from_row reads: the canonical ones, the square shorthands, pad_h_end and
/// pad_w_end, name, activation and optimizer (any other column passes through unread).
[[nodiscard]] const std::vector<std::string>& layer_row_fields();

/// Reads a layer CSV (plain or .gz), validating every row. Requires an `op` column.
[[nodiscard]] LayerTable read_layers_csv(const std::filesystem::path& path);
/// The same from text already in memory (`source` names it in errors).
[[nodiscard]] LayerTable parse_layers_csv(std::string_view text, const std::string& source);

/// The canonical column values of a layer, in layer_csv_columns() order.
[[nodiscard]] std::vector<std::string> layer_csv_fields(const Layer& layer);

}  // namespace cnnperf
