// SPDX-License-Identifier: Apache-2.0
// Zoo: Inception-style families: GoogLeNet and Inception v3 (torchvision module structure,
// inference path), and Xception (the paper's architecture in the Keras layout).
#include <cstdint>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "zoo_internal.hpp"

namespace cnnperf::detail {

namespace {

/// torchvision BasicConv2d: conv (no bias), batch norm, relu.
void basic_conv_hw(NetBuilder& b, const std::string& p, std::int64_t c_out, std::int64_t kh,
                   std::int64_t kw, std::int64_t pad_h, std::int64_t pad_w) {
  const std::int64_t stride = 1;
  b.conv(p + ".conv", c_out, kh, kw, ConvArgs{stride, stride, pad_h, pad_w, 1, false, 1});
  b.batchnorm(p + ".bn");
  b.activation(p + ".relu", Op::kRelu);
}

void basic_conv(NetBuilder& b, const std::string& p, std::int64_t c_out, std::int64_t k,
                std::int64_t stride = 1, std::int64_t pad = 0) {
  b.conv(p + ".conv", c_out, k, stride, pad);
  b.batchnorm(p + ".bn");
  b.activation(p + ".relu", Op::kRelu);
}

void googlenet_inception(NetBuilder& b, const std::string& p, std::int64_t ch1x1,
                         std::int64_t ch3x3red, std::int64_t ch3x3, std::int64_t ch5x5red,
                         std::int64_t ch5x5, std::int64_t pool_proj) {
  const Shape input = b.shape();
  basic_conv(b, p + ".branch1", ch1x1, 1);
  const Shape b1 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch2.0", ch3x3red, 1);
  basic_conv(b, p + ".branch2.1", ch3x3, 3, 1, 1);
  const Shape b2 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch3.0", ch5x5red, 1);
  // torchvision uses a 3x3 kernel here (a known deviation from the paper's 5x5, kept for
  // weight compatibility).
  basic_conv(b, p + ".branch3.1", ch5x5, 3, 1, 1);
  const Shape b3 = b.shape();
  b.set_shape(input);
  b.maxpool(p + ".branch4.0", 3, 1, 1, true);
  basic_conv(b, p + ".branch4.1", pool_proj, 1);
  const Shape b4 = b.shape();
  b.concat(p + ".cat", {b1, b2, b3, b4});
}

}  // namespace

void build_googlenet(NetBuilder& b, std::string_view /*name*/) {
  basic_conv(b, "conv1", 64, 7, 2, 3);
  b.maxpool("maxpool1", 3, 2, 0, true);
  basic_conv(b, "conv2", 64, 1);
  basic_conv(b, "conv3", 192, 3, 1, 1);
  b.maxpool("maxpool2", 3, 2, 0, true);
  googlenet_inception(b, "inception3a", 64, 96, 128, 16, 32, 32);
  googlenet_inception(b, "inception3b", 128, 128, 192, 32, 96, 64);
  b.maxpool("maxpool3", 3, 2, 0, true);
  googlenet_inception(b, "inception4a", 192, 96, 208, 16, 48, 64);
  googlenet_inception(b, "inception4b", 160, 112, 224, 24, 64, 64);
  googlenet_inception(b, "inception4c", 128, 128, 256, 24, 64, 64);
  googlenet_inception(b, "inception4d", 112, 144, 288, 32, 64, 64);
  googlenet_inception(b, "inception4e", 256, 160, 320, 32, 128, 128);
  b.maxpool("maxpool4", 2, 2, 0, true);
  googlenet_inception(b, "inception5a", 256, 160, 320, 32, 128, 128);
  googlenet_inception(b, "inception5b", 384, 192, 384, 48, 128, 128);
  b.global_avgpool("avgpool");
  b.flatten("flatten");
  b.dropout("dropout");
  b.linear("fc", 1000);
}

namespace {

void inception_a(NetBuilder& b, const std::string& p, std::int64_t pool_features) {
  const Shape input = b.shape();
  basic_conv(b, p + ".branch1x1", 64, 1);
  const Shape b1 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch5x5_1", 48, 1);
  basic_conv(b, p + ".branch5x5_2", 64, 5, 1, 2);
  const Shape b5 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch3x3dbl_1", 64, 1);
  basic_conv(b, p + ".branch3x3dbl_2", 96, 3, 1, 1);
  basic_conv(b, p + ".branch3x3dbl_3", 96, 3, 1, 1);
  const Shape b3 = b.shape();
  b.set_shape(input);
  b.avgpool(p + ".avg_pool2d", 3, 1, 1);
  basic_conv(b, p + ".branch_pool", pool_features, 1);
  const Shape bp = b.shape();
  b.concat(p + ".cat", {b1, b5, b3, bp});
}

void inception_b(NetBuilder& b, const std::string& p) {
  const Shape input = b.shape();
  basic_conv(b, p + ".branch3x3", 384, 3, 2);
  const Shape b3 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch3x3dbl_1", 64, 1);
  basic_conv(b, p + ".branch3x3dbl_2", 96, 3, 1, 1);
  basic_conv(b, p + ".branch3x3dbl_3", 96, 3, 2);
  const Shape bd = b.shape();
  b.set_shape(input);
  b.maxpool(p + ".max_pool2d", 3, 2);
  const Shape bp = b.shape();
  b.concat(p + ".cat", {b3, bd, bp});
}

void inception_c(NetBuilder& b, const std::string& p, std::int64_t c7) {
  const Shape input = b.shape();
  basic_conv(b, p + ".branch1x1", 192, 1);
  const Shape b1 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch7x7_1", c7, 1);
  basic_conv_hw(b, p + ".branch7x7_2", c7, 1, 7, 0, 3);
  basic_conv_hw(b, p + ".branch7x7_3", 192, 7, 1, 3, 0);
  const Shape b7 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch7x7dbl_1", c7, 1);
  basic_conv_hw(b, p + ".branch7x7dbl_2", c7, 7, 1, 3, 0);
  basic_conv_hw(b, p + ".branch7x7dbl_3", c7, 1, 7, 0, 3);
  basic_conv_hw(b, p + ".branch7x7dbl_4", c7, 7, 1, 3, 0);
  basic_conv_hw(b, p + ".branch7x7dbl_5", 192, 1, 7, 0, 3);
  const Shape bd = b.shape();
  b.set_shape(input);
  b.avgpool(p + ".avg_pool2d", 3, 1, 1);
  basic_conv(b, p + ".branch_pool", 192, 1);
  const Shape bp = b.shape();
  b.concat(p + ".cat", {b1, b7, bd, bp});
}

void inception_d(NetBuilder& b, const std::string& p) {
  const Shape input = b.shape();
  basic_conv(b, p + ".branch3x3_1", 192, 1);
  basic_conv(b, p + ".branch3x3_2", 320, 3, 2);
  const Shape b3 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch7x7x3_1", 192, 1);
  basic_conv_hw(b, p + ".branch7x7x3_2", 192, 1, 7, 0, 3);
  basic_conv_hw(b, p + ".branch7x7x3_3", 192, 7, 1, 3, 0);
  basic_conv(b, p + ".branch7x7x3_4", 192, 3, 2);
  const Shape b7 = b.shape();
  b.set_shape(input);
  b.maxpool(p + ".max_pool2d", 3, 2);
  const Shape bp = b.shape();
  b.concat(p + ".cat", {b3, b7, bp});
}

void inception_e(NetBuilder& b, const std::string& p) {
  const Shape input = b.shape();
  basic_conv(b, p + ".branch1x1", 320, 1);
  const Shape b1 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch3x3_1", 384, 1);
  const Shape mid = b.shape();
  basic_conv_hw(b, p + ".branch3x3_2a", 384, 1, 3, 0, 1);
  const Shape a = b.shape();
  b.set_shape(mid);
  basic_conv_hw(b, p + ".branch3x3_2b", 384, 3, 1, 1, 0);
  b.concat(p + ".branch3x3.cat", {a, b.shape()});
  const Shape b3 = b.shape();
  b.set_shape(input);
  basic_conv(b, p + ".branch3x3dbl_1", 448, 1);
  basic_conv(b, p + ".branch3x3dbl_2", 384, 3, 1, 1);
  const Shape dmid = b.shape();
  basic_conv_hw(b, p + ".branch3x3dbl_3a", 384, 1, 3, 0, 1);
  const Shape da = b.shape();
  b.set_shape(dmid);
  basic_conv_hw(b, p + ".branch3x3dbl_3b", 384, 3, 1, 1, 0);
  b.concat(p + ".branch3x3dbl.cat", {da, b.shape()});
  const Shape bd = b.shape();
  b.set_shape(input);
  b.avgpool(p + ".avg_pool2d", 3, 1, 1);
  basic_conv(b, p + ".branch_pool", 192, 1);
  const Shape bp = b.shape();
  b.concat(p + ".cat", {b1, b3, bd, bp});
}

}  // namespace

void build_inception_v3(NetBuilder& b, std::string_view /*name*/) {
  basic_conv(b, "Conv2d_1a_3x3", 32, 3, 2);
  basic_conv(b, "Conv2d_2a_3x3", 32, 3);
  basic_conv(b, "Conv2d_2b_3x3", 64, 3, 1, 1);
  b.maxpool("maxpool1", 3, 2);
  basic_conv(b, "Conv2d_3b_1x1", 80, 1);
  basic_conv(b, "Conv2d_4a_3x3", 192, 3);
  b.maxpool("maxpool2", 3, 2);
  inception_a(b, "Mixed_5b", 32);
  inception_a(b, "Mixed_5c", 64);
  inception_a(b, "Mixed_5d", 64);
  inception_b(b, "Mixed_6a");
  inception_c(b, "Mixed_6b", 128);
  inception_c(b, "Mixed_6c", 160);
  inception_c(b, "Mixed_6d", 160);
  inception_c(b, "Mixed_6e", 192);
  // AuxLogits runs only in training mode; its parameters are ZooEntry::auxiliary_params.
  inception_d(b, "Mixed_7a");
  inception_e(b, "Mixed_7b");
  inception_e(b, "Mixed_7c");
  b.global_avgpool("avgpool");
  b.dropout("dropout");
  b.flatten("flatten");
  b.linear("fc", 1000);
}

namespace {

/// Keras SeparableConv2D (no bias): a 3x3 depthwise conv then a 1x1 pointwise conv.
void separable(NetBuilder& b, const std::string& p, std::int64_t c_out) {
  b.conv(p + ".depthwise", b.shape().c, 3, 1, 1, b.shape().c);
  b.conv(p + ".pointwise", c_out, 1);
}

/// Entry/exit block: [relu] sep, bn, relu, sep, bn, maxpool 3/2 ("same"), plus a strided
/// 1x1 conv + bn shortcut, summed.
void xception_down_block(NetBuilder& b, int block, std::int64_t c1, std::int64_t c2,
                         bool first_relu) {
  const std::string p = "block" + std::to_string(block);
  const Shape input = b.shape();
  b.conv(p + "_residual", c2, 1, 2, 0);
  b.batchnorm(p + "_residual_bn");
  const Shape residual = b.shape();
  b.set_shape(input);
  if (first_relu) b.activation(p + "_sepconv1_act", Op::kRelu);
  separable(b, p + "_sepconv1", c1);
  b.batchnorm(p + "_sepconv1_bn");
  b.activation(p + "_sepconv2_act", Op::kRelu);
  separable(b, p + "_sepconv2", c2);
  b.batchnorm(p + "_sepconv2_bn");
  b.maxpool(p + "_pool", 3, 2, 1);
  b.add(p + "_add", residual);
}

}  // namespace

void build_xception(NetBuilder& b, std::string_view /*name*/) {
  // Entry flow.
  b.conv("block1_conv1", 32, 3, 2, 0);
  b.batchnorm("block1_conv1_bn");
  b.activation("block1_conv1_act", Op::kRelu);
  b.conv("block1_conv2", 64, 3, 1, 0);
  b.batchnorm("block1_conv2_bn");
  b.activation("block1_conv2_act", Op::kRelu);
  xception_down_block(b, 2, 128, 128, false);
  xception_down_block(b, 3, 256, 256, true);
  xception_down_block(b, 4, 728, 728, true);
  // Middle flow: eight residual blocks of three separable convs.
  for (int block = 5; block <= 12; ++block) {
    const std::string p = "block" + std::to_string(block);
    const Shape input = b.shape();
    for (int i = 1; i <= 3; ++i) {
      const std::string s = p + "_sepconv" + std::to_string(i);
      b.activation(s + "_act", Op::kRelu);
      separable(b, s, 728);
      b.batchnorm(s + "_bn");
    }
    b.add(p + "_add", input);
  }
  // Exit flow.
  xception_down_block(b, 13, 728, 1024, true);
  separable(b, "block14_sepconv1", 1536);
  b.batchnorm("block14_sepconv1_bn");
  b.activation("block14_sepconv1_act", Op::kRelu);
  separable(b, "block14_sepconv2", 2048);
  b.batchnorm("block14_sepconv2_bn");
  b.activation("block14_sepconv2_act", Op::kRelu);
  b.global_avgpool("avg_pool");
  b.flatten("flatten");
  b.linear("predictions", 1000);
}

}  // namespace cnnperf::detail
