// SPDX-License-Identifier: Apache-2.0
// A network layer by layer, as `nets show` writes it as JSON (kind network_layers): each
// layer's parameters, output shape and counts, the totals, and a zoo network's published
// figures. One type, so the writer and a reader (report) spell each field in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network.hpp"

namespace cnnperf {

/// The "kind" and schema version of the result.
inline constexpr const char* kNetworkLayersKind = "network_layers";
inline constexpr int kNetworkLayersSchemaVersion = 1;

/// Output shape as the next layer sees it (flatten and linear produce (features, 1, 1)).
void network_layer_output_shape(const Layer& layer, std::int64_t& c, std::int64_t& h,
                                std::int64_t& w);

/// One layer: its parameters as written (op and dtype by name), output shape and counts.
struct NetworkLayerRow {
  std::string name;
  std::string op;
  std::int64_t batch = 0;
  std::int64_t c_in = 0;
  std::int64_t h_in = 0;
  std::int64_t w_in = 0;
  std::int64_t c_out = 0;  ///< of the output tensor (network_layer_output_shape)
  std::int64_t h_out = 0;
  std::int64_t w_out = 0;
  std::int64_t kernel_h = 0;
  std::int64_t kernel_w = 0;
  std::int64_t stride_h = 0;
  std::int64_t stride_w = 0;
  std::int64_t pad_h = 0;
  std::int64_t pad_w = 0;
  std::int64_t dilation_h = 0;
  std::int64_t dilation_w = 0;
  std::int64_t groups = 0;
  bool bias = false;
  bool ceil_mode = false;
  int num_inputs = 0;
  std::string dtype;
  std::int64_t params = 0;
  std::int64_t macs = 0;
  double flops = 0;
  double bytes = 0;
};

/// A zoo network's published figures (absent for a network from a file).
struct PublishedFigures {
  std::int64_t params = 0;
  std::int64_t auxiliary_params = 0;
  std::optional<double> gmacs;  ///< unset: not published (written as null)
  std::string source;
  double top1_accuracy = 0;
  std::string accuracy_source;
};

/// Sums over the layers.
struct NetworkLayersTotal {
  std::size_t layers = 0;
  std::int64_t params = 0;
  std::int64_t macs = 0;
  double flops = 0;
  double bytes = 0;
};

struct NetworkLayersResult {
  int schema_version = kNetworkLayersSchemaVersion;
  std::string tool_version;
  std::string source;  ///< where the layers come from
  std::string network;
  std::int64_t batch = 0;
  std::int64_t input_c = 0;
  std::int64_t input_h = 0;
  std::int64_t input_w = 0;
  std::string dtype;
  std::optional<PublishedFigures> published;
  std::vector<NetworkLayerRow> layers;
  NetworkLayersTotal total;
};

/// The result of `network` (its layers in `dtype`'s name), the zoo's published figures when
/// it is a zoo network; `source` says where the layers come from.
[[nodiscard]] NetworkLayersResult network_layers_result(const Network& network, DType dtype,
                                                        const std::string& source);

// The JSON keeps the member order it is written in (ordered_json). from_json leaves a member
// the JSON lacks at its default (files of older versions) and throws
// nlohmann::json::type_error on a member of the wrong type.
void to_json(nlohmann::ordered_json& j, const NetworkLayerRow& row);
void from_json(const nlohmann::ordered_json& j, NetworkLayerRow& row);
void to_json(nlohmann::ordered_json& j, const NetworkLayersResult& result);
void from_json(const nlohmann::ordered_json& j, NetworkLayersResult& result);

}  // namespace cnnperf
