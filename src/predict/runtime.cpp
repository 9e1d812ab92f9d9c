// SPDX-License-Identifier: Apache-2.0
// Runtimes: names, what each assumes, the math each allows.
#include "cnnperf/predict/runtime.hpp"

#include <array>

#include "cnnperf/common/error.hpp"
#include "cnnperf/model/network.hpp"

namespace cnnperf {

namespace {

struct RuntimeEntry {
  Runtime runtime;
  const char* name;
  RuntimeTraits traits;
};

// cuDNN and eager PyTorch let fp32 convolutions use TF32 on Ampere and later by default:
// cuDNN's CUDNN_DEFAULT_MATH permits it (what `profile` sets for fp32), and PyTorch's
// torch.backends.cudnn.allow_tf32 is true by default (its matmul flag is not: linear layers
// stay strict fp32). torch.compile calls the same convolutions. TensorRT builds fp32 engines
// with TF32 allowed (its kTF32 builder flag is on by default).
const std::array<RuntimeEntry, 4>& runtime_table() {
  static const std::array<RuntimeEntry, 4> table{{
      {Runtime::kCudnn,
       "cudnn",
       {true, "the fastest algorithm for the shape, as `profile` times it",
        "the device-side gap between its dependent kernels; no framework, no host-bound issue",
        Fusion::kNone, false, "the layer's own dtype"}},
      {Runtime::kPytorch,
       "pytorch",
       {true, "cuDNN's heuristics or benchmark mode, as PyTorch's convolution calls it",
        "per op the host's dispatch and launch time (an op whose kernels are shorter waits for "
        "it); per step a fixed cost, the input batch's host-to-device copy and the step's "
        "host/GPU overlap, fitted on measured end-to-end steps",
        Fusion::kNone, false, "the precision asked for (AMP rows are priced as fp16)"}},
      {Runtime::kPytorchCompile,
       "pytorch-compile",
       {true,
        "Inductor: convolutions and GEMMs through cuDNN/cuBLAS (channels-last layout chosen "
        "for convolutions), pointwise chains as generated kernels",
        "per launched kernel a host cost, per step a fixed cost, and a kernel-time scale "
        "against the per-layer model, fitted on timm's torch.compile steps (input already on "
        "the GPU)",
        Fusion::kPointwiseChains, true,
        "the precision asked for (timm's AMP rows are priced as fp16)", true}},
      {Runtime::kTensorrt,
       "tensorrt",
       {true, "TensorRT's builder: the fastest tactic per fused layer",
        "per launched kernel a gap, per step a fixed cost (enqueue, synchronise, input copy) "
        "and a kernel-time scale, fitted on MLPerf Inference ResNet-50 results",
        Fusion::kIntoProducer, true,
        "INT8 where the GPU has an INT8 tensor rate (MLPerf's closed-division ResNet-50 "
        "engines), else fp16; a precision asked for overrides",
        true}},
  }};
  return table;
}

}  // namespace

std::string to_string(Runtime runtime) {
  for (const auto& entry : runtime_table()) {
    if (entry.runtime == runtime) return entry.name;
  }
  return "unknown";
}

const std::vector<std::string>& runtime_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : runtime_table()) out.emplace_back(entry.name);
    return out;
  }();
  return names;
}

Runtime runtime_from_string(std::string_view text) {
  for (const auto& entry : runtime_table()) {
    if (text == entry.name) return entry.runtime;
  }
  std::string choices;
  for (const auto& name : runtime_names()) choices += (choices.empty() ? "" : ", ") + name;
  throw ParameterError("runtime",
                       "expected one of " + choices + ", got '" + std::string(text) + "'");
}

const RuntimeTraits& runtime_traits(Runtime runtime) {
  for (const auto& entry : runtime_table()) {
    if (entry.runtime == runtime) return entry.traits;
  }
  return runtime_table().front().traits;
}

void apply_runtime_math(std::vector<Layer>& layers, Runtime runtime, bool allow_tf32,
                        std::optional<Layout> layout) {
  const RuntimeTraits& traits = runtime_traits(runtime);
  allow_tf32_convolutions(layers, allow_tf32 && traits.tf32_convolutions);
  if (traits.channels_last) layout = Layout::kNhwc;
  if (!layout) return;
  for (Layer& layer : layers) {
    if (layer.op == Op::kConv2d) layer.layout = *layout;
  }
}

}  // namespace cnnperf
