// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path dir =
      fs::temp_directory_path() / ("cnnperf_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(Csv, ParsesQuotedFieldsAndLines) {
  const auto t =
      parse_csv("a,b,c\n1,\"x,y\",\"he said \"\"hi\"\"\"\n\n2,\"multi\nline\",z\n", "t.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][1], "x,y");
  EXPECT_EQ(t.rows[0][2], "he said \"hi\"");
  EXPECT_EQ(t.rows[1][1], "multi\nline");
  EXPECT_EQ(t.lines[0], 2u);
  EXPECT_EQ(t.lines[1], 4u);
  EXPECT_EQ(t.where(1), "t.csv:4");
}

// Lone CRs (classic Mac OS) made the whole file one header line, read as zero rows.
TEST(Csv, LoneCarriageReturnsEndLines) {
  const CsvTable crlf = parse_csv("a,b\r\n1,2\r\n3,4\r\n", "crlf.csv");
  const CsvTable cr = parse_csv("a,b\r1,2\r3,4\r", "cr.csv");
  ASSERT_EQ(cr.rows.size(), 2U);
  EXPECT_EQ(cr.rows, crlf.rows);
  EXPECT_EQ(cr.header, crlf.header);
  EXPECT_EQ(cr.lines, crlf.lines);
}

TEST(Csv, ARepeatedColumnNameIsAnError) {
  try {
    (void)parse_csv("op,batch,batch\nrelu,1,2\n", "dup.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "dup.csv:1: column 'batch' appears twice in the header (expected unique names)");
  }
}

TEST(Csv, RaggedRowNamesFileAndLine) {
  try {
    (void)parse_csv("a,b\n1,2\n3\n", "bad.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:3"), std::string::npos) << e.what();
  }
}

TEST(Csv, UnterminatedQuoteIsAnError) {
  EXPECT_THROW((void)parse_csv("a\n\"open\n", "q.csv"), InputError);
}

TEST(Csv, NumberFieldsNameTheField) {
  const auto t = parse_csv("x\nabc\n", "n.csv");
  try {
    (void)t.get_number(0, "x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("n.csv:2: field 'x'"), std::string::npos) << e.what();
  }
}

TEST(Csv, EscapeRoundTrips) {
  const std::vector<std::string> fields{"plain", "a,b", "q\"q", ""};
  const auto t = parse_csv("h1,h2,h3,h4\n" + csv_line(fields) + "\n", "r.csv");
  EXPECT_EQ(t.rows.at(0), fields);
}

TEST(Files, AtomicWriteLeavesNoTempAndReplaces) {
  const fs::path dir = temp_dir();
  const fs::path out = dir / "out.txt";
  write_output(out.string(), "first");
  write_output(out.string(), "second");
  EXPECT_EQ(read_text_file(out), "second");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

TEST(Files, UnwritableDirectoryIsInputError) {
  EXPECT_THROW(write_output("/nonexistent-dir-cnnperf/x.csv", "x"), InputError);
}

TEST(Files, MissingFileIsInputError) {
  try {
    (void)read_text_file("/no/such/file.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/file.csv"), std::string::npos);
  }
}

// ONNX files are protobuf: NUL, bytes >= 0x80 that are no UTF-8 and "\r\n" must come back as
// they are.
TEST(Files, ReadsBinaryBytesUnchanged) {
  const fs::path dir = temp_dir();
  const fs::path path = dir / "binary.onnx";
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
  bytes += "\r\n\xff\xfe";
  bytes.push_back('\0');
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  EXPECT_EQ(read_text_file(path), bytes);
  fs::remove_all(dir);
}

TEST(Files, ReadsGzip) {
  const fs::path dir = temp_dir();
  const fs::path gz = dir / "x.csv.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  const std::string text = "a,b\n1,2\n";
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  EXPECT_EQ(read_text_file(gz), text);
  fs::remove_all(dir);
}

// A truncated .gz must not read as a complete, shorter file (zlib ends it cleanly with
// Z_BUF_ERROR); both a cut in the data and a missing checksum trailer are errors.
TEST(Files, TruncatedGzipIsAnInputError) {
  const fs::path dir = temp_dir();
  const fs::path gz = dir / "t.csv.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string text = "a,b\n";
  for (int i = 0; i < 5000; ++i) text += std::to_string(i) + "," + std::to_string(i * 7) + "\n";
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  const auto full = fs::file_size(gz);
  for (const auto cut : {full - 4, full / 2}) {
    fs::resize_file(gz, cut);
    try {
      (void)read_text_file(gz);
      FAIL() << "a file cut to " << cut << " of " << full << " bytes was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("corrupt or truncated gzip data"), std::string::npos)
          << e.what();
    }
  }
  fs::remove_all(dir);
}

// -o through a symlink writes the file it names (the link stays); a device is written in
// place, never replaced by a regular file.
// A gzip bomb (synthetic: zeros compressed here, 8 MiB in a few KB) is bad input as soon as it
// inflates past the bound, never a read until memory runs out. The bound is lowered for the
// test; commands read with kMaxInflatedBytes.
TEST(Files, GzipInflatingPastTheBoundIsAnInputError) {
  const fs::path gz = temp_dir() / "bomb.csv.gz";
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  gzFile f = gzopen(gz.c_str(), "wb9");
  ASSERT_NE(f, nullptr);
  const std::string zeros(kMiB, '0');
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(gzwrite(f, zeros.data(), static_cast<unsigned>(zeros.size())),
              static_cast<int>(zeros.size()));
  }
  gzclose(f);
  EXPECT_LT(fs::file_size(gz), 64 * 1024);
  for (const std::size_t bound : {kMiB, 8 * kMiB - 1}) {
    try {
      (void)read_text_file(gz, bound);
      ADD_FAILURE() << "expected InputError past " << bound << " bytes";
    } catch (const InputError& e) {
      const std::string bound_text = bound == kMiB ? "1 MiB" : std::to_string(bound) + " bytes";
      EXPECT_EQ(std::string(e.what()),
                gz.string() + ": inflates to more than " + bound_text +
                    " (expected a compressed input of at most that much data)");
    }
  }
  // Up to the bound itself, the file reads whole.
  EXPECT_EQ(read_text_file(gz, 8 * kMiB), std::string(8 * kMiB, '0'));
  fs::remove(gz);
}

TEST(Files, WriteThroughSymlinkAndToADevice) {
  const fs::path dir = temp_dir();
  const fs::path link = dir / "link.csv";
  fs::create_symlink("target.csv", link);  // dangling: names the file to create
  write_output(link.string(), "one");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_text_file(dir / "target.csv"), "one");
  write_output(link.string(), "two");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_text_file(dir / "target.csv"), "two");
  write_output("/dev/null", "nothing");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  fs::remove_all(dir);
}

TEST(Files, CheckOutputPathFailsBeforeAnyWork) {
  const fs::path dir = temp_dir();
  EXPECT_NO_THROW(check_output_path((dir / "new.json").string()));
  EXPECT_NO_THROW(check_output_path(""));
  EXPECT_NO_THROW(check_output_path("-"));
  try {
    check_output_path((dir / "missing" / "m.json").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_THROW(check_output_path(dir.string()), InputError);
  EXPECT_FALSE(fs::exists(dir / "new.json"));
  fs::remove_all(dir);
}

// An --output that names an input would replace it (`predict --layers x.csv -o x.csv`).
TEST(Files, CheckOutputNotInputRefusesToReplaceAnInput) {
  const fs::path dir = temp_dir();
  const fs::path input = dir / "rows.csv";
  std::ofstream(input) << "op\nrelu\n";
  const auto refuses = [&](const fs::path& output, const std::vector<std::string>& inputs) {
    try {
      check_output_not_input(output.string(), inputs);
      return false;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("is also an input of this command"), std::string::npos)
          << e.what();
      return true;
    }
  };
  EXPECT_TRUE(refuses(input, {"resnet50", input.string()}));
  fs::create_symlink(input, dir / "link.csv");  // the same file under another name
  EXPECT_TRUE(refuses(dir / "link.csv", {input.string()}));
  EXPECT_TRUE(refuses(input, {(dir / "r*.csv").string()}));  // a wildcard the shell left
  // Another file, a file not yet written, names that are no file, stdout: all pass.
  std::ofstream(dir / "other.csv") << "op\n";
  EXPECT_FALSE(refuses(dir / "other.csv", {input.string(), "resnet50", "a100", ""}));
  EXPECT_FALSE(refuses(dir / "new.csv", {input.string()}));
  EXPECT_FALSE(refuses("-", {input.string()}));
  EXPECT_FALSE(refuses("", {input.string()}));
  EXPECT_THROW(check_output_not_input((dir / "missing" / "m.csv").string(), {}), InputError);
  EXPECT_EQ(read_text_file(input), "op\nrelu\n");
  fs::remove_all(dir);
}

TEST(Parse, Numbers) {
  EXPECT_DOUBLE_EQ(parse_number(" 2.5 ", "x"), 2.5);
  EXPECT_THROW((void)parse_number("2.5x", "x"), InputError);
  EXPECT_THROW((void)parse_number("nan", "x"), InputError);
  // Decimal, all of it: hex and a NUL-cut "1" were read as numbers before.
  EXPECT_THROW((void)parse_number("0x10", "x"), InputError);
  EXPECT_THROW((void)parse_number(std::string_view("1\0 2", 4), "x"), InputError);
  EXPECT_THROW((void)parse_number("+-5", "x"), InputError);
  EXPECT_DOUBLE_EQ(parse_number("+4", "x"), 4.0);
  EXPECT_DOUBLE_EQ(parse_number("1e3", "x"), 1000.0);
  EXPECT_DOUBLE_EQ(parse_number(".5", "x"), 0.5);
  EXPECT_DOUBLE_EQ(parse_number("-2.5E-1", "x"), -0.25);
  EXPECT_EQ(parse_positive_int("12", "n"), 12);
  EXPECT_THROW((void)parse_positive_int("0", "n"), InputError);
  EXPECT_THROW((void)parse_positive_int("-3", "n"), InputError);
  EXPECT_THROW((void)output_format_from_string("xml"), InputError);
  EXPECT_EQ(output_format_from_string("JSON"), OutputFormat::kJson);
}

TEST(Strings, EditDistanceCountsSingleCharacterEdits) {
  EXPECT_EQ(edit_distance("", ""), 0U);
  EXPECT_EQ(edit_distance("", "abc"), 3U);
  EXPECT_EQ(edit_distance("abc", ""), 3U);
  EXPECT_EQ(edit_distance("resnet50", "resnet50"), 0U);
  EXPECT_EQ(edit_distance("resnet50", "resnet5"), 1U);  // deletion
  EXPECT_EQ(edit_distance("v100", "a100"), 1U);         // substitution
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);    // two substitutions, one insertion
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2U);         // not the same as the Hamming count
  EXPECT_EQ(edit_distance("sitting", "kitten"), edit_distance("kitten", "sitting"));
}

TEST(Format, TableAlignsNumbersRight) {
  const std::string t = format_table({"name", "v"}, {{"a", "1.5"}, {"bbb", "10"}});
  EXPECT_NE(t.find("a     1.5"), std::string::npos) << t;
  EXPECT_NE(t.find("bbb    10"), std::string::npos) << t;
  EXPECT_EQ(format_number(0.0012345, 3), "0.00123");
  EXPECT_EQ(format_number(1234.6, 4), "1235");
}

TEST(UserFile, ARelativeNameMissingHereIsLookedUpAmongTheBundledFiles) {
  // Run from a directory without models/: the bundled file is found.
  const fs::path here = fs::current_path();
  const fs::path elsewhere = temp_dir() / "cwd";
  fs::create_directories(elsewhere);
  fs::current_path(elsewhere);
  const std::string found = user_file_or_resource("models/gpus.json");
  const std::string missing = user_file_or_resource("models/no_such_model.json");
  // A file of that name in the working directory wins over the bundled one.
  fs::create_directories(elsewhere / "models");
  std::ofstream(elsewhere / "models" / "gpus.json") << "{}";
  const std::string local = user_file_or_resource("models/gpus.json");
  fs::current_path(here);
  EXPECT_EQ(found, find_resource("models/gpus.json").string());
  EXPECT_TRUE(fs::exists(found)) << found;
  EXPECT_EQ(missing, "models/no_such_model.json");
  EXPECT_EQ(local, "models/gpus.json");
  EXPECT_EQ(user_file_or_resource("/abs/none.json"), "/abs/none.json");
  fs::remove_all(elsewhere);
}

// A wildcard the shell left unexpanded (nothing matched in the working directory) is
// expanded here, then among the bundled files, sorted.
TEST(UserFile, AnUnexpandedWildcardMatchesTheBundledFiles) {
  const fs::path here = fs::current_path();
  const fs::path elsewhere = temp_dir() / "cwd_glob";
  fs::create_directories(elsewhere);
  fs::current_path(elsewhere);
  const auto bundled = user_files_or_resources("datasets/layers_*.csv.gz");
  const auto none = user_files_or_resources("datasets/no_such_*.csv");
  fs::create_directories(elsewhere / "datasets");
  std::ofstream(elsewhere / "datasets" / "layers_b.csv") << "op\n";
  std::ofstream(elsewhere / "datasets" / "layers_a.csv") << "op\n";
  const auto local = user_files_or_resources("datasets/layers_*.csv");
  const auto plain = user_files_or_resources("models/gpus.json");
  fs::current_path(here);
  ASSERT_EQ(bundled.size(), 3U);
  EXPECT_EQ(bundled[0], find_resource("datasets/layers_mlpredict.csv.gz").string());
  EXPECT_EQ(bundled[1], find_resource("datasets/layers_neusight.csv.gz").string());
  EXPECT_EQ(bundled[2], find_resource("datasets/layers_neusight_test.csv.gz").string());
  EXPECT_EQ(none, std::vector<std::string>{"datasets/no_such_*.csv"});
  EXPECT_EQ(local, (std::vector<std::string>{"datasets/layers_a.csv", "datasets/layers_b.csv"}));
  EXPECT_EQ(plain, std::vector<std::string>{find_resource("models/gpus.json").string()});
  fs::remove_all(elsewhere);
}

}  // namespace
}  // namespace cnnperf
