// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "cnnperf/model/network.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "cnnperf/predict/predict.hpp"
#include "synthetic_gpu.hpp"

namespace cnnperf {
namespace {

using test::synthetic_gpu;

Layer conv(std::int64_t c_in, std::int64_t hw, std::int64_t c_out, std::int64_t k,
           std::int64_t stride = 1, std::int64_t pad = 0, std::int64_t batch = 1) {
  Layer l;
  l.op = Op::kConv2d;
  l.batch = batch;
  l.c_in = c_in;
  l.h_in = l.w_in = hw;
  l.c_out = c_out;
  l.kernel_h = l.kernel_w = k;
  l.stride_h = l.stride_w = stride;
  l.pad_h = l.pad_w = pad;
  return l;
}

Layer relu_layer(std::int64_t channels, std::int64_t hw, std::int64_t batch) {
  Layer l;
  l.op = Op::kRelu;
  l.batch = batch;
  l.c_in = l.c_out = channels;
  l.h_in = l.w_in = hw;
  return l;
}

TEST(Analytical, NeverBelowRoofline) {
  const GpuSpec gpu = synthetic_gpu();
  for (const std::int64_t c : {3, 16, 64, 256, 1024}) {
    for (const std::int64_t hw : {7, 28, 112}) {
      for (const std::int64_t k : {1, 3, 5}) {
        const Layer l = conv(c, hw, c, k, 1, k / 2, 8);
        const LayerEstimate e = estimate_layer(l, gpu);
        EXPECT_GE(e.latency_ms, e.roofline_ms) << c << " " << hw << " " << k;
        EXPECT_GT(e.roofline_ms, 0);
      }
    }
  }
}

TEST(Analytical, RooflineIsMaxOfComputeAndMemory) {
  const GpuSpec gpu = synthetic_gpu();
  // Stride 2: no Winograd or FFT, the direct flops are the fewest.
  const Layer l = conv(256, 56, 256, 3, 2, 1, 32);
  EXPECT_EQ(fast_algorithm_flop_reduction(l), 1.0);
  const double compute_ms = l.flops() / (gpu.fp32_tflops * 1e9);
  const double memory_ms = l.bytes() / (gpu.memory_bandwidth_gbs * 1e6);
  EXPECT_NEAR(roofline_ms(l, gpu), std::max(compute_ms, memory_ms), 1e-12);
}

TEST(Analytical, RooflineCountsTheFewestFlopsOfWinogradAndFft) {
  const GpuSpec gpu = synthetic_gpu();
  // NeuSight measured stride-1 3x3 convolutions at down to 0.44x the direct flops over the
  // peak, so a bound on direct flops is no bound: Winograd F(4x4,3x3) needs 4x fewer.
  const Layer c3 = conv(256, 56, 256, 3, 1, 1, 32);
  EXPECT_EQ(fast_algorithm_flop_reduction(c3), 4.0);
  EXPECT_EQ(fast_algorithm_flop_reduction(conv(64, 56, 64, 7, 1, 3, 8)), 49.0 / 4.0);  // FFT
  EXPECT_EQ(fast_algorithm_flop_reduction(conv(64, 56, 64, 1, 1, 0, 8)), 1.0);
  Layer dilated = c3;
  dilated.dilation_h = dilated.dilation_w = 2;
  dilated.pad_h = dilated.pad_w = 2;
  EXPECT_EQ(fast_algorithm_flop_reduction(dilated), 1.0);
  const double compute_ms = c3.flops() / 4.0 / (gpu.fp32_tflops * 1e9);
  const double memory_ms = c3.bytes() / (gpu.memory_bandwidth_gbs * 1e6);
  EXPECT_NEAR(roofline_ms(c3, gpu), std::max(compute_ms, memory_ms), 1e-12);
  // The analytical estimate itself stays at or above the direct flops over the peak.
  EXPECT_GE(estimate_layer(c3, gpu).latency_ms, c3.flops() / (gpu.fp32_tflops * 1e9));
}

TEST(Analytical, TileQuantizationMakesOneExtraChannelCostly) {
  // 1x1 conv = GEMM with N = c_out; 128 fits a tile, 129 spills into a mostly empty one.
  AnalyticalParams p;
  p.allow_winograd = false;
  const GpuSpec gpu = synthetic_gpu();
  const LayerEstimate at128 = estimate_layer(conv(512, 56, 128, 1, 1, 0, 16), gpu, p);
  const LayerEstimate at129 = estimate_layer(conv(512, 56, 129, 1, 1, 0, 16), gpu, p);
  EXPECT_DOUBLE_EQ(at128.tile_efficiency, 1.0);
  EXPECT_LT(at129.tile_efficiency, 1.0);
  EXPECT_GT(at129.compute_ms / at128.compute_ms, 129.0 / 128.0 * 1.05);
}

TEST(Analytical, WaveQuantizationIsReported) {
  const GpuSpec gpu = synthetic_gpu();
  AnalyticalParams p;
  p.allow_winograd = false;
  const LayerEstimate e = estimate_layer(conv(256, 14, 256, 3, 1, 1, 1), gpu, p);
  EXPECT_GT(e.waves, 0);
  EXPECT_LE(e.wave_efficiency, 1.0);
  EXPECT_GT(e.wave_efficiency, 0);
  EXPECT_GT(e.occupancy, 0);
  EXPECT_LE(e.occupancy, 1.0);
}

TEST(Analytical, WinogradChosenForLarge3x3Stride1Only) {
  const GpuSpec gpu = synthetic_gpu();
  EXPECT_EQ(estimate_layer(conv(256, 56, 256, 3, 1, 1, 32), gpu).algorithm, "winograd");
  EXPECT_EQ(estimate_layer(conv(256, 56, 256, 3, 2, 1, 32), gpu).algorithm, "implicit_gemm");
  EXPECT_EQ(estimate_layer(conv(256, 56, 256, 1, 1, 0, 32), gpu).algorithm, "implicit_gemm");
}

TEST(Analytical, Fp16UsesTensorCoresWhenChannelsAlign) {
  const GpuSpec gpu = synthetic_gpu();
  Layer l = conv(256, 28, 256, 1, 1, 0, 32);
  const double fp32_ms = estimate_layer(l, gpu).latency_ms;
  l.dtype = DType::kFp16;
  EXPECT_DOUBLE_EQ(compute_peak_tflops(l, gpu), gpu.tensor_fp16_tflops);
  EXPECT_LT(estimate_layer(l, gpu).latency_ms, fp32_ms / 2);
  l.c_in = 3;  // not a multiple of 8: no tensor cores
  EXPECT_DOUBLE_EQ(compute_peak_tflops(l, gpu), gpu.fp16_tflops);
}

TEST(Analytical, Fp16WithoutFastHalfArithmeticIsNoFasterThanFp32) {
  // A GPU whose FP16 rate is 1/64 of FP32 (consumer Pascal) and no tensor cores: fp16 layers
  // run with fp32 math, so they take their fp32 time; the roofline keeps the fp16 bytes.
  GpuSpec slow_half = synthetic_gpu();
  slow_half.fp16_tflops = slow_half.fp32_tflops / 64;
  slow_half.tensor_fp16_tflops = 0;
  GpuSpec fast_half = slow_half;
  fast_half.fp16_tflops = 2 * fast_half.fp32_tflops;
  const Layer relu = relu_layer(256, 56, 64);
  for (Layer l : {conv(256, 28, 256, 3, 1, 1, 32), relu}) {
    const LayerEstimate fp32 = estimate_layer(l, slow_half);
    l.dtype = DType::kFp16;
    const LayerEstimate fp16 = estimate_layer(l, slow_half);
    EXPECT_DOUBLE_EQ(fp16.latency_ms, fp32.latency_ms) << to_string(l.op);
    EXPECT_DOUBLE_EQ(fp16.bytes, l.bytes());
    EXPECT_LE(fp16.roofline_ms, fp32.roofline_ms);  // strictly for the memory-bound relu
    if (l.op == Op::kRelu) {
      EXPECT_LT(fp16.roofline_ms, fp32.roofline_ms);
    }
    EXPECT_LT(estimate_layer(l, fast_half).latency_ms, fp32.latency_ms) << to_string(l.op);
  }
}

TEST(Analytical, Tf32ConvolutionsRunAtTheGpusTf32PeakWhereItHasOne) {
  GpuSpec ampere = synthetic_gpu();
  ampere.compute_capability = "8.0";
  GpuSpec volta = ampere;
  volta.compute_capability = "7.0";  // no TF32: tensor_tf32_tflops stays 0
  ampere.tensor_tf32_tflops = ampere.tensor_fp16_tflops / 2;
  Layer l = conv(256, 28, 256, 3, 1, 1, 32);
  const double strict_ms = estimate_layer(l, ampere).latency_ms;
  l.allow_tf32 = true;
  EXPECT_TRUE(runs_tf32(l, ampere));
  EXPECT_DOUBLE_EQ(compute_peak_tflops(l, ampere), ampere.tensor_tf32_tflops);
  EXPECT_LT(estimate_layer(l, ampere).latency_ms, strict_ms / 2);
  EXPECT_GE(estimate_layer(l, ampere).latency_ms, estimate_layer(l, ampere).roofline_ms);
  EXPECT_FALSE(runs_tf32(l, volta));  // no TF32 rate, no TF32
  EXPECT_DOUBLE_EQ(estimate_layer(l, volta).latency_ms,
                   estimate_layer(conv(256, 28, 256, 3, 1, 1, 32), volta).latency_ms);
  Layer depthwise = conv(256, 28, 256, 3, 1, 1, 32);
  depthwise.groups = 256;
  depthwise.allow_tf32 = true;
  EXPECT_FALSE(runs_tf32(depthwise, ampere));
  l.dtype = DType::kFp16;  // TF32 is an fp32 math mode
  EXPECT_FALSE(runs_tf32(l, ampere));
}

TEST(Analytical, NchwTensorCoreConvolutionsPayForTheirTransposes) {
  GpuSpec hopper = synthetic_gpu();
  hopper.compute_capability = "9.0";
  hopper.tensor_tf32_tflops = hopper.tensor_fp16_tflops / 2;
  Layer nchw = conv(256, 28, 256, 3, 1, 1, 32);
  nchw.allow_tf32 = true;
  Layer nhwc = nchw;
  nhwc.layout = Layout::kNhwc;
  const LayerEstimate with = estimate_layer(nchw, hopper);
  const LayerEstimate without = estimate_layer(nhwc, hopper);
  EXPECT_EQ(without.layout_transform_ms, 0);
  EXPECT_GT(with.layout_transform_ms, 0);
  EXPECT_EQ(with.kernels, without.kernels + 3);  // input, filter and output transposes
  // The transposes add their streaming time and one kernel overhead each, nothing else.
  const double overhead_ms = kernel_overhead_ms(AnalyticalParams{}, hopper);
  EXPECT_NEAR(with.latency_ms, without.latency_ms + with.layout_transform_ms + 3 * overhead_ms,
              1e-12);
  EXPECT_DOUBLE_EQ(with.main_kernels_ms() + with.layout_transform_ms, with.latency_ms);
  // Each transpose reads and writes its tensor once: at least its bytes twice over the peak.
  const double tensor_bytes =
      4.0 * (static_cast<double>(nchw.input_elements()) + static_cast<double>(nchw.params()) +
             static_cast<double>(nchw.output_elements()));
  EXPECT_GE(with.layout_transform_ms, 2 * tensor_bytes / (hopper.memory_bandwidth_gbs * 1e6));

  // A 1x1 filter is the same in both layouts; at stride 1 the convolution is a GEMM on NCHW.
  Layer strided_1x1 = conv(256, 28, 512, 1, 2, 0, 32);
  strided_1x1.allow_tf32 = true;
  EXPECT_EQ(estimate_layer(strided_1x1, hopper).kernels, 1 + 2);
  Layer gemm_1x1 = conv(256, 28, 512, 1, 1, 0, 32);
  gemm_1x1.allow_tf32 = true;
  EXPECT_EQ(estimate_layer(gemm_1x1, hopper).layout_transform_ms, 0);
  // CUDA-core convolutions take NCHW as it is: strict fp32, and fp32 before TF32 (Volta).
  EXPECT_EQ(estimate_layer(conv(256, 28, 256, 3, 1, 1, 32), hopper).layout_transform_ms, 0);
  GpuSpec volta = hopper;
  volta.compute_capability = "7.0";
  volta.tensor_tf32_tflops = 0;
  EXPECT_EQ(estimate_layer(nchw, volta).layout_transform_ms, 0);
  // Half-precision tensor-core convolutions transpose on any tensor-core GPU.
  Layer half = conv(256, 28, 256, 3, 1, 1, 32);
  half.dtype = DType::kFp16;
  EXPECT_GT(estimate_layer(half, volta).layout_transform_ms, 0);

  // Hopper's half-precision depthwise kernels are NHWC; Ampere's run NCHW as it is.
  Layer depthwise = conv(256, 28, 256, 3, 1, 1, 32);
  depthwise.groups = 256;
  depthwise.dtype = DType::kFp16;
  EXPECT_GT(estimate_layer(depthwise, hopper).layout_transform_ms, 0);
  EXPECT_EQ(estimate_layer(depthwise, hopper).kernels, 1 + 3);
  GpuSpec ampere = hopper;
  ampere.compute_capability = "8.0";
  EXPECT_EQ(estimate_layer(depthwise, ampere).layout_transform_ms, 0);
  depthwise.layout = Layout::kNhwc;
  EXPECT_EQ(estimate_layer(depthwise, hopper).layout_transform_ms, 0);
}

TEST(Analytical, OperandReReadsHitL2WhileOneWavesDataFitsThere) {
  // Batch 1,024 of a 64->64 3x3 half-precision convolution: a 411 MB input, 74 KB of weights.
  // Every M tile re-reads the weights; one wave of CTAs touches a few MB of input rows and the
  // weights, which a 40 MB L2 holds, so DRAM sees each operand once.
  GpuSpec gpu = synthetic_gpu();
  Layer l = conv(64, 56, 64, 3, 1, 1, 1024);
  l.dtype = DType::kFp16;
  l.layout = Layout::kNhwc;
  const AnalyticalParams p;
  const double once_ms = l.bytes() / (gpu.memory_bandwidth_gbs * 1e6 * p.memory_efficiency);
  const LayerEstimate fits = estimate_layer(l, gpu, p);
  EXPECT_NEAR(fits.memory_ms, once_ms, 1e-9 * once_ms);
  // A 1 MB L2 cannot hold one wave's data: the re-reads reach DRAM.
  gpu.l2_cache_mb = 1;
  const LayerEstimate spills = estimate_layer(l, gpu, p);
  EXPECT_GT(spills.memory_ms, 2 * once_ms);
  EXPECT_GT(spills.latency_ms, fits.latency_ms);
}

TEST(Analytical, AllowTf32MarksOnlyFp32Convolutions) {
  Network net;
  Layer fp32_conv = conv(64, 56, 64, 3, 1, 1, 8);
  Layer fp16_conv = fp32_conv;
  fp16_conv.dtype = DType::kFp16;
  Layer fc;
  fc.op = Op::kLinear;
  net.layers = {fp32_conv, fp16_conv, fc};
  allow_tf32_convolutions(net);
  EXPECT_TRUE(net.layers[0].allow_tf32);
  EXPECT_FALSE(net.layers[1].allow_tf32);
  EXPECT_FALSE(net.layers[2].allow_tf32);
  allow_tf32_convolutions(net, false);
  EXPECT_FALSE(net.layers[0].allow_tf32);
}

TEST(Analytical, PointwiseIsMemoryBound) {
  const GpuSpec gpu = synthetic_gpu();
  const Layer relu = relu_layer(256, 56, 64);
  const LayerEstimate e = estimate_layer(relu, gpu);
  EXPECT_EQ(e.bound, "memory");
  const double ideal_ms = relu.bytes() / (gpu.memory_bandwidth_gbs * 1e6);
  EXPECT_GT(e.latency_ms, ideal_ms);
  EXPECT_LT(e.latency_ms, ideal_ms * 1.6);
}

TEST(Analytical, AKernelsFixedCostIsSmCyclesAtTheBoostClock) {
  const GpuSpec gpu = synthetic_gpu();  // 100 SMs at 1500 MHz
  const AnalyticalParams params;
  EXPECT_DOUBLE_EQ(kernel_overhead_ms(params, gpu), params.kernel_overhead_cycles / 1.5e6);
  GpuSpec reference = gpu;
  reference.boost_clock_mhz = 1410;
  EXPECT_NEAR(kernel_overhead_ms(params, reference), 0.004, 1e-12);
  // A spec without a boost clock takes the reference clock rather than dividing by zero.
  GpuSpec unknown = gpu;
  unknown.boost_clock_mhz = 0;
  EXPECT_DOUBLE_EQ(kernel_overhead_ms(params, unknown), kernel_overhead_ms(params, reference));

  // An overhead-bound layer: a tiny ReLU costs its one kernel's fixed cost, so twice the clock
  // halves it, and nothing else in the estimate moves.
  const Layer relu = relu_layer(8, 4, 1);
  const LayerEstimate slow = estimate_layer(relu, gpu);
  GpuSpec fast = gpu;
  fast.boost_clock_mhz = 2 * gpu.boost_clock_mhz;
  const LayerEstimate quick = estimate_layer(relu, fast);
  EXPECT_EQ(slow.bound, "overhead");
  EXPECT_EQ(slow.kernels, 1);
  EXPECT_DOUBLE_EQ(slow.memory_ms, quick.memory_ms);
  EXPECT_NEAR(slow.latency_ms - slow.memory_ms, kernel_overhead_ms(params, gpu), 1e-12);
  EXPECT_NEAR(quick.latency_ms - quick.memory_ms, kernel_overhead_ms(params, gpu) / 2, 1e-12);
}

TEST(Analytical, WindowedPoolsCostTheirTapsPerSmCycle) {
  const GpuSpec gpu = synthetic_gpu();  // 100 SMs at 1500 MHz
  Layer pool;
  pool.op = Op::kAvgPool;
  pool.batch = 256;
  pool.c_in = pool.c_out = 16;
  pool.h_in = pool.w_in = 32;
  pool.kernel_h = pool.kernel_w = 3;
  pool.pad_h = pool.pad_w = 1;
  ASSERT_EQ(pool.output_elements(), 256 * 16 * 32 * 32);
  const LayerEstimate e = estimate_layer(pool, gpu);
  // The default rate (a calibrated parameter) per tap of the window, per output element.
  const double cycles_per_tap = AnalyticalParams{}.pool_sm_cycles_per_tap;
  const double taps_ms = 256.0 * 16 * 32 * 32 * 9 * cycles_per_tap / (100 * 1500e3);
  EXPECT_EQ(e.bound, "compute");
  EXPECT_NEAR(e.compute_ms, taps_ms, 1e-12);
  EXPECT_GT(e.latency_ms, 2 * e.memory_ms);  // not the streaming kernel it was taken for
  // Max pools share the kernel structure; a 1x1 window is back to streaming.
  pool.op = Op::kMaxPool;
  EXPECT_NEAR(estimate_layer(pool, gpu).compute_ms, taps_ms, 1e-12);
  pool.kernel_h = pool.kernel_w = 1;
  pool.pad_h = pool.pad_w = 0;
  EXPECT_EQ(estimate_layer(pool, gpu).bound, "memory");
  // The rate is a parameter.
  AnalyticalParams p;
  p.pool_sm_cycles_per_tap = 2 * cycles_per_tap;
  pool.kernel_h = pool.kernel_w = 3;
  pool.pad_h = pool.pad_w = 1;
  EXPECT_NEAR(estimate_layer(pool, gpu, p).compute_ms, 2 * taps_ms, 1e-12);
}

TEST(Analytical, DepthwiseConvolutionsCostTheirTapsToo) {
  const GpuSpec gpu = synthetic_gpu();  // 100 SMs at 1500 MHz
  Layer dw = conv(192, 16, 192, 3, 1, 1, 64);
  dw.groups = 192;
  const LayerEstimate k3 = estimate_layer(dw, gpu);
  EXPECT_EQ(k3.algorithm, "depthwise");
  const double outputs = 64.0 * 192 * 16 * 16;
  const double cycles_per_tap = AnalyticalParams{}.depthwise_sm_cycles_per_tap;
  EXPECT_NEAR(k3.compute_ms, outputs * 9 * cycles_per_tap / (100 * 1500e3), 1e-12);
  dw.kernel_h = dw.kernel_w = 5;
  dw.pad_h = dw.pad_w = 2;
  const LayerEstimate k5 = estimate_layer(dw, gpu);
  EXPECT_NEAR(k5.compute_ms, outputs * 25 * cycles_per_tap / (100 * 1500e3), 1e-12);
  EXPECT_GT(k5.latency_ms, 1.5 * k3.latency_ms);  // HELP's FBNet k5 blocks cost more than k3
}

TEST(Analytical, ViewsCostNothing) {
  Layer flat;
  flat.op = Op::kFlatten;
  flat.c_in = 2048;
  const LayerEstimate e = estimate_layer(flat, synthetic_gpu());
  EXPECT_EQ(e.kernels, 0);
  EXPECT_DOUBLE_EQ(e.latency_ms, 0);
}

TEST(Analytical, TrainingCostsAboutThreeForwards) {
  const GpuSpec gpu = synthetic_gpu();
  Layer l = conv(128, 28, 128, 3, 1, 1, 16);
  const double fwd = estimate_layer(l, gpu).latency_ms;
  l.pass = Pass::kTraining;
  const double train = estimate_layer(l, gpu).latency_ms;
  EXPECT_NEAR(train / fwd, 3.0, 0.2);
}

TEST(Analytical, MoreWorkIsNeverFaster) {
  const GpuSpec gpu = synthetic_gpu();
  double previous = 0;
  for (std::int64_t batch = 1; batch <= 128; batch *= 2) {
    const double ms = estimate_layer(conv(64, 56, 64, 3, 1, 1, batch), gpu).latency_ms;
    EXPECT_GE(ms, previous * 0.999) << batch;
    previous = ms;
  }
}

TEST(Power, BetweenIdleAndTdpAndEnergyIsPowerTimesTime) {
  const GpuSpec gpu = synthetic_gpu();
  const AnalyticalModel model;
  const std::vector<Layer> layers{conv(256, 56, 256, 3, 1, 1, 32)};
  auto predictions = model.predict_layers(layers, gpu);
  assign_power(predictions, gpu, PowerParams{});
  const auto p = predictions.at(0);
  EXPECT_GT(p.avg_power_w, gpu.idle_power_w);
  EXPECT_LE(p.avg_power_w, gpu.tdp_w);
  EXPECT_NEAR(p.energy_mj, p.avg_power_w * p.kernel_ms, 1e-9);
}

TEST(Predict, EndToEndAddsOverheadToKernelTime) {
  const GpuSpec gpu = synthetic_gpu();
  Network net;
  net.name = "two-layer";
  net.batch = 4;
  net.layers = {conv(3, 224, 64, 7, 2, 3, 4)};
  const Layer relu = relu_layer(64, 112, 4);
  net.layers.push_back(relu);
  const NetworkPrediction r =
      predict_network(net, gpu, AnalyticalModel(), Mode::kInference, PowerModel{});
  ASSERT_EQ(r.predictions.size(), 2u);
  EXPECT_NEAR(r.kernel_ms, r.predictions[0].kernel_ms + r.predictions[1].kernel_ms, 1e-12);
  EXPECT_GT(r.latency_ms, r.kernel_ms);
  EXPECT_GT(r.energy_j, 0);
  const auto j = to_json(r);
  EXPECT_EQ(j["schema_version"], kPredictionSchemaVersion);
  EXPECT_EQ(j["layers"].size(), 2u);
  EXPECT_TRUE(j["total"].contains("kernel_ms"));
  EXPECT_TRUE(j["layers"][0].contains("in_distribution"));
}

}  // namespace
}  // namespace cnnperf
