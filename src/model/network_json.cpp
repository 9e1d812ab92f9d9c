// SPDX-License-Identifier: Apache-2.0
// JSON layer lists (docs/model-import.md): a network written out layer by layer in the
// canonical layer schema, readable back into the same Network.
#include <nlohmann/json.hpp>

#include <array>
#include <limits>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/network_io.hpp"

namespace cnnperf {

namespace {

using nlohmann::json;

// Square shorthands accepted on reading (as in the layer CSV): field -> (_h, _w) members.
struct SquareField {
  const char* name;
  const char* h;
  const char* w;
};
constexpr std::array kSquareFields{
    SquareField{"kernel", "kernel_h", "kernel_w"},
    SquareField{"stride", "stride_h", "stride_w"},
    SquareField{"padding", "pad_h", "pad_w"},
    SquareField{"dilation", "dilation_h", "dilation_w"},
};

constexpr std::array kOtherLayerFields{"name",  "op",   "bias",      "ceil_mode",
                                       "dtype", "pass", "num_inputs"};

std::string json_text(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

[[noreturn]] void bad(const std::string& where, const std::string& expected, const json& got) {
  throw InputError(where + ": expected " + expected + ", got " + json_text(got));
}

std::int64_t integer(const json& value, const std::string& where, bool may_be_zero) {
  const char* expected = may_be_zero ? "a non-negative integer" : "a positive integer";
  std::int64_t out = 0;
  if (value.is_number_integer()) {
    out = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d != static_cast<double>(static_cast<std::int64_t>(d))) bad(where, expected, value);
    out = static_cast<std::int64_t>(d);
  } else {
    bad(where, expected, value);
  }
  if (out < 0 || (out == 0 && !may_be_zero)) bad(where, expected, value);
  return out;
}

bool boolean(const json& value, const std::string& where) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer() &&
      (value.get<std::int64_t>() == 0 || value.get<std::int64_t>() == 1)) {
    return value.get<std::int64_t>() == 1;
  }
  bad(where, "true or false", value);
}

std::string string(const json& value, const std::string& where) {
  if (!value.is_string()) bad(where, "a string", value);
  return value.get<std::string>();
}

std::string known_layer_fields() {
  std::string out;
  for (const auto* f : kOtherLayerFields) out += (out.empty() ? "" : ", ") + std::string(f);
  for (const auto& f : kLayerIntFields) out += std::string(", ") + f.name;
  for (const auto& f : kSquareFields) out += std::string(", ") + f.name;
  return out;
}

Layer read_layer(const json& object, const std::string& where, std::int64_t default_batch,
                 DType default_dtype) {
  if (!object.is_object()) bad(where, "an object", object);
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const auto* f : kOtherLayerFields) known = known || key == f;
    for (const auto& f : kLayerIntFields) known = known || key == f.name;
    for (const auto& f : kSquareFields) known = known || key == f.name;
    if (!known) {
      throw InputError(where + "." + key +
                       ": unknown field (expected one of: " + known_layer_fields() + ")");
    }
  }
  Layer layer;
  if (!object.contains("op")) throw InputError(where + ".op: missing; expected an operator name");
  const std::string op_text = string(object["op"], where + ".op");
  try {
    layer.op = op_from_string(op_text);
  } catch (const InputError& e) {
    throw InputError(where + ".op: " + e.what());
  }
  if (object.contains("name")) layer.name = string(object["name"], where + ".name");
  layer.dtype = default_dtype;
  if (object.contains("dtype")) {
    const std::string text = string(object["dtype"], where + ".dtype");
    try {
      layer.dtype = dtype_from_string(text);
    } catch (const InputError& e) {
      throw InputError(where + ".dtype: " + e.what());
    }
  }
  if (object.contains("pass")) {
    const std::string text = string(object["pass"], where + ".pass");
    try {
      layer.pass = pass_from_string(text);
    } catch (const InputError& e) {
      throw InputError(where + ".pass: " + e.what());
    }
  }

  auto get = [&](const char* field, std::int64_t fallback, bool may_be_zero) {
    if (object.contains(field)) return integer(object[field], where + "." + field, may_be_zero);
    return fallback;
  };
  auto get_square = [&](const char* field, const char* square, std::int64_t fallback,
                        bool may_be_zero) {
    if (object.contains(field)) {
      const std::int64_t value = integer(object[field], where + "." + field, may_be_zero);
      // "kernel": 3 with "kernel_h": 5 is ambiguous (a typo, or a 5x3 meant?): both must agree.
      if (object.contains(square) &&
          integer(object[square], where + "." + square, may_be_zero) != value) {
        throw InputError(where + "." + field + ": " + std::to_string(value) + " contradicts " +
                         square + " " + json_text(object[square]) + "; give " + square +
                         " or the _h/_w pair");
      }
      return value;
    }
    if (object.contains(square)) return integer(object[square], where + "." + square, may_be_zero);
    return fallback;
  };
  layer.batch = get("batch", default_batch, false);
  layer.c_in = get("c_in", 1, false);
  layer.h_in = get("h_in", 1, false);
  layer.w_in = get("w_in", 1, false);
  // As in the layer CSV: pointwise, normalization and pool ops keep their channel count.
  const OpClass cls = op_class(layer.op);
  const bool keeps_channels =
      cls != OpClass::kConv && cls != OpClass::kGemm && cls != OpClass::kCopy;
  layer.c_out = get("c_out", keeps_channels ? layer.c_in : 1, false);
  layer.kernel_h = get_square("kernel_h", "kernel", 1, false);
  layer.kernel_w = get_square("kernel_w", "kernel", layer.kernel_h, false);
  layer.stride_h = get_square("stride_h", "stride", 1, false);
  layer.stride_w = get_square("stride_w", "stride", layer.stride_h, false);
  layer.pad_h = get_square("pad_h", "padding", 0, true);
  layer.pad_w = get_square("pad_w", "padding", layer.pad_h, true);
  layer.dilation_h = get_square("dilation_h", "dilation", 1, false);
  layer.dilation_w = get_square("dilation_w", "dilation", layer.dilation_h, false);
  layer.groups = get("groups", 1, false);
  if (object.contains("bias")) layer.bias = boolean(object["bias"], where + ".bias");
  if (object.contains("ceil_mode")) {
    layer.ceil_mode = boolean(object["ceil_mode"], where + ".ceil_mode");
  }
  const int default_inputs = (layer.op == Op::kAdd || layer.op == Op::kMul) ? 2 : 1;
  const std::int64_t inputs = get("num_inputs", default_inputs, false);
  if (inputs > std::numeric_limits<int>::max()) {
    bad(where + ".num_inputs", "a small positive integer", object["num_inputs"]);
  }
  layer.num_inputs = static_cast<int>(inputs);
  layer.validate(where);
  return layer;
}

}  // namespace

Network parse_network_json(std::string_view text, const std::string& source,
                           const ImportOptions& options) {
  const json root = parse_json_text(text, source);
  if (!root.is_object()) bad(source, "a JSON object with \"layers\"", root);
  static constexpr std::array kTopFields{"schema_version", "name",  "source", "input",
                                         "batch",          "dtype", "layers"};
  for (const auto& [key, value] : root.items()) {
    bool known = false;
    for (const auto* f : kTopFields) known = known || key == f;
    if (!known) {
      throw InputError(source + ": " + key +
                       ": unknown field (expected schema_version, name, source, input, batch, "
                       "dtype, layers)");
    }
  }
  if (!root.contains("schema_version")) {
    throw InputError(source + ": schema_version: missing; expected " +
                     std::to_string(kNetworkJsonSchemaVersion));
  }
  const std::int64_t version = integer(root["schema_version"], source + ": schema_version", false);
  if (version != kNetworkJsonSchemaVersion) {
    throw InputError(source + ": schema_version: expected " +
                     std::to_string(kNetworkJsonSchemaVersion) + ", got " +
                     std::to_string(version));
  }
  Network net;
  net.source = source;
  net.name = root.contains("name") ? string(root["name"], source + ": name")
                                   : std::filesystem::path(source).stem().string();
  if (root.contains("batch")) net.batch = integer(root["batch"], source + ": batch", false);
  if (options.batch_given) net.batch = options.batch;
  DType dtype = DType::kFp32;
  if (root.contains("dtype")) {
    const std::string text = string(root["dtype"], source + ": dtype");
    try {
      dtype = dtype_from_string(text);
    } catch (const InputError& e) {
      throw InputError(source + ": dtype: " + e.what());
    }
  }
  if (root.contains("input")) {
    const json& input = root["input"];
    if (!input.is_object()) bad(source + ": input", "an object {\"c\", \"h\", \"w\"}", input);
    for (const auto& [key, value] : input.items()) {
      if (key != "c" && key != "h" && key != "w") {
        throw InputError(source + ": input." + key + ": unknown field (expected c, h, w)");
      }
    }
    if (input.contains("c")) net.input_c = integer(input["c"], source + ": input.c", false);
    if (input.contains("h")) net.input_h = integer(input["h"], source + ": input.h", false);
    if (input.contains("w")) net.input_w = integer(input["w"], source + ": input.w", false);
  }
  if (!root.contains("layers")) {
    throw InputError(source + ": layers: missing; expected an array of layers");
  }
  const json& layers = root["layers"];
  if (!layers.is_array() || layers.empty()) bad(source + ": layers", "a non-empty array", layers);
  const std::int64_t file_batch = net.batch;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string where = source + ": layers[" + std::to_string(i) + "]";
    Layer layer = read_layer(layers[i], where, file_batch, dtype);
    if (options.batch_given) layer.batch = options.batch;
    if (options.dtype) layer.dtype = *options.dtype;
    if (options.batch_given) layer.validate(where + " at batch " + std::to_string(options.batch));
    net.layers.push_back(std::move(layer));
  }
  return net;
}

Network read_network_json(const std::filesystem::path& path, const ImportOptions& options) {
  return parse_network_json(read_text_file(path), path.string(), options);
}

std::string network_to_json(const Network& network) {
  // Ordered, so the file reads in schema order rather than alphabetically.
  nlohmann::ordered_json root;
  root["schema_version"] = kNetworkJsonSchemaVersion;
  root["name"] = network.name;
  root["source"] = network.source;
  root["input"] = {{"c", network.input_c}, {"h", network.input_h}, {"w", network.input_w}};
  root["batch"] = network.batch;
  auto layers = nlohmann::ordered_json::array();
  for (const auto& layer : network.layers) {
    nlohmann::ordered_json object;
    object["name"] = layer.name;
    object["op"] = to_string(layer.op);
    for (const auto& field : kLayerIntFields) object[field.name] = layer.*(field.member);
    object["bias"] = layer.bias;
    object["ceil_mode"] = layer.ceil_mode;
    object["dtype"] = to_string(layer.dtype);
    object["pass"] = to_string(layer.pass);
    object["num_inputs"] = layer.num_inputs;
    layers.push_back(std::move(object));
  }
  root["layers"] = std::move(layers);
  return json_text(root) + "\n";
}

}  // namespace cnnperf
