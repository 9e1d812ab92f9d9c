// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/json_io.hpp"

namespace cnnperf {
namespace {

TEST(JsonIo, ParseErrorsNameTheSourceLineAndColumn) {
  try {
    (void)parse_json_text("{\n  \"a\": [1,, 2]\n}", "x.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("x.json: invalid JSON: parse error at line 2, column 11", 0),
        0u)
        << e.what();
  }
}

TEST(JsonIo, NumberOverflowIsBadInputNotACrash) {
  // nlohmann reports an overflowing number as out_of_range, not parse_error.
  EXPECT_THROW((void)parse_json_text("[2.37e6405]", "x.json"), InputError);
}

// nlohmann keeps the last of two equal keys; a repeated key is a typo the reader must name.
TEST(JsonIo, RepeatedKeyIsBadInputNamingItsPlace) {
  try {
    (void)parse_json_text(R"({"a": [1, {"b": 2}, [3, {"x": 1, "y": {"x": 0}, "x": 2}]]})",
                          "d.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "d.json: a[2][1].x: key given twice in one object (JSON readers keep only one of "
              "them)");
  }
  // The same key in sibling or nested objects is fine.
  const auto ok = parse_json_text(R"([{"x": 1}, {"x": 2, "y": {"x": 3}}])", "ok.json");
  EXPECT_EQ(ok[1]["y"]["x"], 3);
}

// 60,000 nested arrays (120 KB) crashed the readers that walk a document recursively.
TEST(JsonIo, NestingPastTheBoundIsBadInputNotACrash) {
  const std::size_t levels = 60000;
  for (const auto& [open, close] : {std::pair{'[', ']'}, std::pair{'{', '}'}}) {
    std::string text;
    for (std::size_t i = 0; i < levels; ++i) text += open == '[' ? "[" : "{\"a\":";
    text += "1";
    text += std::string(levels, close);
    try {
      (void)parse_json_text(text, "deep.json");
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("deep.json: arrays or objects nested deeper than 256 levels", 0), 0U)
          << what.substr(0, 200);
      EXPECT_LT(what.size(), 200U);  // names the bound, never echoes the document
    }
  }
  // At the bound itself a document still parses.
  const std::string at_bound = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_NO_THROW((void)parse_json_text(at_bound, "ok.json"));
}

TEST(JsonIo, MissingFileIsBadInput) {
  EXPECT_THROW((void)read_json_file("/nonexistent/dir/x.json"), InputError);
  EXPECT_EQ(parse_json_text(" {\"k\": 2} ", "ok.json")["k"], 2);
}

}  // namespace
}  // namespace cnnperf
