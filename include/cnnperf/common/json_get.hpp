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

/// j.value(key, fallback) with json_get_exact's check: the fallback when `j` has no such
/// member.
template <typename BasicJson, typename T>
[[nodiscard]] T json_value_exact(const BasicJson& j, const char* key, T fallback) {
  json_require_object(j);
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  T value{};
  json_get_exact(*it, value);
  return value;
}

}  // namespace cnnperf
