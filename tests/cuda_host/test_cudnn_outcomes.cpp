// SPDX-License-Identifier: Apache-2.0
// cuDNN descriptor set-up against our own layer model (no handle, no GPU needed), vendor
// status -> outcome mapping with fake statuses, checked-call messages, the fp16 conversion
// and the NVML loader on a machine without libnvidia-ml.so.1.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "../../src/gpu/check.hpp"
#include "../../src/gpu/cudnn_conv.hpp"
#include "../../src/gpu/nvml_power.hpp"

namespace cnnperf::gpu {
namespace {

Layer conv(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k,
           std::int64_t r, std::int64_t stride, std::int64_t pad, std::int64_t dil = 1,
           std::int64_t groups = 1) {
  Layer l;
  l.op = Op::kConv2d;
  l.batch = n;
  l.c_in = c;
  l.h_in = h;
  l.w_in = w;
  l.c_out = k;
  l.kernel_h = l.kernel_w = r;
  l.stride_h = l.stride_w = stride;
  l.pad_h = l.pad_w = pad;
  l.dilation_h = l.dilation_w = dil;
  l.groups = groups;
  return l;
}

TEST(CudnnDescriptors, OutputSizeMatchesOurLayerModel) {
  const std::vector<Layer> layers{
      conv(32, 64, 56, 56, 128, 3, 2, 1),       // the research note's check: 28x28
      conv(1, 3, 224, 224, 64, 7, 2, 3),        // ResNet stem
      conv(8, 96, 17, 23, 96, 3, 1, 2, 2, 96),  // depthwise, dilated, non-square
      conv(2, 64, 9, 9, 32, 5, 3, 0, 1, 4),     // grouped, stride 3, no padding
      conv(4, 16, 1, 1, 16, 1, 1, 0)};
  for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
    for (DType dtype : {DType::kFp32, DType::kFp16}) {
      for (Layer l : layers) {
        l.dtype = dtype;
        ConvDescriptors d;
        const Status s = set_conv_descriptors(l, layout, d);
        ASSERT_TRUE(s.ok()) << s.reason;
        EXPECT_EQ(d.y_dims[0], l.batch);
        EXPECT_EQ(d.y_dims[1], l.c_out);
        EXPECT_EQ(d.y_dims[2], l.h_out()) << "h_in " << l.h_in;
        EXPECT_EQ(d.y_dims[3], l.w_out()) << "w_in " << l.w_in;
        EXPECT_EQ(d.data_type, dtype == DType::kFp16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT);
        EXPECT_EQ(d.compute_type, CUDNN_DATA_FLOAT);
      }
    }
  }
}

TEST(CudnnDescriptors, MalformedProblemsAreInvalidNotCrashes) {
  ConvDescriptors d;
  // Kernel larger than the padded input: cuDNN's BAD_PARAM -> invalid problem.
  Status s = set_conv_descriptors(conv(1, 8, 4, 4, 8, 7, 1, 0), Layout::kNchw, d);
  EXPECT_EQ(s.outcome, Outcome::kInvalidProblem) << s.reason;
  ConvDescriptors d2;
  s = set_conv_descriptors(conv(1, 6, 8, 8, 8, 3, 1, 1, 1, 4), Layout::kNchw, d2);
  EXPECT_EQ(s.outcome, Outcome::kInvalidProblem);
  ConvDescriptors d3;
  s = set_conv_descriptors(conv(1, 8, 8, 8, 8, 3, 1, -1), Layout::kNchw, d3);
  EXPECT_EQ(s.outcome, Outcome::kInvalidProblem) << s.reason;
  EXPECT_NE(s.reason.find("cudnnSetConvolution2dDescriptor"), std::string::npos) << s.reason;
}

TEST(CudnnOutcome, StatusFamiliesMapLikeCutlassDisposition) {
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_SUCCESS), Outcome::kPassed);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_NOT_SUPPORTED), Outcome::kNotSupported);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_NOT_SUPPORTED_SHAPE), Outcome::kNotSupported);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT),
            Outcome::kNotSupported);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_BAD_PARAM), Outcome::kInvalidProblem);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH), Outcome::kInvalidProblem);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED),
            Outcome::kFailed);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_EXECUTION_FAILED), Outcome::kFailed);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_NOT_INITIALIZED), Outcome::kFailed);
  const Status s = cudnn_status(CUDNN_STATUS_NOT_SUPPORTED_SHAPE, "cudnnConvolutionForward");
  EXPECT_EQ(s.reason.rfind("cudnnConvolutionForward: CUDNN_STATUS_NOT_SUPPORTED", 0), 0U)
      << s.reason;
}

TEST(CudnnOutcome, EnvironmentAndCallerErrorsAreFailuresToRetry) {
  for (cudnnStatus_t s :
       {CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER,
        CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART, CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
        CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING,
        CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE, CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
        CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER, CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH}) {
    EXPECT_EQ(outcome_from_cudnn(s), Outcome::kFailed) << static_cast<int>(s);
  }
  // Their values as cudnn_graph.h (cuDNN 9) gives them.
  EXPECT_EQ(static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER), 3005);
  EXPECT_EQ(static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE), 3009);
  EXPECT_EQ(static_cast<int>(CUDNN_STATUS_BAD_PARAM_NULL_POINTER), 2002);
  EXPECT_EQ(static_cast<int>(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER), 2003);
  EXPECT_EQ(static_cast<int>(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH), 2007);
  // Properties of the problem on this GPU stay final.
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT),
            Outcome::kNotSupported);
  EXPECT_EQ(outcome_from_cudnn(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT), Outcome::kNotSupported);
}

TEST(CudaOutcome, Mapping) {
  EXPECT_EQ(outcome_from_cuda(cudaSuccess), Outcome::kPassed);
  EXPECT_EQ(outcome_from_cuda(cudaErrorInvalidConfiguration), Outcome::kInvalidProblem);
  EXPECT_EQ(outcome_from_cuda(cudaErrorMemoryAllocation), Outcome::kFailed);
  EXPECT_EQ(describe(cudaErrorInsufficientDriver).rfind("cudaErrorInsufficientDriver: ", 0), 0U);
}

TEST(CheckedCalls, KeepCallWhereAndVendorMessage) {
  try {
    CNNPERF_CUDNN_CHECK(
        cudnnSetTensor4dDescriptor(nullptr, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1));
    FAIL() << "expected GpuError";
  } catch (const GpuError& e) {
    EXPECT_EQ(e.api(), Api::kCudnn);
    EXPECT_EQ(outcome_from_cudnn(static_cast<cudnnStatus_t>(e.code())), Outcome::kInvalidProblem);
    EXPECT_NE(e.call().find("cudnnSetTensor4dDescriptor"), std::string::npos);
    EXPECT_EQ(e.where().rfind("test_cudnn_outcomes.cpp:", 0), 0U) << e.where();
    EXPECT_NE(std::string(e.what()).find("CUDNN_STATUS_BAD_PARAM"), std::string::npos) << e.what();
  }
  // Without a driver cudnnCreate fails and cudnnGetLastErrorString says why.
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    try {
      cudnnHandle_t handle = nullptr;
      CNNPERF_CUDNN_CHECK(cudnnCreate(&handle));
      FAIL() << "cudnnCreate succeeded without a driver";
    } catch (const GpuError& e) {
      EXPECT_FALSE(e.vendor_message().empty()) << e.what();
    }
  }
  try {
    CNNPERF_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL();
  } catch (const GpuError& e) {
    EXPECT_EQ(e.code_name(), "cudaErrorInvalidValue");
    EXPECT_EQ(dynamic_cast<const cnnperf::InputError*>(&e), nullptr);  // a runtime failure
  }
}

TEST(CheckedCalls, AStickyCudaErrorIsALostDevice) {
  EXPECT_THROW(CNNPERF_CUDA_CHECK(cudaErrorIllegalAddress), DeviceLost);
  EXPECT_THROW(CNNPERF_CUDA_CHECK(cudaErrorLaunchFailure), DeviceLost);
  EXPECT_THROW((void)cuda_status(cudaErrorIllegalAddress, "cudaMemcpyAsync"), DeviceLost);
  EXPECT_EQ(cuda_status(cudaErrorMemoryAllocation, "cudaMalloc").outcome, Outcome::kFailed);
  try {
    CNNPERF_CUDA_CHECK(cudaErrorMemoryAllocation);  // this job fails, the next may fit
    FAIL();
  } catch (const DeviceLost&) {
    FAIL() << "out of memory is not a lost device";
  } catch (const GpuError& e) {
    EXPECT_EQ(e.code_name(), "cudaErrorMemoryAllocation");
  }
}

TEST(AlgoEnum, RoundTripsThroughCudnn) {
  for (ConvAlgo a : all_conv_algos()) EXPECT_EQ(from_cudnn(to_cudnn(a)), a);
  EXPECT_EQ(static_cast<int>(all_conv_algos().size()), CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_EQ(to_cudnn(ConvAlgo::kWinogradNonfused), CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED);
}

TEST(HeuristicResult, UsableChoicesKeepOrderAndMathType) {
  std::array<cudnnConvolutionFwdAlgoPerf_t, 3> perf{};
  perf[0].algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  perf[0].mathType = CUDNN_TENSOR_OP_MATH;
  perf[0].status = CUDNN_STATUS_SUCCESS;
  perf[1].algo = CUDNN_CONVOLUTION_FWD_ALGO_FFT;
  perf[1].status = CUDNN_STATUS_NOT_SUPPORTED;
  perf[2].algo = CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
  perf[2].mathType = CUDNN_FMA_MATH;
  perf[2].status = CUDNN_STATUS_SUCCESS;
  const auto choices = usable_choices(perf.data(), static_cast<int>(perf.size()));
  ASSERT_EQ(choices.size(), 2U);
  EXPECT_EQ(choices[0].algo, ConvAlgo::kImplicitPrecompGemm);
  EXPECT_EQ(choices[0].math, MathType::kTensorOp);
  EXPECT_EQ(choices[1].algo, ConvAlgo::kGemm);
  EXPECT_EQ(choices[1].math, MathType::kFma);
}

TEST(HeuristicResult, MathTypeIsSetOnTheDescriptor) {
  ConvDescriptors d;
  ASSERT_TRUE(set_conv_descriptors(conv(1, 8, 8, 8, 8, 3, 1, 1), Layout::kNchw, d).ok());
  ASSERT_TRUE(apply_math_type(d, MathType::kTensorOpAllowConversion).ok());
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  ASSERT_EQ(cudnnGetConvolutionMathType(d.conv.get(), &math), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(math, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
  EXPECT_EQ(d.math_type, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
  // No heuristic math type: the layer's default stays.
  ConvDescriptors named;
  ASSERT_TRUE(set_conv_descriptors(conv(1, 8, 8, 8, 8, 3, 1, 1), Layout::kNchw, named).ok());
  ASSERT_TRUE(apply_math_type(named, std::nullopt).ok());
  ASSERT_EQ(cudnnGetConvolutionMathType(named.conv.get(), &math), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(math, CUDNN_DEFAULT_MATH);
  for (MathType m : {MathType::kDefault, MathType::kTensorOp, MathType::kTensorOpAllowConversion,
                     MathType::kFma}) {
    EXPECT_EQ(from_cudnn(to_cudnn(m)), m);
  }
}

TEST(HalfConversion, KnownBitPatterns) {
  EXPECT_EQ(float_to_half_bits(0.0F), 0x0000);
  EXPECT_EQ(float_to_half_bits(1.0F), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0F), 0xc000);
  EXPECT_EQ(float_to_half_bits(0.5F), 0x3800);
  EXPECT_EQ(float_to_half_bits(65504.0F), 0x7bff);
  EXPECT_EQ(float_to_half_bits(1e6F), 0x7c00);
  EXPECT_EQ(float_to_half_bits(0.333333343F), 0x3555);
  EXPECT_EQ(float_to_half_bits(5.9604645e-8F), 0x0001);  // smallest subnormal
}

TEST(NvmlLoader, AbsentLibraryIsAnOutcome) {
  Status status;
  auto lib = NvmlLibrary::load(status, "libcnnperf-no-such-nvml.so.1");
  EXPECT_FALSE(lib);
  EXPECT_EQ(status.outcome, Outcome::kNotRun);
  EXPECT_EQ(status.reason, "libcnnperf-no-such-nvml.so.1 not found");
  // On this machine the real one is absent too (no driver); elsewhere it loads.
  void* real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
  Status real_status;
  auto real_lib = NvmlLibrary::load(real_status);
  if (!real_lib && real == nullptr) {
    EXPECT_EQ(real_status.reason, "libnvidia-ml.so.1 not found");
    NvmlPowerMeter meter(nullptr, "GPU-x", real_status);
    EXPECT_FALSE(meter.available().ok());
    meter.begin_window();
    const EnergyReading r = meter.end_window();
    EXPECT_EQ(r.method, "not available: libnvidia-ml.so.1 not found");
    EXPECT_EQ(r.energy_mj, 0.0);
    EXPECT_FALSE(r.status.ok());  // the zero is flagged, never silent
  }
}

TEST(NvmlOutcome, FakeReturnCodes) {
  EXPECT_EQ(outcome_from_nvml(kNvmlSuccess), Outcome::kPassed);
  EXPECT_EQ(outcome_from_nvml(kNvmlErrorNotSupported), Outcome::kNotSupported);
  EXPECT_EQ(outcome_from_nvml(kNvmlErrorNotFound), Outcome::kInvalidProblem);
  EXPECT_EQ(outcome_from_nvml(kNvmlErrorNoPermission), Outcome::kFailed);
  EXPECT_EQ(outcome_from_nvml(kNvmlErrorGpuIsLost), Outcome::kFailed);
}

TEST(PowerIntegral, Trapezoid) {
  // Synthetic samples: 100 W for 1 s then ramping to 200 W over 1 s.
  const std::vector<std::pair<std::int64_t, unsigned int>> samples{
      {0, 100000}, {1'000'000'000, 100000}, {2'000'000'000, 200000}};
  EXPECT_DOUBLE_EQ(integrate_power_mj(samples), 100000.0 + 150000.0);
  EXPECT_EQ(integrate_power_mj({{0, 5}}), 0.0);
}

}  // namespace
}  // namespace cnnperf::gpu
