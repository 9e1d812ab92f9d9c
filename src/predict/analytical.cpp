// SPDX-License-Identifier: Apache-2.0
// Analytical layer latency: roofline, implicit-GEMM tiles and waves, occupancy, bandwidth.
#include "cnnperf/predict/analytical.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace cnnperf {

// An fp32 convolution allowed to use TF32 on a GPU with TF32 tensor cores (Ampere and later:
// tensor_tf32_tflops). Grouped and depthwise convolutions stay on CUDA cores.
bool runs_tf32(const Layer& layer, const GpuSpec& gpu) {
  return layer.allow_tf32 && layer.dtype == DType::kFp32 && layer.op == Op::kConv2d &&
         layer.groups == 1 && gpu.tensor_tf32_tflops > 0;
}

namespace {

// Direct-convolution flops over the peak and compulsory bytes over the bandwidth, ms, of the
// pass the layer describes.
struct RooflineTerms {
  double direct_compute_ms = 0;
  double memory_ms = 0;
};
RooflineTerms roofline_terms(const Layer& layer, const GpuSpec& gpu);
// The physical lower bound from those terms: the fewest flops any algorithm needs, or bytes.
double lower_bound_ms(const RooflineTerms& terms, const Layer& layer);

// Tile menu of a cuDNN/CUTLASS-like implicit GEMM (fp32 SIMT). Efficiencies are the share of
// the SM's FMA peak a full tile sustains: larger tiles reuse more operands per load.
constexpr std::array<TileConfig, 7> kTiles{{
    {128, 128, 256, 128, 32768, 0.80},
    {128, 64, 128, 128, 24576, 0.74},
    {64, 128, 128, 128, 24576, 0.74},
    {64, 64, 128, 64, 16384, 0.62},
    {64, 32, 64, 64, 12288, 0.50},
    {32, 32, 64, 48, 8192, 0.38},
    {128, 16, 128, 64, 10240, 0.35},  // narrow-N (small per-group channel counts)
}};

constexpr double kMsPerSecond = 1e3;
constexpr double kMinSaturatingBytesPerSm = 64.0 * 1024;  // in flight to saturate DRAM

double ceil_div(double a, double b) {
  return std::ceil(a / b);
}

int ctas_per_sm(const TileConfig& tile, const GpuSpec& gpu) {
  const int by_threads = std::max(1, gpu.max_threads_per_sm / tile.threads);
  const int by_regs =
      std::max(1, gpu.registers_per_sm / (tile.registers_per_thread * tile.threads));
  const double smem_bytes = gpu.shared_mem_per_sm_kb > 0 ? gpu.shared_mem_per_sm_kb * 1024 : 49152;
  const int by_smem = std::max(1, static_cast<int>(smem_bytes / tile.shared_bytes));
  const int by_blocks = std::max(1, gpu.max_blocks_per_sm);
  return std::min({by_threads, by_regs, by_smem, by_blocks});
}

double bandwidth_bytes_per_ms(const GpuSpec& gpu, const AnalyticalParams& params, double bytes) {
  const double peak = gpu.memory_bandwidth_gbs * 1e9 / kMsPerSecond;
  // Small transfers cannot keep enough requests in flight to reach the sustained rate.
  const double saturation = std::max(1.0, gpu.sm_count * kMinSaturatingBytesPerSm);
  const double fill = std::clamp(std::sqrt(bytes / saturation), 0.1, 1.0);
  return peak * params.memory_efficiency * fill;
}

struct GemmShape {
  double m = 0, n = 0, k = 0;
  double batch = 1;  // independent GEMMs (groups, Winograd tiles)
};

struct GemmTiming {
  double compute_ms = std::numeric_limits<double>::infinity();
  const TileConfig* tile = nullptr;
  double tile_efficiency = 1, waves = 0, wave_efficiency = 1, occupancy = 0;
};

// Best tile for a batched GEMM: padded work, busiest-SM quantization, occupancy.
GemmTiming time_gemm(const GemmShape& shape, const GpuSpec& gpu, double peak_tflops,
                     double efficiency_scale) {
  GemmTiming best;
  const double sm_rate = peak_tflops * 1e12 / kMsPerSecond / std::max(1, gpu.sm_count);
  for (const auto& tile : kTiles) {
    const double tiles_m = ceil_div(shape.m, tile.block_m);
    const double tiles_n = ceil_div(shape.n, tile.block_n);
    double ctas = tiles_m * tiles_n * shape.batch;
    const int resident = ctas_per_sm(tile, gpu);
    // Split-K when the grid cannot fill the GPU and K is long (cuBLAS/cuDNN do this).
    double splits = 1;
    if (ctas < gpu.sm_count && shape.k >= 512) {
      splits = std::clamp(std::floor(gpu.sm_count / ctas), 1.0, std::floor(shape.k / 256));
    }
    ctas *= splits;
    const double k_per_cta = std::ceil(shape.k / splits);
    const double tile_flops = 2.0 * tile.block_m * tile.block_n * k_per_cta;
    const double busiest = ceil_div(ctas, gpu.sm_count);
    const double resident_now = std::min<double>(busiest, resident);
    const double warps = resident_now * tile.threads / 32.0;
    const double max_warps = gpu.max_threads_per_sm / 32.0;
    // Fewer than ~8 resident warps cannot hide memory latency.
    const double hiding = std::clamp(warps / 8.0, 0.25, 1.0);
    const double rate = sm_rate * tile.efficiency * efficiency_scale * hiding;
    const double compute_ms = busiest * tile_flops / rate;
    if (compute_ms < best.compute_ms) {
      best.compute_ms = compute_ms;
      best.tile = &tile;
      best.tile_efficiency =
          (shape.m * shape.n) / (tiles_m * tile.block_m * tiles_n * tile.block_n);
      best.waves = ctas / (static_cast<double>(gpu.sm_count) * resident);
      best.wave_efficiency = best.waves / std::ceil(best.waves);
      best.occupancy = std::min(1.0, resident * tile.threads / 32.0 / max_warps);
    }
  }
  return best;
}

// The dense tensor-core peak of a layer's element type on `gpu`, 0 when it has none.
double tensor_peak(DType dtype, const GpuSpec& gpu) {
  switch (dtype) {
    case DType::kFp16: return gpu.tensor_fp16_tflops;
    case DType::kBf16: return gpu.tensor_bf16_tflops;
    case DType::kInt8: return gpu.tensor_int8_tops;
    case DType::kFp32: return 0;
  }
  return 0;
}

}  // namespace

bool runs_on_tensor_cores(const Layer& layer, const GpuSpec& gpu) {
  if (runs_tf32(layer, gpu)) return true;
  if (tensor_peak(layer.dtype, gpu) <= 0) return false;
  const OpClass cls = op_class(layer.op);
  if (cls != OpClass::kConv && cls != OpClass::kGemm) return false;
  const auto per_group_in = layer.c_in / std::max<std::int64_t>(1, layer.groups);
  const auto per_group_out = layer.c_out / std::max<std::int64_t>(1, layer.groups);
  return per_group_in % 8 == 0 && per_group_out % 8 == 0;
}

namespace {

// cuDNN's tensor-core convolution kernels (and Hopper's half-precision depthwise ones) read
// and write NHWC tensors. Called with NCHW ones, cuDNN transposes the input and the filter
// before the main kernel and the output after it, each a streaming kernel that reads and
// writes its tensor once. A 1x1 stride-1 convolution runs as a GEMM on NCHW as it stands, and
// a 1x1 filter is the same in both layouts. Without a transpose kernel: 0; `kernels` counts
// the transposes launched.
double layout_transform_ms(const Layer& layer, const GpuSpec& gpu, const AnalyticalParams& p,
                           bool nhwc_kernel, int& kernels) {
  kernels = 0;
  if (!nhwc_kernel || layer.op != Op::kConv2d || layer.layout != Layout::kNchw) return 0;
  const bool one_by_one = layer.kernel_h == 1 && layer.kernel_w == 1;
  if (one_by_one && layer.stride_h == 1 && layer.stride_w == 1) return 0;
  const double bpe = bytes_per_element(layer.dtype);
  double ms = 0;
  const auto transpose = [&](double elements) {
    const double moved = 2 * bpe * elements;  // read once, written once
    ms += moved / bandwidth_bytes_per_ms(gpu, p, moved);
    ++kernels;
  };
  transpose(static_cast<double>(layer.input_elements()));
  if (!one_by_one) transpose(static_cast<double>(layer.params()));
  transpose(static_cast<double>(layer.output_elements()));
  return ms;
}

void finish(LayerEstimate& e, const Layer& layer, const GpuSpec& gpu, const AnalyticalParams& p) {
  const double factor = pass_work_factor(layer);
  e.compute_ms *= factor;
  e.memory_ms *= factor;
  e.layout_transform_ms *= factor;
  const RooflineTerms bound = roofline_terms(layer, gpu);
  e.roofline_ms = lower_bound_ms(bound, layer);
  if (e.kernels > 0) e.kernels = static_cast<int>(std::lround(e.kernels * factor));
  const double overhead_ms = e.kernels * kernel_overhead_ms(p, gpu);
  const double body_ms = std::max(e.compute_ms, e.memory_ms);
  // The estimate itself stays at or above the direct-convolution flops over the peak: its
  // Winograd mapping alone is optimistic (NeuSight conv rows: 48.7 % MAPE instead of 31.0 %
  // on non-fused Winograd kernels without this floor). roofline_ms is the physical bound.
  e.latency_ms =
      std::max(body_ms + overhead_ms, std::max(bound.direct_compute_ms, bound.memory_ms)) +
      e.layout_transform_ms;
  if (e.kernels == 0) {
    e.bound = "none";
  } else if (overhead_ms > body_ms) {
    e.bound = "overhead";
  } else {
    e.bound = e.compute_ms >= e.memory_ms ? "compute" : "memory";
  }
  if (e.latency_ms > 0) {
    e.compute_utilization = std::min(1.0, e.compute_ms / e.latency_ms);
    e.memory_utilization = std::min(1.0, e.memory_ms / e.latency_ms);
  }
}

void estimate_gemm_like(LayerEstimate& e, const Layer& layer, const GpuSpec& gpu,
                        const AnalyticalParams& p) {
  const bool tensor = runs_on_tensor_cores(layer, gpu);
  const double peak = e.peak_tflops;  // the tensor-core peak (FP16 or TF32) when eligible
  // fp16 on tensor cores: the architecture's fitted share (AMP steps measured 24-33 % slower
  // than one shared share predicted on Turing and Ampere); TF32 keeps the shared one.
  const double tensor_efficiency = layer.dtype == DType::kFp16
                                       ? fp16_tensor_core_efficiency(p, gpu.architecture)
                                       : p.tensor_core_efficiency;
  const double scale = tensor ? tensor_efficiency / kTiles[0].efficiency : 1.0;
  const double bpe = bytes_per_element(layer.dtype);
  const double in_bytes = bpe * static_cast<double>(layer.input_elements());
  const double w_bytes = bpe * static_cast<double>(layer.params());
  const double out_bytes = bpe * static_cast<double>(layer.output_elements());

  GemmShape shape;
  if (layer.op == Op::kLinear) {
    shape = {static_cast<double>(layer.batch * layer.h_in * layer.w_in),
             static_cast<double>(layer.c_out), static_cast<double>(layer.c_in), 1};
    e.algorithm = "gemm";
  } else {
    const double g = static_cast<double>(layer.groups);
    shape = {
        static_cast<double>(layer.batch * layer.h_out() * layer.w_out()),
        static_cast<double>(layer.c_out) / g,
        static_cast<double>(layer.c_in) / g * static_cast<double>(layer.kernel_h * layer.kernel_w),
        g};
    e.algorithm = "implicit_gemm";
  }
  e.gemm_m = shape.m;
  e.gemm_n = shape.n;
  e.gemm_k = shape.k;
  GemmTiming timing = time_gemm(shape, gpu, peak, scale);

  // Operand re-reads: each N tile re-reads the input, each M tile the weights. They come from
  // L2 while the data one wave of CTAs touches fits there: the wave covers every N tile of a
  // few M tiles (the grid's rasterization), so it reads their rows of the input and all the
  // weights; the next wave re-reads the weights, its neighbours' rows of the input.
  auto traffic = [&](const GemmTiming& t) {
    if (t.tile == nullptr) return out_bytes + in_bytes + w_bytes;
    const double tiles_m = ceil_div(shape.m, t.tile->block_m);
    const double tiles_n = ceil_div(shape.n, t.tile->block_n);
    const double wave_ctas = static_cast<double>(gpu.sm_count) * ctas_per_sm(*t.tile, gpu);
    const double wave_tiles_m =
        std::clamp(std::floor(wave_ctas / (tiles_n * shape.batch)), 1.0, tiles_m);
    const double working_set = in_bytes * wave_tiles_m / tiles_m + w_bytes;
    const double l2 = gpu.l2_cache_mb * 1024 * 1024;
    const double miss = working_set <= l2 || working_set <= 0 ? 0.0 : 1.0 - l2 / working_set;
    return out_bytes + in_bytes * (1 + (tiles_n - 1) * miss) + w_bytes * (1 + (tiles_m - 1) * miss);
  };
  double bytes_moved = traffic(timing);
  int kernels = 1;

  // Winograd F(4x4,3x3) (cuDNN's non-fused variant: 3 transforms + a batched GEMM).
  const bool winograd_ok = p.allow_winograd && layer.op == Op::kConv2d && layer.groups == 1 &&
                           layer.kernel_h == 3 && layer.kernel_w == 3 && layer.stride_h == 1 &&
                           layer.stride_w == 1 && layer.dilation_h == 1 && layer.dilation_w == 1 &&
                           layer.c_in >= 16 && layer.c_out >= 16 && !tensor;
  if (winograd_ok) {
    const double tiles =
        static_cast<double>(layer.batch) * ceil_div(layer.h_out(), 4) * ceil_div(layer.w_out(), 4);
    const GemmShape wshape{tiles, static_cast<double>(layer.c_out), static_cast<double>(layer.c_in),
                           36};
    const GemmTiming wt = time_gemm(wshape, gpu, peak, scale);
    const double transformed =
        bpe * 36 * tiles * (layer.c_in + layer.c_out) + bpe * 36.0 * layer.c_in * layer.c_out;
    const double wbytes = in_bytes + out_bytes + w_bytes + 2 * transformed;
    const double direct_ms =
        std::max(timing.compute_ms, bytes_moved / bandwidth_bytes_per_ms(gpu, p, bytes_moved)) +
        kernel_overhead_ms(p, gpu);
    const double wino_ms =
        std::max(wt.compute_ms, wbytes / bandwidth_bytes_per_ms(gpu, p, wbytes)) +
        4 * kernel_overhead_ms(p, gpu);
    if (wino_ms < direct_ms) {
      timing = wt;
      bytes_moved = wbytes;
      kernels = 4;
      e.algorithm = "winograd";
      e.gemm_m = wshape.m;
      e.gemm_n = wshape.n;
      e.gemm_k = wshape.k;
    }
  }
  // GEMV-like linear layers (a handful of rows) stream the weights once.
  if (layer.op == Op::kLinear && shape.m <= 8) {
    e.algorithm = "gemv";
    timing.compute_ms = e.flops / (e.peak_tflops * 1e12 / kMsPerSecond * 0.5);
    bytes_moved = in_bytes + w_bytes + out_bytes;
  }
  if (layer.bias && layer.op == Op::kLinear) kernels = std::max(kernels, 1);
  e.compute_ms = timing.compute_ms;
  e.memory_ms = bytes_moved / bandwidth_bytes_per_ms(gpu, p, bytes_moved);
  int transposes = 0;
  e.layout_transform_ms = layout_transform_ms(layer, gpu, p, tensor, transposes);
  e.kernels = kernels + transposes;
  if (timing.tile != nullptr) {
    e.tile_m = timing.tile->block_m;
    e.tile_n = timing.tile->block_n;
  }
  e.tile_efficiency = timing.tile_efficiency;
  e.waves = timing.waves;
  e.wave_efficiency = timing.wave_efficiency;
  e.occupancy = timing.occupancy;
}

}  // namespace

double kernel_overhead_ms(const AnalyticalParams& params, const GpuSpec& gpu) {
  // A kernel's setup and tail are SM work, so they shrink with the clock: cnnperf profile's
  // shortest H100 convolution (1,980 MHz) took 2.95 us in all.
  return params.kernel_overhead_cycles / gpu.boost_cycles_per_ms();
}

double fp16_tensor_core_efficiency(const AnalyticalParams& params,
                                   const std::string& architecture) {
  for (const std::string& key : {architecture, std::string("*")}) {
    const auto it = params.tensor_core_fp16_efficiency.find(key);
    if (it != params.tensor_core_fp16_efficiency.end()) return it->second;
  }
  return params.tensor_core_efficiency;
}

double compute_peak_tflops(const Layer& layer, const GpuSpec& gpu) {
  if (runs_tf32(layer, gpu)) return gpu.tensor_tf32_tflops;
  if (runs_on_tensor_cores(layer, gpu)) return tensor_peak(layer.dtype, gpu);
  // GPUs with a slow native FP16 rate (consumer Pascal: 1/64) run fp16 layers with fp32 math,
  // so fp16 never falls below the fp32 peak.
  if (layer.dtype == DType::kFp16) return std::max(gpu.fp16_tflops, gpu.fp32_tflops);
  return gpu.fp32_tflops;
}

std::string precision_unsupported_reason(const GpuSpec& gpu, DType dtype) {
  if (dtype == DType::kBf16 && gpu.tensor_bf16_tflops <= 0) {
    return gpu.name +
           " has no BF16 tensor-core rate (tensor_bf16_tflops is 0 in the GPU "
           "database: " +
           gpu.source_of("tensor_bf16_tflops") + ")";
  }
  if (dtype == DType::kInt8 && gpu.tensor_int8_tops <= 0) {
    return gpu.name +
           " has no INT8 tensor-core rate (tensor_int8_tops is 0 in the GPU "
           "database: " +
           gpu.source_of("tensor_int8_tops") + ")";
  }
  return {};
}

double pass_work_factor(const Layer& layer) {
  switch (layer.pass) {
    case Pass::kForward:
    case Pass::kBackwardData:
    case Pass::kBackwardFilter: return 1.0;
    case Pass::kTraining: {
      const OpClass cls = op_class(layer.op);
      return (cls == OpClass::kConv || cls == OpClass::kGemm) ? 3.0 : 2.0;
    }
  }
  return 1.0;
}

double fast_algorithm_flop_reduction(const Layer& layer) {
  if (layer.op != Op::kConv2d || layer.stride_h != 1 || layer.stride_w != 1 ||
      layer.dilation_h != 1 || layer.dilation_w != 1) {
    return 1.0;
  }
  // Winograd F(4x4,3x3): 36 multiplies per 4x4 output tile instead of 144. In the frequency
  // domain (FFT) one complex multiply-add (8 flops) per output and channel pair replaces the
  // 2*kh*kw of the direct form (transforms excluded: a bound may only be too low).
  const double winograd = layer.kernel_h == 3 && layer.kernel_w == 3 ? 4.0 : 1.0;
  const double fft = static_cast<double>(layer.kernel_h * layer.kernel_w) / 4.0;
  return std::max({1.0, winograd, fft});
}

namespace {

RooflineTerms roofline_terms(const Layer& layer, const GpuSpec& gpu) {
  const double factor = pass_work_factor(layer);
  const double peak = compute_peak_tflops(layer, gpu) * 1e12 / kMsPerSecond;
  const double bw = gpu.memory_bandwidth_gbs * 1e9 / kMsPerSecond;
  return {peak > 0 ? layer.flops() * factor / peak : 0, bw > 0 ? layer.bytes() * factor / bw : 0};
}

double lower_bound_ms(const RooflineTerms& terms, const Layer& layer) {
  // NeuSight measured Winograd and FFT convolutions at down to 0.44x the direct-convolution
  // flops over the peak (datasets/layers_neusight.csv.gz): direct flops are no bound.
  return std::max(terms.direct_compute_ms / fast_algorithm_flop_reduction(layer), terms.memory_ms);
}

}  // namespace

double roofline_ms(const Layer& layer, const GpuSpec& gpu) {
  return lower_bound_ms(roofline_terms(layer, gpu), layer);
}

LayerEstimate estimate_layer(const Layer& layer, const GpuSpec& gpu, const AnalyticalParams& p) {
  LayerEstimate e;
  e.flops = layer.flops();
  e.bytes = layer.bytes();
  e.arithmetic_intensity = e.bytes > 0 ? e.flops / e.bytes : 0;
  e.peak_tflops = compute_peak_tflops(layer, gpu);
  const OpClass cls = op_class(layer.op);
  const bool depthwise = layer.op == Op::kConv2d && layer.groups > 1 && layer.c_in == layer.groups;
  if (cls == OpClass::kNone) {
    e.kernels = 0;
    e.algorithm = "none";
  } else if ((cls == OpClass::kConv && !depthwise) || cls == OpClass::kGemm) {
    estimate_gemm_like(e, layer, gpu, p);
  } else {
    // Depthwise convs, pointwise, normalization, pooling, copies: streaming kernels.
    // Depthwise FMAs reuse little, so they run far below the FMA peak.
    const double compute_share = depthwise ? 0.25 : 0.5;
    e.algorithm = depthwise ? "depthwise" : "memory";
    e.compute_ms = e.flops / (e.peak_tflops * 1e12 / kMsPerSecond * compute_share);
    const bool pool = layer.op == Op::kMaxPool || layer.op == Op::kAvgPool;
    if ((pool || depthwise) && gpu.sm_count > 0) {
      // Window taps at a rate per SM cycle: an average pool measured 5.5x an elementwise op
      // of its size on Pascal and 2.4x on Turing, both ~0.5 SM cycles per tap; a 5x5
      // depthwise kernel costs more than a 3x3 one on the same tensor.
      const double taps = static_cast<double>(layer.output_elements()) *
                          static_cast<double>(layer.kernel_h * layer.kernel_w);
      const double sm_cycles_per_ms = gpu.sm_count * gpu.boost_cycles_per_ms();
      const double cycles_per_tap = pool ? p.pool_sm_cycles_per_tap : p.depthwise_sm_cycles_per_tap;
      e.compute_ms = std::max(e.compute_ms, taps * cycles_per_tap / sm_cycles_per_ms);
    }
    double moved = e.bytes;
    if (layer.op == Op::kSoftmax || layer.op == Op::kLayerNorm) {
      moved += static_cast<double>(layer.input_elements()) * bytes_per_element(layer.dtype);
    }
    e.memory_ms = moved / bandwidth_bytes_per_ms(gpu, p, moved);
    // Hopper's half-precision depthwise kernels are NHWC (sm90_xmma_depthwise_*).
    const bool nhwc_depthwise =
        depthwise && bytes_per_element(layer.dtype) == 2 && gpu.compute_capability_number() >= 9.0;
    int transposes = 0;
    e.layout_transform_ms = layout_transform_ms(layer, gpu, p, nhwc_depthwise, transposes);
    e.kernels = 1 + transposes;
    e.occupancy = 1;
  }
  finish(e, layer, gpu, p);
  // Without fast FP16 arithmetic (consumer Pascal at 1/64 rate, Maxwell, Kepler) frameworks
  // run fp16 tensors through fp32 math plus conversions, so halved bytes buy no time: on the
  // TITAN Xp, fp16 steps measured 1.1-1.2x the fp32 ones (median, datasets/e2e_torchvision.csv).
  // Such a layer takes at least its fp32 time; the roofline keeps the fp16 bytes.
  if (layer.dtype == DType::kFp16 && gpu.fp16_tflops < gpu.fp32_tflops &&
      !runs_on_tensor_cores(layer, gpu)) {
    Layer as_fp32 = layer;
    as_fp32.dtype = DType::kFp32;
    const LayerEstimate fp32 = estimate_layer(as_fp32, gpu, p);
    if (fp32.latency_ms > e.latency_ms) {
      const LayerEstimate fp16 = e;
      e = fp32;
      e.bytes = fp16.bytes;
      e.arithmetic_intensity = fp16.arithmetic_intensity;
      e.roofline_ms = fp16.roofline_ms;
      e.peak_tflops = fp16.peak_tflops;
    }
  }
  return e;
}

}  // namespace cnnperf
