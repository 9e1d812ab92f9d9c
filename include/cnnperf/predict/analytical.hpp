// SPDX-License-Identifier: Apache-2.0
// The analytical latency model (DESIGN §4): roofline bound, implicit-GEMM tile and wave
// quantization, occupancy, memory-bound ops against bandwidth, per-kernel overhead.
// It needs no training data, is always available, and is a feature source for learned models.
#pragma once

#include <algorithm>
#include <map>
#include <string>

#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {

/// Assumptions of the analytical model; defaults documented in docs/methodology.md.
struct AnalyticalParams {
  /// Fixed cost of a kernel on the GPU timeline (launch to first CTA, prologue, tail), in SM
  /// cycles at the boost clock: 4 us at the A100's 1,410 MHz, 2.8 us at the H100's 1,980.
  double kernel_overhead_cycles = 5640;
  double memory_efficiency = 0.80;       ///< achievable share of peak DRAM bandwidth
  double tensor_core_efficiency = 0.55;  ///< achievable share of the tensor-core peak
  /// The same for fp16 layers, by GpuSpec::architecture, fitted on end-to-end steps (`cnnperf
  /// train e2e`, models/eager_overhead.json "kernel_model"); the key "*" holds the fit over
  /// every architecture, for one without rows. Empty: tensor_core_efficiency.
  std::map<std::string, double> tensor_core_fp16_efficiency;
  bool allow_winograd = true;  ///< let 3x3/stride-1 convs use Winograd F(4x4,3x3)
  /// SM cycles per window tap of a max or average pool (per output, k_h x k_w taps): PyTorch's
  /// pooling kernels are bound by per-output index work, not DRAM. HELP's 3x3 average pools at
  /// batch 256 took 0.45-0.55 on two Pascal and two Turing GPUs (docs/methodology.md).
  double pool_sm_cycles_per_tap = 0.5;
  /// The same for a depthwise convolution (k_h x k_w taps per output): HELP's FBNet blocks
  /// with 5x5 instead of 3x3 depthwise kernels fit 0.15-0.2 (docs/methodology.md).
  double depthwise_sm_cycles_per_tap = 0.18;
};

/// A kernel's fixed cost on `gpu` (ms): kernel_overhead_cycles at its boost clock
/// (GpuSpec::boost_cycles_per_ms).
[[nodiscard]] double kernel_overhead_ms(const AnalyticalParams& params, const GpuSpec& gpu);

/// The share of the tensor-core peak an fp16 layer sustains on an architecture: its fitted
/// value, else the fit over every architecture ("*"), else tensor_core_efficiency.
[[nodiscard]] double fp16_tensor_core_efficiency(const AnalyticalParams& params,
                                                 const std::string& architecture);

/// One implicit-GEMM tile configuration (block tile and its resources).
struct TileConfig {
  int block_m = 128;  ///< output pixels per CTA
  int block_n = 128;  ///< output channels per CTA
  int threads = 256;  ///< threads per CTA
  int registers_per_thread = 128;
  int shared_bytes = 16384;  ///< shared memory per CTA
  double efficiency = 0.8;   ///< share of the SM's FMA peak a full tile sustains
};

/// Everything the model derives for one layer on one GPU.
struct LayerEstimate {
  double flops = 0;                 ///< forward FLOPs (multiply-add = 2)
  double bytes = 0;                 ///< compulsory DRAM bytes
  double arithmetic_intensity = 0;  ///< flops / bytes
  double peak_tflops = 0;           ///< compute peak used for this layer (dtype, tensor cores)
  double roofline_ms = 0;  ///< max(fewest flops/peak, bytes/bandwidth): the physical lower bound
  double compute_ms = 0;   ///< quantized compute time of the chosen mapping
  double memory_ms = 0;    ///< modeled DRAM traffic time
  double latency_ms = 0;   ///< the model's estimate (>= roofline_ms)
  /// Part of latency_ms spent moving tensors through NCHW<->NHWC transposes around an NHWC
  /// kernel (their launches are in `kernels`); 0 when none run.
  double layout_transform_ms = 0;
  /// latency_ms without the layout transposes: the convolution's own kernels.
  [[nodiscard]] double main_kernels_ms() const { return latency_ms - layout_transform_ms; }
  /// The layer's time with its own kernels taking `main_ms` instead (a learned model's scaled
  /// estimate), never under the roofline, plus the transposes as modelled here: no training
  /// row ran them, so a ratio learned on rows scales the main kernels only.
  [[nodiscard]] double with_main_kernels_ms(double main_ms) const {
    return std::max(main_ms, roofline_ms) + layout_transform_ms;
  }
  // Mapping details (implicit GEMM; zero for memory-bound ops).
  double gemm_m = 0, gemm_n = 0, gemm_k = 0;
  int tile_m = 0, tile_n = 0;
  double tile_efficiency = 1;      ///< useful / computed share of the padded tiles, (0,1]
  double waves = 0;                ///< CTAs / (SMs x CTAs per SM)
  double wave_efficiency = 1;      ///< waves / ceil(waves), (0,1]
  double occupancy = 0;            ///< resident warps / max warps per SM, (0,1]
  int kernels = 1;                 ///< kernel launches of this op (0 for views)
  std::string algorithm;           ///< implicit_gemm | winograd | depthwise | gemm | memory | none
  std::string bound;               ///< compute | memory | overhead | none
  double compute_utilization = 0;  ///< compute_ms / latency_ms
  double memory_utilization = 0;   ///< memory_ms / latency_ms
};

/// Estimates one layer's forward (or training-step, per layer.pass) time on `gpu`.
[[nodiscard]] LayerEstimate estimate_layer(const Layer& layer, const GpuSpec& gpu,
                                           const AnalyticalParams& params = {});

/// Roofline lower bound of a layer, ms (no overheads, peak rates): max(bytes / bandwidth,
/// flops / fast_algorithm_flop_reduction / peak).
[[nodiscard]] double roofline_ms(const Layer& layer, const GpuSpec& gpu);

/// How many times fewer flops than direct convolution the fastest algorithm a library may
/// run needs (>= 1): Winograd F(4x4,3x3) 4x for 3x3, FFT kh*kw/4; stride-1, undilated
/// convolutions only, 1 for every other layer.
[[nodiscard]] double fast_algorithm_flop_reduction(const Layer& layer);

/// The compute peak (TFLOPS, or TOPS for int8) a layer of this dtype/op can use on `gpu`.
/// Convolutions and GEMMs of bf16 or int8 with channels per group a multiple of 8 run at the
/// GPU's tensor_bf16_tflops or tensor_int8_tops; every other bf16 or int8 layer (pointwise,
/// depthwise, a 3-channel stem) at the FP32 CUDA-core peak.
[[nodiscard]] double compute_peak_tflops(const Layer& layer, const GpuSpec& gpu);

/// What `gpu` lacks to run `dtype` as the analytical model prices it: empty when it can
/// (fp32 and fp16 always; bf16 needs tensor_bf16_tflops, int8 tensor_int8_tops), else a
/// sentence naming the GPU and the missing rate.
[[nodiscard]] std::string precision_unsupported_reason(const GpuSpec& gpu, DType dtype);

/// True when the layer is an fp32 convolution allowed TF32 (Layer::allow_tf32, not grouped)
/// and `gpu` has TF32 tensor cores (compute capability 8.0 and later, with a tensor peak).
[[nodiscard]] bool runs_tf32(const Layer& layer, const GpuSpec& gpu);

/// True when the analytical model runs the layer's main kernels on tensor cores: a TF32
/// convolution (runs_tf32), or an fp16, bf16 or int8 convolution or GEMM with channels per
/// group a multiple of 8 on a GPU with that type's tensor rate.
[[nodiscard]] bool runs_on_tensor_cores(const Layer& layer, const GpuSpec& gpu);

/// Work multiplier of a pass relative to the forward pass (training = forward + backward:
/// 3x for conv/linear, 2x otherwise; each backward convolution alone 1x).
[[nodiscard]] double pass_work_factor(const Layer& layer);

}  // namespace cnnperf
