// SPDX-License-Identifier: Apache-2.0
// make_profiler_backend() of a CUDA build: loads the CUDA back end, a module linked against
// cudart, cuDNN and CUPTI, at run time. The binary itself links none of them, so it starts
// (and predicts) on a machine without them, and `profile` names the library it could not load.
#include <string>

#include "cnnperf/common/module.hpp"
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {

std::unique_ptr<ProfilerBackend> make_profiler_backend() {
  // CNNPERF_CUDA_MODULE_NAME and CNNPERF_CUDA_MODULE_BUILD_DIR come from CMake.
  const ModuleSpec spec{CNNPERF_CUDA_MODULE_NAME, "CNNPERF_GPU_MODULE",
                        CNNPERF_CUDA_MODULE_BUILD_DIR, "cnnperf_cuda_backend_create"};
  std::string why;
  void* entry = load_module_entry(spec, why);
  if (entry == nullptr) {
    // A module that does not load is most often one whose CUDA libraries are missing.
    const bool load_failed = why.find(" could not be loaded: ") != std::string::npos;
    return make_unavailable_backend(
        "the CUDA back end " + why +
        (load_failed ? " (it needs the CUDA runtime, cuDNN 9 and CUPTI it was built with on the "
                       "library path; see docs/profiling.md)"
                     : ""));
  }
  using CreateFn = ProfilerBackend* (*)(const char*);
  ProfilerBackend* backend = reinterpret_cast<CreateFn>(entry)(kProfilerBackendAbi);
  if (backend == nullptr) {
    return make_unavailable_backend(std::string("the CUDA back end comes from another cnnperf "
                                                "build than this binary (") +
                                    kProfilerBackendAbi + "); reinstall both together");
  }
  return std::unique_ptr<ProfilerBackend>(backend);
}

}  // namespace cnnperf
