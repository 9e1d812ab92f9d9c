// SPDX-License-Identifier: Apache-2.0
// Reading a result cnnperf wrote back into its type (from_json): checks nlohmann leaves out.
// Their errors are nlohmann::json::type_error, as nlohmann's own are, so a reader reports
// both alike (report names the file).
#pragma once

#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// Throws nlohmann's type_error unless `j` is an object.
template <typename BasicJson>
void json_require_object(const BasicJson& j) {
  if (!j.is_object()) {
    throw BasicJson::type_error::create(
        302, std::string("type must be object, but is ") + j.type_name(), &j);
  }
}

/// j.get_to(value), except that an integer member takes an integer only: nlohmann would cast
/// a number with a fraction or out of the type's range (undefined behaviour).
template <typename BasicJson, typename T>
void json_get_exact(const BasicJson& j, T& value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (j.is_number_float()) {
      throw BasicJson::type_error::create(302,
                                          "type must be an integer, but is a number with "
                                          "a fraction or exponent",
                                          &j);
    }
  }
  j.get_to(value);
}

/// Reads member `key` of object `j` into `value` with json_get_exact; an absent member keeps
/// `value` as it is (a file of an older version lacks the members added after it). Throws
/// type_error unless `j` is an object, and one whose message starts with "key: " when the
/// member does not fit `value`, so that a reader's error names the member (nested members
/// read this way name their path as "outer: inner: ").
template <typename BasicJson, typename T>
void json_get_member_exact(const BasicJson& j, const char* key, T& value) {
  json_require_object(j);
  const auto it = j.find(key);
  if (it == j.end()) return;
  try {
    json_get_exact(*it, value);
  } catch (const typename BasicJson::type_error& e) {
    // what() is "[json.exception.type_error.N] " and the message: keep the message alone.
    const std::string what = e.what();
    const auto end_of_name = what.find("] ");
    const std::string message =
        end_of_name == std::string::npos ? what : what.substr(end_of_name + 2);
    throw BasicJson::type_error::create(e.id, std::string(key) + ": " + message, &*it);
  }
}

/// j.value(key, fallback) with json_get_member_exact's checks: the fallback when `j` has no
/// such member.
template <typename BasicJson, typename T>
[[nodiscard]] T json_value_exact(const BasicJson& j, const char* key, T fallback) {
  json_get_member_exact(j, key, fallback);
  return fallback;
}

}  // namespace cnnperf
