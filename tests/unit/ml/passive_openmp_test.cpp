// SPDX-License-Identifier: Apache-2.0
// This binary trains XGBoost models: on libgomp's default spin its training tests took five
// times the CPU time on a busy machine (docs/benchmarks.md, "OpenMP threads"), so, as `cnnperf
// train` does, it runs itself again with the passive policy before any test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/openmp_policy.hpp"

namespace cnnperf {
namespace {

const bool kPassiveOpenMp = [] {
  rerun_with_passive_openmp();
  return true;
}();

TEST(OpenMpPolicy, TheTrainingTestsRunWithPassiveThreads) {
  ASSERT_TRUE(kPassiveOpenMp);
  // A policy the user chose stands; else the binary set the passive one.
  if (std::getenv("GOMP_SPINCOUNT") != nullptr) GTEST_SKIP() << "GOMP_SPINCOUNT set by the user";
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  ASSERT_NE(policy, nullptr) << "the binary did not set OMP_WAIT_POLICY";
}

}  // namespace
}  // namespace cnnperf
