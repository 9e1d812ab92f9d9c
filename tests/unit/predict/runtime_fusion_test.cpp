// SPDX-License-Identifier: Apache-2.0
// Runtime fusion and the bf16/int8 rates of the analytical model, on hand-built layers and
// GPU specs (synthetic_gpu.hpp: not a real GPU).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cnnperf/predict/analytical.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {
namespace {

Layer make(const std::string& name, Op op, std::int64_t c = 64) {
  Layer l;
  l.name = name;
  l.op = op;
  l.batch = 8;
  l.c_in = c;
  l.c_out = c;
  l.h_in = 56;
  l.w_in = 56;
  if (op == Op::kConv2d) {
    l.kernel_h = l.kernel_w = 3;
    l.pad_h = l.pad_w = 1;
  }
  return l;
}

std::vector<LayerPrediction> one_kernel_each(const std::vector<Layer>& layers) {
  std::vector<LayerPrediction> p(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    p[i].kernel_ms = 0.1 * static_cast<double>(i + 1);
    p[i].kernels = layers[i].op == Op::kFlatten ? 0 : 1;
    if (p[i].kernels == 0) p[i].kernel_ms = 0;
  }
  return p;
}

// conv, bn, relu, conv, bn, add, relu, pool, relu
std::vector<Layer> block() {
  return {make("conv1", Op::kConv2d), make("bn1", Op::kBatchNorm), make("relu1", Op::kRelu),
          make("conv2", Op::kConv2d), make("bn2", Op::kBatchNorm), make("add", Op::kAdd),
          make("relu2", Op::kRelu),   make("pool", Op::kMaxPool),  make("relu3", Op::kRelu)};
}

TEST(RuntimeFusion, TensorrtFoldsNormAndActivationIntoTheConvolution) {
  const auto layers = block();
  auto p = one_kernel_each(layers);
  const auto before = p;
  apply_runtime_fusion(layers, p, Runtime::kTensorrt);
  for (const std::size_t i : {1U, 2U}) EXPECT_EQ(p[i].fused_into, "conv1") << i;
  for (const std::size_t i : {4U, 5U, 6U}) EXPECT_EQ(p[i].fused_into, "conv2") << i;
  for (const std::size_t i : {1U, 2U, 4U, 5U, 6U}) {
    EXPECT_EQ(p[i].kernel_ms, 0.0);
    EXPECT_EQ(p[i].kernels, 0);
    EXPECT_EQ(p[i].bound, "fused");
  }
  // The absorbing convolutions, the pool and a lone activation after it keep their kernels.
  for (const std::size_t i : {0U, 3U, 7U, 8U}) {
    EXPECT_TRUE(p[i].fused_into.empty()) << i;
    EXPECT_EQ(p[i].kernel_ms, before[i].kernel_ms) << i;
  }
}

TEST(RuntimeFusion, CompileMergesPointwiseChainsIntoTheirLongestKernel) {
  const auto layers = block();
  auto p = one_kernel_each(layers);
  apply_runtime_fusion(layers, p, Runtime::kPytorchCompile);
  // bn1+relu1: relu1 (0.3 ms) carries; bn2+add+relu2: relu2 (0.7 ms) carries.
  EXPECT_EQ(p[1].fused_into, "relu1");
  EXPECT_TRUE(p[2].fused_into.empty());
  EXPECT_EQ(p[4].fused_into, "relu2");
  EXPECT_EQ(p[5].fused_into, "relu2");
  EXPECT_TRUE(p[6].fused_into.empty());
  EXPECT_DOUBLE_EQ(p[6].kernel_ms, 0.7);
  // Convolutions are library calls, not fused.
  EXPECT_TRUE(p[0].fused_into.empty());
  EXPECT_TRUE(p[3].fused_into.empty());
  EXPECT_TRUE(p[8].fused_into.empty());  // a chain of one
}

TEST(RuntimeFusion, EagerAndCudnnFuseNothing) {
  const auto layers = block();
  for (const Runtime r : {Runtime::kPytorch, Runtime::kCudnn}) {
    auto p = one_kernel_each(layers);
    apply_runtime_fusion(layers, p, r);
    for (const auto& q : p) EXPECT_TRUE(q.fused_into.empty());
  }
}

GpuSpec tensor_gpu() {
  GpuSpec g;
  g.name = "synthetic-tensor-gpu";
  g.compute_capability = "8.0";
  g.sm_count = 100;
  g.fp32_tflops = 20;
  g.fp16_tflops = 80;
  g.tensor_fp16_tflops = 300;
  g.tensor_bf16_tflops = 300;
  g.tensor_int8_tops = 600;
  g.memory_bandwidth_gbs = 2000;
  return g;
}

TEST(Precision, Bf16AndInt8ConvolutionsUseTheirTensorRates) {
  const GpuSpec gpu = tensor_gpu();
  Layer conv = make("c", Op::kConv2d, 256);
  conv.dtype = DType::kInt8;
  EXPECT_DOUBLE_EQ(compute_peak_tflops(conv, gpu), 600);
  conv.dtype = DType::kBf16;
  EXPECT_DOUBLE_EQ(compute_peak_tflops(conv, gpu), 300);
  // A 3-channel stem and a pointwise op run on CUDA cores.
  Layer stem = make("stem", Op::kConv2d, 3);
  stem.dtype = DType::kInt8;
  EXPECT_DOUBLE_EQ(compute_peak_tflops(stem, gpu), 20);
  EXPECT_EQ(bytes_per_element(DType::kInt8), 1);
  EXPECT_EQ(bytes_per_element(DType::kBf16), 2);
}

TEST(Precision, AGpuWithoutTheRateSaysWhatItLacks) {
  GpuSpec gpu = tensor_gpu();
  EXPECT_TRUE(precision_unsupported_reason(gpu, DType::kInt8).empty());
  gpu.tensor_int8_tops = 0;
  const std::string why = precision_unsupported_reason(gpu, DType::kInt8);
  EXPECT_NE(why.find("synthetic-tensor-gpu"), std::string::npos) << why;
  EXPECT_NE(why.find("tensor_int8_tops"), std::string::npos) << why;
  gpu.tensor_bf16_tflops = 0;
  EXPECT_NE(precision_unsupported_reason(gpu, DType::kBf16).find("tensor_bf16_tflops"),
            std::string::npos);
  EXPECT_TRUE(precision_unsupported_reason(gpu, DType::kFp16).empty());
}

TEST(Precision, Int8AndBf16ParseAndPrint) {
  EXPECT_EQ(dtype_from_string("int8"), DType::kInt8);
  EXPECT_EQ(dtype_from_string("BF16"), DType::kBf16);
  EXPECT_EQ(dtype_from_string("bfloat16"), DType::kBf16);
  EXPECT_EQ(to_string(DType::kInt8), "int8");
  EXPECT_EQ(to_string(DType::kBf16), "bf16");
}

}  // namespace
}  // namespace cnnperf
