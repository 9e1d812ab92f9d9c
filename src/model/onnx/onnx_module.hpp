// SPDX-License-Identifier: Apache-2.0
// The ONNX importer is a module (libcnnperf_onnx.so, linked against libonnx and libprotobuf)
// that src/model/onnx_loader.cpp loads on the first ONNX file, so the binary does not pay
// protobuf's and ONNX's symbol relocations at every start. This is what both sides share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/common/config.hpp"
#include "cnnperf/model/network_io.hpp"

namespace cnnperf::onnx_module {

/// The module and the binary must come from the same build (the interface is C++).
inline constexpr const char* kAbi = "cnnperf-onnx-importer/1 " CNNPERF_VERSION;

/// What the module offers; see import_onnx_bytes and supported_onnx_ops (network_io.hpp).
struct Api {
  ImportResult (*import_bytes)(std::string_view bytes, const std::string& source,
                               const ImportOptions& options) = nullptr;
  const std::vector<std::string>& (*supported_ops)() = nullptr;
};

}  // namespace cnnperf::onnx_module

/// The module's one exported symbol: its Api, or null when `abi` is not its kAbi.
extern "C" const cnnperf::onnx_module::Api* cnnperf_onnx_importer(const char* abi);
