// SPDX-License-Identifier: Apache-2.0
// Per-layer and end-to-end prediction: the model interface, the result model, its printers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/runtime.hpp"

namespace cnnperf {

/// 2: latency_ms_lo and latency_ms_hi (the 80 % interval) beside every latency_ms.
inline constexpr int kPredictionSchemaVersion = 2;

/// An 80 % interval of a latency, ms: where the measured time falls four times in five
/// (docs/methodology.md, "Prediction intervals").
struct LatencyInterval {
  double lo_ms = 0;
  double hi_ms = 0;
};

/// One layer's prediction.
struct LayerPrediction {
  /// GPU time of the kernels the op launches (what CUPTI measures, what `profile` writes), ms.
  double kernel_ms = 0;
  /// What the runtime adds to the op run alone (apply_runtime_overhead), ms; 0 until then.
  double overhead_ms = 0;
  double roofline_ms = 0;          ///< physical lower bound, ms; kernel_ms never goes below it
  double energy_mj = 0;            ///< energy of the op's kernels, mJ (= avg_power_w x kernel_ms)
  double avg_power_w = 0;          ///< average board power while it runs, W
  double compute_utilization = 0;  ///< share of kernel_ms the SM pipes are the bottleneck
  double memory_utilization = 0;   ///< share of kernel_ms DRAM traffic is the bottleneck
  bool in_distribution = true;     ///< false when outside the model's training ranges
  int kernels = 1;                 ///< kernel launches
  std::string bound;               ///< compute | memory | overhead | none
  std::string algorithm;           ///< analytical mapping (implicit_gemm, winograd, ...)
  /// The layer whose kernel runs this op under a fusing runtime (apply_runtime_fusion); then
  /// kernel_ms, kernels and energy are 0 here and counted there. Empty: not fused.
  std::string fused_into;
  /// The 80 % interval of latency_ms(); unset where no interval table covers the prediction
  /// (an op family without held-out residuals, a power cap): no interval, not a made-up one.
  std::optional<LatencyInterval> latency_interval;
  /// The op's time under the runtime, run alone: kernel time plus the runtime's overhead, ms.
  [[nodiscard]] double latency_ms() const { return kernel_ms + overhead_ms; }
};

/// The end-to-end terms of one GPU fitted on its own end-to-end rows, i.e. on the machine
/// that measured them: that host's and framework's costs, and how much slower or faster
/// than the kernel model its steps ran (clocks, cooling, library version).
struct GpuEagerCalibration {
  double host_ms_per_op = 0;        ///< that machine's host time per op, ms
  double fixed_ms = 0;              ///< its per-step constant, ms
  double training_host_factor = 1;  ///< its host ops of a training step per forward op
  double kernel_time_scale = 1;     ///< multiplies the predicted kernel time of a step
  int rows = 0;                     ///< end-to-end rows it was fitted on
  /// The GPU's architecture (GpuSpec::architecture), which UnseenGpuTerms::kArchitecture
  /// groups by; empty when unknown (a file that does not record it, naming a GPU outside the
  /// database).
  std::string architecture;
};

/// What a GPU without end-to-end rows of its own takes (EagerOverhead::unseen_gpu_terms);
/// the end-to-end fit keeps the one with the lower leave-one-GPU-out error on its rows.
enum class UnseenGpuTerms {
  kShared,  ///< the shared terms, fitted on every GPU's rows
  /// The geometric mean of the own terms of the GPUs of its architecture with rows (the
  /// shared terms when there is none): where one machine held the GPUs of a generation (HELP's)
  kArchitecture,
};
[[nodiscard]] std::string to_string(UnseenGpuTerms terms);
/// "shared" or "architecture"; throws InputError otherwise.
[[nodiscard]] UnseenGpuTerms unseen_gpu_terms_from_string(std::string_view text);

/// How far the measured steps of one zoo network (at one precision and mode) ran from the
/// end-to-end formula on the GPUs that measured it: a model error of that network (ops the
/// zoo or the kernel model miss), shrunk toward 1 by its row count.
struct NetworkStepScale {
  double step_scale = 1;  ///< multiplies max(GPU time, host time) of that network's step
  int rows = 0;           ///< end-to-end rows it was fitted on (all at their measured batch)
};

/// What PyTorch's nn.DataParallel adds to a step for each GPU beyond the first, at the same
/// batch per GPU: broadcasting the weights from GPU 0, the host issuing every replica's ops
/// (one thread per GPU, one interpreter lock), and in training reducing the gradients to
/// GPU 0. Fitted on the multi-GPU end-to-end rows (docs/methodology.md).
struct DataParallelTerms {
  double fixed_ms = 0;                   ///< per extra GPU, ms
  double ms_per_weight_mb = 0;           ///< per extra GPU and MB of weights, ms
  double training_ms_per_weight_mb = 0;  ///< added in training (gradient reduce), ms per MB
  double host_ms_per_op = 0;             ///< per extra GPU and op, ms
  double training_host_ms_per_op = 0;    ///< added per op in training, ms
  int rows = 0;                          ///< multi-GPU rows fitted on; 0: not calibrated
  int max_num_gpus = 0;  ///< most GPUs of a row fitted on; 0: not recorded (older files)
};

/// What an eager framework adds around the kernels of one step (DESIGN `latency_ms`):
/// wall = fixed + input copy + step_scale x max(kernel time x kernel_time_scale + per-kernel
/// gaps, host issue time).
struct EagerOverhead {
  double host_ms_per_op = 0.012;         ///< host-side dispatch per op (framework + launch), ms
  double gpu_gap_ms_per_kernel = 0.002;  ///< idle gap between dependent kernels, ms
  /// More of that gap in SM cycles at the GPU's boost clock: the part the GPU itself sets
  /// (the front end retiring one kernel and starting the next), shorter on a faster clock.
  /// overhead_for_gpu folds it into gpu_gap_ms_per_kernel; 0 (and absent from a file) where
  /// the fit does not free it (every runtime but tensorrt).
  double gpu_gap_cycles_per_kernel = 0;
  double fixed_ms = 0.05;             ///< per-step constant (synchronize, allocator), ms
  double h2d_gbs = 11.0;              ///< host-to-device copy rate of the input batch, GB/s
  double training_host_factor = 3.0;  ///< host ops of a training step per forward op
  /// Host time of a convolution, linear layer, normalization or channel shuffle in units of
  /// an elementwise op's (host_ms_per_op): PyTorch's Python and dispatch path for these is
  /// longer (fitted 4.9 on HELP's NAS rows, 1 on the zoo rows; docs/methodology.md). 1: every
  /// op the same.
  double heavy_op_factor = 1.0;
  /// How much of the step is the sum over ops of max(the op's host time, its GPU time), the
  /// rest being max(all host time, all GPU time), 0 to 1: an op whose kernel outlasts its issue
  /// delays the ops behind it even when the host sets the step time (HELP's FBNet steps;
  /// docs/methodology.md). 0: the max of the sums alone.
  double per_op_overlap = 0.0;
  double kernel_time_scale = 1.0;  ///< 1 unless a GPU's own calibration says otherwise
  /// What overhead_for_gpu gives a GPU that per_gpu does not name.
  UnseenGpuTerms unseen_gpu_terms = UnseenGpuTerms::kShared;
  /// Per-GPU terms by GPU database name (GpuSpec::name), for GPUs with end-to-end rows;
  /// overhead_for_gpu applies them. Empty for a single overhead.
  std::map<std::string, GpuEagerCalibration> per_gpu;
  /// Per-network step scales by network_step_key, for zoo networks with end-to-end rows;
  /// overhead_for applies them. Empty for a single overhead.
  std::map<std::string, NetworkStepScale> per_network;
  /// Step scales of one GPU's machine on top of per_network, by "<GPU name> <step key>", for
  /// pairs with 50 or more rows (HELP's search spaces on each of its machines; no zoo network
  /// has that many); overhead_for applies them. Empty for a single overhead.
  std::map<std::string, NetworkStepScale> per_gpu_network;
  double step_scale = 1.0;  ///< 1 unless a network's own scale applies (overhead_for)
  /// Set when step_scale is the network's zoo family's (family_step_scale), not its own.
  std::string step_scale_family;
  /// Set to the GPU's architecture when its host terms and kernel-time scale are its
  /// architecture's GPUs' (overhead_for_gpu under UnseenGpuTerms::kArchitecture).
  std::string terms_architecture;
  /// Set to the GPU whose kernel-time scale a GPU without terms took as another board of its
  /// chip (overhead_for_gpu; GpuDatabase::board_of_same_chip); the host terms stay the others.
  std::string kernel_time_scale_board;
  /// nn.DataParallel terms for GPUs without multi-GPU rows of their own, and by GPU database
  /// name those fitted on a GPU's own rows; overhead_for_gpu applies them.
  DataParallelTerms data_parallel;
  std::map<std::string, DataParallelTerms> data_parallel_per_gpu;
  std::string source = "default";  ///< where these numbers came from
};

/// PCIe 3.0 x16, GB/s per direction: the link the shared data-parallel weight terms describe.
inline constexpr double kPcieGen3x16Gbs = 15.75;
/// How much of the shared weight-broadcast cost a GPU pays: PCIe 3.0 x16 over its NVLink
/// bandwidth (per direction) when it has NVLink, 1 otherwise.
[[nodiscard]] double weight_broadcast_factor(const GpuSpec& gpu);

/// `overhead` as it applies to `gpu`: its own terms when `overhead.per_gpu` has them (source
/// says so); otherwise, under UnseenGpuTerms::kArchitecture, the geometric mean of the terms of
/// the per_gpu entries of its architecture when there are any, else the shared values; likewise its
/// own data-parallel terms, or the shared ones with their weight terms times
/// weight_broadcast_factor; the maps are empty in the result.
[[nodiscard]] EagerOverhead overhead_for_gpu(const EagerOverhead& overhead, const GpuSpec& gpu);
/// The idle time between dependent kernels on `gpu`, ms: gpu_gap_ms_per_kernel plus
/// gpu_gap_cycles_per_kernel at gpu's boost clock (GpuSpec::boost_cycles_per_ms).
[[nodiscard]] double gpu_gap_ms_per_kernel(const EagerOverhead& overhead, const GpuSpec& gpu);

/// The eager overhead as JSON (the keys of a model file's "eager_overhead" object).
[[nodiscard]] nlohmann::json to_json(const EagerOverhead& overhead);
/// Parses it back; throws InputError "where.field: ..." for a missing or mistyped field.
[[nodiscard]] EagerOverhead eager_overhead_from_json(const nlohmann::json& object,
                                                     const std::string& where);

/// Sets avg_power_w and energy_mj of each prediction from its utilizations (power.hpp).
void assign_power(std::vector<LayerPrediction>& predictions, const GpuSpec& gpu,
                  const PowerParams& params);

/// A latency model: analytical, or learned (src/ml). Implementations are immutable after
/// construction and safe to call from several threads.
class LatencyModel {
 public:
  virtual ~LatencyModel() = default;
  /// "analytical" or the model file's name.
  [[nodiscard]] virtual std::string name() const = 0;
  /// One prediction per layer, same order, with latency and utilizations (power is
  /// assigned by the caller, assign_power). Never below the roofline bound.
  [[nodiscard]] virtual std::vector<LayerPrediction> predict_layers(
      const std::vector<Layer>& layers, const GpuSpec& gpu) const = 0;
  /// Like predict_layers, with each layer's measurement source (a layer CSV's `source`
  /// column; `sources` is empty or one per layer): a learned model predicts what that
  /// source's timing method measures, and kernel time for an empty or unknown source; the
  /// analytical model has no notion of sources and ignores them.
  [[nodiscard]] virtual std::vector<LayerPrediction> predict_layers_as(
      const std::vector<Layer>& layers, const GpuSpec& gpu,
      const std::vector<std::string>& /*sources*/) const {
    return predict_layers(layers, gpu);
  }
  /// The layers' kernel time inside a network (predict_network): like predict_layers, without
  /// what a per-op measurement harness adds at the smallest work (a learned model's host
  /// floor); the host cost of a network's ops is the eager overhead's to model.
  [[nodiscard]] virtual std::vector<LayerPrediction> predict_network_layers(
      const std::vector<Layer>& layers, const GpuSpec& gpu) const {
    return predict_layers(layers, gpu);
  }
  /// What in_distribution is measured against, for the warning that counts the layers
  /// outside it; empty: the model's training ranges, unnamed.
  [[nodiscard]] virtual std::string training_data() const { return {}; }
  /// The analytical model's terms behind the layers' kernel time (the fitted fp16
  /// tensor-core efficiencies): what l2_resident_kernel_scale prices a layer's DRAM time with.
  [[nodiscard]] virtual const AnalyticalParams& kernel_params() const = 0;
  /// End-to-end overhead parameters of an eager framework.
  [[nodiscard]] virtual EagerOverhead eager_overhead() const { return {}; }
  /// The fitted overhead of a runtime other than cuDNN and eager PyTorch (pytorch-compile,
  /// tensorrt), in the eager formula's terms; nullopt when the model has none.
  [[nodiscard]] virtual std::optional<EagerOverhead> runtime_overhead(Runtime runtime) const {
    (void)runtime;
    return std::nullopt;
  }
  /// The overhead for networks of `network_source` (Network::source): the one calibrated on
  /// that kind of network's own end-to-end measurements where the model has one (the NAS
  /// spaces, measured on other machines than the zoo networks), eager_overhead() otherwise.
  [[nodiscard]] virtual EagerOverhead eager_overhead_for(std::string_view network_source) const {
    (void)network_source;
    return eager_overhead();
  }
};

/// AnalyticalModel::name(), what a prediction's `model` says for it.
inline constexpr const char* kAnalyticalModelName = "analytical";

/// The analytical model as a LatencyModel.
class AnalyticalModel final : public LatencyModel {
 public:
  /// `nas_overhead`: the overhead of NAS-space networks (kNasBench201Source, kFbnetSource);
  /// nullopt: `overhead` for every network.
  explicit AnalyticalModel(AnalyticalParams params = {}, EagerOverhead overhead = {},
                           std::optional<EagerOverhead> nas_overhead = std::nullopt)
      : params_(std::move(params)),
        overhead_(std::move(overhead)),
        nas_overhead_(std::move(nas_overhead)) {}
  [[nodiscard]] std::string name() const override { return kAnalyticalModelName; }
  [[nodiscard]] std::vector<LayerPrediction> predict_layers(const std::vector<Layer>& layers,
                                                            const GpuSpec& gpu) const override;
  [[nodiscard]] const AnalyticalParams& kernel_params() const override { return params_; }
  [[nodiscard]] EagerOverhead eager_overhead() const override { return overhead_; }
  [[nodiscard]] EagerOverhead eager_overhead_for(std::string_view network_source) const override;
  [[nodiscard]] std::optional<EagerOverhead> runtime_overhead(Runtime runtime) const override;
  /// Sets the overhead of `runtime` (pytorch-compile, tensorrt) that runtime_overhead gives.
  void set_runtime_overhead(Runtime runtime, EagerOverhead overhead);
  /// Where runtime_overhead looks for a runtime set_runtime_overhead did not set; asked only
  /// when a prediction uses that runtime, so a run that does not reads no runtime's file.
  using RuntimeOverheadSource = std::function<std::optional<EagerOverhead>(Runtime)>;
  void set_runtime_overhead_source(RuntimeOverheadSource source);

 private:
  std::map<Runtime, EagerOverhead> runtime_overheads_;
  RuntimeOverheadSource runtime_overhead_source_;
  AnalyticalParams params_;
  EagerOverhead overhead_;
  std::optional<EagerOverhead> nas_overhead_;
};

enum class Mode { kInference, kTraining };
[[nodiscard]] std::string to_string(Mode mode);
[[nodiscard]] Mode mode_from_string(std::string_view text);

/// One kind of op in a step: ops with the same predicted kernel time, kernel launches and host
/// class (EagerOverhead::heavy_op_factor applies to heavy ones).
struct EagerOpCost {
  double kernel_ms = 0;  ///< predicted kernel time of one such op, ms
  int kernels = 0;       ///< its kernel launches
  bool heavy = false;    ///< convolution, linear, normalization or channel shuffle
  int count = 0;         ///< how many ops of the step are like it
};

/// What the end-to-end formula needs from a network's prediction.
struct EagerTerms {
  double kernel_ms = 0;    ///< sum of predicted kernel time, ms
  int ops = 0;             ///< ops that launch at least one kernel
  int kernels = 0;         ///< kernel launches
  double input_bytes = 0;  ///< input batch copied host-to-device, bytes
  bool training = false;
  double weight_bytes = 0;  ///< the network's weights at its precision, bytes
  int num_gpus = 1;         ///< GPUs of nn.DataParallel, each with the same batch
  int heavy_ops = 0;        ///< of `ops`: convolutions, linear, normalizations, channel shuffles
  /// The ops of `ops`, identical ones merged (order not kept): what the per-op overlap term
  /// reads. Empty: that term is the max of the sums.
  std::vector<EagerOpCost> op_costs;
  /// The share of its kernel time the step keeps when it repeats with its tensors in L2
  /// (l2_resident_kernel_scale), 1 when they do not fit: it multiplies kernel_ms and op_costs.
  double l2_resident_scale = 1;
};
/// Convolution, linear, normalization or channel shuffle: an op EagerOverhead::heavy_op_factor
/// applies to.
[[nodiscard]] bool is_heavy_host_op(Op op);
/// The op costs of predicted layers (`predictions[i]` is `layers[i]`'s): ops without kernels
/// left out, identical (kernel_ms, kernels, heavy) merged with a count.
[[nodiscard]] std::vector<EagerOpCost> eager_op_costs(
    const std::vector<Layer>& layers, const std::vector<LayerPrediction>& predictions);
/// What multiplies a step's kernel time on the GPU side of the step formula: its L2
/// residency (EagerTerms::l2_resident_scale) x the overhead's kernel_time_scale.
[[nodiscard]] inline double kernel_time_factor(const EagerTerms& terms,
                                               const EagerOverhead& overhead) {
  return terms.l2_resident_scale * overhead.kernel_time_scale;
}
/// Host time to issue one step's ops, ms: host_ms_per_op x (ops + (heavy_op_factor - 1) x
/// heavy_ops), times training_host_factor in training.
[[nodiscard]] double host_issue_ms(const EagerTerms& terms, const EagerOverhead& overhead);
/// wall = fixed + input copy + step_scale x core + (num_gpus - 1) x the data-parallel terms per
/// extra GPU, ms, where core = per_op_overlap x sum over ops of max(op's host time, op's GPU
/// time) + (1 - per_op_overlap) x max(host issue time, GPU time); GPU time is kernel time x
/// kernel_time_scale + per-kernel gaps. `overhead` is one GPU's and one network's
/// (overhead_for); its per_gpu and per_network maps are not read.
[[nodiscard]] double eager_latency_ms(const EagerTerms& terms, const EagerOverhead& overhead);

/// The terms eager_latency_ms adds, for a picture of the step (predict's trace): latency =
/// fixed_ms + copy_ms + step_scale x core_ms + data_parallel_ms, summed in that order.
struct EagerStepParts {
  double fixed_ms = 0;          ///< per-step constant (synchronize, allocator), ms
  double copy_ms = 0;           ///< host-to-device copy of the (global) input batch, ms
  double core_ms = 0;           ///< the ops' host and GPU time, overlapped, ms
  double step_scale = 1;        ///< multiplies core_ms
  double data_parallel_ms = 0;  ///< what the GPUs beyond the first add, ms
  double host_ms = 0;           ///< host issue time of all ops (host_issue_ms), ms
  double gpu_ms = 0;            ///< kernel time x kernel_time_scale + per-kernel gaps, ms
  [[nodiscard]] double latency_ms() const {
    return fixed_ms + copy_ms + step_scale * core_ms + data_parallel_ms;
  }
};
[[nodiscard]] EagerStepParts eager_step_parts(const EagerTerms& terms,
                                              const EagerOverhead& overhead);

/// The key of EagerOverhead::per_network: "<zoo name> <precision> <mode>", e.g.
/// "resnet50 fp16 inference".
[[nodiscard]] std::string network_step_key(std::string_view zoo_name, DType dtype, Mode mode);
/// The name a network's step scale is kept under (network_step_key): a zoo network's own
/// name, a NAS network's search space (kNasBench201Source, kFbnetSource: one scale for the
/// space), "" for any other network (no step scale).
[[nodiscard]] std::string step_scale_network(const Network& network);
/// The step scale a zoo network without end-to-end rows takes from its zoo family
/// (ZooEntry::family): the geometric mean of per_network's scales of the family's networks at
/// the same precision and mode. What a step scale corrects is mostly the family's layer mix
/// (e.g. every VGG's fp16 training step runs 1.18-1.37x the model), so siblings say more than
/// 1 does. `networks` 0: the key is no zoo network or its family has no scale at that setting.
struct FamilyStepScale {
  std::string family;
  double step_scale = 1;
  int networks = 0;  ///< siblings averaged
};
[[nodiscard]] FamilyStepScale family_step_scale(const EagerOverhead& overhead,
                                                const std::string& network_key);
/// `overhead` as it applies to `gpu` (overhead_for_gpu) and to the network of `network_key`
/// (network_step_key; empty for a network outside the zoo): its step_scale when per_network
/// has it, else its family's (family_step_scale), else 1 (source says which); per_gpu and
/// per_network are empty in the result.
[[nodiscard]] EagerOverhead overhead_for(const EagerOverhead& overhead, const GpuSpec& gpu,
                                         const std::string& network_key);

/// What a power cap did to a prediction (NetworkPrediction::power_cap).
struct PowerCapOutcome {
  double limit_w = 0;               ///< the cap, W
  bool binding = false;             ///< the uncapped step draws more than the cap
  bool at_clock_floor = false;      ///< even the lowest clock draws more than the cap
  double clock_ratio = 1;           ///< SM clock under the cap / boost clock
  double uncapped_latency_ms = 0;   ///< the same step without a cap, ms
  double uncapped_energy_j = 0;     ///< J
  double uncapped_avg_power_w = 0;  ///< W
};

/// The step's correction to its summed kernel time `kernel_ms`, ms: kernel_ms x
/// (l2_resident_scale x kernel_time_scale x step_scale - 1), with `overhead`'s scales (the
/// end-to-end calibration: its measuring machine's steps ran faster or slower than the summed
/// layer predictions; 1 under the cudnn runtime) and the step's L2 residency
/// (EagerTerms::l2_resident_scale): negative below 1.
[[nodiscard]] double step_kernel_scale_ms(double kernel_ms, Runtime runtime,
                                          const EagerOverhead& overhead, double l2_resident_scale);
/// What the runtime adds to a step, ms: latency_ms - kernel_ms - kernel_scale_ms, with the
/// rounding residue of a step that adds nothing (a few ulps below 0) written as 0.
[[nodiscard]] double step_overhead_ms(double latency_ms, double kernel_ms, double kernel_scale_ms);

/// A whole network's prediction (the result model; printers below).
struct NetworkPrediction {
  GpuSpec gpu;
  std::string network;
  std::string network_source;
  std::string model;        ///< which LatencyModel produced it
  std::string power_model;  ///< where the power model's numbers came from
  std::int64_t batch = 1;
  Mode mode = Mode::kInference;
  DType precision = DType::kFp32;
  Runtime runtime = Runtime::kPytorch;  ///< what runs the step (latency_ms is under it)
  int tf32_convolutions = 0;  ///< fp32 convolutions predicted on TF32 tensor cores (runs_tf32)
  std::vector<Layer> layers;
  std::vector<LayerPrediction> predictions;
  EagerTerms eager;        ///< terms of the end-to-end formula (kernel_ms before any cap)
  EagerOverhead overhead;  ///< the model's eager-framework overhead for this GPU
  double kernel_ms = 0;    ///< sum of GPU kernel time, ms
  double latency_ms = 0;   ///< wall time of one step under `runtime`, ms
  /// step_kernel_scale_ms of this step, ms.
  [[nodiscard]] double kernel_scale_ms() const {
    return step_kernel_scale_ms(kernel_ms, runtime, overhead, eager.l2_resident_scale);
  }
  /// What the runtime adds to the step, ms: latency_ms - kernel_ms - kernel_scale_ms(), never
  /// negative (the step holds its scaled kernels).
  [[nodiscard]] double overhead_ms() const {
    return step_overhead_ms(latency_ms, kernel_ms, kernel_scale_ms());
  }
  double energy_j = 0;     ///< energy of one step, J
  double avg_power_w = 0;  ///< energy_j / latency
  /// A lower bound of the device memory one GPU needs for the step, GB (1e9 bytes): the
  /// weights (twice in training: their gradients) plus the largest layer's input and output
  /// tensors; in training at least the weights plus every batchnorm or layernorm input,
  /// which the layer keeps for its gradients. The real peak is higher (other activations,
  /// workspaces, the CUDA context); above the GPU's memory_gb the step cannot run, and a
  /// warning says so.
  double min_memory_gb = 0;
  std::optional<PowerCapOutcome> power_cap;  ///< set when a cap was applied
  /// The 80 % interval of latency_ms (the step), from the end-to-end residuals; unset where
  /// none covers it (interval_note says why).
  std::optional<LatencyInterval> latency_interval;
  std::string interval_source;  ///< the table the intervals came from; empty: none
  std::string interval_note;    ///< why the step or some layers have no interval; empty: none
  /// ONNX nodes the importer skipped (ImportOptions::skip_unsupported): they have no
  /// prediction and the totals leave them out; every output format says how many.
  std::vector<SkippedNode> skipped_nodes;
  std::vector<std::string> warnings;
};

/// True when `needed_gb` (1e9 bytes) surely exceeds a GPU's `memory_gb`: the board's marketing
/// figure is read as GiB, the larger reading, so that a step that might fit is never refused.
/// False when memory_gb is 0 (not given).
inline constexpr double kGbPerGib = 1.073741824;  ///< 2^30 / 1e9
[[nodiscard]] inline bool exceeds_gpu_memory(double needed_gb, double memory_gb) {
  return memory_gb > 0 && needed_gb > memory_gb * kGbPerGib;
}

/// The bytes a step keeps resident, whatever the allocator does: every weight (and, in
/// training, its gradient) and one layer's input and output; in training at least every
/// weight and every normalization layer's input, which it keeps for its gradients. In
/// `precision`'s bytes (NetworkPrediction::min_memory_gb is this in GB).
[[nodiscard]] double step_resident_bytes(const std::vector<Layer>& layers, DType precision,
                                         Mode mode);

/// L2 read bandwidth over DRAM bandwidth: 3.5 (V100 3.1 TB/s over 0.9, A100 7.2 over 1.56,
/// H100 9.0 over 3.35: 3.5, 4.6 and 2.7).
inline constexpr double kL2BandwidthMultiple = 3.5;
/// A step repeated back to back whose resident set (`resident_bytes`: its weights and its
/// largest layer's input and output, min_memory_gb) fits in the GPU's L2 cache finds its tensors
/// there: each layer's DRAM time runs at kL2BandwidthMultiple x the DRAM rate. The share of
/// the layers' summed kernel time (`predictions`, `layers`' own) the step keeps then, by the
/// analytical model's estimates of each layer with and without that rate, <= 1; 1 when the
/// set does not fit or nothing runs.
[[nodiscard]] double l2_resident_kernel_scale(const std::vector<Layer>& layers,
                                              const std::vector<LayerPrediction>& predictions,
                                              const GpuSpec& gpu, const AnalyticalParams& params,
                                              double resident_bytes);

/// Predicts every layer and the end-to-end totals under `runtime`, with power from `power`.
/// Each layer's kernel_ms is the one predict_layers_under gives it; overhead_ms is the
/// runtime's for the op run alone. The network's layers keep their allow_tf32 marks
/// (apply_runtime_math sets them).
[[nodiscard]] NetworkPrediction predict_network(const Network& network, const GpuSpec& gpu,
                                                const LatencyModel& model, Mode mode,
                                                const PowerModel& power,
                                                Runtime runtime = Runtime::kPytorch);

/// What `runtime` adds to each op run alone, into predictions[i].overhead_ms (`layers[i]`'s),
/// with `overhead` the eager overhead as it applies to the GPU (overhead_for_gpu). PyTorch:
/// max(kernel time + the gaps between its kernels, the host's time to issue it) - kernel time,
/// the host time x training_host_factor for a training pass; cuDNN: the gaps between its
/// kernels. An op without kernels adds nothing.
void apply_runtime_overhead(const std::vector<Layer>& layers,
                            std::vector<LayerPrediction>& predictions, Runtime runtime,
                            const EagerOverhead& overhead);

/// Merges the kernels of a network's ops as `runtime` does (RuntimeTraits::fusion): each op
/// fused into another gets kernel_ms, kernels, roofline_ms and energy 0, bound "fused" and
/// fused_into the absorbing layer's name (its index when it has none); the absorbing layer
/// keeps its own prediction. Layers whose prediction has no kernel (views) pass through
/// a chain. No change under a runtime without fusion.
void apply_runtime_fusion(const std::vector<Layer>& layers,
                          std::vector<LayerPrediction>& predictions, Runtime runtime);

/// The overhead `runtime` adds to `model`'s kernels on `gpu`: the eager overhead for cuDNN and
/// PyTorch (overhead_for_gpu), the model's runtime_overhead otherwise. Throws InputError when
/// the model has none for that runtime.
[[nodiscard]] EagerOverhead runtime_overhead_for(const LatencyModel& model, Runtime runtime,
                                                 const GpuSpec& gpu);

/// One prediction per layer as its own op (`predict --layers`): the kernel time predict_network
/// gives the same layer (LatencyModel::predict_network_layers), its power, and `runtime`'s
/// overhead with the model's eager overhead for `gpu`. The layers' allow_tf32 marks are used
/// as they are (apply_runtime_math sets them).
[[nodiscard]] std::vector<LayerPrediction> predict_layers_under(const std::vector<Layer>& layers,
                                                                const GpuSpec& gpu,
                                                                const LatencyModel& model,
                                                                Runtime runtime,
                                                                const PowerModel& power);

/// The largest host time per op set_host_ms_per_op takes, ms: a second per op, three orders
/// above any measured machine's, and far below where a step's sums stop being finite.
inline constexpr double kMaxHostMsPerOp = 1000.0;

/// Replaces the host time to issue one op (ms; the user's machine's) and recomputes the
/// totals. Call before apply_power_limit. Throws ParameterError (host_ms_per_op) unless
/// 0 < ms <= kMaxHostMsPerOp.
void set_host_ms_per_op(NetworkPrediction& prediction, double ms, const PowerModel& power);

/// The step's input batch is already on the GPU (made there, or staged before the step, as
/// timm's benchmark does): no host-to-device copy of it, and the totals recomputed. Under
/// the runtimes other than pytorch the step has no copy anyway. Call before
/// apply_power_limit.
void set_input_on_gpu(NetworkPrediction& prediction, const PowerModel& power);

/// The most GPUs set_num_gpus accepts (one node; the calibration rows have 2 to 4).
inline constexpr int kMaxDataParallelGpus = 16;
/// Spreads the step over `num_gpus` GPUs with nn.DataParallel, the batch per GPU unchanged
/// (global batch = num_gpus x batch), and recomputes the totals: latency_ms adds the
/// calibrated data-parallel terms, energy_j and avg_power_w then cover all the GPUs. Call
/// before apply_power_limit, which refuses num_gpus > 1. Throws ParameterError (num_gpus)
/// unless num_gpus is 1 to 16, or when the model's overhead has no data-parallel calibration.
void set_num_gpus(NetworkPrediction& prediction, int num_gpus, const PowerModel& power);

/// Re-assigns every layer's power and the totals with `power` (e.g. while calibrating it).
/// Call before apply_power_limit; latency is unchanged.
void set_power(NetworkPrediction& prediction, const PowerModel& power);

/// Applies a board power cap (W) to an uncapped prediction, in place: finds the highest SM
/// clock whose average step power fits the cap, stretches the compute-bound share of every
/// layer, and recomputes latency, energy and power (layers and totals). A cap at or above the
/// uncapped power changes nothing but records the outcome. Throws ParameterError
/// (power_limit_w) when the cap is not above the GPU's idle power, or with num_gpus > 1.
void apply_power_limit(NetworkPrediction& prediction, double limit_w, const PowerModel& power);

/// One layer of a network prediction as its JSON holds it: the layer's name, op and shape, its
/// size (computed from the whole Layer when written: the JSON leaves out fields such as dtype
/// and pass that they also depend on), and its prediction.
struct LayerPredictionRecord {
  std::string name;
  /// to_string(Op), as written: a file naming an op this build does not know stays readable.
  std::string op;
  std::int64_t batch = 1;
  std::int64_t c_in = 1;
  std::int64_t h_in = 1;
  std::int64_t w_in = 1;
  std::int64_t c_out = 1;
  std::int64_t h_out = 1;
  std::int64_t w_out = 1;
  std::int64_t kernel_h = 1;
  std::int64_t kernel_w = 1;
  std::int64_t stride_h = 1;
  std::int64_t stride_w = 1;
  std::int64_t pad_h = 0;
  std::int64_t pad_w = 0;
  std::int64_t dilation_h = 1;
  std::int64_t dilation_w = 1;
  std::int64_t groups = 1;
  std::int64_t params = 0;
  double flops = 0;
  double bytes = 0;
  LayerPrediction prediction;
};

/// A network prediction as its JSON (kind "network_prediction") holds it: the prediction's
/// members but the layers, which are records, and the end-to-end terms, of which the JSON
/// keeps num_gpus.
struct NetworkPredictionRecord {
  GpuSpec gpu;  ///< a file naming the GPU by a string alone: only its name
  std::string network;
  std::string network_source;
  std::string model;
  std::string power_model;
  std::int64_t batch = 1;
  int num_gpus = 1;
  Mode mode = Mode::kInference;
  DType precision = DType::kFp32;
  Runtime runtime = Runtime::kPytorch;
  int tf32_convolutions = 0;
  std::vector<LayerPredictionRecord> layers;
  double kernel_ms = 0;
  double latency_ms = 0;
  std::optional<LatencyInterval> latency_interval;
  double energy_j = 0;
  double avg_power_w = 0;
  double min_memory_gb = 0;
  double l2_resident_scale = 1;  ///< EagerTerms::l2_resident_scale
  EagerOverhead overhead;
  std::string interval_source;
  std::string interval_note;
  std::vector<SkippedNode> skipped_nodes;
  std::vector<std::string> warnings;
  std::optional<PowerCapOutcome> power_cap;

  /// As NetworkPrediction's.
  [[nodiscard]] double kernel_scale_ms() const {
    return step_kernel_scale_ms(kernel_ms, runtime, overhead, l2_resident_scale);
  }
  [[nodiscard]] double overhead_ms() const {
    return step_overhead_ms(latency_ms, kernel_ms, kernel_scale_ms());
  }
};

/// The record of a prediction: what to_json writes of it.
[[nodiscard]] NetworkPredictionRecord network_prediction_record(
    const NetworkPrediction& prediction);

/// Printers of one result model. to_json of a prediction is to_json of its record.
[[nodiscard]] nlohmann::json to_json(const NetworkPrediction& prediction);
[[nodiscard]] nlohmann::json to_json(const NetworkPredictionRecord& record);
/// Parses what to_json writes: to_json of the result gives the document back. A member the
/// layout lacks takes the struct's default, and a layer without kernel_ms takes its latency_ms
/// as kernel time (files of older versions); a member of the wrong type throws nlohmann's
/// type_error; an unknown mode, precision or runtime, a damaged GPU entry or eager_overhead
/// InputError.
[[nodiscard]] NetworkPredictionRecord network_prediction_from_json(const nlohmann::json& doc);
[[nodiscard]] std::string format_prediction(const NetworkPrediction& prediction,
                                            OutputFormat format);

}  // namespace cnnperf
