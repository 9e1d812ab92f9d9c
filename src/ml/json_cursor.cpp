// SPDX-License-Identifier: Apache-2.0
// JsonCursor: a validating, allocation-free (except unescaped strings) JSON token reader.
#include "json_cursor.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#include "cnnperf/error.hpp"

namespace cnnperf::ml_detail {
namespace {

// Deeper nesting than any model file has; the limit keeps hostile input off the stack.
constexpr int kMaxDepth = 256;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

JsonCursor::JsonCursor(std::string_view text, std::string where)
    : text_(text), where_(std::move(where)) {}

void JsonCursor::fail(const std::string& expected) const {
  throw InputError(where_ + ": byte " + std::to_string(pos_) + ": expected " + expected);
}

void JsonCursor::skip_ws() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

char JsonCursor::peek() {
  skip_ws();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

void JsonCursor::expect_end() {
  skip_ws();
  if (pos_ != text_.size()) fail("the end of the document");
}

void JsonCursor::expect(char c) {
  if (peek() != c) fail(std::string("'") + c + "'");
  ++pos_;
}

void JsonCursor::begin_object() {
  expect('{');
  first_ = true;
}

bool JsonCursor::next_member(std::string_view& key) {
  const char c = peek();
  if (c == '}') {  // after ',' a key is required below, so no trailing comma gets here
    ++pos_;
    first_ = false;
    return false;
  }
  if (!first_) expect(',');
  first_ = false;
  if (peek() != '"') fail("a string key");
  key = string_value();
  expect(':');
  return true;
}

void JsonCursor::begin_array() {
  expect('[');
  first_ = true;
}

bool JsonCursor::next_element() {
  const char c = peek();
  if (c == ']') {
    ++pos_;
    first_ = false;
    return false;
  }
  if (!first_) {
    expect(',');
    if (peek() == ']') fail("a value after ','");
  }
  first_ = false;
  return true;
}

std::string_view JsonCursor::string_token(bool& has_escape) {
  has_escape = false;
  const std::size_t begin = ++pos_;  // past the opening quote
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') return text_.substr(begin, pos_++ - begin);
    if (static_cast<unsigned char>(c) < 0x20) fail("no control character inside a string");
    if (c == '\\') {
      has_escape = true;
      ++pos_;
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_];
      if (e == 'u') {
        for (int i = 1; i <= 4; ++i) {
          if (pos_ + i >= text_.size() || hex_digit(text_[pos_ + i]) < 0) {
            fail("four hex digits after \\u");
          }
        }
        pos_ += 4;
      } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                 e != 'r' && e != 't') {
        fail("a valid escape sequence");
      }
    }
    ++pos_;
  }
  fail("'\"' closing the string");
}

std::string_view JsonCursor::string_value() {
  if (peek() != '"') fail("a string");
  bool has_escape = false;
  const std::string_view raw = string_token(has_escape);
  if (!has_escape) return raw;
  scratch_.clear();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      scratch_ += raw[i];
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'b': scratch_ += '\b'; break;
      case 'f': scratch_ += '\f'; break;
      case 'n': scratch_ += '\n'; break;
      case 'r': scratch_ += '\r'; break;
      case 't': scratch_ += '\t'; break;
      case 'u': {
        auto hex4 = [&](std::size_t at) {
          std::uint32_t v = 0;
          for (std::size_t k = 0; k < 4; ++k) v = v * 16 + hex_digit(raw[at + k]);
          return v;
        };
        std::uint32_t cp = hex4(i + 1);
        i += 4;
        // A high surrogate followed by an escaped low surrogate is one code point.
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.size() && raw[i + 1] == '\\' &&
            raw[i + 2] == 'u') {
          const std::uint32_t low = hex4(i + 3);
          if (low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        append_utf8(scratch_, cp);
        break;
      }
      default: scratch_ += e; break;  // '"', '\\', '/'
    }
  }
  return scratch_;
}

std::string_view JsonCursor::number_token() {
  const std::size_t begin = pos_;
  const std::size_t n = text_.size();
  if (pos_ < n && text_[pos_] == '-') ++pos_;
  if (pos_ >= n || !is_digit(text_[pos_])) fail("a number");
  if (text_[pos_] == '0') {
    ++pos_;
  } else {
    while (pos_ < n && is_digit(text_[pos_])) ++pos_;
  }
  if (pos_ < n && text_[pos_] == '.') {
    ++pos_;
    if (pos_ >= n || !is_digit(text_[pos_])) fail("a digit after '.'");
    while (pos_ < n && is_digit(text_[pos_])) ++pos_;
  }
  if (pos_ < n && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < n && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (pos_ >= n || !is_digit(text_[pos_])) fail("a digit in the exponent");
    while (pos_ < n && is_digit(text_[pos_])) ++pos_;
  }
  return text_.substr(begin, pos_ - begin);
}

float JsonCursor::float_value() {
  skip_ws();
  const std::size_t at = pos_;
  const std::string_view tok = number_token();
  float v = 0.0F;
  const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || end != tok.data() + tok.size() || !std::isfinite(v)) {
    pos_ = at;
    fail("a number within float range");
  }
  return v;
}

double JsonCursor::double_value() {
  skip_ws();
  const std::size_t at = pos_;
  const std::string_view tok = number_token();
  double v = 0.0;
  const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || end != tok.data() + tok.size()) {
    pos_ = at;
    fail("a number within double range");
  }
  return v;
}

std::int64_t JsonCursor::int_value() {
  skip_ws();
  const std::size_t at = pos_;
  const std::string_view tok = number_token();
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || end != tok.data() + tok.size()) {
    pos_ = at;
    fail("an integer");
  }
  return v;
}

bool JsonCursor::bool_value() {
  const char c = peek();
  if (c == 't' && text_.substr(pos_, 4) == "true") {
    pos_ += 4;
    return true;
  }
  if (c == 'f' && text_.substr(pos_, 5) == "false") {
    pos_ += 5;
    return false;
  }
  if (c == '0' || c == '1') {
    const std::size_t at = pos_;
    const std::int64_t v = int_value();
    if (v == 0 || v == 1) return v == 1;
    pos_ = at;
  }
  fail("true, false, 0 or 1");
}

std::string_view JsonCursor::skip_value() {
  skip_ws();
  const std::size_t begin = pos_;
  skip_value(0);
  return text_.substr(begin, pos_ - begin);
}

void JsonCursor::skip_value(int depth) {
  if (depth > kMaxDepth) fail("at most " + std::to_string(kMaxDepth) + " nested levels");
  const char c = peek();
  switch (c) {
    case '{': {
      begin_object();
      std::string_view key;
      while (next_member(key)) skip_value(depth + 1);
      return;
    }
    case '[':
      begin_array();
      while (next_element()) skip_value(depth + 1);
      return;
    case '"': {
      bool has_escape = false;
      (void)string_token(has_escape);
      return;
    }
    case 't':
    case 'f':
    case 'n':
      for (const std::string_view word : {"true", "false", "null"}) {
        if (text_.substr(pos_, word.size()) == word) {
          pos_ += word.size();
          return;
        }
      }
      fail("a value");
    default:
      (void)number_token();
  }
}

}  // namespace cnnperf::ml_detail
