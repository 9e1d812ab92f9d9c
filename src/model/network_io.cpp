// SPDX-License-Identifier: Apache-2.0
// Network specs: ONNX file, JSON layer list or zoo name -> Network.
#include <spdlog/spdlog.h>

#include <system_error>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {

namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool same_shape(const Layer& a, const Layer& b) {
  return a.op == b.op && a.batch == b.batch && a.c_in == b.c_in && a.h_in == b.h_in &&
         a.w_in == b.w_in && a.c_out == b.c_out && a.kernel_h == b.kernel_h &&
         a.kernel_w == b.kernel_w && a.stride_h == b.stride_h && a.stride_w == b.stride_w &&
         a.pad_h == b.pad_h && a.pad_w == b.pad_w && a.pad_bottom() == b.pad_bottom() &&
         a.pad_right() == b.pad_right() && a.dilation_h == b.dilation_h &&
         a.dilation_w == b.dilation_w && a.groups == b.groups && a.bias == b.bias &&
         a.ceil_mode == b.ceil_mode && a.dtype == b.dtype && a.num_inputs == b.num_inputs;
}

// A layer list named after a zoo network is that network only when every layer matches the
// zoo's build at the list's batch, input size and dtype; an edited list keeps no calibration.
std::string zoo_equivalent(const Network& net) {
  const ZooEntry* entry = find_zoo_entry(net.name);
  if (entry == nullptr || net.layers.empty()) return {};
  NetworkOptions options;
  options.batch = net.batch;
  options.input_h = net.input_h;
  options.input_w = net.input_w;
  options.dtype = net.layers.front().dtype;
  Network zoo;
  try {
    zoo = build_zoo_network(entry->name, options);
  } catch (const InputError&) {
    return {};
  }
  if (zoo.layers.size() != net.layers.size() || zoo.input_c != net.input_c) return {};
  for (std::size_t i = 0; i < zoo.layers.size(); ++i) {
    if (!same_shape(zoo.layers[i], net.layers[i])) return {};
  }
  return zoo.name;
}

}  // namespace

ImportOptions import_options_from(const NetworkOptions& options, bool skip_unsupported) {
  ImportOptions out;
  out.batch = options.batch;
  out.batch_given = options.batch != 1;
  out.input_h = options.input_h;
  out.input_w = options.input_w;
  out.dtype = options.dtype;
  out.skip_unsupported = skip_unsupported;
  return out;
}

ImportResult import_network(std::string_view spec, const ImportOptions& options) {
  const std::string text(spec);
  if (text.empty()) throw InputError("network: expected a zoo name, an .onnx or a .json file");
  NetworkOptions zoo_options;
  zoo_options.batch = options.batch;
  zoo_options.input_h = options.input_h;
  zoo_options.input_w = options.input_w;
  zoo_options.dtype = options.dtype.value_or(DType::kFp32);
  // "nb201:..." and "fbnet:..." are specs, not paths or zoo names.
  if (is_nas_network_spec(text)) {
    ImportResult result;
    result.network = build_nas_network(text, zoo_options);
    return result;
  }
  const std::string lower = to_lower(text);
  const bool onnx = ends_with(lower, ".onnx");
  const bool json = ends_with(lower, ".json") || ends_with(lower, ".json.gz");
  const std::filesystem::path path(text);
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  const bool looks_like_path = onnx || json || text.find('/') != std::string::npos;
  if (looks_like_path && !exists) throw InputError(text + ": no such file");
  if (onnx) return import_onnx(path, options);
  if (json) {
    ImportResult result;
    result.network = read_network_json(path, options);
    result.network.zoo_network = zoo_equivalent(result.network);
    if (options.input_h > 0 || options.input_w > 0) {
      // Each layer of a list carries its own sizes; rescaling them is not defined.
      result.warnings.push_back(text +
                                ": an input size does not apply to a layer list (its layers carry "
                                "their own sizes); ignored");
    }
    return result;
  }
  if (exists && looks_like_path) {
    throw InputError(text +
                     ": unsupported network file; expected a .onnx model or a .json "
                     "layer list");
  }
  ImportResult result;
  result.network = build_zoo_network(text, zoo_options);
  return result;
}

Network load_network(std::string_view spec, const NetworkOptions& options, bool skip_unsupported) {
  return load_network(spec, import_options_from(options, skip_unsupported));
}

Network load_network(std::string_view spec, const ImportOptions& options) {
  ImportResult result = import_network(spec, options);
  for (const auto& warning : result.warnings) spdlog::warn("{}", warning);
  for (const auto& node : result.skipped) {
    spdlog::warn("{}: node '{}' ({}) skipped: {}", result.network.source, node.name, node.op_type,
                 node.reason);
  }
  return std::move(result.network);
}

}  // namespace cnnperf
