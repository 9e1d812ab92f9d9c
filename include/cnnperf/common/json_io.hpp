// SPDX-License-Identifier: Apache-2.0
// Reading JSON documents with one error message for every file cnnperf reads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
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

/// JSON text parsed once, whose values are built as nlohmann documents only when asked for:
/// a reader that needs one entry of many (the bundled GPU database, one GPU per prediction)
/// does not build the rest. The text's syntax and depth are checked by the constructor; a key
/// given twice is reported by the call that builds the object holding it. Owns its copy of
/// the text; const members may be called from several threads at once.
class ParsedJsonText {
 public:
  /// Throws InputError as parse_json_text does, naming `name`.
  ParsedJsonText(std::string text, std::string name);
  ~ParsedJsonText();
  ParsedJsonText(ParsedJsonText&&) noexcept;
  ParsedJsonText& operator=(ParsedJsonText&&) noexcept;
  ParsedJsonText(const ParsedJsonText&) = delete;
  ParsedJsonText& operator=(const ParsedJsonText&) = delete;

  /// The value at `pointer` (RFC 6901; "" the root) as parse_json_text(text).at(pointer)
  /// would give it, less the members named `skip_key` of the objects `skip_depth` levels
  /// below that value (0: its own members; -1: none). nullopt where the text has no such
  /// value.
  [[nodiscard]] std::optional<nlohmann::json> find(const std::string& pointer,
                                                   std::string_view skip_key = {},
                                                   int skip_depth = -1) const;
  /// The number of elements of the array at `pointer`; nullopt when there is no array there.
  [[nodiscard]] std::optional<std::size_t> array_size(const std::string& pointer) const;
  [[nodiscard]] const std::string& name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads (plain or .gz) and parses a JSON file; errors name the path as above.
[[nodiscard]] nlohmann::json read_json_file(const std::string& path);

/// The JSON text of `value`, as nlohmann's dump(indent) (-1: one line). Every JSON that
/// cnnperf writes goes through here: a string that is not valid UTF-8 (a 0xFF byte in a CSV
/// cell, a file name or an ONNX node name) is written with U+FFFD in place of each invalid
/// byte, since JSON text must be UTF-8 and such input is no error (docs/data-formats.md).
[[nodiscard]] std::string json_text(const nlohmann::json& value, int indent = 2);
[[nodiscard]] std::string json_text(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace cnnperf
