// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "../input_error_of.hpp"
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

// Every document reads as nlohmann's own parser reads it, number kinds included (a
// non-negative integer is unsigned, a negative one signed, anything with a point or an
// exponent a float), whichever path reads it.
void expect_same_document(const nlohmann::json& got, const nlohmann::json& want,
                          const std::string& where) {
  ASSERT_EQ(got.type(), want.type()) << where;
  if (got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << where;
    for (std::size_t i = 0; i < got.size(); ++i) {
      expect_same_document(got[i], want[i], where + "[" + std::to_string(i) + "]");
    }
  } else if (got.is_object()) {
    ASSERT_EQ(got.size(), want.size()) << where;
    for (const auto& [key, value] : want.items()) {
      ASSERT_TRUE(got.contains(key)) << where << "." << key;
      expect_same_document(got[key], value, where + "." + key);
    }
  } else {
    EXPECT_EQ(got, want) << where;
    if (got.is_number_float()) {  // bit for bit: -0.0 and the last digit of a double
      EXPECT_EQ(std::signbit(got.get<double>()), std::signbit(want.get<double>())) << where;
    }
  }
}

TEST(JsonIo, ReadsEveryValueAsNlohmannDoes) {
  for (const char* text : {
           R"({"a": 1, "b": -2, "c": 3.5, "d": 1e2, "e": -0.0, "f": 0, "g": "x\u00e9\n",
               "h": [true, false, null], "i": {}, "j": [], "k": 18446744073709551615,
               "l": -9223372036854775808, "m": 0.1, "n": 2.2250738585072014e-308,
               "o": 1.7976931348623157e308, "p": 123456789012345678, "q": "\ud83d\ude00"})",
           "[]", "\"text\"", "42", "-7", "1.25", "null", "true", " [1, [2, [3, {\"a\": [4]}]]] ",
           "\xEF\xBB\xBF{\"bom\": 1}", "-0", "[-0, 1]", "{\"a\":-0}",
           "{\"a\": \"WP-08608\", \"b\": -0 }", "[18446744073709551616, 1e400]"}) {
    nlohmann::json want;
    try {
      want = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
      EXPECT_THROW((void)parse_json_text(text, "x.json"), InputError) << text;
      continue;
    }
    expect_same_document(parse_json_text(text, "x.json"), want, text);
  }
}

TEST(JsonIo, OneLevelPastTheBoundIsRefused) {
  const std::string past =
      std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  EXPECT_THROW((void)parse_json_text(past, "deep.json"), InputError);
  std::string objects;
  for (std::size_t i = 0; i < kMaxJsonDepth + 1; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kMaxJsonDepth + 1, '}');
  EXPECT_THROW((void)parse_json_text(objects, "deep.json"), InputError);
}

TEST(JsonIo, RepeatedKeyAtTheRootOrInARootArray) {
  const auto message = [](const std::string& text) {
    return test::input_error_of([&] { (void)parse_json_text(text, "r.json"); });
  };
  const std::string tail = ": key given twice in one object (JSON readers keep only one of them)";
  EXPECT_EQ(message(R"({"x": 1, "x": 2})"), "r.json: x" + tail);
  EXPECT_EQ(message(R"([0, {"y": {"x": 1, "x": 2}}])"), "r.json: [1].y.x" + tail);
  EXPECT_EQ(message(R"([[{"x": 1, "x": 2}]])"), "r.json: [0][0].x" + tail);
  // A repeated key is named even when the text also has an error further on.
  EXPECT_EQ(message(R"({"x": 1, "x": 2, "z": })"), "r.json: x" + tail);
}

TEST(JsonIo, ParsedTextBuildsOneValueAtATime) {
  const std::string text = R"({"gpus": [{"name": "a"}, {"name": "b", "sources": {"x": "y"}}]})";
  const ParsedJsonText parsed(text, "t.json");
  EXPECT_EQ(parsed.name(), "t.json");
  EXPECT_EQ(parsed.find("/gpus/1"),
            nlohmann::json::parse(R"({"name": "b", "sources": {"x": "y"}})"));
  EXPECT_EQ(parsed.find("/gpus/1/sources/x"), nlohmann::json("y"));
  EXPECT_EQ(parsed.find(""), nlohmann::json::parse(text));
  EXPECT_EQ(parsed.find("/gpus/2"), std::nullopt);
  EXPECT_EQ(parsed.find("/nope"), std::nullopt);
  EXPECT_EQ(parsed.array_size("/gpus"), std::optional<std::size_t>(2));
  EXPECT_EQ(parsed.array_size("/gpus/0"), std::nullopt);  // an object, not an array
  EXPECT_EQ(parsed.array_size("/x"), std::nullopt);
}

TEST(JsonIo, ParsedTextLeavesOutMembersAtOneDepth) {
  // "skip" at depth 2 below the root (inside the array's objects) goes; at 0 and 3 it stays.
  const std::string text =
      R"({"skip": 1, "items": [{"a": 1, "skip": {"x": [1, 2]}}, {"b": {"skip": 2}}]})";
  const nlohmann::json expected =
      nlohmann::json::parse(R"({"skip": 1, "items": [{"a": 1}, {"b": {"skip": 2}}]})");
  EXPECT_EQ(ParsedJsonText(text, "t.json").find("", "skip", 2), expected);
  // Depth counts from the value asked for: the first item's own "skip" is depth 0.
  EXPECT_EQ(ParsedJsonText(text, "t.json").find("/items/0", "skip", 0),
            nlohmann::json::parse(R"({"a": 1})"));
  // The slow path (an integer written -0 sends the text there) answers the same.
  const std::string slow =
      R"({"skip": -0, "items": [{"a": 1, "skip": {"x": [1, 2]}}, {"b": {"skip": 2}}]})";
  nlohmann::json expected_slow = expected;
  expected_slow["skip"] = -0;
  const ParsedJsonText parsed_slow(slow, "t.json");
  EXPECT_EQ(parsed_slow.find("", "skip", 2), expected_slow);
  EXPECT_EQ(parsed_slow.find("/items/0", "skip", 0), nlohmann::json::parse(R"({"a": 1})"));
  EXPECT_EQ(parsed_slow.find("/items/1/b/skip"), nlohmann::json(2));
  EXPECT_EQ(parsed_slow.array_size("/items"), std::optional<std::size_t>(2));
  EXPECT_EQ(parsed_slow.find("/x"), std::nullopt);
}

TEST(JsonIo, ParsedTextReportsBadSyntaxAtOnceAndARepeatedKeyWhereItIsBuilt) {
  EXPECT_NE(test::input_error_of([] {
              (void)ParsedJsonText(R"({"items": [{"a": [1,}]})", "t.json");
            }).find("t.json: invalid JSON"),
            std::string::npos);
  const ParsedJsonText parsed(R"({"ok": 1, "gpus": [{"a": 1}, {"b": {"x": 1, "x": 2}}]})",
                              "t.json");
  EXPECT_EQ(parsed.find("/ok"), nlohmann::json(1));
  EXPECT_EQ(parsed.find("/gpus/0"), nlohmann::json::parse(R"({"a": 1})"));
  const std::string tail = ": key given twice in one object (JSON readers keep only one of them)";
  EXPECT_EQ(test::input_error_of([&] { (void)parsed.find("/gpus/1"); }),
            "t.json: gpus[1].b.x" + tail);
  EXPECT_EQ(test::input_error_of([&] { (void)parsed.find(""); }), "t.json: gpus[1].b.x" + tail);
  // A repeated key in what is left out is still reported, as the full parse would.
  EXPECT_EQ(test::input_error_of([] {
              (void)ParsedJsonText(R"({"items": [{"skip": 1, "skip": 2}]})", "t.json")
                  .find("", "skip", 2);
            }),
            "t.json: items[0].skip" + tail);
}

TEST(JsonIo, MissingFileIsBadInput) {
  EXPECT_THROW((void)read_json_file("/nonexistent/dir/x.json"), InputError);
  EXPECT_EQ(parse_json_text(" {\"k\": 2} ", "ok.json")["k"], 2);
}

}  // namespace
}  // namespace cnnperf
