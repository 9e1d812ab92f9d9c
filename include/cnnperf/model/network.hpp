// SPDX-License-Identifier: Apache-2.0
// A network: an ordered list of layers for one input shape, plus where it came from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cnnperf/model/layer.hpp"

namespace cnnperf {

struct Network {
  std::string name;    ///< zoo name, file stem, or user-given name
  std::string source;  ///< "zoo", an ONNX path or a JSON path
  /// The zoo network a JSON layer list holds exactly (a re-read `nets show --layer-list`
  /// export), so it keeps that network's end-to-end calibration; empty otherwise.
  std::string zoo_network;
  std::int64_t batch = 1;
  std::int64_t input_c = 3;
  std::int64_t input_h = 224;
  std::int64_t input_w = 224;
  std::vector<Layer> layers;  ///< in execution order

  [[nodiscard]] std::int64_t params() const;  ///< sum of layer params
  [[nodiscard]] std::int64_t macs() const;    ///< sum of layer MACs
  [[nodiscard]] double flops() const;         ///< sum of layer FLOPs (multiply-add = 2)
};

/// Lets the fp32 convolutions of `layers` run on TF32 tensor cores where the GPU has them, as
/// PyTorch runs them by default (torch.backends.cudnn.allow_tf32 = True); `allow` false makes
/// them strict fp32 (CUDA-core FMA) again. Every other layer is marked strict. The one place
/// the rule is written (runs_tf32 adds the GPU's side and leaves grouped convolutions out).
void allow_tf32_convolutions(std::vector<Layer>& layers, bool allow = true);
/// The same for the layers of `net`.
void allow_tf32_convolutions(Network& net, bool allow = true);

/// Options that change how a network is instantiated.
struct NetworkOptions {
  std::int64_t batch = 1;
  std::int64_t input_h = 0;  ///< 0: the network's default resolution
  std::int64_t input_w = 0;
  DType dtype = DType::kFp32;
};

}  // namespace cnnperf
