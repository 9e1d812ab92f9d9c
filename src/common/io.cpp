// SPDX-License-Identifier: Apache-2.0
// File and CSV helpers shared by every command.
#include "cnnperf/common/io.hpp"

#include <fcntl.h>
#include <glob.h>
#include <unistd.h>
#include <zlib.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"

namespace cnnperf {

namespace fs = std::filesystem;

std::string input_message(const std::string& where, const std::string& what,
                          const std::string& expected) {
  std::string message = where + ": " + what;
  if (!expected.empty()) message += " (expected " + expected + ")";
  return message;
}

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string byte_count_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

std::string read_gzip(const fs::path& path, std::size_t max_inflated_bytes) {
  const std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (file == nullptr) {
    throw InputError(path.string() + ": cannot open (expected a readable gzip file)");
  }
  std::string content;
  std::array<char, 1 << 16> buffer{};
  int n = 0;
  while ((n = gzread(file.get(), buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    const auto got = static_cast<std::size_t>(n);
    if (got > max_inflated_bytes - content.size()) {
      // Stopped as soon as it is known: a few MB of gzip can inflate to many GB.
      throw InputError(path.string() + ": inflates to more than " +
                       byte_count_text(max_inflated_bytes) +
                       " (expected a compressed input of at most that much data)");
    }
    if (content.size() + got > content.capacity()) {
      // Doubling, but never past the bound: the memory held stays within it.
      content.reserve(
          std::min(max_inflated_bytes, std::max(content.size() + got, 2 * content.capacity())));
    }
    content.append(buffer.data(), got);
  }
  int err = 0;
  const char* message = gzerror(file.get(), &err);
  // A stream cut short reads as a clean end with Z_BUF_ERROR: without this check a truncated
  // file was taken as a complete, shorter one.
  const bool failed = n < 0 || (err != Z_OK && err != Z_STREAM_END);
  if (failed) {
    const std::string error_text = message != nullptr ? message : "";
    throw InputError(path.string() + ": corrupt or truncated gzip data (" + error_text +
                     "); expected a complete .gz file");
  }
  return content;
}

}  // namespace

std::string read_text_file(const fs::path& path, std::size_t max_inflated_bytes) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string() + ": no such file");
  if (fs::is_directory(path, ec)) {
    throw InputError(path.string() + ": is a directory (expected a file)");
  }
  if (ends_with(path.string(), ".gz")) return read_gzip(path, max_inflated_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string() + ": cannot open for reading");
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) throw InputError(path.string() + ": read error");
  return out.str();
}

namespace {

// Writes all of content to an open descriptor; false on any short or failed write.
bool write_all(int fd, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// The file write_output replaces: through a symlink, the file it names.
fs::path output_target(const std::string& path) {
  std::error_code ec;
  fs::path target(path);
  // Follow the chain by hand: a dangling link names the file to create.
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) break;
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  return target;
}

}  // namespace

void check_output_path(const std::string& path) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const fs::path target = output_target(path);
  if (fs::is_directory(target, ec)) throw InputError(path + ": is a directory (expected a file)");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    throw InputError(path + ": cannot write (directory '" + dir.string() + "' does not exist)");
  }
}

void check_output_not_input(const std::string& path, const std::vector<std::string>& inputs) {
  check_output_path(path);
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const fs::path target = output_target(path);
  // Only a regular file is replaced; a device such as /dev/stdout may be read and written.
  if (!fs::is_regular_file(target, ec)) return;
  for (const std::string& name : inputs) {
    if (name.empty() || name == "-") continue;
    // The files the readers will open: a wildcard's matches, or the bundled file of that name.
    for (const std::string& input : user_files_or_resources(name)) {
      if (fs::equivalent(target, input, ec) && !ec) {
        throw InputError(path + ": is also an input of this command (" + name +
                         "); expected another output file, since writing would replace it");
      }
    }
  }
}

void write_output(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
    std::cout.flush();
    // A full disk or a closed descriptor behind a shell redirect is a failure, not exit 0.
    if (!std::cout) throw Error("stdout: write failed (disk full or not writable)");
    return;
  }
  check_output_path(path);
  std::error_code ec;
  // Through a symlink: replace the file it names, not the link itself.
  const fs::path target = output_target(path);
  const fs::file_status existing = fs::status(target, ec);
  if (fs::exists(existing) && !fs::is_regular_file(existing)) {
    // A device or a pipe (/dev/null, a FIFO): nothing to replace atomically, write to it.
    const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot write (not writable)");
    bool ok = write_all(fd, content);
    ok = (::close(fd) == 0) && ok;
    if (!ok) throw Error(path + ": write failed (disk full or not writable)");
    return;
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Temp file in the same directory so the rename is atomic; removed on any failure.
  std::string temp_name = target.filename().string();
  temp_name.insert(0, 1, '.');
  temp_name.append(".tmpXXXXXX");
  std::string temp = (dir / temp_name).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw InputError(path + ": cannot write (directory not writable)");
  bool ok = write_all(fd, content);
  ok = (::fsync(fd) == 0) && ok;
  ok = (::close(fd) == 0) && ok;
  if (ok) {
    fs::rename(temp, target, ec);
    ok = !ec;
  }
  if (!ok) {
    fs::remove(temp, ec);
    throw Error(path + ": write failed (disk full or not writable)");
  }
  // mkstemp creates 0600: keep a replaced file's permissions, else give ordinary ones.
  fs::permissions(target,
                  fs::is_regular_file(existing)
                      ? existing.permissions()
                      : fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read,
                  ec);
}

std::optional<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

std::optional<std::string> CsvTable::get(std::size_t row, std::string_view name) const {
  const auto col = column(name);
  if (!col || *col >= rows.at(row).size() || rows[row][*col].empty()) return std::nullopt;
  return rows[row][*col];
}

std::optional<double> CsvTable::get_number(std::size_t row, std::string_view name) const {
  const auto text = get(row, name);
  if (!text) return std::nullopt;
  return parse_number(*text, where(row) + ": field '" + std::string(name) + "'");
}

std::string CsvTable::where(std::size_t row) const {
  const std::size_t line = row < lines.size() ? lines[row] : 0;
  return line == 0 ? source : source + ":" + std::to_string(line);
}

CsvTable parse_csv(std::string_view text, const std::string& source) {
  CsvTable table;
  table.source = source;
  std::vector<std::string> record;
  std::string field;
  bool in_quotes = false;
  bool field_was_quoted = false;
  std::size_t line = 1;
  std::size_t record_line = 1;
  auto end_record = [&] {
    record.push_back(std::move(field));
    field.clear();
    field_was_quoted = false;
    const bool blank = record.size() == 1 && record[0].empty();
    if (!blank) {
      if (table.header.empty()) {
        table.header = std::move(record);
        for (auto& name : table.header) {
          // Tolerate a UTF-8 byte-order mark and surrounding spaces in the header.
          if (name.rfind("\xEF\xBB\xBF", 0) == 0) name = name.substr(3);
          while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
            name.pop_back();
          }
        }
        // Columns are matched by name: a repeated one would be read from its first copy only.
        for (std::size_t c = 0; c < table.header.size(); ++c) {
          const auto& name = table.header[c];
          if (!name.empty() &&
              std::find(table.header.begin(), table.header.begin() + static_cast<std::ptrdiff_t>(c),
                        name) != table.header.begin() + static_cast<std::ptrdiff_t>(c)) {
            throw InputError(source + ":" + std::to_string(record_line) + ": column '" + name +
                             "' appears twice in the header (expected unique names)");
          }
        }
      } else {
        if (record.size() != table.header.size()) {
          throw InputError(source + ":" + std::to_string(record_line) + ": has " +
                           std::to_string(record.size()) + " fields (expected " +
                           std::to_string(table.header.size()) + ", as in the header)");
        }
        table.rows.push_back(std::move(record));
        table.lines.push_back(record_line);
      }
    }
    record.clear();
    record_line = line;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == '"' && field.empty() && !field_was_quoted) {
      in_quotes = true;
      field_was_quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      field_was_quoted = false;
    } else if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      // LF, CRLF (its CR dropped below) and a lone CR (classic Mac OS files) end a line.
      ++line;
      end_record();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  if (in_quotes) {
    throw InputError(source + ":" + std::to_string(record_line) +
                     ": unterminated quoted field (expected a closing '\"')");
  }
  if (!field.empty() || !record.empty()) end_record();
  if (table.header.empty()) throw InputError(source + ": empty file (expected a CSV header)");
  return table;
}

CsvTable read_csv(const fs::path& path) {
  return parse_csv(read_text_file(path), path.string());
}

std::string csv_escape(std::string_view field) {
  if (field.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += csv_escape(fields[i]);
  }
  return out;
}

std::string csv_with_schema(std::vector<std::string> header,
                            const std::vector<std::vector<std::string>>& rows, int schema_version) {
  header.emplace_back("schema_version");
  std::string out = csv_line(header) + "\n";
  const std::string version = std::to_string(schema_version);
  for (const auto& row : rows) out += csv_line(row) + "," + version + "\n";
  return out;
}

std::string to_string(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable: return "table";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kCsv: return "csv";
  }
  return "table";
}

OutputFormat output_format_from_string(std::string_view text) {
  const std::string lower = to_lower(text);
  if (lower == "table") return OutputFormat::kTable;
  if (lower == "json") return OutputFormat::kJson;
  if (lower == "csv") return OutputFormat::kCsv;
  throw ParameterError("format",
                       "unknown format '" + std::string(text) + "' (expected table, json or csv)");
}

namespace {
bool looks_numeric(const std::string& cell) {
  if (cell.empty()) return false;
  char* end = nullptr;
  std::strtod(cell.c_str(), &end);
  return end != nullptr && *end == '\0';
}
}  // namespace

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells, bool is_header) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      if (c > 0) out += "  ";
      if (!is_header && looks_numeric(cell)) {
        out += pad + cell;
      } else if (c + 1 == width.size()) {
        out += cell;
      } else {
        out += cell + pad;
      }
    }
    out += '\n';
  };
  emit(header, true);
  std::vector<std::string> rule;
  rule.reserve(width.size());
  for (const auto w : width) rule.emplace_back(w, '-');
  emit(rule, true);
  for (const auto& row : rows) emit(row, false);
  return out;
}

std::string format_number(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == 0) return "0";
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  std::array<char, 64> buffer{};
  if (magnitude >= 15 || magnitude < -6) {
    std::snprintf(buffer.data(), buffer.size(), "%.*g", digits, value);
    return buffer.data();
  }
  const int decimals = std::max(0, digits - 1 - static_cast<int>(magnitude));
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  std::string out = buffer.data();
  if (out.find('.') != std::string::npos) {
    while (!out.empty() && out.back() == '0') out.pop_back();
    if (!out.empty() && out.back() == '.') out.pop_back();
  }
  return out;
}

double parse_number(std::string_view text, const std::string& what) {
  std::string trimmed(text);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
    trimmed.pop_back();
  }
  std::size_t start = 0;
  while (start < trimmed.size() && std::isspace(static_cast<unsigned char>(trimmed[start]))) {
    ++start;
  }
  trimmed = trimmed.substr(start);
  // Decimal only, all of it: strtod also took hex ("0x10" as 16) and stopped at a NUL byte.
  std::string_view digits = trimmed;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (trimmed.empty() || error != std::errc() || end != digits.data() + digits.size() ||
      !std::isfinite(value) ||
      (!digits.empty() && digits.front() == '-' && trimmed.front() == '+')) {
    std::string shown(text);
    for (char& c : shown) {
      if (c == '\0') c = '?';  // a NUL would cut the message short
    }
    throw InputError(what + ": expected a number, got '" + shown + "'");
  }
  return value;
}

long parse_positive_int(std::string_view text, const std::string& what) {
  long value = 0;
  const auto* begin = text.data();
  const auto* end = text.data() + text.size();
  const auto result = std::from_chars(begin, end, value);
  if (result.ec != std::errc() || result.ptr != end || value <= 0) {
    throw InputError(what + ": expected a positive integer, got '" + std::string(text) + "'");
  }
  return value;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);  // one row of the table, reused
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = text.find(sep, start);
    parts.push_back(trim(text.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

namespace {

// Where bundled files are looked for, in order.
std::vector<fs::path> resource_roots() {
  std::error_code ec;
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("CNNPERF_DATA_DIR"); env != nullptr && *env != '\0') {
    roots.emplace_back(env);
  }
  // Next to the executable (an installed tree or the build tree) and its parents.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      roots.push_back(dir);
      roots.push_back(dir / "share" / "cnnperf");
      if (dir == dir.parent_path()) break;
    }
  }
  roots.emplace_back(CNNPERF_SOURCE_DIR);
  return roots;
}

// Paths matching a glob(3) pattern, sorted; none when nothing matches.
std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t matches{};
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) out.emplace_back(matches.gl_pathv[i]);
  }
  ::globfree(&matches);
  return out;
}

}  // namespace

fs::path find_resource(const std::string& relative) {
  std::error_code ec;
  for (const auto& root : resource_roots()) {
    fs::path candidate = root / relative;
    if (fs::exists(candidate, ec)) return candidate;
  }
  throw Error("cannot find bundled resource '" + relative +
              "' (set CNNPERF_DATA_DIR to the cnnperf source or install directory)");
}

std::string user_file_or_resource(const std::string& path) {
  std::error_code ec;
  if (path.empty() || fs::path(path).is_absolute() || fs::exists(path, ec)) return path;
  try {
    return find_resource(path).string();
  } catch (const Error&) {
    return path;
  }
}

std::vector<std::string> user_files_or_resources(const std::string& pattern) {
  std::error_code ec;
  if (pattern.find_first_of("*?[") == std::string::npos || fs::exists(pattern, ec)) {
    return {user_file_or_resource(pattern)};
  }
  // The shell left the pattern unexpanded (no match here): expand it here, then among the
  // bundled files, so a relative `datasets/layers_*.csv.gz` works from any directory.
  if (auto here = glob_paths(pattern); !here.empty()) return here;
  if (!fs::path(pattern).is_absolute()) {
    for (const auto& root : resource_roots()) {
      if (auto there = glob_paths((root / pattern).string()); !there.empty()) return there;
    }
  }
  return {pattern};
}

std::vector<std::string> user_file_list(const std::vector<std::string>& names,
                                        std::string_view option) {
  std::vector<std::string> expanded;
  for (const auto& named : names) {
    for (auto& file : user_files_or_resources(named)) {
      // Named twice (a wildcard and the file itself): once, or its rows would count twice
      // (and sit in both the training and the test side of a fold).
      std::error_code ec;
      const auto same = [&](const std::string& other) {
        return other == file || fs::equivalent(other, file, ec);
      };
      if (std::find_if(expanded.begin(), expanded.end(), same) != expanded.end()) {
        spdlog::warn("{}: named more than once in {}; read once", file, option);
        continue;
      }
      expanded.push_back(std::move(file));
    }
  }
  return expanded;
}

}  // namespace cnnperf
