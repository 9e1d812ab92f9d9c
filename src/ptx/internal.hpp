// SPDX-License-Identifier: Apache-2.0
// Shared between the decoder (program.cpp) and the executor (exec.cpp): instruction kinds,
// operand types, address windows.
#pragma once

#include <cstdint>

namespace cnnperf::ptx::detail {

// Enum and type tables read as tables (not reformatted):
// clang-format off
/// Operand types. Integer types used by arithmetic have an index 0..5 (ity()).
enum Type : std::uint8_t {
  kTNone, kS16, kU16, kS32, kU32, kS64, kU64, kS8, kU8, kB8, kB16, kB32, kB64, kB128,
  kF16, kF16x2, kBF16, kBF16x2, kF32, kF64, kPred, kTF32
};
[[nodiscard]] inline int type_bits(int t) {
  switch (t) {
    case kS8: case kU8: case kB8: return 8;
    case kS16: case kU16: case kB16: case kF16: case kBF16: return 16;
    case kS32: case kU32: case kB32: case kF32: case kF16x2: case kBF16x2: case kTF32: return 32;
    case kS64: case kU64: case kB64: case kF64: return 64;
    case kB128: return 128;
    case kPred: return 1;
    default: return 0;
  }
}
[[nodiscard]] inline bool type_signed(int t) { return t == kS8 || t == kS16 || t == kS32 || t == kS64; }
[[nodiscard]] inline bool type_float(int t) {
  return t == kF16 || t == kF16x2 || t == kBF16 || t == kBF16x2 || t == kF32 || t == kF64 || t == kTF32;
}
// clang-format on
/// Integer arithmetic type index 0..5: s16 u16 s32 u32 s64 u64 (b types count as unsigned).
[[nodiscard]] inline int int_index(int t) {
  const int bits = type_bits(t);
  const bool s = type_signed(t);
  if (bits == 16) return s ? 0 : 1;
  if (bits == 32) return s ? 2 : 3;
  if (bits == 64) return s ? 4 : 5;
  return -1;
}

// The kind, comparison and flag enums read as tables (not reformatted):
// clang-format off
/// Instruction kinds. Integer ops are kind*8 + int_index, float ops kind*8 + (f64 ? 1 : 0).
enum Kind : std::uint16_t {
  // integer families (x8)
  kIAdd = 1, kISub, kIMulLo, kIMulHi, kIMulWide, kIMadLo, kIMadHi, kIMadWide, kIDiv, kIRem,
  kIMin, kIMax, kIAnd, kIOr, kIXor, kIShl, kIShr, kINot, kINeg, kIAbs, kICnot, kIPopc, kIClz,
  kIBrev, kIBfe, kIBfi, kIMul24Lo, kIMad24Lo, kISetp, kISad, kIMul24Hi,
  // float families (x8)
  kFAdd = 40, kFSub, kFMul, kFFma, kFDiv, kFRcp, kFSqrt, kFRsqrt, kFEx2, kFLg2, kFSin, kFCos,
  kFTanh, kFMin, kFMax, kFAbs, kFNeg, kFCopysign, kFSetp, kFTestp, kFSat,
  kFamilyEnd = 64,
  // plain kinds (not multiplied)
  kNop = kFamilyEnd * 8, kMov, kMovPack, kMovUnpack, kSelp, kCvtII, kCvtGeneric, kCvta,
  kCvtaTo, kPredAnd, kPredOr, kPredXor, kPredNot, kPredMov, kPredCnot, kPrmt,
  kLdParam, kLdShared, kLdLocal, kLdGlobal, kLdGeneric, kStParam, kStShared, kStLocal,
  kStGlobal, kStGeneric, kBra, kRet, kExit, kBar, kBarArrive, kVoteBallot, kVoteAll,
  kVoteAny, kVoteUni, kActivemask, kShfl, kCountOnly, kSetpPred, kCall, kPredConst, kKindEnd
};

/// setp comparison codes.
enum Cmp : std::uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan };

/// Inst::flags bits.
enum Flag : std::uint8_t {
  kFlagTaint = 1,      ///< propagate taint from a,b,c to d
  kFlagSignExt = 2,    ///< ld: sign-extend
  kFlagSat = 4,
  kFlagCombAnd = 8, kFlagCombOr = 16, kFlagCombXor = 32,  ///< setp combiner with predicate c
  kFlagHasQ = 64,      ///< setp second destination / shfl predicate destination
  kFlagNegC = 128,     ///< setp combiner predicate negated
};

// clang-format on
/// Generic-address windows (the top bits of a 64-bit generic address name the space).
constexpr std::uint64_t kModuleWindow = 0x0000200000000000ULL;
constexpr std::uint64_t kParamWindow = 0x0000400000000000ULL;
constexpr std::uint64_t kSharedWindow = 0x0000500000000000ULL;
constexpr std::uint64_t kLocalWindow = 0x0000600000000000ULL;
constexpr std::uint64_t kPointerBase = 0x0000700000000000ULL;
constexpr int kWindowShift = 44;

// Packed like the PTX manual lists them (not reformatted):
// clang-format off
/// Special registers filled per warp.
enum Special : int {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY,
  kNctaidZ, kLaneid, kWarpid, kNwarpid, kSmid, kNsmid, kGridid, kClock, kClock64, kLanemaskEq,
  kLanemaskLt, kLanemaskLe, kLanemaskGt, kLanemaskGe, kDynSmem, kTotalSmem, kGlobaltimer,
  kSpecialCount
};
// clang-format on

/// IEEE binary16 bits of `f`, round to nearest even (shared by the decoder and executor).
std::uint16_t float_to_half(float f);

}  // namespace cnnperf::ptx::detail
