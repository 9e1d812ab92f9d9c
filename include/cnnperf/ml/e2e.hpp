// SPDX-License-Identifier: Apache-2.0
// End-to-end (whole network, eager framework) rows, overhead calibration and evaluation.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

/// One measured end-to-end step (datasets/e2e_torchvision.csv).
struct E2eRow {
  std::string network;
  std::string gpu_name;
  GpuSpec gpu;
  std::int64_t batch = 1;
  DType dtype = DType::kFp32;
  Mode mode = Mode::kInference;
  int num_gpus = 1;       ///< nn.DataParallel when > 1, `batch` per GPU
  double latency_ms = 0;  ///< measured median wall time of one step
  /// The timed step copies its input batch host-to-device. False where the row's
  /// `timing_method` says the input was made on the GPU before timing (timm's benchmark):
  /// such a row is predicted without the copy.
  bool input_copy_timed = true;
};

/// Whether a `timing_method` cell names a step whose input batch is already on the GPU
/// (it contains `input-on-gpu`), so that the timed step has no host-to-device input copy.
[[nodiscard]] bool timing_excludes_input_copy(std::string_view timing_method);

/// Reads the rows of zoo networks (single- and multi-GPU); rows of networks outside the zoo
/// are skipped. Where the file has the columns, rows whose `runtime` is not `pytorch` (eager)
/// or whose `memory_format` is not `nchw` are skipped too, `zoo_network` (empty: outside
/// the zoo) names the zoo network instead of `network`, and `timing_method` sets
/// `input_copy_timed`. `path` is found as user_file_or_resource finds it (bundled
/// `datasets/...` from any directory).
[[nodiscard]] std::vector<E2eRow> load_e2e_rows(const std::string& path);
/// The rows of several files of one layout, in order: each name may be a wildcard
/// (user_files_or_resources); a file named twice is read once; torchvision and NAS files
/// together are an InputError (their overheads are calibrated apart).
[[nodiscard]] std::vector<E2eRow> load_e2e_rows(const std::vector<std::string>& files);

/// Throws InputError "<path>: no single-GPU rows of zoo networks" unless `rows` has one: the
/// single-GPU rows calibrate and are scored first; multi-GPU rows only add to them.
void require_single_gpu_rows(const std::vector<E2eRow>& rows, const std::string& path);

/// A row's model-side quantities, computed once per (network, gpu, batch, dtype, mode).
using E2eTerms = EagerTerms;

/// Precomputes the terms of every row with `model` (a multi-GPU row: its one-GPU step's terms
/// with num_gpus set).
[[nodiscard]] std::vector<E2eTerms> e2e_terms(const std::vector<E2eRow>& rows,
                                              const LatencyModel& model);

/// Fits host_ms_per_op, gpu_gap_ms_per_kernel (at most 0.005 ms), fixed_ms and
/// training_host_factor (1 to 10) by minimizing the mean absolute log error over `subset`
/// (Nelder-Mead from several starts): the terms of GPUs without rows of their own. Then each
/// GPU with 50 or more rows in `subset` gets its own host_ms_per_op, fixed_ms,
/// training_host_factor and kernel_time_scale (0.5 to 2) in `per_gpu`, with the shared gap.
/// Then each zoo network, precision and mode in `subset` gets a step scale in `per_network`
/// (0.5 to 2): its rows' geometric-mean ratio measured / predicted, shrunk toward 1. These
/// three stages read the single-GPU rows of `subset`; its multi-GPU rows, if any, then fit
/// `data_parallel` (all of them) and `data_parallel_per_gpu` (a GPU with 50 or more).
[[nodiscard]] EagerOverhead calibrate_overhead(const std::vector<E2eRow>& rows,
                                               const std::vector<E2eTerms>& terms,
                                               const std::vector<std::size_t>& subset);

/// Metrics of an end-to-end evaluation, overall and per GPU, of the single-GPU rows and (when
/// there are any) of the multi-GPU rows, and each row's prediction (ms).
struct E2eEvaluation {
  Metrics overall;
  std::map<std::string, Metrics> per_gpu;
  /// Single-GPU rows of NAS networks by search space, batch and GPU ("nas-bench-201 batch 256
  /// on titan-xp"): host- and GPU-bound regimes apart, and Spearman where a NAS search ranks
  /// architectures. Empty for zoo rows.
  std::map<std::string, Metrics> per_slice;
  std::size_t data_parallel_rows = 0;
  Metrics data_parallel;
  std::map<std::string, Metrics> data_parallel_per_gpu;
  std::vector<double> predicted_ms;
};
/// {"overall", "per_gpu", "per_slice" (NAS rows only), "data_parallel": {"overall", "per_gpu"}
/// (multi-GPU rows only)}: the section the e2e calibration and validation report.
[[nodiscard]] nlohmann::json to_json(const E2eEvaluation& evaluation);
/// Leave-one-GPU-out: overhead fitted on the other GPUs (so the held-out GPU gets what
/// `policy` gives a GPU without end-to-end rows), predicted on each.
[[nodiscard]] E2eEvaluation evaluate_e2e_leave_gpu_out(
    const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
    UnseenGpuTerms policy = UnseenGpuTerms::kShared);
/// Leave-one-network-out: overhead (with per-GPU terms) fitted on the other networks'
/// rows, predicted on the held-out network's: seen GPUs, unseen networks.
[[nodiscard]] E2eEvaluation evaluate_e2e_leave_network_out(
    const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
    UnseenGpuTerms policy = UnseenGpuTerms::kShared);
/// K-fold over configurations (network, precision, mode, GPU, batch and GPU count; a
/// configuration's repeated runs stay in one fold), folds assigned by `seed`: seen GPUs and
/// networks, an unseen configuration of them. Throws InputError unless folds >= 2.
[[nodiscard]] E2eEvaluation evaluate_e2e_config_folds(
    const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms, int folds,
    std::uint64_t seed, UnseenGpuTerms policy = UnseenGpuTerms::kShared);
inline constexpr int kEagerOverheadSchemaVersion = 1;

/// The analytical model's fp16 tensor-core efficiency per architecture, fitted on end-to-end
/// steps before the overhead: for each architecture with single-GPU fp16 rows on tensor-core
/// GPUs, the efficiency (0.1 to 1, bisection) at which those rows' mean log error, under the
/// host terms a GPU without rows gets (calibrate_overhead on the single-GPU rows at `base`'s
/// kernel times, its per-GPU and per-network terms left out), equals that of the same
/// architecture's fp32 rows (0 where it has none): what is left is no precision's own error.
/// "*" is the same fit over every such architecture at once, for an architecture without rows.
struct TensorCoreFit {
  std::map<std::string, double> fp16_efficiency;  ///< AnalyticalParams::tensor_core_fp16_efficiency
  /// {"<architecture>": {"fp16_efficiency", "gpus", "fp16_rows", "fp32_rows",
  /// "target_log_error", "fp16_mean_log_error_before", "fp16_mean_log_error_after",
  /// "per_gpu": {"<gpu>": each GPU's own fit under the same host terms, reported only}}, ...}
  nlohmann::json report = nlohmann::json::object();
};
[[nodiscard]] TensorCoreFit fit_tensor_core_efficiency(const std::vector<E2eRow>& rows,
                                                       const AnalyticalParams& base);

/// The analytical parameters of an eager-overhead file: defaults with its "kernel_model"
/// (tensor_core_fp16_efficiency) when it has one. Throws InputError.
[[nodiscard]] AnalyticalParams load_analytical_params(const std::string& path);

/// Calibrates `model`'s eager overhead on an end-to-end CSV: the overhead fitted on every
/// row, with the UnseenGpuTerms of the lower leave-one-GPU-out error (ties: shared), and a
/// report with the cross-validations and in-sample metrics (overall and per GPU).
struct E2eCalibration {
  EagerOverhead overhead;
  /// The kept policy's leave-one-GPU-out residuals of the single-GPU steps (e2e_residuals):
  /// what a step's interval is fitted on. Empty without cross-validation.
  std::vector<IntervalResidual> step_residuals;
  /// {"file", "rows", "unseen_gpu_terms": {"kept", "leave_gpu_out_mape_pct": {policy: MAPE}},
  /// "leave-gpu-out" (the kept policy's), "leave-network-out", "config-folds", "in-sample"}
  nlohmann::json report;
};
/// `cross_validate` false: the fit alone (shared terms for unseen GPUs), its report only
/// "file", "rows" and "in-sample": for callers that hold GPUs out themselves.
[[nodiscard]] E2eCalibration calibrate_e2e(const std::vector<std::string>& files,
                                           const LatencyModel& model, bool cross_validate = true);
/// `cnnperf train e2e` for the analytical baseline: its fp16 tensor-core efficiencies fitted
/// on the files' rows (fit_tensor_core_efficiency from the default parameters), then its
/// overhead calibrated on the kernel times they give (calibrate_e2e).
struct AnalyticalE2eCalibration {
  TensorCoreFit tensor_cores;
  AnalyticalParams params;
  E2eCalibration e2e;
};
[[nodiscard]] AnalyticalE2eCalibration calibrate_analytical_e2e(
    const std::vector<std::string>& files, bool cross_validate = true);

/// The analytical baseline's calibrated overhead, models/eager_overhead.json (loaded once;
/// calibrated on datasets/e2e_torchvision.csv).
[[nodiscard]] const EagerOverhead& bundled_analytical_overhead();
/// Its overhead for the NAS spaces' networks, models/eager_overhead_nas.json (written by
/// calibrated on datasets/e2e_help_nas.csv.gz).
[[nodiscard]] const EagerOverhead& bundled_nas_overhead();
/// The network source (Network::source) of end-to-end rows: a NAS space, or "zoo".
[[nodiscard]] std::string e2e_network_source(const std::vector<E2eRow>& rows);
/// The kernel model's fitted terms of models/eager_overhead.json (load_analytical_params),
/// read once: what the default analytical model prices layers with.
[[nodiscard]] const AnalyticalParams& bundled_analytical_params();
/// The analytical baseline with both overheads and the kernel model of
/// models/eager_overhead.json: what a network's prediction uses by default.
[[nodiscard]] std::unique_ptr<AnalyticalModel> bundled_analytical_model();
/// Loads an eager-overhead file ({"kind": "eager_overhead", ...}); throws InputError.
[[nodiscard]] EagerOverhead load_eager_overhead(const std::string& path);

/// Evaluation with one fixed overhead (e.g. the model's own).
[[nodiscard]] E2eEvaluation evaluate_e2e(const std::vector<E2eRow>& rows,
                                         const std::vector<E2eTerms>& terms,
                                         const EagerOverhead& overhead);

}  // namespace cnnperf
