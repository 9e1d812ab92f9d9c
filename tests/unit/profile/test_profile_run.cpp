// SPDX-License-Identifier: Apache-2.0
// The measurement loop and `profile` end to end against a scripted back end (synthetic
// timings, see fake_backend.hpp), plus the real back end of this build on this machine,
// which has no GPU: exit 1 with "no usable GPU: ..." and no file.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/profile/profile.hpp"
#include "fake_backend.hpp"
#include "profile/profile_command.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

ProfileJob conv_job(std::size_t id, const std::string& algo = "heuristic") {
  ProfileJob job;
  job.id = id;
  job.layer.c_in = 64;
  job.layer.c_out = 64;
  job.layer.h_in = job.layer.w_in = 28;
  job.layer.kernel_h = job.layer.kernel_w = 3;
  job.layer.pad_h = job.layer.pad_w = 1;
  job.algo_request = algo;
  job.source = "synthetic";
  return job;
}

MeasurePolicy fast_policy() {
  MeasurePolicy p;
  p.warmup = 3;
  p.min_samples = 5;
  p.max_noise_pct = 1.0;
  p.min_time_s = 0.001;  // of synthetic GPU time
  p.max_time_s = 0.05;
  return p;
}

fs::path temp_path(const std::string& name) {
  const auto path = fs::temp_directory_path() / ("cnnperf_test_" + name);
  fs::remove(path);
  return path;
}

std::string column(const CsvTable& t, std::size_t row, const std::string& name) {
  return t.get(row, name).value_or("");
}

TEST(MeasureJob, QuietKernelsConvergeAtMinSamples) {
  test::FakeBackend backend;
  backend.meter.status = {};
  MeasurePolicy p = fast_policy();
  p.min_time_s = 0.0008;  // 5 launches of 0.1 ms are below it, 10 above
  const auto rows = measure_job(backend, conv_job(2), p);
  ASSERT_EQ(rows.size(), 1U);
  const ProfileRow& r = rows[0];
  EXPECT_TRUE(r.status.ok()) << r.status.reason;
  EXPECT_EQ(r.algo, ConvAlgo::kImplicitPrecompGemm);  // the heuristic's choice
  EXPECT_EQ(r.samples, 10U);  // min_samples 5, then min_time needs the next batch
  EXPECT_EQ(r.stop_reason, "converged");
  EXPECT_NEAR(r.latency_ms, 0.1, 1e-9);  // sum of both kernels of a launch
  EXPECT_NEAR(r.noise_pct, 0.0, 1e-9);
  ASSERT_EQ(r.kernels.size(), 2U);
  EXPECT_EQ(r.kernels[0].name, "synthetic_transform");
  EXPECT_EQ(backend.traced, 10);
  // Warm-up + traced samples + the energy window (1000 ms / 0.1 ms = 10000 launches).
  EXPECT_EQ(r.energy_launches, 10000);
  EXPECT_EQ(backend.launches, 3 + 10 + 10000);
  EXPECT_EQ(backend.meter.windows, 1);
}

TEST(MeasureJob, NoisyKernelsRunUntilMaxTime) {
  test::FakeBackend backend;
  backend.latency_ns = [](std::uint32_t s) { return s % 2 ? 100000 : 300000; };
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  const ProfileRow& r = rows[0];
  ASSERT_TRUE(r.status.ok()) << r.status.reason;
  EXPECT_EQ(r.stop_reason, "max-time");
  EXPECT_GT(r.noise_pct, 40.0);
  EXPECT_GE(r.samples * 0.2, 50.0 * 0.9);  // ~50 ms of synthetic kernel time
}

TEST(MeasureJob, FlushL2BeforeEverySample) {
  test::FakeBackend backend;
  MeasurePolicy p = fast_policy();
  p.flush_l2 = true;
  const auto rows = measure_job(backend, conv_job(0), p);
  EXPECT_EQ(static_cast<std::size_t>(backend.l2_flushes), rows[0].samples);
}

TEST(MeasureJob, RefusedAlgorithmIsARowWithItsReason) {
  test::FakeBackend backend;
  backend.refuse[ConvAlgo::kFft] = {
      Outcome::kNotSupported,
      "cudnnGetConvolutionForwardWorkspaceSize: CUDNN_STATUS_NOT_SUPPORTED"};
  const auto rows = measure_job(backend, conv_job(0, "fft"), fast_policy());
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].status.outcome, Outcome::kNotSupported);
  EXPECT_NE(rows[0].status.reason.find("NOT_SUPPORTED"), std::string::npos);
  EXPECT_EQ(backend.launches, 0);
}

TEST(MeasureJob, HeuristicChoiceKeepsItsMathType) {
  test::FakeBackend backend;
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  ASSERT_TRUE(rows[0].status.ok()) << rows[0].status.reason;
  ASSERT_EQ(backend.prepared.size(), 1U);
  EXPECT_EQ(backend.prepared[0].algo, ConvAlgo::kImplicitPrecompGemm);
  EXPECT_EQ(backend.prepared[0].math, MathType::kTensorOp);
  // A named algorithm runs with the layer's default math.
  test::FakeBackend named;
  (void)measure_job(named, conv_job(0, "gemm"), fast_policy());
  ASSERT_EQ(named.prepared.size(), 1U);
  EXPECT_FALSE(named.prepared[0].math);
}

TEST(MeasureJob, RefusedHeuristicChoiceFallsBackToTheNext) {
  test::FakeBackend backend;
  backend.refuse[ConvAlgo::kImplicitPrecompGemm] = {Outcome::kNotSupported,
                                                    "CUDNN_STATUS_NOT_SUPPORTED_SHAPE"};
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  ASSERT_TRUE(rows[0].status.ok()) << rows[0].status.reason;
  EXPECT_EQ(rows[0].algo, ConvAlgo::kGemm);
  ASSERT_EQ(backend.prepared.size(), 2U);
  EXPECT_EQ(backend.prepared[1].math, MathType::kDefault);
  // Every choice refused: the row keeps the first choice and its reason.
  test::FakeBackend all_refused;
  all_refused.refuse[ConvAlgo::kImplicitPrecompGemm] = {Outcome::kNotSupported, "first"};
  all_refused.refuse[ConvAlgo::kGemm] = {Outcome::kFailed, "second"};
  const auto refused = measure_job(all_refused, conv_job(0), fast_policy());
  EXPECT_EQ(refused[0].algo, ConvAlgo::kImplicitPrecompGemm);
  EXPECT_EQ(refused[0].status.outcome, Outcome::kNotSupported);
  EXPECT_EQ(refused[0].status.reason, "first");
}

TEST(MeasureJob, NoKernelRecordsFailsTheRow) {
  test::FakeBackend backend;
  backend.drop_all = true;
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  EXPECT_EQ(rows[0].status.outcome, Outcome::kFailed);
  EXPECT_NE(rows[0].status.reason.find("dropped records: 7"), std::string::npos);
}

TEST(MeasureJob, UntimedKernelsAreMissingSamplesNotZeroTime) {
  test::FakeBackend backend;
  backend.untimed = [](std::uint32_t s) { return s % 3 == 1; };
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  const ProfileRow& r = rows[0];
  ASSERT_TRUE(r.status.ok()) << r.status.reason;
  // Every timed launch takes 0.1 ms; a 0/0 main kernel would drag the minimum to 0.01 ms.
  EXPECT_NEAR(r.latency_min_ms, 0.1, 1e-9);
  EXPECT_NEAR(r.noise_pct, 0.0, 1e-9);
  const std::size_t untimed = (static_cast<std::size_t>(backend.traced) + 1) / 3;
  EXPECT_EQ(r.samples, static_cast<std::size_t>(backend.traced) - untimed);
  EXPECT_NE(r.stop_reason.find(std::to_string(untimed) + " launches without timed kernel"),
            std::string::npos)
      << r.stop_reason;
  EXPECT_EQ(r.missing_launches, untimed);
}

TEST(MeasureJob, OnlyUntimedKernelsFailTheRow) {
  test::FakeBackend backend;
  backend.untimed = [](std::uint32_t) { return true; };
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  EXPECT_EQ(rows[0].status.outcome, Outcome::kFailed);
  EXPECT_NE(rows[0].status.reason.find("no timed kernel record"), std::string::npos)
      << rows[0].status.reason;
}

TEST(MeasureJob, ARunnerThrowingInTheEnergyWindowClosesIt) {
  test::FakeBackend backend;
  backend.meter.status = {};
  backend.fail_energy_window = true;
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  EXPECT_EQ(rows[0].status.outcome, Outcome::kFailed);
  EXPECT_NE(rows[0].status.reason.find("energy window"), std::string::npos);
  EXPECT_EQ(backend.meter.windows, 1);
  EXPECT_EQ(backend.meter.open_windows, 0);
}

TEST(MeasureJob, OverlappingKernelsAreNotCountedTwice) {
  test::FakeBackend backend;
  backend.overlap_ns = 5000;  // of the 10 us transform
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  ASSERT_TRUE(rows[0].status.ok()) << rows[0].status.reason;
  EXPECT_NEAR(rows[0].latency_ms, 0.1, 1e-9);  // not 0.105
}

TEST(MeasureJob, ALostDeviceStopsTheRunInsteadOfFailingEveryLaterRow) {
  test::FakeBackend backend;
  backend.lose_device = true;
  EXPECT_THROW((void)measure_job(backend, conv_job(0), fast_policy()), DeviceLost);
}

TEST(MeasureJob, EnergyUnavailableIsSaidNotZeroed) {
  test::FakeBackend backend;
  backend.meter.status = {Outcome::kNotRun, "libnvidia-ml.so.1 not found"};
  const auto rows = measure_job(backend, conv_job(0), fast_policy());
  ASSERT_TRUE(rows[0].status.ok());
  const auto fields = profile_row_fields(rows[0], backend.device(), fast_policy());
  const auto& cols = profile_columns();
  auto at = [&](const std::string& name) {
    return fields[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) -
                                           cols.begin())];
  };
  EXPECT_EQ(at("energy_mj"), "");
  EXPECT_EQ(at("avg_power_w"), "");
  EXPECT_EQ(at("energy_method"), "not available: libnvidia-ml.so.1 not found");
  EXPECT_EQ(backend.meter.windows, 0);
}

TEST(RowSchema, CanonicalColumnsFirstAndProvenance) {
  const auto& cols = profile_columns();
  const std::vector<std::string> head{"op", "batch", "c_in", "h_in", "w_in", "c_out", "kernel_h"};
  EXPECT_TRUE(std::equal(head.begin(), head.end(), cols.begin()));
  const auto pos = [&](const std::string& n) {
    return std::find(cols.begin(), cols.end(), n) - cols.begin();
  };
  EXPECT_EQ(pos("latency_ms"), pos("pass") + 1);
  EXPECT_EQ(pos("energy_mj"), pos("latency_ms") + 1);
  EXPECT_EQ(pos("timing_method"), pos("latency_ms") + 7);
  for (const char* c : {"algo", "algo_status", "algo_reason", "kernel_sequence", "gpu_uuid",
                        "sm_clock_mhz", "samples", "noise_pct", "schema_version"}) {
    EXPECT_LT(static_cast<std::size_t>(pos(c)), cols.size()) << c;
  }
}

TEST(RunProfile, WritesRowsResumesAndSkipsMeasuredOnes) {
  const fs::path out = temp_path("rows.csv");
  ProfileOptions o;
  o.sweep = {"c_in=32,64", "c_out=32", "hw=14", "kernel=3", "pad=1"};
  o.algo = "implicit_gemm,fft";
  o.policy = fast_policy();
  o.output = out.string();
  test::FakeBackend backend;
  backend.meter.status = {};
  backend.refuse[ConvAlgo::kFft] = {Outcome::kNotSupported, "synthetic refusal"};
  ASSERT_EQ(run_profile(o, backend), 0);
  CsvTable t = read_csv(out);
  ASSERT_EQ(t.rows.size(), 4U);
  EXPECT_EQ(t.header, profile_columns());
  EXPECT_EQ(column(t, 0, "algo"), "implicit_gemm");
  EXPECT_EQ(column(t, 0, "algo_status"), "passed");
  EXPECT_EQ(column(t, 0, "source"), "cnnperf-profile");
  EXPECT_EQ(column(t, 0, "kernel_sequence"), "synthetic_transform;synthetic_main");
  EXPECT_EQ(column(t, 0, "main_kernel"), "synthetic_main");
  EXPECT_EQ(column(t, 0, "grid_x"), "4");
  EXPECT_EQ(column(t, 0, "registers_per_thread"), "96");
  EXPECT_EQ(column(t, 0, "latency_ms"), "0.1");
  EXPECT_EQ(column(t, 0, "energy_mj"), "0.05");  // 500 mJ over 10000 launches
  EXPECT_EQ(column(t, 0, "avg_power_w"), "2");   // 500 mJ / 250 ms
  EXPECT_EQ(column(t, 0, "energy_method"), "nvml-total-energy-counter");
  EXPECT_EQ(column(t, 0, "energy_counter_updates"), "3");
  EXPECT_EQ(column(t, 0, "energy_launch_mode"), "cuda-graph");
  EXPECT_EQ(column(t, 0, "energy_gpu_busy_pct"), "400");  // 1000 ms of kernels in a 250 ms window
  EXPECT_EQ(column(t, 0, "missing_launches"), "0");
  EXPECT_EQ(column(t, 0, "library_versions"),
            "cuda-13.0;cudnn-9.19.0;cupti-130001;cuda-driver-13.0");
  EXPECT_EQ(column(t, 1, "algo"), "fft");
  EXPECT_EQ(column(t, 1, "algo_status"), "not_supported");
  EXPECT_EQ(column(t, 1, "algo_reason"), "synthetic refusal");
  EXPECT_EQ(column(t, 1, "latency_ms"), "");

  // Resume: nothing left to do, no launch, same rows.
  test::FakeBackend again;
  o.resume = true;
  ASSERT_EQ(run_profile(o, again), 0);
  EXPECT_EQ(again.launches, 0);
  EXPECT_EQ(read_csv(out).rows.size(), 4U);

  // Resume after a sweep grew: only the new layers run.
  o.sweep[0] = "c_in=32,64,128";
  test::FakeBackend third;
  third.refuse[ConvAlgo::kFft] = {Outcome::kNotSupported, "synthetic refusal"};
  ASSERT_EQ(run_profile(o, third), 0);
  t = read_csv(out);
  ASSERT_EQ(t.rows.size(), 6U);
  EXPECT_EQ(column(t, 4, "c_in"), "128");
  EXPECT_GT(third.launches, 0);

  // Another GPU cannot continue this file.
  fs::path other = out;
  std::string text = read_text_file(out);
  const std::string uuid = "GPU-00000000-0000-0000-0000-000000000000";
  for (std::size_t p = text.find(uuid); p != std::string::npos; p = text.find(uuid, p + 1)) {
    text.replace(p, uuid.size(), "GPU-11111111-0000-0000-0000-000000000000");
  }
  std::ofstream(out) << text;
  test::FakeBackend fourth;
  EXPECT_THROW(run_profile(o, fourth), InputError);
  fs::remove(out);
}

TEST(RunProfile, NoUsableGpuThrowsBeforeWritingAnything) {
  const fs::path out = temp_path("nogpu.csv");
  ProfileOptions o;
  o.sweep = {"c_in=8", "c_out=8", "hw=8"};
  o.output = out.string();
  test::FakeBackend backend;
  backend.open_status = {Outcome::kNotRun, "cudaErrorInsufficientDriver: synthetic"};
  try {
    run_profile(o, backend);
    FAIL() << "expected an Error";
  } catch (const InputError&) {
    FAIL() << "must be exit 1, not 2";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "no usable GPU: cudaErrorInsufficientDriver: synthetic");
  }
  EXPECT_FALSE(fs::exists(out));
}

// The back end this build really has, on this machine (no GPU, no driver).
TEST(RunProfile, RealBackendOnThisMachine) {
  auto backend = make_profiler_backend();
  const Status opened = backend->open(0);
  if (opened.ok()) GTEST_SKIP() << "a GPU is present; this test covers machines without one";
#if CNNPERF_HAVE_CUDA
  EXPECT_NE(opened.reason.find("cuda"), std::string::npos) << opened.reason;
  // Without a driver cudart says its version is insufficient; the reason says what is missing.
  if (void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); libcuda == nullptr) {
    EXPECT_EQ(opened.reason.rfind("no NVIDIA driver found", 0), 0U) << opened.reason;
  } else {
    dlclose(libcuda);
  }
#else
  EXPECT_EQ(opened.reason.rfind("built without CUDA", 0), 0U) << opened.reason;
#endif
  const fs::path out = temp_path("real.csv");
  ProfileOptions o;
  o.sweep = {"c_in=8", "c_out=8", "hw=8"};
  o.output = out.string();
  try {
    run_profile(o);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no usable GPU: ", 0), 0U) << e.what();
    EXPECT_EQ(dynamic_cast<const InputError*>(&e), nullptr);  // a runtime failure, not bad input
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(DryRun, ListsEveryJobWithEstimate) {
  ProfileOptions o;
  o.sweep = {"c_in=16,32", "c_out=16", "hw=14", "kernel=3", "pad=1"};
  o.algo = "all";
  const auto jobs = plan_jobs(o);
  ASSERT_EQ(jobs.size(), 16U);
  const std::string table = render_dry_run(jobs, o);
  EXPECT_NE(table.find("winograd_nonfused"), std::string::npos);
  EXPECT_NE(table.find("16 jobs (16 runnable), estimated profiling time"), std::string::npos);
  o.format = "json";
  const std::string json = render_dry_run(jobs, o);
  EXPECT_NE(json.find("\"estimate_high_s\""), std::string::npos);
  EXPECT_NE(json.find("\"dry_run\": true"), std::string::npos);
}

// The binary: --dry-run works without a GPU and says it does not write -o; `profile` exits 1
// here and leaves no file.
TEST(Cli, ProfileWithoutGpuAndDryRun) {
  const fs::path out = temp_path("cli.csv");
  const fs::path err = temp_path("cli.err");
  const std::string bin = CNNPERF_BINARY;
  const fs::path plan = temp_path("plan.txt");
  int rc = std::system((bin + " profile --net resnet50 --dry-run -o " + out.string() + " > " +
                        plan.string() + " 2> " + err.string())
                           .c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  EXPECT_FALSE(fs::exists(out));  // a plan is never written as a dataset
  EXPECT_NE(read_text_file(err).find("--dry-run: the plan goes to stdout; " + out.string() +
                                     " is not written"),
            std::string::npos)
      << read_text_file(err);
  const std::string text = read_text_file(plan);
  EXPECT_NE(text.find("resnet50:conv1"), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(text.find("estimated profiling time"), std::string::npos);
  fs::remove(plan);

  rc = std::system(
      (bin + " profile --sweep c_in=8 --sweep hw=8 -o " + out.string() + " 2> " + err.string())
          .c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  auto backend = make_profiler_backend();
  if (backend->open(0).ok()) GTEST_SKIP() << "a GPU is present";
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_NE(read_text_file(err).find("no usable GPU: "), std::string::npos) << read_text_file(err);
  fs::remove(err);
}

}  // namespace
}  // namespace cnnperf
