// SPDX-License-Identifier: Apache-2.0
// `train` sets up its OpenMP threads itself: libgomp's idle threads wait passively unless the
// user chose a policy. libgomp prints what it runs with under OMP_DISPLAY_ENV=verbose, once
// per process image (a re-executed process prints it again).
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace cnnperf::cli_test {
namespace {

// The GOMP_SPINCOUNT values libgomp printed, in order.
std::vector<std::string> spin_counts(const std::string& err) {
  std::vector<std::string> counts;
  const std::string key = "GOMP_SPINCOUNT = '";
  for (auto at = err.find(key); at != std::string::npos; at = err.find(key, at + 1)) {
    const auto begin = at + key.size();
    counts.push_back(err.substr(begin, err.find('\'', begin) - begin));
  }
  return counts;
}

// Runs `cnnperf ARGS` with the variables given set (and the two policy ones otherwise unset).
RunResult run_with_env(const std::string& args, const char* policy, const char* spin) {
  ::setenv("OMP_DISPLAY_ENV", "verbose", 1);
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  if (policy != nullptr) ::setenv("OMP_WAIT_POLICY", policy, 1);
  if (spin != nullptr) ::setenv("GOMP_SPINCOUNT", spin, 1);
  RunResult r = run_cnnperf(args);
  ::unsetenv("OMP_DISPLAY_ENV");
  ::unsetenv("OMP_WAIT_POLICY");
  ::unsetenv("GOMP_SPINCOUNT");
  return r;
}

TEST(OpenMpPolicy, TrainRunsWithPassiveThreadsUnlessTheUserChose) {
  // Stops at its input (exit 2) after the threads are set up: enough to see the policy.
  const std::string train = "train --data " + (temp_dir() / "missing.csv").string();
  RunResult r = run_with_env(train, nullptr, nullptr);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // libgomp's default spin (300000) as loaded, then none in the process that does the work.
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"300000", "0"})) << r.err;
  // The user's own choice stands: one process image, their setting.
  r = run_with_env(train, "ACTIVE", nullptr);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"30000000000"})) << r.err;
  r = run_with_env(train, nullptr, "1000");
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"1000"})) << r.err;
  // Other commands run as they are (start-up time matters to predict).
  r = run_with_env("gpus show a100", nullptr, nullptr);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"300000"})) << r.err;
}

}  // namespace
}  // namespace cnnperf::cli_test
