// SPDX-License-Identifier: Apache-2.0
// `cnnperf profile`: options, the layers and jobs they name, and the run over a back end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf {

/// All options of `cnnperf profile`.
struct ProfileOptions {
  std::string net;                 ///< --net: zoo name, .onnx or .json
  std::string layers_csv;          ///< --layers FILE.csv
  std::vector<std::string> sweep;  ///< --sweep FIELD=VALUES (repeatable)
  std::int64_t batch = 1;          ///< --batch (for --net; a sweep default)
  std::string input_size;          ///< --input-size HxW for --net ("": the net's own)
  std::string precision;           ///< --precision fp32|fp16 ("": from the source, fp32)
  std::string layout = "nchw";     ///< --layout nchw|nhwc|nchw,nhwc
  std::string algo = "heuristic";  ///< --algo heuristic|all|NAME[,NAME]
  MeasurePolicy policy;
  int gpu_index = 0;             ///< --gpu-index (CUDA ordinal)
  std::string output;            ///< --output ("" or "-": stdout)
  std::string format;            ///< --format csv|json|table; "": csv for rows, table for --dry-run
  bool resume = false;           ///< --resume: skip rows already in --output
  bool dry_run = false;          ///< --dry-run: list the plan, touch no GPU
  bool keep_duplicates = false;  ///< --keep-duplicates: profile repeated shapes again
  bool self_check = false;       ///< --self-check: time one known layer, check the measurement
};

/// Builds the job list from the options (net / CSV / sweep), folding duplicates unless
/// keep_duplicates. Throws InputError for bad options.
[[nodiscard]] std::vector<ProfileJob> plan_jobs(const ProfileOptions& options);

/// The dry-run plan in the options' format (default: table).
[[nodiscard]] std::string render_dry_run(const std::vector<ProfileJob>& jobs,
                                         const ProfileOptions& options);

/// `cnnperf profile` on a given back end. --dry-run prints the plan (any build, no GPU
/// touched). Otherwise opens the GPU and throws Error "no usable GPU: <reason>" (e.g.
/// "no NVIDIA driver found ..." or "built without CUDA ...") before writing anything.
/// Rows are written atomically after every job so an interrupted run resumes with --resume.
/// --self-check measures self_check_job() instead and returns 1 when a check fails.
/// Returns the exit code (0 unless a self-check failed).
int run_profile(const ProfileOptions& options, ProfilerBackend& backend);

/// `cnnperf profile` on this build's back end. Inline so the reference to the back end is
/// made by the caller, which links cnnperf_gpu (cnnperf_commands must not depend on it).
inline int run_profile(const ProfileOptions& options) {
  const std::unique_ptr<ProfilerBackend> backend = make_profiler_backend();
  return run_profile(options, *backend);
}

}  // namespace cnnperf
