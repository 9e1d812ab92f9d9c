// SPDX-License-Identifier: Apache-2.0
// Decoder: one .entry of a parsed module -> a compact instruction array whose operands are
// register-file slots, plus the CFG's immediate post-dominators used for reconvergence.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <set>
#include <string_view>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ptx/ptx_emu.hpp"
#include "internal.hpp"

namespace cnnperf::ptx {

using namespace detail;

const char* to_string(InstClass c) {
  switch (c) {
    case InstClass::kFp32: return "fp32";
    case InstClass::kFp64: return "fp64";
    case InstClass::kFp16: return "fp16";
    case InstClass::kInt: return "int";
    case InstClass::kLdGlobal: return "ld_global";
    case InstClass::kStGlobal: return "st_global";
    case InstClass::kLdShared: return "ld_shared";
    case InstClass::kStShared: return "st_shared";
    case InstClass::kLdLocal: return "ld_local";
    case InstClass::kStLocal: return "st_local";
    case InstClass::kLdParam: return "ld_param";
    case InstClass::kLdConst: return "ld_const";
    case InstClass::kMemOther: return "mem_other";
    case InstClass::kAtomic: return "atomic";
    case InstClass::kControl: return "control";
    case InstClass::kSync: return "sync";
    case InstClass::kConversion: return "conversion";
    case InstClass::kMove: return "move";
    case InstClass::kPredicate: return "predicate";
    case InstClass::kOther: return "other";
    case InstClass::kCount: break;
  }
  return "other";
}

std::uint64_t fake_pointer(int index) {
  return kPointerBase + (static_cast<std::uint64_t>(index) << 36);
}

namespace {

int parse_type(std::string_view t) {
  static constexpr std::pair<std::string_view, int> kTypes[] = {
      {"s8", kS8},     {"s16", kS16},       {"s32", kS32},   {"s64", kS64}, {"u8", kU8},
      {"u16", kU16},   {"u32", kU32},       {"u64", kU64},   {"b8", kB8},   {"b16", kB16},
      {"b32", kB32},   {"b64", kB64},       {"b128", kB128}, {"f16", kF16}, {"f16x2", kF16x2},
      {"bf16", kBF16}, {"bf16x2", kBF16x2}, {"f32", kF32},   {"f64", kF64}, {"pred", kPred},
      {"tf32", kTF32}};
  for (const auto& [n, v] : kTypes) {
    if (n == t) return v;
  }
  return kTNone;
}

int parse_cmp(std::string_view c) {
  static constexpr std::pair<std::string_view, int> kCmps[] = {
      {"eq", kEq},   {"ne", kNe},   {"lt", kLt},   {"le", kLe},   {"gt", kGt},   {"ge", kGe},
      {"lo", kLt},   {"ls", kLe},   {"hi", kGt},   {"hs", kGe},   {"equ", kEqu}, {"neu", kNeu},
      {"ltu", kLtu}, {"leu", kLeu}, {"gtu", kGtu}, {"geu", kGeu}, {"num", kNum}, {"nan", kNan}};
  for (const auto& [n, v] : kCmps) {
    if (n == c) return v;
  }
  return -1;
}

int special_of(std::string_view n) {
  static constexpr std::pair<std::string_view, int> kSp[] = {{"%tid.x", kTidX},
                                                             {"%tid.y", kTidY},
                                                             {"%tid.z", kTidZ},
                                                             {"%ntid.x", kNtidX},
                                                             {"%ntid.y", kNtidY},
                                                             {"%ntid.z", kNtidZ},
                                                             {"%ctaid.x", kCtaidX},
                                                             {"%ctaid.y", kCtaidY},
                                                             {"%ctaid.z", kCtaidZ},
                                                             {"%nctaid.x", kNctaidX},
                                                             {"%nctaid.y", kNctaidY},
                                                             {"%nctaid.z", kNctaidZ},
                                                             {"%laneid", kLaneid},
                                                             {"%warpid", kWarpid},
                                                             {"%nwarpid", kNwarpid},
                                                             {"%smid", kSmid},
                                                             {"%nsmid", kNsmid},
                                                             {"%gridid", kGridid},
                                                             {"%clock", kClock},
                                                             {"%clock64", kClock64},
                                                             {"%lanemask_eq", kLanemaskEq},
                                                             {"%lanemask_lt", kLanemaskLt},
                                                             {"%lanemask_le", kLanemaskLe},
                                                             {"%lanemask_gt", kLanemaskGt},
                                                             {"%lanemask_ge", kLanemaskGe},
                                                             {"%dynamic_smem_size", kDynSmem},
                                                             {"%total_smem_size", kTotalSmem},
                                                             {"%globaltimer", kGlobaltimer}};
  for (const auto& [s, v] : kSp) {
    if (s == n) return v;
  }
  return -1;
}

struct Symbol {
  char space;             // 's' shared, 'l' local, 'm' module, 'p' param
  std::uint64_t address;  // state-space address
};

class Builder {
 public:
  Builder(const AstModule& mod, const AstFunction& fn) : mod_(mod), fn_(fn) {
    p_.source = mod.source;
    p_.kernel = fn.name;
    p_.maxntid = fn.maxntid;
    const_slot(0);  // slot 0 is the constant zero (unused operands)
  }

  std::shared_ptr<const Program> build() {
    layout();
    const auto& insts = fn_.instructions;
    p_.code.reserve(insts.size());
    for (const auto& in : insts) decode(in);
    // Resolve branch targets.
    for (std::size_t pc = 0; pc < p_.code.size(); ++pc) {
      Inst& I = p_.code[pc];
      if (I.kind != kBra) continue;
      const auto& ops = insts[pc].operands;
      const std::string& label = ops.back().name;
      auto it = fn_.labels.find(label);
      if (it == fn_.labels.end()) fail(ops.back().loc, "unknown label '" + label + "'");
      I.target = static_cast<std::uint32_t>(it->second);
    }
    postdominators();
    return std::make_shared<const Program>(std::move(p_));
  }

 private:
  [[noreturn]] void fail(SrcLoc loc, const std::string& what) const {
    throw InputError(mod_.source + ":" + std::to_string(loc.line) + ":" +
                     std::to_string(loc.column) + ": " + what);
  }

  static std::int64_t align_up(std::int64_t v, std::int64_t a) { return (v + a - 1) / a * a; }

  void layout() {
    // Module variables (.global/.const): real bytes in the module window.
    std::int64_t moff = 256;  // keep address kModuleWindow itself unused
    for (const auto& g : mod_.globals) {
      if (g.space != "global" && g.space != "const") continue;
      moff = align_up(moff, std::max(1, g.align));
      symbols_[g.name] = {'m', kModuleWindow + static_cast<std::uint64_t>(moff)};
      if (static_cast<std::int64_t>(p_.module_data.size()) < moff + g.size_bytes) {
        p_.module_data.resize(static_cast<std::size_t>(moff + g.size_bytes), 0);
      }
      std::copy(g.init.begin(), g.init.end(), p_.module_data.begin() + moff);
      moff += g.size_bytes;
    }
    if (moff > (std::int64_t{1} << 30)) fail(fn_.loc, "module variables larger than 1 GiB");
    // Shared memory: module-scope and function-scope static arrays, then dynamic (.extern).
    std::int64_t soff = 0;
    std::vector<const AstVariable*> dynamic;
    auto add_shared = [&](const AstVariable& v) {
      if (v.space != "shared") return;
      if (v.is_extern || v.size_bytes == 0) {
        dynamic.push_back(&v);
        return;
      }
      soff = align_up(soff, std::max(1, v.align));
      symbols_[v.name] = {'s', static_cast<std::uint64_t>(soff)};
      soff += v.size_bytes;
    };
    for (const auto& g : mod_.globals) add_shared(g);
    for (const auto& v : fn_.variables) add_shared(v);
    soff = align_up(soff, 16);
    for (const AstVariable* v : dynamic) {
      symbols_[v->name] = {'s', static_cast<std::uint64_t>(soff)};
    }
    p_.shared_bytes = soff;
    p_.has_dynamic_shared = !dynamic.empty();
    if (soff > (std::int64_t{1} << 24)) fail(fn_.loc, "shared memory larger than 16 MiB");
    std::int64_t loff = 0;
    for (const auto& v : fn_.variables) {
      if (v.space != "local") continue;
      loff = align_up(loff, std::max(1, v.align));
      symbols_[v.name] = {'l', static_cast<std::uint64_t>(loff)};
      loff += v.size_bytes;
    }
    for (const auto& g : mod_.globals) {
      if (g.space == "local") {
        loff = align_up(loff, std::max(1, g.align));
        symbols_[g.name] = {'l', static_cast<std::uint64_t>(loff)};
        loff += g.size_bytes;
      }
    }
    if (loff > (std::int64_t{1} << 20)) fail(fn_.loc, "local memory larger than 1 MiB per thread");
    p_.local_bytes = loff;
    std::int64_t poff = 0;
    for (const auto& prm : fn_.params) {
      poff = align_up(poff, std::max(1, prm.align));
      symbols_[prm.name] = {'p', static_cast<std::uint64_t>(poff)};
      Program::Param q;
      q.name = prm.name;
      q.offset = poff;
      q.size = prm.size_bytes;
      q.pointer_like = prm.size_bytes == 8;
      p_.params.push_back(q);
      poff += prm.size_bytes;
    }
    p_.param_bytes = poff;
    // Call-sequence params declared in the body live after the kernel params.
    for (const auto& v : fn_.variables) {
      if (v.space != "param") continue;
      poff = align_up(poff, std::max(1, v.align));
      symbols_[v.name] = {'p', static_cast<std::uint64_t>(poff)};
      poff += v.size_bytes;
    }
    param_space_bytes_ = poff;
    p_.param_bytes = poff;
  }

  std::uint32_t const_slot(std::uint64_t v) {
    auto it = consts_.find(v);
    if (it != consts_.end()) return it->second;
    const std::uint32_t s = p_.num_slots++;
    consts_.emplace(v, s);
    p_.constants.emplace_back(s, v);
    return s;
  }

  std::uint32_t reg_slot(const AstOperand& o) {
    const int sp = special_of(o.name);
    if (sp >= 0) {
      auto it = specials_.find(sp);
      if (it != specials_.end()) return it->second;
      const std::uint32_t s = p_.num_slots++;
      specials_.emplace(sp, s);
      p_.specials.emplace_back(s, sp);
      return s;
    }
    if (o.name.size() > 1 && o.name[0] == '%' && o.name.find('.') != std::string::npos) {
      fail(o.loc, "unknown special register '" + o.name + "'");
    }
    if (preds_.count(o.name) != 0) {
      fail(o.loc, "predicate register '" + o.name + "' used as a value");
    }
    auto it = regs_.find(o.name);
    if (it != regs_.end()) return it->second;
    require_declared(o);
    const std::uint32_t s = p_.num_slots++;
    regs_.emplace(o.name, s);
    return s;
  }

  // ptxas refuses a register no `.reg` declares (a typo such as %r9 for %r1); the emulator
  // would read it as zero and count a different program.
  void require_declared(const AstOperand& o) const {
    const auto& known = fn_.registers;
    if (auto it = known.find(o.name); it != known.end() && it->second == 0) return;
    std::size_t digits = o.name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(o.name[digits - 1])) != 0) {
      --digits;
    }
    if (digits < o.name.size() && o.name.size() - digits <= 9) {
      const auto it = known.find(o.name.substr(0, digits));
      if (it != known.end() && std::stoll(o.name.substr(digits)) < it->second) return;
    }
    for (const auto* list : {&fn_.params, &fn_.return_params}) {
      for (const auto& v : *list) {
        if (v.name == o.name) return;
      }
    }
    fail(o.loc, "register '" + o.name + "' is not declared (no .reg names it)");
  }

  std::uint32_t pred(const AstOperand& o) {
    if (o.kind != AstOperand::Kind::kRegister) fail(o.loc, "expected a predicate register");
    if (regs_.count(o.name) != 0) fail(o.loc, "register '" + o.name + "' used as a predicate");
    auto it = preds_.find(o.name);
    if (it != preds_.end()) return it->second;
    require_declared(o);
    const std::uint32_t s = p_.num_preds++;
    preds_.emplace(o.name, s);
    return s;
  }

  std::uint32_t pred_name(const std::string& name, SrcLoc loc) {
    AstOperand o;
    o.kind = AstOperand::Kind::kRegister;
    o.name = name;
    o.loc = loc;
    return pred(o);
  }

  std::uint64_t symbol_address(const AstOperand& o, bool generic) {
    auto it = symbols_.find(o.name);
    if (it == symbols_.end()) {
      for (const auto& f : mod_.functions) {
        if (f.name == o.name) return 0x100;  // function address (indirect calls): opaque
      }
      fail(o.loc, "unknown symbol '" + o.name + "'");
    }
    std::uint64_t a = it->second.address + static_cast<std::uint64_t>(o.value);
    if (generic) {
      if (it->second.space == 's') a += kSharedWindow;
      if (it->second.space == 'l') a += kLocalWindow;
      if (it->second.space == 'p') a += kParamWindow;
    }
    return a;
  }

  static std::uint64_t mask_bits(std::uint64_t v, int bits) {
    return bits >= 64 || bits <= 0 ? v : (v & ((std::uint64_t{1} << bits) - 1));
  }

  /// A source operand as a slot, with literals converted to `type`.
  std::uint32_t src(const AstOperand& o, int type) {
    switch (o.kind) {
      case AstOperand::Kind::kRegister: return reg_slot(o);
      case AstOperand::Kind::kInteger: {
        if (type == kF32) {
          const float f = static_cast<float>(o.value);
          std::uint32_t b;
          std::memcpy(&b, &f, 4);
          return const_slot(b);
        }
        if (type == kF64) {
          const double f = static_cast<double>(o.value);
          std::uint64_t b;
          std::memcpy(&b, &f, 8);
          return const_slot(b);
        }
        return const_slot(mask_bits(static_cast<std::uint64_t>(o.value), type_bits(type)));
      }
      case AstOperand::Kind::kFloat32Bits: {
        if (type == kF64) {
          float f;
          const auto b32 = static_cast<std::uint32_t>(o.value);
          std::memcpy(&f, &b32, 4);
          const double d = f;
          std::uint64_t b;
          std::memcpy(&b, &d, 8);
          return const_slot(b);
        }
        return const_slot(static_cast<std::uint32_t>(o.value));
      }
      case AstOperand::Kind::kFloat64Bits: {
        if (type == kF32) {
          double d;
          const auto b64 = static_cast<std::uint64_t>(o.value);
          std::memcpy(&d, &b64, 8);
          const float f = static_cast<float>(d);
          std::uint32_t b;
          std::memcpy(&b, &f, 4);
          return const_slot(b);
        }
        return const_slot(static_cast<std::uint64_t>(o.value));
      }
      case AstOperand::Kind::kFloatDecimal: {
        if (type == kF64) {
          std::uint64_t b;
          std::memcpy(&b, &o.decimal, 8);
          return const_slot(b);
        }
        if (type == kF16) return const_slot(detail::float_to_half(static_cast<float>(o.decimal)));
        const float f = static_cast<float>(o.decimal);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        return const_slot(b);
      }
      case AstOperand::Kind::kSymbol: return const_slot(symbol_address(o, generic_symbols_));
      case AstOperand::Kind::kSink: return sink();
      case AstOperand::Kind::kAddress:
      case AstOperand::Kind::kVector: break;
    }
    fail(o.loc, "expected a register or literal operand");
  }

  std::uint32_t sink() {
    if (sink_ == 0) sink_ = p_.num_slots++;
    return sink_;
  }

  std::uint32_t dst(const AstOperand& o) {
    if (o.kind == AstOperand::Kind::kSink) return sink();
    if (o.kind != AstOperand::Kind::kRegister) fail(o.loc, "expected a destination register");
    if (special_of(o.name) >= 0) fail(o.loc, "special register '" + o.name + "' is read-only");
    return reg_slot(o);
  }

  /// Address operand -> (base slot, offset); symbols resolve to their state-space address.
  void address(const AstOperand& o, Inst& I) {
    if (o.kind != AstOperand::Kind::kAddress) fail(o.loc, "expected an address operand [..]");
    if (o.name.empty()) {
      I.a = 0;
      I.offset = o.value;
    } else if (o.name[0] == '%' && special_of(o.name) < 0) {
      AstOperand r;
      r.kind = AstOperand::Kind::kRegister;
      r.name = o.name;
      r.loc = o.loc;
      I.a = reg_slot(r);
      I.offset = o.value;
    } else {
      AstOperand s;
      s.kind = AstOperand::Kind::kSymbol;
      s.name = o.name;
      s.loc = o.loc;
      I.a = const_slot(symbol_address(s, space_generic_));
      I.offset = o.value;
    }
  }

  std::uint32_t name_index(const std::string& op) {
    auto it = names_.find(op);
    if (it != names_.end()) return it->second;
    const auto i = static_cast<std::uint32_t>(p_.opcode_names.size());
    p_.opcode_names.push_back(op);
    names_.emplace(op, i);
    return i;
  }

  void need(const AstInstruction& in, std::size_t n) {
    if (in.operands.size() != n) {
      fail(in.loc, "'" + in.opcode + "' expects " + std::to_string(n) + " operands, got " +
                       std::to_string(in.operands.size()));
    }
  }
  void need_min(const AstInstruction& in, std::size_t n) {
    if (in.operands.size() < n) {
      fail(in.loc, "'" + in.opcode + "' expects at least " + std::to_string(n) + " operands, got " +
                       std::to_string(in.operands.size()));
    }
  }

  void decode(const AstInstruction& in) {
    Inst I;
    I.name = name_index(in.opcode);
    p_.locs.push_back(in.loc);
    if (!in.guard.empty()) {
      I.guard = static_cast<std::int32_t>(pred_name(in.guard, in.loc));
      I.guard_neg = in.guard_negated ? ~0u : 0u;
    }
    std::vector<std::string_view> mods;
    {
      std::string_view s = in.opcode;
      std::size_t start = 0;
      for (std::size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == '.') {
          mods.push_back(s.substr(start, i - start));
          start = i + 1;
        }
      }
    }
    const std::string_view base = mods[0];
    std::vector<int> types;
    int cmp = -1;
    bool has = false;
    auto mod = [&](std::string_view m) {
      return std::find(mods.begin() + 1, mods.end(), m) != mods.end();
    };
    for (std::size_t i = 1; i < mods.size(); ++i) {
      const int t = parse_type(mods[i]);
      if (t != kTNone) types.push_back(t);
      const int c = parse_cmp(mods[i]);
      if (c >= 0 && cmp < 0) cmp = c;
    }
    (void)has;
    const int type = types.empty() ? kTNone : types.back();
    I.type = static_cast<std::uint8_t>(type);
    auto unsupported = [&](const std::string& why) {
      fail(in.loc, "unsupported instruction '" + in.opcode + "'" + (why.empty() ? "" : ": " + why));
    };
    auto ity = [&]() {
      const int i = int_index(type);
      if (i < 0) unsupported("expected an integer type of 16, 32 or 64 bits");
      return i;
    };
    const auto& ops = in.operands;
    auto set_cls = [&](InstClass c) { I.cls = static_cast<std::uint8_t>(c); };
    auto arith_cls = [&]() {
      if (type == kF32 || type == kTF32) return InstClass::kFp32;
      if (type == kF64) return InstClass::kFp64;
      if (type == kF16 || type == kF16x2 || type == kBF16 || type == kBF16x2) {
        return InstClass::kFp16;
      }
      return InstClass::kInt;
    };
    set_cls(arith_cls());
    const bool is_half = type == kF16 || type == kF16x2 || type == kBF16 || type == kBF16x2;

    // ---- integer / float families
    struct Fam {
      std::string_view name;
      int ikind;
      int fkind;
      int nsrc;
    };
    static constexpr Fam kFams[] = {
        {"add", kIAdd, kFAdd, 2}, {"sub", kISub, kFSub, 2}, {"min", kIMin, kFMin, 2},
        {"max", kIMax, kFMax, 2}, {"and", kIAnd, 0, 2},     {"or", kIOr, 0, 2},
        {"xor", kIXor, 0, 2},     {"shl", kIShl, 0, 2},     {"shr", kIShr, 0, 2},
        {"not", kINot, 0, 1},     {"neg", kINeg, kFNeg, 1}, {"abs", kIAbs, kFAbs, 1},
        {"cnot", kICnot, 0, 1},   {"popc", kIPopc, 0, 1},   {"clz", kIClz, 0, 1},
        {"brev", kIBrev, 0, 1},   {"bfe", kIBfe, 0, 3},     {"bfi", kIBfi, 0, 4},
        {"div", kIDiv, kFDiv, 2}, {"rem", kIRem, 0, 2},     {"fma", 0, kFFma, 3},
        {"rcp", 0, kFRcp, 1},     {"sqrt", 0, kFSqrt, 1},   {"rsqrt", 0, kFRsqrt, 1},
        {"ex2", 0, kFEx2, 1},     {"lg2", 0, kFLg2, 1},     {"sin", 0, kFSin, 1},
        {"cos", 0, kFCos, 1},     {"tanh", 0, kFTanh, 1},   {"copysign", 0, kFCopysign, 2},
        {"sad", kISad, 0, 3}};
    if (base == "mul" || base == "mad" || base == "mul24" || base == "mad24") {
      const bool madf = base[1] == 'a';
      const std::size_t n = madf ? 4 : 3;
      need(in, n);
      if (type_float(type)) {
        if (is_half) return count_only(in, I, true);
        if (base == "mul24" || base == "mad24") unsupported("");
        I.kind = static_cast<std::uint16_t>((madf ? kFFma : kFMul) * 8 + (type == kF64 ? 1 : 0));
      } else {
        int k;
        if (base == "mul24") {
          k = mod("hi") ? kIMul24Hi : kIMul24Lo;
        } else if (base == "mad24") {
          if (mod("hi")) unsupported("");
          k = kIMad24Lo;
        } else if (mod("wide")) {
          k = madf ? kIMadWide : kIMulWide;
        } else if (mod("hi")) {
          k = madf ? kIMadHi : kIMulHi;
        } else {
          k = madf ? kIMadLo : kIMulLo;
        }
        const int ti = ity();
        if ((k == kIMulWide || k == kIMadWide) && ti >= 4) unsupported("no .wide for 64-bit");
        I.kind = static_cast<std::uint16_t>(k * 8 + ti);
      }
      I.d = dst(ops[0]);
      // Sources a and b have the instruction's type, .wide or not; only d and mad's c widen.
      I.a = src(ops[1], type);
      I.b = src(ops[2], type);
      if (madf) {
        int ctype = type;
        if (mod("wide")) {
          ctype = type_signed(type) ? (type_bits(type) == 16 ? kS32 : kS64)
                                    : (type_bits(type) == 16 ? kU32 : kU64);
        }
        I.c = src(ops[3], ctype);
      }
      I.flags |= kFlagTaint;
      return push(I);
    }
    for (const Fam& f : kFams) {
      if (base != f.name) continue;
      need(in, static_cast<std::size_t>(f.nsrc) + 1);
      if (type == kPred) {
        if (base == "and" || base == "or" || base == "xor" || base == "not") {
          set_cls(InstClass::kPredicate);
          I.kind = base == "and"   ? kPredAnd
                   : base == "or"  ? kPredOr
                   : base == "xor" ? kPredXor
                                   : kPredNot;
          I.d = pred(ops[0]);
          I.a = pred(ops[1]);
          if (f.nsrc > 1) I.b = pred(ops[2]);
          if (ops[1].negated || (f.nsrc > 1 && ops[2].negated)) {
            unsupported("negated predicate source");
          }
          return push(I);
        }
        if (base == "cnot") {
          set_cls(InstClass::kPredicate);
          I.kind = kPredCnot;
          I.d = pred(ops[0]);
          I.a = pred(ops[1]);
          return push(I);
        }
        unsupported("not defined on .pred");
      }
      if (type_float(type)) {
        if (is_half) return count_only(in, I, true);
        if (f.fkind == 0) unsupported("not defined on floating-point types");
        I.kind = static_cast<std::uint16_t>(f.fkind * 8 + (type == kF64 ? 1 : 0));
        if (base == "div" && mod("approx") == false && mod("full") == false && !mod("rn") &&
            !mod("rz") && !mod("rm") && !mod("rp") && type == kF32) {
          unsupported("div.f32 needs .approx, .full or a rounding modifier");
        }
      } else {
        if (f.ikind == 0) unsupported("not defined on integer types");
        int ti;
        if (base == "and" || base == "or" || base == "xor" || base == "not" || base == "cnot" ||
            base == "shl" || base == "popc" || base == "clz" || base == "brev") {
          const int bits = type_bits(type);
          if (bits != 16 && bits != 32 && bits != 64) unsupported("expected a 16/32/64-bit type");
          ti = bits == 16 ? 1 : bits == 32 ? 3 : 5;
        } else {
          ti = ity();
        }
        I.kind = static_cast<std::uint16_t>(f.ikind * 8 + ti);
      }
      I.d = dst(ops[0]);
      // Shift amounts, bfe/bfi positions are .u32 operands.
      const bool u32_tail = base == "shl" || base == "shr" || base == "bfe" || base == "bfi";
      I.a = src(ops[1], type);
      if (f.nsrc > 1) I.b = src(ops[2], (u32_tail && base != "bfi") ? kU32 : type);
      if (f.nsrc > 2) I.c = src(ops[3], base == "sad" ? type : kU32);
      if (f.nsrc > 3) I.d2 = src(ops[4], kU32);
      I.flags |= kFlagTaint;
      if (mod("sat")) I.flags |= kFlagSat;
      return push(I);
    }
    if (base == "testp") {
      need(in, 2);
      I.kind = static_cast<std::uint16_t>(kFTestp * 8 + (type == kF64 ? 1 : 0));
      I.type2 = mod("finite")       ? 0
                : mod("infinite")   ? 1
                : mod("number")     ? 2
                : mod("notanumber") ? 3
                : mod("normal")     ? 4
                                    : 5;
      I.d = pred(ops[0]);
      I.a = src(ops[1], type);
      return push(I);
    }
    if (base == "setp" || base == "set") {
      if (base == "set") unsupported("use setp");
      need_min(in, 3);
      if (cmp < 0) unsupported("missing comparison");
      I.type2 = static_cast<std::uint8_t>(cmp);
      if (type_float(type)) {
        if (is_half) unsupported("half-precision setp");
        I.kind = static_cast<std::uint16_t>(kFSetp * 8 + (type == kF64 ? 1 : 0));
      } else if (type == kPred) {
        unsupported("");
      } else {
        int ti;
        const int bits = type_bits(type);
        if (type == kB16 || type == kB32 || type == kB64) {
          ti = bits == 16 ? 1 : bits == 32 ? 3 : 5;
        } else {
          ti = ity();
        }
        if ((type == kB16 || type == kB32 || type == kB64) && cmp != kEq && cmp != kNe) {
          unsupported("");
        }
        I.kind = static_cast<std::uint16_t>(kISetp * 8 + ti);
      }
      const AstOperand& d = ops[0];
      if (d.kind == AstOperand::Kind::kVector) {
        if (d.elements.size() != 2) fail(d.loc, "expected p|q");
        I.d = pred(d.elements[0]);
        I.d2 = pred(d.elements[1]);
        I.flags |= kFlagHasQ;
      } else {
        I.d = pred(d);
      }
      I.a = src(ops[1], type);
      I.b = src(ops[2], type);
      if (mod("and") || mod("or") || mod("xor")) {
        need(in, 4);
        I.flags |= mod("and") ? kFlagCombAnd : mod("or") ? kFlagCombOr : kFlagCombXor;
        I.c = pred(ops[3]);
        if (ops[3].negated) I.flags |= kFlagNegC;
      } else {
        need(in, 3);
      }
      return push(I);
    }
    if (base == "selp") {
      need(in, 4);
      set_cls(InstClass::kMove);
      I.kind = kSelp;
      I.d = dst(ops[0]);
      I.a = src(ops[1], type);
      I.b = src(ops[2], type);
      I.c = pred(ops[3]);
      if (ops[3].negated) I.guard_neg ^= 0;  // selp has no negated form in PTX
      I.flags |= kFlagTaint;
      return push(I);
    }
    if (base == "prmt") {
      need(in, 4);
      set_cls(InstClass::kInt);
      if (mods.size() > 2) unsupported("only the default prmt mode");
      I.kind = kPrmt;
      I.d = dst(ops[0]);
      I.a = src(ops[1], kB32);
      I.b = src(ops[2], kB32);
      I.c = src(ops[3], kB32);
      I.flags |= kFlagTaint;
      return push(I);
    }
    if (base == "mov") {
      need(in, 2);
      set_cls(InstClass::kMove);
      if (type == kPred) {
        set_cls(InstClass::kPredicate);
        I.d = pred(ops[0]);
        if (ops[1].kind == AstOperand::Kind::kInteger) {
          I.kind = kPredConst;
          I.type2 = ops[1].value != 0 ? 1 : 0;
          return push(I);
        }
        I.kind = kPredMov;
        I.a = pred(ops[1]);
        return push(I);
      }
      const int bits = type_bits(type);
      if (ops[0].kind == AstOperand::Kind::kVector || ops[1].kind == AstOperand::Kind::kVector) {
        const bool pack = ops[1].kind == AstOperand::Kind::kVector;
        const AstOperand& v = pack ? ops[1] : ops[0];
        const std::size_t n = v.elements.size();
        if (n != 2 && n != 4) fail(v.loc, "expected a vector of 2 or 4 elements");
        if (mod("v2") || mod("v4")) unsupported("vector-typed mov with vector operand");
        I.kind = pack ? kMovPack : kMovUnpack;
        I.nvec = static_cast<std::uint8_t>(n);
        I.size = static_cast<std::uint8_t>(bits / static_cast<int>(n));
        I.d2 = static_cast<std::uint32_t>(p_.vec_slots.size());
        for (const auto& e : v.elements) p_.vec_slots.push_back(pack ? src(e, kTNone) : dst(e));
        if (pack) {
          I.d = dst(ops[0]);
        } else {
          I.a = src(ops[1], type);
        }
        return push(I);
      }
      I.kind = kMov;
      I.d = dst(ops[0]);
      generic_symbols_ = false;
      I.a = src(ops[1], type);
      I.flags |= kFlagTaint;
      return push(I);
    }
    if (base == "cvt") {
      need(in, 2);
      set_cls(InstClass::kConversion);
      if (types.size() != 2) unsupported("expected destination and source types");
      const int dt = types[0], st = types[1];
      if (dt == kF16x2 || dt == kBF16x2 || st == kF16x2 || st == kBF16x2 || dt == kTF32 ||
          dt == kPred || st == kPred) {
        return count_only(in, I, false);
      }
      I.type = static_cast<std::uint8_t>(dt);
      I.type2 = static_cast<std::uint8_t>(st);
      I.d = dst(ops[0]);
      I.a = src(ops[1], st);
      I.flags |= kFlagTaint;
      if (mod("sat")) I.flags |= kFlagSat;
      if (!type_float(dt) && !type_float(st) && !mod("sat")) {
        I.kind = kCvtII;
      } else {
        I.kind = kCvtGeneric;
        // rounding in `size`: 0 rn/rni/default, 1 rz/rzi, 2 rm/rmi, 3 rp/rpi
        I.size = mod("rz") || mod("rzi")   ? 1
                 : mod("rm") || mod("rmi") ? 2
                 : mod("rp") || mod("rpi") ? 3
                                           : 0;
        if (type_float(dt) && type_float(st) &&
            (mod("rni") || mod("rzi") || mod("rmi") || mod("rpi"))) {
          I.size |= 4;
        }
        if (!type_float(dt) && type_float(st) &&
            !(mod("rni") || mod("rzi") || mod("rmi") || mod("rpi"))) {
          I.size = 1;  // float->int defaults to truncation when written without a rounding (ptx
                       // requires one; be lenient)
        }
      }
      return push(I);
    }
    if (base == "cvta") {
      need(in, 2);
      set_cls(InstClass::kConversion);
      I.kind = mod("to") ? kCvtaTo : kCvta;
      I.size = mod("shared") ? 's' : mod("local") ? 'l' : mod("param") ? 'p' : 'g';
      I.d = dst(ops[0]);
      generic_symbols_ = false;
      I.a = src(ops[1], type);
      I.flags |= kFlagTaint;
      return push(I);
    }
    if (base == "ld" || base == "ldu" || base == "st") {
      const bool load = base != "st";
      need_min(in, 2);
      const char space = mod("shared")   ? 's'
                         : mod("local")  ? 'l'
                         : mod("param")  ? 'p'
                         : mod("const")  ? 'c'
                         : mod("global") ? 'g'
                                         : 'x';
      if (mod("shared::cluster")) unsupported("distributed shared memory");
      int nvec = mod("v2") ? 2 : mod("v4") ? 4 : mod("v8") ? 8 : 1;
      const int bits = type_bits(type);
      if (bits == 0 || bits == 1) unsupported("expected a data type");
      I.nvec = static_cast<std::uint8_t>(nvec);
      I.size = static_cast<std::uint8_t>(bits / 8);
      if (type_signed(type)) I.flags |= kFlagSignExt;
      if (load) {
        I.kind = space == 's'   ? kLdShared
                 : space == 'l' ? kLdLocal
                 : space == 'p' ? kLdParam
                 : space == 'x' ? kLdGeneric
                                : kLdGlobal;
        set_cls(space == 's'   ? InstClass::kLdShared
                : space == 'l' ? InstClass::kLdLocal
                : space == 'p' ? InstClass::kLdParam
                : space == 'c' ? InstClass::kLdConst
                : space == 'g' ? InstClass::kLdGlobal
                               : InstClass::kMemOther);
      } else {
        I.kind = space == 's'   ? kStShared
                 : space == 'l' ? kStLocal
                 : space == 'p' ? kStParam
                 : space == 'x' ? kStGeneric
                                : kStGlobal;
        if (space == 'c') unsupported("store to .const");
        set_cls(space == 's'   ? InstClass::kStShared
                : space == 'l' ? InstClass::kStLocal
                : space == 'g' ? InstClass::kStGlobal
                               : InstClass::kMemOther);
      }
      space_generic_ = space == 'x';
      const AstOperand& addr = load ? ops[1] : ops[0];
      const AstOperand& val = load ? ops[0] : ops[1];
      address(addr, I);
      space_generic_ = false;
      if (addr.name.empty() || addr.name[0] != '%') I.type2 = 1;  // uniform address
      if (nvec > 1) {
        if (val.kind != AstOperand::Kind::kVector ||
            val.elements.size() != static_cast<std::size_t>(nvec)) {
          fail(val.loc, "expected a vector of " + std::to_string(nvec) + " registers");
        }
        I.d2 = static_cast<std::uint32_t>(p_.vec_slots.size());
        for (const auto& e : val.elements) p_.vec_slots.push_back(load ? dst(e) : src(e, type));
      } else if (load) {
        I.d = dst(val);
      } else {
        I.b = src(val, type);
      }
      return push(I);
    }
    if (base == "bra" || base == "brx") {
      if (base == "brx") unsupported("indirect branch");
      need(in, 1);
      if (ops[0].kind != AstOperand::Kind::kSymbol) fail(ops[0].loc, "expected a label");
      set_cls(InstClass::kControl);
      I.kind = kBra;
      return push(I);
    }
    if (base == "ret" || base == "exit") {
      need(in, 0);
      set_cls(InstClass::kControl);
      I.kind = kRet;
      return push(I);
    }
    if (base == "trap" || base == "brkpt") {
      set_cls(InstClass::kControl);
      I.kind = kRet;
      return push(I);
    }
    if (base == "call") {
      fail(in.loc, "unsupported instruction '" + in.opcode +
                       "': calls to non-inlined .func are not emulated (compile with inlining)");
    }
    if (base == "bar" || base == "barrier") {
      set_cls(InstClass::kSync);
      if (mod("warp")) {
        I.kind = kNop;
        return push(I);
      }
      if (mod("red")) return count_only(in, I, false);
      if (mod("arrive")) {
        I.kind = kBarArrive;
        return push(I);
      }
      // Named barriers with a thread count are treated as CTA-wide barriers (docs/ptx.md).
      I.kind = kBar;
      return push(I);
    }
    if (base == "membar" || base == "fence" || base == "nanosleep" || base == "pmevent" ||
        base == "griddepcontrol") {
      set_cls(InstClass::kSync);
      I.kind = kNop;
      return push(I);
    }
    if (base == "activemask") {
      need(in, 1);
      set_cls(InstClass::kOther);
      I.kind = kActivemask;
      I.d = dst(ops[0]);
      return push(I);
    }
    if (base == "vote") {
      set_cls(InstClass::kOther);
      need_min(in, 2);
      const bool ballot = mod("ballot");
      I.kind = ballot ? kVoteBallot : mod("all") ? kVoteAll : mod("any") ? kVoteAny : kVoteUni;
      if (ballot) {
        I.d = dst(ops[0]);
      } else {
        I.d = pred(ops[0]);
      }
      I.a = pred(ops[1]);
      if (ops[1].negated) I.flags |= kFlagNegC;
      return push(I);
    }
    if (base == "shfl") {
      set_cls(InstClass::kOther);
      if (!mod("sync")) unsupported("only shfl.sync");
      need(in, 5);
      I.kind = kShfl;
      I.type2 = mod("up") ? 0 : mod("down") ? 1 : mod("bfly") ? 2 : 3;
      const AstOperand& d = ops[0];
      if (d.kind == AstOperand::Kind::kVector) {
        I.d = dst(d.elements.at(0));
        I.d2 = pred(d.elements.at(1));
        I.flags |= kFlagHasQ;
      } else {
        I.d = dst(d);
      }
      I.a = src(ops[1], kB32);
      I.b = src(ops[2], kU32);
      I.c = src(ops[3], kU32);
      return push(I);
    }
    // ---- tier 2: counted, destinations written as tainted zeros
    static constexpr std::string_view kTier2[] = {
        "atom",      "red",           "cp",       "ldmatrix",     "stmatrix",  "mma",
        "wmma",      "tex",           "tld4",     "suld",         "sust",      "sured",
        "suq",       "txq",           "prefetch", "prefetchu",    "match",     "redux",
        "isspacep",  "applypriority", "discard",  "createpolicy", "dp4a",      "dp2a",
        "lop3",      "shf",           "fns",      "bmsk",         "szext",     "movmatrix",
        "cvt.pack",  "ldu",           "istypep",  "alloca",       "stacksave", "stackrestore",
        "getctarank"};
    for (std::string_view t : kTier2) {
      if (base != t) continue;
      if (base == "cp" && (mod("bulk") || mod("reduce"))) {
        unsupported("tier 3 (Hopper bulk copies)");
      }
      if (base == "atom" || base == "red") {
        set_cls(InstClass::kAtomic);
      } else if (base == "cp" || base == "ldmatrix" || base == "stmatrix" || base == "prefetch" ||
                 base == "prefetchu") {
        set_cls(InstClass::kMemOther);
      } else if (base == "mma" || base == "wmma") {
        set_cls(InstClass::kFp16);
      } else if (base == "lop3" || base == "shf" || base == "dp4a" || base == "dp2a" ||
                 base == "bmsk" || base == "szext" || base == "fns") {
        set_cls(InstClass::kInt);
      } else {
        set_cls(InstClass::kOther);
      }
      if (base == "cp" && mod("async") &&
          (mod("commit_group") || mod("wait_group") || mod("wait_all"))) {
        set_cls(InstClass::kSync);
      }
      return count_only(in, I,
                        base != "red" && base != "cp" && base != "prefetch" &&
                            base != "prefetchu" && base != "sust" && base != "sured" &&
                            base != "stmatrix" && !(base == "wmma" && mod("store")));
    }
    static constexpr std::string_view kTier3[] = {"wgmma",      "mbarrier", "tcgen05",
                                                  "setmaxnreg", "elect",    "clusterlaunchcontrol",
                                                  "tensormap",  "multimem"};
    for (std::string_view t : kTier3) {
      if (base == t) unsupported("tier 3 (Hopper/Blackwell asynchronous feature), not emulated");
    }
    fail(in.loc, "unknown instruction '" + in.opcode + "'");
  }

  /// Tier-2: counted; register destinations (first operand, scalar or vector) become
  /// tainted zeros so a dependent branch or address is flagged.
  void count_only(const AstInstruction& in, Inst& I, bool writes_first) {
    I.kind = kCountOnly;
    I.nvec = 0;
    if (writes_first && !in.operands.empty()) {
      const AstOperand& d = in.operands[0];
      I.d2 = static_cast<std::uint32_t>(p_.vec_slots.size());
      auto add = [&](const AstOperand& o) {
        if (o.kind == AstOperand::Kind::kRegister && preds_.count(o.name) == 0 &&
            special_of(o.name) < 0) {
          p_.vec_slots.push_back(reg_slot(o));
          ++I.nvec;
        }
      };
      if (d.kind == AstOperand::Kind::kVector) {
        for (const auto& e : d.elements) add(e);
      } else {
        add(d);
      }
    }
    push(I);
  }

  void push(Inst& I) {
    generic_symbols_ = true;
    p_.code.push_back(I);
  }

  void postdominators() {
    const std::size_t n = p_.code.size();
    p_.reconverge.assign(n, Program::kEnd);
    if (n == 0) return;
    // Basic blocks.
    std::vector<char> leader(n + 1, 0);
    leader[0] = 1;
    for (std::size_t pc = 0; pc < n; ++pc) {
      const Inst& I = p_.code[pc];
      if (I.kind == kBra) {
        leader[I.target] = 1;
        leader[pc + 1] = 1;
      } else if (I.kind == kRet) {
        leader[pc + 1] = 1;
      }
    }
    for (const auto& [name, idx] : fn_.labels) {
      if (idx < n) leader[idx] = 1;
    }
    std::vector<std::uint32_t> block_of(n);
    std::vector<std::uint32_t> start;
    for (std::size_t pc = 0; pc < n; ++pc) {
      if (leader[pc]) start.push_back(static_cast<std::uint32_t>(pc));
      block_of[pc] = static_cast<std::uint32_t>(start.size() - 1);
    }
    const std::size_t nb = start.size();
    const std::size_t exit_node = nb;
    std::vector<std::vector<std::uint32_t>> succ(nb), pred(nb + 1);
    for (std::size_t b = 0; b < nb; ++b) {
      const std::size_t last = (b + 1 < nb ? start[b + 1] : n) - 1;
      const Inst& I = p_.code[last];
      auto add = [&](std::size_t to) {
        succ[b].push_back(static_cast<std::uint32_t>(to));
        pred[to].push_back(static_cast<std::uint32_t>(b));
      };
      if (I.kind == kBra) {
        add(block_of[I.target]);
        if (I.guard >= 0) add(last + 1 < n ? block_of[last + 1] : exit_node);
      } else if (I.kind == kRet) {
        if (I.guard >= 0) {
          add(last + 1 < n ? block_of[last + 1] : exit_node);
        } else {
          add(exit_node);
        }
      } else {
        add(last + 1 < n ? block_of[last + 1] : exit_node);
      }
    }
    // Post-dominators: Cooper-Harvey-Kennedy on the reverse CFG rooted at the exit node.
    std::vector<int> order(nb + 1, -1);  // postorder index in the reverse graph
    std::vector<std::uint32_t> post;
    {
      std::vector<std::pair<std::uint32_t, std::size_t>> stack;
      std::vector<char> seen(nb + 1, 0);
      stack.emplace_back(static_cast<std::uint32_t>(exit_node), 0);
      seen[exit_node] = 1;
      while (!stack.empty()) {
        auto& [v, i] = stack.back();
        if (i < pred[v].size()) {
          const std::uint32_t w = pred[v][i++];
          if (!seen[w]) {
            seen[w] = 1;
            stack.emplace_back(w, 0);
          }
        } else {
          order[v] = static_cast<int>(post.size());
          post.push_back(v);
          stack.pop_back();
        }
      }
    }
    std::vector<int> ipdom(nb + 1, -1);
    ipdom[exit_node] = static_cast<int>(exit_node);
    auto intersect = [&](int a, int b) {
      while (a != b) {
        while (order[static_cast<std::size_t>(a)] < order[static_cast<std::size_t>(b)]) {
          a = ipdom[static_cast<std::size_t>(a)];
        }
        while (order[static_cast<std::size_t>(b)] < order[static_cast<std::size_t>(a)]) {
          b = ipdom[static_cast<std::size_t>(b)];
        }
      }
      return a;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = post.rbegin(); it != post.rend(); ++it) {
        const std::uint32_t v = *it;
        if (v == exit_node) continue;
        int nd = -1;
        for (std::uint32_t s : succ[v]) {
          if (ipdom[s] < 0) continue;
          nd = nd < 0 ? static_cast<int>(s) : intersect(nd, static_cast<int>(s));
        }
        if (nd >= 0 && ipdom[v] != nd) {
          ipdom[v] = nd;
          changed = true;
        }
      }
    }
    for (std::size_t pc = 0; pc < n; ++pc) {
      if (p_.code[pc].kind != kBra) continue;
      const int pd = ipdom[block_of[pc]];
      p_.reconverge[pc] = (pd < 0 || static_cast<std::size_t>(pd) == exit_node)
                              ? Program::kEnd
                              : start[static_cast<std::size_t>(pd)];
    }
  }

  const AstModule& mod_;
  const AstFunction& fn_;
  Program p_;
  std::unordered_map<std::string, std::uint32_t> regs_, preds_, names_;
  std::unordered_map<std::uint64_t, std::uint32_t> consts_;
  std::unordered_map<int, std::uint32_t> specials_;
  std::unordered_map<std::string, Symbol> symbols_;
  std::uint32_t sink_ = 0;
  std::int64_t param_space_bytes_ = 0;
  bool generic_symbols_ = true;  // mov/cvta of a symbol yields its state-space address
  bool space_generic_ = false;   // address operand of a generic ld/st
};

}  // namespace

std::shared_ptr<const Program> Program::build(const AstModule& module, const std::string& kernel) {
  const AstFunction* fn = nullptr;
  for (const auto& f : module.functions) {
    if (f.name == kernel && f.is_entry && f.has_body) fn = &f;
  }
  if (fn == nullptr) {
    std::string list;
    for (const auto& e : module.entries()) list += (list.empty() ? "" : ", ") + e;
    throw InputError(module.source + ": no kernel '" + kernel +
                     "'; entries found: " + (list.empty() ? "(none)" : list));
  }
  Builder b(module, *fn);
  return b.build();
}

}  // namespace cnnperf::ptx
