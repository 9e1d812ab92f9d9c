// SPDX-License-Identifier: Apache-2.0
// Zoo registry: entries with published figures, name lookup with suggestions, dispatch to
// the family builders (zoo_classic.cpp, zoo_mobile.cpp, zoo_inception.cpp).
#include "cnnperf/model/zoo.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/zoo_accuracy.hpp"
#include "zoo_internal.hpp"

namespace cnnperf {

namespace {

using detail::NetBuilder;
using BuildFn = void (*)(NetBuilder&, std::string_view);

struct ZooDef {
  ZooEntry entry;
  BuildFn build;
};

constexpr const char* kTorchvisionFigures =
    "torchvision.models <Model>_Weights.IMAGENET1K_V1 meta: num_params, _ops (the docs table's "
    "Params and GFLOPS columns; _ops counts multiply-accumulates)";

// Top-1 accuracy is not here: models/zoo_accuracy.json holds it, with a citation per figure.
ZooDef tv(std::string name, std::string family, std::string description, std::int64_t size,
          std::int64_t params, double gmacs, BuildFn build) {
  ZooEntry e;
  e.name = std::move(name);
  e.family = std::move(family);
  e.description = std::move(description);
  e.default_input_h = size;
  e.default_input_w = size;
  e.published_params = params;
  e.published_gmacs = gmacs;
  e.published_source = kTorchvisionFigures;
  return {std::move(e), build};
}

const std::vector<ZooDef>& zoo_defs() {
  using namespace detail;
  static const std::vector<ZooDef> defs = [] {
    std::vector<ZooDef> d;
    d.push_back(
        tv("alexnet", "alexnet", "AlexNet (one-GPU variant)", 224, 61100840, 0.714, build_alexnet));
    const char* vgg_desc = "VGG, 3x3 convolutions";
    d.push_back(tv("vgg11", "vgg", vgg_desc, 224, 132863336, 7.609, build_vgg));
    d.push_back(tv("vgg11_bn", "vgg", "VGG-11 with batch norm", 224, 132868840, 7.609, build_vgg));
    d.push_back(tv("vgg13", "vgg", vgg_desc, 224, 133047848, 11.308, build_vgg));
    d.push_back(tv("vgg13_bn", "vgg", "VGG-13 with batch norm", 224, 133053736, 11.308, build_vgg));
    d.push_back(tv("vgg16", "vgg", vgg_desc, 224, 138357544, 15.47, build_vgg));
    d.push_back(tv("vgg16_bn", "vgg", "VGG-16 with batch norm", 224, 138365992, 15.47, build_vgg));
    d.push_back(tv("vgg19", "vgg", vgg_desc, 224, 143667240, 19.632, build_vgg));
    d.push_back(tv("vgg19_bn", "vgg", "VGG-19 with batch norm", 224, 143678248, 19.632, build_vgg));
    const char* res_desc = "ResNet (V1.5: stride on the 3x3 conv of bottlenecks)";
    d.push_back(
        tv("resnet18", "resnet", "ResNet-18, basic blocks", 224, 11689512, 1.814, build_resnet));
    d.push_back(
        tv("resnet34", "resnet", "ResNet-34, basic blocks", 224, 21797672, 3.664, build_resnet));
    d.push_back(tv("resnet50", "resnet", res_desc, 224, 25557032, 4.089, build_resnet));
    d.push_back(tv("resnet101", "resnet", res_desc, 224, 44549160, 7.801, build_resnet));
    d.push_back(tv("resnet152", "resnet", res_desc, 224, 60192808, 11.514, build_resnet));
    d.push_back(tv("resnext50_32x4d", "resnext", "ResNeXt-50, 32 groups x 4 channels", 224,
                   25028904, 4.23, build_resnet));
    d.push_back(tv("resnext101_32x8d", "resnext", "ResNeXt-101, 32 groups x 8 channels", 224,
                   88791336, 16.414, build_resnet));
    d.push_back(tv("wide_resnet50_2", "wide_resnet", "Wide ResNet-50, bottlenecks twice as wide",
                   224, 68883240, 11.398, build_resnet));
    d.push_back(tv("wide_resnet101_2", "wide_resnet", "Wide ResNet-101, bottlenecks twice as wide",
                   224, 126886696, 22.753, build_resnet));
    d.push_back(tv("squeezenet1_0", "squeezenet", "SqueezeNet 1.0 (fire modules)", 224, 1248424,
                   0.819, build_squeezenet));
    d.push_back(tv("squeezenet1_1", "squeezenet", "SqueezeNet 1.1 (fire modules, cheaper stem)",
                   224, 1235496, 0.349, build_squeezenet));
    d.push_back(tv("densenet121", "densenet", "DenseNet-121, growth 32", 224, 7978856, 2.834,
                   build_densenet));
    d.push_back(tv("densenet161", "densenet", "DenseNet-161, growth 48", 224, 28681000, 7.728,
                   build_densenet));
    d.push_back(tv("densenet169", "densenet", "DenseNet-169, growth 32", 224, 14149480, 3.36,
                   build_densenet));
    d.push_back(tv("densenet201", "densenet", "DenseNet-201, growth 32", 224, 20013928, 4.291,
                   build_densenet));
    d.push_back(tv("googlenet", "googlenet",
                   "GoogLeNet (Inception v1) with batch norm, no aux heads", 224, 6624904, 1.498,
                   build_googlenet));
    {
      ZooDef inc = tv("inception_v3", "inception", "Inception v3 (inference path, no AuxLogits)",
                      299, 27161264, 5.713, build_inception_v3);
      // torchvision's pretrained model keeps the AuxLogits head (counted in num_params) but
      // runs it only in training mode: 128*768 conv+bn, 768*128*5*5 conv+bn, 768->1000 fc.
      inc.entry.auxiliary_params = 3326696;
      d.push_back(std::move(inc));
    }
    d.push_back(tv("mobilenet_v2", "mobilenet", "MobileNetV2, inverted residuals", 224, 3504872,
                   0.301, build_mobilenet_v2));
    d.push_back(tv("mobilenet_v3_large", "mobilenet",
                   "MobileNetV3-Large (squeeze-excite, hardswish)", 224, 5483032, 0.217,
                   build_mobilenet_v3));
    d.push_back(tv("mobilenet_v3_small", "mobilenet",
                   "MobileNetV3-Small (squeeze-excite, hardswish)", 224, 2542856, 0.057,
                   build_mobilenet_v3));
    d.push_back(tv("mnasnet0_5", "mnasnet", "MNASNet, depth multiplier 0.5", 224, 2218512, 0.104,
                   build_mnasnet));
    d.push_back(tv("mnasnet0_75", "mnasnet", "MNASNet, depth multiplier 0.75", 224, 3170208, 0.215,
                   build_mnasnet));
    d.push_back(tv("mnasnet1_0", "mnasnet", "MNASNet, depth multiplier 1.0", 224, 4383312, 0.314,
                   build_mnasnet));
    d.push_back(tv("mnasnet1_3", "mnasnet", "MNASNet, depth multiplier 1.3", 224, 6282256, 0.526,
                   build_mnasnet));
    d.push_back(tv("shufflenet_v2_x0_5", "shufflenet", "ShuffleNetV2, 0.5x channels", 224, 1366792,
                   0.04, build_shufflenet_v2));
    d.push_back(tv("shufflenet_v2_x1_0", "shufflenet", "ShuffleNetV2, 1.0x channels", 224, 2278604,
                   0.145, build_shufflenet_v2));
    d.push_back(tv("shufflenet_v2_x1_5", "shufflenet", "ShuffleNetV2, 1.5x channels", 224, 3503624,
                   0.296, build_shufflenet_v2));
    d.push_back(tv("shufflenet_v2_x2_0", "shufflenet", "ShuffleNetV2, 2.0x channels", 224, 7393996,
                   0.583, build_shufflenet_v2));
    const char* eff = "EfficientNet (MBConv with squeeze-excite, SiLU)";
    d.push_back(
        tv("efficientnet_b0", "efficientnet", eff, 224, 5288548, 0.386, build_efficientnet));
    d.push_back(
        tv("efficientnet_b1", "efficientnet", eff, 240, 7794184, 0.687, build_efficientnet));
    d.push_back(
        tv("efficientnet_b2", "efficientnet", eff, 288, 9109994, 1.088, build_efficientnet));
    d.push_back(
        tv("efficientnet_b3", "efficientnet", eff, 300, 12233232, 1.827, build_efficientnet));
    d.push_back(
        tv("efficientnet_b4", "efficientnet", eff, 380, 19341616, 4.394, build_efficientnet));
    d.push_back(
        tv("efficientnet_b5", "efficientnet", eff, 456, 30389784, 10.266, build_efficientnet));
    d.push_back(
        tv("efficientnet_b6", "efficientnet", eff, 528, 43040704, 19.068, build_efficientnet));
    d.push_back(
        tv("efficientnet_b7", "efficientnet", eff, 600, 66347960, 37.746, build_efficientnet));
    {
      ZooDef x = tv("xception", "xception",
                    "Xception (Chollet 2017): depthwise separable convs, Keras layout", 299,
                    22855952, 0, build_xception);
      x.entry.published_source =
          "Chollet 2017, Table 3 (22,855,952 parameters incl. the fc layer); the paper "
          "publishes no multiply-accumulate count";
      d.push_back(std::move(x));
    }
    // One copy of each published top-1 figure: the bundled accuracy table (plan reads it too).
    const AccuracyTable& accuracy = AccuracyTable::bundled();
    for (auto& def : d) {
      if (const PublishedAccuracy* a = accuracy.find(def.entry.name)) {
        def.entry.top1_accuracy = a->top1_percent;
        def.entry.accuracy_source = a->weights + "; " + a->source;
      }
    }
    return d;
  }();
  return defs;
}

std::string normalize_name(std::string_view name) {
  std::string n = to_lower(name);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

const ZooDef* find_def(std::string_view name) {
  const std::string n = normalize_name(name);
  for (const auto& def : zoo_defs()) {
    if (def.entry.name == n) return &def;
  }
  return nullptr;
}

}  // namespace

namespace detail {

std::int64_t make_divisible(double value, std::int64_t divisor) {
  const auto d = static_cast<double>(divisor);
  std::int64_t rounded =
      std::max(divisor, static_cast<std::int64_t>(value + d / 2) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

}  // namespace detail

const std::vector<ZooEntry>& zoo_entries() {
  static const std::vector<ZooEntry> entries = [] {
    std::vector<ZooEntry> out;
    for (const auto& def : zoo_defs()) out.push_back(def.entry);
    return out;
  }();
  return entries;
}

const ZooEntry* find_zoo_entry(std::string_view name) {
  const ZooDef* def = find_def(name);
  return def ? &def->entry : nullptr;
}

std::vector<std::string> closest_zoo_names(std::string_view name, std::size_t count) {
  const std::string n = normalize_name(name);
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& def : zoo_defs()) {
    scored.emplace_back(edit_distance(n, def.entry.name), def.entry.name);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(scored[i].second);
  return out;
}

Network build_zoo_network(std::string_view name, const NetworkOptions& options) {
  const ZooDef* def = find_def(name);
  if (def == nullptr) {
    throw InputError("unknown network '" + std::string(name) +
                     "'; closest: " + join(closest_zoo_names(name), ", "));
  }
  if (options.batch <= 0) {
    throw ParameterError("batch",
                         "expected a positive integer, got " + std::to_string(options.batch));
  }
  if (options.input_h < 0 || options.input_w < 0) {
    throw ParameterError("input_size", "expected positive HxW, got " +
                                           std::to_string(options.input_h) + "x" +
                                           std::to_string(options.input_w));
  }
  const ZooEntry& e = def->entry;
  // A single given side means a square input.
  std::int64_t h = options.input_h > 0 ? options.input_h : options.input_w;
  std::int64_t w = options.input_w > 0 ? options.input_w : options.input_h;
  if (h == 0) {
    h = e.default_input_h;
    w = e.default_input_w;
  }
  NetBuilder builder(e.name, h, w, options);
  def->build(builder, e.name);
  return builder.finish();
}

Network build_cifar_network(std::string_view name, const NetworkOptions& options) {
  if (name != kCifarShuffleNetV2) {
    throw InputError("unknown CIFAR network '" + std::string(name) + "' (expected " +
                     kCifarShuffleNetV2 + ")");
  }
  if (options.batch <= 0) {
    throw ParameterError("batch",
                         "expected a positive integer, got " + std::to_string(options.batch));
  }
  constexpr std::int64_t kCifarSide = 32;
  NetBuilder builder(kCifarShuffleNetV2, options.input_h > 0 ? options.input_h : kCifarSide,
                     options.input_w > 0 ? options.input_w : kCifarSide, options);
  build_shufflenet_v2_cifar(builder, name);
  return builder.finish();
}

}  // namespace cnnperf
