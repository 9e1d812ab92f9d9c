// SPDX-License-Identifier: Apache-2.0
// Device tests (tier c): need a real GPU and driver. Registered only with
// -DCNNPERF_ENABLE_DEVICE_TESTS=ON; each test skips with the reason when no GPU is usable.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "cnnperf/common/io.hpp"
#include "cnnperf/profile/profile.hpp"
#include "profile/profile_command.hpp"

namespace cnnperf {
namespace {

class Device : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = make_profiler_backend();
    const Status s = backend_->open(0);
    if (!s.ok()) GTEST_SKIP() << "no usable GPU: " << s.reason;
  }
  std::unique_ptr<ProfilerBackend> backend_;
};

ProfileJob small_conv(const std::string& algo) {
  ProfileJob job;
  job.layer.batch = 8;
  job.layer.c_in = job.layer.c_out = 64;
  job.layer.h_in = job.layer.w_in = 56;
  job.layer.kernel_h = job.layer.kernel_w = 3;
  job.layer.pad_h = job.layer.pad_w = 1;
  job.algo_request = algo;
  job.source = "device-test";
  return job;
}

TEST_F(Device, ReportsItself) {
  const DeviceInfo d = backend_->device();
  EXPECT_FALSE(d.name.empty());
  EXPECT_EQ(d.uuid.rfind("GPU-", 0), 0U);
  EXPECT_GT(d.cc_major, 0);
  EXPECT_GT(d.l2_bytes, 0);
}

TEST_F(Device, HeuristicRankingCarriesMathTypes) {
  Status status;
  const auto choices =
      backend_->heuristic_algos(small_conv("heuristic").layer, Layout::kNchw, status);
  ASSERT_FALSE(choices.empty()) << status.reason;
  for (const AlgoChoice& c : choices) EXPECT_TRUE(c.math) << to_string(c.algo);
}

TEST_F(Device, HeuristicConvIsTimedWithKernelRecords) {
  MeasurePolicy p;
  p.min_time_s = 0.02;
  p.max_time_s = 0.5;
  const auto rows = measure_job(*backend_, small_conv("heuristic"), p);
  ASSERT_EQ(rows.size(), 1U);
  const ProfileRow& r = rows[0];
  ASSERT_TRUE(r.status.ok()) << r.status.reason;
  EXPECT_GT(r.latency_ms, 0.0);
  EXPECT_GE(r.samples, static_cast<std::size_t>(p.min_samples));
  ASSERT_FALSE(r.kernels.empty());
  for (const auto& k : r.kernels) {
    EXPECT_FALSE(k.name.empty());
    EXPECT_GT(k.grid[0], 0);
    EXPECT_GT(k.block[0], 0);
    EXPECT_GT(k.registers_per_thread, 0);
    EXPECT_GT(k.end_ns, k.start_ns);
  }
  EXPECT_EQ(r.dropped_records, 0U);
  // Energy: a reading, or an explicit reason (never a silent zero).
  if (r.energy.status.ok()) {
    EXPECT_GT(r.energy.energy_mj, 0.0);
    EXPECT_GE(r.energy.window_ms, 150.0);
  } else {
    EXPECT_FALSE(r.energy.status.reason.empty());
  }
}

TEST_F(Device, SelfCheckPasses) {
  const SelfCheckResult r = run_self_check(*backend_, MeasurePolicy{});
  std::cout << render_self_check(r, OutputFormat::kTable);
  for (const SelfCheckItem& c : r.checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;
  EXPECT_EQ(r.checks.size(), 7U);
}

TEST_F(Device, EnergyWindowOfASmallLayerIsKernelTime) {
  // A 1x1 fp16 layer of a few microseconds: launched one host call at a time, the GPU idled
  // most of the window; the replayed graph keeps it busy.
  ProfileJob job = small_conv("heuristic");
  job.layer.batch = 32;
  job.layer.kernel_h = job.layer.kernel_w = 1;
  job.layer.pad_h = job.layer.pad_w = 0;
  job.layer.dtype = DType::kFp16;
  MeasurePolicy p;
  p.energy_window_ms = 500;
  const auto rows = measure_job(*backend_, job, p);
  ASSERT_TRUE(rows.at(0).status.ok()) << rows[0].status.reason;
  ASSERT_TRUE(rows[0].energy.status.ok()) << rows[0].energy.status.reason;
  EXPECT_EQ(rows[0].energy_launch_mode, "cuda-graph");
  EXPECT_GE(energy_gpu_busy_pct(rows[0]), kSelfCheckMinBusyPct)
      << rows[0].latency_ms << " ms x " << rows[0].energy_launches << " launches in "
      << rows[0].energy.window_ms << " ms";
}

TEST_F(Device, EveryAlgorithmGivesARow) {
  MeasurePolicy p;
  p.min_time_s = 0.005;
  p.max_time_s = 0.1;
  p.energy_window_ms = 0;
  int passed = 0;
  for (ConvAlgo a : all_conv_algos()) {
    const auto rows = measure_job(*backend_, small_conv(to_string(a)), p);
    ASSERT_EQ(rows.size(), 1U);
    if (rows[0].status.ok()) {
      ++passed;
    } else {
      EXPECT_FALSE(rows[0].status.reason.empty()) << to_string(a);
      EXPECT_NE(rows[0].status.outcome, Outcome::kPassed);
    }
  }
  EXPECT_GE(passed, 1);  // implicit GEMM supports every forward problem
}

TEST_F(Device, RunProfileWritesAFileThatResumes) {
  const auto out = std::filesystem::temp_directory_path() / "cnnperf_device_profile.csv";
  std::filesystem::remove(out);
  backend_.reset();  // run_profile opens its own
  ProfileOptions o;
  o.sweep = {"c_in=32", "c_out=32", "hw=28", "kernel=3", "pad=1", "batch=4"};
  o.policy.min_time_s = 0.005;
  o.policy.max_time_s = 0.1;
  o.output = out.string();
  ASSERT_EQ(run_profile(o), 0);
  const CsvTable t = read_csv(out);
  ASSERT_EQ(t.rows.size(), 1U);
  EXPECT_EQ(t.get(0, "algo_status").value_or(""), "passed");
  o.resume = true;
  ASSERT_EQ(run_profile(o), 0);
  EXPECT_EQ(read_csv(out).rows.size(), 1U);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace cnnperf
