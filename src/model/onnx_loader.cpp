// SPDX-License-Identifier: Apache-2.0
// ONNX import through the importer module (src/model/onnx), loaded on the first ONNX file.
#include <mutex>

#include <spdlog/spdlog.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/module.hpp"
#include "cnnperf/model/network_io.hpp"
#include "onnx/onnx_module.hpp"

namespace cnnperf {
namespace {

// CNNPERF_ONNX_MODULE_NAME and CNNPERF_ONNX_MODULE_BUILD_DIR come from CMake.
const onnx_module::Api& importer() {
  static std::once_flag once;
  static const onnx_module::Api* api = nullptr;
  static std::string why;
  std::call_once(once, [] {
    const ModuleSpec spec{CNNPERF_ONNX_MODULE_NAME, "CNNPERF_ONNX_MODULE",
                          CNNPERF_ONNX_MODULE_BUILD_DIR, "cnnperf_onnx_importer"};
    void* entry = load_module_entry(spec, why);
    if (entry == nullptr) return;
    using EntryFn = const onnx_module::Api* (*)(const char*);
    api = reinterpret_cast<EntryFn>(entry)(onnx_module::kAbi);
    if (api == nullptr) {
      why = std::string("the ONNX importer comes from another cnnperf build than this binary (") +
            onnx_module::kAbi + "); reinstall both together";
    }
  });
  if (api == nullptr) throw Error("ONNX import is not available: the importer " + why);
  return *api;
}

}  // namespace

const std::vector<std::string>& supported_onnx_ops() {
  return importer().supported_ops();
}

ImportResult import_onnx_bytes(std::string_view bytes, const std::string& source,
                               const ImportOptions& options) {
  return importer().import_bytes(bytes, source, options);
}

ImportResult import_onnx(const std::filesystem::path& path, const ImportOptions& options) {
  // read_text_file keeps every byte (protobuf is binary) and says "no such file", "is a
  // directory" or "cannot open" as every other input does.
  return import_onnx_bytes(read_text_file(path), path.string(), options);
}

Network load_onnx(const std::filesystem::path& path, const ImportOptions& options) {
  ImportResult result = import_onnx(path, options);
  for (const auto& warning : result.warnings) spdlog::warn("{}", warning);
  return std::move(result.network);
}

}  // namespace cnnperf
