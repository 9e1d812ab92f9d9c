// SPDX-License-Identifier: Apache-2.0
// Measurement policy as plain code: statistics, the stopping rule, batch sizing, NVML window.
// All sample values here are synthetic inputs to the rule, not measurements.
#include <gtest/gtest.h>

#include <cmath>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

MeasurePolicy policy(int min_samples, double max_noise, double min_time_s, double max_time_s) {
  MeasurePolicy p;
  p.min_samples = min_samples;
  p.max_noise_pct = max_noise;
  p.min_time_s = min_time_s;
  p.max_time_s = max_time_s;
  return p;
}

TEST(SampleSeries, Statistics) {
  SampleSeries s(policy(1, 1, 0, 1));
  for (double v : {1.0, 2.0, 3.0, 4.0}) s.add(v);
  EXPECT_DOUBLE_EQ(s.mean_ms(), 2.5);
  EXPECT_DOUBLE_EQ(s.median_ms(), 2.5);
  EXPECT_DOUBLE_EQ(s.min_ms(), 1.0);
  EXPECT_NEAR(s.stdev_ms(), std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(s.noise_pct(), 100.0 * std::sqrt(5.0 / 3.0) / 2.5, 1e-9);
  s.add(100.0);
  EXPECT_DOUBLE_EQ(s.median_ms(), 3.0);
}

TEST(SampleSeries, NoiseIsInfiniteBelowTwoSamples) {
  SampleSeries s(policy(1, 1, 0, 1));
  EXPECT_TRUE(std::isinf(s.noise_pct()));
  s.add(1.0);
  EXPECT_TRUE(std::isinf(s.noise_pct()));
}

TEST(SampleSeries, WaitsForMinSamplesEvenWhenQuiet) {
  SampleSeries s(policy(5, 50, 0, 100));
  for (int i = 0; i < 4; ++i) {
    s.add(1.0);
    EXPECT_EQ(s.stop_reason(), "") << i;
  }
  s.add(1.0);
  EXPECT_EQ(s.stop_reason(), "converged");
}

TEST(SampleSeries, WaitsForMinTime) {
  SampleSeries s(policy(2, 50, 0.010, 100));  // 10 ms of GPU time
  for (int i = 0; i < 9; ++i) s.add(1.0);
  EXPECT_EQ(s.stop_reason(), "");
  s.add(1.0);
  EXPECT_EQ(s.stop_reason(), "converged");
}

TEST(SampleSeries, KeepsSamplingWhileNoisyThenStopsAtMaxTime) {
  SampleSeries s(policy(2, 1.0, 0, 0.020));  // 1 % noise bound, 20 ms cap
  s.add(1.0);
  s.add(2.0);  // ~47 % noise
  EXPECT_EQ(s.stop_reason(), "");
  for (int i = 0; i < 16; ++i) s.add(i % 2 ? 1.0 : 2.0);
  EXPECT_GE(s.total_ms(), 20.0);
  EXPECT_EQ(s.stop_reason(), "max-time");
}

TEST(SampleSeries, NoiseFallsBelowBoundAndStops) {
  SampleSeries s(policy(3, 1.0, 0, 100));
  s.add(1.0);
  s.add(1.2);
  s.add(0.8);
  EXPECT_EQ(s.stop_reason(), "");  // 20 % noise
  int added = 0;
  while (s.stop_reason().empty() && added < 10000) {
    s.add(1.0);
    ++added;
  }
  EXPECT_EQ(s.stop_reason(), "converged");
  EXPECT_LE(s.noise_pct(), 1.0);
  EXPECT_GT(added, 100);  // a 0.2 ms spread needs many quiet samples to dilute below 1 %
}

TEST(SampleSeries, MaxSamplesCaps) {
  MeasurePolicy p = policy(1, 0.0, 0, 1000);
  p.max_samples = 3;
  SampleSeries s(p);
  s.add(1.0);
  s.add(2.0);
  EXPECT_EQ(s.stop_reason(), "");
  s.add(3.0);
  EXPECT_EQ(s.stop_reason(), "max-samples");
}

TEST(NextBatchSize, FillsMinSamplesThenDoubles) {
  MeasurePolicy p = policy(10, 1, 0, 10);
  SampleSeries s(p);
  EXPECT_EQ(next_batch_size(s, p, 0.0), 10);
  for (int i = 0; i < 10; ++i) s.add(0.1);
  EXPECT_EQ(next_batch_size(s, p, 0.1), 10);
  for (int i = 0; i < 10; ++i) s.add(0.1);
  EXPECT_EQ(next_batch_size(s, p, 0.1), 20);
}

TEST(NextBatchSize, BoundedByRemainingTimeAndMaxSamples) {
  MeasurePolicy p = policy(1, 1, 0, 0.005);  // 5 ms cap
  SampleSeries s(p);
  for (int i = 0; i < 100; ++i) s.add(0.01);    // 1 ms so far
  EXPECT_EQ(next_batch_size(s, p, 0.01), 100);  // doubling (100) < 400 launches left
  MeasurePolicy q = policy(1, 1, 0, 1000);
  q.max_samples = 120;
  EXPECT_EQ(next_batch_size(s, q, 0.01), 20);
  q.max_samples = 100;
  EXPECT_EQ(next_batch_size(s, q, 0.01), 0);
}

TEST(EnergyWindow, LaunchesCoverTheWindow) {
  EXPECT_EQ(energy_window_launches(200, 1.0), 200);
  EXPECT_EQ(energy_window_launches(200, 0.3), 667);
  EXPECT_EQ(energy_window_launches(200, 500), 1);
  EXPECT_EQ(energy_window_launches(200, 0), 1);
  EXPECT_EQ(energy_window_launches(0, 1.0), 0);
}

TEST(DryRunEstimate, BoundsFollowThePolicy) {
  ProfileJob job;
  MeasurePolicy p;  // defaults: min 0.1 s, max 2 s, window 0.2 s
  const TimeEstimate t = estimate_job_time(job, p);
  EXPECT_GT(t.low_s, p.min_time_s + p.energy_window_ms / 1000);
  EXPECT_GT(t.high_s, p.max_time_s + p.energy_window_ms / 1000);
  EXPECT_LT(t.low_s, t.high_s);
  job.precheck = {Outcome::kInvalidProblem, "synthetic"};
  EXPECT_EQ(estimate_job_time(job, p).high_s, 0.0);  // nothing runs for such a job
}

}  // namespace
}  // namespace cnnperf
