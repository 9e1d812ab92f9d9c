// SPDX-License-Identifier: Apache-2.0
// json_get_member_exact: the optional-member reader of the typed results' from_json.
// SYNTHETIC: every JSON here is written by hand to hit one case, none is a cnnperf result.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cnnperf/common/json_get.hpp"

namespace cnnperf {
namespace {

using Json = nlohmann::json;

// The message of the type_error `call()` throws, or "no error".
template <class Call>
std::string type_error_of(Call&& call) {
  try {
    call();
  } catch (const Json::type_error& e) {
    return e.what();
  }
  return "no error";
}

struct Inner {
  std::int64_t count = 0;
};
void from_json(const Json& j, Inner& inner) {
  json_get_member_exact(j, "count", inner.count);
}

TEST(JsonGetMemberExact, PresentMemberIsRead) {
  const Json j = Json::parse(R"({"batch": 8, "gpu": "a100", "ms": 1.5, "tags": ["x", "y"]})");
  std::int64_t batch = 1;
  std::string gpu = "none";
  double ms = 0;
  std::vector<std::string> tags;
  json_get_member_exact(j, "batch", batch);
  json_get_member_exact(j, "gpu", gpu);
  json_get_member_exact(j, "ms", ms);
  json_get_member_exact(j, "tags", tags);
  EXPECT_EQ(batch, 8);
  EXPECT_EQ(gpu, "a100");
  EXPECT_DOUBLE_EQ(ms, 1.5);
  EXPECT_EQ(tags, (std::vector<std::string>{"x", "y"}));
}

TEST(JsonGetMemberExact, AbsentMemberKeepsTheValue) {
  const Json j = Json::parse(R"({"other": 3})");
  std::int64_t batch = 7;
  std::string gpu = "kept";
  json_get_member_exact(j, "batch", batch);
  json_get_member_exact(j, "gpu", gpu);
  EXPECT_EQ(batch, 7);
  EXPECT_EQ(gpu, "kept");
  EXPECT_EQ(json_value_exact(j, "batch", std::int64_t{5}), 5);
}

TEST(JsonGetMemberExact, MemberOfTheWrongTypeIsATypeErrorNamingIt) {
  const Json j = Json::parse(R"({"batch": "eight"})");
  std::int64_t batch = 1;
  EXPECT_EQ(type_error_of([&] { json_get_member_exact(j, "batch", batch); }),
            "[json.exception.type_error.302] batch: type must be number, but is string");
  EXPECT_EQ(batch, 1);
}

TEST(JsonGetMemberExact, FractionOrHugeNumberIntoAnIntegerIsATypeErrorNamingTheMember) {
  for (const char* text : {R"({"batch": 2.5})", R"({"batch": 1e300})", R"({"batch": 8.0})"}) {
    const Json j = Json::parse(text);
    std::int64_t batch = 1;
    EXPECT_EQ(type_error_of([&] { json_get_member_exact(j, "batch", batch); }),
              "[json.exception.type_error.302] batch: type must be an integer, but is a number "
              "with a fraction or exponent")
        << text;
    EXPECT_EQ(type_error_of([&] { (void)json_value_exact(j, "batch", batch); }),
              type_error_of([&] { json_get_member_exact(j, "batch", batch); }))
        << text;
  }
  // A fraction into a floating-point member is what it should be.
  double ms = 0;
  json_get_member_exact(Json::parse(R"({"ms": 2.5})"), "ms", ms);
  EXPECT_DOUBLE_EQ(ms, 2.5);
}

TEST(JsonGetMemberExact, NotAnObjectIsATypeError) {
  std::int64_t batch = 1;
  EXPECT_EQ(type_error_of([&] { json_get_member_exact(Json::parse("[1]"), "batch", batch); }),
            "[json.exception.type_error.302] type must be object, but is array");
}

TEST(JsonGetMemberExact, NestedMembersNameTheirPath) {
  const Json j = Json::parse(R"({"inners": [{"count": 1}, {"count": 0.5}]})");
  std::vector<Inner> inners;
  EXPECT_EQ(type_error_of([&] { json_get_member_exact(j, "inners", inners); }),
            "[json.exception.type_error.302] inners: count: type must be an integer, but is a "
            "number with a fraction or exponent");
  json_get_member_exact(Json::parse(R"({"inners": [{"count": 4}, {}]})"), "inners", inners);
  ASSERT_EQ(inners.size(), 2U);
  EXPECT_EQ(inners[0].count, 4);
  EXPECT_EQ(inners[1].count, 0);
}

}  // namespace
}  // namespace cnnperf
