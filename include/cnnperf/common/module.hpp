// SPDX-License-Identifier: Apache-2.0
// Optional parts of cnnperf built as modules and loaded with dlopen when first needed (the CUDA
// profiler back end, the ONNX importer), so that the binary starts without their libraries.
#pragma once

#include <string>

namespace cnnperf {

/// Where to find one module.
struct ModuleSpec {
  std::string file_name;     ///< e.g. "libcnnperf_onnx.so"
  std::string env_var;       ///< a variable naming the module's path, which wins when set
  std::string build_dir;     ///< the build tree that built it (found by the tree's tests)
  std::string entry_symbol;  ///< the one symbol the module exports
};

/// The loaded module's entry symbol, or null with `why` set: not found (naming every place
/// looked in), not loadable (dlopen's reason, which names a missing library), or no entry.
/// Places, in order: $env_var, beside the running binary, ../lib/cnnperf from it, build_dir.
/// A module stays loaded for the life of the process.
[[nodiscard]] void* load_module_entry(const ModuleSpec& spec, std::string& why);

}  // namespace cnnperf
