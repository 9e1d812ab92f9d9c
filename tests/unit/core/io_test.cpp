// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "cnnperf/error.hpp"
#include "cnnperf/io.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("cnnperf_io_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(Csv, ParsesQuotedFieldsAndLines) {
  const auto t = parse_csv("a,b,c\n1,\"x,y\",\"he said \"\"hi\"\"\"\n\n2,\"multi\nline\",z\n", "t.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][1], "x,y");
  EXPECT_EQ(t.rows[0][2], "he said \"hi\"");
  EXPECT_EQ(t.rows[1][1], "multi\nline");
  EXPECT_EQ(t.lines[0], 2u);
  EXPECT_EQ(t.lines[1], 4u);
  EXPECT_EQ(t.where(1), "t.csv:4");
}

TEST(Csv, RaggedRowNamesFileAndLine) {
  try {
    (void)parse_csv("a,b\n1,2\n3\n", "bad.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:3"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 2);
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

TEST(Parse, Numbers) {
  EXPECT_DOUBLE_EQ(parse_number(" 2.5 ", "x"), 2.5);
  EXPECT_THROW((void)parse_number("2.5x", "x"), InputError);
  EXPECT_THROW((void)parse_number("nan", "x"), InputError);
  EXPECT_EQ(parse_positive_int("12", "n"), 12);
  EXPECT_THROW((void)parse_positive_int("0", "n"), InputError);
  EXPECT_THROW((void)parse_positive_int("-3", "n"), InputError);
  EXPECT_THROW((void)output_format_from_string("xml"), InputError);
  EXPECT_EQ(output_format_from_string("JSON"), OutputFormat::kJson);
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

}  // namespace
}  // namespace cnnperf
