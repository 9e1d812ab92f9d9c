// SPDX-License-Identifier: Apache-2.0
// Executed PTX instruction mixes by dynamic analysis on the CPU (behind `cnnperf ptx`).
// analyze_ptx_file runs one kernel of a PTX file for a launch; analyze_layer runs the bundled
// reference kernel (models/ptx/) that implements a layer; ptx_layer_features() gives the ML
// code normalised PTX-mix features per layer (cached by layer shape).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cnnperf/model/layer.hpp"
#include "cnnperf/ptx/ptx_emu.hpp"

namespace cnnperf {

/// `ptxas -v` resource usage of one kernel.
struct PtxResources {
  std::string arch;   ///< e.g. "sm_80"
  int registers = 0;  ///< per thread
  int spill_stores_bytes = 0;
  int spill_loads_bytes = 0;
  int stack_frame_bytes = 0;
  int shared_bytes = 0;  ///< static shared memory per CTA
  int barriers = 0;
  std::string source;  ///< "ptxas <version>" or the resources file it was read from
};

/// Executed instruction mix of one kernel launch (counts scaled to the whole grid).
struct PtxLaunchResult {
  std::string file;
  std::string kernel;
  std::string layer;  ///< layer description (analyze_layer), empty for analyze_ptx_file
  ptx::Dim3 grid, block;
  bool sampled = false;       ///< fewer CTAs simulated than launched
  bool extrapolated = false;  ///< trip-count extrapolation used
  std::uint64_t ctas_total = 0;
  std::uint64_t ctas_simulated = 0;
  std::uint64_t warp_insts_simulated = 0;
  std::map<std::string, double> opcodes_thread;  ///< opcode as written -> lane executions
  std::map<std::string, double> opcodes_warp;    ///< opcode as written -> warp executions
  std::map<std::string, double> classes_thread;  ///< class name -> lane executions
  std::map<std::string, double> classes_warp;
  double warp_insts = 0, thread_insts = 0;
  double branches = 0, divergent_branches = 0;
  double global_ld_bytes = 0, global_st_bytes = 0, shared_ld_bytes = 0, shared_st_bytes = 0,
         local_ld_bytes = 0, local_st_bytes = 0;
  double branch_efficiency = 1;       ///< 1 - divergent/branches
  double active_lane_efficiency = 1;  ///< thread_insts / (32 * warp_insts)
  std::optional<PtxResources> resources;
  std::vector<std::string> warnings;
  double analysis_seconds = 0;  ///< wall time of the emulation that produced this result
  bool from_cache = false;      ///< true when an earlier identical launch's result was reused
  int launches = 1;             ///< identical launches this result stands for (grouped conv)
};

/// Which reference kernel runs a groups == 1 convolution.
enum class PtxConvKernel { kAuto, kImplicitGemm, kDirect };
/// The names of PtxConvKernel as users spell them.
inline constexpr std::array<std::pair<const char*, PtxConvKernel>, 3> kPtxConvKernelNames{{
    {"auto", PtxConvKernel::kAuto},
    {"igemm", PtxConvKernel::kImplicitGemm},
    {"direct", PtxConvKernel::kDirect},
}};
[[nodiscard]] const char* to_string(PtxConvKernel kernel);

/// How analyze_layer runs a layer's reference kernels.
struct PtxLayerOptions {
  std::string arch = "sm_80";                        ///< which committed PTX to use: sm_80 or sm_90
  PtxConvKernel conv_kernel = PtxConvKernel::kAuto;  ///< a depthwise layer ignores it
  bool full = false;                                 ///< simulate every CTA
  std::uint64_t max_warp_insts = ptx::LaunchSpec::kDefaultMaxWarpInsts;  ///< per launch
  /// Passed to every launch (ptx::LaunchSpec::progress).
  std::function<void(std::uint64_t executed, std::uint64_t max_warp_insts)> progress;
};

/// Analyses one launch of `kernel` in `file` (results cached by file, kernel and launch).
/// `arch`: ptxas architecture for the resources; empty: the module's .target. Throws
/// ParameterError naming `arch` or a LaunchSpec member, ptx::WarpBudgetExceeded.
[[nodiscard]] PtxLaunchResult analyze_ptx_file(const std::string& file, const std::string& kernel,
                                               const ptx::LaunchSpec& spec,
                                               const std::string& arch = "");
/// Analyses the reference kernel(s) implementing `layer` (a grouped conv: one launch per group).
[[nodiscard]] std::vector<PtxLaunchResult> analyze_layer(const Layer& layer,
                                                         const PtxLayerOptions& options = {});
/// Whether `layer` runs the depthwise reference kernel (whatever the conv_kernel option).
[[nodiscard]] bool ptx_depthwise_layer(const Layer& layer);

/// Normalised PTX-mix features of a layer for the regressors (names start with "ptx_"):
///   ptx_available          1 when a reference kernel exists for the op, else 0 (others absent)
///   ptx_warp_insts_per_out warp-level instructions per output element
///   ptx_thread_insts_per_out thread-level instructions per output element
///   ptx_share_<class>      share of warp-level instructions in fp32, int, ld_global, st_global,
///                          ld_shared, st_shared, control, sync, conversion, move, predicate
///   ptx_fma_per_mac        fp32 FMAs executed per MAC (1 = no waste; > 1 tile padding)
///   ptx_global_bytes_per_out, ptx_shared_bytes_per_out  bytes per output element
///   ptx_global_bytes_ratio global bytes / compulsory bytes of the layer (re-reads)
///   ptx_branch_efficiency, ptx_active_lane_efficiency  in [0, 1]
///   ptx_ctas, ptx_threads_per_cta, ptx_registers, ptx_shared_bytes_per_cta (ptxas)
/// Cached by layer shape; thread-safe.
[[nodiscard]] std::map<std::string, double> ptx_layer_features(const Layer& layer);

/// Drops every cached module, launch result and feature map (benchmarks use it to time cold runs).
void ptx_clear_caches();

/// The "kind" and schema version of ptx_results_json.
inline constexpr const char* kPtxResultsKind = "ptx_analysis";
inline constexpr int kPtxResultsSchemaVersion = 1;

/// `cnnperf ptx`'s JSON result (kind ptx_analysis): its launches and where they came from.
struct PtxAnalysisResult {
  int schema_version = kPtxResultsSchemaVersion;
  std::string tool_version;
  std::string source;  ///< what produced the mixes
  std::vector<PtxLaunchResult> launches;
};

/// The result of `results` as this build writes it (its tool version and source).
[[nodiscard]] PtxAnalysisResult ptx_analysis_result(std::vector<PtxLaunchResult> results);

// JSON of the results; found by nlohmann::json via ADL. A launch's analysis_seconds and
// from_cache are not written; from_json leaves a member the JSON lacks at its default (files of
// older versions) and throws nlohmann::json::type_error on a member of the wrong type.
void to_json(nlohmann::json& j, const PtxResources& resources);
void from_json(const nlohmann::json& j, PtxResources& resources);
void to_json(nlohmann::json& j, const PtxLaunchResult& result);
void from_json(const nlohmann::json& j, PtxLaunchResult& result);
void to_json(nlohmann::json& j, const PtxAnalysisResult& result);
void from_json(const nlohmann::json& j, PtxAnalysisResult& result);

/// Printers (one result model, several formats).
[[nodiscard]] std::string ptx_results_json(const std::vector<PtxLaunchResult>& results);
[[nodiscard]] std::string ptx_results_csv(const std::vector<PtxLaunchResult>& results);
[[nodiscard]] std::string ptx_results_table(const std::vector<PtxLaunchResult>& results);

}  // namespace cnnperf
