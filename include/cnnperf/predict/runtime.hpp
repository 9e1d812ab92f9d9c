// SPDX-License-Identifier: Apache-2.0
// What runs a network or a layer: its precision choices and the overhead it adds to kernel time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/model/layer.hpp"

namespace cnnperf {

/// The software that runs the kernels (DESIGN "Times"). Kernel time is the same under each;
/// what differs is the math a runtime allows and the overhead it adds on top.
enum class Runtime {
  kCudnn,           ///< a direct cuDNN call from C/C++, fastest algorithm: what `profile` measures
  kPytorch,         ///< PyTorch eager: the default for networks
  kPytorchCompile,  ///< torch.compile (Inductor): pointwise chains fused, its own host terms
  kTensorrt,        ///< a TensorRT engine: inference only, INT8 where the GPU has the rate
};

/// "cudnn", "pytorch", "pytorch-compile" or "tensorrt".
[[nodiscard]] std::string to_string(Runtime runtime);
/// Parses a runtime name; throws ParameterError("runtime", ...) naming the choices otherwise.
[[nodiscard]] Runtime runtime_from_string(std::string_view text);
/// Every runtime's name, in the enum's order.
[[nodiscard]] const std::vector<std::string>& runtime_names();

/// How a runtime merges the kernels of a network's ops (inference only).
enum class Fusion {
  kNone,  ///< every op launches its own kernels
  /// A chain of consecutive elementwise ops and inference batch norms runs as one generated
  /// kernel (torch.compile's Inductor): the chain's op of the largest kernel time keeps it,
  /// the others are fused into it.
  kPointwiseChains,
  /// Batch norm, activations and residual adds after a convolution or linear layer run in its
  /// epilogue (TensorRT's conv fusions); other chains as kPointwiseChains.
  kIntoProducer,
};

/// What a runtime assumes, in words a user can check (docs/methodology.md, "Runtimes").
struct RuntimeTraits {
  /// fp32 convolutions may run on TF32 tensor cores (Ampere and later) by the runtime's default.
  bool tf32_convolutions = true;
  std::string algorithm;  ///< how the convolution algorithm is chosen
  std::string overhead;   ///< what the runtime adds to kernel time, per op and per step
  /// How the runtime merges a network's kernels (apply_runtime_fusion).
  Fusion fusion = Fusion::kNone;
  bool inference_only = false;  ///< a training step under it is not modelled
  std::string precision;        ///< its precision assumption, in words
  /// Calls convolutions with NHWC tensors whatever the layers' own layout (no NCHW/NHWC
  /// transposes around cuDNN's tensor-core kernels).
  bool channels_last = false;
};
[[nodiscard]] const RuntimeTraits& runtime_traits(Runtime runtime);

/// Marks the fp32 convolutions of `layers` for TF32 when the runtime allows it by default and
/// `allow_tf32` (the user's choice) does not forbid it; every other layer is left strict. A
/// channels-last runtime's convolutions become NHWC; otherwise each takes `layout` when given
/// (PyTorch's channels_last: NHWC), else keeps its own.
void apply_runtime_math(std::vector<Layer>& layers, Runtime runtime, bool allow_tf32,
                        std::optional<Layout> layout = std::nullopt);

}  // namespace cnnperf
