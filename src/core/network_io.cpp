// SPDX-License-Identifier: Apache-2.0
// Network specs: ONNX file, JSON layer list or zoo name -> Network.
#include <spdlog/spdlog.h>

#include <system_error>

#include "cnnperf/error.hpp"
#include "cnnperf/io.hpp"
#include "cnnperf/network_io.hpp"
#include "cnnperf/zoo.hpp"

namespace cnnperf {

namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
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
    if (options.input_h > 0 || options.input_w > 0) {
      // Each layer of a list carries its own sizes; rescaling them is not defined.
      result.warnings.push_back(text +
                                ": --input-size does not apply to a layer list (its layers carry "
                                "their own sizes); ignored");
    }
    return result;
  }
  if (exists && looks_like_path) {
    throw InputError(text + ": unsupported network file; expected a .onnx model or a .json "
                            "layer list");
  }
  ImportResult result;
  result.network = build_zoo_network(text, zoo_options);
  return result;
}

Network load_network(std::string_view spec, const NetworkOptions& options,
                     bool skip_unsupported) {
  return load_network(spec, import_options_from(options, skip_unsupported));
}

Network load_network(std::string_view spec, const ImportOptions& options) {
  ImportResult result = import_network(spec, options);
  for (const auto& warning : result.warnings) spdlog::warn("{}", warning);
  for (const auto& node : result.skipped) {
    spdlog::warn("{}: node '{}' ({}) skipped: {}", result.network.source, node.name,
                 node.op_type, node.reason);
  }
  return std::move(result.network);
}

}  // namespace cnnperf
