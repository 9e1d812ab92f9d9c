// SPDX-License-Identifier: Apache-2.0
// The Chrome trace of a predicted step: its structure, that its times add up to the
// prediction's, escaping, and refusing a prediction whose terms do not add up. On the zoo's
// ResNet-18 and a synthetic GPU (synthetic_gpu.hpp: not a real GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/trace.hpp"
#include "synthetic_gpu.hpp"

namespace cnnperf {
namespace {

using test::synthetic_gpu;

NetworkPrediction resnet18(const EagerOverhead& overhead, Runtime runtime = Runtime::kPytorch,
                           Mode mode = Mode::kInference) {
  NetworkOptions options;
  options.batch = 8;
  const AnalyticalModel model(AnalyticalParams{}, overhead);
  return predict_network(build_zoo_network("resnet18", options), synthetic_gpu(), model, mode,
                         PowerModel{}, runtime);
}

// The X events of one track, by (pid, tid), sorted by start.
using Track = std::vector<nlohmann::json>;
std::map<std::pair<int, int>, Track> tracks_of(const nlohmann::json& trace) {
  std::map<std::pair<int, int>, Track> out;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X") out[{e.at("pid").get<int>(), e.at("tid").get<int>()}].push_back(e);
  }
  for (auto& [key, events] : out) {
    std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
      return a.at("ts").template get<double>() < b.at("ts").template get<double>();
    });
  }
  return out;
}

double sum_ms(const Track& track) {
  double us = 0;
  for (const auto& e : track) us += e.at("dur").get<double>();
  return us / 1000.0;
}

// Every event of every track within [0, latency] (us), and none overlapping the next one on
// its track but for the step thread, whose terms nest inside the step event.
void expect_tracks_inside_step(const nlohmann::json& trace, double latency_ms) {
  for (const auto& [key, events] : tracks_of(trace)) {
    for (std::size_t i = 0; i < events.size(); ++i) {
      const double ts = events[i].at("ts").get<double>();
      const double end = ts + events[i].at("dur").get<double>();
      EXPECT_GE(ts, -1e-9) << events[i].dump();
      EXPECT_LE(end, latency_ms * 1000.0 * (1 + 1e-12)) << events[i].dump();
      if (key == std::pair{kTraceHostPid, kTraceStepTid} || i + 1 == events.size()) continue;
      EXPECT_LE(end, events[i + 1].at("ts").get<double>() * (1 + 1e-12) + 1e-9)
          << events[i].dump() << " overlaps " << events[i + 1].dump();
    }
  }
}

TEST(PredictionTrace, IsATraceEventObjectWithNamedTracksAndOtherData) {
  const NetworkPrediction r = resnet18(EagerOverhead{});
  const nlohmann::json trace = to_trace_json(r);
  EXPECT_EQ(trace.at("displayTimeUnit"), "ms");
  const auto& other = trace.at("otherData");
  EXPECT_EQ(other.at("kind"), "prediction_trace");
  EXPECT_EQ(other.at("schema_version"), kTraceSchemaVersion);
  EXPECT_EQ(other.at("gpu"), "synthetic");
  EXPECT_EQ(other.at("network"), "resnet18");
  EXPECT_EQ(other.at("runtime"), "pytorch");
  EXPECT_EQ(other.at("batch"), 8);
  EXPECT_EQ(other.at("precision"), "fp32");
  EXPECT_EQ(other.at("model"), "analytical");
  EXPECT_FALSE(other.at("tool_version").get<std::string>().empty());
  // Every X event's process and thread is named by a metadata event.
  std::set<int> processes;
  std::set<std::pair<int, int>> threads;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "M") continue;
    if (e.at("name") == "process_name") processes.insert(e.at("pid").get<int>());
    if (e.at("name") == "thread_name") {
      threads.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
    }
    EXPECT_FALSE(e.at("args").at("name").get<std::string>().empty());
  }
  int kernels = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    EXPECT_TRUE(processes.contains(e.at("pid").get<int>())) << e.dump();
    EXPECT_TRUE(threads.contains({e.at("pid").get<int>(), e.at("tid").get<int>()})) << e.dump();
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    if (e.at("cat") != "kernel") continue;
    ++kernels;
    for (const char* field : {"op", "bound", "flops", "bytes", "kernel_ms"}) {
      EXPECT_TRUE(e.at("args").contains(field)) << field << " in " << e.dump();
    }
  }
  int with_kernels = 0;
  for (const auto& p : r.predictions) with_kernels += p.kernels > 0 ? 1 : 0;
  EXPECT_EQ(kernels, with_kernels);
  EXPECT_GT(kernels, 20);
}

TEST(PredictionTrace, WithoutScalesTheGpuTrackIsTheKernelTimeAndTheStepIsTheLatency) {
  EagerOverhead overhead;  // kernel_time_scale and step_scale 1
  const NetworkPrediction r = resnet18(overhead);
  const nlohmann::json trace = to_trace_json(r);
  auto tracks = tracks_of(trace);
  EXPECT_NEAR(sum_ms(tracks[{kTraceGpuPid, kTraceKernelTid}]), r.kernel_ms, 1e-9 * r.kernel_ms);
  EXPECT_NEAR(sum_ms(tracks[{kTraceHostPid, kTraceIssueTid}]), host_issue_ms(r.eager, r.overhead),
              1e-9 * r.latency_ms);
  const auto& step = tracks[{kTraceHostPid, kTraceStepTid}].front();
  EXPECT_EQ(step.at("name"), "step");
  EXPECT_DOUBLE_EQ(step.at("dur").get<double>(), r.latency_ms * 1000.0);
  EXPECT_DOUBLE_EQ(trace.at("otherData").at("latency_ms").get<double>(), r.latency_ms);
  // The input copy is on the GPU's copy track, at its modelled rate.
  const auto& copy = tracks[{kTraceGpuPid, kTraceCopyTid}];
  ASSERT_EQ(copy.size(), 1U);
  const double input_bytes = 8.0 * 3 * 224 * 224 * 4;
  EXPECT_NEAR(copy.front().at("dur").get<double>() / 1000.0, input_bytes / (overhead.h2d_gbs * 1e6),
              1e-12);
  expect_tracks_inside_step(trace, r.latency_ms);
}

TEST(PredictionTrace, ScalesAndPartialOverlapStillAddUpToTheLatency) {
  for (const double overlap : {0.0, 0.4, 1.0}) {
    EagerOverhead overhead;
    overhead.kernel_time_scale = 1.3;
    overhead.step_scale = 0.8;
    overhead.per_op_overlap = overlap;
    overhead.heavy_op_factor = 2.5;
    overhead.host_ms_per_op = 0.05;
    for (const Mode mode : {Mode::kInference, Mode::kTraining}) {
      const NetworkPrediction r = resnet18(overhead, Runtime::kPytorch, mode);
      ASSERT_DOUBLE_EQ(r.overhead.step_scale, 0.8);
      const nlohmann::json trace = to_trace_json(r);
      auto tracks = tracks_of(trace);
      const double scale = 1.3 * 0.8;
      EXPECT_NEAR(sum_ms(tracks[{kTraceGpuPid, kTraceKernelTid}]), r.kernel_ms * scale,
                  1e-9 * r.latency_ms);
      EXPECT_NEAR(sum_ms(tracks[{kTraceHostPid, kTraceIssueTid}]),
                  host_issue_ms(r.eager, r.overhead) * 0.8, 1e-9 * r.latency_ms);
      EXPECT_NEAR(trace.at("otherData").at("gpu_track_ms").get<double>(), r.kernel_ms * scale,
                  1e-9 * r.latency_ms);
      // The step's terms tile the step: fixed, copy, ops, in that order, ending at latency_ms.
      double end_us = 0;
      for (const auto& e : trace.at("traceEvents")) {
        if (e.at("ph") != "X" || e.at("cat") != "step" || e.at("name") == "step") continue;
        EXPECT_NEAR(e.at("ts").get<double>(), end_us, 1e-6) << e.dump();
        end_us = e.at("ts").get<double>() + e.at("dur").get<double>();
      }
      EXPECT_NEAR(end_us, r.latency_ms * 1000.0, 1e-9 * r.latency_ms * 1000.0);
      expect_tracks_inside_step(trace, r.latency_ms);
    }
  }
}

// A machine whose measured steps ran faster than the summed layers (kernel-time scale below 1)
// shows it as its own term of the total, so what the runtime adds is never negative.
TEST(PredictionTotals, AKernelTimeScaleIsItsOwnTermAndTheOverheadStaysPositive) {
  for (const double overlap : {0.0, 1.0}) {
    EagerOverhead overhead;
    overhead.kernel_time_scale = 0.6;
    overhead.step_scale = 0.9;
    overhead.per_op_overlap = overlap;
    overhead.host_ms_per_op = 1e-4;  // GPU-bound: the step is its scaled kernels and little more
    const NetworkPrediction r = resnet18(overhead);
    EXPECT_LT(r.latency_ms, r.kernel_ms);
    EXPECT_NEAR(r.kernel_scale_ms(), r.kernel_ms * (0.6 * 0.9 - 1), 1e-12 * r.kernel_ms);
    EXPECT_GE(r.overhead_ms(), 0);
    EXPECT_NEAR(r.kernel_ms + r.kernel_scale_ms() + r.overhead_ms(), r.latency_ms,
                1e-12 * r.latency_ms);
    const nlohmann::json total = to_json(r).at("total");
    EXPECT_DOUBLE_EQ(total.at("kernel_scale_ms").get<double>(), r.kernel_scale_ms());
    EXPECT_DOUBLE_EQ(total.at("overhead_ms").get<double>(), r.overhead_ms());
    EXPECT_DOUBLE_EQ(network_prediction_record(r).overhead_ms(), r.overhead_ms());
  }
  EagerOverhead overhead;
  overhead.kernel_time_scale = 0.6;  // not a term of the cuDNN step
  const NetworkPrediction cudnn = resnet18(overhead, Runtime::kCudnn);
  EXPECT_EQ(cudnn.kernel_scale_ms(), 0);
  EXPECT_GE(cudnn.overhead_ms(), 0);
}

TEST(PredictionTrace, CudnnIsTheKernelsAndTheirGapsWithoutAHostTrack) {
  EagerOverhead overhead;
  overhead.gpu_gap_ms_per_kernel = 0.004;
  overhead.kernel_time_scale = 1.3;  // not a term of the cuDNN step
  const NetworkPrediction r = resnet18(overhead, Runtime::kCudnn);
  const nlohmann::json trace = to_trace_json(r);
  auto tracks = tracks_of(trace);
  EXPECT_NEAR(sum_ms(tracks[{kTraceGpuPid, kTraceKernelTid}]), r.kernel_ms, 1e-9 * r.kernel_ms);
  EXPECT_FALSE(tracks.contains({kTraceHostPid, kTraceIssueTid}));
  const auto& kernels = tracks[{kTraceGpuPid, kTraceKernelTid}];
  const double last_end = kernels.back().at("ts").get<double>() +
                          kernels.back().at("dur").get<double>() + 0.004 * 1000.0;
  EXPECT_NEAR(last_end, r.latency_ms * 1000.0, 1e-6);
  expect_tracks_inside_step(trace, r.latency_ms);
}

TEST(PredictionTrace, LayerNamesAreEscapedInTheJsonText) {
  NetworkPrediction r = resnet18(EagerOverhead{});
  const std::string odd = "conv \"1\"\\ <b>\n\ttab";
  r.layers.front().name = odd;
  const std::string text = to_trace_json(r).dump();
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_NE(text.find(R"(conv \"1\"\\ <b>\n\ttab)"), std::string::npos);
  const auto back = nlohmann::json::parse(text);
  int found = 0;
  for (const auto& e : back.at("traceEvents")) found += e.value("name", "") == odd ? 1 : 0;
  EXPECT_EQ(found, 2);  // its host issue and its kernels
}

TEST(PredictionTrace, RefusesAPredictionWhoseTermsDoNotAddUpToItsLatency) {
  NetworkPrediction r = resnet18(EagerOverhead{});
  r.latency_ms *= 1.5;
  EXPECT_THROW((void)to_trace_json(r), Error);
}

}  // namespace
}  // namespace cnnperf
