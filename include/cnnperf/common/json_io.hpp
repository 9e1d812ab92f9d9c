// SPDX-License-Identifier: Apache-2.0
// Reading JSON documents with one error message for every file cnnperf reads.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// The deepest nesting of arrays and objects a JSON input may have. cnnperf's own files
/// nest under 10 levels; the bound keeps recursive readers and printers off a stack overflow.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Parses JSON text. Throws InputError "NAME: invalid JSON: parse error at line L, column C:
/// ..." (nlohmann's message without its exception-id prefix), "NAME: layers[0].c_in: key
/// given twice in one object" (JSON would silently keep the last), or one for nesting deeper
/// than kMaxJsonDepth.
[[nodiscard]] nlohmann::json parse_json_text(std::string_view text, const std::string& name);

/// Reads (plain or .gz) and parses a JSON file; errors name the path as above.
[[nodiscard]] nlohmann::json read_json_file(const std::string& path);

}  // namespace cnnperf
