// SPDX-License-Identifier: Apache-2.0
// File and CSV helpers shared by every command.
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/stream_io.hpp"

#include <fcntl.h>
#include <glob.h>
#include <unistd.h>
#include <zlib.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <csignal>
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

// A file's bytes in order, inflated when its name ends in ".gz" (at most the bound: a few MB of
// gzip can inflate to many GB).
class InputSource {
 public:
  InputSource(const fs::path& path, std::size_t max_inflated_bytes)
      : path_(path), max_inflated_bytes_(max_inflated_bytes) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError(path.string() + ": no such file");
    if (fs::is_directory(path, ec)) {
      throw InputError(path.string() + ": is a directory (expected a file)");
    }
    if (ends_with(path.string(), ".gz")) {
      gz_.reset(gzopen(path.c_str(), "rb"));
      if (gz_ == nullptr) {
        throw InputError(path.string() + ": cannot open (expected a readable gzip file)");
      }
      return;
    }
    plain_.open(path, std::ios::binary);
    if (!plain_) throw InputError(path.string() + ": cannot open for reading");
  }

  // The most read() returns in all.
  [[nodiscard]] std::size_t bound() const {
    return gz_ != nullptr ? max_inflated_bytes_ : std::string::npos;
  }

  // Up to `size` bytes into `buffer`; 0 at the end of the file.
  std::size_t read(char* buffer, std::size_t size) {
    if (gz_ == nullptr) {
      plain_.read(buffer, static_cast<std::streamsize>(size));
      if (plain_.bad()) throw InputError(path_.string() + ": read error");
      return static_cast<std::size_t>(plain_.gcount());
    }
    const int n =
        gzread(gz_.get(), buffer, static_cast<unsigned>(std::min<std::size_t>(size, 1 << 30)));
    if (n > 0) {
      const auto got = static_cast<std::size_t>(n);
      if (got > max_inflated_bytes_ - inflated_) {
        // Stopped as soon as it is known.
        throw InputError(path_.string() + ": inflates to more than " +
                         byte_count_text(max_inflated_bytes_) +
                         " (expected a compressed input of at most that much data)");
      }
      inflated_ += got;
      return got;
    }
    int err = 0;
    const char* message = gzerror(gz_.get(), &err);
    // A stream cut short reads as a clean end with Z_BUF_ERROR: without this check a truncated
    // file was taken as a complete, shorter one.
    if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      const std::string error_text = message != nullptr ? message : "";
      throw InputError(path_.string() + ": corrupt or truncated gzip data (" + error_text +
                       "); expected a complete .gz file");
    }
    return 0;
  }

 private:
  fs::path path_;
  std::size_t max_inflated_bytes_;
  std::size_t inflated_ = 0;
  std::unique_ptr<gzFile_s, GzCloser> gz_;
  std::ifstream plain_;
};

constexpr std::size_t kReadBufferBytes = std::size_t{1} << 16;

}  // namespace

std::string read_text_file(const fs::path& path, std::size_t max_inflated_bytes) {
  InputSource input(path, max_inflated_bytes);
  std::string content;
  std::vector<char> buffer(kReadBufferBytes);
  while (const std::size_t got = input.read(buffer.data(), buffer.size())) {
    if (content.size() + got > content.capacity()) {
      // Doubling, but never past the bound: the memory held stays within it.
      content.reserve(
          std::min(input.bound(), std::max(content.size() + got, 2 * content.capacity())));
    }
    content.append(buffer.data(), got);
  }
  return content;
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

namespace {

// The temporary file an OutputWriter is filling, for the signal handler to remove: one at a
// time (a command writes one output). A handler may touch only such plain, lock-free data.
std::array<char, 4096> g_temp_to_remove{};  // NOLINT: read by a signal handler
std::atomic<bool> g_temp_armed{false};      // NOLINT: read by a signal handler

extern "C" void remove_temp_and_reraise(int signal_number) {
  if (g_temp_armed.load()) ::unlink(g_temp_to_remove.data());
  // Then the signal's own action (the process ends as it would have), once the handler returns.
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

constexpr std::array<int, 3> kStopSignals{SIGTERM, SIGINT, SIGHUP};

// Creates the temporary file `temp` names (mkstemp's pattern, filled in) and arms its removal
// on SIGTERM, SIGINT or SIGHUP. The signals wait meanwhile, so that none can come between the
// file and its removal. `armed`: false when another file holds the one place.
int make_temp_removed_on_signal(std::string& temp, bool& armed) {
  static const bool installed = [] {
    for (const int signal_number : kStopSignals) {
      struct sigaction old {};
      // A signal the parent set to be ignored (nohup) stays ignored.
      if (::sigaction(signal_number, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_temp_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(signal_number, &action, nullptr);
    }
    return true;
  }();
  sigset_t stops;
  sigset_t previous;
  sigemptyset(&stops);
  for (const int signal_number : kStopSignals) sigaddset(&stops, signal_number);
  ::sigprocmask(SIG_BLOCK, &stops, &previous);
  const int fd = mkstemp(temp.data());
  armed = installed && fd >= 0 && temp.size() < g_temp_to_remove.size() && !g_temp_armed.load();
  if (armed) {
    std::copy(temp.begin(), temp.end(), g_temp_to_remove.begin());
    g_temp_to_remove[temp.size()] = '\0';
    g_temp_armed.store(true);
  }
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  return fd;
}

}  // namespace

struct OutputWriter::State {
  enum class Kind { kStdout, kInPlace, kTemp };
  Kind kind = Kind::kStdout;
  std::string path;
  fs::path target;
  fs::file_status existing;
  std::string temp;
  int fd = -1;
  bool armed = false;
  bool committed = false;
};

OutputWriter::OutputWriter(const std::string& path) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = path;
  if (path.empty() || path == "-") return;
  check_output_path(path);
  std::error_code ec;
  // Through a symlink: replace the file it names, not the link itself.
  s.target = output_target(path);
  s.existing = fs::status(s.target, ec);
  if (fs::exists(s.existing) && !fs::is_regular_file(s.existing)) {
    // A device or a pipe (/dev/null, a FIFO): nothing to replace atomically, write to it.
    s.fd = ::open(s.target.c_str(), O_WRONLY | O_CLOEXEC);
    if (s.fd < 0) throw InputError(path + ": cannot write (not writable)");
    s.kind = State::Kind::kInPlace;
    return;
  }
  const fs::path dir = s.target.has_parent_path() ? s.target.parent_path() : fs::path(".");
  // Temp file in the same directory so the rename is atomic; removed on any failure.
  std::string temp_name = s.target.filename().string();
  temp_name.insert(0, 1, '.');
  temp_name.append(".tmpXXXXXX");
  s.temp = (dir / temp_name).string();
  s.fd = make_temp_removed_on_signal(s.temp, s.armed);
  if (s.fd < 0) throw InputError(path + ": cannot write (directory not writable)");
  s.kind = State::Kind::kTemp;
}

OutputWriter::~OutputWriter() {
  State& s = *state_;
  if (s.fd >= 0) ::close(s.fd);
  if (s.kind == State::Kind::kTemp && !s.committed) {
    std::error_code ec;
    fs::remove(s.temp, ec);
  }
  if (s.armed) g_temp_armed.store(false);
}

void OutputWriter::write(std::string_view text) {
  State& s = *state_;
  if (s.kind == State::Kind::kStdout) {
    std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
    // A full disk or a closed descriptor behind a shell redirect is a failure, not exit 0.
    if (!std::cout) throw Error("stdout: write failed (disk full or not writable)");
    return;
  }
  if (!write_all(s.fd, text)) throw Error(s.path + ": write failed (disk full or not writable)");
}

void OutputWriter::commit() {
  State& s = *state_;
  if (s.kind == State::Kind::kStdout) {
    std::cout.flush();
    if (!std::cout) throw Error("stdout: write failed (disk full or not writable)");
    s.committed = true;
    return;
  }
  bool ok = s.kind != State::Kind::kTemp || ::fsync(s.fd) == 0;
  ok = (::close(s.fd) == 0) && ok;
  s.fd = -1;
  std::error_code ec;
  if (ok && s.kind == State::Kind::kTemp) {
    fs::rename(s.temp, s.target, ec);
    ok = !ec;
  }
  if (!ok) throw Error(s.path + ": write failed (disk full or not writable)");
  s.committed = true;
  if (s.kind != State::Kind::kTemp) return;
  // mkstemp creates 0600: keep a replaced file's permissions, else give ordinary ones.
  fs::permissions(s.target,
                  fs::is_regular_file(s.existing)
                      ? s.existing.permissions()
                      : fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read,
                  ec);
}

void write_output(const std::string& path, std::string_view content) {
  OutputWriter out(path);
  out.write(content);
  out.commit();
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

namespace {

// RFC-4180 CSV split into records as its text arrives, in pieces of any size: the header goes
// to table().header, each record after it to table().rows (with its first line).
class CsvParser {
 public:
  explicit CsvParser(const std::string& source) { table_.source = source; }

  void feed(std::string_view text) {
    for (const char c : text) take(c);
  }

  // The end of the text: its last record, and the checks that need all of it.
  void finish() {
    if (cr_pending_) {
      cr_pending_ = false;
      end_line();
    }
    if (quote_pending_) {
      quote_pending_ = false;
      in_quotes_ = false;
    }
    if (in_quotes_) {
      throw InputError(table_.source + ":" + std::to_string(record_line_) +
                       ": unterminated quoted field (expected a closing '\"')");
    }
    if (!field_.empty() || !record_.empty()) end_record();
    if (table_.header.empty()) {
      throw InputError(table_.source + ": empty file (expected a CSV header)");
    }
  }

  CsvTable& table() { return table_; }

 private:
  void take(char c) {
    if (cr_pending_) {
      // LF, CRLF (its CR dropped) and a lone CR (classic Mac OS files) end a line.
      cr_pending_ = false;
      end_line();
      if (c == '\n') return;
    }
    if (quote_pending_) {
      quote_pending_ = false;
      if (c == '"') {  // a doubled quote inside quotes
        field_.push_back('"');
        return;
      }
      in_quotes_ = false;
    }
    if (in_quotes_) {
      if (c == '"') {
        quote_pending_ = true;
      } else {
        if (c == '\n') ++line_;
        field_.push_back(c);
      }
      return;
    }
    if (c == '"' && field_.empty() && !field_was_quoted_) {
      in_quotes_ = true;
      field_was_quoted_ = true;
    } else if (c == ',') {
      record_.push_back(std::move(field_));
      field_.clear();
      field_was_quoted_ = false;
    } else if (c == '\n') {
      end_line();
    } else if (c == '\r') {
      cr_pending_ = true;
    } else {
      field_.push_back(c);
    }
  }

  void end_line() {
    ++line_;
    end_record();
  }

  void end_record() {
    record_.push_back(std::move(field_));
    field_.clear();
    field_was_quoted_ = false;
    const bool blank = record_.size() == 1 && record_[0].empty();
    if (!blank) {
      if (table_.header.empty()) {
        set_header();
      } else {
        if (record_.size() != table_.header.size()) {
          throw InputError(table_.source + ":" + std::to_string(record_line_) + ": has " +
                           std::to_string(record_.size()) + " fields (expected " +
                           std::to_string(table_.header.size()) + ", as in the header)");
        }
        table_.rows.push_back(std::move(record_));
        table_.lines.push_back(record_line_);
      }
    }
    record_.clear();
    record_line_ = line_;
  }

  void set_header() {
    table_.header = std::move(record_);
    for (auto& name : table_.header) {
      // Tolerate a UTF-8 byte-order mark and surrounding spaces in the header.
      if (name.rfind("\xEF\xBB\xBF", 0) == 0) name = name.substr(3);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) {
        name.pop_back();
      }
    }
    // Columns are matched by name: a repeated one would be read from its first copy only.
    const auto& header = table_.header;
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (!it->empty() && std::find(header.begin(), it, *it) != it) {
        throw InputError(table_.source + ":" + std::to_string(record_line_) + ": column '" + *it +
                         "' appears twice in the header (expected unique names)");
      }
    }
  }

  CsvTable table_;
  std::vector<std::string> record_;
  std::string field_;
  bool in_quotes_ = false;
  bool quote_pending_ = false;  // in quotes, a '"' seen: a doubled quote or the closing one
  bool cr_pending_ = false;     // a CR seen outside quotes: CRLF or a lone CR
  bool field_was_quoted_ = false;
  std::size_t line_ = 1;
  std::size_t record_line_ = 1;
};

}  // namespace

CsvTable parse_csv(std::string_view text, const std::string& source) {
  CsvParser parser(source);
  parser.feed(text);
  parser.finish();
  return std::move(parser.table());
}

CsvTable read_csv(const fs::path& path) {
  return parse_csv(read_text_file(path), path.string());
}

struct CsvReader::State {
  State(const fs::path& path, std::size_t max_inflated_bytes)
      : input(path, max_inflated_bytes), parser(path.string()) {}

  // Parses the next buffer of the file, or ends the text at the end of the file.
  void fill() {
    const std::size_t got = input.read(buffer.data(), buffer.size());
    if (got == 0) {
      done = true;
      parser.finish();
      return;
    }
    parser.feed(std::string_view(buffer.data(), got));
  }

  InputSource input;
  CsvParser parser;
  std::vector<char> buffer = std::vector<char>(kReadBufferBytes);
  CsvTable header;
  std::size_t next_row = 0;  // the first of parser.table().rows not handed out yet
  bool done = false;
};

CsvReader::CsvReader(const fs::path& path, std::size_t max_inflated_bytes)
    : state_(std::make_unique<State>(path, max_inflated_bytes)) {
  while (state_->parser.table().header.empty() && !state_->done) state_->fill();
  state_->header.source = state_->parser.table().source;
  state_->header.header = state_->parser.table().header;
}

CsvReader::~CsvReader() = default;
CsvReader::CsvReader(CsvReader&&) noexcept = default;
CsvReader& CsvReader::operator=(CsvReader&&) noexcept = default;

const CsvTable& CsvReader::header() const {
  return state_->header;
}

std::size_t CsvReader::read_rows(CsvTable& chunk, std::size_t max_rows) {
  State& s = *state_;
  chunk.source = s.header.source;
  chunk.header = s.header.header;
  chunk.rows.clear();
  chunk.lines.clear();
  CsvTable& parsed = s.parser.table();
  while (chunk.rows.size() < max_rows) {
    if (s.next_row < parsed.rows.size()) {
      chunk.rows.push_back(std::move(parsed.rows[s.next_row]));
      chunk.lines.push_back(parsed.lines[s.next_row]);
      ++s.next_row;
      continue;
    }
    parsed.rows.clear();
    parsed.lines.clear();
    s.next_row = 0;
    if (s.done) break;
    s.fill();
  }
  return chunk.rows.size();
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
