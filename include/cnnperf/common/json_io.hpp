// SPDX-License-Identifier: Apache-2.0
// Reading JSON documents with one error message for every file cnnperf reads.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// Parses JSON text. Throws InputError "NAME: invalid JSON: parse error at line L, column C:
/// ..." (nlohmann's message without its exception-id prefix), or "NAME: layers[0].c_in: key
/// given twice in one object" (JSON would silently keep the last).
[[nodiscard]] nlohmann::json parse_json_text(std::string_view text, const std::string& name);

/// Reads (plain or .gz) and parses a JSON file; errors name the path as above.
[[nodiscard]] nlohmann::json read_json_file(const std::string& path);

}  // namespace cnnperf
