// SPDX-License-Identifier: Apache-2.0
// Model import: ONNX files, JSON layer lists and zoo names -> Network (docs/model-import.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network.hpp"

namespace cnnperf {

/// How a model file is turned into layers.
struct ImportOptions {
  /// Batch for a dynamic batch dimension (dim_param, 0 or -1 in ONNX); it also replaces an
  /// explicit batch (ONNX input dimension or JSON "batch") when `batch_given` is true.
  std::int64_t batch = 1;
  bool batch_given = false;
  /// Spatial size for dynamic H/W of a 4-D ONNX input; when non-zero it also replaces a fixed
  /// size (with a warning). 0: the model's own size. Ignored for JSON layer lists.
  std::int64_t input_h = 0;
  std::int64_t input_w = 0;
  /// Element type of every layer; nullopt: from the model (ONNX input elem_type, JSON dtype).
  std::optional<DType> dtype;
  /// true: an unsupported ONNX operator becomes an entry of ImportResult::skipped instead of
  /// an InputError, and import continues with the shapes ONNX shape inference gives its outputs.
  bool skip_unsupported = false;
};

/// An ONNX node that produced no layer because cnnperf cannot model it.
struct SkippedNode {
  std::string name;     ///< node name (or its first output's name when the node has none)
  std::string op_type;  ///< ONNX op_type, with "domain:" prefix for non-default domains
  std::string reason;   ///< one line, e.g. "unsupported operator"
  /// Number of layers emitted before this node: the skipped node sits between
  /// network.layers[position - 1] and network.layers[position].
  std::size_t position = 0;
};

/// A network plus what the importer could not represent exactly. Printers show `skipped` as
/// flagged rows (no prediction) and `warnings` on stderr.
struct ImportResult {
  Network network;
  std::vector<SkippedNode> skipped;
  std::vector<std::string> warnings;  ///< one line each, prefixed with the file name
};

/// Reads an ONNX model (protobuf ModelProto) and maps its nodes to layers in graph order.
/// Throws InputError "<file>: ..." for a missing/unreadable/malformed file, a dynamic
/// dimension that options do not resolve, or (unless skip_unsupported) an unsupported node:
/// "<file>: node '<name>' (op_type <Op>): unsupported operator (expected one of: ...)".
[[nodiscard]] ImportResult import_onnx(const std::filesystem::path& path,
                                       const ImportOptions& options = {});
/// The same from bytes in memory; `source` names them in messages and Network::source.
[[nodiscard]] ImportResult import_onnx_bytes(std::string_view bytes, const std::string& source,
                                             const ImportOptions& options = {});
/// import_onnx(path, options).network (warnings are logged with spdlog).
[[nodiscard]] Network load_onnx(const std::filesystem::path& path,
                                const ImportOptions& options = {});

/// The ONNX operator types the importer maps to layers (or treats as views/no-ops), sorted.
[[nodiscard]] const std::vector<std::string>& supported_onnx_ops();

/// Current version of the JSON layer list format.
inline constexpr int kNetworkJsonSchemaVersion = 1;

/// Parses a JSON layer list (format in docs/model-import.md). `source` names the text in
/// messages, e.g. "net.json: layers[3].kernel_h: expected a positive integer, got -1".
/// options.batch_given replaces every layer's batch; options.dtype every layer's dtype.
[[nodiscard]] Network parse_network_json(std::string_view text, const std::string& source,
                                         const ImportOptions& options = {});
/// Reads a JSON layer list file (plain or .gz).
[[nodiscard]] Network read_network_json(const std::filesystem::path& path,
                                        const ImportOptions& options = {});
/// Serializes a network as a JSON layer list (2-space indented, trailing newline); reading
/// it back with parse_network_json gives the same name, batch, input and layers.
[[nodiscard]] std::string network_to_json(const Network& network);

/// Resolves a network spec: a path ending in .onnx -> ONNX import, .json (or .json.gz) ->
/// JSON layer list, anything else -> a zoo name (build_zoo_network). A spec that looks like
/// a path (has a directory part or one of those extensions) but does not exist throws
/// InputError "<spec>: no such file".
[[nodiscard]] ImportResult import_network(std::string_view spec, const ImportOptions& options);
/// Convenience form for callers holding NetworkOptions: options.batch counts as given when it
/// differs from 1 (so a batch-1 default keeps an ONNX model's own batch); dtype always applies.
/// With skip_unsupported = false any unsupported ONNX node throws.
[[nodiscard]] Network load_network(std::string_view spec, const NetworkOptions& options,
                                   bool skip_unsupported = false);
/// The same for ImportOptions (dtype nullopt: the file's own); warnings go to the log.
[[nodiscard]] Network load_network(std::string_view spec, const ImportOptions& options);
/// ImportOptions equivalent of NetworkOptions (batch given iff != 1, dtype always set).
[[nodiscard]] ImportOptions import_options_from(const NetworkOptions& options,
                                                bool skip_unsupported = false);

}  // namespace cnnperf
