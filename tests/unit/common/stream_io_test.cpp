// SPDX-License-Identifier: Apache-2.0
// CsvReader reads what parse_csv parses, wherever its read buffers cut the text; OutputWriter
// leaves no partial file. Every CSV here is a synthetic fixture.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/stream_io.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path dir =
      fs::temp_directory_path() / ("cnnperf_stream_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

void write_gzip(const fs::path& path, const std::string& text) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(file);
}

// Every row of `path`, read `per_read` rows at a time.
CsvTable read_all(const fs::path& path, std::size_t per_read) {
  CsvReader reader(path);
  CsvTable all = reader.header();
  CsvTable chunk;
  while (reader.read_rows(chunk, per_read) > 0) {
    EXPECT_LE(chunk.rows.size(), per_read);
    EXPECT_EQ(chunk.header, all.header);
    all.rows.insert(all.rows.end(), chunk.rows.begin(), chunk.rows.end());
    all.lines.insert(all.lines.end(), chunk.lines.begin(), chunk.lines.end());
  }
  return all;
}

// Reads 64 KiB at a time: each text puts a doubled quote, a closing quote, a quoted newline, a
// CRLF and a lone CR across that boundary in turn.
TEST(CsvReader, ReadsWhatParseCsvParsesWhereverABufferEnds) {
  constexpr std::size_t kBuffer = std::size_t{1} << 16;
  const std::string tricky = "\"x\"\"y\",\"multi\nline\"\r\n\"q\",z\r3,4\r\n\n5,\"\"\r\n";
  const fs::path plain = temp_dir() / "tricky.csv";
  const fs::path gz = temp_dir() / "tricky.csv.gz";
  for (std::size_t shift = 0; shift <= tricky.size(); ++shift) {
    // A byte-order mark and a space in the header, rows, then one padding row so that
    // `tricky` starts `shift` bytes before the end of the first buffer.
    const std::size_t start = kBuffer - shift;
    std::string text =
        "\xEF\xBB\xBF"
        "a,b \n";
    while (text.size() + 12 <= start) text += "1,2\n";
    text += std::string(start - text.size() - 3, 'z') + ",q\n";
    ASSERT_EQ(text.size(), start);
    text += tricky + "6,7";  // no newline at the end
    const CsvTable expected = parse_csv(text, plain.string());
    ASSERT_EQ(expected.header, (std::vector<std::string>{"a", "b"}));
    write_output(plain.string(), text);
    write_gzip(gz, text);
    for (const std::size_t per_read : {std::size_t{1}, std::size_t{7}, std::size_t{100000}}) {
      const CsvTable got = read_all(plain, per_read);
      EXPECT_EQ(got.header, expected.header);
      EXPECT_EQ(got.rows, expected.rows) << "shift " << shift << ", " << per_read << " a read";
      EXPECT_EQ(got.lines, expected.lines) << "shift " << shift;
    }
    const CsvTable got = read_all(gz, 5000);
    EXPECT_EQ(got.rows, expected.rows) << "gzip, shift " << shift;
    EXPECT_EQ(got.lines, expected.lines) << "gzip, shift " << shift;
  }
}

// The errors parse_csv gives, naming file and line, from the reader too.
TEST(CsvReader, BadInputNamesFileAndLineAsParseCsvDoes) {
  const fs::path path = temp_dir() / "bad.csv";
  for (const std::string text :
       {"a,b\n1,2\n3\n", "a,b,a\n1,2,3\n", "a,b\n1,\"open\n2,3\n", "", "\n\n"}) {
    std::string expected;
    try {
      (void)parse_csv(text, path.string());
    } catch (const InputError& e) {
      expected = e.what();
    }
    ASSERT_FALSE(expected.empty()) << text;
    write_output(path.string(), text);
    try {
      CsvReader reader(path);
      CsvTable chunk;
      while (reader.read_rows(chunk, 1) > 0) {
      }
      ADD_FAILURE() << "no error for " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
  }
  EXPECT_THROW(CsvReader(temp_dir() / "missing.csv"), InputError);
}

// Streamed, a .gz input keeps the inflate bound (synthetic: zeros compressed here).
TEST(CsvReader, GzipInflatingPastTheBoundIsAnInputError) {
  const fs::path gz = temp_dir() / "bomb.csv.gz";
  write_gzip(gz, "a\n" + std::string(std::size_t{3} << 20, '0'));
  try {
    CsvReader reader(gz, std::size_t{1} << 20);
    CsvTable chunk;
    while (reader.read_rows(chunk, 10) > 0) {
    }
    ADD_FAILURE() << "no error past the bound";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("inflates to more than 1 MiB"), std::string::npos)
        << e.what();
  }
}

TEST(OutputWriter, WritesPiecesAtOnceOnCommitAndNothingWithout) {
  const fs::path dir = temp_dir() / "writer";
  fs::create_directories(dir);
  const fs::path out = dir / "out.txt";
  {
    OutputWriter writer(out.string());
    writer.write("first ");
    writer.write("second");
    EXPECT_FALSE(fs::exists(out)) << "visible before commit";
    writer.commit();
  }
  EXPECT_EQ(read_text_file(out), "first second");
  {
    // An error on the way: the writer is destroyed uncommitted.
    OutputWriter writer(out.string());
    writer.write("partial");
  }
  EXPECT_EQ(read_text_file(out), "first second") << "an uncommitted write replaced the file";
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1) << "a temporary file was left";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cnnperf
