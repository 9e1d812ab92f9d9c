// SPDX-License-Identifier: Apache-2.0
// A forward-only reader over JSON text that builds no DOM: callers walk the structure they
// expect and skip the rest. It exists because the bundled model is 13 MB of JSON and a full
// nlohmann DOM of it costs more than the whole `predict` budget (docs/benchmarks.md).
// Private to src/ml (not installed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cnnperf::ml_detail {

/// Walks JSON text token by token. Strict about syntax (RFC 8259 grammar, no trailing commas);
/// strings are not checked for valid UTF-8. Every error is an InputError
/// "<where>: byte N: expected ...".
///
/// Objects and arrays are read as
///   c.begin_object(); while (c.next_member(key)) { ...read or skip the value... }
///   c.begin_array();  while (c.next_element())  { ...read or skip the value... }
class JsonCursor {
 public:
  /// `offset` is added to the byte positions in messages (when `text` is part of a file).
  JsonCursor(std::string_view text, std::string where, std::size_t offset = 0);

  /// Byte offset of the next unread character.
  [[nodiscard]] std::size_t offset() const { return pos_; }
  /// The next non-whitespace character, or '\0' at the end of the text.
  [[nodiscard]] char peek();
  /// Throws unless only whitespace is left.
  void expect_end();

  void begin_object();
  /// Reads the next key and its ':'; false (and consumes '}') when the object ends. The view
  /// stays valid until the next call on this cursor.
  [[nodiscard]] bool next_member(std::string_view& key);
  void begin_array();
  /// Prepares the next element; false (and consumes ']') when the array ends.
  [[nodiscard]] bool next_element();

  /// A string value, unescaped. The view stays valid until the next call on this cursor.
  [[nodiscard]] std::string_view string_value();
  /// A number as float, rounded once from the decimal text (std::from_chars): the same value a
  /// correctly rounding float parser such as XGBoost's gives.
  [[nodiscard]] float float_value();
  /// A number without fraction or exponent that fits int64.
  [[nodiscard]] std::int64_t int_value();
  /// true/false, or the integers 0/1 (XGBoost 1.7 writes booleans of arrays as 0/1).
  [[nodiscard]] bool bool_value();
  /// A whole array of integers / floats (as int_value / float_value), appended to `out`.
  void int_array(std::vector<std::int64_t>& out);
  void float_array(std::vector<float>& out);
  /// A whole array of booleans (as bool_value), appended to `out` as 0/1.
  void bool_array(std::vector<std::uint8_t>& out);
  /// Reads an array of integers; true when all are 0 (or it is empty).
  [[nodiscard]] bool zeros_array();

  /// Skips one value of any kind; returns its text (no surrounding whitespace).
  std::string_view skip_value();
  /// Skips an array of numbers checking only that it holds nothing but the characters numbers,
  /// commas and whitespace are made of (so "1,,2" or "1e" pass). For arrays a reader ignores
  /// and that are 50 % of an XGBoost model's bytes; ~20x faster than the full grammar.
  void skip_number_array_lenient();
  /// Skips the object or array at the cursor by matching brackets outside strings, WITHOUT
  /// checking anything else; returns its text. Several times faster than skip_value, for a
  /// range that will be read with a validating cursor later anyway.
  std::string_view skip_container_unchecked();
  /// Skips the object or array at the cursor in O(1) when the file records its length: true
  /// when `bytes` from here end within the text on the bracket that closes this one's kind
  /// ('}' for '{', ']' for '['), else false with the cursor unchanged. Checks nothing in
  /// between, so the caller must trust `bytes` (its own writer's) or read the range later.
  [[nodiscard]] bool skip_container_of_size(std::size_t bytes);
  /// Skips the string at the cursor, finding its closing quote with memchr and checking
  /// nothing inside; returns its raw contents (between the quotes, escapes not undone). For a
  /// megabyte string that a strict reader (such as a base64 decoder) reads later anyway.
  std::string_view skip_string_unchecked();

  [[noreturn]] void fail(const std::string& expected) const;

 private:
  void skip_ws();
  void expect(char c);
  /// Validates a number token at pos_ and returns it (pos_ moves past it).
  std::string_view number_token();
  /// Validates a string token at pos_ (after its opening quote has been checked) and returns
  /// its raw contents between the quotes.
  std::string_view string_token(bool& has_escape);
  void skip_value(int depth);

  std::string_view text_;
  std::string where_;
  std::size_t offset_ = 0;
  std::size_t pos_ = 0;
  bool first_ = false;   ///< true right after '{' or '[' (no comma expected before the item)
  std::string scratch_;  ///< unescaped string contents
};

}  // namespace cnnperf::ml_detail
