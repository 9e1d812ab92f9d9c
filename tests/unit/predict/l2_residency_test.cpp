// SPDX-License-Identifier: Apache-2.0
// A step whose resident set fits in L2 (l2_resident_kernel_scale). On the zoo's ResNet-18 and
// the bundled A100's spec (40 MB of L2), or the synthetic GPU (synthetic_gpu.hpp: not a real
// GPU).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/trace.hpp"
#include "synthetic_gpu.hpp"

namespace cnnperf {
namespace {

using test::synthetic_gpu;

GpuSpec a100() {
  return GpuDatabase::bundled().resolve("a100-pcie-40gb");
}

Network resnet18(std::int64_t batch, DType dtype) {
  NetworkOptions options;
  options.batch = batch;
  options.dtype = dtype;
  return build_zoo_network("resnet18", options);
}

NetworkPrediction predict(const Network& net, const GpuSpec& gpu, Runtime runtime,
                          Mode mode = Mode::kInference) {
  EagerOverhead overhead;
  overhead.host_ms_per_op = 1e-4;  // GPU-bound: the kernels set the step
  const AnalyticalModel model(AnalyticalParams{}, overhead);
  return predict_network(net, gpu, model, mode, PowerModel{}, runtime);
}

TEST(L2Residency, TheResidentSetIsTheStepsMinimumMemory) {
  for (const Mode mode : {Mode::kInference, Mode::kTraining}) {
    const Network net = resnet18(4, DType::kFp16);
    const NetworkPrediction r = predict(net, a100(), Runtime::kPytorch, mode);
    EXPECT_DOUBLE_EQ(step_resident_bytes(r.layers, DType::kFp16, mode), r.min_memory_gb * 1e9);
  }
}

// ResNet-18 in fp16 at batch 1: 23.4 MB of weights and 1.9 MB of its stem's tensors fit in
// 40 MB; in fp32 at batch 8 (47 MB of weights) they do not.
TEST(L2Residency, AStepThatFitsKeepsItsLayersKernelTimeAndScalesTheSum) {
  GpuSpec small_l2 = a100();
  small_l2.l2_cache_mb = 4;
  const Network net = resnet18(1, DType::kFp16);
  for (const Runtime runtime : {Runtime::kCudnn, Runtime::kPytorch}) {
    const NetworkPrediction fits = predict(net, a100(), runtime);
    const NetworkPrediction not_resident = predict(net, small_l2, runtime);
    EXPECT_LT(fits.eager.l2_resident_scale, 1.0);
    EXPECT_GT(fits.eager.l2_resident_scale, 1.0 / kL2BandwidthMultiple);
    EXPECT_EQ(not_resident.eager.l2_resident_scale, 1.0);
    // One kernel_ms per layer, whatever the step around it.
    ASSERT_EQ(fits.predictions.size(), not_resident.predictions.size());
    for (std::size_t i = 0; i < fits.predictions.size(); ++i) {
      EXPECT_DOUBLE_EQ(fits.predictions[i].kernel_ms, not_resident.predictions[i].kernel_ms)
          << fits.layers[i].name;
    }
    EXPECT_DOUBLE_EQ(fits.kernel_ms, not_resident.kernel_ms);
    EXPECT_LT(fits.latency_ms, not_resident.latency_ms) << to_string(runtime);
    // Its own term of the total, which still adds up.
    EXPECT_NEAR(fits.kernel_scale_ms(), fits.kernel_ms * (fits.eager.l2_resident_scale - 1.0),
                1e-12 * fits.kernel_ms);
    EXPECT_GE(fits.overhead_ms(), -1e-12);
    EXPECT_NEAR(fits.kernel_ms + fits.kernel_scale_ms() + fits.overhead_ms(), fits.latency_ms,
                1e-12 * fits.latency_ms);
    const nlohmann::json doc = to_json(fits);
    EXPECT_DOUBLE_EQ(doc.at("total").at("l2_resident_scale").get<double>(),
                     fits.eager.l2_resident_scale);
    const NetworkPredictionRecord back = network_prediction_from_json(doc);
    EXPECT_DOUBLE_EQ(back.l2_resident_scale, fits.eager.l2_resident_scale);
    EXPECT_NEAR(back.kernel_scale_ms(), fits.kernel_scale_ms(), 1e-12 * fits.kernel_ms);
    // The trace lays the step out from its terms and refuses one that does not add up.
    const nlohmann::json trace = to_trace_json(fits);
    EXPECT_DOUBLE_EQ(trace.at("otherData").at("timing").at("l2_resident_scale").get<double>(),
                     fits.eager.l2_resident_scale);
    EXPECT_NE(format_prediction(fits, OutputFormat::kTable).find("L2-resident"), std::string::npos);
    EXPECT_EQ(format_prediction(not_resident, OutputFormat::kTable).find("L2-resident"),
              std::string::npos);
  }
  const Network large = resnet18(8, DType::kFp32);
  EXPECT_EQ(predict(large, a100(), Runtime::kPytorch).eager.l2_resident_scale, 1.0);
}

TEST(L2Residency, AMemoryBoundLayerGainsTheBandwidthRatioAComputeBoundOneLittle) {
  const GpuSpec gpu = synthetic_gpu();
  Layer relu;
  relu.op = Op::kRelu;
  relu.batch = 1;
  relu.c_in = relu.c_out = 256;
  relu.h_in = relu.w_in = 112;  // 12.8 MB in and out in fp32: streaming, memory-bound
  Layer gemm;
  gemm.op = Op::kLinear;
  gemm.batch = 2048;
  gemm.c_in = gemm.c_out = 1024;  // 4.3 GFLOP over 12.6 MB: compute-bound
  for (const Layer& layer : {relu, gemm}) {
    const std::vector<Layer> layers{layer};
    const std::vector<LayerPrediction> p = AnalyticalModel().predict_layers(layers, gpu);
    const double scale = l2_resident_kernel_scale(layers, p, gpu, AnalyticalParams{}, 1e6);
    if (layer.op == Op::kRelu) {
      EXPECT_LT(scale, 0.5);
      EXPECT_GE(scale, 1.0 / kL2BandwidthMultiple);
    } else {
      EXPECT_GT(scale, 0.9);
      EXPECT_LE(scale, 1.0);
    }
    // Not resident: untouched.
    EXPECT_EQ(l2_resident_kernel_scale(layers, p, gpu, AnalyticalParams{}, 41.0 * 1024 * 1024),
              1.0);
  }
}

}  // namespace
}  // namespace cnnperf
