// SPDX-License-Identifier: Apache-2.0
// Zoo: mobile families (MobileNetV2/V3, MNASNet, ShuffleNetV2, EfficientNet), transcribed
// from torchvision.models' module structure: depthwise convs, squeeze-excite, shuffles.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "zoo_internal.hpp"

namespace cnnperf::detail {

namespace {

std::string idx(const std::string& prefix, std::int64_t i) {
  return prefix + "." + std::to_string(i);
}

/// torchvision.ops.SqueezeExcitation: avgpool, fc1 (1x1 conv, bias), activation, fc2,
/// scale_activation, then the input scaled per channel.
void squeeze_excite(NetBuilder& b, const std::string& p, std::int64_t squeeze, Op act,
                    Op scale_act) {
  const Shape input = b.shape();
  b.global_avgpool(p + ".avgpool");
  b.conv(p + ".fc1", squeeze, 1, 1, 0, 1, true);
  b.activation(p + ".activation", act);
  b.conv(p + ".fc2", input.c, 1, 1, 0, 1, true);
  b.activation(p + ".scale_activation", scale_act);
  b.set_shape(input);
  b.mul(p + ".mul");
}

}  // namespace

void build_mobilenet_v2(NetBuilder& b, std::string_view /*name*/) {
  struct Setting {
    std::int64_t t, c, n, s;
  };
  constexpr Setting kSettings[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int f = 0;
  b.conv_bn_act(idx("features", f++), make_divisible(32, 8), 3, 2, 1, Op::kRelu6);
  for (const Setting& st : kSettings) {
    const std::int64_t out = make_divisible(static_cast<double>(st.c), 8);
    for (std::int64_t i = 0; i < st.n; ++i) {
      const std::string p = idx("features", f++) + ".conv";
      const std::int64_t stride = i == 0 ? st.s : 1;
      const Shape input = b.shape();
      const std::int64_t hidden = input.c * st.t;
      int j = 0;
      if (st.t != 1) b.conv_bn_act(idx(p, j++), hidden, 1, 1, 1, Op::kRelu6);
      b.conv_bn_act(idx(p, j++), hidden, 3, stride, hidden, Op::kRelu6);
      b.conv(idx(p, j++), out, 1);
      b.batchnorm(idx(p, j++));
      if (stride == 1 && input.c == out) {
        b.add(p.substr(0, p.size() - 5) + ".add", input);
      }
    }
  }
  b.conv_bn_act(idx("features", f++), 1280, 1, 1, 1, Op::kRelu6);
  b.global_avgpool("adaptive_avg_pool2d");
  b.flatten("flatten");
  b.dropout("classifier.0");
  b.linear("classifier.1", 1000);
}

void build_mobilenet_v3(NetBuilder& b, std::string_view name) {
  struct Cfg {
    std::int64_t in, k, exp, out;
    bool se;
    bool hs;
    std::int64_t stride;
  };
  std::vector<Cfg> cfgs;
  std::int64_t last_channel = 0;
  if (name == "mobilenet_v3_large") {
    cfgs = {{16, 3, 16, 16, false, false, 1},  {16, 3, 64, 24, false, false, 2},
            {24, 3, 72, 24, false, false, 1},  {24, 5, 72, 40, true, false, 2},
            {40, 5, 120, 40, true, false, 1},  {40, 5, 120, 40, true, false, 1},
            {40, 3, 240, 80, false, true, 2},  {80, 3, 200, 80, false, true, 1},
            {80, 3, 184, 80, false, true, 1},  {80, 3, 184, 80, false, true, 1},
            {80, 3, 480, 112, true, true, 1},  {112, 3, 672, 112, true, true, 1},
            {112, 5, 672, 160, true, true, 2}, {160, 5, 960, 160, true, true, 1},
            {160, 5, 960, 160, true, true, 1}};
    last_channel = 1280;
  } else {
    cfgs = {{16, 3, 16, 16, true, false, 2},  {16, 3, 72, 24, false, false, 2},
            {24, 3, 88, 24, false, false, 1}, {24, 5, 96, 40, true, true, 2},
            {40, 5, 240, 40, true, true, 1},  {40, 5, 240, 40, true, true, 1},
            {40, 5, 120, 48, true, true, 1},  {48, 5, 144, 48, true, true, 1},
            {48, 5, 288, 96, true, true, 2},  {96, 5, 576, 96, true, true, 1},
            {96, 5, 576, 96, true, true, 1}};
    last_channel = 1024;
  }
  int f = 0;
  b.conv_bn_act(idx("features", f++), cfgs.front().in, 3, 2, 1, Op::kHardSwish);
  for (const Cfg& c : cfgs) {
    const std::string p = idx("features", f++) + ".block";
    const Op act = c.hs ? Op::kHardSwish : Op::kRelu;
    const Shape input = b.shape();
    int j = 0;
    if (c.exp != c.in) b.conv_bn_act(idx(p, j++), c.exp, 1, 1, 1, act);
    b.conv_bn_act(idx(p, j++), c.exp, c.k, c.stride, c.exp, act);
    if (c.se) {
      const std::int64_t squeeze = c.exp / 4;  // torchvision's input_channels // 4, floored
      squeeze_excite(b, idx(p, j++), make_divisible(static_cast<double>(squeeze), 8), Op::kRelu,
                     Op::kHardSigmoid);
    }
    b.conv_bn_act(idx(p, j++), c.out, 1, 1, 1, std::nullopt);
    if (c.stride == 1 && c.in == c.out) b.add(p.substr(0, p.size() - 6) + ".add", input);
  }
  b.conv_bn_act(idx("features", f++), 6 * cfgs.back().out, 1, 1, 1, Op::kHardSwish);
  b.global_avgpool("avgpool");
  b.flatten("flatten");
  b.linear("classifier.0", last_channel);
  b.activation("classifier.1", Op::kHardSwish);
  b.dropout("classifier.2");
  b.linear("classifier.3", 1000);
}

namespace {

// torchvision mnasnet._round_to_multiple_of (round_up_bias 0.9).
std::int64_t round_to_multiple_of(double value, std::int64_t divisor) {
  const std::int64_t rounded =
      std::max(divisor, static_cast<std::int64_t>(value + static_cast<double>(divisor) / 2) /
                            divisor * divisor);
  return static_cast<double>(rounded) >= 0.9 * value ? rounded : rounded + divisor;
}

}  // namespace

void build_mnasnet(NetBuilder& b, std::string_view name) {
  double alpha = 1.0;
  if (name == "mnasnet0_5") {
    alpha = 0.5;
  } else if (name == "mnasnet0_75") {
    alpha = 0.75;
  } else if (name == "mnasnet1_3") {
    alpha = 1.3;
  }
  std::vector<std::int64_t> depths;
  for (const int d : {32, 16, 24, 40, 80, 96, 192, 320}) {
    depths.push_back(round_to_multiple_of(d * alpha, 8));
  }
  b.conv("layers.0", depths[0], 3, 2, 1);
  b.batchnorm("layers.1");
  b.activation("layers.2", Op::kRelu);
  b.conv("layers.3", depths[0], 3, 1, 1, depths[0]);
  b.batchnorm("layers.4");
  b.activation("layers.5", Op::kRelu);
  b.conv("layers.6", depths[1], 1);
  b.batchnorm("layers.7");
  struct Stack {
    std::int64_t out, k, stride, exp, repeats;
  };
  const Stack stacks[] = {{depths[2], 3, 2, 3, 3}, {depths[3], 5, 2, 3, 3},
                          {depths[4], 5, 2, 6, 3}, {depths[5], 3, 1, 6, 2},
                          {depths[6], 5, 2, 6, 4}, {depths[7], 3, 1, 6, 1}};
  int l = 8;
  for (const Stack& s : stacks) {
    const std::string sp = idx("layers", l++);
    for (std::int64_t r = 0; r < s.repeats; ++r) {
      const std::string p = idx(sp, r) + ".layers";
      const Shape input = b.shape();
      const std::int64_t stride = r == 0 ? s.stride : 1;
      const std::int64_t mid = input.c * s.exp;
      b.conv(idx(p, 0), mid, 1);
      b.batchnorm(idx(p, 1));
      b.activation(idx(p, 2), Op::kRelu);
      b.conv(idx(p, 3), mid, s.k, stride, s.k / 2, mid);
      b.batchnorm(idx(p, 4));
      b.activation(idx(p, 5), Op::kRelu);
      b.conv(idx(p, 6), s.out, 1);
      b.batchnorm(idx(p, 7));
      if (stride == 1 && input.c == s.out) b.add(idx(sp, r) + ".add", input);
    }
  }
  b.conv(idx("layers", l++), 1280, 1);
  b.batchnorm(idx("layers", l++));
  b.activation(idx("layers", l++), Op::kRelu);
  b.global_avgpool("mean");
  b.flatten("flatten");
  b.dropout("classifier.0");
  b.linear("classifier.1", 1000);
}

void build_shufflenet_v2_cifar(NetBuilder& b, std::string_view /*name*/) {
  // weiaicunzai/pytorch-cifar100's ShuffleNetV2 (ratio 1), the network Zeus trained on
  // CIFAR-100: unlike torchvision's, a stride-1 3x3 stem without ReLU or max-pool, biased
  // convolutions, a down-sampling unit whose residual branch keeps the input width, and 100
  // classes. Layer names follow its module paths.
  const std::int64_t out[] = {116, 232, 464};
  b.conv("pre.0", 24, 3, 1, 1, 1, true);
  b.batchnorm("pre.1");
  const int units[] = {4, 8, 4};  // a down-sampling unit, then 3, 7 and 3 basic units
  for (int stage = 0; stage < 3; ++stage) {
    const std::int64_t half = out[stage] / 2;
    for (int i = 0; i < units[stage]; ++i) {
      const std::string p = "stage" + std::to_string(stage + 2) + "." + std::to_string(i);
      const Shape input = b.shape();
      const std::int64_t stride = i == 0 ? 2 : 1;
      Shape left{};
      std::int64_t width = input.c;  // the residual branch's width
      if (i == 0) {
        b.conv(p + ".shortcut.0", input.c, 3, 2, 1, input.c, true);
        b.batchnorm(p + ".shortcut.1");
        b.conv(p + ".shortcut.2", half, 1, 1, 0, 1, true);
        b.batchnorm(p + ".shortcut.3");
        b.activation(p + ".shortcut.4", Op::kRelu);
        left = b.shape();
        b.set_shape(input);
      } else {
        // channel_split is a view: half the channels bypass the residual branch.
        width = input.c / 2;
        left = {width, input.h, input.w};
        b.set_shape(left);
      }
      b.conv(p + ".residual.0", width, 1, 1, 0, 1, true);
      b.batchnorm(p + ".residual.1");
      b.activation(p + ".residual.2", Op::kRelu);
      b.conv(p + ".residual.3", width, 3, stride, 1, width, true);
      b.batchnorm(p + ".residual.4");
      b.conv(p + ".residual.5", half, 1, 1, 0, 1, true);
      b.batchnorm(p + ".residual.6");
      b.activation(p + ".residual.7", Op::kRelu);
      b.concat(p + ".cat", {left, b.shape()});
      b.channel_shuffle(p + ".channel_shuffle", 2);
    }
  }
  b.conv("conv5.0", 1024, 1, 1, 0, 1, true);
  b.batchnorm("conv5.1");
  b.activation("conv5.2", Op::kRelu);
  b.global_avgpool("adaptive_avg_pool2d");
  b.flatten("view");
  b.linear("fc", 100);
}

void build_shufflenet_v2(NetBuilder& b, std::string_view name) {
  std::vector<std::int64_t> out;
  if (name == "shufflenet_v2_x0_5") {
    out = {24, 48, 96, 192, 1024};
  } else if (name == "shufflenet_v2_x1_0") {
    out = {24, 116, 232, 464, 1024};
  } else if (name == "shufflenet_v2_x1_5") {
    out = {24, 176, 352, 704, 1024};
  } else {
    out = {24, 244, 488, 976, 2048};
  }
  b.conv("conv1.0", out[0], 3, 2, 1);
  b.batchnorm("conv1.1");
  b.activation("conv1.2", Op::kRelu);
  b.maxpool("maxpool", 3, 2, 1);
  const int repeats[] = {4, 8, 4};
  for (int stage = 0; stage < 3; ++stage) {
    const std::int64_t oup = out[static_cast<std::size_t>(stage) + 1];
    const std::int64_t bf = oup / 2;
    for (int i = 0; i < repeats[stage]; ++i) {
      const std::string p = "stage" + std::to_string(stage + 2) + "." + std::to_string(i);
      const Shape input = b.shape();
      Shape left{};
      if (i == 0) {
        // Down-sampling unit: both branches see the whole input.
        b.conv(p + ".branch1.0", input.c, 3, 2, 1, input.c);
        b.batchnorm(p + ".branch1.1");
        b.conv(p + ".branch1.2", bf, 1);
        b.batchnorm(p + ".branch1.3");
        b.activation(p + ".branch1.4", Op::kRelu);
        left = b.shape();
        b.set_shape(input);
      } else {
        // Basic unit: x.chunk(2) is a view; half the channels bypass branch2.
        left = {bf, input.h, input.w};
        b.set_shape(left);
      }
      const std::int64_t stride = i == 0 ? 2 : 1;
      b.conv(p + ".branch2.0", bf, 1);
      b.batchnorm(p + ".branch2.1");
      b.activation(p + ".branch2.2", Op::kRelu);
      b.conv(p + ".branch2.3", bf, 3, stride, 1, bf);
      b.batchnorm(p + ".branch2.4");
      b.conv(p + ".branch2.5", bf, 1);
      b.batchnorm(p + ".branch2.6");
      b.activation(p + ".branch2.7", Op::kRelu);
      b.concat(p + ".cat", {left, b.shape()});
      b.channel_shuffle(p + ".channel_shuffle", 2);
    }
  }
  b.conv("conv5.0", out[4], 1);
  b.batchnorm("conv5.1");
  b.activation("conv5.2", Op::kRelu);
  b.global_avgpool("mean");
  b.flatten("flatten");
  b.linear("fc", 1000);
}

void build_efficientnet(NetBuilder& b, std::string_view name) {
  const int variant = name.back() - '0';
  constexpr double kWidth[] = {1.0, 1.0, 1.1, 1.2, 1.4, 1.6, 1.8, 2.0};
  constexpr double kDepth[] = {1.0, 1.1, 1.2, 1.4, 1.8, 2.2, 2.6, 3.1};
  if (variant < 0 || variant > 7) {
    throw Error("zoo: no EfficientNet configuration for '" + std::string(name) + "'");
  }
  const double width = kWidth[variant];
  const double depth = kDepth[variant];
  auto channels = [&](std::int64_t c) { return make_divisible(static_cast<double>(c) * width, 8); };
  struct Stage {
    std::int64_t expand, k, stride, in, out, layers;
  };
  constexpr Stage kStages[] = {{1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},  {6, 5, 2, 24, 40, 2},
                               {6, 3, 2, 40, 80, 3},  {6, 5, 1, 80, 112, 3}, {6, 5, 2, 112, 192, 4},
                               {6, 3, 1, 192, 320, 1}};
  b.conv_bn_act("features.0", channels(32), 3, 2, 1, Op::kSilu);
  int f = 1;
  for (const Stage& st : kStages) {
    const std::string sp = idx("features", f++);
    const auto repeats =
        static_cast<std::int64_t>(std::ceil(static_cast<double>(st.layers) * depth));
    for (std::int64_t r = 0; r < repeats; ++r) {
      const std::string p = idx(sp, r) + ".block";
      const Shape input = b.shape();
      const std::int64_t in = input.c;
      const std::int64_t out = channels(st.out);
      const std::int64_t stride = r == 0 ? st.stride : 1;
      const std::int64_t expanded = make_divisible(static_cast<double>(in * st.expand), 8);
      int j = 0;
      if (expanded != in) b.conv_bn_act(idx(p, j++), expanded, 1, 1, 1, Op::kSilu);
      b.conv_bn_act(idx(p, j++), expanded, st.k, stride, expanded, Op::kSilu);
      // The squeeze width follows the block's input channels, not the expanded ones.
      squeeze_excite(b, idx(p, j++), std::max<std::int64_t>(1, in / 4), Op::kSilu, Op::kSigmoid);
      b.conv_bn_act(idx(p, j++), out, 1, 1, 1, std::nullopt);
      if (stride == 1 && in == out) b.add(idx(sp, r) + ".add", input);
    }
  }
  b.conv_bn_act(idx("features", f++), 4 * b.shape().c, 1, 1, 1, Op::kSilu);
  b.global_avgpool("avgpool");
  b.flatten("flatten");
  b.dropout("classifier.0");
  b.linear("classifier.1", 1000);
}

}  // namespace cnnperf::detail
