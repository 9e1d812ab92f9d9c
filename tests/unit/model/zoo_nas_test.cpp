// SPDX-License-Identifier: Apache-2.0
// NAS-space networks (nb201:<cell>, fbnet:<blocks>): parameter counts counted by hand from the
// architectures, the kernels a cell launches, shapes, and errors that name what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "cnnperf/common/error.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {
namespace {

const std::string kAllConv3x3 =
    "nb201:|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|+|nor_conv_3x3~0|nor_conv_3x3~1|"
    "nor_conv_3x3~2|";

std::string fbnet_spec(const std::string& first, const std::string& rest) {
  std::string spec = "fbnet:" + first;
  for (int i = 1; i < 22; ++i) spec += " " + rest;
  return spec;
}

int count_op(const Network& net, Op op) {
  int n = 0;
  for (const Layer& layer : net.layers) n += layer.op == op ? 1 : 0;
  return n;
}

TEST(NasNetworks, Nb201AllConvCellHasNasBench201sParameterCount) {
  const Network net = build_nas_network(kAllConv3x3);
  // NAS-Bench-201 lists 1.531546 M parameters for this cell on CIFAR-10; the CIFAR-100
  // classifier has 90 more outputs of 64 weights and a bias: 1,531,546 + 5,850.
  EXPECT_EQ(net.params(), 1537396);
  EXPECT_EQ(net.source, kNasBench201Source);
  EXPECT_EQ(net.input_h, 32);
  EXPECT_EQ(net.layers.back().c_out, 100);
  // 32x32 -> 16x16 -> 8x8 through the two residual reduction blocks.
  EXPECT_EQ(net.layers.back().c_in, 64);
  EXPECT_EQ(count_op(net, Op::kConv2d), 1 + 15 * 6 + 2 * 3);
}

TEST(NasNetworks, Nb201CellLaunchesWhatPyTorchRuns) {
  // Per cell: none = x.mul(0.) (a kernel), skip = identity (none), avg pool 1, ReLU-conv-BN
  // 3; each node sums its edges as 0 + e1 + e2 ..., one add per edge.
  const Network net = build_nas_network(
      "nb201:|none~0|+|skip_connect~0|avg_pool_3x3~1|+|nor_conv_1x1~0|nor_conv_3x3~1|skip_connect~"
      "2|");
  const int per_cell = 1 + 1 + 3 + 3 + 6;  // mul, pool, two ReLU-conv-BN, six adds
  const int reduction = 9;                 // two ReLU-conv-BN, avg pool, conv, add
  EXPECT_EQ(static_cast<int>(net.layers.size()), 2 + 15 * per_cell + 2 * reduction + 5);
  EXPECT_EQ(count_op(net, Op::kMul), 15);
  EXPECT_EQ(count_op(net, Op::kAdd), 15 * 6 + 2);
  for (const Layer& layer : net.layers) {
    if (layer.op == Op::kMul) {
      EXPECT_EQ(layer.num_inputs, 1) << layer.name;
    }
  }
}

TEST(NasNetworks, FbnetCountsItsBlocks) {
  // All skip: only the width/stride changes have a 1x1 ConvNorm (16->24, 24->32 s2, 32->64 s2,
  // 64->112, 112->184 s2, 184->352), then the 1504-wide header and fc 1504 -> 100; counted
  // by hand from HW-NAS-Bench's FBNet_Infer.
  const Network skip = build_nas_network(fbnet_spec("skip", "skip"));
  EXPECT_EQ(skip.params(), 780660);
  EXPECT_EQ(skip.source, kFbnetSource);
  // k5_e6 on 16 channels: 1x1 16->96 + BN, depthwise 5x5 + BN, 1x1 96->16 + BN = 5,888, and
  // a residual add (same width, stride 1).
  const Network first = build_nas_network(fbnet_spec("k5_e6", "skip"));
  EXPECT_EQ(first.params(), 780660 + 5888);
  EXPECT_EQ(count_op(first, Op::kAdd), 1);
  // CIFAR strides 1,1,2,2,1,2,1: the header sees 4x4.
  for (const Layer& layer : first.layers) {
    if (layer.name == "header.conv") {
      EXPECT_EQ(layer.h_in, 4);
    }
  }
  // Grouped 1x1 convolutions shuffle channels once per block.
  const Network grouped = build_nas_network(fbnet_spec("k3_e1_g2", "k3_e1_g2"));
  EXPECT_EQ(count_op(grouped, Op::kChannelShuffle), 22);
  // Blocks may be separated by spaces, commas or dashes.
  std::string mixed = "fbnet:skip";
  for (int i = 1; i < 22; ++i)
    mixed += std::string(i % 3 == 0 ? "," : i % 3 == 1 ? "-" : " ") + "skip";
  EXPECT_EQ(build_nas_network(mixed).params(), 780660);
}

TEST(NasNetworks, OptionsAndRouting) {
  NetworkOptions options;
  options.batch = 256;
  options.dtype = DType::kFp16;
  const Network net = build_nas_network(kAllConv3x3, options);
  for (const Layer& layer : net.layers) {
    EXPECT_EQ(layer.batch, 256);
    EXPECT_EQ(layer.dtype, DType::kFp16);
  }
  EXPECT_TRUE(is_nas_network_spec(kAllConv3x3));
  EXPECT_EQ(nas_space_of("nasbench201:x"), kNasBench201Source);
  EXPECT_EQ(nas_space_of("resnet50"), "");
  EXPECT_FALSE(is_nas_network_spec("resnet50"));
  // predict, nets and profile resolve specs through load_network.
  EXPECT_EQ(load_network(kAllConv3x3, options).params(), 1537396);
}

TEST(NasNetworks, BadSpecsNameWhatIsWrong) {
  const auto message = [](const std::string& spec) {
    try {
      (void)build_nas_network(spec);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("nb201:|nor_conv_5x5~0|+|none~0|none~1|+|none~0|none~1|none~2|")
                .find("unknown operation 'nor_conv_5x5'"),
            std::string::npos);
  EXPECT_NE(message("nb201:|none~0|+|none~0|none~1|").find("expected 3"), std::string::npos);
  EXPECT_NE(message("nb201:|none~0|+|none~1|none~0|+|none~0|none~1|none~2|")
                .find("expected input node 0"),
            std::string::npos);
  EXPECT_NE(message("nb201:|none|+|none~0|none~1|+|none~0|none~1|none~2|").find("expected <op"),
            std::string::npos);
  EXPECT_NE(message(fbnet_spec("k7_e1", "skip")).find("unknown block 'k7_e1'"), std::string::npos);
  EXPECT_NE(message("fbnet:skip skip").find("expected 22 FBNet blocks, got 2"), std::string::npos);
  NetworkOptions options;
  options.batch = 0;
  EXPECT_THROW((void)build_nas_network(kAllConv3x3, options), InputError);
}

}  // namespace
}  // namespace cnnperf
