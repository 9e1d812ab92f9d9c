// SPDX-License-Identifier: Apache-2.0
#include "cnnperf/common/module.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> candidate_paths(const ModuleSpec& spec) {
  if (const char* env = std::getenv(spec.env_var.c_str()); env != nullptr && *env != '\0') {
    return {fs::path(env)};
  }
  std::vector<fs::path> out;
  std::error_code ec;
  if (const fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec) {
    out.push_back(exe.parent_path() / spec.file_name);
    out.push_back(exe.parent_path().parent_path() / "lib" / "cnnperf" / spec.file_name);
  }
  if (!spec.build_dir.empty()) out.push_back(fs::path(spec.build_dir) / spec.file_name);
  return out;
}

}  // namespace

void* load_module_entry(const ModuleSpec& spec, std::string& why) {
  std::string looked;
  for (const fs::path& path : candidate_paths(spec)) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      looked += (looked.empty() ? "" : ", ") + path.string();
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      why = path.string() + " could not be loaded: " + (error != nullptr ? error : "unknown error");
      return nullptr;
    }
    void* entry = dlsym(handle, spec.entry_symbol.c_str());
    if (entry == nullptr) {
      why = path.string() + " is not a cnnperf module (no " + spec.entry_symbol + ")";
    }
    return entry;
  }
  why = spec.file_name + " was not found (looked in: " + looked + "; set " + spec.env_var +
        " to its path)";
  return nullptr;
}

}  // namespace cnnperf
