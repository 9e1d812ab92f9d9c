// SPDX-License-Identifier: Apache-2.0
// Builders of the zoo families; each appends the layers of the named variant to a NetBuilder
// whose input shape is already set. Layer names follow torchvision's module paths.
#pragma once

#include <string_view>

#include "net_builder.hpp"

namespace cnnperf::detail {

/// resnet18/34/50/101/152, resnext50_32x4d, resnext101_32x8d, wide_resnet50_2/101_2.
void build_resnet(NetBuilder& b, std::string_view name);
void build_vgg(NetBuilder& b, std::string_view name);  ///< vgg11..19 and _bn
void build_alexnet(NetBuilder& b, std::string_view name);
void build_squeezenet(NetBuilder& b, std::string_view name);
void build_densenet(NetBuilder& b, std::string_view name);
void build_mobilenet_v2(NetBuilder& b, std::string_view name);
void build_mobilenet_v3(NetBuilder& b, std::string_view name);
void build_mnasnet(NetBuilder& b, std::string_view name);
void build_shufflenet_v2(NetBuilder& b, std::string_view name);
/// weiaicunzai/pytorch-cifar100's ShuffleNetV2 for 32x32 CIFAR-100 inputs (not in the zoo).
void build_shufflenet_v2_cifar(NetBuilder& b, std::string_view name);
void build_efficientnet(NetBuilder& b, std::string_view name);
void build_googlenet(NetBuilder& b, std::string_view name);
void build_inception_v3(NetBuilder& b, std::string_view name);
void build_xception(NetBuilder& b, std::string_view name);

/// torchvision's _make_divisible: round to the nearest multiple of `divisor`, never more
/// than 10% below `value`.
[[nodiscard]] std::int64_t make_divisible(double value, std::int64_t divisor);

}  // namespace cnnperf::detail
