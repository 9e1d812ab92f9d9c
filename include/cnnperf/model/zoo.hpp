// SPDX-License-Identifier: Apache-2.0
// The built-in network zoo: torchvision's ImageNet classifiers (plus Xception), layer by
// layer, with the published parameter counts, multiply-accumulates and top-1 accuracy.
// docs/zoo.md describes the representation and compares measured with published figures.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/model/network.hpp"

namespace cnnperf {

/// One zoo network and its published figures.
struct ZooEntry {
  std::string name;                    ///< torchvision builder name, e.g. "resnet50"
  std::string family;                  ///< e.g. "resnet", "efficientnet"
  std::string description;             ///< one line
  std::int64_t default_input_h = 224;  ///< pixels; the resolution the published figures use
  std::int64_t default_input_w = 224;
  /// Learnable parameters as published (torchvision `num_params`, the paper for xception).
  std::int64_t published_params = 0;
  /// Parameters inside published_params that inference never executes (Inception v3's
  /// AuxLogits head, kept by torchvision's pretrained model but skipped in eval mode).
  std::int64_t auxiliary_params = 0;
  /// Published multiply-accumulates in units of 1e9 at the default input size (torchvision's
  /// `_ops`, shown as "GFLOPS" in its docs but counting multiply-adds once); 0 = not published.
  double published_gmacs = 0;
  double top1_accuracy = 0;      ///< ImageNet-1k top-1, %, from models/zoo_accuracy.json
  std::string accuracy_source;   ///< its weights and where it was read
  std::string published_source;  ///< where published_params / published_gmacs come from
};

/// All zoo networks, in a stable order (families together).
[[nodiscard]] const std::vector<ZooEntry>& zoo_entries();

/// The entry of `name` (case-insensitive, '-' read as '_'), or nullptr.
[[nodiscard]] const ZooEntry* find_zoo_entry(std::string_view name);

/// Up to `count` zoo names closest to `name` (edit distance), closest first.
[[nodiscard]] std::vector<std::string> closest_zoo_names(std::string_view name,
                                                         std::size_t count = 3);

/// Builds the layers of a zoo network for `options` (batch, input size override, dtype of
/// every layer). Throws InputError "unknown network 'x'; closest: a, b, c" for an unknown
/// name, and an InputError naming the first layer that does not fit when the input size is
/// too small for the network (or a non-positive batch / size).
[[nodiscard]] Network build_zoo_network(std::string_view name, const NetworkOptions& options = {});

/// The CIFAR-100 network of the power data (Zeus trained weiaicunzai/pytorch-cifar100's
/// ShuffleNetV2, 32x32 inputs, 100 classes): outside the zoo, which holds torchvision's
/// ImageNet networks, so `nets`, `plan` and zoo names do not list it.
inline constexpr const char* kCifarShuffleNetV2 = "shufflenetv2_cifar100";
/// Builds kCifarShuffleNetV2 for `options` (batch, dtype; 32x32 unless an input size is
/// given); throws InputError for another name.
[[nodiscard]] Network build_cifar_network(std::string_view name,
                                          const NetworkOptions& options = {});

inline constexpr const char* kNasBench201Source = "nas-bench-201";
inline constexpr const char* kFbnetSource = "fbnet";
/// Networks of two NAS search spaces, spelled by their architecture (the HELP latency data,
/// datasets/e2e_help_nas.csv.gz; outside the zoo, CIFAR-100: 32x32 inputs, 100 classes):
/// - "nb201:<cell>" (or "nasbench201:<cell>"): NAS-Bench-201's TinyNetwork (C 16, 5 cells per
///   stage) with the cell string, e.g.
///   "nb201:|nor_conv_3x3~0|+|none~0|skip_connect~1|+|skip_connect~0|nor_conv_1x1~1|none~2|";
/// - "fbnet:<22 blocks>": HW-NAS-Bench's FBNet (CIFAR strides), blocks k3_e1, k3_e1_g2,
///   k3_e3, k3_e6, k5_e1, k5_e1_g2, k5_e3, k5_e6 or skip separated by spaces, commas or '-'.
[[nodiscard]] bool is_nas_network_spec(std::string_view spec);
/// Whether a Network::source is one of the NAS spaces (kNasBench201Source, kFbnetSource).
[[nodiscard]] bool is_nas_source(std::string_view network_source);
/// The search space of a NAS spec (kNasBench201Source or kFbnetSource), "" for anything else.
[[nodiscard]] std::string nas_space_of(std::string_view spec);
/// Builds a NAS network spec for `options` (batch, dtype; 32x32 unless an input size is
/// given). Network::source is kNasBench201Source or kFbnetSource. Throws InputError naming the
/// part of the spec that is wrong.
[[nodiscard]] Network build_nas_network(std::string_view spec, const NetworkOptions& options = {});

}  // namespace cnnperf
