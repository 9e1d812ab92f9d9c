// SPDX-License-Identifier: Apache-2.0
// Per-layer and end-to-end prediction: the model interface, the result model, its printers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/analytical.hpp"
#include "cnnperf/gpu_spec.hpp"
#include "cnnperf/io.hpp"
#include "cnnperf/layer.hpp"
#include "cnnperf/network.hpp"

namespace cnnperf {

inline constexpr int kPredictionSchemaVersion = 1;

/// One layer's prediction.
struct LayerPrediction {
  double latency_ms = 0;    ///< GPU kernel time of the op (all its kernels), ms
  double roofline_ms = 0;   ///< physical lower bound, ms; latency_ms never goes below it
  double energy_mj = 0;     ///< energy of the op, mJ (= avg_power_w x latency_ms)
  double avg_power_w = 0;   ///< average board power while it runs, W
  bool in_distribution = true;  ///< false when outside the model's training ranges
  int kernels = 1;          ///< kernel launches
  std::string bound;        ///< compute | memory | overhead | none
  std::string algorithm;    ///< analytical mapping (implicit_gemm, winograd, ...)
};

/// What an eager framework adds around the kernels of one step (DESIGN `latency_ms`):
/// wall = fixed + input copy + max(kernel time + per-kernel gaps, host issue time).
struct EagerOverhead {
  double host_ms_per_op = 0.012;     ///< host-side dispatch per op (framework + launch), ms
  double gpu_gap_ms_per_kernel = 0.002;  ///< idle gap between dependent kernels, ms
  double fixed_ms = 0.05;            ///< per-step constant (synchronize, allocator), ms
  double h2d_gbs = 11.0;             ///< host-to-device copy rate of the input batch, GB/s
  double training_host_factor = 3.0; ///< host ops of a training step per forward op
  std::string source = "default";    ///< where these numbers came from
};

/// Average board power model: idle + (board power - idle) x activity, where activity grows
/// with compute and memory utilization. Calibrated in issue 6; defaults documented.
struct PowerParams {
  double compute_weight = 0.85;  ///< activity per unit compute utilization
  double memory_weight = 0.60;   ///< activity per unit memory utilization
  double floor_activity = 0.25;  ///< activity of a busy but stalled GPU (launch-bound)
  std::string source = "default";
};

/// Average power (W) of a layer given its analytical utilizations.
[[nodiscard]] double layer_power_w(const LayerEstimate& estimate, const GpuSpec& gpu,
                                   const PowerParams& params);

/// A latency model: analytical, or learned (src/ml). Implementations are immutable after
/// construction and safe to call from several threads.
class LatencyModel {
 public:
  virtual ~LatencyModel() = default;
  /// "analytical" or the model file's name.
  [[nodiscard]] virtual std::string name() const = 0;
  /// One prediction per layer, same order. Never below the roofline bound.
  [[nodiscard]] virtual std::vector<LayerPrediction> predict_layers(
      const std::vector<Layer>& layers, const GpuSpec& gpu) const = 0;
  /// End-to-end overhead parameters of an eager framework.
  [[nodiscard]] virtual EagerOverhead eager_overhead() const { return {}; }
};

/// The analytical model as a LatencyModel.
class AnalyticalModel final : public LatencyModel {
 public:
  explicit AnalyticalModel(AnalyticalParams params = {}, PowerParams power = {},
                           EagerOverhead overhead = {})
      : params_(params), power_(std::move(power)), overhead_(std::move(overhead)) {}
  [[nodiscard]] std::string name() const override { return "analytical"; }
  [[nodiscard]] std::vector<LayerPrediction> predict_layers(const std::vector<Layer>& layers,
                                                            const GpuSpec& gpu) const override;
  [[nodiscard]] EagerOverhead eager_overhead() const override { return overhead_; }

 private:
  AnalyticalParams params_;
  PowerParams power_;
  EagerOverhead overhead_;
};

enum class Mode { kInference, kTraining };
[[nodiscard]] std::string to_string(Mode mode);
[[nodiscard]] Mode mode_from_string(std::string_view text);

/// A whole network's prediction (the result model; printers below).
struct NetworkPrediction {
  GpuSpec gpu;
  std::string network;
  std::string network_source;
  std::string model;        ///< which LatencyModel produced it
  std::int64_t batch = 1;
  Mode mode = Mode::kInference;
  DType precision = DType::kFp32;
  double power_limit_w = 0; ///< 0: none
  std::vector<Layer> layers;
  std::vector<LayerPrediction> predictions;
  double kernel_ms = 0;     ///< sum of GPU kernel time
  double latency_ms = 0;    ///< end-to-end wall time of one step in an eager framework
  double energy_j = 0;      ///< energy of one step, J
  double avg_power_w = 0;   ///< energy_j / latency
  std::vector<std::string> warnings;
};

/// Predicts every layer and the end-to-end totals.
[[nodiscard]] NetworkPrediction predict_network(const Network& network, const GpuSpec& gpu,
                                                const LatencyModel& model, Mode mode);

/// What the end-to-end formula needs from a network's prediction.
struct EagerTerms {
  double kernel_ms = 0;    ///< sum of predicted kernel time, ms
  int ops = 0;             ///< ops that launch at least one kernel
  int kernels = 0;         ///< kernel launches
  double input_bytes = 0;  ///< input batch copied host-to-device, bytes
  bool training = false;
};
/// wall = fixed + input copy + max(kernel time + per-kernel gaps, host issue time), ms.
[[nodiscard]] double eager_latency_ms(const EagerTerms& terms, const EagerOverhead& overhead);

/// The end-to-end wall time (ms) of one step for a set of layer predictions.
[[nodiscard]] double eager_latency_ms(const Network& network, const NetworkPrediction& prediction,
                                      const EagerOverhead& overhead);

/// Printers of one result model.
[[nodiscard]] nlohmann::json to_json(const NetworkPrediction& prediction);
[[nodiscard]] std::string format_prediction(const NetworkPrediction& prediction,
                                            OutputFormat format);

}  // namespace cnnperf
