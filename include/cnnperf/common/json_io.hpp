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

/// parse_json_text without the members named `key` of the objects `depth` levels below the
/// root (the root is depth 0; the GPU database's entries' "sources" are key "sources" at
/// depth 2): what a reader that never looks at them need not build. The whole text is still
/// checked, with the same errors.
[[nodiscard]] nlohmann::json parse_json_text_without(std::string_view text, const std::string& name,
                                                     std::string_view key, int depth);

/// The value at `pointer` (RFC 6901, e.g. "/gpus/12/sources") of JSON text, built alone:
/// parse_json_text(text).at(pointer) without building the rest. Throws InputError as
/// parse_json_text does, or "NAME: POINTER: not found".
[[nodiscard]] nlohmann::json parse_json_text_at(std::string_view text, const std::string& name,
                                                const std::string& pointer);

/// Reads (plain or .gz) and parses a JSON file; errors name the path as above.
[[nodiscard]] nlohmann::json read_json_file(const std::string& path);

/// The JSON text of `value`, as nlohmann's dump(indent) (-1: one line). Every JSON that
/// cnnperf writes goes through here: a string that is not valid UTF-8 (a 0xFF byte in a CSV
/// cell, a file name or an ONNX node name) is written with U+FFFD in place of each invalid
/// byte, since JSON text must be UTF-8 and such input is no error (docs/data-formats.md).
[[nodiscard]] std::string json_text(const nlohmann::json& value, int indent = 2);
[[nodiscard]] std::string json_text(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace cnnperf
