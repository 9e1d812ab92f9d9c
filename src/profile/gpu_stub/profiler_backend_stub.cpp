// SPDX-License-Identifier: Apache-2.0
// The profiler back end of a build without CUDA: it exists so `profile` links and explains
// itself; every request reports "built without CUDA".
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {

std::unique_ptr<ProfilerBackend> make_profiler_backend() {
  return make_unavailable_backend(
      "built without CUDA (reconfigure with the CUDA toolkit, cuDNN and CUPTI installed and "
      "-DCNNPERF_WITH_CUDA=AUTO or ON; see docs/profiling.md)");
}

}  // namespace cnnperf
