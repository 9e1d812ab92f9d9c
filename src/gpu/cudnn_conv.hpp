// SPDX-License-Identifier: Apache-2.0
// cuDNN (legacy convolution API) for one forward convolution: RAII descriptors and buffers,
// descriptor set-up from our Layer (usable without a GPU), the algorithm enum mapping, and the
// ConvRunner that launches it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf::gpu {

/// Owns one cuDNN descriptor; destroyed with the matching cudnnDestroy*.
template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class CudnnDescriptor {
 public:
  CudnnDescriptor();
  ~CudnnDescriptor();
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  [[nodiscard]] T get() const { return descriptor_; }

 private:
  T descriptor_{};
};
using TensorDescriptor = CudnnDescriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor,
                                         cudnnDestroyTensorDescriptor>;
using FilterDescriptor = CudnnDescriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor,
                                         cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    CudnnDescriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                    cudnnDestroyConvolutionDescriptor>;

/// The descriptors of one forward problem.
struct ConvDescriptors {
  TensorDescriptor x;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  TensorDescriptor y;
  std::array<int, 4> y_dims{};  ///< n, c, h, w from cudnnGetConvolution2dForwardOutputDim
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
};

/// Sets all descriptors for `layer` (NCHW/NHWC, fp32/fp16, groups, dilation). Needs no
/// handle and no GPU. fp16 uses float accumulation and tensor-op math (as frameworks do);
/// fp32 uses CUDNN_DEFAULT_MATH (TF32 allowed on Ampere and newer, PyTorch's default).
/// Not ok: the outcome cuDNN's status maps to, with the call and message.
[[nodiscard]] Status set_conv_descriptors(const Layer& layer, Layout layout, ConvDescriptors& d);

[[nodiscard]] cudnnConvolutionFwdAlgo_t to_cudnn(ConvAlgo algo);
[[nodiscard]] ConvAlgo from_cudnn(cudnnConvolutionFwdAlgo_t algo);
[[nodiscard]] cudnnMathType_t to_cudnn(MathType math);
[[nodiscard]] MathType from_cudnn(cudnnMathType_t math);

/// Sets the heuristic's math type on the convolution descriptor (d.math_type follows); the
/// layer's default stays when `math` is nullopt.
[[nodiscard]] Status apply_math_type(ConvDescriptors& d, std::optional<MathType> math);

/// The usable entries (status success) of a heuristic result, in its order, each with the
/// math type it was ranked with.
[[nodiscard]] std::vector<AlgoChoice> usable_choices(const cudnnConvolutionFwdAlgoPerf_t* perf,
                                                     int returned);

/// A device allocation (cudaMalloc/cudaFree).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates; status not ok (e.g. out of memory) leaves the buffer empty.
  Status allocate(std::size_t bytes, const char* what);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Fills a buffer with reproducible pseudo-random values in [-1, 1) of `dtype` (zeros would
/// understate power). The copy runs on `stream`, the convolution's non-blocking stream, which
/// does not wait for the legacy default stream, and is complete on return.
Status fill_random(DeviceBuffer& buffer, std::size_t elements, DType dtype, std::uint32_t seed,
                   cudaStream_t stream);
/// IEEE binary16 bits of a float (round to nearest even; finite inputs).
[[nodiscard]] std::uint16_t float_to_half_bits(float value);

/// The runner: tensors, workspace, an L2-flush buffer, launched on `stream`.
class CudnnConvRunner final : public ConvRunner {
 public:
  /// Sets up and runs once to check; `status` tells whether the algorithm works.
  CudnnConvRunner(cudnnHandle_t handle, cudaStream_t stream, std::int64_t l2_bytes,
                  const Layer& layer, Layout layout, const AlgoChoice& choice, Status& status);
  void run(int launches, bool trace, std::uint64_t job, std::uint32_t first_sample) override;
  void flush_l2() override;
  [[nodiscard]] std::int64_t workspace_bytes() const override {
    return static_cast<std::int64_t>(workspace_.bytes());
  }
  [[nodiscard]] std::string untraced_launch_mode() const override { return launch_mode_; }

  /// Convolutions per captured graph: enough that one graph launch's host cost is small
  /// against the kernels it replays, few enough that capture stays quick.
  static constexpr int kGraphLaunches = 32;

 private:
  struct GraphExecDeleter {
    void operator()(cudaGraphExec_t exec) const noexcept;
  };
  cudnnStatus_t launch();
  /// Throws for a failed launch: DeviceLost behind a sticky CUDA error, else the cuDNN error.
  void check_launch(cudnnStatus_t launched);
  /// Captures kGraphLaunches launches into graph_ once; on a refusal keeps launching one host
  /// call at a time and says why in launch_mode_.
  void capture_graph();
  void run_untraced(int launches);
  cudnnHandle_t handle_;
  cudaStream_t stream_;
  cudnnConvolutionFwdAlgo_t algo_;
  ConvDescriptors d_;
  DeviceBuffer x_, w_, y_, workspace_, l2_;
  std::int64_t l2_bytes_ = 0;
  int l2_flushes_ = 0;
  bool graph_tried_ = false;
  std::string launch_mode_ = "stream";
  // Last: destroyed first, before the buffers its kernels point at.
  std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDeleter> graph_;
};

/// The heuristic's usable choices, best first (cudnnGetConvolutionForwardAlgorithm_v7 with
/// room for cudnnGetConvolutionForwardAlgorithmMaxCount results).
[[nodiscard]] std::vector<AlgoChoice> heuristic_ranking(cudnnHandle_t handle, const Layer& layer,
                                                        Layout layout, Status& status);

}  // namespace cnnperf::gpu
