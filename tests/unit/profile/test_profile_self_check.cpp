// SPDX-License-Identifier: Apache-2.0
// `profile --self-check` against the scripted back end (synthetic timings and energy, see
// fake_backend.hpp): each way a GPU's measurements can go wrong fails its own check.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cnnperf/common/io.hpp"
#include "cnnperf/profile/profile.hpp"
#include "fake_backend.hpp"
#include "profile/profile_command.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

MeasurePolicy fast_policy() {
  MeasurePolicy p;
  p.warmup = 3;
  p.min_samples = 5;
  p.min_time_s = 0.001;  // of synthetic GPU time
  p.max_time_s = 0.05;
  return p;
}

/// A back end whose 0.1 ms launches fill the 1 s self-check window 95 % of its wall time.
test::FakeBackend healthy() {
  test::FakeBackend backend;
  backend.meter.window_ms = 1000.0 / 0.95;
  backend.meter.counter_updates = 10;
  return backend;
}

const SelfCheckItem& item(const SelfCheckResult& r, const std::string& name) {
  for (const SelfCheckItem& c : r.checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no check " + name);
}

TEST(SelfCheck, AHealthyGpuPassesEveryCheck) {
  test::FakeBackend backend = healthy();
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.checks.size(), 7U);
  for (const SelfCheckItem& c : r.checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;
  // The window is raised to 1 s: 10,000 launches of 0.1 ms.
  EXPECT_EQ(r.policy.energy_window_ms, kSelfCheckEnergyWindowMs);
  EXPECT_EQ(r.row.energy_launches, 10000);
  EXPECT_EQ(r.row.job.layer.c_in, 64);
  EXPECT_EQ(r.row.job.layer.batch, 32);
  EXPECT_NE(item(r, "energy_window_busy").detail.find("95 %"), std::string::npos)
      << item(r, "energy_window_busy").detail;
}

TEST(SelfCheck, NoKernelRecordFailsMeasuredAndStopsThere) {
  test::FakeBackend backend = healthy();
  backend.drop_all = true;
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.checks.size(), 1U);
  EXPECT_EQ(r.checks[0].name, "measured");
  EXPECT_NE(r.checks[0].detail.find("CUPTI delivered no timed kernel record"), std::string::npos)
      << r.checks[0].detail;
}

TEST(SelfCheck, UnattributedLaunchesFailAttribution) {
  test::FakeBackend backend = healthy();
  backend.untimed = [](std::uint32_t s) { return s % 4 == 2; };
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_FALSE(r.passed());
  EXPECT_FALSE(item(r, "attribution").passed);
  EXPECT_NE(item(r, "attribution").detail.find("had no timed kernel record"), std::string::npos);
  EXPECT_TRUE(item(r, "kernel_records").passed);
}

TEST(SelfCheck, OneCounterUpdateFailsEnergy) {
  test::FakeBackend backend = healthy();
  backend.meter.counter_updates = 1;
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_FALSE(r.passed());
  EXPECT_FALSE(item(r, "energy").passed);
  EXPECT_NE(item(r, "energy").detail.find("fewer than 2"), std::string::npos);
}

TEST(SelfCheck, AnIdleWindowFailsBusy) {
  test::FakeBackend backend = healthy();
  backend.meter.window_ms = 4000;  // 1 s of kernels in 4 s: host-bound launches
  backend.launch_mode = "stream";
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_FALSE(r.passed());
  const SelfCheckItem& busy = item(r, "energy_window_busy");
  EXPECT_FALSE(busy.passed);
  EXPECT_NE(busy.detail.find("25 %"), std::string::npos) << busy.detail;
  EXPECT_NE(busy.detail.find("idle gaps"), std::string::npos) << busy.detail;
  EXPECT_NE(busy.detail.find("(stream)"), std::string::npos) << busy.detail;
}

TEST(SelfCheck, NoEnergyReadingFailsWithItsReason) {
  test::FakeBackend backend = healthy();
  backend.meter.status = {Outcome::kNotRun, "libnvidia-ml.so.1 not found"};
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(item(r, "energy").detail, "no energy reading: libnvidia-ml.so.1 not found");
}

TEST(SelfCheck, NoisyTimingFailsRepeatability) {
  test::FakeBackend backend = healthy();
  backend.latency_ns = [](std::uint32_t s) -> std::uint64_t { return s % 2 ? 100000 : 150000; };
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  EXPECT_FALSE(item(r, "repeatability").passed);
  EXPECT_NE(item(r, "repeatability").detail.find("max-time"), std::string::npos)
      << item(r, "repeatability").detail;
}

TEST(SelfCheck, RendersTableAndJson) {
  test::FakeBackend backend = healthy();
  backend.meter.counter_updates = 1;
  const SelfCheckResult r = run_self_check(backend, fast_policy());
  const std::string table = render_self_check(r, OutputFormat::kTable);
  EXPECT_NE(table.find("Fake GPU (synthetic)"), std::string::npos);
  EXPECT_NE(table.find("FAIL"), std::string::npos);
  EXPECT_NE(table.find("verdict: FAIL, 1 of 7 checks failed"), std::string::npos) << table;
  const auto doc = nlohmann::json::parse(render_self_check(r, OutputFormat::kJson));
  EXPECT_EQ(doc.at("kind"), kSelfCheckKind);
  EXPECT_EQ(doc.at("passed"), false);
  EXPECT_EQ(doc.at("checks").size(), 7U);
  EXPECT_EQ(doc.at("row").at("energy_counter_updates"), "1");
  EXPECT_EQ(doc.at("row").at("energy_launch_mode"), "cuda-graph");
  EXPECT_EQ(doc.at("row").at("energy_gpu_busy_pct"), "95");
}

TEST(SelfCheck, CommandExitsOneOnAFailedCheckAndRefusesOtherSources) {
  const fs::path out = fs::temp_directory_path() / "cnnperf_test_self_check.json";
  fs::remove(out);
  ProfileOptions o;
  o.self_check = true;
  o.policy = fast_policy();
  o.format = "json";
  o.output = out.string();
  test::FakeBackend good = healthy();
  EXPECT_EQ(run_profile(o, good), 0);
  EXPECT_TRUE(nlohmann::json::parse(read_text_file(out)).at("passed").get<bool>());
  test::FakeBackend bad = healthy();
  bad.meter.counter_updates = 0;
  EXPECT_EQ(run_profile(o, bad), 1);
  EXPECT_FALSE(nlohmann::json::parse(read_text_file(out)).at("passed").get<bool>());
  o.net = "resnet50";
  test::FakeBackend third = healthy();
  EXPECT_THROW((void)run_profile(o, third), InputError);
  fs::remove(out);
}

}  // namespace
}  // namespace cnnperf
