// SPDX-License-Identifier: Apache-2.0
// A layer CSV read a chunk of rows at a time (`predict --layers` on files of any length).
#pragma once

#include <cstddef>
#include <filesystem>

#include "cnnperf/common/stream_io.hpp"
#include "cnnperf/model/layer_io.hpp"

namespace cnnperf {

/// Reads a layer CSV (plain or .gz) a chunk of rows at a time, validating each row as
/// read_layers_csv does: memory stays flat in the file's length (CsvReader).
class LayerCsvReader {
 public:
  /// Opens the file and reads its header; InputError when it has no `op` column.
  explicit LayerCsvReader(const std::filesystem::path& path);

  /// The file's name and header, in a table without rows.
  [[nodiscard]] const CsvTable& header() const { return csv_.header(); }
  /// Replaces `chunk` with the next rows, at most `max_rows`, and their layers; false when
  /// the file has no more.
  bool read(LayerTable& chunk, std::size_t max_rows);

 private:
  CsvReader csv_;
};

}  // namespace cnnperf
