// SPDX-License-Identifier: Apache-2.0
// Warp-level executor: CTAs of warps of 32 lanes, an immediate-post-dominator SIMT stack per
// warp, CTA barriers, real param/shared/local memory, virtual global memory whose loads
// return tainted zeros; CTA sampling (first/interior/last per grid dimension) with scaling
// and linear trip-count extrapolation.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ptx/ptx_emu.hpp"
#include "internal.hpp"

namespace cnnperf::ptx {

using namespace detail;

namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

template <class F>
inline void lanes(std::uint32_t m, F&& f) {
  if (m == 0xffffffffu) {
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    while (m != 0) {
      const int l = std::countr_zero(m);
      m &= m - 1;
      f(l);
    }
  }
}

template <class T>
inline T get(const std::uint64_t* p, int l) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(p[l]));
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<double>(p[l]);
  } else {
    return static_cast<T>(p[l]);
  }
}
template <class T>
inline void put(std::uint64_t* p, int l, T v) {
  if constexpr (std::is_same_v<T, float>) {
    p[l] = std::bit_cast<std::uint32_t>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    p[l] = std::bit_cast<std::uint64_t>(v);
  } else {
    p[l] = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
  }
}

template <class T>
inline bool is_neg(T a) {
  if constexpr (std::is_signed_v<T>) {
    return a < 0;
  } else {
    (void)a;
    return false;
  }
}

// One line per width (not reformatted):
// clang-format off
template <class T> struct Wide;
template <> struct Wide<std::int16_t> { using type = std::int32_t; };
template <> struct Wide<std::uint16_t> { using type = std::uint32_t; };
template <> struct Wide<std::int32_t> { using type = std::int64_t; };
template <> struct Wide<std::uint32_t> { using type = std::uint64_t; };
template <> struct Wide<std::int64_t> { using type = std::int64_t; };
template <> struct Wide<std::uint64_t> { using type = std::uint64_t; };
// clang-format on

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f;
  std::uint32_t mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(bits);
}

// Truth tables over (lt, eq, gt, unordered) for each Cmp.
constexpr std::uint8_t kCmpTable[] = {0b0010, 0b0101, 0b0001, 0b0011, 0b0100, 0b0110, 0b1010,
                                      0b1101, 0b1001, 0b1011, 0b1100, 0b1110, 0b0111, 0b1000};

struct StackEntry {
  std::uint32_t pc;
  std::uint32_t rpc;
  std::uint32_t mask;
};

struct Warp {
  std::vector<std::uint64_t> R;
  std::vector<std::uint32_t> T;
  std::vector<std::uint32_t> P, PT;
  std::vector<StackEntry> stack;
  std::uint32_t exited = 0;
  int index = 0;
  bool done = false;
};

struct CtaCounts {
  std::vector<std::uint64_t> warp, thread;
  std::uint64_t branches = 0, divergent = 0;
  double generic_bytes[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  void reset(std::size_t n) {
    warp.assign(n, 0);
    thread.assign(n, 0);
    branches = divergent = 0;
    for (auto& g : generic_bytes) g[0] = g[1] = 0;
  }
};

class Executor {
 public:
  Executor(const Program& p, const LaunchSpec& spec, std::vector<std::uint8_t> params)
      : p_(p), spec_(spec), params_(std::move(params)), module_(p.module_data) {
    threads_ = spec.block.count();
    nwarps_ = static_cast<int>((threads_ + 31) / 32);
    shared_size_ = static_cast<std::size_t>(p.shared_bytes + spec.dynamic_shared_bytes);
    shared_.assign(shared_size_ + 16, 0);
    shared_taint_.assign(shared_size_ / 4 + 4, 0);
    local_.assign(static_cast<std::size_t>(p.local_bytes) * static_cast<std::size_t>(nwarps_) * 32,
                  0);
    if (spec.progress) next_report_ = std::max<std::uint64_t>(1, spec.progress_warp_insts);
    next_check_ = std::min(spec.max_warp_insts, next_report_ - 1);
    warps_.resize(static_cast<std::size_t>(nwarps_));
    for (int w = 0; w < nwarps_; ++w) {
      Warp& W = warps_[static_cast<std::size_t>(w)];
      W.index = w;
      W.R.assign(static_cast<std::size_t>(p.num_slots) * 32, 0);
      W.T.assign(p.num_slots, 0);
      W.P.assign(p.num_preds + 1, 0);
      W.PT.assign(p.num_preds + 1, 0);
      for (const auto& [slot, value] : p.constants) {
        std::fill_n(W.R.begin() + static_cast<std::ptrdiff_t>(slot) * 32, 32, value);
      }
    }
  }

  bool data_branch = false, data_address = false, shared_oob = false;
  std::uint64_t simulated = 0;

  [[noreturn]] void over_budget() const {
    throw WarpBudgetExceeded(p_.kernel, spec_.max_warp_insts, 0);
  }

  // Past next_check_: over the budget, or time for a progress report.
  void checkpoint(std::uint64_t executed) {
    if (executed > spec_.max_warp_insts) over_budget();
    // Whole steps past the count: reports stay on a fixed grid whatever the branch spacing.
    const std::uint64_t step = std::max<std::uint64_t>(1, spec_.progress_warp_insts);
    next_report_ = (executed / step + 1) * step;
    spec_.progress(executed, spec_.max_warp_insts);
    next_check_ = std::min(spec_.max_warp_insts, next_report_ - 1);
  }

  void run_cta(std::int64_t cx, std::int64_t cy, std::int64_t cz, CtaCounts& counts) {
    std::fill(shared_.begin(), shared_.end(), 0);
    std::fill(shared_taint_.begin(), shared_taint_.end(), 0);
    const std::int64_t bx = spec_.block.x, by = spec_.block.y;
    for (int w = 0; w < nwarps_; ++w) {
      Warp& W = warps_[static_cast<std::size_t>(w)];
      std::fill(W.T.begin(), W.T.end(), 0);
      std::fill(W.P.begin(), W.P.end(), 0);
      std::fill(W.PT.begin(), W.PT.end(), 0);
      std::uint32_t valid = 0;
      for (int l = 0; l < 32; ++l) {
        if (w * 32 + l < threads_) valid |= 1u << l;
      }
      for (const auto& [slot, sp] : p_.specials) {
        std::uint64_t* r = &W.R[static_cast<std::size_t>(slot) * 32];
        for (int l = 0; l < 32; ++l) {
          const std::int64_t t = static_cast<std::int64_t>(w) * 32 + l;
          std::uint64_t v = 0;
          switch (sp) {
            case kTidX: v = static_cast<std::uint64_t>(t % bx); break;
            case kTidY: v = static_cast<std::uint64_t>((t / bx) % by); break;
            case kTidZ: v = static_cast<std::uint64_t>(t / (bx * by)); break;
            case kNtidX: v = static_cast<std::uint64_t>(bx); break;
            case kNtidY: v = static_cast<std::uint64_t>(by); break;
            case kNtidZ: v = static_cast<std::uint64_t>(spec_.block.z); break;
            case kCtaidX: v = static_cast<std::uint64_t>(cx); break;
            case kCtaidY: v = static_cast<std::uint64_t>(cy); break;
            case kCtaidZ: v = static_cast<std::uint64_t>(cz); break;
            case kNctaidX: v = static_cast<std::uint64_t>(spec_.grid.x); break;
            case kNctaidY: v = static_cast<std::uint64_t>(spec_.grid.y); break;
            case kNctaidZ: v = static_cast<std::uint64_t>(spec_.grid.z); break;
            case kLaneid: v = static_cast<std::uint64_t>(l); break;
            case kWarpid: v = static_cast<std::uint64_t>(w); break;
            case kNwarpid: v = static_cast<std::uint64_t>(nwarps_); break;
            case kNsmid: v = 1; break;
            case kLanemaskEq: v = 1u << l; break;
            case kLanemaskLt: v = (1u << l) - 1; break;
            case kLanemaskLe: v = l == 31 ? 0xffffffffu : (1u << (l + 1)) - 1; break;
            case kLanemaskGt: v = l == 31 ? 0u : ~((1u << (l + 1)) - 1); break;
            case kLanemaskGe: v = ~((1u << l) - 1); break;
            case kDynSmem: v = static_cast<std::uint64_t>(spec_.dynamic_shared_bytes); break;
            case kTotalSmem: v = shared_size_; break;
            default: v = 0; break;
          }
          r[l] = v;
        }
      }
      W.stack.clear();
      W.stack.push_back({0, Program::kEnd, valid});
      W.exited = 0;
      W.done = valid == 0;
    }
    // Run every warp to its next barrier; release when all live warps wait.
    for (;;) {
      bool any = false;
      for (Warp& W : warps_) {
        if (W.done) continue;
        any = true;
        run_warp(W, counts);
      }
      if (!any) break;
    }
  }

 private:
  bool in_shared(std::uint64_t addr, std::size_t bytes) {
    if (addr + bytes <= shared_size_ && addr < shared_size_) return true;
    shared_oob = true;
    return false;
  }

  std::uint64_t read_bytes(const std::uint8_t* src, int size, bool sext) {
    std::uint64_t v = 0;
    std::memcpy(&v, src, static_cast<std::size_t>(std::min(size, 8)));
    if (sext && size < 8) {
      const int sh = 64 - 8 * size;
      v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << sh) >> sh);
    }
    return v;
  }

  // Reads one element of `size` bytes at a generic or state-space address; returns taint.
  // space: 's' shared, 'l' local, 'p' param, 'g' global/const, 'x' generic.
  bool load(char space, std::uint64_t addr, int size, bool sext, int warp, int lane,
            std::uint64_t& out, CtaCounts& counts) {
    if (space == 'x') {
      const std::uint64_t win = addr >> kWindowShift;
      if (win == (kSharedWindow >> kWindowShift)) {
        space = 's';
        addr -= kSharedWindow;
        counts.generic_bytes[1][0] += size;
      } else if (win == (kLocalWindow >> kWindowShift)) {
        space = 'l';
        addr -= kLocalWindow;
        counts.generic_bytes[2][0] += size;
      } else if (win == (kParamWindow >> kWindowShift)) {
        space = 'p';
        addr -= kParamWindow;
      } else {
        space = 'g';
        counts.generic_bytes[0][0] += size;
      }
    }
    const auto sz = static_cast<std::size_t>(size);
    switch (space) {
      case 's':
        if (!in_shared(addr, sz)) {
          out = 0;
          return false;
        }
        out = read_bytes(&shared_[addr], size, sext);
        return shared_taint_[addr / 4] != 0;
      case 'l': {
        const auto lb = static_cast<std::uint64_t>(p_.local_bytes);
        if (addr + sz > lb) {
          out = 0;
          return false;
        }
        out = read_bytes(
            &local_[(static_cast<std::size_t>(warp) * 32 + static_cast<std::size_t>(lane)) * lb +
                    addr],
            size, sext);
        return false;
      }
      case 'p':
        if (addr + sz > params_.size()) {
          out = 0;
          return false;
        }
        out = read_bytes(&params_[addr], size, sext);
        return false;
      default: {
        if ((addr >> kWindowShift) == (kModuleWindow >> kWindowShift)) {
          const std::uint64_t off = addr - kModuleWindow;
          if (off + sz <= module_.size()) {
            out = read_bytes(&module_[off], size, sext);
            return false;
          }
        }
        out = 0;  // virtual global memory: zero, and tainted
        return true;
      }
    }
  }

  void store(char space, std::uint64_t addr, int size, std::uint64_t v, bool tainted, int warp,
             int lane, CtaCounts& counts) {
    if (space == 'x') {
      const std::uint64_t win = addr >> kWindowShift;
      if (win == (kSharedWindow >> kWindowShift)) {
        space = 's';
        addr -= kSharedWindow;
        counts.generic_bytes[1][1] += size;
      } else if (win == (kLocalWindow >> kWindowShift)) {
        space = 'l';
        addr -= kLocalWindow;
        counts.generic_bytes[2][1] += size;
      } else if (win == (kParamWindow >> kWindowShift)) {
        space = 'p';
        addr -= kParamWindow;
      } else {
        space = 'g';
        counts.generic_bytes[0][1] += size;
      }
    }
    const auto sz = static_cast<std::size_t>(std::min(size, 8));
    switch (space) {
      case 's':
        if (!in_shared(addr, static_cast<std::size_t>(size))) return;
        std::memcpy(&shared_[addr], &v, sz);
        shared_taint_[addr / 4] = tainted ? 1 : 0;
        return;
      case 'l': {
        const auto lb = static_cast<std::uint64_t>(p_.local_bytes);
        if (addr + static_cast<std::uint64_t>(size) > lb) return;
        std::memcpy(
            &local_[(static_cast<std::size_t>(warp) * 32 + static_cast<std::size_t>(lane)) * lb +
                    addr],
            &v, sz);
        return;
      }
      case 'p':
        if (addr + static_cast<std::uint64_t>(size) > params_.size()) return;
        std::memcpy(&params_[addr], &v, sz);
        return;
      default:
        if ((addr >> kWindowShift) == (kModuleWindow >> kWindowShift)) {
          const std::uint64_t off = addr - kModuleWindow;
          if (off + sz <= module_.size()) std::memcpy(&module_[off], &v, sz);
        }
        return;  // virtual global memory: stores are dropped
    }
  }

  void mem(const Inst& I, std::uint32_t m, Warp& W, CtaCounts& counts, bool is_load, char space) {
    std::uint64_t* R = W.R.data();
    std::uint32_t* Tn = W.T.data();
    const std::uint64_t* ra = R + static_cast<std::size_t>(I.a) * 32;
    if (Tn[I.a] & m) data_address = true;
    const bool sext = (I.flags & kFlagSignExt) != 0;
    const int size = I.size;
    const int n = I.nvec;
    if (is_load && space == 'p' && I.type2 == 1) {
      // Uniform parameter load: read once, broadcast.
      for (int e = 0; e < n; ++e) {
        std::uint64_t v = 0;
        load('p',
             ra[0] + static_cast<std::uint64_t>(I.offset) + static_cast<std::uint64_t>(e * size),
             size, sext, W.index, 0, v, counts);
        const std::uint32_t ds = n == 1 ? I.d : p_.vec_slots[I.d2 + static_cast<std::uint32_t>(e)];
        std::uint64_t* rd = R + static_cast<std::size_t>(ds) * 32;
        lanes(m, [&](int l) { rd[l] = v; });
        Tn[ds] &= ~m;
      }
      return;
    }
    for (int e = 0; e < n; ++e) {
      const std::uint32_t vs =
          n == 1 ? (is_load ? I.d : I.b) : p_.vec_slots[I.d2 + static_cast<std::uint32_t>(e)];
      std::uint64_t* rv = R + static_cast<std::size_t>(vs) * 32;
      const std::uint64_t eoff =
          static_cast<std::uint64_t>(I.offset) + static_cast<std::uint64_t>(e * size);
      if (is_load) {
        std::uint32_t taint = 0;
        if (space == 'g') {
          // Virtual global loads: module-window reads are real, everything else is a tainted zero.
          bool all_virtual = true;
          lanes(m, [&](int l) {
            if (((ra[l] + eoff) >> kWindowShift) == (kModuleWindow >> kWindowShift)) {
              all_virtual = false;
            }
          });
          if (all_virtual) {
            lanes(m, [&](int l) { rv[l] = 0; });
            Tn[vs] |= m;
            continue;
          }
        }
        lanes(m, [&](int l) {
          std::uint64_t v;
          if (load(space, ra[l] + eoff, size, sext, W.index, l, v, counts)) taint |= 1u << l;
          rv[l] = v;
        });
        Tn[vs] = (Tn[vs] & ~m) | taint;
      } else {
        if (space == 'g') {
          bool any_module = false;
          lanes(m, [&](int l) {
            if (((ra[l] + eoff) >> kWindowShift) == (kModuleWindow >> kWindowShift)) {
              any_module = true;
            }
          });
          if (!any_module) continue;
        }
        const std::uint32_t tv = Tn[vs];
        lanes(m, [&](int l) {
          store(space, ra[l] + eoff, size, rv[l], ((tv >> l) & 1u) != 0, W.index, l, counts);
        });
      }
    }
  }

  static std::int64_t sext_bits(std::uint64_t v, int bits) {
    if (bits >= 64) return static_cast<std::int64_t>(v);
    const int sh = 64 - bits;
    return static_cast<std::int64_t>(v << sh) >> sh;
  }
  static std::uint64_t zext_bits(std::uint64_t v, int bits) {
    return bits >= 64 ? v : (v & ((std::uint64_t{1} << bits) - 1));
  }

  void cvt_generic(const Inst& I, std::uint32_t m, std::uint64_t* rd, const std::uint64_t* ra) {
    const int dt = I.type, st = I.type2;
    const int sbits = type_bits(st), dbits = type_bits(dt);
    const bool sat = (I.flags & kFlagSat) != 0;
    const int rnd = I.size & 3;
    const bool int_round = (I.size & 4) != 0;
    lanes(m, [&](int l) {
      const std::uint64_t x = ra[l];
      double f = 0;
      bool src_float = type_float(st);
      if (st == kF32 || st == kTF32) {
        f = std::bit_cast<float>(static_cast<std::uint32_t>(x));
      } else if (st == kF64) {
        f = std::bit_cast<double>(x);
      } else if (st == kF16) {
        f = half_to_float(static_cast<std::uint16_t>(x));
      } else if (st == kBF16) {
        f = std::bit_cast<float>(static_cast<std::uint32_t>(x & 0xffffu) << 16);
      }
      if (type_float(dt)) {
        if (!src_float) {
          f = type_signed(st) ? static_cast<double>(sext_bits(x, sbits))
                              : static_cast<double>(zext_bits(x, sbits));
        }
        if (int_round) {
          f = rnd == 1   ? std::trunc(f)
              : rnd == 2 ? std::floor(f)
              : rnd == 3 ? std::ceil(f)
                         : std::nearbyint(f);
        }
        if (sat) f = std::isnan(f) ? 0.0 : std::clamp(f, 0.0, 1.0);
        if (dt == kF32) {
          put<float>(rd, l, static_cast<float>(f));
        } else if (dt == kF64) {
          put<double>(rd, l, f);
        } else if (dt == kF16) {
          rd[l] = detail::float_to_half(static_cast<float>(f));
        } else if (dt == kBF16) {
          rd[l] = (std::bit_cast<std::uint32_t>(static_cast<float>(f)) + 0x8000u) >> 16;
        } else {
          rd[l] = 0;
        }
        return;
      }
      if (src_float) {
        if (std::isnan(f)) {
          rd[l] = 0;
          return;
        }
        f = rnd == 1   ? std::trunc(f)
            : rnd == 2 ? std::floor(f)
            : rnd == 3 ? std::ceil(f)
                       : std::nearbyint(f);
        if (type_signed(dt)) {
          const double lo = -std::ldexp(1.0, dbits - 1), hi = std::ldexp(1.0, dbits - 1) - 1;
          const double c = std::clamp(f, lo, hi);
          rd[l] = zext_bits(
              static_cast<std::uint64_t>(c >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(c)),
              dbits);
        } else {
          const double hi = std::ldexp(1.0, dbits) - 1;
          const double c = std::clamp(f, 0.0, hi);
          rd[l] = c >= 1.8e19 ? zext_bits(~0ULL, dbits)
                              : zext_bits(static_cast<std::uint64_t>(c), dbits);
        }
        return;
      }
      // int -> int with saturation
      if (type_signed(st)) {
        const std::int64_t v = sext_bits(x, sbits);
        if (type_signed(dt)) {
          const std::int64_t lo = dbits >= 64 ? INT64_MIN : -(std::int64_t{1} << (dbits - 1));
          const std::int64_t hi = dbits >= 64 ? INT64_MAX : (std::int64_t{1} << (dbits - 1)) - 1;
          rd[l] = zext_bits(static_cast<std::uint64_t>(std::clamp(v, lo, hi)), dbits);
        } else {
          const std::uint64_t hi = zext_bits(~0ULL, dbits);
          rd[l] = v < 0 ? 0 : std::min(static_cast<std::uint64_t>(v), hi);
        }
      } else {
        const std::uint64_t v = zext_bits(x, sbits);
        const std::uint64_t hi =
            type_signed(dt) ? zext_bits(~0ULL, dbits - 1) : zext_bits(~0ULL, dbits);
        rd[l] = std::min(v, hi);
      }
    });
  }

  void run_warp(Warp& W, CtaCounts& counts);

  const Program& p_;
  const LaunchSpec& spec_;
  // Warp instructions at which the next progress report is due (never, without a callback),
  // and the count past which the branch check calls checkpoint().
  std::uint64_t next_report_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t next_check_ = 0;
  std::vector<std::uint8_t> params_;
  std::vector<std::uint8_t> module_;
  std::int64_t threads_ = 0;
  int nwarps_ = 0;
  std::size_t shared_size_ = 0;
  std::vector<std::uint8_t> shared_, shared_taint_, local_;
  std::vector<Warp> warps_;
};

// One case of an instruction family: kind K at type index N runs the body with T = TYPE.
#define TYPED_CASE(K, N, TYPE, ...) \
  case (K)*8 + (N): {               \
    using T = TYPE;                 \
    __VA_ARGS__                     \
  } break;
// Integer families: s16 u16 s32 u32 s64 u64 (int_index); float families: f32 f64.
#define ICASE(K, ...)                          \
  TYPED_CASE(K, 0, std::int16_t, __VA_ARGS__)  \
  TYPED_CASE(K, 1, std::uint16_t, __VA_ARGS__) \
  TYPED_CASE(K, 2, std::int32_t, __VA_ARGS__)  \
  TYPED_CASE(K, 3, std::uint32_t, __VA_ARGS__) \
  TYPED_CASE(K, 4, std::int64_t, __VA_ARGS__)  \
  TYPED_CASE(K, 5, std::uint64_t, __VA_ARGS__)
#define FCASE(K, ...)                  \
  TYPED_CASE(K, 0, float, __VA_ARGS__) \
  TYPED_CASE(K, 1, double, __VA_ARGS__)

#define LANES(...) lanes(m, [&](int l) { __VA_ARGS__; });

void Executor::run_warp(Warp& W, CtaCounts& counts) {
  const Inst* code = p_.code.data();
  const std::uint32_t ncode = static_cast<std::uint32_t>(p_.code.size());
  std::uint64_t* R = W.R.data();
  std::uint32_t* Tn = W.T.data();
  std::uint32_t* P = W.P.data();
  std::uint32_t* PT = W.PT.data();
  std::uint64_t* wc = counts.warp.data();
  std::uint64_t* tc = counts.thread.data();
  auto& stack = W.stack;
  std::uint32_t pc = 0, rpc = 0, active = 0;
  std::uint64_t executed = 0;

  auto reload = [&]() -> bool {
    while (!stack.empty()) {
      StackEntry& e = stack.back();
      const std::uint32_t mk = e.mask & ~W.exited;
      if (mk == 0 || e.pc == e.rpc) {
        stack.pop_back();
        continue;
      }
      pc = e.pc;
      rpc = e.rpc;
      active = mk;
      return true;
    }
    return false;
  };
  if (!reload()) {
    W.done = true;
    return;
  }
  for (;;) {
    if (pc == rpc || pc >= ncode) {
      if (pc >= ncode) {
        // Falling off the end of the kernel is an exit.
        W.exited |= active;
      }
      stack.back().pc = pc;
      stack.pop_back();
      if (!reload()) {
        W.done = true;
        break;
      }
      continue;
    }
    const Inst& I = code[pc];
    std::uint32_t m = active;
    if (I.guard >= 0) m &= P[I.guard] ^ I.guard_neg;
    ++executed;
    ++wc[pc];
    tc[pc] += static_cast<std::uint64_t>(std::popcount(I.kind == kBra ? active : m));
    if (I.flags & kFlagTaint) {
      const std::uint32_t t = (Tn[I.a] | Tn[I.b] | Tn[I.c]) & m;
      Tn[I.d] = t | (Tn[I.d] & ~m);
    }
    std::uint64_t* rd = R + static_cast<std::size_t>(I.d) * 32;
    const std::uint64_t* ra = R + static_cast<std::size_t>(I.a) * 32;
    const std::uint64_t* rb = R + static_cast<std::size_t>(I.b) * 32;
    const std::uint64_t* rc = R + static_cast<std::size_t>(I.c) * 32;
    std::uint32_t setp_bits = 0;
    bool is_setp = false;
    // One line per instruction kind, read as a table (not reformatted):
    // clang-format off
    switch (I.kind) {
      ICASE(kIAdd, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(get<T>(ra, l)) + static_cast<std::uint64_t>(get<T>(rb, l))))))
      ICASE(kISub, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(get<T>(ra, l)) - static_cast<std::uint64_t>(get<T>(rb, l))))))
      ICASE(kIMulLo, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(get<T>(ra, l)) * static_cast<std::uint64_t>(get<T>(rb, l))))))
      ICASE(kIMadLo, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(get<T>(ra, l)) * static_cast<std::uint64_t>(get<T>(rb, l)) + static_cast<std::uint64_t>(get<T>(rc, l))))))
      ICASE(kIMulHi, LANES(put<T>(rd, l, static_cast<T>((static_cast<i128>(get<T>(ra, l)) * static_cast<i128>(get<T>(rb, l))) >> (8 * sizeof(T))))))
      ICASE(kIMadHi, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(static_cast<T>((static_cast<i128>(get<T>(ra, l)) * static_cast<i128>(get<T>(rb, l))) >> (8 * sizeof(T)))) + static_cast<std::uint64_t>(get<T>(rc, l))))))
      ICASE(kIMulWide, {
        using Wd = typename Wide<T>::type;
        LANES(put<Wd>(rd, l, static_cast<Wd>(static_cast<Wd>(get<T>(ra, l)) * static_cast<Wd>(get<T>(rb, l)))))
      })
      ICASE(kIMadWide, {
        using Wd = typename Wide<T>::type;
        LANES(put<Wd>(rd, l, static_cast<Wd>(static_cast<std::uint64_t>(static_cast<Wd>(get<T>(ra, l)) * static_cast<Wd>(get<T>(rb, l))) + static_cast<std::uint64_t>(get<Wd>(rc, l)))))
      })
      ICASE(kIDiv, LANES({
        const T a = get<T>(ra, l), b = get<T>(rb, l);
        T r;
        if (b == 0) r = static_cast<T>(~static_cast<std::uint64_t>(0));
        else if (std::is_signed_v<T> && b == static_cast<T>(-1)) r = static_cast<T>(0 - static_cast<std::uint64_t>(a));
        else r = static_cast<T>(a / b);
        put<T>(rd, l, r);
      }))
      ICASE(kIRem, LANES({
        const T a = get<T>(ra, l), b = get<T>(rb, l);
        T r;
        if (b == 0) r = a;
        else if (std::is_signed_v<T> && b == static_cast<T>(-1)) r = 0;
        else r = static_cast<T>(a % b);
        put<T>(rd, l, r);
      }))
      ICASE(kIMin, LANES(put<T>(rd, l, std::min(get<T>(ra, l), get<T>(rb, l)))))
      ICASE(kIMax, LANES(put<T>(rd, l, std::max(get<T>(ra, l), get<T>(rb, l)))))
      ICASE(kIAnd, LANES(put<T>(rd, l, static_cast<T>(get<T>(ra, l) & get<T>(rb, l)))))
      ICASE(kIOr, LANES(put<T>(rd, l, static_cast<T>(get<T>(ra, l) | get<T>(rb, l)))))
      ICASE(kIXor, LANES(put<T>(rd, l, static_cast<T>(get<T>(ra, l) ^ get<T>(rb, l)))))
      ICASE(kINot, LANES(put<T>(rd, l, static_cast<T>(~static_cast<std::uint64_t>(get<T>(ra, l))))))
      ICASE(kICnot, LANES(put<T>(rd, l, static_cast<T>(get<T>(ra, l) == 0 ? 1 : 0))))
      ICASE(kINeg, LANES(put<T>(rd, l, static_cast<T>(0 - static_cast<std::uint64_t>(get<T>(ra, l))))))
      ICASE(kIAbs, LANES({
        const T a = get<T>(ra, l);
        put<T>(rd, l, is_neg(a) ? static_cast<T>(0 - static_cast<std::uint64_t>(a)) : a);
      }))
      ICASE(kIShl, LANES({
        const std::uint64_t s = static_cast<std::uint32_t>(rb[l]);
        put<T>(rd, l, s >= 8 * sizeof(T) ? T{0} : static_cast<T>(static_cast<std::uint64_t>(get<T>(ra, l)) << s));
      }))
      ICASE(kIShr, LANES({
        const std::uint64_t s = static_cast<std::uint32_t>(rb[l]);
        const T a = get<T>(ra, l);
        T r;
        if (s >= 8 * sizeof(T)) {
          r = is_neg(a) ? static_cast<T>(-1) : T{0};
        } else {
          r = static_cast<T>(a >> s);
        }
        put<T>(rd, l, r);
      }))
      ICASE(kIPopc, LANES(rd[l] = static_cast<std::uint64_t>(std::popcount(static_cast<std::make_unsigned_t<T>>(get<T>(ra, l))))))
      ICASE(kIClz, LANES(rd[l] = static_cast<std::uint64_t>(std::countl_zero(static_cast<std::make_unsigned_t<T>>(get<T>(ra, l))))))
      ICASE(kIBrev, LANES({
        using U = std::make_unsigned_t<T>;
        U x = static_cast<U>(get<T>(ra, l)), r = 0;
        for (unsigned i = 0; i < 8 * sizeof(T); ++i) r = static_cast<U>((r << 1) | ((x >> i) & 1u));
        put<T>(rd, l, static_cast<T>(r));
      }))
      ICASE(kIBfe, LANES({
        constexpr unsigned kBits = 8 * sizeof(T);
        const unsigned pos = static_cast<unsigned>(rb[l] & 0xff), len = static_cast<unsigned>(rc[l] & 0xff);
        const std::uint64_t a = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(get<T>(ra, l)));
        std::uint64_t r = 0;
        if (len != 0 && pos < kBits) {
          const unsigned n = std::min(len, kBits - pos);
          r = (a >> pos) & (n >= 64 ? ~0ULL : ((1ULL << n) - 1));
          if (std::is_signed_v<T>) {
            const unsigned sbit = std::min(pos + len - 1, kBits - 1);
            if ((a >> sbit) & 1u) r |= n >= 64 ? 0 : ~((1ULL << n) - 1);
          }
        } else if (std::is_signed_v<T> && len != 0) {
          if ((a >> (kBits - 1)) & 1u) r = ~0ULL;
        }
        put<T>(rd, l, static_cast<T>(r));
      }))
      ICASE(kIBfi, {
        const std::uint64_t* re = R + static_cast<std::size_t>(I.d2) * 32;
        LANES({
          constexpr unsigned kBits = 8 * sizeof(T);
          const unsigned pos = static_cast<unsigned>(rc[l] & 0xff), len = static_cast<unsigned>(re[l] & 0xff);
          std::uint64_t b = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(get<T>(rb, l)));
          const std::uint64_t a = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(get<T>(ra, l)));
          if (len != 0 && pos < kBits) {
            const unsigned n = std::min(len, kBits - pos);
            const std::uint64_t mask = (n >= 64 ? ~0ULL : ((1ULL << n) - 1)) << pos;
            b = (b & ~mask) | ((a << pos) & mask);
          }
          put<T>(rd, l, static_cast<T>(b));
        })
      })
      ICASE(kIMul24Lo, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(sext_bits(static_cast<std::uint64_t>(get<T>(ra, l)), std::is_signed_v<T> ? 24 : 64) & (std::is_signed_v<T> ? ~0LL : 0xffffffLL)) * static_cast<std::uint64_t>(sext_bits(static_cast<std::uint64_t>(get<T>(rb, l)), std::is_signed_v<T> ? 24 : 64) & (std::is_signed_v<T> ? ~0LL : 0xffffffLL))))))
      ICASE(kIMul24Hi, LANES(put<T>(rd, l, static_cast<T>((static_cast<std::uint64_t>(get<T>(ra, l) & 0xffffff) * static_cast<std::uint64_t>(get<T>(rb, l) & 0xffffff)) >> 16))))
      ICASE(kIMad24Lo, LANES(put<T>(rd, l, static_cast<T>(static_cast<std::uint64_t>(sext_bits(static_cast<std::uint64_t>(get<T>(ra, l)), std::is_signed_v<T> ? 24 : 64) & (std::is_signed_v<T> ? ~0LL : 0xffffffLL)) * static_cast<std::uint64_t>(sext_bits(static_cast<std::uint64_t>(get<T>(rb, l)), std::is_signed_v<T> ? 24 : 64) & (std::is_signed_v<T> ? ~0LL : 0xffffffLL)) + static_cast<std::uint64_t>(get<T>(rc, l))))))
      ICASE(kISad, LANES({
        const T a = get<T>(ra, l), b = get<T>(rb, l);
        const std::uint64_t diff = a > b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b) : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
        put<T>(rd, l, static_cast<T>(diff + static_cast<std::uint64_t>(get<T>(rc, l))));
      }))
      ICASE(kISetp, {
        const std::uint32_t table = kCmpTable[I.type2];
        std::uint32_t bits = 0;
        LANES({
          const T a = get<T>(ra, l), b = get<T>(rb, l);
          const unsigned idx = a < b ? 0u : a == b ? 1u : 2u;
          bits |= ((table >> idx) & 1u) << l;
        })
        setp_bits = bits;
        is_setp = true;
      })
      FCASE(kFAdd, LANES(put<T>(rd, l, get<T>(ra, l) + get<T>(rb, l))))
      FCASE(kFSub, LANES(put<T>(rd, l, get<T>(ra, l) - get<T>(rb, l))))
      FCASE(kFMul, LANES(put<T>(rd, l, get<T>(ra, l) * get<T>(rb, l))))
      FCASE(kFFma, LANES(put<T>(rd, l, get<T>(ra, l) * get<T>(rb, l) + get<T>(rc, l))))
      FCASE(kFDiv, LANES(put<T>(rd, l, get<T>(ra, l) / get<T>(rb, l))))
      FCASE(kFRcp, LANES(put<T>(rd, l, T{1} / get<T>(ra, l))))
      FCASE(kFSqrt, LANES(put<T>(rd, l, std::sqrt(get<T>(ra, l)))))
      FCASE(kFRsqrt, LANES(put<T>(rd, l, T{1} / std::sqrt(get<T>(ra, l)))))
      FCASE(kFEx2, LANES(put<T>(rd, l, std::exp2(get<T>(ra, l)))))
      FCASE(kFLg2, LANES(put<T>(rd, l, std::log2(get<T>(ra, l)))))
      FCASE(kFSin, LANES(put<T>(rd, l, std::sin(get<T>(ra, l)))))
      FCASE(kFCos, LANES(put<T>(rd, l, std::cos(get<T>(ra, l)))))
      FCASE(kFTanh, LANES(put<T>(rd, l, std::tanh(get<T>(ra, l)))))
      FCASE(kFMin, LANES(put<T>(rd, l, std::fmin(get<T>(ra, l), get<T>(rb, l)))))
      FCASE(kFMax, LANES(put<T>(rd, l, std::fmax(get<T>(ra, l), get<T>(rb, l)))))
      FCASE(kFAbs, LANES(put<T>(rd, l, std::fabs(get<T>(ra, l)))))
      FCASE(kFNeg, LANES(put<T>(rd, l, -get<T>(ra, l))))
      FCASE(kFCopysign, LANES(put<T>(rd, l, std::copysign(get<T>(rb, l), get<T>(ra, l)))))
      FCASE(kFSetp, {
        const std::uint32_t table = kCmpTable[I.type2];
        std::uint32_t bits = 0;
        LANES({
          const T a = get<T>(ra, l), b = get<T>(rb, l);
          const unsigned idx = (std::isnan(a) || std::isnan(b)) ? 3u : a < b ? 0u : a == b ? 1u : 2u;
          bits |= ((table >> idx) & 1u) << l;
        })
        setp_bits = bits;
        is_setp = true;
      })
      FCASE(kFTestp, {
        std::uint32_t bits = 0;
        LANES({
          const T a = get<T>(ra, l);
          bool r;
          switch (I.type2) {
            case 0: r = std::isfinite(a); break;
            case 1: r = std::isinf(a); break;
            case 2: r = !std::isnan(a); break;
            case 3: r = std::isnan(a); break;
            case 4: r = std::isnormal(a); break;
            default: r = std::fpclassify(a) == FP_SUBNORMAL; break;
          }
          bits |= (r ? 1u : 0u) << l;
        })
        P[I.d] = (P[I.d] & ~m) | (bits & m);
        PT[I.d] = (PT[I.d] & ~m) | (Tn[I.a] & m);
      })
      case kNop:
      case kBarArrive:
        break;
      case kMov:
        LANES(rd[l] = ra[l])
        break;
      case kMovPack: {
        const int n = I.nvec, bits = I.size;
        std::uint32_t t = 0;
        for (int e = 0; e < n; ++e) t |= Tn[p_.vec_slots[I.d2 + static_cast<std::uint32_t>(e)]];
        LANES({
          std::uint64_t v = 0;
          for (int e = 0; e < n; ++e) {
            v |= zext_bits(R[static_cast<std::size_t>(p_.vec_slots[I.d2 + static_cast<std::uint32_t>(e)]) * 32 + static_cast<std::size_t>(l)], bits) << (e * bits);
          }
          rd[l] = v;
        })
        Tn[I.d] = (Tn[I.d] & ~m) | (t & m);
        break;
      }
      case kMovUnpack: {
        const int n = I.nvec, bits = I.size;
        for (int e = 0; e < n; ++e) {
          const std::uint32_t ds = p_.vec_slots[I.d2 + static_cast<std::uint32_t>(e)];
          std::uint64_t* re = R + static_cast<std::size_t>(ds) * 32;
          LANES(re[l] = zext_bits(ra[l] >> (e * bits), bits))
          Tn[ds] = (Tn[ds] & ~m) | (Tn[I.a] & m);
        }
        break;
      }
      case kSelp: {
        const std::uint32_t pc_mask = P[I.c];
        LANES(rd[l] = ((pc_mask >> l) & 1u) ? ra[l] : rb[l])
        Tn[I.d] |= PT[I.c] & m;
        break;
      }
      case kPrmt:
        LANES({
          const std::uint64_t x = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(rb[l])) << 32) | static_cast<std::uint32_t>(ra[l]);
          const std::uint32_t sel = static_cast<std::uint32_t>(rc[l]);
          std::uint32_t r = 0;
          for (int i = 0; i < 4; ++i) {
            const std::uint32_t s = (sel >> (4 * i)) & 0xfu;
            std::uint32_t byte = static_cast<std::uint32_t>((x >> (8 * (s & 7u))) & 0xffu);
            if (s & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
            r |= byte << (8 * i);
          }
          rd[l] = r;
        })
        break;
      case kCvtII: {
        const int sbits = type_bits(I.type2), dbits = type_bits(I.type);
        if (type_signed(I.type2)) {
          LANES(rd[l] = zext_bits(static_cast<std::uint64_t>(sext_bits(ra[l], sbits)), dbits))
        } else {
          LANES(rd[l] = zext_bits(zext_bits(ra[l], sbits), dbits))
        }
        break;
      }
      case kCvtGeneric:
        cvt_generic(I, m, rd, ra);
        break;
      case kCvta: {
        const std::uint64_t add = I.size == 's' ? kSharedWindow : I.size == 'l' ? kLocalWindow : I.size == 'p' ? kParamWindow : 0;
        LANES(rd[l] = ra[l] + add)
        break;
      }
      case kCvtaTo: {
        const std::uint64_t sub = I.size == 's' ? kSharedWindow : I.size == 'l' ? kLocalWindow : I.size == 'p' ? kParamWindow : 0;
        if (I.type == kU32 || I.type == kB32) {
          LANES(rd[l] = static_cast<std::uint32_t>(ra[l] - sub))
        } else {
          LANES(rd[l] = ra[l] - sub)
        }
        break;
      }
      case kPredAnd:
        P[I.d] = (P[I.d] & ~m) | (P[I.a] & P[I.b] & m);
        PT[I.d] = (PT[I.d] & ~m) | ((PT[I.a] | PT[I.b]) & m);
        break;
      case kPredOr:
        P[I.d] = (P[I.d] & ~m) | ((P[I.a] | P[I.b]) & m);
        PT[I.d] = (PT[I.d] & ~m) | ((PT[I.a] | PT[I.b]) & m);
        break;
      case kPredXor:
        P[I.d] = (P[I.d] & ~m) | ((P[I.a] ^ P[I.b]) & m);
        PT[I.d] = (PT[I.d] & ~m) | ((PT[I.a] | PT[I.b]) & m);
        break;
      case kPredNot:
      case kPredCnot:
        P[I.d] = (P[I.d] & ~m) | (~P[I.a] & m);
        PT[I.d] = (PT[I.d] & ~m) | (PT[I.a] & m);
        break;
      case kPredConst:
        P[I.d] = (P[I.d] & ~m) | (I.type2 ? m : 0u);
        PT[I.d] &= ~m;
        break;
      case kPredMov:
        P[I.d] = (P[I.d] & ~m) | (P[I.a] & m);
        PT[I.d] = (PT[I.d] & ~m) | (PT[I.a] & m);
        break;
      case kLdParam: mem(I, m, W, counts, true, 'p'); break;
      case kLdShared: mem(I, m, W, counts, true, 's'); break;
      case kLdLocal: mem(I, m, W, counts, true, 'l'); break;
      case kLdGlobal: mem(I, m, W, counts, true, 'g'); break;
      case kLdGeneric: mem(I, m, W, counts, true, 'x'); break;
      case kStParam: mem(I, m, W, counts, false, 'p'); break;
      case kStShared: mem(I, m, W, counts, false, 's'); break;
      case kStLocal: mem(I, m, W, counts, false, 'l'); break;
      case kStGlobal: mem(I, m, W, counts, false, 'g'); break;
      case kStGeneric: mem(I, m, W, counts, false, 'x'); break;
      case kBra: {
        ++counts.branches;
        // Every loop passes a branch, so the budget is checked here, off the hot path; one
        // comparison covers both the budget and the next progress report.
        if (simulated + executed > next_check_) checkpoint(simulated + executed);
        if (I.guard >= 0 && (PT[I.guard] & active)) data_branch = true;
        if (m == active) {
          pc = I.target;
          continue;
        }
        if (m == 0) {
          ++pc;
          continue;
        }
        ++counts.divergent;
        const std::uint32_t reconv = p_.reconverge[pc];
        const std::uint32_t not_taken = active & ~m;
        stack.back().pc = reconv;
        stack.push_back({pc + 1, reconv, not_taken});
        stack.push_back({I.target, reconv, m});
        if (!reload()) {
          W.done = true;
          simulated += executed;
          return;
        }
        continue;
      }
      case kRet:
        if (m == 0) break;
        W.exited |= m;
        stack.back().pc = pc + 1;
        if (!reload()) {
          W.done = true;
          simulated += executed;
          return;
        }
        continue;
      case kBar:
        stack.back().pc = pc + 1;
        simulated += executed;
        return;
      case kActivemask:
        LANES(rd[l] = active)
        Tn[I.d] &= ~m;
        break;
      case kVoteBallot: {
        const std::uint32_t v = (P[I.a] ^ ((I.flags & kFlagNegC) ? ~0u : 0u)) & m;
        LANES(rd[l] = v)
        Tn[I.d] = (Tn[I.d] & ~m) | (PT[I.a] != 0 ? m : 0);
        break;
      }
      case kVoteAll:
      case kVoteAny:
      case kVoteUni: {
        const std::uint32_t v = (P[I.a] ^ ((I.flags & kFlagNegC) ? ~0u : 0u)) & m;
        bool r = I.kind == kVoteAll ? v == m : I.kind == kVoteAny ? v != 0 : (v == 0 || v == m);
        P[I.d] = (P[I.d] & ~m) | (r ? m : 0);
        PT[I.d] = (PT[I.d] & ~m) | ((PT[I.a] & m) ? m : 0);
        break;
      }
      case kShfl: {
        std::uint64_t src[32];
        for (int l = 0; l < 32; ++l) src[l] = ra[l];
        std::uint32_t pbits = 0;
        const int mode = I.type2;
        LANES({
          const std::uint32_t b = static_cast<std::uint32_t>(rb[l]) & 31u;
          const std::uint32_t c = static_cast<std::uint32_t>(rc[l]);
          const std::uint32_t clamp = c & 31u, seg = (c >> 8) & 31u;
          const std::uint32_t lane = static_cast<std::uint32_t>(l);
          const std::uint32_t max_lane = (lane & seg) | (clamp & ~seg);
          const std::uint32_t min_lane = lane & seg;
          std::int64_t j;
          bool ok;
          switch (mode) {
            case 0: j = static_cast<std::int64_t>(lane) - b; ok = j >= static_cast<std::int64_t>(max_lane); break;
            case 1: j = static_cast<std::int64_t>(lane) + b; ok = j <= static_cast<std::int64_t>(max_lane); break;
            case 2: j = lane ^ b; ok = j <= static_cast<std::int64_t>(max_lane); break;
            default: j = min_lane | (b & ~seg); ok = j <= static_cast<std::int64_t>(max_lane); break;
          }
          if (!ok || j < 0 || j > 31) j = lane;
          rd[l] = static_cast<std::uint32_t>(src[j]);
          if (ok) pbits |= 1u << l;
        })
        Tn[I.d] = (Tn[I.d] & ~m) | (Tn[I.a] != 0 ? m : 0);
        if (I.flags & kFlagHasQ) P[I.d2] = (P[I.d2] & ~m) | (pbits & m);
        break;
      }
      case kCountOnly:
        for (int e = 0; e < I.nvec; ++e) {
          const std::uint32_t ds = p_.vec_slots[I.d2 + static_cast<std::uint32_t>(e)];
          std::uint64_t* re = R + static_cast<std::size_t>(ds) * 32;
          LANES(re[l] = 0)
          Tn[ds] |= m;
        }
        break;
      default:
        break;
    }
    // clang-format on
    if (!is_setp) {
      ++pc;
      continue;
    }
    {
      std::uint32_t bits = setp_bits;
      std::uint32_t t = (Tn[I.a] | Tn[I.b]) & m;
      std::uint32_t p = bits, q = ~bits;
      if (I.flags & (kFlagCombAnd | kFlagCombOr | kFlagCombXor)) {
        const std::uint32_t c = P[I.c] ^ ((I.flags & kFlagNegC) ? ~0u : 0u);
        t |= PT[I.c] & m;
        if (I.flags & kFlagCombAnd) {
          p &= c;
          q &= c;
        } else if (I.flags & kFlagCombOr) {
          p |= c;
          q |= c;
        } else {
          p ^= c;
          q ^= c;
        }
      }
      P[I.d] = (P[I.d] & ~m) | (p & m);
      PT[I.d] = (PT[I.d] & ~m) | t;
      if (I.flags & kFlagHasQ) {
        P[I.d2] = (P[I.d2] & ~m) | (q & m);
        PT[I.d2] = (PT[I.d2] & ~m) | t;
      }
      ++pc;
      continue;
    }
  }
  simulated += executed;
}

// CTAs simulated along one grid dimension: the listed samples, or (all = n) every index
// 0..n-1 without listing them (a full 2^31-CTA dimension would take 16 GB as a list).
struct Stratum {
  std::vector<std::int64_t> samples;
  double weight = 1;  // CTAs represented by each sample
  std::int64_t all = 0;

  template <typename F>
  void for_each(F&& f) const {
    if (all > 0) {
      for (std::int64_t i = 0; i < all; ++i) f(i);
    } else {
      for (const std::int64_t i : samples) f(i);
    }
  }
};

std::vector<Stratum> strata_1d(std::int64_t n, int k, bool full) {
  std::vector<Stratum> out;
  if (full || n <= 2 + k) {
    Stratum s;
    s.all = n;
    out.push_back(s);
    return out;
  }
  out.push_back({{0}, 1});
  Stratum mid;
  const std::int64_t interior = n - 2;
  // Golden-ratio (Weyl) positions: spread like stratified samples but without the periodic
  // alignment that evenly spaced samples hit when CTAs-per-channel divides the spacing.
  for (int i = 0; i < k; ++i) {
    double u = 0.5 + 0.6180339887498949 * i;
    u -= std::floor(u);
    const std::int64_t pos =
        1 + std::min(interior - 1, static_cast<std::int64_t>(u * static_cast<double>(interior)));
    if (std::find(mid.samples.begin(), mid.samples.end(), pos) == mid.samples.end()) {
      mid.samples.push_back(pos);
    }
  }
  mid.weight = static_cast<double>(interior) / static_cast<double>(mid.samples.size());
  out.push_back(mid);
  out.push_back({{n - 1}, 1});
  return out;
}

std::vector<std::uint8_t> build_params(const Program& p, const LaunchSpec& spec) {
  std::vector<std::uint8_t> buf(static_cast<std::size_t>(std::max<std::int64_t>(p.param_bytes, 8)),
                                0);
  const int n = static_cast<int>(p.params.size());
  for (const auto& [index, value] : spec.params) {
    if (index < 0 || index >= n) {
      throw InputError("kernel '" + p.kernel + "' takes " + std::to_string(n) +
                       " parameters (indices 0.." + std::to_string(n - 1) + "); parameter index " +
                       std::to_string(index) + " does not exist");
    }
  }
  std::string missing;
  for (int i = 0; i < n; ++i) {
    const auto& prm = p.params[static_cast<std::size_t>(i)];
    std::uint64_t v;
    auto it = spec.params.find(i);
    if (it != spec.params.end()) {
      v = it->second;
    } else if (prm.pointer_like) {
      v = fake_pointer(i);
    } else {
      missing += (missing.empty() ? "" : ", ") + std::to_string(i) + " (" + prm.name + ")";
      continue;
    }
    if (prm.size > 0 && prm.size < 8) {
      // The low bytes alone are copied: a value that needs more (a double for a .f32, a count
      // past 2^32 for a .u32) would silently run another launch. Sign-extended negatives fit.
      const int bits = static_cast<int>(prm.size) * 8;
      const std::uint64_t high = v >> bits;
      const bool sign_extended = high == (~std::uint64_t{0} >> bits) && ((v >> (bits - 1)) & 1U);
      if (high != 0 && !sign_extended) {
        std::ostringstream hex;
        hex << std::hex << v;
        throw ParameterError("params", "index " + std::to_string(i) + ": 0x" + hex.str() +
                                           " does not fit parameter " + std::to_string(i) + " (" +
                                           prm.name + "), " + std::to_string(prm.size) +
                                           " bytes (a float parameter takes 2.5f, not 2.5)");
      }
    }
    std::memcpy(&buf[static_cast<std::size_t>(prm.offset)], &v,
                static_cast<std::size_t>(std::min<std::int64_t>(prm.size, 8)));
  }
  if (!missing.empty()) {
    throw ParameterError("params", "kernel '" + p.kernel + "' takes " + std::to_string(n) +
                                       " parameters; missing values for: " + missing);
  }
  return buf;
}

void validate(const Program& p, const LaunchSpec& spec) {
  // CUDA's limits: a grid up to 2^31-1 x 65535 x 65535, a block up to 1024 x 1024 x 64.
  auto check = [&](const Dim3& d, const char* what, std::int64_t max_x, std::int64_t max_y,
                   std::int64_t max_z) {
    if (d.x < 1 || d.y < 1 || d.z < 1 || d.x > max_x || d.y > max_y || d.z > max_z) {
      throw ParameterError(what, "dimensions must be in 1.." + std::to_string(max_x) + " x 1.." +
                                     std::to_string(max_y) + " x 1.." + std::to_string(max_z) +
                                     " (CUDA's limits), got " + std::to_string(d.x) + "," +
                                     std::to_string(d.y) + "," + std::to_string(d.z));
    }
  };
  check(spec.grid, "grid", kMaxGridX, kMaxGridYZ, kMaxGridYZ);
  check(spec.block, "block", 1024, 1024, 64);
  if (spec.block.count() > 1024) {
    throw ParameterError("block",
                         "at most 1024 threads per CTA, got " + std::to_string(spec.block.count()));
  }
  // .maxntid x[, y[, z]]: x is set whenever the directive is.
  const std::int64_t max_threads =
      std::int64_t{p.maxntid[0]} * std::max(1, p.maxntid[1]) * std::max(1, p.maxntid[2]);
  if (p.maxntid[0] > 0 && max_threads < spec.block.count()) {
    throw ParameterError(
        "block", "kernel '" + p.kernel + "' allows at most " + std::to_string(max_threads) +
                     " threads per CTA (.maxntid), got " + std::to_string(spec.block.count()));
  }
  if (spec.dynamic_shared_bytes < 0 || spec.dynamic_shared_bytes > (1 << 20)) {
    throw InputError("dynamic shared memory must be in 0..1048576 bytes");
  }
  if (spec.full) {
    // Every warp of every CTA executes at least one instruction: refuse what cannot finish.
    const std::int64_t warps_per_cta = (spec.block.count() + 31) / 32;
    const double least = static_cast<double>(spec.grid.x) * static_cast<double>(spec.grid.y) *
                         static_cast<double>(spec.grid.z) * static_cast<double>(warps_per_cta);
    if (least > static_cast<double>(spec.max_warp_insts)) {
      throw WarpBudgetExceeded(p.kernel, spec.max_warp_insts, spec.grid.count());
    }
  }
}

LaunchCounts run_sampled(const Program& p, const LaunchSpec& spec) {
  validate(p, spec);
  Executor ex(p, spec, build_params(p, spec));
  const std::size_t n = p.code.size();
  LaunchCounts out;
  out.warp.assign(n, 0);
  out.thread.assign(n, 0);
  const int k = std::max(1, spec.samples_per_class);
  // A 1-D grid has one interior stratum only; sample it more densely (its CTAs cover
  // different image rows, so boundary effects vary more than across a 2-D tile grid).
  const bool one_d = spec.grid.y == 1 && spec.grid.z == 1;
  const int k1 = static_cast<int>(std::max<std::int64_t>(std::int64_t{6} * k, spec.grid.x / 6));
  const auto sx = strata_1d(spec.grid.x, one_d ? k1 : k, spec.full);
  const auto sy = strata_1d(spec.grid.y, k, spec.full);
  const auto sz = strata_1d(spec.grid.z, k, spec.full);
  CtaCounts c;
  c.reset(n);
  for (const auto& a : sz) {
    for (const auto& b : sy) {
      for (const auto& d : sx) {
        const double w = a.weight * b.weight * d.weight;
        a.for_each([&](std::int64_t z) {
          b.for_each([&](std::int64_t y) {
            d.for_each([&](std::int64_t x) {
              c.reset(n);
              ex.run_cta(x, y, z, c);
              ++out.ctas_simulated;
              for (std::size_t i = 0; i < n; ++i) {
                if (c.warp[i] == 0) continue;
                out.warp[i] += w * static_cast<double>(c.warp[i]);
                out.thread[i] += w * static_cast<double>(c.thread[i]);
              }
              out.branches += w * static_cast<double>(c.branches);
              out.divergent_branches += w * static_cast<double>(c.divergent);
              for (int s = 0; s < 3; ++s) {
                for (int t = 0; t < 2; ++t) out.generic_bytes[s][t] += w * c.generic_bytes[s][t];
              }
            });
          });
        });
      }
    }
  }
  out.warp_insts_simulated = ex.simulated;
  out.data_dependent_branch = ex.data_branch;
  out.data_dependent_address = ex.data_address;
  out.shared_out_of_bounds = ex.shared_oob;
  return out;
}

}  // namespace

WarpBudgetExceeded::WarpBudgetExceeded(std::string kernel, std::uint64_t budget,
                                       std::int64_t ctas_refused)
    : InputError(ctas_refused > 0
                     ? std::to_string(ctas_refused) +
                           " CTAs need more than the max_warp_insts budget of " +
                           std::to_string(budget) +
                           " warp instructions; expected fewer CTAs, or sampling (full off)"
                     : "kernel '" + kernel + "' executed more than " + std::to_string(budget) +
                           " warp instructions (max_warp_insts) without finishing; expected a "
                           "launch that ends: check the loop-bound parameters, sample instead of "
                           "running every CTA, or raise the budget"),
      kernel_(std::move(kernel)),
      budget_(budget),
      ctas_refused_(ctas_refused) {}

LaunchCounts run_launch(const Program& program, const LaunchSpec& spec) {
  if (spec.full || !spec.extrapolate_param) return run_sampled(program, spec);
  const int idx = *spec.extrapolate_param;
  auto it = spec.params.find(idx);
  if (it == spec.params.end()) {
    throw ParameterError("params",
                         "the extrapolated parameter " + std::to_string(idx) + " has no value");
  }
  const auto real = static_cast<double>(static_cast<std::int64_t>(it->second));
  const auto lo = static_cast<double>(spec.extrapolate_lo),
             hi = static_cast<double>(spec.extrapolate_hi);
  if (!(lo < hi) || real <= hi) return run_sampled(program, spec);
  LaunchSpec a = spec, b = spec;
  a.params[idx] = spec.extrapolate_lo;
  b.params[idx] = spec.extrapolate_hi;
  LaunchCounts ca = run_sampled(program, a);
  LaunchCounts cb = run_sampled(program, b);
  const double t = (real - lo) / (hi - lo);
  auto lerp = [&](double x, double y) { return std::max(0.0, x + (y - x) * t); };
  LaunchCounts out = ca;
  for (std::size_t i = 0; i < out.warp.size(); ++i) {
    out.warp[i] = lerp(ca.warp[i], cb.warp[i]);
    out.thread[i] = lerp(ca.thread[i], cb.thread[i]);
  }
  out.branches = lerp(ca.branches, cb.branches);
  out.divergent_branches = lerp(ca.divergent_branches, cb.divergent_branches);
  for (int s = 0; s < 3; ++s) {
    for (int u = 0; u < 2; ++u) {
      out.generic_bytes[s][u] = lerp(ca.generic_bytes[s][u], cb.generic_bytes[s][u]);
    }
  }
  out.ctas_simulated = ca.ctas_simulated + cb.ctas_simulated;
  out.warp_insts_simulated = ca.warp_insts_simulated + cb.warp_insts_simulated;
  out.data_dependent_branch = ca.data_dependent_branch || cb.data_dependent_branch;
  out.data_dependent_address = ca.data_dependent_address || cb.data_dependent_address;
  out.shared_out_of_bounds = ca.shared_out_of_bounds || cb.shared_out_of_bounds;
  out.extrapolated = true;
  return out;
}

}  // namespace cnnperf::ptx

namespace cnnperf::ptx::detail {

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int e = static_cast<int>((x >> 23) & 0xff);
  std::uint32_t mant = x & 0x7fffffu;
  if (e == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  const int exp = e - 127 + 15;
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - exp;
    std::uint32_t h = mant >> shift;
    if ((mant >> (shift - 1)) & 1u) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  if (mant & 0x1000u) ++h;
  return static_cast<std::uint16_t>(h);
}

}  // namespace cnnperf::ptx::detail
