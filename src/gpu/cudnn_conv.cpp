// SPDX-License-Identifier: Apache-2.0
// cuDNN forward convolution set-up and launch (see cudnn_conv.hpp).
#include "cudnn_conv.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "check.hpp"
#include "cupti_activity.hpp"

namespace cnnperf::gpu {

template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
CudnnDescriptor<T, Create, Destroy>::CudnnDescriptor() {
  CNNPERF_CUDNN_CHECK(Create(&descriptor_));
}

template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
CudnnDescriptor<T, Create, Destroy>::~CudnnDescriptor() {
  if (descriptor_ != nullptr) CNNPERF_CUDNN_CHECK_NOEXCEPT(Destroy(descriptor_));
}

template class CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                               cudnnDestroyTensorDescriptor>;
template class CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                               cudnnDestroyFilterDescriptor>;
template class CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                               cudnnDestroyConvolutionDescriptor>;

namespace {

// cuDNN's 2-D API takes int; larger shapes are a problem we cannot express.
bool fits_int(std::int64_t v) {
  return v >= 0 && v <= 0x7fffffff;
}

#define CNNPERF_CUDNN_STATUS(call)                                                  \
  do {                                                                              \
    const cudnnStatus_t cnnperf_s_ = (call);                                        \
    if (cnnperf_s_ != CUDNN_STATUS_SUCCESS) return cudnn_status(cnnperf_s_, #call); \
  } while (0)

}  // namespace

Status set_conv_descriptors(const Layer& l, Layout layout, ConvDescriptors& d) {
  for (std::int64_t v : {l.batch, l.c_in, l.h_in, l.w_in, l.c_out, l.kernel_h, l.kernel_w}) {
    if (!fits_int(v)) return {Outcome::kInvalidProblem, "a dimension exceeds cuDNN's int range"};
  }
  if (l.groups <= 0 || l.c_in % l.groups != 0) {
    return {Outcome::kInvalidProblem, "c_in is not divisible by groups"};
  }
  d.data_type = l.dtype == DType::kFp16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  d.compute_type = CUDNN_DATA_FLOAT;
  d.math_type = l.dtype == DType::kFp16 ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH;
  const cudnnTensorFormat_t format =
      layout == Layout::kNhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const int n = static_cast<int>(l.batch), c = static_cast<int>(l.c_in);
  const int h = static_cast<int>(l.h_in), w = static_cast<int>(l.w_in);
  const int k = static_cast<int>(l.c_out), g = static_cast<int>(l.groups);
  CNNPERF_CUDNN_STATUS(cudnnSetTensor4dDescriptor(d.x.get(), format, d.data_type, n, c, h, w));
  CNNPERF_CUDNN_STATUS(cudnnSetFilter4dDescriptor(d.w.get(), d.data_type, format, k, c / g,
                                                  static_cast<int>(l.kernel_h),
                                                  static_cast<int>(l.kernel_w)));
  CNNPERF_CUDNN_STATUS(cudnnSetConvolution2dDescriptor(
      d.conv.get(), static_cast<int>(l.pad_h), static_cast<int>(l.pad_w),
      static_cast<int>(l.stride_h), static_cast<int>(l.stride_w), static_cast<int>(l.dilation_h),
      static_cast<int>(l.dilation_w), CUDNN_CROSS_CORRELATION, d.compute_type));
  CNNPERF_CUDNN_STATUS(cudnnSetConvolutionGroupCount(d.conv.get(), g));
  CNNPERF_CUDNN_STATUS(cudnnSetConvolutionMathType(d.conv.get(), d.math_type));
  auto& y = d.y_dims;
  CNNPERF_CUDNN_STATUS(cudnnGetConvolution2dForwardOutputDim(d.conv.get(), d.x.get(), d.w.get(),
                                                             &y[0], &y[1], &y[2], &y[3]));
  CNNPERF_CUDNN_STATUS(
      cudnnSetTensor4dDescriptor(d.y.get(), format, d.data_type, y[0], y[1], y[2], y[3]));
  return {};
}

cudnnConvolutionFwdAlgo_t to_cudnn(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::kImplicitGemm: return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    case ConvAlgo::kImplicitPrecompGemm: return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    case ConvAlgo::kGemm: return CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
    case ConvAlgo::kDirect: return CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
    case ConvAlgo::kFft: return CUDNN_CONVOLUTION_FWD_ALGO_FFT;
    case ConvAlgo::kFftTiling: return CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING;
    case ConvAlgo::kWinograd: return CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD;
    case ConvAlgo::kWinogradNonfused: return CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
  }
  return CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
}

ConvAlgo from_cudnn(cudnnConvolutionFwdAlgo_t algo) {
  for (ConvAlgo a : all_conv_algos()) {
    if (to_cudnn(a) == algo) return a;
  }
  throw Error("unknown cuDNN forward algorithm " + std::to_string(static_cast<int>(algo)));
}

cudnnMathType_t to_cudnn(MathType math) {
  switch (math) {
    case MathType::kDefault: return CUDNN_DEFAULT_MATH;
    case MathType::kTensorOp: return CUDNN_TENSOR_OP_MATH;
    case MathType::kTensorOpAllowConversion: return CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    case MathType::kFma: return CUDNN_FMA_MATH;
  }
  return CUDNN_DEFAULT_MATH;
}

MathType from_cudnn(cudnnMathType_t math) {
  for (MathType m : {MathType::kDefault, MathType::kTensorOp, MathType::kTensorOpAllowConversion,
                     MathType::kFma}) {
    if (to_cudnn(m) == math) return m;
  }
  throw Error("unknown cuDNN math type " + std::to_string(static_cast<int>(math)));
}

Status apply_math_type(ConvDescriptors& d, std::optional<MathType> math) {
  if (!math) return {};
  CNNPERF_CUDNN_STATUS(cudnnSetConvolutionMathType(d.conv.get(), to_cudnn(*math)));
  d.math_type = to_cudnn(*math);
  return {};
}

std::vector<AlgoChoice> usable_choices(const cudnnConvolutionFwdAlgoPerf_t* perf, int returned) {
  std::vector<AlgoChoice> choices;
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    choices.push_back({from_cudnn(perf[i].algo), from_cudnn(perf[i].mathType)});
  }
  return choices;
}

Status DeviceBuffer::allocate(std::size_t bytes, const char* what) {
  if (bytes == 0) return {};
  const cudaError_t r = cudaMalloc(&ptr_, bytes);
  if (r != cudaSuccess) {
    (void)cudaGetLastError();
    if (is_sticky(r)) throw_cuda(r, "cudaMalloc", __FILE__, __LINE__);
    ptr_ = nullptr;
    return {Outcome::kFailed, std::string("cudaMalloc(") + what + ", " + std::to_string(bytes) +
                                  " bytes): " + describe(r)};
  }
  bytes_ = bytes;
  return {};
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) CNNPERF_CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
}

std::uint16_t float_to_half_bits(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000U;
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  std::uint32_t mantissa = bits & 0x7fffffU;
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00U);  // overflow -> inf
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<std::uint16_t>(sign);  // underflow -> 0
    mantissa |= 0x800000U;
    const int shift = 14 - exponent;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1U << shift) - 1);
    const std::uint32_t halfway = 1U << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1U))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U))) ++half;  // may carry into exponent
  return static_cast<std::uint16_t>(sign | half);
}

Status fill_random(DeviceBuffer& buffer, std::size_t elements, DType dtype, std::uint32_t seed,
                   cudaStream_t stream) {
  if (elements == 0 || buffer.get() == nullptr) return {};
  std::uint32_t state = seed * 2654435761U + 1;
  auto next = [&state] {
    state = state * 1664525U + 1013904223U;  // LCG: reproducible, fast, good enough for data
    return static_cast<float>(state >> 8) / static_cast<float>(1U << 24) * 2.0F - 1.0F;
  };
  cudaError_t r = cudaSuccess;
  if (dtype == DType::kFp16) {
    std::vector<std::uint16_t> host(elements);
    for (auto& v : host) v = float_to_half_bits(next());
    r = cudaMemcpyAsync(buffer.get(), host.data(), elements * 2, cudaMemcpyHostToDevice, stream);
    if (r == cudaSuccess) r = cudaStreamSynchronize(stream);  // before `host` goes
  } else {
    std::vector<float> host(elements);
    for (auto& v : host) v = next();
    r = cudaMemcpyAsync(buffer.get(), host.data(), elements * 4, cudaMemcpyHostToDevice, stream);
    if (r == cudaSuccess) r = cudaStreamSynchronize(stream);
  }
  return cuda_status(r, "cudaMemcpyAsync(fill)");
}

CudnnConvRunner::CudnnConvRunner(cudnnHandle_t handle, cudaStream_t stream, std::int64_t l2_bytes,
                                 const Layer& layer, Layout layout, const AlgoChoice& choice,
                                 Status& status)
    : handle_(handle), stream_(stream), algo_(to_cudnn(choice.algo)), l2_bytes_(l2_bytes) {
  status = set_conv_descriptors(layer, layout, d_);
  if (!status.ok()) return;
  status = apply_math_type(d_, choice.math);
  if (!status.ok()) return;
  std::size_t ws = 0;
  const cudnnStatus_t s = cudnnGetConvolutionForwardWorkspaceSize(
      handle_, d_.x.get(), d_.w.get(), d_.conv.get(), d_.y.get(), algo_, &ws);
  if (s != CUDNN_STATUS_SUCCESS) {
    status = cudnn_status(s, "cudnnGetConvolutionForwardWorkspaceSize");
    return;
  }
  const auto elem = static_cast<std::size_t>(bytes_per_element(layer.dtype));
  const auto x_elems = static_cast<std::size_t>(layer.batch * layer.c_in * layer.h_in * layer.w_in);
  const auto w_elems = static_cast<std::size_t>(layer.c_out * (layer.c_in / layer.groups) *
                                                layer.kernel_h * layer.kernel_w);
  const auto& y = d_.y_dims;
  const std::size_t y_elems = static_cast<std::size_t>(y[0]) * y[1] * y[2] * y[3];
  for (const Status& st :
       {x_.allocate(x_elems * elem, "x"), w_.allocate(w_elems * elem, "w"),
        y_.allocate(y_elems * elem, "y"), workspace_.allocate(ws, "workspace")}) {
    if (!st.ok()) {
      status = st;
      return;
    }
  }
  for (const Status& st : {fill_random(x_, x_elems, layer.dtype, 1, stream_),
                           fill_random(w_, w_elems, layer.dtype, 2, stream_)}) {
    if (!st.ok()) {
      status = st;
      return;
    }
  }
  // One checking launch: cuDNN may still refuse the algorithm for this problem here.
  const cudnnStatus_t launched = launch();
  if (launched != CUDNN_STATUS_SUCCESS) {
    status = cudnn_status(launched, "cudnnConvolutionForward");
    return;
  }
  status = cuda_status(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

cudnnStatus_t CudnnConvRunner::launch() {
  const float alpha = 1.0F;
  const float beta = 0.0F;
  return cudnnConvolutionForward(handle_, &alpha, d_.x.get(), x_.get(), d_.w.get(), w_.get(),
                                 d_.conv.get(), algo_, workspace_.get(), workspace_.bytes(), &beta,
                                 d_.y.get(), y_.get());
}

void CudnnConvRunner::GraphExecDeleter::operator()(cudaGraphExec_t exec) const noexcept {
  CNNPERF_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec));
}

void CudnnConvRunner::check_launch(cudnnStatus_t launched) {
  if (launched == CUDNN_STATUS_SUCCESS) return;
  // A sticky CUDA error behind the cuDNN status is a lost device, not this row's failure.
  CNNPERF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  throw_cudnn(launched, "cudnnConvolutionForward", __FILE__, __LINE__);
}

void CudnnConvRunner::capture_graph() {
  graph_tried_ = true;
  // Thread-local mode: a call cuDNN makes that cannot be captured fails here (and the capture
  // with it) instead of being enqueued for real.
  cudaError_t r = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
  if (r != cudaSuccess) {
    (void)cudaGetLastError();
    launch_mode_ = std::string("stream (cudaStreamBeginCapture: ") + cudaGetErrorName(r) + ")";
    return;
  }
  cudnnStatus_t launched = CUDNN_STATUS_SUCCESS;
  for (int i = 0; i < kGraphLaunches && launched == CUDNN_STATUS_SUCCESS; ++i) launched = launch();
  cudaGraph_t graph = nullptr;
  r = cudaStreamEndCapture(stream_, &graph);  // ends the capture on every path
  if (launched != CUDNN_STATUS_SUCCESS || r != cudaSuccess || graph == nullptr) {
    if (graph != nullptr) CNNPERF_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph));
    (void)cudaGetLastError();  // capture errors are not sticky
    launch_mode_ = launched != CUDNN_STATUS_SUCCESS
                       ? std::string("stream (captured cudnnConvolutionForward: ") +
                             cudnnGetErrorString(launched) + ")"
                       : std::string("stream (cudaStreamEndCapture: ") + cudaGetErrorName(r) + ")";
    return;
  }
  cudaGraphExec_t exec = nullptr;
  r = cudaGraphInstantiate(&exec, graph, 0);
  CNNPERF_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph));
  if (r != cudaSuccess) {
    (void)cudaGetLastError();
    launch_mode_ = std::string("stream (cudaGraphInstantiate: ") + cudaGetErrorName(r) + ")";
    return;
  }
  graph_.reset(exec);
  launch_mode_ = "cuda-graph";
}

void CudnnConvRunner::run_untraced(int launches) {
  // One cudnnConvolutionForward can cost the host longer than a small layer's kernels take
  // (docs/profiling.md), so launched one by one the GPU idles between them and the energy
  // window bills idle power to the layer. A replayed graph runs them back to back. Captured at
  // the first untraced call (the warm-up), outside the energy window.
  if (!graph_tried_) capture_graph();
  int left = launches;
  if (graph_) {
    for (; left >= kGraphLaunches; left -= kGraphLaunches) {
      CNNPERF_CUDA_CHECK(cudaGraphLaunch(graph_.get(), stream_));
    }
  }
  for (; left > 0; --left) check_launch(launch());
  CNNPERF_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudnnConvRunner::run(int launches, bool trace, std::uint64_t job, std::uint32_t first_sample) {
  if (!trace) {
    const TracingPaused untraced;
    run_untraced(launches);
    return;
  }
  for (int i = 0; i < launches; ++i) {
    CuptiTracer::push(make_external_id(job, first_sample + static_cast<std::uint32_t>(i)));
    const cudnnStatus_t launched = launch();
    CuptiTracer::pop();
    check_launch(launched);
  }
  CNNPERF_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudnnConvRunner::flush_l2() {
  if (l2_bytes_ <= 0) return;
  if (l2_.get() == nullptr) {
    // Twice the L2 size: partitioned L2s (A100) keep lines in the far partition otherwise.
    const Status st = l2_.allocate(static_cast<std::size_t>(l2_bytes_) * 2, "l2 flush");
    if (!st.ok()) throw Error(st.reason);
  }
  CNNPERF_CUDA_CHECK(cudaMemsetAsync(l2_.get(), ++l2_flushes_ & 0xff, l2_.bytes(), stream_));
  CNNPERF_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::vector<AlgoChoice> heuristic_ranking(cudnnHandle_t handle, const Layer& layer, Layout layout,
                                          Status& status) {
  ConvDescriptors d;
  status = set_conv_descriptors(layer, layout, d);
  if (!status.ok()) return {};
  int max_count = 0;
  cudnnStatus_t s = cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_count);
  if (s != CUDNN_STATUS_SUCCESS) {
    status = cudnn_status(s, "cudnnGetConvolutionForwardAlgorithmMaxCount");
    return {};
  }
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(std::max(max_count, 1)));
  int returned = 0;
  s = cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x.get(), d.w.get(), d.conv.get(), d.y.get(),
                                             static_cast<int>(perf.size()), &returned, perf.data());
  if (s != CUDNN_STATUS_SUCCESS) {
    status = cudnn_status(s, "cudnnGetConvolutionForwardAlgorithm_v7");
    return {};
  }
  std::vector<AlgoChoice> choices = usable_choices(perf.data(), returned);
  if (choices.empty()) {
    status = {Outcome::kNotSupported,
              "cudnnGetConvolutionForwardAlgorithm_v7: no algorithm supports this problem"};
    return {};
  }
  status = {};
  return choices;
}

}  // namespace cnnperf::gpu
