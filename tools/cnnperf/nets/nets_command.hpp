// SPDX-License-Identifier: Apache-2.0
// `cnnperf nets [show NAME]`: list the network zoo and inspect one network layer by layer.
#pragma once

#include <cstdint>
#include <string>

namespace cnnperf {

/// Version of the JSON/CSV layout printed by `cnnperf nets`.
inline constexpr int kNetsSchemaVersion = 1;
/// The "kind" of `nets --format json` (`nets show`'s is the model module's kNetworkLayersKind).
inline constexpr const char* kNetworkListKind = "network_list";

/// Options of `cnnperf nets` (strings as typed; validated by render_nets).
struct NetsOptions {
  std::string format = "table";  ///< table|json|csv
  std::string output;            ///< output file; "" or "-" = stdout
  /// `nets show SPEC`: a zoo name, an ONNX file or a JSON layer list; "" lists the zoo.
  std::string show;
  std::int64_t batch = 1;  ///< batch of every layer (show only)
  std::string input_size;  ///< "HxW" or "N" (square); "" = the network's default
  std::string precision;   ///< fp32|fp16 for the bytes column; empty: the file's, else fp32
  /// show: write the network as a JSON layer list (network_to_json), which predict --net,
  /// nets show and profile --net read back, instead of the report
  bool layer_list = false;
};

/// Renders the zoo listing, or one network's layers and totals for `show`, in the requested
/// format. Pure apart from reading a model file named by `show`. Throws InputError for bad
/// options and unknown networks ("unknown network 'x'; closest: ...").
[[nodiscard]] std::string render_nets(const NetsOptions& options);

/// Runs `cnnperf nets`: render_nets() written to options.output. Returns the exit code (0).
int run_nets(const NetsOptions& options);

}  // namespace cnnperf
