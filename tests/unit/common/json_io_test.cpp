// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

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

TEST(JsonIo, MissingFileIsBadInput) {
  EXPECT_THROW((void)read_json_file("/nonexistent/dir/x.json"), InputError);
  EXPECT_EQ(parse_json_text(" {\"k\": 2} ", "ok.json")["k"], 2);
}

}  // namespace
}  // namespace cnnperf
