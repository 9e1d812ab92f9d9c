// SPDX-License-Identifier: Apache-2.0
// Training sets up XGBoost's OpenMP threads itself: libgomp's idle threads wait passively
// unless the user chose a policy, and only a run that trains a booster loads libgomp at all.
// libgomp prints what it runs with under OMP_DISPLAY_ENV=verbose, once, as it is loaded.
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
  // A tiny XGBoost fit (2 rounds on 60 rows): enough to load XGBoost and libgomp.
  const std::string data =
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/layers_neusight.csv.gz";
  const std::string train = "train --data " + data +
                            " --max-rows 60 --regressor xgboost --params '{\"n_estimators\": 2}' "
                            "--folds 2 -o " +
                            (temp_dir() / "openmp_train.txt").string();
  RunResult r = run_with_env(train, nullptr, nullptr);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"0"})) << r.err;  // passive
  // The user's own choice stands.
  r = run_with_env(train, "ACTIVE", nullptr);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"30000000000"})) << r.err;
  r = run_with_env(train, nullptr, "1000");
  EXPECT_EQ(spin_counts(r.err), (std::vector<std::string>{"1000"})) << r.err;
  // Training that fits no booster, and every other command, never load libgomp.
  r = run_with_env("train --data " + (temp_dir() / "missing.csv").string(), nullptr, nullptr);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(spin_counts(r.err).empty()) << r.err;
  r = run_with_env("gpus show a100", nullptr, nullptr);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(spin_counts(r.err).empty()) << r.err;
}

}  // namespace
}  // namespace cnnperf::cli_test
