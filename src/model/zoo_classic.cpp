// SPDX-License-Identifier: Apache-2.0
// Zoo: the "classic" torchvision families (ResNet/ResNeXt/Wide ResNet, VGG, AlexNet,
// SqueezeNet, DenseNet), transcribed from torchvision.models' module structure.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "zoo_internal.hpp"

namespace cnnperf::detail {

namespace {

std::string idx(const std::string& prefix, std::int64_t i) {
  return prefix + "." + std::to_string(i);
}

struct ResNetConfig {
  bool bottleneck;
  std::array<int, 4> blocks;
  std::int64_t groups;
  std::int64_t width_per_group;
};

ResNetConfig resnet_config(std::string_view name) {
  if (name == "resnet18") return {false, {2, 2, 2, 2}, 1, 64};
  if (name == "resnet34") return {false, {3, 4, 6, 3}, 1, 64};
  if (name == "resnet50") return {true, {3, 4, 6, 3}, 1, 64};
  if (name == "resnet101") return {true, {3, 4, 23, 3}, 1, 64};
  if (name == "resnet152") return {true, {3, 8, 36, 3}, 1, 64};
  if (name == "resnext50_32x4d") return {true, {3, 4, 6, 3}, 32, 4};
  if (name == "resnext101_32x8d") return {true, {3, 4, 23, 3}, 32, 8};
  if (name == "wide_resnet50_2") return {true, {3, 4, 6, 3}, 1, 128};
  if (name == "wide_resnet101_2") return {true, {3, 4, 23, 3}, 1, 128};
  throw Error("zoo: no ResNet configuration for '" + std::string(name) + "'");
}

}  // namespace

void build_resnet(NetBuilder& b, std::string_view name) {
  const ResNetConfig cfg = resnet_config(name);
  const std::int64_t expansion = cfg.bottleneck ? 4 : 1;
  b.conv("conv1", 64, 7, 2, 3);
  b.batchnorm("bn1");
  b.activation("relu", Op::kRelu);
  b.maxpool("maxpool", 3, 2, 1);
  std::int64_t inplanes = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const std::int64_t planes = 64LL << stage;
    for (int block = 0; block < cfg.blocks[static_cast<std::size_t>(stage)]; ++block) {
      const std::string p = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      const std::int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      const Shape input = b.shape();
      if (cfg.bottleneck) {
        // torchvision's Bottleneck (ResNet V1.5): the stride sits on the 3x3 conv.
        const std::int64_t width = planes * cfg.width_per_group / 64 * cfg.groups;
        b.conv(p + ".conv1", width, 1);
        b.batchnorm(p + ".bn1");
        b.activation(p + ".relu", Op::kRelu);
        b.conv(p + ".conv2", width, 3, stride, 1, cfg.groups);
        b.batchnorm(p + ".bn2");
        b.activation(p + ".relu_1", Op::kRelu);
        b.conv(p + ".conv3", planes * expansion, 1);
        b.batchnorm(p + ".bn3");
      } else {
        b.conv(p + ".conv1", planes, 3, stride, 1);
        b.batchnorm(p + ".bn1");
        b.activation(p + ".relu", Op::kRelu);
        b.conv(p + ".conv2", planes, 3, 1, 1);
        b.batchnorm(p + ".bn2");
      }
      Shape identity = input;
      if (stride != 1 || inplanes != planes * expansion) {
        const Shape main = b.shape();
        b.set_shape(input);
        b.conv(p + ".downsample.0", planes * expansion, 1, stride, 0);
        b.batchnorm(p + ".downsample.1");
        identity = b.shape();
        b.set_shape(main);
      }
      b.add(p + ".add", identity);
      b.activation(p + (cfg.bottleneck ? ".relu_2" : ".relu_1"), Op::kRelu);
      inplanes = planes * expansion;
    }
  }
  b.global_avgpool("avgpool");
  b.flatten("flatten");
  b.linear("fc", 1000);
}

void build_vgg(NetBuilder& b, std::string_view name) {
  constexpr int kPool = 0;
  std::vector<int> cfg;
  const std::string_view base = name.substr(0, 5);
  if (base == "vgg11") {
    cfg = {64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};
  } else if (base == "vgg13") {
    cfg = {64, 64, kPool, 128, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};
  } else if (base == "vgg16") {
    cfg = {64,    64,  kPool, 128, 128,   kPool, 256, 256, 256,
           kPool, 512, 512,   512, kPool, 512,   512, 512, kPool};
  } else if (base == "vgg19") {
    cfg = {64,  64,  kPool, 128, 128,   kPool, 256, 256, 256, 256,  kPool,
           512, 512, 512,   512, kPool, 512,   512, 512, 512, kPool};
  } else {
    throw Error("zoo: no VGG configuration for '" + std::string(name) + "'");
  }
  const bool bn = name.size() > 5 && name.substr(5) == "_bn";
  int i = 0;
  for (const int v : cfg) {
    if (v == kPool) {
      b.maxpool(idx("features", i++), 2, 2);
      continue;
    }
    // torchvision keeps the conv bias in VGG even when batch norm follows.
    b.conv(idx("features", i++), v, 3, 1, 1, 1, true);
    if (bn) b.batchnorm(idx("features", i++));
    b.activation(idx("features", i++), Op::kRelu);
  }
  b.adaptive_avgpool("avgpool", 7, 7);
  b.flatten("flatten");
  b.linear("classifier.0", 4096);
  b.activation("classifier.1", Op::kRelu);
  b.dropout("classifier.2");
  b.linear("classifier.3", 4096);
  b.activation("classifier.4", Op::kRelu);
  b.dropout("classifier.5");
  b.linear("classifier.6", 1000);
}

void build_alexnet(NetBuilder& b, std::string_view /*name*/) {
  b.conv("features.0", 64, 11, 4, 2, 1, true);
  b.activation("features.1", Op::kRelu);
  b.maxpool("features.2", 3, 2);
  b.conv("features.3", 192, 5, 1, 2, 1, true);
  b.activation("features.4", Op::kRelu);
  b.maxpool("features.5", 3, 2);
  b.conv("features.6", 384, 3, 1, 1, 1, true);
  b.activation("features.7", Op::kRelu);
  b.conv("features.8", 256, 3, 1, 1, 1, true);
  b.activation("features.9", Op::kRelu);
  b.conv("features.10", 256, 3, 1, 1, 1, true);
  b.activation("features.11", Op::kRelu);
  b.maxpool("features.12", 3, 2);
  b.adaptive_avgpool("avgpool", 6, 6);
  b.flatten("flatten");
  b.dropout("classifier.0");
  b.linear("classifier.1", 4096);
  b.activation("classifier.2", Op::kRelu);
  b.dropout("classifier.3");
  b.linear("classifier.4", 4096);
  b.activation("classifier.5", Op::kRelu);
  b.linear("classifier.6", 1000);
}

namespace {

void fire(NetBuilder& b, const std::string& p, std::int64_t squeeze, std::int64_t e1,
          std::int64_t e3) {
  b.conv(p + ".squeeze", squeeze, 1, 1, 0, 1, true);
  b.activation(p + ".squeeze_activation", Op::kRelu);
  const Shape s = b.shape();
  b.conv(p + ".expand1x1", e1, 1, 1, 0, 1, true);
  b.activation(p + ".expand1x1_activation", Op::kRelu);
  const Shape left = b.shape();
  b.set_shape(s);
  b.conv(p + ".expand3x3", e3, 3, 1, 1, 1, true);
  b.activation(p + ".expand3x3_activation", Op::kRelu);
  const Shape right = b.shape();
  b.concat(p + ".cat", {left, right});
}

}  // namespace

void build_squeezenet(NetBuilder& b, std::string_view name) {
  if (name == "squeezenet1_0") {
    b.conv("features.0", 96, 7, 2, 0, 1, true);
    b.activation("features.1", Op::kRelu);
    b.maxpool("features.2", 3, 2, 0, true);
    fire(b, "features.3", 16, 64, 64);
    fire(b, "features.4", 16, 64, 64);
    fire(b, "features.5", 32, 128, 128);
    b.maxpool("features.6", 3, 2, 0, true);
    fire(b, "features.7", 32, 128, 128);
    fire(b, "features.8", 48, 192, 192);
    fire(b, "features.9", 48, 192, 192);
    fire(b, "features.10", 64, 256, 256);
    b.maxpool("features.11", 3, 2, 0, true);
    fire(b, "features.12", 64, 256, 256);
  } else {
    b.conv("features.0", 64, 3, 2, 0, 1, true);
    b.activation("features.1", Op::kRelu);
    b.maxpool("features.2", 3, 2, 0, true);
    fire(b, "features.3", 16, 64, 64);
    fire(b, "features.4", 16, 64, 64);
    b.maxpool("features.5", 3, 2, 0, true);
    fire(b, "features.6", 32, 128, 128);
    fire(b, "features.7", 32, 128, 128);
    b.maxpool("features.8", 3, 2, 0, true);
    fire(b, "features.9", 48, 192, 192);
    fire(b, "features.10", 48, 192, 192);
    fire(b, "features.11", 64, 256, 256);
    fire(b, "features.12", 64, 256, 256);
  }
  // The classifier is a 1x1 conv to the classes, then a global average pool.
  b.dropout("classifier.0");
  b.conv("classifier.1", 1000, 1, 1, 0, 1, true);
  b.activation("classifier.2", Op::kRelu);
  b.global_avgpool("classifier.3");
  b.flatten("flatten");
}

void build_densenet(NetBuilder& b, std::string_view name) {
  std::int64_t growth = 32;
  std::int64_t init = 64;
  std::array<int, 4> blocks{};
  if (name == "densenet121") {
    blocks = {6, 12, 24, 16};
  } else if (name == "densenet161") {
    growth = 48;
    init = 96;
    blocks = {6, 12, 36, 24};
  } else if (name == "densenet169") {
    blocks = {6, 12, 32, 32};
  } else if (name == "densenet201") {
    blocks = {6, 12, 48, 32};
  } else {
    throw Error("zoo: no DenseNet configuration for '" + std::string(name) + "'");
  }
  constexpr std::int64_t kBnSize = 4;
  b.conv("features.conv0", init, 7, 2, 3);
  b.batchnorm("features.norm0");
  b.activation("features.relu0", Op::kRelu);
  b.maxpool("features.pool0", 3, 2, 1);
  for (int block = 0; block < 4; ++block) {
    const std::string bp = "features.denseblock" + std::to_string(block + 1);
    std::vector<Shape> features{b.shape()};
    for (int layer = 0; layer < blocks[static_cast<std::size_t>(block)]; ++layer) {
      const std::string lp = bp + ".denselayer" + std::to_string(layer + 1);
      // Each dense layer first concatenates every earlier feature map of the block; in the
      // first layer that is torch.cat of one tensor, which still copies it (a kernel).
      b.concat(lp + ".cat", features);
      b.batchnorm(lp + ".norm1");
      b.activation(lp + ".relu1", Op::kRelu);
      b.conv(lp + ".conv1", kBnSize * growth, 1);
      b.batchnorm(lp + ".norm2");
      b.activation(lp + ".relu2", Op::kRelu);
      b.conv(lp + ".conv2", growth, 3, 1, 1);
      features.push_back(b.shape());
    }
    b.concat(bp + ".cat", features);
    if (block < 3) {
      const std::string tp = "features.transition" + std::to_string(block + 1);
      b.batchnorm(tp + ".norm");
      b.activation(tp + ".relu", Op::kRelu);
      b.conv(tp + ".conv", b.shape().c / 2, 1);
      b.avgpool(tp + ".pool", 2, 2);
    }
  }
  b.batchnorm("features.norm5");
  b.activation("relu", Op::kRelu);
  b.global_avgpool("adaptive_avg_pool2d");
  b.flatten("flatten");
  b.linear("classifier", 1000);
}

}  // namespace cnnperf::detail
