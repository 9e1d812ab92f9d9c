// SPDX-License-Identifier: Apache-2.0
// `cnnperf profile`: measuring cuDNN forward convolutions on a real GPU (CUPTI kernel records,
// NVML energy). This header holds no CUDA type: plain records, the outcome model, the small
// back-end interfaces the vendor code in src/profile/gpu implements, and the measurement policy.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {

/// Current version of the profile output rows (column `schema_version`).
inline constexpr int kProfileSchemaVersion = 1;
/// The "kind" of the measured rows as JSON, and of the dry run's plan as JSON.
inline constexpr const char* kProfileRowsKind = "profile_rows";
inline constexpr const char* kProfilePlanKind = "profile_plan";

/// The device can no longer run anything in this process: a sticky CUDA error (illegal
/// address, launch failure, ...) corrupts the context, so every later job would fail too.
/// measure_job lets it through to stop the run; the rows written so far stay.
class DeviceLost : public Error {
 public:
  using Error::Error;
};

/// What happened to one layer x algorithm (CUTLASS profiler's Disposition, reduced).
enum class Outcome {
  kPassed,          ///< measured
  kNotSupported,    ///< the library cannot run this problem/algorithm (e.g. cuDNN NOT_SUPPORTED)
  kInvalidProblem,  ///< the problem itself is malformed (cuDNN BAD_PARAM, our own validation)
  kFailed,          ///< a runtime failure (out of memory, execution failed, ...)
  kNotRun,          ///< skipped (e.g. the op is not a convolution, or profiling was stopped)
};
/// "passed", "not_supported", "invalid_problem", "failed", "not_run".
[[nodiscard]] std::string to_string(Outcome outcome);
/// Inverse of to_string; throws InputError for anything else.
[[nodiscard]] Outcome outcome_from_string(std::string_view text);

/// An outcome with its one-line reason (empty when passed).
struct Status {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
  [[nodiscard]] bool ok() const { return outcome == Outcome::kPassed; }
};

/// cuDNN's forward convolution algorithms, in cudnnConvolutionFwdAlgo_t order.
enum class ConvAlgo {
  kImplicitGemm,
  kImplicitPrecompGemm,
  kGemm,
  kDirect,
  kFft,
  kFftTiling,
  kWinograd,
  kWinogradNonfused,
};
/// "implicit_gemm", "implicit_precomp_gemm", "gemm", "direct", "fft", "fft_tiling",
/// "winograd", "winograd_nonfused".
[[nodiscard]] std::string to_string(ConvAlgo algo);
/// Accepts the names above (case-insensitive, '-' for '_'); throws InputError otherwise.
[[nodiscard]] ConvAlgo conv_algo_from_string(std::string_view text);
/// All eight, in enum order.
[[nodiscard]] const std::vector<ConvAlgo>& all_conv_algos();

/// cuDNN's math types, in cudnnMathType_t order. The heuristic ranks an algorithm together
/// with a math type; the pair runs the kernel it chose (cuDNN 7.4+).
enum class MathType { kDefault, kTensorOp, kTensorOpAllowConversion, kFma };

/// An algorithm to set up, with the heuristic's math type when it came from the heuristic.
struct AlgoChoice {
  ConvAlgo algo = ConvAlgo::kImplicitGemm;
  std::optional<MathType> math;  ///< nullopt: the layer's default math (a named algorithm)
};

/// One GPU kernel execution, converted from a CUPTI activity record (times in ns, GPU clock).
struct KernelRecord {
  std::string name;  ///< mangled kernel name as CUPTI reports it
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::array<std::int32_t, 3> grid{1, 1, 1};
  std::array<std::int32_t, 3> block{1, 1, 1};
  int registers_per_thread = 0;
  std::int64_t static_smem_bytes = 0;   ///< per block
  std::int64_t dynamic_smem_bytes = 0;  ///< per block
  std::int64_t local_mem_per_thread_bytes = 0;
  std::uint32_t device_id = 0;
  std::uint32_t stream_id = 0;
  std::uint32_t correlation_id = 0;  ///< CUPTI's id of the launching API call
  std::uint64_t external_id = 0;     ///< ours (make_external_id); 0 when none was pushed

  [[nodiscard]] std::uint64_t duration_ns() const {
    return end_ns > start_ns ? end_ns - start_ns : 0;
  }
  /// CUpti_ActivityKernel10: "A value of 0 for both the start and end timestamps indicates
  /// that timestamp information could not be collected for the kernel." Such a kernel took
  /// an unknown time, not zero.
  [[nodiscard]] bool timed() const { return start_ns != 0 || end_ns != 0; }
};

/// CUPTI's external-correlation record: the id we pushed around the launch `correlation_id`.
struct ExternalCorrelation {
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;
};

/// External ids encode job (layer x algorithm) and sample: (job + 1) << 24 | sample.
/// Throws Error when job or sample do not fit (job < 2^39, sample < 2^24).
[[nodiscard]] std::uint64_t make_external_id(std::uint64_t job, std::uint32_t sample);
/// Inverse of make_external_id; nullopt for 0 (no id pushed).
struct ExternalIdParts {
  std::uint64_t job = 0;
  std::uint32_t sample = 0;
};
[[nodiscard]] std::optional<ExternalIdParts> split_external_id(std::uint64_t external_id);

/// Sets KernelRecord::external_id from the correlation records (kernels without one keep 0).
void attach_external_ids(std::vector<KernelRecord>& kernels,
                         const std::vector<ExternalCorrelation>& correlations);

/// Kernel records grouped per sample (external id) of one job, each group in start order.
[[nodiscard]] std::map<std::uint32_t, std::vector<KernelRecord>> group_by_sample(
    const std::vector<KernelRecord>& kernels, std::uint64_t job);

/// What the device and its libraries are (recorded in every row).
struct DeviceInfo {
  int index = 0;
  std::string name;  ///< e.g. "NVIDIA A100-SXM4-40GB"
  std::string uuid;  ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int cc_major = 0;
  int cc_minor = 0;
  std::int64_t l2_bytes = 0;
  std::string cuda_runtime;  ///< "13.0"
  std::string cuda_driver;   ///< "13.0" (cudaDriverGetVersion)
  std::string driver;        ///< NVML driver version string, "" when NVML is absent
  std::string cudnn;         ///< "9.19.0"
  std::string cupti;         ///< "130001"
};

/// One energy measurement over a window of repeated launches.
struct EnergyReading {
  Status status;            ///< not passed: why no energy (never a silent zero)
  double energy_mj = 0;     ///< energy over the whole window
  double window_ms = 0;     ///< wall time of the window (host clock)
  std::string method;       ///< "nvml-total-energy-counter" | "nvml-power-samples" | reason
  int power_samples = 0;    ///< samples taken (power method) or 0
  int counter_updates = 0;  ///< energy counter updates seen in the window (counter method)
  double sm_clock_mhz = 0;  ///< observed at the end of the window; 0 when unknown
  double mem_clock_mhz = 0;
  double power_limit_w = 0;
};

/// Energy over a window: begin(), run the work, end(). Implemented with NVML in src/profile/gpu.
class PowerMeter {
 public:
  virtual ~PowerMeter() = default;
  /// Whether readings are possible; the reason is the row's energy_method when not.
  [[nodiscard]] virtual Status available() const = 0;
  virtual void begin_window() = 0;
  [[nodiscard]] virtual EnergyReading end_window() = 0;
};

/// One convolution set up on the device (descriptors, buffers, workspace, algorithm).
class ConvRunner {
 public:
  virtual ~ConvRunner() = default;
  /// Enqueues `launches` forward convolutions back to back and waits for them.
  /// Each launch is wrapped in push/pop of make_external_id(job, first_sample + i) when
  /// `trace` is true. Throws GpuError on a failed call.
  virtual void run(int launches, bool trace, std::uint64_t job, std::uint32_t first_sample) = 0;
  /// Evicts the L2 cache (writes a buffer at least the L2 size) and waits.
  virtual void flush_l2() = 0;
  /// Workspace allocated for the algorithm, bytes.
  [[nodiscard]] virtual std::int64_t workspace_bytes() const = 0;
  /// How untraced launches (warm-up, energy window) were enqueued: "cuda-graph" (replayed back
  /// to back) or "stream" (one host call each; a reason follows when a graph was refused).
  [[nodiscard]] virtual std::string untraced_launch_mode() const { return "stream"; }
};

/// Result of preparing one layer x algorithm.
struct Prepared {
  Status status;
  ConvAlgo algo = ConvAlgo::kImplicitGemm;  ///< the algorithm actually set up
  std::unique_ptr<ConvRunner> runner;       ///< null unless status.ok()
};

/// The GPU back end: a device, cuDNN, CUPTI and NVML. src/profile/gpu implements it as a
/// module the binary loads at run time (src/profile/gpu_loader); src/profile/gpu_stub reports
/// "built without CUDA".
class ProfilerBackend {
 public:
  virtual ~ProfilerBackend() = default;
  /// Selects the GPU. Not ok: no usable GPU (reason e.g. "no NVIDIA driver found ...").
  [[nodiscard]] virtual Status open(int gpu_index) = 0;
  /// Valid after a successful open().
  [[nodiscard]] virtual DeviceInfo device() const = 0;
  /// The heuristic's ranking for the layer (cudnnGetConvolutionForwardAlgorithm_v7), best
  /// first, only the entries it reports usable, each with its math type. Empty: `status` says
  /// why (ok when the heuristic simply returned nothing usable).
  [[nodiscard]] virtual std::vector<AlgoChoice> heuristic_algos(const Layer& layer, Layout layout,
                                                                Status& status) = 0;
  /// Creates descriptors (with the choice's math type), allocates tensors and the workspace,
  /// and runs once to check.
  [[nodiscard]] virtual Prepared prepare(const Layer& layer, Layout layout,
                                         const AlgoChoice& choice) = 0;
  /// Flushes CUPTI and returns every kernel record collected since the last call, external
  /// ids attached.
  [[nodiscard]] virtual std::vector<KernelRecord> collect_kernels() = 0;
  /// Records CUPTI reported as dropped since the last call.
  [[nodiscard]] virtual std::uint64_t dropped_records() = 0;
  /// The energy meter (always non-null; may report itself unavailable).
  [[nodiscard]] virtual PowerMeter& power_meter() = 0;
};

/// The back end of this build (CUDA or stub). Never null; open() tells whether it works: in a
/// CUDA build whose back-end module or CUDA libraries cannot be loaded, it says which.
[[nodiscard]] std::unique_ptr<ProfilerBackend> make_profiler_backend();

/// What the CUDA back-end module and the binary that loads it must agree on: the module
/// refuses a caller with another value (they come from different builds). It names the
/// version and the interface revision; change the revision when ProfilerBackend changes.
inline constexpr const char* kProfilerBackendAbi = "cnnperf-profiler-backend/2 " CNNPERF_VERSION;

/// A back end that runs nothing: open() and every request report `reason` (kNotRun).
[[nodiscard]] std::unique_ptr<ProfilerBackend> make_unavailable_backend(std::string reason);

/// Measurement hygiene, named as nvbench and the CUTLASS profiler name it.
struct MeasurePolicy {
  int warmup = 10;                 ///< untimed launches before sampling
  int min_samples = 10;            ///< samples taken at least
  int max_samples = 10000;         ///< hard cap on samples
  double max_noise_pct = 1.0;      ///< stop when relative stdev (%) is at or below
  double min_time_s = 0.1;         ///< sample at least this long, GPU time
  double max_time_s = 2.0;         ///< stop after this much sampling even if noisy
  double energy_window_ms = 1000;  ///< NVML window per layer: ~10 counter updates
  bool flush_l2 = false;           ///< evict L2 before every sample
};

/// Running statistics and the stopping rule: stop when samples >= min_samples and
/// accumulated sample time >= min_time and noise <= max_noise; or at max_time / max_samples.
class SampleSeries {
 public:
  explicit SampleSeries(MeasurePolicy policy) : policy_(policy) {}
  void add(double latency_ms);
  /// Empty while sampling should continue; else "converged", "max-time" or "max-samples".
  [[nodiscard]] std::string stop_reason() const;
  [[nodiscard]] std::size_t count() const { return samples_ms_.size(); }
  [[nodiscard]] double total_ms() const { return total_ms_; }
  [[nodiscard]] double mean_ms() const;
  [[nodiscard]] double median_ms() const;
  [[nodiscard]] double min_ms() const;
  [[nodiscard]] double stdev_ms() const;  ///< sample standard deviation (n-1)
  /// stdev / mean in percent; +inf with fewer than 2 samples.
  [[nodiscard]] double noise_pct() const;
  [[nodiscard]] const std::vector<double>& samples_ms() const { return samples_ms_; }

 private:
  MeasurePolicy policy_;
  std::vector<double> samples_ms_;
  double total_ms_ = 0;
};

/// How many launches fill the energy window, given the measured mean latency (>= 1).
[[nodiscard]] int energy_window_launches(double window_ms, double mean_latency_ms);
/// Size of the next batch of traced samples: enough to reach min_samples first, then
/// doubling, bounded by max_samples and by the remaining max_time at the current mean.
[[nodiscard]] int next_batch_size(const SampleSeries& series, const MeasurePolicy& policy,
                                  double mean_latency_ms);

/// Which algorithms to run: the heuristic's choice, every algorithm, or named ones.
struct AlgoRequest {
  enum class Kind { kHeuristic, kAll, kNamed } kind = Kind::kHeuristic;
  std::vector<ConvAlgo> named;
};
/// "heuristic" | "all" | comma list of algorithm names. Throws ParameterError naming algo.
[[nodiscard]] AlgoRequest parse_algo_request(std::string_view text);

/// One unit of work: a layer (in its layout) with one algorithm request.
struct ProfileJob {
  std::size_t id = 0;        ///< position in the plan (used in external ids)
  Layer layer;               ///< the layer as it runs; `layer.layout` is the layout profiled
  std::string algo_request;  ///< "heuristic" or an algorithm name
  std::string source;        ///< where the layer came from, e.g. "resnet50:layer1.0.conv1"
  int duplicates = 1;        ///< identical layers folded into this job
  Status precheck;           ///< not passed: a row with this reason, nothing run
  /// Resume key: the canonical layer fields + layout + algo_request.
  [[nodiscard]] std::string key() const;
};

/// Sweep parsing: "c_in=64:256:64", "h_in=7,14,28", "dtype=fp32,fp16", "kernel=1,3"
/// (kernel/stride/pad/dilation/hw set both _h and _w). Returns (field, values) per spec.
struct SweepAxis {
  std::string field;
  std::vector<std::string> values;
};
[[nodiscard]] SweepAxis parse_sweep_axis(std::string_view spec);
/// Cartesian product of the axes over a default conv layer (batch from `batch`). Throws
/// ParameterError naming sweep for unknown fields, bad ranges, an axis given twice or more
/// than 100000 layers, naming batch when an axis sweeps batch and `batch` is not 1.
[[nodiscard]] std::vector<Layer> expand_sweep(const std::vector<std::string>& specs,
                                              std::int64_t batch);

/// "nchw", "nhwc" or a comma list of both. Throws ParameterError naming layout.
[[nodiscard]] std::vector<Layout> parse_layouts(std::string_view text);

/// A layer to profile and where it came from (e.g. "resnet50:layer1.0.conv1", "sweep").
struct SourcedLayer {
  Layer layer;
  std::string source;
};
/// The job list: every layer in every layout with every algorithm of `request`, identical
/// jobs folded into one (counted in `duplicates`) unless keep_duplicates.
[[nodiscard]] std::vector<ProfileJob> plan_jobs(const std::vector<SourcedLayer>& layers,
                                                const std::vector<Layout>& layouts,
                                                const AlgoRequest& request, bool keep_duplicates);

/// Measured (or not) result of one job x algorithm: one output row.
struct ProfileRow {
  ProfileJob job;
  ConvAlgo algo = ConvAlgo::kImplicitGemm;
  bool algo_known = false;
  Status status;
  // Timing (CUPTI kernel time per launch, sum of the launch's kernels).
  double latency_ms = 0;
  double latency_median_ms = 0;
  double latency_min_ms = 0;
  double noise_pct = 0;
  std::size_t samples = 0;
  std::string stop_reason;
  std::int64_t workspace_bytes = 0;
  std::vector<KernelRecord> kernels;  ///< the kernels of one representative launch
  std::uint64_t dropped_records = 0;
  std::size_t missing_launches = 0;  ///< traced launches without timed kernel records
  EnergyReading energy;              ///< over the window
  int energy_launches = 0;           ///< launches in the energy window
  std::string energy_launch_mode;    ///< ConvRunner::untraced_launch_mode() of the window
  double wall_s = 0;                 ///< host time spent on this row
};

/// Kernel time over wall time of the row's energy window, percent; NaN without an energy
/// reading. Well below 100 the window also holds idle gaps between launches, whose power the
/// per-launch energy then includes.
[[nodiscard]] double energy_gpu_busy_pct(const ProfileRow& row);

/// Output columns: DESIGN §3 layer columns, targets, provenance, then profile extras.
[[nodiscard]] const std::vector<std::string>& profile_columns();
/// One row's cells in profile_columns() order.
[[nodiscard]] std::vector<std::string> profile_row_fields(const ProfileRow& row,
                                                          const DeviceInfo& device,
                                                          const MeasurePolicy& policy);

/// One row's cells (profile_row_fields order) as a JSON object keyed by profile_columns().
[[nodiscard]] nlohmann::json profile_row_json(const std::vector<std::string>& fields);

/// Keys (ProfileJob::key) of rows in an existing output that need no re-run (outcome other
/// than failed/not_run), with the existing table. Throws InputError when the file's header
/// is not a profile output.
struct ResumeState {
  CsvTable table;
  std::vector<std::string> done_keys;
  std::string gpu_uuid;  ///< of the existing rows ("" when none)
};
[[nodiscard]] ResumeState read_resume_state(const std::string& path);
/// Key of an existing output row (same form as ProfileJob::key).
[[nodiscard]] std::string profile_row_key(const CsvTable& table, std::size_t row);

/// Dry-run: estimated seconds for one job under the policy (lower and upper bound: per
/// algorithm warm-up + sampling between min_time and max_time + the energy window + set-up).
struct TimeEstimate {
  double low_s = 0;
  double high_s = 0;
};
[[nodiscard]] TimeEstimate estimate_job_time(const ProfileJob& job, const MeasurePolicy& policy);
/// The plan as text (table / CSV / JSON) with the estimate per job and the total.
[[nodiscard]] std::string render_dry_run(const std::vector<ProfileJob>& jobs,
                                         const MeasurePolicy& policy, OutputFormat format);

/// Measures one job on an opened back end: resolves its algorithm request, prepares (for
/// the heuristic: its first choice that prepares, falling back down its ranking), warms up,
/// samples until the policy stops, then measures energy over the window.
/// Vendor refusals and failed calls become rows with their outcome; only a lost device
/// (DeviceLost) and bad input throw.
[[nodiscard]] std::vector<ProfileRow> measure_job(ProfilerBackend& backend, const ProfileJob& job,
                                                  const MeasurePolicy& policy);

/// One check of `profile --self-check`.
struct SelfCheckItem {
  std::string name;  ///< "measured", "kernel_records", "attribution", ...
  bool passed = false;
  std::string detail;  ///< what was seen; on a failure, what it means for the numbers
};

/// `profile --self-check`: one known convolution measured on this GPU, and whether its row
/// shows that kernel times and energy can be trusted here.
struct SelfCheckResult {
  DeviceInfo device;
  MeasurePolicy policy;  ///< as measured (energy window raised to kSelfCheckEnergyWindowMs)
  ProfileRow row;
  std::vector<SelfCheckItem> checks;
  [[nodiscard]] bool passed() const;
};

inline constexpr const char* kSelfCheckKind = "profile_self_check";
/// The self-check's energy window, ms at least: ten ~100 ms counter updates.
inline constexpr double kSelfCheckEnergyWindowMs = 1000;
/// Below this share of kernel time in the energy window, per-launch energy is mostly the
/// idle power of the gaps between launches.
inline constexpr double kSelfCheckMinBusyPct = 80;

/// The known convolution: ResNet-50's first 3x3 (64 -> 64 channels, 56x56, pad 1, batch 32,
/// fp32, NCHW, cuDNN's heuristic choice).
[[nodiscard]] ProfileJob self_check_job();
/// Measures self_check_job() on an opened back end under `policy` (the energy window raised
/// to kSelfCheckEnergyWindowMs) and checks its row. Throws only what measure_job throws.
[[nodiscard]] SelfCheckResult run_self_check(ProfilerBackend& backend, MeasurePolicy policy);
/// The checks of one measured row: kernel records arrived, every traced launch was attributed
/// and timed, the timing converged, and the energy window saw at least two counter updates
/// while the GPU was busy at least kSelfCheckMinBusyPct of it.
[[nodiscard]] std::vector<SelfCheckItem> self_check_items(const ProfileRow& row,
                                                          const MeasurePolicy& policy);
/// The result as a table (checks and verdict) or JSON (kind profile_self_check, with the row).
[[nodiscard]] std::string render_self_check(const SelfCheckResult& result, OutputFormat format);

/// Renders rows as csv / json / table, in profile_columns() order.
[[nodiscard]] std::string render_profile_rows(const std::vector<std::vector<std::string>>& rows,
                                              OutputFormat format);

}  // namespace cnnperf
