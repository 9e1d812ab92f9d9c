// SPDX-License-Identifier: Apache-2.0
// `nets show`'s JSON result. Each struct's members are named once, in its `members` list,
// which both directions walk in the order the JSON has them.
#include "cnnperf/model/network_layers.hpp"

#include <string>
#include <utility>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/json_get.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {

namespace {

using Json = nlohmann::ordered_json;

// A gmacs of null is "not published".
void put(Json& j, const char* key, const std::optional<double>& value) {
  j[key] = value ? Json(*value) : Json(nullptr);
}
template <typename T>
void put(Json& j, const char* key, const T& value) {
  j[key] = value;
}

void take(const Json& j, const char* key, std::optional<double>& value) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if (it->is_null()) {
    value.reset();
  } else {
    json_get_member_exact(j, key, value.emplace());
  }
}
template <typename T>
void take(const Json& j, const char* key, T& value) {
  json_get_member_exact(j, key, value);
}

template <typename Self, typename F>
void members(Self& l, F&& f, NetworkLayerRow* /*tag*/) {
  f("name", l.name);
  f("op", l.op);
  f("batch", l.batch);
  f("c_in", l.c_in);
  f("h_in", l.h_in);
  f("w_in", l.w_in);
  f("c_out", l.c_out);
  f("h_out", l.h_out);
  f("w_out", l.w_out);
  f("kernel_h", l.kernel_h);
  f("kernel_w", l.kernel_w);
  f("stride_h", l.stride_h);
  f("stride_w", l.stride_w);
  f("pad_h", l.pad_h);
  f("pad_w", l.pad_w);
  f("dilation_h", l.dilation_h);
  f("dilation_w", l.dilation_w);
  f("groups", l.groups);
  f("bias", l.bias);
  f("ceil_mode", l.ceil_mode);
  f("num_inputs", l.num_inputs);
  f("dtype", l.dtype);
  f("params", l.params);
  f("macs", l.macs);
  f("flops", l.flops);
  f("bytes", l.bytes);
}

template <typename Self, typename F>
void members(Self& p, F&& f, PublishedFigures* /*tag*/) {
  f("params", p.params);
  f("auxiliary_params", p.auxiliary_params);
  f("gmacs", p.gmacs);
  f("source", p.source);
  f("top1_accuracy", p.top1_accuracy);
  f("accuracy_source", p.accuracy_source);
}

template <typename Self, typename F>
void members(Self& t, F&& f, NetworkLayersTotal* /*tag*/) {
  f("layers", t.layers);
  f("params", t.params);
  f("macs", t.macs);
  f("flops", t.flops);
  f("bytes", t.bytes);
}

template <typename T>
Json write(const T& value) {
  Json j = Json::object();
  members(
      value, [&](const char* key, const auto& member) { put(j, key, member); },
      static_cast<T*>(nullptr));
  return j;
}

template <typename T>
void read(const Json& j, T& value) {
  json_require_object(j);
  members(
      value, [&](const char* key, auto& member) { take(j, key, member); },
      static_cast<T*>(nullptr));
}

}  // namespace

void network_layer_output_shape(const Layer& layer, std::int64_t& c, std::int64_t& h,
                                std::int64_t& w) {
  if (layer.op == Op::kFlatten) {
    c = layer.c_in * layer.h_in * layer.w_in;
    h = w = 1;
  } else if (layer.op == Op::kLinear) {
    c = layer.c_out;
    h = w = 1;
  } else {
    c = layer.c_out;
    h = layer.h_out();
    w = layer.w_out();
  }
}

NetworkLayersResult network_layers_result(const Network& net, DType dtype,
                                          const std::string& source) {
  NetworkLayersResult r;
  r.tool_version = CNNPERF_VERSION;
  r.source = source;
  r.network = net.name;
  r.batch = net.batch;
  r.input_c = net.input_c;
  r.input_h = net.input_h;
  r.input_w = net.input_w;
  r.dtype = to_string(dtype);
  if (const ZooEntry* entry = find_zoo_entry(net.name); entry && net.source == "zoo") {
    r.published = PublishedFigures{
        entry->published_params,
        entry->auxiliary_params,
        entry->published_gmacs > 0 ? std::optional(entry->published_gmacs) : std::nullopt,
        entry->published_source,
        entry->top1_accuracy,
        entry->accuracy_source};
  }
  for (const Layer& layer : net.layers) {
    NetworkLayerRow l;
    l.name = layer.name;
    l.op = to_string(layer.op);
    l.batch = layer.batch;
    l.c_in = layer.c_in;
    l.h_in = layer.h_in;
    l.w_in = layer.w_in;
    network_layer_output_shape(layer, l.c_out, l.h_out, l.w_out);
    l.kernel_h = layer.kernel_h;
    l.kernel_w = layer.kernel_w;
    l.stride_h = layer.stride_h;
    l.stride_w = layer.stride_w;
    l.pad_h = layer.pad_h;
    l.pad_w = layer.pad_w;
    l.dilation_h = layer.dilation_h;
    l.dilation_w = layer.dilation_w;
    l.groups = layer.groups;
    l.bias = layer.bias;
    l.ceil_mode = layer.ceil_mode;
    l.num_inputs = layer.num_inputs;
    l.dtype = to_string(layer.dtype);
    l.params = layer.params();
    l.macs = layer.macs();
    l.flops = layer.flops();
    l.bytes = layer.bytes();
    r.total.bytes += l.bytes;
    r.layers.push_back(std::move(l));
  }
  r.total.layers = net.layers.size();
  r.total.params = net.params();
  r.total.macs = net.macs();
  r.total.flops = net.flops();
  return r;
}

void to_json(Json& j, const NetworkLayerRow& row) {
  j = write(row);
}

void from_json(const Json& j, NetworkLayerRow& row) {
  read(j, row);
}

void to_json(Json& j, const NetworkLayersResult& r) {
  j = Json::object();
  j["schema_version"] = r.schema_version;
  j["kind"] = kNetworkLayersKind;
  j["tool_version"] = r.tool_version;
  j["source"] = r.source;
  j["network"] = r.network;
  j["batch"] = r.batch;
  j["input"] = {{"c", r.input_c}, {"h", r.input_h}, {"w", r.input_w}};
  j["dtype"] = r.dtype;
  if (r.published) j["published"] = write(*r.published);
  j["layers"] = r.layers;
  j["total"] = write(r.total);
}

void from_json(const Json& j, NetworkLayersResult& r) {
  json_require_object(j);
  take(j, "schema_version", r.schema_version);
  take(j, "tool_version", r.tool_version);
  take(j, "source", r.source);
  take(j, "network", r.network);
  take(j, "batch", r.batch);
  if (j.contains("input")) {
    const Json& input = j.at("input");
    json_require_object(input);
    take(input, "c", r.input_c);
    take(input, "h", r.input_h);
    take(input, "w", r.input_w);
  }
  take(j, "dtype", r.dtype);
  r.published.reset();
  if (j.contains("published")) read(j.at("published"), r.published.emplace());
  take(j, "layers", r.layers);
  if (j.contains("total")) read(j.at("total"), r.total);
}

}  // namespace cnnperf
