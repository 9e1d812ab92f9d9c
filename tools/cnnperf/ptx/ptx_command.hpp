// SPDX-License-Identifier: Apache-2.0
// `cnnperf ptx analyze|layer`: options, their text forms (--grid, --param, --spec ...) and the
// library calls behind the subcommands.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cnnperf/model/layer.hpp"
#include "cnnperf/ptx/ptx.hpp"

namespace cnnperf {

/// Options of `cnnperf ptx analyze`.
struct PtxAnalyzeOptions {
  std::string file;
  std::string kernel;
  std::string grid = "1,1,1";
  std::string block = "1,1,1";
  std::vector<std::string>
      params;  ///< "INDEX=VALUE" (integer, 0x hex, float with '.' or 'f' suffix)
  bool full = false;
  std::uint64_t max_warp_insts = ptx::LaunchSpec::kDefaultMaxWarpInsts;  ///< emulation budget
  int samples = 3;          ///< interior CTAs sampled per grid dimension
  std::string extrapolate;  ///< "INDEX=LO,HI": trip-count extrapolation
  std::string arch;         ///< ptxas arch; default: the module's .target
  std::string format = "table";
  std::string output;
};

/// Options of `cnnperf ptx layer`.
struct PtxLayerCommandOptions {
  std::string spec;  ///< e.g. "conv2d:batch=1,c_in=64,h_in=56,w_in=56,c_out=64,kernel_h=3,..."
  std::string layers_csv;  ///< canonical layer CSV (one result per row)
  PtxLayerOptions layer;   ///< how each layer runs
  std::string format = "table";
  std::string output;
};

/// Progress of a long emulation, one line to `out` at most every `interval`: a launch whose
/// loop never ends runs to --max-warp-insts (minutes at the default) and would look hung.
class EmulationProgress {
 public:
  explicit EmulationProgress(
      std::ostream& out, std::chrono::steady_clock::duration interval = std::chrono::seconds(2));
  /// A ptx::LaunchSpec::progress callback reporting here (this must outlive it).
  [[nodiscard]] std::function<void(std::uint64_t, std::uint64_t)> callback();
  /// Reports (executed so far in the current launch, the budget) when `interval` has passed.
  void report(std::uint64_t executed, std::uint64_t max_warp_insts);
  /// Seconds since construction.
  [[nodiscard]] double seconds() const;

 private:
  std::ostream& out_;
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  std::uint64_t last_executed_ = 0;  ///< last count seen: a smaller one starts a new launch
  std::uint64_t earlier_ = 0;        ///< instructions of the launches before (for the rate)
};

/// Runs `ptx analyze`; returns the exit code. Throws InputError on bad input.
int run_ptx_analyze(const PtxAnalyzeOptions& options);
/// Runs `ptx layer`; returns the exit code.
int run_ptx_layer(const PtxLayerCommandOptions& options);

/// The launch `ptx analyze` runs: --grid, --block, --param, --extrapolate parsed.
[[nodiscard]] ptx::LaunchSpec launch_spec_for_options(const PtxAnalyzeOptions& options);
/// Parses "conv2d:batch=1,c_in=64,..." (canonical CSV column names). Throws InputError.
[[nodiscard]] Layer parse_layer_spec(const std::string& spec);
/// Parses "X,Y,Z" (Y and Z optional). Throws InputError naming `what`.
[[nodiscard]] ptx::Dim3 parse_dim3(const std::string& text, const std::string& what);

}  // namespace cnnperf
