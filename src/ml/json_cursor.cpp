// SPDX-License-Identifier: Apache-2.0
// JsonCursor: a validating JSON token reader that builds no values.
//
// Speed matters here (the bundled model is 13.5 MB): the scanning loops work on local
// pointers rather than the members, so the compiler keeps them in registers, and arrays of
// numbers - nearly all of an XGBoost model - are read or skipped in one tight loop.
#include "json_cursor.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cnnperf/error.hpp"

namespace cnnperf::ml_detail {
namespace {

// Deeper nesting than any model file has; the limit keeps hostile input off the stack.
constexpr int kMaxDepth = 256;

inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

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

inline const char* skip_space(const char* p, const char* end) {
  while (p != end && is_ws(*p)) ++p;
  return p;
}

/// End of the JSON number starting at p, or nullptr when p does not start a valid number.
inline const char* scan_number(const char* p, const char* end) {
  if (p != end && *p == '-') ++p;
  if (p == end || !is_digit(*p)) return nullptr;
  if (*p == '0') {
    ++p;
  } else {
    while (p != end && is_digit(*p)) ++p;
  }
  if (p != end && *p == '.') {
    ++p;
    if (p == end || !is_digit(*p)) return nullptr;
    while (p != end && is_digit(*p)) ++p;
  }
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p != end && (*p == '+' || *p == '-')) ++p;
    if (p == end || !is_digit(*p)) return nullptr;
    while (p != end && is_digit(*p)) ++p;
  }
  return p;
}

/// First of '"', '{', '}', '[', ']' at or after p (end if none). Numbers and commas are
/// nearly all of an XGBoost model, so 16 bytes at a time are tested where SSE2 exists.
inline const char* next_structural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i open_brace = _mm_set1_epi8('{');
  const __m128i close_brace = _mm_set1_epi8('}');
  const __m128i open_bracket = _mm_set1_epi8('[');
  const __m128i close_bracket = _mm_set1_epi8(']');
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, open_brace)),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, close_brace), _mm_cmpeq_epi8(v, open_bracket)),
                     _mm_cmpeq_epi8(v, close_bracket)));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p != end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
  return p;
}

/// Parses the JSON integer token [b, e) (from scan_number); false when it has a fraction or
/// an exponent or does not fit int64.
inline bool parse_int_token(const char* b, const char* e, std::int64_t& out) {
  const bool negative = *b == '-';
  if (negative) ++b;
  // 18 digits always fit; longer tokens take from_chars' range check.
  if (e - b > 18) {
    std::int64_t v = 0;
    const auto [stop, ec] = std::from_chars(negative ? b - 1 : b, e, v);
    out = v;
    return ec == std::errc() && stop == e;
  }
  std::int64_t v = 0;
  for (; b != e; ++b) {
    if (!is_digit(*b)) return false;
    v = v * 10 + (*b - '0');
  }
  out = negative ? -v : v;
  return true;
}

}  // namespace

JsonCursor::JsonCursor(std::string_view text, std::string where, std::size_t offset)
    : text_(text), where_(std::move(where)), offset_(offset) {}

void JsonCursor::fail(const std::string& expected) const {
  throw InputError(where_ + ": byte " + std::to_string(offset_ + pos_) + ": expected " + expected);
}

void JsonCursor::skip_ws() {
  pos_ = static_cast<std::size_t>(skip_space(text_.data() + pos_, text_.data() + text_.size()) -
                                  text_.data());
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
  if (peek() == '}') {  // after ',' a key is required below, so no trailing comma gets here
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
  if (peek() == ']') {
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
  const char* const begin = text_.data() + pos_ + 1;  // past the opening quote
  const char* const end = text_.data() + text_.size();
  const char* p = begin;
  while (p != end) {
    const char c = *p;
    if (c == '"') {
      pos_ = static_cast<std::size_t>(p + 1 - text_.data());
      return {begin, static_cast<std::size_t>(p - begin)};
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      pos_ = static_cast<std::size_t>(p - text_.data());
      fail("no control character inside a string");
    }
    if (c == '\\') {
      has_escape = true;
      ++p;
      if (p == end) break;
      const char e = *p;
      if (e == 'u') {
        for (int i = 1; i <= 4; ++i) {
          if (end - p <= i || hex_digit(p[i]) < 0) {
            pos_ = static_cast<std::size_t>(p - text_.data());
            fail("four hex digits after \\u");
          }
        }
        p += 4;
      } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                 e != 'r' && e != 't') {
        pos_ = static_cast<std::size_t>(p - text_.data());
        fail("a valid escape sequence");
      }
    }
    ++p;
  }
  pos_ = text_.size();
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
  const char* const begin = text_.data() + pos_;
  const char* const end = scan_number(begin, text_.data() + text_.size());
  if (end == nullptr) fail("a number");
  pos_ += static_cast<std::size_t>(end - begin);
  return {begin, static_cast<std::size_t>(end - begin)};
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
  if (!parse_int_token(tok.data(), tok.data() + tok.size(), v)) {
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

template <class OnNumber>
void JsonCursor::number_array(OnNumber&& on_number) {
  expect('[');
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  const char* p = skip_space(data + pos_, end);
  if (p != end && *p == ']') {
    pos_ = static_cast<std::size_t>(p + 1 - data);
    return;
  }
  while (true) {
    const char* const tok_end = scan_number(p, end);
    pos_ = static_cast<std::size_t>(p - data);
    if (tok_end == nullptr) fail("a number");
    on_number(p, tok_end);
    p = skip_space(tok_end, end);
    if (p != end && *p == ',') {
      p = skip_space(p + 1, end);
      continue;
    }
    pos_ = static_cast<std::size_t>(p - data);
    if (p == end || *p != ']') fail("',' or ']'");
    ++pos_;
    return;
  }
}

void JsonCursor::int_array(std::vector<std::int64_t>& out) {
  number_array([&](const char* b, const char* e) {
    std::int64_t v = 0;
    if (!parse_int_token(b, e, v)) fail("an integer");
    out.push_back(v);
  });
}

void JsonCursor::float_array(std::vector<float>& out) {
  number_array([&](const char* b, const char* e) {
    float v = 0.0F;
    const auto [stop, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || stop != e || !std::isfinite(v)) fail("a number within float range");
    out.push_back(v);
  });
}

void JsonCursor::bool_array(std::vector<bool>& out) {
  const std::size_t at = peek() == '[' ? pos_ : text_.size();
  const char* p = skip_space(text_.data() + at + 1, text_.data() + text_.size());
  if (at < text_.size() && p != text_.data() + text_.size() && is_digit(*p)) {
    number_array([&](const char* b, const char* e) {
      if (e - b != 1 || (*b != '0' && *b != '1')) fail("0 or 1");
      out.push_back(*b == '1');
    });
    return;
  }
  begin_array();
  while (next_element()) out.push_back(bool_value());
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
    case '[': {
      // Arrays of numbers (nearly all of an XGBoost model) take the tight loop.
      const std::size_t after = pos_ + 1;
      const char* p = skip_space(text_.data() + after, text_.data() + text_.size());
      if (p != text_.data() + text_.size() && (*p == '-' || is_digit(*p))) {
        const std::size_t at = pos_;
        try {
          number_array([](const char*, const char*) {});
          return;
        } catch (const InputError&) {
          pos_ = at;  // a mixed array: validate it element by element below
        }
      }
      begin_array();
      while (next_element()) skip_value(depth + 1);
      return;
    }
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

std::string_view JsonCursor::skip_container_unchecked() {
  const char open = peek();
  if (open != '{' && open != '[') fail("'{' or '['");
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  const char* p = data + pos_;
  const char* const begin = p;
  std::size_t depth = 0;
  while (true) {
    p = next_structural(p, end);
    if (p == end) break;
    const char c = *p++;
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) {
        pos_ = static_cast<std::size_t>(p - data);
        return {begin, static_cast<std::size_t>(p - begin)};
      }
    } else {  // '"'
      while (p != end && *p != '"') p += (*p == '\\' && end - p >= 2) ? 2 : 1;
      if (p == end) break;
      ++p;
    }
  }
  pos_ = text_.size();
  fail("the container to be closed");
}

}  // namespace cnnperf::ml_detail
