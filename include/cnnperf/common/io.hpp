// SPDX-License-Identifier: Apache-2.0
// File and CSV helpers: reading (plain or .gz), atomic writing, output formats.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cnnperf {

/// The most a compressed input may inflate to: 1 GiB, about 20 times the largest bundled
/// dataset (datasets/layers_mlpredict.csv.gz, 55 MB inflated), so real inputs have room while a
/// gzip bomb (a few MB inflating to many GB) is bad input rather than an out-of-memory crash.
inline constexpr std::size_t kMaxInflatedBytes = std::size_t{1} << 30;

/// Reads a whole file; transparently decompresses names ending in ".gz", refusing one that
/// inflates past `max_inflated_bytes` (the memory held stays within that bound). The bytes come
/// back as they are (no newline or encoding translation), so binary files (ONNX) read too.
/// Throws InputError naming the path when it is missing, unreadable or inflates past the bound.
[[nodiscard]] std::string read_text_file(const std::filesystem::path& path,
                                         std::size_t max_inflated_bytes = kMaxInflatedBytes);

/// Throws InputError when write_output(path) could not create the file (its directory is
/// missing, or path is a directory), so that a long run fails before its work, not after.
/// Empty and "-" (stdout) pass.
void check_output_path(const std::string& path);
/// check_output_path, and InputError when `path` is the same file as one of `inputs` (the files
/// the command reads; names that are no file, such as zoo names, are passed over), which
/// writing would silently replace. Commands call it before their work.
void check_output_not_input(const std::string& path, const std::vector<std::string>& inputs);

/// Writes `content` to `path` through a temporary file in the same directory and a rename,
/// so a failure never leaves a partial file (through a symlink, the file it names is
/// replaced; a device or FIFO is written in place). Throws InputError when the directory is
/// not writable, Error (exit 1) when the write fails. A path of "" or "-" writes to stdout.
void write_output(const std::string& path, std::string_view content);

/// A parsed CSV table. Cells are kept as text; `line_of(row)` gives the 1-based source line.
struct CsvTable {
  std::string source;               ///< file name, for error messages
  std::vector<std::string> header;  ///< column names in file order
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> lines;  ///< source line of each row (1-based; 0: none)

  /// Index of a column, or nullopt.
  [[nodiscard]] std::optional<std::size_t> column(std::string_view name) const;
  /// Cell text of `row` in column `name`, or nullopt when the column is absent or empty.
  [[nodiscard]] std::optional<std::string> get(std::size_t row, std::string_view name) const;
  /// Numeric cell; throws InputError "file:line: field 'name': expected a number".
  [[nodiscard]] std::optional<double> get_number(std::size_t row, std::string_view name) const;
  /// "file:line" of a row, for error messages ("file" for a row without a line, e.g. one
  /// built in memory from a command-line spec).
  [[nodiscard]] std::string where(std::size_t row) const;
};

/// Parses RFC-4180 CSV text (quoted fields, embedded commas/quotes/newlines).
/// Throws InputError on ragged rows or an unterminated quote.
[[nodiscard]] CsvTable parse_csv(std::string_view text, const std::string& source);
/// Reads and parses a CSV file (plain or .gz).
[[nodiscard]] CsvTable read_csv(const std::filesystem::path& path);

/// Quotes a CSV field when it needs quoting.
[[nodiscard]] std::string csv_escape(std::string_view field);
/// Joins fields into one CSV line (no trailing newline).
[[nodiscard]] std::string csv_line(const std::vector<std::string>& fields);
/// CSV text of `header` and `rows` with a last column `schema_version` holding
/// `schema_version` on every row, as every CSV we print carries one (a layer CSV predict
/// extends keeps DESIGN's columns instead).
[[nodiscard]] std::string csv_with_schema(std::vector<std::string> header,
                                          const std::vector<std::vector<std::string>>& rows,
                                          int schema_version);

/// Output formats every printing subcommand accepts.
enum class OutputFormat { kTable, kJson, kCsv };
[[nodiscard]] std::string to_string(OutputFormat format);
/// Throws InputError for anything but table|json|csv.
[[nodiscard]] OutputFormat output_format_from_string(std::string_view text);

/// Renders rows as an aligned plain-text table; numeric-looking cells are right-aligned.
[[nodiscard]] std::string format_table(const std::vector<std::string>& header,
                                       const std::vector<std::vector<std::string>>& rows);

/// Formats a number with `digits` significant digits, no exponent for ordinary magnitudes.
[[nodiscard]] std::string format_number(double value, int digits = 4);

/// Parses a strictly positive integer; throws InputError naming `what` otherwise.
[[nodiscard]] long parse_positive_int(std::string_view text, const std::string& what);
/// Parses a finite number; throws InputError naming `what` otherwise.
[[nodiscard]] double parse_number(std::string_view text, const std::string& what);

/// Locates a bundled resource (e.g. "models/gpus.json"): $CNNPERF_DATA_DIR, then the
/// directory of the executable and its parents, then the source tree recorded at build time.
/// Throws Error when not found.
[[nodiscard]] std::filesystem::path find_resource(const std::string& relative);
/// A file the user named: `path` itself when it exists or is absolute; else, when a bundled
/// resource of that relative name exists (find_resource), that one, so the examples'
/// `models/cnnperf_default.json` work from any directory; else `path` unchanged (its
/// reader then says it is missing).
[[nodiscard]] std::string user_file_or_resource(const std::string& path);
/// user_file_or_resource for a name that may hold a wildcard the shell did not expand (it
/// matched nothing in the current directory): the sorted matches here, else among the
/// bundled files; a name without a match comes back unchanged (its reader says it is missing).
[[nodiscard]] std::vector<std::string> user_files_or_resources(const std::string& pattern);
/// user_files_or_resources of each name, in order, each file once (a file named twice, say by
/// a wildcard and by itself, is warned about, naming `option`, and read once).
[[nodiscard]] std::vector<std::string> user_file_list(const std::vector<std::string>& names,
                                                      std::string_view option);

/// The items with `separator` between them.
[[nodiscard]] std::string join(const std::vector<std::string>& items, const std::string& separator);

/// Levenshtein distance between `a` and `b` (single-character insertions, deletions and
/// substitutions), for "did you mean" suggestions.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);
/// Lowercases ASCII.
[[nodiscard]] std::string to_lower(std::string_view text);
/// `text` without leading and trailing spaces and tabs.
[[nodiscard]] std::string trim(std::string_view text);
/// The parts of `text` between `sep`s, each trimmed; empty parts kept ("a,,b" -> a, "", b).
[[nodiscard]] std::vector<std::string> split(std::string_view text, char sep);

}  // namespace cnnperf
