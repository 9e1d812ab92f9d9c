// SPDX-License-Identifier: Apache-2.0
// Runs the process again with OpenMP's passive wait policy (see the header for why).
#include "support/openmp_policy.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace cnnperf {

void rerun_with_passive_openmp() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) {
    return;
  }
  // The arguments as the process got them: NUL-terminated, one after another.
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty()) return;
  std::vector<std::string> args;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\0', start);
    args.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  if (::setenv("OMP_WAIT_POLICY", "PASSIVE", 0) != 0) return;
  ::execv("/proc/self/exe", argv.data());
  // Still here (no /proc): run on with the runtime's default rather than fail.
  ::unsetenv("OMP_WAIT_POLICY");
}

}  // namespace cnnperf
