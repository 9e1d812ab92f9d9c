// SPDX-License-Identifier: Apache-2.0
// The overheads of the pytorch-compile and tensorrt runtimes, fitted on measured steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

/// One measured step of a zoo network under a runtime (inference, one GPU).
struct RuntimeRow {
  std::string network;  ///< zoo name
  GpuSpec gpu;
  std::int64_t batch = 1;
  DType dtype = DType::kFp16;
  Runtime runtime = Runtime::kPytorch;
  /// The measured step, ms: timm's step time; MLPerf SingleStream's 90th-percentile latency;
  /// for MLPerf Offline, batch / (samples per second per GPU) at the priced batch.
  double latency_ms = 0;
  /// "" for a timm row; "SingleStream" or "Offline" for an MLPerf row.
  std::string scenario;
  int submissions = 1;  ///< MLPerf results whose median this row is
};

/// RuntimeRow::scenario of MLPerf's batch-1 latency and throughput results.
inline constexpr const char* kSingleStreamScenario = "SingleStream";
inline constexpr const char* kOfflineScenario = "Offline";

/// The batch an MLPerf Offline result is priced at (its engines' batch is in each
/// submission's configuration, not in the results).
inline constexpr std::int64_t kOfflinePricedBatch = 256;

/// timm's paired inference rows (datasets/e2e_timm.csv.gz): for each zoo network, GPU,
/// batch, PyTorch version and NCHW layout with both an eager (`pytorch`) and a compiled
/// (`pytorch-compile`) row, both rows (eager first), dtype fp16 (timm's AMP).
[[nodiscard]] std::vector<RuntimeRow> load_compile_pairs(const std::string& path);

/// MLPerf Inference ResNet-50 results (datasets/e2e_mlperf_inference.csv.gz): closed
/// division, runtime tensorrt, GPU in the database, not a power-capped (MaxQ) system; per GPU
/// the median of its SingleStream latencies (one-GPU systems) and of its Offline throughputs
/// per GPU (any GPU count: Offline queries are independent), Jetsons' Offline left out (their
/// engines run on the GPU and the DLAs together). dtype: int8 where the GPU has an INT8
/// tensor rate, else fp16 (tensorrt_precision).
[[nodiscard]] std::vector<RuntimeRow> load_tensorrt_rows(const std::string& path);

/// The precision a TensorRT engine is priced at on `gpu` by default: int8 where it has an
/// INT8 tensor rate (MLPerf's closed-division ResNet-50 engines are INT8), else fp16.
[[nodiscard]] DType tensorrt_precision(const GpuSpec& gpu);

/// A row's model-side terms: the network's step under the row's runtime with `model`'s
/// kernel times and fusion (EagerTerms after apply_runtime_fusion).
[[nodiscard]] std::vector<EagerTerms> runtime_terms(const std::vector<RuntimeRow>& rows,
                                                    const LatencyModel& model);

/// Which terms a fit frees; the rest keep `base`'s values.
struct RuntimeFitSpec {
  EagerOverhead base;               ///< starting values and the terms not fitted
  bool fit_host_ms_per_op = false;  ///< host time per launched op
  /// The gap between kernels in SM cycles at each row's GPU's boost clock
  /// (gpu_gap_cycles_per_kernel, 0 to kMaxGapCycles) instead of in ms.
  bool gap_in_cycles = false;
};

/// The largest gap between kernels a fit gives, in SM cycles: 0.05 ms at 2 GHz.
inline constexpr double kMaxGapCycles = 1e5;

/// Fits kernel_time_scale (0.2 to 5), gpu_gap_ms_per_kernel (0 to 0.05 ms; or
/// gpu_gap_cycles_per_kernel, RuntimeFitSpec::gap_in_cycles), fixed_ms (0 to 50 ms) and, when
/// asked, host_ms_per_op by minimizing the mean absolute log error over `subset` of each row's
/// eager_latency_ms, with the overhead as it applies to the row's GPU; of an Offline row
/// (a throughput: its batches overlap), its kernel time x kernel_time_scale alone
/// (Nelder-Mead in log space).
[[nodiscard]] EagerOverhead fit_runtime_overhead(const std::vector<RuntimeRow>& rows,
                                                 const std::vector<EagerTerms>& terms,
                                                 const std::vector<std::size_t>& subset,
                                                 const RuntimeFitSpec& spec);

/// Held-out predictions of every row, fitting on the other groups' rows; `group_of` names
/// each row's group (its GPU, its network).
[[nodiscard]] std::vector<double> predict_leave_group_out(const std::vector<RuntimeRow>& rows,
                                                          const std::vector<EagerTerms>& terms,
                                                          const std::vector<std::string>& group_of,
                                                          const RuntimeFitSpec& spec);

inline constexpr int kRuntimeOverheadSchemaVersion = 1;
/// A runtime's step-interval table needs held-out steps of this many GPUs: with two, each
/// leave-one-GPU-out fold sees one GPU's spread and none between GPUs.
inline constexpr std::size_t kMinStepIntervalGpus = 3;

/// A runtime's fitted overhead and the report of its validation.
struct RuntimeCalibration {
  Runtime runtime = Runtime::kPytorchCompile;
  EagerOverhead overhead;
  /// {"file", "rows", "gpus", "networks", "leave-gpu-out", "leave-network-out", "in-sample",
  /// "intervals" (the step table's scheme and held-out coverage), and for pytorch-compile
  /// "eager" (the same fit on the paired eager rows)}
  nlohmann::json report;
  /// The step's 80 % interval under this runtime (family kNetworkIntervalFamily), fitted on
  /// the leave-one-GPU-out residuals of the fit's rows, each GPU a group; empty with rows of
  /// fewer than kMinStepIntervalGpus GPUs.
  IntervalTable step_intervals;
};

/// Fits `runtime` (pytorch-compile on timm's pairs, tensorrt on MLPerf) from `file` with
/// `model`'s kernel times. Throws InputError for another runtime or a file without rows.
[[nodiscard]] RuntimeCalibration calibrate_runtime(Runtime runtime, const std::string& file,
                                                   const LatencyModel& model);

/// The file form: {"kind": "<runtime>_overhead", "schema_version", "tool_version", "runtime",
/// "provenance": {file, command}, "overhead": to_json(EagerOverhead), "report",
/// "step_intervals": IntervalTable::to_json (absent when empty)}.
[[nodiscard]] nlohmann::json to_json(const RuntimeCalibration& calibration);
/// Loads a runtime-overhead file of `runtime`; throws InputError naming the path and field.
[[nodiscard]] EagerOverhead load_runtime_overhead(const std::string& path, Runtime runtime);
/// What a runtime-overhead file holds, the runtime read from its kind.
struct RuntimeOverheadFile {
  Runtime runtime = Runtime::kPytorchCompile;
  EagerOverhead overhead;
  std::optional<IntervalTable> step_intervals;  ///< absent: the file has none
};
/// Loads a file of either runtime (to_json's form); throws InputError naming the path and the
/// field, and the kinds expected for another kind.
[[nodiscard]] RuntimeOverheadFile load_runtime_overhead_file(const std::string& path);
/// The kind a runtime's overhead file carries: "compile_overhead" or "tensorrt_overhead".
[[nodiscard]] std::string runtime_overhead_kind(Runtime runtime);
/// The bundled overhead of pytorch-compile or tensorrt (loaded once); nullopt for another
/// runtime or when the file is not installed.
[[nodiscard]] std::optional<EagerOverhead> bundled_runtime_overhead(Runtime runtime);
/// The step-interval table of the bundled file of pytorch-compile or tensorrt (loaded once);
/// null for another runtime, a file not installed or one without "step_intervals". Not owning.
[[nodiscard]] const IntervalTable* bundled_runtime_step_intervals(Runtime runtime);
/// The bundled file of a runtime: models/compile_overhead.json, models/tensorrt_overhead.json.
[[nodiscard]] std::string bundled_runtime_overhead_path(Runtime runtime);

}  // namespace cnnperf
