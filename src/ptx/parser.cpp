// SPDX-License-Identifier: Apache-2.0
// PTX lexer and recursive-descent parser for the module grammar: directives, module-scope
// variables with initialisers, .entry/.func with parameters, nested scopes, labels, guarded
// instructions with vector, address and call-list operands. Errors are "file:line:col: ...".
#include <cctype>
#include <cstring>
#include <string_view>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ptx/ptx_emu.hpp"

namespace cnnperf::ptx {
namespace {

enum class Tok { kWord, kInt, kFloat, kString, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;
  SrcLoc loc;
  std::int64_t ival = 0;  // kInt, kFloat (bits for 0f/0d)
  double dval = 0;        // decimal float
  int float_kind = 0;     // 32 / 64 for hex floats, 0 for decimal
};

bool word_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '%';
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space();
      Token t;
      t.loc = {line_, col()};
      if (pos_ >= text_.size()) {
        t.kind = Tok::kEnd;
        out.push_back(t);
        return out;
      }
      const char c = text_[pos_];
      const std::size_t start = pos_;
      if (std::isdigit(static_cast<unsigned char>(c))) {
        number(t);
      } else if (word_start(c)) {
        for (;;) {
          if (pos_ < text_.size() && word_char(text_[pos_])) {
            ++pos_;
          } else if (pos_ + 2 < text_.size() && text_[pos_] == ':' && text_[pos_ + 1] == ':' &&
                     word_char(text_[pos_ + 2])) {
            pos_ += 2;  // qualifiers such as .L2::128B or .L1::no_allocate
          } else {
            break;
          }
        }
        t.kind = Tok::kWord;
      } else if (c == '"') {
        ++pos_;
        while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') ++pos_;
        if (pos_ >= text_.size() || text_[pos_] != '"') fail(t.loc, "unterminated string");
        ++pos_;
        t.kind = Tok::kString;
      } else if (std::strchr(",;:{}[]()+-!@<>=|", c) != nullptr) {
        ++pos_;
        t.kind = Tok::kPunct;
      } else {
        fail(t.loc, std::string("unexpected character '") + printable(c) + "'");
      }
      t.text = text_.substr(start, pos_ - start);
      out.push_back(t);
    }
  }

  [[noreturn]] void fail(SrcLoc loc, const std::string& what) const {
    throw InputError(source_ + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) +
                     ": " + what);
  }

 private:
  static std::string printable(char c) {
    if (std::isprint(static_cast<unsigned char>(c))) return std::string(1, c);
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
    return buf;
  }
  int col() const { return static_cast<int>(pos_ - line_start_) + 1; }

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        line_start_ = pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const SrcLoc at{line_, col()};
        pos_ += 2;
        for (;;) {
          if (pos_ + 1 >= text_.size()) fail(at, "unterminated comment");
          if (text_[pos_] == '*' && text_[pos_ + 1] == '/') {
            pos_ += 2;
            break;
          }
          if (text_[pos_] == '\n') {
            ++line_;
            line_start_ = pos_ + 1;
          }
          ++pos_;
        }
      } else {
        break;
      }
    }
  }

  void number(Token& t) {
    const std::size_t start = pos_;
    auto hexval = [&](std::size_t from, std::size_t to, int max_digits) {
      if (to == from || static_cast<int>(to - from) > max_digits) fail(t.loc, "malformed number");
      std::uint64_t v = 0;
      for (std::size_t i = from; i < to; ++i) {
        const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[i])));
        v = v * 16 + static_cast<std::uint64_t>(
                         std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : h - 'a' + 10);
      }
      return v;
    };
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        std::strchr("fFdD", text_[pos_ + 1]) != nullptr) {
      pos_ += 2;
      const std::size_t h = pos_;
      while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      const bool single = text_[start + 1] == 'f' || text_[start + 1] == 'F';
      if (pos_ - h != (single ? 8u : 16u)) fail(t.loc, "malformed hex float literal");
      t.kind = Tok::kFloat;
      t.float_kind = single ? 32 : 64;
      t.ival = static_cast<std::int64_t>(hexval(h, pos_, 16));
      return;
    }
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
      pos_ += 2;
      const std::size_t h = pos_;
      while (pos_ < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      t.kind = Tok::kInt;
      t.ival = static_cast<std::int64_t>(hexval(h, pos_, 16));
      if (pos_ < text_.size() && (text_[pos_] == 'U' || text_[pos_] == 'u')) ++pos_;
      return;
    }
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    bool is_float = false;
    if (pos_ < text_.size() && text_[pos_] == '.' && pos_ + 1 < text_.size() &&
        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) {
        is_float = true;
        pos_ = p;
        while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      }
    }
    const std::string digits(text_.substr(start, pos_ - start));
    if (is_float) {
      t.kind = Tok::kFloat;
      t.dval = std::strtod(digits.c_str(), nullptr);
      return;
    }
    if (digits.size() > 20) fail(t.loc, "integer literal out of range");
    errno = 0;
    const unsigned long long v = std::strtoull(digits.c_str(), nullptr, 10);
    if (errno == ERANGE) fail(t.loc, "integer literal out of range");
    t.kind = Tok::kInt;
    t.ival = static_cast<std::int64_t>(v);
    if (pos_ < text_.size() && (text_[pos_] == 'U' || text_[pos_] == 'u')) ++pos_;
    if (pos_ < text_.size() && word_char(text_[pos_]) && text_[pos_] != '.') {
      fail({t.loc.line, t.loc.column}, "malformed number '" + digits + text_[pos_] + "'");
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
};

int type_size(std::string_view t) {
  if (t == ".b8" || t == ".u8" || t == ".s8") return 1;
  if (t == ".b16" || t == ".u16" || t == ".s16" || t == ".f16" || t == ".bf16") return 2;
  if (t == ".b32" || t == ".u32" || t == ".s32" || t == ".f32" || t == ".f16x2" || t == ".bf16x2" ||
      t == ".tf32") {
    return 4;
  }
  if (t == ".b64" || t == ".u64" || t == ".s64" || t == ".f64") return 8;
  if (t == ".b128") return 16;
  if (t == ".pred") return 1;
  return 0;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, Lexer& lexer, std::string source)
      : toks_(std::move(tokens)), lex_(lexer) {
    mod_.source = std::move(source);
  }

  AstModule run() {
    while (peek().kind != Tok::kEnd) top_level();
    return std::move(mod_);
  }

 private:
  const Token& peek(std::size_t k = 0) const {
    const std::size_t i = std::min(pos_ + k, toks_.size() - 1);
    return toks_[i];
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool is(std::string_view text, std::size_t k = 0) const {
    const Token& t = peek(k);
    return (t.kind == Tok::kPunct || t.kind == Tok::kWord) && t.text == text;
  }
  bool accept(std::string_view text) {
    if (!is(text)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const Token& t, const std::string& what) const {
    const std::string got = t.kind == Tok::kEnd ? "end of file" : "'" + std::string(t.text) + "'";
    lex_.fail(t.loc, what + ", got " + got);
  }
  void expect(std::string_view text) {
    if (!accept(text)) fail(peek(), "expected '" + std::string(text) + "'");
  }
  std::string word(const char* what) {
    if (peek().kind != Tok::kWord) fail(peek(), std::string("expected ") + what);
    return std::string(next().text);
  }
  std::int64_t integer(const char* what) {
    bool neg = accept("-");
    if (peek().kind != Tok::kInt) fail(peek(), std::string("expected ") + what);
    const std::int64_t v = next().ival;
    return neg ? -v : v;
  }
  void skip_line(int line) {
    while (peek().kind != Tok::kEnd && peek().loc.line == line) next();
  }

  void top_level() {
    const Token& t = peek();
    if (t.kind != Tok::kWord) fail(t, "expected a directive");
    const std::string_view d = t.text;
    if (d == ".version") {
      next();
      const Token& v = next();
      if (v.kind != Tok::kFloat && v.kind != Tok::kInt) fail(v, "expected a version number");
      mod_.version = std::string(v.text);
    } else if (d == ".target") {
      next();
      mod_.target = word("a target");
      while (accept(",")) mod_.target += "," + word("a target");
    } else if (d == ".address_size") {
      next();
      mod_.address_size = static_cast<int>(integer("an address size"));
      if (mod_.address_size != 64 && mod_.address_size != 32) fail(peek(), "expected 32 or 64");
    } else if (d == ".file" || d == ".loc") {
      const int line = t.loc.line;
      next();
      skip_line(line);
    } else if (d == ".section") {
      next();
      skip_balanced();
    } else if (d == ".pragma") {
      next();
      if (peek().kind != Tok::kString) fail(peek(), "expected a string after .pragma");
      next();
      expect(";");
    } else {
      declaration_or_function();
    }
  }

  void skip_balanced() {
    while (peek().kind != Tok::kEnd && !is("{")) next();
    if (!accept("{")) fail(peek(), "expected '{'");
    int depth = 1;
    while (depth > 0) {
      if (peek().kind == Tok::kEnd) fail(peek(), "expected '}'");
      if (is("{")) ++depth;
      if (is("}")) depth -= 1;
      next();
    }
  }

  void declaration_or_function() {
    bool is_extern = false;
    for (;;) {
      if (accept(".visible") || accept(".weak") || accept(".common")) continue;
      if (accept(".extern")) {
        is_extern = true;
        continue;
      }
      break;
    }
    if (is(".entry") || is(".func")) {
      function(is_extern);
      return;
    }
    if (is(".global") || is(".const") || is(".shared") || is(".local") || is(".tex") ||
        is(".surf") || is(".samplerref")) {
      AstVariable v = variable(is_extern);
      expect(";");
      mod_.globals.push_back(std::move(v));
      return;
    }
    fail(peek(), "expected a directive (.entry, .func, .global, .const, .shared, ...)");
  }

  // [.align N] [.vN] .type [.ptr...] name [dims]* [= init]
  AstVariable variable(bool is_extern) {
    AstVariable v;
    v.loc = peek().loc;
    v.space = std::string(next().text.substr(1));
    v.is_extern = is_extern;
    int vec = 1;
    int elem = 0;
    bool typed = false;
    for (;;) {
      if (accept(".align")) {
        v.align = static_cast<int>(integer("an alignment"));
        if (v.align <= 0 || v.align > 4096 || (v.align & (v.align - 1)) != 0) {
          fail(peek(), "expected a power-of-two alignment");
        }
        continue;
      }
      if (accept(".v2")) {
        vec = 2;
        continue;
      }
      if (accept(".v4")) {
        vec = 4;
        continue;
      }
      if (accept(".v8")) {
        vec = 8;
        continue;
      }
      if (accept(".ptr")) {
        while (peek().kind == Tok::kWord && peek().text.size() > 1 && peek().text[0] == '.' &&
               (is(".global") || is(".shared") || is(".const") || is(".local") || is(".align"))) {
          if (accept(".align")) {
            integer("an alignment");
          } else {
            next();
          }
        }
        continue;
      }
      if (peek().kind == Tok::kWord && type_size(peek().text) > 0 && !typed) {
        elem = type_size(next().text);
        typed = true;
        continue;
      }
      if (is(".texref") || is(".samplerref") || is(".surfref")) {
        next();
        elem = 8;
        typed = true;
        continue;
      }
      break;
    }
    if (!typed) fail(peek(), "expected a type (.b8, .u32, .f32, ...)");
    v.name = word("a variable name");
    std::int64_t count = 1;
    bool unsized = false;
    while (accept("[")) {
      if (accept("]")) {
        unsized = true;
        continue;
      }
      const std::int64_t n = integer("an array size");
      if (n < 0 || n > (std::int64_t{1} << 32)) fail(peek(), "expected an array size below 2^32");
      count *= n;
      if (count > (std::int64_t{1} << 32)) fail(peek(), "expected an array size below 2^32");
      expect("]");
    }
    v.size_bytes = count * elem * vec;
    if (accept("=")) {
      std::vector<std::int64_t> values;
      initializer(values);
      v.init.assign(static_cast<std::size_t>(std::max<std::int64_t>(v.size_bytes, 0)), 0);
      std::size_t off = 0;
      for (std::int64_t x : values) {
        for (int b = 0; b < elem && off < v.init.size(); ++b, ++off) {
          v.init[off] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(x) >> (8 * b));
        }
      }
      if (unsized) {
        v.size_bytes = static_cast<std::int64_t>(values.size()) * elem;
        v.init.resize(static_cast<std::size_t>(v.size_bytes));
      }
    }
    if (unsized && v.size_bytes == 0 && !v.is_extern && v.space != "shared") v.size_bytes = 0;
    return v;
  }

  void initializer(std::vector<std::int64_t>& out) {
    if (accept("{")) {
      if (!is("}")) {
        do {
          initializer(out);
        } while (accept(","));
      }
      expect("}");
      return;
    }
    const bool neg = accept("-");
    const Token& t = next();
    if (t.kind == Tok::kInt) {
      out.push_back(neg ? -t.ival : t.ival);
    } else if (t.kind == Tok::kFloat) {
      if (t.float_kind != 0) {
        out.push_back(t.ival);
      } else {
        float f = static_cast<float>(neg ? -t.dval : t.dval);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        out.push_back(bits);
      }
    } else if (t.kind == Tok::kWord) {
      out.push_back(0);  // address of a symbol (generic(sym)); values are not needed here
      if (accept("+")) integer("an offset");
    } else {
      fail(t, "expected an initialiser value");
    }
  }

  AstVariable param() {
    AstVariable p;
    p.loc = peek().loc;
    if (!accept(".param") && !accept(".reg")) fail(peek(), "expected .param");
    p.space = "param";
    int elem = 0;
    for (;;) {
      if (accept(".align")) {
        p.align = static_cast<int>(integer("an alignment"));
        continue;
      }
      if (accept(".ptr")) {
        while (is(".global") || is(".shared") || is(".const") || is(".local") || is(".align")) {
          if (accept(".align")) {
            integer("an alignment");
          } else {
            next();
          }
        }
        continue;
      }
      if (peek().kind == Tok::kWord && type_size(peek().text) > 0 && elem == 0) {
        elem = type_size(next().text);
        continue;
      }
      break;
    }
    if (elem == 0) fail(peek(), "expected a parameter type");
    p.name = word("a parameter name");
    std::int64_t count = 1;
    while (accept("[")) {
      const std::int64_t n = integer("an array size");
      if (n <= 0 || n > 65536) fail(peek(), "expected a parameter array size in 1..65536");
      count *= n;
      expect("]");
    }
    if (count > 65536) fail(peek(), "parameter too large");
    p.size_bytes = count * elem;
    if (p.align < elem) p.align = elem;
    return p;
  }

  void param_list(std::vector<AstVariable>& out) {
    expect("(");
    if (!is(")")) {
      do {
        out.push_back(param());
      } while (accept(","));
    }
    expect(")");
  }

  void function(bool is_extern) {
    AstFunction f;
    f.loc = peek().loc;
    f.is_entry = next().text == ".entry";
    if (!f.is_entry && is("(")) param_list(f.return_params);
    f.name = word("a function name");
    if (is("(")) param_list(f.params);
    for (;;) {
      if (accept(".maxntid") || accept(".reqntid")) {
        const bool req = toks_[pos_ - 1].text == ".reqntid";
        auto& dims = req ? f.reqntid : f.maxntid;
        dims = {1, 1, 1};
        int i = 0;
        do {
          const std::int64_t n = integer("a thread count");
          if (i < 3) {
            dims[static_cast<std::size_t>(i)] =
                static_cast<int>(std::min<std::int64_t>(n, 1 << 20));
          }
          ++i;
        } while (accept(","));
        continue;
      }
      if (accept(".minnctapersm") || accept(".maxnreg") || accept(".maxnctapersm") ||
          accept(".maxclusterrank")) {
        integer("a number");
        continue;
      }
      if (accept(".reqnctapercluster") || accept(".explicitcluster")) {
        if (peek().kind == Tok::kInt) {
          do {
            integer("a number");
          } while (accept(","));
        }
        continue;
      }
      if (accept(".noreturn")) continue;
      if (accept(".pragma")) {
        if (peek().kind != Tok::kString) fail(peek(), "expected a string after .pragma");
        next();
        expect(";");
        continue;
      }
      break;
    }
    if (accept(";")) {
      mod_.functions.push_back(std::move(f));
      return;
    }
    (void)is_extern;
    if (!is("{")) fail(peek(), "expected '{' or ';' after the function header");
    f.has_body = true;
    fn_ = &f;
    block();
    fn_ = nullptr;
    for (const auto& g : mod_.functions) {
      if (g.name == f.name && g.has_body) lex_.fail(f.loc, "duplicate function '" + f.name + "'");
    }
    mod_.functions.push_back(std::move(f));
  }

  void block() {
    expect("{");
    ++depth_;
    if (depth_ > 64) fail(peek(), "scopes nested too deeply");
    while (!is("}")) {
      if (peek().kind == Tok::kEnd) fail(peek(), "expected '}' (unterminated function body)");
      statement();
    }
    next();
    --depth_;
  }

  void statement() {
    const Token& t = peek();
    if (is("{")) {
      block();
      return;
    }
    if (t.kind == Tok::kWord && t.text[0] == '.') {
      const std::string_view d = t.text;
      if (d == ".reg") {
        next();
        while (peek().kind == Tok::kWord && peek().text[0] == '.') next();  // type, .v2
        do {
          const std::string name = word("a register name");
          std::int64_t count = 0;
          if (accept("<")) {
            count = integer("a register count");
            if (count < 0 || count > (1 << 24)) fail(peek(), "register count out of range");
            expect(">");
          }
          auto& known = fn_->registers[name];
          known = std::max(known, count);
        } while (accept(","));
        expect(";");
        return;
      }
      if (d == ".shared" || d == ".local" || d == ".const" || d == ".global") {
        AstVariable v = variable(false);
        expect(";");
        fn_->variables.push_back(std::move(v));
        return;
      }
      if (d == ".param") {
        AstVariable v = param();
        expect(";");
        fn_->variables.push_back(std::move(v));
        return;
      }
      if (d == ".pragma") {
        next();
        if (peek().kind != Tok::kString) fail(peek(), "expected a string after .pragma");
        next();
        expect(";");
        return;
      }
      if (d == ".loc" || d == ".file") {
        const int line = t.loc.line;
        next();
        skip_line(line);
        return;
      }
      if (d == ".extern") {
        next();
        if (!is(".shared")) fail(peek(), "expected .shared after .extern");
        AstVariable v = variable(true);
        expect(";");
        fn_->variables.push_back(std::move(v));
        return;
      }
      if (d == ".sreg") fail(t, "special registers cannot be declared");
      fail(t, "unknown directive in function body");
    }
    if (t.kind == Tok::kWord && is(":", 1)) {
      const std::string name(next().text);
      next();
      if (!fn_->labels.emplace(name, fn_->instructions.size()).second) {
        lex_.fail(t.loc, "duplicate label '" + name + "'");
      }
      return;
    }
    instruction();
  }

  void instruction() {
    AstInstruction in;
    in.loc = peek().loc;
    if (accept("@")) {
      in.guard_negated = accept("!");
      in.guard = word("a predicate register");
    }
    if (peek().kind != Tok::kWord || peek().text[0] == '.' || peek().text[0] == '%') {
      fail(peek(), "expected an instruction");
    }
    in.opcode = std::string(next().text);
    if (!is(";")) {
      do {
        in.operands.push_back(operand());
      } while (accept(","));
    }
    if (!accept(";")) fail(peek(), "expected ',' or ';' after an operand");
    fn_->instructions.push_back(std::move(in));
  }

  AstOperand operand() {
    AstOperand o;
    o.loc = peek().loc;
    if (accept("[")) {
      o.kind = AstOperand::Kind::kAddress;
      if (peek().kind == Tok::kWord) {
        o.name = std::string(next().text);
        if (is("+") || is("-")) {
          const bool neg = next().text == "-";
          const std::int64_t v = integer("an address offset");
          o.value = neg ? -v : v;
        }
      } else {
        o.value = integer("an address");
      }
      expect("]");
      return o;
    }
    if (accept("{")) {
      o.kind = AstOperand::Kind::kVector;
      do {
        o.elements.push_back(operand());
      } while (accept(","));
      expect("}");
      return o;
    }
    if (accept("(")) {
      o.kind = AstOperand::Kind::kVector;
      if (!is(")")) {
        do {
          o.elements.push_back(operand());
        } while (accept(","));
      }
      expect(")");
      return o;
    }
    if (accept("!")) {
      o.negated = true;
      o.name = word("a predicate register");
      return o;
    }
    const bool neg = accept("-");
    const Token& t = peek();
    if (t.kind == Tok::kInt) {
      next();
      o.kind = AstOperand::Kind::kInteger;
      o.value = neg ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(t.ival)) : t.ival;
      return o;
    }
    if (t.kind == Tok::kFloat) {
      next();
      if (t.float_kind == 32) {
        o.kind = AstOperand::Kind::kFloat32Bits;
        o.value = neg ? (t.ival ^ 0x80000000LL) : t.ival;
      } else if (t.float_kind == 64) {
        o.kind = AstOperand::Kind::kFloat64Bits;
        o.value = static_cast<std::int64_t>(
            neg ? (static_cast<std::uint64_t>(t.ival) ^ 0x8000000000000000ULL)
                : static_cast<std::uint64_t>(t.ival));
      } else {
        o.kind = AstOperand::Kind::kFloatDecimal;
        o.decimal = neg ? -t.dval : t.dval;
      }
      return o;
    }
    if (neg) fail(t, "expected a number after '-'");
    if (t.kind != Tok::kWord) fail(t, "expected an operand");
    next();
    o.name = std::string(t.text);
    if (o.name == "_") {
      o.kind = AstOperand::Kind::kSink;
      return o;
    }
    o.kind = o.name[0] == '%' ? AstOperand::Kind::kRegister : AstOperand::Kind::kSymbol;
    if (accept("|")) {  // setp's `p|q` destination pair
      AstOperand first = o;
      AstOperand second;
      second.loc = peek().loc;
      second.name = word("a predicate register");
      o.kind = AstOperand::Kind::kVector;
      o.elements = {first, second};
      o.name.clear();
      return o;
    }
    if (o.kind == AstOperand::Kind::kSymbol && (is("+") || is("-"))) {
      const bool minus = next().text == "-";
      const std::int64_t v = integer("an offset");
      o.value = minus ? -v : v;
    }
    return o;
  }

  std::vector<Token> toks_;
  Lexer& lex_;
  std::size_t pos_ = 0;
  AstModule mod_;
  AstFunction* fn_ = nullptr;
  int depth_ = 0;
};

}  // namespace

const AstFunction* AstModule::find(const std::string& name) const {
  for (const auto& f : functions) {
    if (f.name == name && (f.has_body || f.is_entry)) return &f;
  }
  return nullptr;
}

std::vector<std::string> AstModule::entries() const {
  std::vector<std::string> out;
  for (const auto& f : functions) {
    if (f.is_entry) out.push_back(f.name);
  }
  return out;
}

AstModule parse_module(const std::string& text, const std::string& source) {
  Lexer lexer(text, source);
  Parser parser(lexer.run(), lexer, source);
  AstModule m = parser.run();
  if (m.version.empty()) throw InputError(source + ":1:1: missing .version directive");
  if (m.target.empty()) throw InputError(source + ":1:1: missing .target directive");
  return m;
}

}  // namespace cnnperf::ptx
