// SPDX-License-Identifier: Apache-2.0
// Streaming file helpers: a CSV read a chunk of rows at a time, output written piece by piece,
// so a command's memory stays flat in its input's length.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "cnnperf/common/io.hpp"

namespace cnnperf {

/// Output written piece by piece, with write_output's guarantees: to stdout as it comes, to a
/// device or FIFO in place, else to a temporary file in the same directory that commit()
/// renames onto `path`. Destroyed uncommitted (an error on the way) or ended by SIGTERM,
/// SIGINT or SIGHUP, it removes the temporary file: no partial file is left.
/// Throws as write_output does (InputError at construction, Error on a failed write).
class OutputWriter {
 public:
  explicit OutputWriter(const std::string& path);
  ~OutputWriter();
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;
  OutputWriter(OutputWriter&&) = delete;
  OutputWriter& operator=(OutputWriter&&) = delete;

  void write(std::string_view text);
  /// Ends the output: flushes stdout, or syncs and renames the temporary file into place.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Reads a CSV file (plain or .gz, inflating at most `max_inflated_bytes`) a chunk of rows at
/// a time, as parse_csv parses it (the same errors, naming file and line), holding one read
/// buffer and one chunk: memory stays flat in the file's length. Reads the header when
/// constructed.
class CsvReader {
 public:
  explicit CsvReader(const std::filesystem::path& path,
                     std::size_t max_inflated_bytes = kMaxInflatedBytes);
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;
  CsvReader(CsvReader&&) noexcept;
  CsvReader& operator=(CsvReader&&) noexcept;

  /// The file's name (as errors give it) and header, in a table without rows.
  [[nodiscard]] const CsvTable& header() const;
  /// Replaces `chunk` with the header and the next rows, at most `max_rows` of them (and their
  /// lines); returns how many (0: the file has no more).
  std::size_t read_rows(CsvTable& chunk, std::size_t max_rows);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cnnperf
