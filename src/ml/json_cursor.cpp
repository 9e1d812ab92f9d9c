// SPDX-License-Identifier: Apache-2.0
// JsonCursor: a validating JSON token reader that builds no values.
//
// Speed matters here (the bundled model is 13.5 MB): the scanning loops work on local
// pointers rather than the members, so the compiler keeps them in registers, and arrays of
// numbers - nearly all of an XGBoost model - are read or skipped in one tight loop.
#include "json_cursor.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cnnperf/common/error.hpp"

namespace cnnperf::ml_detail {
namespace {

// Deeper nesting than any model file has; the limit keeps hostile input off the stack.
constexpr int kMaxDepth = 256;

inline bool is_digit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

inline bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

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

// A table-driven recogniser for a whole array of JSON numbers, entered after its '['. It
// checks the full number grammar at a few instructions per byte, for skip_value on the
// number arrays that make up nearly all of an XGBoost model.
enum NumClass : std::uint8_t {
  kDigit0,
  kDigit19,
  kMinus,
  kPlus,
  kDot,
  kExp,
  kComma,
  kClose,
  kSpace,
  kOther
};
enum NumState : std::uint8_t {
  kStart,      // after '[' (a ']' may close an empty array)
  kValue,      // after ',' (a number must follow)
  kSign,       // after '-'
  kZero,       // a leading 0
  kInt,        // integer digits
  kDot0,       // after '.'
  kFrac,       // fraction digits
  kExp0,       // after 'e'
  kExpSign,    // after the exponent's sign
  kExpDigits,  // exponent digits
  kAfter,      // whitespace after a number
  kDone,       // the closing ']' was consumed
  kBad,
};

constexpr std::array<std::uint8_t, 256> kNumClass = [] {
  std::array<std::uint8_t, 256> t{};
  t.fill(kOther);
  t['0'] = kDigit0;
  for (int c = '1'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = kDigit19;
  t['-'] = kMinus;
  t['+'] = kPlus;
  t['.'] = kDot;
  t['e'] = kExp;
  t['E'] = kExp;
  t[','] = kComma;
  t[']'] = kClose;
  t[' '] = kSpace;
  t['\n'] = kSpace;
  t['\r'] = kSpace;
  t['\t'] = kSpace;
  return t;
}();

constexpr std::array<std::array<std::uint8_t, 10>, 11> kNumNext = [] {
  std::array<std::array<std::uint8_t, 10>, 11> t{};
  for (auto& row : t) row.fill(kBad);
  auto number_start = [&](NumState s) {
    t[s][kDigit0] = kZero;
    t[s][kDigit19] = kInt;
    t[s][kMinus] = kSign;
    t[s][kSpace] = s;
  };
  auto number_end = [&](NumState s) {  // where a number may stop
    t[s][kComma] = kValue;
    t[s][kClose] = kDone;
    t[s][kSpace] = kAfter;
  };
  number_start(kStart);
  t[kStart][kClose] = kDone;
  number_start(kValue);
  t[kSign][kDigit0] = kZero;
  t[kSign][kDigit19] = kInt;
  number_end(kZero);
  t[kZero][kDot] = kDot0;
  t[kZero][kExp] = kExp0;
  number_end(kInt);
  t[kInt][kDigit0] = t[kInt][kDigit19] = kInt;
  t[kInt][kDot] = kDot0;
  t[kInt][kExp] = kExp0;
  t[kDot0][kDigit0] = t[kDot0][kDigit19] = kFrac;
  number_end(kFrac);
  t[kFrac][kDigit0] = t[kFrac][kDigit19] = kFrac;
  t[kFrac][kExp] = kExp0;
  t[kExp0][kPlus] = t[kExp0][kMinus] = kExpSign;
  t[kExp0][kDigit0] = t[kExp0][kDigit19] = kExpDigits;
  t[kExpSign][kDigit0] = t[kExpSign][kDigit19] = kExpDigits;
  number_end(kExpDigits);
  t[kExpDigits][kDigit0] = t[kExpDigits][kDigit19] = kExpDigits;
  t[kAfter][kSpace] = kAfter;
  t[kAfter][kComma] = kValue;
  t[kAfter][kClose] = kDone;
  return t;
}();

/// Past the ']' of the number array whose '[' is just before p, or nullptr when the text
/// there is not (only) an array of numbers.
inline const char* skip_number_array(const char* p, const char* end) {
  std::uint8_t state = kStart;
  while (p != end) {
    state = kNumNext[state][kNumClass[static_cast<unsigned char>(*p++)]];
    if (state >= kDone) return state == kDone ? p : nullptr;
  }
  return nullptr;
}

/// Past the ']' closing an array whose '[' is just before p when everything up to it is a
/// character numbers, commas and whitespace are made of; nullptr otherwise. 16 bytes a step
/// where SSE2 exists.
inline const char* skip_number_chars(const char* p, const char* end) {
  auto allowed = [](char c) {
    return is_digit(c) || c == ',' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' ||
           is_ws(c);
  };
#if defined(__SSE2__)
  const __m128i before_zero = _mm_set1_epi8('0' - 1);
  const __m128i after_nine = _mm_set1_epi8('9' + 1);
  auto eq = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i digit =
        _mm_and_si128(_mm_cmpgt_epi8(v, before_zero), _mm_cmplt_epi8(v, after_nine));
    const __m128i punct =
        _mm_or_si128(_mm_or_si128(eq(v, ','), eq(v, '.')), _mm_or_si128(eq(v, '-'), eq(v, '+')));
    const __m128i other = _mm_or_si128(_mm_or_si128(eq(v, 'e'), eq(v, 'E')),
                                       _mm_or_si128(_mm_or_si128(eq(v, ' '), eq(v, '\n')),
                                                    _mm_or_si128(eq(v, '\r'), eq(v, '\t'))));
    const int ok = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, punct), other));
    if (ok != 0xFFFF) {
      p += __builtin_ctz(static_cast<unsigned>(~ok & 0xFFFF));
      return *p == ']' ? p + 1 : nullptr;
    }
    p += 16;
  }
#endif
  while (p != end && allowed(*p)) ++p;
  return (p != end && *p == ']') ? p + 1 : nullptr;
}

constexpr std::array<double, 23> kPow10 = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                           1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                           1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/// The float nearest to (-1)^negative x digits x 10^exp10, or false when this fast path
/// cannot be sure. With at most 15 digits and |exp10| <= 22 both `digits` and the power of
/// ten are exact doubles, so one division or multiplication gives the double nearest to the
/// decimal value; narrowing that to float is then exact rounding too unless the double landed
/// exactly halfway between two floats (checked; those go to from_chars).
inline bool fast_float(std::uint64_t digits, int n_digits, int exp10, bool negative, float& out) {
  if (n_digits > 15 || exp10 < -22 || exp10 > 22) return false;
  double d = static_cast<double>(digits);
  d = exp10 < 0 ? d / kPow10[static_cast<std::size_t>(-exp10)]
                : d * kPow10[static_cast<std::size_t>(exp10)];
  if (d != 0.0) {
    // Only normal floats: there the low 29 of the double's 52 fraction bits are what float
    // rounding drops, and exactly 1 << 28 is the halfway case.
    if (d < 0x1.0p-126 || d > 0x1.fffffep127) return false;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    if ((bits & ((std::uint64_t{1} << 29) - 1)) == (std::uint64_t{1} << 28)) return false;
  }
  const float f = static_cast<float>(d);
  out = negative ? -f : f;
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

void JsonCursor::int_array(std::vector<std::int64_t>& out) {
  expect('[');
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  const char* p = skip_space(data + pos_, end);
  if (p != end && *p == ']') {
    pos_ = static_cast<std::size_t>(p + 1 - data);
    return;
  }
  while (true) {
    // A short plain integer directly followed by ',' or ']' (all of XGBoost's) is taken in
    // one pass; anything else - spaces, long, malformed, a fraction - goes through
    // int_value for its range check or error.
    const char* const start = p;
    const bool negative = p != end && *p == '-';
    if (negative) ++p;
    const char* const digits = p;
    std::int64_t v = 0;
    while (p != end && is_digit(*p)) v = v * 10 + (*p++ - '0');
    const auto n = p - digits;
    if (n > 0 && n <= 18 && (n == 1 || *digits != '0') && p != end && (*p == ',' || *p == ']')) {
      out.push_back(negative ? -v : v);
      if (*p++ == ',') continue;
      pos_ = static_cast<std::size_t>(p - data);
      return;
    }
    pos_ = static_cast<std::size_t>(start - data);
    out.push_back(int_value());
    p = skip_space(data + pos_, end);
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

void JsonCursor::float_array(std::vector<float>& out) {
  expect('[');
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  const char* p = skip_space(data + pos_, end);
  if (p != end && *p == ']') {
    pos_ = static_cast<std::size_t>(p + 1 - data);
    return;
  }
  while (true) {
    // One pass checks the number grammar and gathers its digits; anything the fast path
    // cannot take exactly (or malformed) goes through float_value (from_chars, errors).
    const char* const start = p;
    const bool negative = p != end && *p == '-';
    if (negative) ++p;
    const char* const int_begin = p;
    std::uint64_t digits = 0;  // may wrap past 19 digits: fast_float refuses > 15 anyway
    int n_digits = 0;
    int exp10 = 0;
    while (p != end && is_digit(*p)) {
      digits = digits * 10 + static_cast<std::uint64_t>(*p++ - '0');
      ++n_digits;
    }
    bool valid = n_digits > 0 && !(n_digits > 1 && *int_begin == '0');
    if (valid && p != end && *p == '.') {
      const char* const frac = ++p;
      while (p != end && is_digit(*p)) {
        digits = digits * 10 + static_cast<std::uint64_t>(*p++ - '0');
        ++n_digits;
        --exp10;
      }
      valid = p != frac;
    }
    if (valid && p != end && (*p == 'e' || *p == 'E')) {
      ++p;
      const bool exp_negative = p != end && *p == '-';
      if (p != end && (*p == '-' || *p == '+')) ++p;
      const char* const exp_begin = p;
      int x = 0;
      while (p != end && is_digit(*p)) {
        if (x < 100000) x = x * 10 + (*p - '0');
        ++p;
      }
      valid = p != exp_begin;
      exp10 += exp_negative ? -x : x;
    }
    float v = 0.0F;
    if (!valid || !fast_float(digits, n_digits, exp10, negative, v)) {
      pos_ = static_cast<std::size_t>(start - data);
      v = float_value();
      p = data + pos_;
    }
    out.push_back(v);
    if (p != end && *p == ',') {  // XGBoost's layout: no spaces (a space before the next
      ++p;                        // number takes the float_value path above)
      continue;
    }
    p = skip_space(p, end);
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

void JsonCursor::bool_array(std::vector<std::uint8_t>& out) {
  const std::size_t at = peek() == '[' ? pos_ : text_.size();
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  if (at < text_.size()) {
    // XGBoost 1.7 writes "[0,1,...]": single digits and commas, read two bytes a step.
    const char* p = data + at + 1;
    const std::size_t before = out.size();
    while (end - p >= 2 && (p[0] == '0' || p[0] == '1') && p[1] == ',') {
      out.push_back(p[0] == '1' ? 1 : 0);
      p += 2;
    }
    if (end - p >= 2 && (p[0] == '0' || p[0] == '1') && p[1] == ']') {
      out.push_back(p[0] == '1' ? 1 : 0);
      pos_ = static_cast<std::size_t>(p + 2 - data);
      return;
    }
    out.resize(before);  // another layout (spaces, true/false, an error): the general walk
  }
  begin_array();
  while (next_element()) out.push_back(bool_value() ? 1 : 0);
}

bool JsonCursor::zeros_array() {
  const std::size_t at = peek() == '[' ? pos_ : text_.size();
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  if (at < text_.size()) {
    // XGBoost writes split_type as "[0,0,...,0]": compared against that pattern 16 bytes
    // at a time.
    static constexpr char kZeros[] = "0,0,0,0,0,0,0,0,";
    const char* p = data + at + 1;
    while (end - p >= 16 && std::memcmp(p, kZeros, 16) == 0) p += 16;
    while (end - p >= 2 && p[0] == '0' && p[1] == ',') p += 2;
    if (end - p >= 2 && p[0] == '0' && p[1] == ']') {
      pos_ = static_cast<std::size_t>(p + 2 - data);
      return true;
    }
  }
  std::vector<std::int64_t> values;  // another layout or values: the general walk
  int_array(values);
  for (const auto v : values) {
    if (v != 0) return false;
  }
  return true;
}

void JsonCursor::skip_number_array_lenient() {
  expect('[');
  const char* const after = skip_number_chars(text_.data() + pos_, text_.data() + text_.size());
  if (after == nullptr) {
    --pos_;  // back to '[': the strict walk finds and reports what is wrong
    (void)skip_value();
    return;
  }
  pos_ = static_cast<std::size_t>(after - text_.data());
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
      // Arrays of numbers (nearly all of an XGBoost model) take the table-driven loop; a
      // mixed or malformed one is walked element by element (and its error reported).
      const char* const after =
          skip_number_array(text_.data() + pos_ + 1, text_.data() + text_.size());
      if (after != nullptr) {
        pos_ = static_cast<std::size_t>(after - text_.data());
        return;
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
    default: (void)number_token();
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

std::string_view JsonCursor::skip_string_unchecked() {
  if (peek() != '"') fail("a string");
  const char* const data = text_.data();
  const char* const end = data + text_.size();
  const char* const begin = data + pos_ + 1;
  const char* p = begin;
  while (true) {
    const void* q = std::memchr(p, '"', static_cast<std::size_t>(end - p));
    if (q == nullptr) {
      pos_ = text_.size();
      fail("the string to be closed");
    }
    p = static_cast<const char*>(q);
    // A quote after an odd run of backslashes is escaped: the string goes on.
    std::size_t backslashes = 0;
    while (p - backslashes > begin && *(p - backslashes - 1) == '\\') ++backslashes;
    if (backslashes % 2 == 0) break;
    ++p;
  }
  pos_ = static_cast<std::size_t>(p + 1 - data);
  return {begin, static_cast<std::size_t>(p - begin)};
}

bool JsonCursor::skip_container_of_size(std::size_t bytes) {
  const char open = peek();
  if (open != '{' && open != '[') fail("'{' or '['");
  if (bytes < 2 || bytes > text_.size() - pos_) return false;
  if (text_[pos_ + bytes - 1] != (open == '{' ? '}' : ']')) return false;
  pos_ += bytes;
  return true;
}

}  // namespace cnnperf::ml_detail
