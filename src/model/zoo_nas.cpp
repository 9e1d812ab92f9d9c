// SPDX-License-Identifier: Apache-2.0
// The two NAS search spaces of the HELP latency data (datasets/e2e_help_nas.csv.gz), built
// from an architecture string: NAS-Bench-201 cells in NATS-Bench's TinyNetwork and the FBNet
// space as HW-NAS-Bench defines it for CIFAR. Outside the zoo: their names are the specs.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/zoo.hpp"
#include "net_builder.hpp"

namespace cnnperf {

namespace {

using detail::NetBuilder;
using detail::Shape;

constexpr std::int64_t kCifarSide = 32;
constexpr std::int64_t kCifar100Classes = 100;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The part after the space's prefix ("nb201:", "nasbench201:" or "fbnet:"), or nullopt.
struct NasSpec {
  bool nb201 = false;
  std::string_view arch;
};
std::optional<NasSpec> split_spec(std::string_view spec) {
  for (const std::string_view prefix : {"nb201:", "nasbench201:"}) {
    if (starts_with(spec, prefix)) return NasSpec{true, spec.substr(prefix.size())};
  }
  if (starts_with(spec, "fbnet:")) return NasSpec{false, spec.substr(6)};
  return std::nullopt;
}

// ---- NAS-Bench-201 ----------------------------------------------------------------------

enum class CellOp { kNone, kSkip, kConv1x1, kConv3x3, kAvgPool };

struct CellEdge {
  CellOp op = CellOp::kNone;
  int from = 0;  ///< input node
};

CellOp cell_op(std::string_view name, const std::string& where) {
  if (name == "none") return CellOp::kNone;
  if (name == "skip_connect") return CellOp::kSkip;
  if (name == "nor_conv_1x1") return CellOp::kConv1x1;
  if (name == "nor_conv_3x3") return CellOp::kConv3x3;
  if (name == "avg_pool_3x3") return CellOp::kAvgPool;
  throw InputError(where + ": unknown operation '" + std::string(name) +
                   "'; expected none, skip_connect, nor_conv_1x1, nor_conv_3x3 or avg_pool_3x3");
}

// "|nor_conv_3x3~0|+|none~0|skip_connect~1|+|...~0|...~1|...~2|": one group per node after
// the input, separated by '+'; node i (1-based) takes i edges, one from each earlier node.
std::vector<std::vector<CellEdge>> parse_nb201_cell(std::string_view arch,
                                                    const std::string& spec) {
  const std::string where = "network '" + spec + "'";
  std::vector<std::vector<CellEdge>> nodes;
  for (const std::string& group : split(std::string(arch), '+')) {
    std::vector<CellEdge> edges;
    for (const std::string& token : split(group, '|')) {
      if (token.empty()) continue;
      const auto tilde = token.find('~');
      if (tilde == std::string::npos) {
        throw InputError(where + ": edge '" + token + "': expected <operation>~<input node>");
      }
      CellEdge edge;
      edge.op = cell_op(std::string_view(token).substr(0, tilde), where);
      const std::string from = token.substr(tilde + 1);
      if (from.size() != 1 || from[0] < '0' || from[0] > '9') {
        throw InputError(where + ": edge '" + token + "': expected an input node number");
      }
      edge.from = from[0] - '0';
      edges.push_back(edge);
    }
    nodes.push_back(std::move(edges));
  }
  if (nodes.size() != 3) {
    throw InputError(where + ": expected 3 '+'-separated nodes (a NAS-Bench-201 cell), got " +
                     std::to_string(nodes.size()));
  }
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const int node = static_cast<int>(n) + 1;
    if (static_cast<int>(nodes[n].size()) != node) {
      throw InputError(where + ": node " + std::to_string(node) + ": expected " +
                       std::to_string(node) + " edge(s), got " + std::to_string(nodes[n].size()));
    }
    for (int e = 0; e < node; ++e) {
      if (nodes[n][static_cast<std::size_t>(e)].from != e) {
        throw InputError(where + ": node " + std::to_string(node) + ": edge " +
                         std::to_string(e + 1) + ": expected input node " + std::to_string(e));
      }
    }
  }
  return nodes;
}

// ReLUConvBN of NAS-Bench-201 (ReLU, bias-free conv, BN) under `prefix`.
void relu_conv_bn(NetBuilder& b, const std::string& prefix, std::int64_t c_out, std::int64_t kernel,
                  std::int64_t stride) {
  b.activation(prefix + ".op.0", Op::kRelu);
  b.conv(prefix + ".op.1", c_out, kernel, stride, kernel / 2);
  b.batchnorm(prefix + ".op.2");
}

void build_nb201(NetBuilder& b, const std::vector<std::vector<CellEdge>>& cell) {
  // TinyNetwork(C=16, N=5): stem conv + BN, 3 stages of 5 cells at 16, 32 and 64 channels,
  // a ResNet basic block (stride 2) between stages, BN + ReLU, global pool, classifier.
  constexpr std::int64_t kStemChannels = 16;
  constexpr int kCellsPerStage = 5;
  b.conv("stem.0", kStemChannels, 3, 1, 1);
  b.batchnorm("stem.1");
  int index = 0;
  for (int stage = 0; stage < 3; ++stage) {
    const std::int64_t channels = kStemChannels << stage;
    if (stage > 0) {
      const std::string p = "cells." + std::to_string(index++);
      const Shape input = b.shape();
      relu_conv_bn(b, p + ".conv_a", channels, 3, 2);
      relu_conv_bn(b, p + ".conv_b", channels, 3, 1);
      const Shape main = b.shape();
      b.set_shape(input);
      b.avgpool(p + ".downsample.0", 2, 2);
      b.conv(p + ".downsample.1", channels, 1);
      b.add(p + ".add", main);
    }
    for (int c = 0; c < kCellsPerStage; ++c) {
      const std::string p = "cells." + std::to_string(index++);
      std::vector<Shape> nodes{b.shape()};
      int layer = 0;
      for (std::size_t n = 0; n < cell.size(); ++n) {
        const std::string node = p + ".node" + std::to_string(n + 1);
        for (std::size_t e = 0; e < cell[n].size(); ++e) {
          const CellEdge& edge = cell[n][e];
          const std::string l = p + ".layers." + std::to_string(layer++);
          b.set_shape(nodes[static_cast<std::size_t>(edge.from)]);
          switch (edge.op) {
            // Zero is x.mul(0.): a kernel like any other op.
            case CellOp::kNone: b.scalar_op(l + ".mul", Op::kMul); break;
            case CellOp::kSkip: break;  // Identity: no kernel
            case CellOp::kConv1x1: relu_conv_bn(b, l, channels, 1, 1); break;
            case CellOp::kConv3x3: relu_conv_bn(b, l, channels, 3, 1); break;
            case CellOp::kAvgPool: b.avgpool(l + ".op", 3, 1, 1); break;
          }
          // The node is Python's sum() of its edges: 0 + the first (an add with a scalar),
          // then one add per further edge.
          if (e == 0) {
            b.scalar_op(node + ".sum." + std::to_string(e), Op::kAdd);
          } else {
            b.add(node + ".sum." + std::to_string(e), b.shape());
          }
        }
        nodes.push_back(b.shape());
      }
    }
  }
  b.batchnorm("lastact.0");
  b.activation("lastact.1", Op::kRelu);
  b.global_avgpool("global_pooling");
  b.flatten("view");
  b.linear("classifier", kCifar100Classes);
}

// ---- FBNet (HW-NAS-Bench, CIFAR setting) ----------------------------------------------------

struct FbnetBlock {
  std::string_view name;
  std::int64_t kernel = 0;  ///< 0: skip
  std::int64_t expansion = 1;
  std::int64_t groups = 1;
};
constexpr std::array<FbnetBlock, 9> kFbnetBlocks{{{"k3_e1", 3, 1, 1},
                                                  {"k3_e1_g2", 3, 1, 2},
                                                  {"k3_e3", 3, 3, 1},
                                                  {"k3_e6", 3, 6, 1},
                                                  {"k5_e1", 5, 1, 1},
                                                  {"k5_e1_g2", 5, 1, 2},
                                                  {"k5_e3", 5, 3, 1},
                                                  {"k5_e6", 5, 6, 1},
                                                  {"skip", 0, 1, 1}}};
constexpr int kFbnetLayers = 22;

std::vector<FbnetBlock> parse_fbnet(std::string_view arch, const std::string& spec) {
  std::string text(arch);
  for (char& ch : text) {
    if (ch == ',' || ch == '-') ch = ' ';
  }
  std::vector<FbnetBlock> blocks;
  for (const std::string& token : split(text, ' ')) {
    if (token.empty()) continue;
    const FbnetBlock* found = nullptr;
    for (const auto& block : kFbnetBlocks) {
      if (block.name == token) found = &block;
    }
    if (found == nullptr) {
      throw InputError("network '" + spec + "': block " + std::to_string(blocks.size() + 1) +
                       ": unknown block '" + token +
                       "'; expected k3_e1, k3_e1_g2, k3_e3, k3_e6, k5_e1, k5_e1_g2, k5_e3, "
                       "k5_e6 or skip");
    }
    blocks.push_back(*found);
  }
  if (blocks.size() != kFbnetLayers) {
    throw InputError("network '" + spec + "': expected 22 FBNet blocks, got " +
                     std::to_string(blocks.size()));
  }
  return blocks;
}

void build_fbnet(NetBuilder& b, const std::vector<FbnetBlock>& blocks) {
  // FBNet_Infer of HW-NAS-Bench with its CIFAR strides: stem ConvNorm 3x3 (stride 1), 7
  // stages of 1, 4, 4, 4, 4, 4, 1 blocks, a 1x1 ConvNorm header of 1504 channels, pool, fc.
  constexpr std::array<int, 7> kLayers{1, 4, 4, 4, 4, 4, 1};
  constexpr std::array<std::int64_t, 7> kChannels{16, 24, 32, 64, 112, 184, 352};
  constexpr std::array<std::int64_t, 7> kStrides{1, 1, 2, 2, 1, 2, 1};
  constexpr std::int64_t kHeaderChannels = 1504;
  b.conv("stem.conv", 16, 3, 1, 1);
  b.batchnorm("stem.bn");
  b.activation("stem.relu", Op::kRelu);
  std::size_t id = 0;
  for (std::size_t stage = 0; stage < kLayers.size(); ++stage) {
    for (int i = 0; i < kLayers[stage]; ++i) {
      const FbnetBlock& block = blocks[id];
      const std::string p = "cells." + std::to_string(id++) + "._op";
      const Shape input = b.shape();
      const std::int64_t c_out = kChannels[stage];
      const std::int64_t stride = i == 0 ? kStrides[stage] : 1;
      if (block.kernel == 0) {
        // Skip is the identity unless the block changes the width or the resolution.
        if (stride != 1 || input.c != c_out) {
          b.conv(p + ".conv", c_out, 1, stride, 0);
          b.batchnorm(p + ".bn");
          b.activation(p + ".relu", Op::kRelu);
        }
        continue;
      }
      const std::int64_t mid = input.c * block.expansion;
      b.conv(p + ".conv1", mid, 1, 1, 0, block.groups);
      b.batchnorm(p + ".bn1");
      b.activation(p + ".nl.1", Op::kRelu);
      if (block.groups > 1) b.channel_shuffle(p + ".shuffle", block.groups);
      // padding ceil((k - s) / 2) of ConvNorm is k / 2 for k = 3, 5 and s = 1, 2.
      b.conv(p + ".conv2", mid, block.kernel, stride, block.kernel / 2, mid);
      b.batchnorm(p + ".bn2");
      b.activation(p + ".nl.2", Op::kRelu);
      b.conv(p + ".conv3", c_out, 1, 1, 0, block.groups);
      b.batchnorm(p + ".bn3");
      if (stride == 1 && input.c == c_out) b.add(p + ".add", input);
    }
  }
  b.conv("header.conv", kHeaderChannels, 1);
  b.batchnorm("header.bn");
  b.activation("header.relu", Op::kRelu);
  b.global_avgpool("avgpool");
  b.flatten("view");
  b.linear("fc", kCifar100Classes);
}

}  // namespace

bool is_nas_network_spec(std::string_view spec) {
  return split_spec(spec).has_value();
}

bool is_nas_source(std::string_view network_source) {
  return network_source == kNasBench201Source || network_source == kFbnetSource;
}

std::string nas_space_of(std::string_view spec) {
  const auto parsed = split_spec(spec);
  if (!parsed) return {};
  return parsed->nb201 ? kNasBench201Source : kFbnetSource;
}

Network build_nas_network(std::string_view spec, const NetworkOptions& options) {
  const auto parsed = split_spec(spec);
  const std::string text(spec);
  if (!parsed) {
    throw InputError("network '" + text + "': expected nb201:<cell> or fbnet:<22 blocks>");
  }
  if (options.batch <= 0) {
    throw ParameterError("batch",
                         "expected a positive integer, got " + std::to_string(options.batch));
  }
  // Both spaces were measured on CIFAR-100 (32x32, 100 classes; datasets/README.md).
  const std::int64_t h =
      options.input_h > 0 ? options.input_h : (options.input_w > 0 ? options.input_w : kCifarSide);
  const std::int64_t w = options.input_w > 0 ? options.input_w : h;
  NetBuilder builder(text, h, w, options);
  if (parsed->nb201) {
    build_nb201(builder, parse_nb201_cell(parsed->arch, text));
  } else {
    build_fbnet(builder, parse_fbnet(parsed->arch, text));
  }
  Network net = builder.finish();
  net.source = nas_space_of(spec);
  return net;
}

}  // namespace cnnperf
