// SPDX-License-Identifier: Apache-2.0
// Zoo: every network builds, matches its published parameter count (0.5%) and MACs (2%),
// its layer shapes chain, and the options (batch, input size, dtype) behave.
#include "cnnperf/model/zoo.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cnnperf/common/error.hpp"

namespace cnnperf {
namespace {

using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

Shape input_shape(const Layer& layer) {
  return {layer.c_in, layer.h_in, layer.w_in};
}

Shape output_shape(const Layer& layer) {
  if (layer.op == Op::kFlatten) return {layer.c_in * layer.h_in * layer.w_in, 1, 1};
  if (layer.op == Op::kLinear) return {layer.c_out, 1, 1};
  return {layer.c_out, layer.h_out(), layer.w_out()};
}

class ZooNetworkTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooNetworkTest, ParamsAndMacsMatchPublishedFigures) {
  const ZooEntry* entry = find_zoo_entry(GetParam());
  ASSERT_NE(entry, nullptr);
  const Network net = build_zoo_network(entry->name, {});
  EXPECT_EQ(net.name, entry->name);
  EXPECT_EQ(net.input_h, entry->default_input_h);
  EXPECT_EQ(net.input_w, entry->default_input_w);
  // auxiliary_params: published parameters of heads inference never runs.
  const double params = static_cast<double>(net.params() + entry->auxiliary_params);
  EXPECT_NEAR(params, static_cast<double>(entry->published_params),
              0.005 * static_cast<double>(entry->published_params))
      << entry->name;
  if (entry->published_gmacs > 0) {
    const double gmacs = static_cast<double>(net.macs()) / 1e9;
    EXPECT_NEAR(gmacs, entry->published_gmacs, 0.02 * entry->published_gmacs) << entry->name;
  }
  // A multiply-add counts as 2 FLOPs, so FLOPs exceed twice the MACs (pointwise ops add more).
  EXPECT_GE(net.flops(), 2.0 * static_cast<double>(net.macs()));
  EXPECT_GT(entry->top1_accuracy, 50.0);
  EXPECT_LT(entry->top1_accuracy, 90.0);
  EXPECT_FALSE(entry->accuracy_source.empty());
  EXPECT_FALSE(entry->published_source.empty());
}

TEST_P(ZooNetworkTest, ShapesChainAndNamesAreUnique) {
  const Network net = build_zoo_network(GetParam(), {});
  ASSERT_FALSE(net.layers.empty());
  std::set<Shape> produced{{net.input_c, net.input_h, net.input_w}};
  std::set<std::string> names;
  const bool shufflenet = GetParam().rfind("shufflenet", 0) == 0;
  for (const Layer& layer : net.layers) {
    EXPECT_FALSE(layer.name.empty());
    EXPECT_TRUE(names.insert(layer.name).second) << "duplicate layer name " << layer.name;
    EXPECT_NO_THROW(layer.validate(layer.name));
    const Shape in = input_shape(layer);
    if (layer.op == Op::kConcat) {
      // Concat reads its branches: c_in is their sum, every branch has the output's h, w. A
      // DenseNet block's first layer concatenates one tensor (torch.cat copies it).
      const bool first_dense = layer.name.find(".denselayer1.cat") != std::string::npos;
      EXPECT_GE(layer.num_inputs, first_dense ? 1 : 2) << layer.name;
      EXPECT_EQ(layer.c_in, layer.c_out) << layer.name;
    } else if (shufflenet && layer.name.find("branch2.0") != std::string::npos &&
               produced.count(in) == 0) {
      // ShuffleNetV2's basic unit splits the input in two channel halves (a view).
      EXPECT_EQ(produced.count({2 * layer.c_in, layer.h_in, layer.w_in}), 1U) << layer.name;
    } else {
      EXPECT_EQ(produced.count(in), 1U)
          << layer.name << " reads " << std::get<0>(in) << "x" << std::get<1>(in) << "x"
          << std::get<2>(in) << ", which no earlier layer produced";
    }
    if (layer.op == Op::kAdd || layer.op == Op::kMul) {
      EXPECT_EQ(layer.num_inputs, 2) << layer.name;
    }
    produced.insert(output_shape(layer));
  }
  // Every network ends in 1000 ImageNet classes, flattened.
  EXPECT_EQ(output_shape(net.layers.back()), (Shape{1000, 1, 1}));
}

TEST_P(ZooNetworkTest, BatchScalesMacsLinearly) {
  const Network one = build_zoo_network(GetParam(), {});
  NetworkOptions options;
  options.batch = 8;
  const Network eight = build_zoo_network(GetParam(), options);
  EXPECT_EQ(eight.macs(), 8 * one.macs());
  EXPECT_EQ(eight.params(), one.params());
  EXPECT_EQ(eight.layers.size(), one.layers.size());
  for (const Layer& layer : eight.layers) EXPECT_EQ(layer.batch, 8);
}

std::vector<std::string> all_names() {
  std::vector<std::string> names;
  for (const auto& entry : zoo_entries()) names.push_back(entry.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllNetworks, ZooNetworkTest, ::testing::ValuesIn(all_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(Zoo, ListsEveryDesignNetwork) {
  const char* expected[] = {"resnet18",
                            "resnet34",
                            "resnet50",
                            "resnet101",
                            "resnet152",
                            "resnext50_32x4d",
                            "resnext101_32x8d",
                            "wide_resnet50_2",
                            "wide_resnet101_2",
                            "vgg11",
                            "vgg11_bn",
                            "vgg13",
                            "vgg13_bn",
                            "vgg16",
                            "vgg16_bn",
                            "vgg19",
                            "vgg19_bn",
                            "densenet121",
                            "densenet161",
                            "densenet169",
                            "densenet201",
                            "mobilenet_v2",
                            "mobilenet_v3_small",
                            "mobilenet_v3_large",
                            "mnasnet0_5",
                            "mnasnet0_75",
                            "mnasnet1_0",
                            "mnasnet1_3",
                            "shufflenet_v2_x0_5",
                            "shufflenet_v2_x1_0",
                            "shufflenet_v2_x1_5",
                            "shufflenet_v2_x2_0",
                            "squeezenet1_0",
                            "squeezenet1_1",
                            "alexnet",
                            "googlenet",
                            "inception_v3",
                            "efficientnet_b0",
                            "efficientnet_b1",
                            "efficientnet_b2",
                            "efficientnet_b3",
                            "efficientnet_b4",
                            "efficientnet_b5",
                            "efficientnet_b6",
                            "efficientnet_b7",
                            "xception"};
  for (const char* name : expected) EXPECT_NE(find_zoo_entry(name), nullptr) << name;
  EXPECT_EQ(zoo_entries().size(), std::size(expected));
}

TEST(Zoo, CifarShuffleNetV2IsWeiaicunzaisModelAndNotAZooName) {
  NetworkOptions options;
  options.batch = 128;
  const Network net = build_cifar_network(kCifarShuffleNetV2, options);
  // Counted by hand from the architecture (weiaicunzai/pytorch-cifar100 models/shufflenetv2.py,
  // ratio 1): biased convolutions, batch-norm scale and shift, fc 1024 -> 100. Its README
  // lists 1.3M parameters.
  EXPECT_EQ(net.params(), 1360896);
  EXPECT_EQ(net.input_h, 32);
  EXPECT_EQ(output_shape(net.layers.back()), (Shape{100, 1, 1}));
  EXPECT_EQ(net.layers.front().stride_h, 1);  // stride-1 stem, no max-pool
  for (const Layer& layer : net.layers) {
    EXPECT_NE(layer.op, Op::kMaxPool) << layer.name;
    EXPECT_EQ(layer.batch, 128) << layer.name;
  }
  EXPECT_EQ(find_zoo_entry(kCifarShuffleNetV2), nullptr);
  EXPECT_THROW((void)build_cifar_network("resnet50", options), InputError);
  options.batch = 0;
  EXPECT_THROW((void)build_cifar_network(kCifarShuffleNetV2, options), InputError);
}

TEST(Zoo, LookupIgnoresCaseAndDashes) {
  ASSERT_NE(find_zoo_entry("ResNet50"), nullptr);
  EXPECT_EQ(find_zoo_entry("ResNet50")->name, "resnet50");
  ASSERT_NE(find_zoo_entry("mobilenet-v2"), nullptr);
  EXPECT_EQ(find_zoo_entry("nosuchnet"), nullptr);
}

TEST(Zoo, UnknownNameSuggestsClosest) {
  try {
    (void)build_zoo_network("resnet51", {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("unknown network 'resnet51'"), std::string::npos) << message;
    EXPECT_NE(message.find("closest: resnet50"), std::string::npos) << message;
  }
  const auto closest = closest_zoo_names("efficientnet_b9");
  ASSERT_EQ(closest.size(), 3U);
  for (const auto& name : closest) EXPECT_EQ(name.rfind("efficientnet_b", 0), 0U) << name;
}

TEST(Zoo, ResNet50LayerDetails) {
  const Network net = build_zoo_network("resnet50", {});
  const Layer& conv1 = net.layers.front();
  EXPECT_EQ(conv1.name, "conv1");
  EXPECT_EQ(conv1.op, Op::kConv2d);
  EXPECT_EQ(conv1.kernel_h, 7);
  EXPECT_EQ(conv1.stride_h, 2);
  EXPECT_EQ(conv1.pad_h, 3);
  EXPECT_FALSE(conv1.bias);  // batch norm follows
  EXPECT_EQ(conv1.h_out(), 112);
  int adds = 0;
  for (const Layer& layer : net.layers) adds += layer.op == Op::kAdd ? 1 : 0;
  EXPECT_EQ(adds, 16);  // one per bottleneck
  const Layer& fc = net.layers.back();
  EXPECT_EQ(fc.name, "fc");
  EXPECT_EQ(fc.op, Op::kLinear);
  EXPECT_EQ(fc.c_in, 2048);
  EXPECT_TRUE(fc.bias);
}

TEST(Zoo, DepthwiseSqueezeExciteAndShuffleAreRepresented) {
  const Network mnv3 = build_zoo_network("mobilenet_v3_large", {});
  bool depthwise = false;
  bool se_mul = false;
  bool hardsigmoid = false;
  for (const Layer& layer : mnv3.layers) {
    depthwise |= layer.op == Op::kConv2d && layer.groups == layer.c_in && layer.groups > 1;
    se_mul |= layer.op == Op::kMul && layer.num_inputs == 2;
    hardsigmoid |= layer.op == Op::kHardSigmoid;
  }
  EXPECT_TRUE(depthwise);
  EXPECT_TRUE(se_mul);
  EXPECT_TRUE(hardsigmoid);
  const Network shuffle = build_zoo_network("shufflenet_v2_x1_0", {});
  int shuffles = 0;
  for (const Layer& layer : shuffle.layers) shuffles += layer.op == Op::kChannelShuffle ? 1 : 0;
  EXPECT_EQ(shuffles, 16);
  const Network squeeze = build_zoo_network("squeezenet1_0", {});
  bool ceil_pool = false;
  for (const Layer& layer : squeeze.layers)
    ceil_pool |= layer.op == Op::kMaxPool && layer.ceil_mode;
  EXPECT_TRUE(ceil_pool);
  // 224 -> conv7/2 -> 109 -> ceil-mode maxpool 3/2 -> 54 (53 without ceil_mode).
  EXPECT_EQ(squeeze.layers[2].h_out(), 54);
}

TEST(Zoo, InputSizeOverride) {
  NetworkOptions options;
  options.input_h = 448;
  options.input_w = 448;
  const Network big = build_zoo_network("resnet50", options);
  const Network base = build_zoo_network("resnet50", {});
  EXPECT_EQ(big.input_h, 448);
  EXPECT_EQ(big.layers.front().h_in, 448);
  EXPECT_EQ(big.params(), base.params());
  // Convolutions scale with the pixel count (4x); only the fc layer does not.
  const double ratio = static_cast<double>(big.macs()) / static_cast<double>(base.macs());
  EXPECT_GT(ratio, 3.99);
  EXPECT_LT(ratio, 4.0);
  // One given side means a square input.
  NetworkOptions side;
  side.input_h = 256;
  const Network square = build_zoo_network("efficientnet_b0", side);
  EXPECT_EQ(square.input_w, 256);
  // Rectangular inputs work for networks with adaptive pooling.
  NetworkOptions rect;
  rect.input_h = 320;
  rect.input_w = 192;
  const Network wide = build_zoo_network("mobilenet_v2", rect);
  EXPECT_EQ(wide.layers.front().w_in, 192);
}

TEST(Zoo, InputTooSmallIsAnInputError) {
  NetworkOptions tiny;
  tiny.input_h = 8;
  tiny.input_w = 8;
  EXPECT_THROW((void)build_zoo_network("squeezenet1_0", tiny), InputError);
  // VGG's classifier expects a 7x7 map: a 64x64 input gives 2x2.
  NetworkOptions small;
  small.input_h = 64;
  small.input_w = 64;
  EXPECT_THROW((void)build_zoo_network("vgg16", small), InputError);
  NetworkOptions bad_batch;
  bad_batch.batch = 0;
  EXPECT_THROW((void)build_zoo_network("resnet18", bad_batch), InputError);
}

TEST(Zoo, DtypeAppliesToEveryLayer) {
  NetworkOptions options;
  options.dtype = DType::kFp16;
  const Network half = build_zoo_network("googlenet", options);
  const Network full = build_zoo_network("googlenet", {});
  double half_bytes = 0;
  double full_bytes = 0;
  for (const Layer& layer : half.layers) {
    EXPECT_EQ(layer.dtype, DType::kFp16);
    half_bytes += layer.bytes();
  }
  for (const Layer& layer : full.layers) full_bytes += layer.bytes();
  EXPECT_DOUBLE_EQ(half_bytes * 2, full_bytes);
}

TEST(Zoo, InceptionV3AuxiliaryParamsAreTheAuxLogitsHead) {
  const ZooEntry* entry = find_zoo_entry("inception_v3");
  ASSERT_NE(entry, nullptr);
  // conv 768->128 1x1 + bn, conv 128->768 5x5 + bn, fc 768->1000 with bias.
  const std::int64_t aux = (768 * 128 + 2 * 128) + (128 * 768 * 25 + 2 * 768) + (768 * 1000 + 1000);
  EXPECT_EQ(entry->auxiliary_params, aux);
  EXPECT_EQ(build_zoo_network("inception_v3", {}).params() + aux, entry->published_params);
}

}  // namespace
}  // namespace cnnperf
