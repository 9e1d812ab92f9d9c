// SPDX-License-Identifier: Apache-2.0
// OpenMP's idle threads, set up before the work, for a test binary that links XGBoost (test_ml
// calls it directly; cnnperf itself loads it later, src/ml/xgboost_library.cpp, and needs no
// rerun).
#pragma once

namespace cnnperf {

/// libgomp (loaded with libxgboost) reads OMP_WAIT_POLICY once, as it is loaded. Unset, each of
/// its threads spins for a while (GOMP_SPINCOUNT 300,000) after every parallel region; on a busy
/// machine those spins take the cores from the threads that have work, and XGBoost training,
/// thousands of small parallel regions, runs several times slower (docs/benchmarks.md, "OpenMP
/// threads"). Set now, the variable cannot reach the loaded runtime, so this runs the process
/// again (/proc/self/exe, the arguments of /proc/self/cmdline) with OMP_WAIT_POLICY=PASSIVE.
/// Returns, leaving the process as it is, when the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT
/// (their choice stands), in the process it started, or when there is no /proc.
void rerun_with_passive_openmp();

}  // namespace cnnperf
