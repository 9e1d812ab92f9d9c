// SPDX-License-Identifier: Apache-2.0
// Network totals.
#include "cnnperf/model/network.hpp"

namespace cnnperf {

std::int64_t Network::params() const {
  std::int64_t total = 0;
  for (const auto& layer : layers) total += layer.params();
  return total;
}

std::int64_t Network::macs() const {
  std::int64_t total = 0;
  for (const auto& layer : layers) total += layer.macs();
  return total;
}

void allow_tf32_convolutions(std::vector<Layer>& layers, bool allow) {
  for (auto& layer : layers) {
    layer.allow_tf32 = allow && layer.op == Op::kConv2d && layer.dtype == DType::kFp32;
  }
}

void allow_tf32_convolutions(Network& net, bool allow) {
  allow_tf32_convolutions(net.layers, allow);
}

double Network::flops() const {
  double total = 0;
  for (const auto& layer : layers) total += layer.flops();
  return total;
}

}  // namespace cnnperf
