// SPDX-License-Identifier: Apache-2.0
// PTX front end and warp-level emulator (the engine behind `cnnperf ptx`).
// Pipeline: parse_module (text -> AST) -> Program::build (one entry -> compact decoded
// instructions, CFG, immediate post-dominators) -> run_launch (CTAs of warps with an IPDOM
// SIMT stack, real param/shared/local memory, virtual global memory with taint bits).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cnnperf/common/error.hpp"

namespace cnnperf::ptx {

// ---------------------------------------------------------------------------------------------
// AST
/// A position in the PTX source (1-based).
struct SrcLoc {
  int line = 0;
  int column = 0;
};

struct AstOperand {
  enum class Kind {
    kRegister,
    kInteger,
    kFloat32Bits,
    kFloat64Bits,
    kFloatDecimal,
    kSymbol,
    kAddress,
    kVector,
    kSink
  };
  Kind kind = Kind::kRegister;
  std::string name;                  ///< register / symbol / label; address base (may be empty)
  std::int64_t value = 0;            ///< integer literal, float bits, or address offset
  double decimal = 0.0;              ///< decimal float literal
  bool negated = false;              ///< `!%p`
  std::vector<AstOperand> elements;  ///< vector `{a, b}` or call list `(a, b)`
  SrcLoc loc;
};

struct AstInstruction {
  SrcLoc loc;
  std::string guard;  ///< predicate register name, empty when unguarded
  bool guard_negated = false;
  std::string opcode;  ///< as written, e.g. "ld.global.nc.v4.f32"
  std::vector<AstOperand> operands;
};

/// A variable in a state space (.shared/.local/.global/.const/.param).
struct AstVariable {
  std::string space;  ///< "shared", "local", "global", "const", "param"
  std::string name;
  std::int64_t size_bytes = 0;  ///< 0 for `.extern .shared` arrays of unknown size
  int align = 1;
  bool is_extern = false;
  std::vector<std::uint8_t> init;  ///< initialiser bytes (empty = zero)
  SrcLoc loc;
};

struct AstFunction {
  std::string name;
  bool is_entry = false;
  std::vector<AstVariable> params;  ///< kernel / function parameters in order
  std::vector<AstVariable> return_params;
  std::vector<AstVariable> variables;  ///< .shared/.local/.param declared in the body
  std::vector<AstInstruction> instructions;
  std::unordered_map<std::string, std::size_t> labels;  ///< label -> instruction index
  /// Declared registers: a `.reg` name -> its count for `%r<N>`, or 0 for a single `%x`.
  std::unordered_map<std::string, std::int64_t> registers;
  std::array<int, 3> maxntid{0, 0, 0};
  std::array<int, 3> reqntid{0, 0, 0};
  bool has_body = false;
  SrcLoc loc;
};

struct AstModule {
  std::string source;   ///< file name, for messages
  std::string version;  ///< ".version" value
  std::string target;   ///< ".target" value
  int address_size = 64;
  std::vector<AstVariable> globals;
  std::vector<AstFunction> functions;
  [[nodiscard]] const AstFunction* find(const std::string& name) const;
  /// Names of the `.entry` functions, in file order.
  [[nodiscard]] std::vector<std::string> entries() const;
};

/// Parses a whole PTX module. Throws InputError "file:line:column: ..." on malformed,
/// truncated or unsupported input.
[[nodiscard]] AstModule parse_module(const std::string& text, const std::string& source);

// ---------------------------------------------------------------------------------------------
// Decoded program
/// Instruction classes reported in `classes`.
// Packed enum (not reformatted):
// clang-format off
enum class InstClass : std::uint8_t {
  kFp32, kFp64, kFp16, kInt, kLdGlobal, kStGlobal, kLdShared, kStShared, kLdLocal, kStLocal,
  kLdParam, kLdConst, kMemOther, kAtomic, kControl, kSync, kConversion, kMove, kPredicate,
  kOther, kCount
};
// clang-format on
[[nodiscard]] const char* to_string(InstClass c);

/// One decoded instruction. Every source operand is a register-file slot (immediates and
/// symbol addresses are constant slots), so the hot loop does no string work.
struct Inst {
  std::uint16_t kind = 0;
  std::uint8_t type = 0;   ///< operand type (cvt: destination)
  std::uint8_t type2 = 0;  ///< cvt source type / setp comparison
  std::uint8_t flags = 0;
  std::uint8_t nvec = 1;                     ///< ld/st/mov vector length
  std::uint8_t size = 0;                     ///< ld/st element bytes
  std::uint8_t cls = 0;                      ///< InstClass
  std::int32_t guard = -1;                   ///< predicate index, -1 when unguarded
  std::uint32_t guard_neg = 0;               ///< 0 or ~0u
  std::uint32_t d = 0, a = 0, b = 0, c = 0;  ///< slots (setp: d/a2 are predicate indices)
  std::uint32_t d2 = 0;                      ///< second destination (setp q, vector table offset)
  std::uint32_t target = 0;                  ///< branch target pc / reconvergence pc
  std::int64_t offset = 0;                   ///< address offset
  std::uint32_t name = 0;                    ///< index into Program::opcode_names
};

/// A kernel entry decoded for execution.
struct Program {
  std::string source;
  std::string kernel;
  std::vector<Inst> code;
  std::vector<std::uint32_t> reconverge;  ///< per pc: IPDOM pc of a branch (or kEnd)
  std::vector<std::uint32_t> vec_slots;   ///< vector operand slots
  std::vector<std::string> opcode_names;  ///< distinct opcodes as written
  std::vector<SrcLoc> locs;               ///< per pc
  std::uint32_t num_slots = 0;
  std::uint32_t num_preds = 0;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> constants;  ///< slot -> value
  std::vector<std::pair<std::uint32_t, int>> specials;             ///< slot -> SpecialReg
  struct Param {
    std::string name;
    std::int64_t offset = 0;
    std::int64_t size = 0;
    bool pointer_like = false;  ///< .u64/.b64/.s64 (gets a fake pointer when not given)
  };
  std::vector<Param> params;
  std::int64_t param_bytes = 0;
  std::int64_t shared_bytes = 0;  ///< static shared memory
  bool has_dynamic_shared = false;
  std::int64_t local_bytes = 0;           ///< per thread
  std::vector<std::uint8_t> module_data;  ///< .global/.const module variables (real)
  std::array<int, 3> maxntid{0, 0, 0};

  static constexpr std::uint32_t kEnd = 0xffffffffu;
  /// Decodes `kernel` of `module`. Throws InputError for an unknown kernel (listing the
  /// entries found) or an unsupported instruction (file:line:column).
  static std::shared_ptr<const Program> build(const AstModule& module, const std::string& kernel);
};

// ---------------------------------------------------------------------------------------------
// Launch and results
/// CUDA's launch limits: grid x up to 2^31-1, grid y and z up to 65535.
inline constexpr std::int64_t kMaxGridX = 2147483647;
inline constexpr std::int64_t kMaxGridYZ = 65535;

struct Dim3 {
  std::int64_t x = 1, y = 1, z = 1;
  [[nodiscard]] std::int64_t count() const { return x * y * z; }
};

struct LaunchSpec {
  Dim3 grid;
  Dim3 block;
  /// Parameter values by index (integers as written, floats via bits); pointer-like params
  /// not given here get distinct fake non-null addresses.
  std::map<int, std::uint64_t> params;
  std::int64_t dynamic_shared_bytes = 0;
  bool full = false;          ///< simulate every CTA (no sampling/extrapolation)
  int samples_per_class = 3;  ///< interior CTAs sampled per stratum (x6 for 1-D grids)
  /// Trip-count extrapolation: parameter index whose value only sets a loop length, and two
  /// small values to simulate; counts are extrapolated linearly to the real value.
  std::optional<int> extrapolate_param;
  std::uint64_t extrapolate_lo = 0, extrapolate_hi = 0;
  /// Warp instructions one run may execute before it stops with an InputError: a loop whose
  /// trip count comes from a parameter can otherwise run for hours (or never end).
  std::uint64_t max_warp_insts = kDefaultMaxWarpInsts;
  static constexpr std::uint64_t kDefaultMaxWarpInsts = 10'000'000'000;  // ~3 min at 60 M/s
  /// Called on the emulating thread with (warp instructions executed so far in this run,
  /// max_warp_insts) each time about another progress_warp_insts have run, so that a caller
  /// can show that a long launch is alive (the library prints nothing). Empty: never called.
  std::function<void(std::uint64_t executed, std::uint64_t max_warp_insts)> progress;
  std::uint64_t progress_warp_insts = kDefaultProgressWarpInsts;
  static constexpr std::uint64_t kDefaultProgressWarpInsts = std::uint64_t{1} << 26;  // ~1 s
};

/// Executed counts of one launch, scaled to the whole grid.
struct LaunchCounts {
  std::vector<double> warp;    ///< per pc, warp-level executions
  std::vector<double> thread;  ///< per pc, thread-level (lanes executing)
  double branches = 0;         ///< warp-level branch executions
  double divergent_branches = 0;
  double generic_bytes[3][2] = {
      {0, 0}, {0, 0}, {0, 0}};  ///< generic ld/st resolved [global,shared,local][ld,st]
  std::uint64_t ctas_simulated = 0;
  std::uint64_t warp_insts_simulated = 0;
  bool data_dependent_branch = false;
  bool data_dependent_address = false;
  bool shared_out_of_bounds = false;
  bool extrapolated = false;
};

/// LaunchSpec::max_warp_insts is too small for the launch: a loop ran past it (ctas_refused()
/// 0), or `full` asks for more CTAs than the budget could run (refused before any runs). Its
/// own type so that a caller can word it by the options that set the budget.
class WarpBudgetExceeded : public InputError {
 public:
  WarpBudgetExceeded(std::string kernel, std::uint64_t budget, std::int64_t ctas_refused);
  [[nodiscard]] const std::string& kernel() const noexcept { return kernel_; }
  [[nodiscard]] std::uint64_t budget() const noexcept { return budget_; }
  [[nodiscard]] std::int64_t ctas_refused() const noexcept { return ctas_refused_; }

 private:
  std::string kernel_;
  std::uint64_t budget_ = 0;
  std::int64_t ctas_refused_ = 0;
};

/// Runs the launch (sampled unless spec.full). Throws ParameterError naming the LaunchSpec
/// member for a bad configuration (grid, block, params), WarpBudgetExceeded past the budget.
[[nodiscard]] LaunchCounts run_launch(const Program& program, const LaunchSpec& spec);

/// Fake base address given to pointer parameter `index` when not set explicitly.
[[nodiscard]] std::uint64_t fake_pointer(int index);

}  // namespace cnnperf::ptx
