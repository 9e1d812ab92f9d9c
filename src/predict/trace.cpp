// SPDX-License-Identifier: Apache-2.0
#include "cnnperf/predict/trace.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {

namespace {

constexpr double kUsPerMs = 1000.0;

// One op of the step: a layer that launches kernels.
struct TraceOp {
  std::size_t layer = 0;
  double host_ms = 0;    // its host issue time (eager runtimes), ms
  double kernel_ms = 0;  // its kernels' duration on the GPU track, ms
  double slot_ms = 0;    // its share of the window both tracks run in, ms
};

nlohmann::json metadata_event(const char* what, int pid, int tid, const std::string& name) {
  nlohmann::json event = {{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid > 0) event["tid"] = tid;
  return event;
}

nlohmann::json complete_event(const std::string& name, const char* category, int pid, int tid,
                              double start_ms, double dur_ms, nlohmann::json args) {
  return {{"name", name},
          {"cat", category},
          {"ph", "X"},
          {"pid", pid},
          {"tid", tid},
          {"ts", start_ms * kUsPerMs},
          {"dur", dur_ms * kUsPerMs},
          {"args", std::move(args)}};
}

nlohmann::json layer_args(const NetworkPrediction& r, std::size_t i) {
  const Layer& l = r.layers[i];
  const LayerPrediction& p = r.predictions[i];
  return {{"layer_index", i},
          {"op", to_string(l.op)},
          {"op_class", to_string(op_class(l.op))},
          {"bound", p.bound},
          {"algorithm", p.algorithm},
          {"flops", l.flops()},
          {"bytes", l.bytes()},
          {"kernel_ms", p.kernel_ms},
          {"kernels", p.kernels},
          {"in_distribution", p.in_distribution}};
}

std::string layer_name(const NetworkPrediction& r, std::size_t i) {
  return r.layers[i].name.empty() ? "layer " + std::to_string(i) : r.layers[i].name;
}

// Starts of events of durations `dur` on one track of the window [begin, begin + window): each at
// its slot's start `slot_start`, later when the track is still busy, earlier when what remains
// would not fit before the window's end. Never overlapping; within the window when the durations
// add up to at most its length.
std::vector<double> place_on_track(const std::vector<double>& slot_start,
                                   const std::vector<double>& dur, double begin, double window) {
  std::vector<double> suffix(dur.size() + 1, 0.0);
  for (std::size_t i = dur.size(); i-- > 0;) suffix[i] = suffix[i + 1] + dur[i];
  std::vector<double> start(dur.size());
  double free_at = begin;
  for (std::size_t i = 0; i < dur.size(); ++i) {
    start[i] = std::max(free_at, std::min(slot_start[i], begin + window - suffix[i]));
    free_at = start[i] + dur[i];
  }
  return start;
}

struct TraceLayout {
  nlohmann::json events = nlohmann::json::array();
  double gpu_track_ms = 0;
  double host_track_ms = 0;
  nlohmann::json timing;
};

// cuDNN from C/C++: the caller issues ahead of the GPU; the step is the kernels and the gaps
// after each (its overhead_ms), on the GPU alone.
TraceLayout cudnn_layout(const NetworkPrediction& r) {
  TraceLayout out;
  double t = 0;
  for (std::size_t i = 0; i < r.predictions.size(); ++i) {
    const LayerPrediction& p = r.predictions[i];
    if (p.kernels == 0) continue;
    const double kernel_ms = p.kernel_ms * r.eager.l2_resident_scale;
    out.events.push_back(complete_event(layer_name(r, i), "kernel", kTraceGpuPid, kTraceKernelTid,
                                        t, kernel_ms, layer_args(r, i)));
    out.gpu_track_ms += kernel_ms;
    t += kernel_ms + p.overhead_ms;
  }
  out.timing = {{"formula",
                 "latency_ms = sum over ops of (kernel_ms x l2_resident_scale + the gaps "
                 "between its kernels); the caller issues ahead of the GPU, so no host time"},
                {"gpu_track",
                 "each op's kernels as one event of its kernel_ms x l2_resident_scale, then its "
                 "gaps (overhead_ms) idle"},
                {"l2_resident_scale", r.eager.l2_resident_scale}};
  return out;
}

// PyTorch-like runtimes (eager_latency_ms): fixed + input copy + step_scale x core + data-parallel
// terms, laid out in that order; the ops fill the core window on two tracks.
TraceLayout eager_layout(const NetworkPrediction& r, const EagerTerms& terms,
                         const EagerStepParts& parts) {
  const EagerOverhead& o = r.overhead;
  const double light_ms = o.host_ms_per_op * (terms.training ? o.training_host_factor : 1.0);
  const bool per_op = o.per_op_overlap > 0 && !terms.op_costs.empty();
  const double per_op_share = per_op ? o.per_op_overlap : 0.0;
  const bool host_sets_core = parts.host_ms > parts.gpu_ms;
  std::vector<TraceOp> ops;
  for (std::size_t i = 0; i < r.predictions.size(); ++i) {
    const LayerPrediction& p = r.predictions[i];
    if (p.kernels == 0) continue;
    TraceOp op;
    op.layer = i;
    op.host_ms = light_ms * (is_heavy_host_op(r.layers[i].op) ? o.heavy_op_factor : 1.0);
    const double kernel_scale = kernel_time_factor(terms, o);
    const double gpu_ms = p.kernel_ms * kernel_scale + p.kernels * o.gpu_gap_ms_per_kernel;
    op.kernel_ms = p.kernel_ms * kernel_scale;
    // The op's share of core_ms: its part of the per-op sum and of the larger of the two sums.
    op.slot_ms = per_op_share * std::max(op.host_ms, gpu_ms) +
                 (1.0 - per_op_share) * (host_sets_core ? op.host_ms : gpu_ms);
    ops.push_back(op);
  }
  // The step scale stretches the whole core window, host and GPU alike.
  const double s = parts.step_scale;
  const double core_begin = parts.fixed_ms + parts.copy_ms;
  const double window = s * parts.core_ms;
  std::vector<double> slot_start;
  std::vector<double> host_dur;
  std::vector<double> gpu_dur;
  double slot_sum = 0;
  for (const auto& op : ops) slot_sum += op.slot_ms;
  // Slots fill the window exactly; their sum is core_ms but for rounding.
  const double to_window = slot_sum > 0 ? window / slot_sum : 0.0;
  double at = core_begin;
  for (const auto& op : ops) {
    slot_start.push_back(at);
    at += op.slot_ms * to_window;
    host_dur.push_back(op.host_ms * s);
    gpu_dur.push_back(op.kernel_ms * s);
  }
  const auto host_start = place_on_track(slot_start, host_dur, core_begin, window);
  const auto gpu_start = place_on_track(slot_start, gpu_dur, core_begin, window);
  TraceLayout out;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const std::size_t i = ops[k].layer;
    if (host_dur[k] > 0) {
      nlohmann::json args = layer_args(r, i);
      args["host_ms"] = host_dur[k];
      out.events.push_back(complete_event(layer_name(r, i), "host_issue", kTraceHostPid,
                                          kTraceIssueTid, host_start[k], host_dur[k], args));
      out.host_track_ms += host_dur[k];
    }
    out.events.push_back(complete_event(layer_name(r, i), "kernel", kTraceGpuPid, kTraceKernelTid,
                                        gpu_start[k], gpu_dur[k], layer_args(r, i)));
    out.gpu_track_ms += gpu_dur[k];
  }
  double t = 0;
  const auto step_term = [&](const char* name, int pid, int tid, double dur_ms, nlohmann::json a) {
    if (dur_ms > 0) {
      out.events.push_back(complete_event(name, "step", pid, tid, t, dur_ms, std::move(a)));
    }
    t += dur_ms;
  };
  step_term("fixed per-step cost (synchronize, allocator)", kTraceHostPid, kTraceStepTid,
            parts.fixed_ms, {{"fixed_ms", parts.fixed_ms}});
  step_term("input batch host-to-device", kTraceGpuPid, kTraceCopyTid, parts.copy_ms,
            {{"copy_ms", parts.copy_ms},
             {"bytes", terms.input_bytes * terms.num_gpus},
             {"h2d_gbs", o.h2d_gbs}});
  step_term("ops: host issue and GPU overlapped", kTraceHostPid, kTraceStepTid, window,
            {{"core_ms", parts.core_ms},
             {"step_scale", s},
             {"host_issue_ms", parts.host_ms},
             {"gpu_ms", parts.gpu_ms},
             {"per_op_overlap", per_op_share},
             {"ops", ops.size()}});
  step_term("data-parallel GPUs beyond the first", kTraceHostPid, kTraceStepTid,
            parts.data_parallel_ms,
            {{"data_parallel_ms", parts.data_parallel_ms}, {"num_gpus", terms.num_gpus}});
  out.timing = {
      {"formula",
       "latency_ms = fixed_ms + copy_ms + step_scale x core_ms + data_parallel_ms, laid out in "
       "that order; core_ms = per_op_overlap x sum over ops of max(op host issue, op GPU time) + "
       "(1 - per_op_overlap) x max(host issue time, GPU time)"},
      {"overlap",
       "each op gets a slot of the core window, its share of core_ms; its host issue and its "
       "kernels start at the slot's start, later when their track is still busy"},
      {"gpu_track",
       "an op's kernels as one event of kernel_ms x l2_resident_scale x kernel_time_scale x "
       "step_scale; the gaps between kernels (gpu_gap_ms_per_kernel) are idle"},
      {"fixed_ms", parts.fixed_ms},
      {"copy_ms", parts.copy_ms},
      {"core_ms", parts.core_ms},
      {"step_scale", s},
      {"data_parallel_ms", parts.data_parallel_ms},
      {"host_issue_ms", parts.host_ms},
      {"gpu_ms", parts.gpu_ms},
      {"per_op_overlap", per_op_share},
      {"kernel_time_scale", o.kernel_time_scale},
      {"l2_resident_scale", terms.l2_resident_scale},
      {"gpu_gap_ms_per_kernel", o.gpu_gap_ms_per_kernel}};
  if (terms.num_gpus > 1) {
    out.timing["num_gpus"] = terms.num_gpus;
    out.timing["gpus"] = "the GPU track is one GPU's; each runs the same kernels";
  }
  return out;
}

}  // namespace

nlohmann::json to_trace_json(const NetworkPrediction& r) {
  const bool cudnn = r.runtime == Runtime::kCudnn;
  TraceLayout layout;
  double step_ms = 0;
  if (cudnn) {
    layout = cudnn_layout(r);
    for (const auto& p : r.predictions) {
      step_ms += p.kernel_ms * r.eager.l2_resident_scale + p.overhead_ms;
    }
  } else {
    EagerTerms terms = r.eager;
    terms.kernel_ms = r.kernel_ms;
    terms.op_costs = eager_op_costs(r.layers, r.predictions);
    const EagerStepParts parts = eager_step_parts(terms, r.overhead);
    layout = eager_layout(r, terms, parts);
    step_ms = parts.latency_ms();
  }
  // The trace draws the step's terms; a prediction whose latency is not their sum would be
  // drawn as something it is not.
  if (std::fabs(step_ms - r.latency_ms) > 1e-9 * std::max(1.0, r.latency_ms)) {
    throw Error("trace of " + r.network + ": the step's terms add up to " +
                format_number(step_ms, 9) + " ms, its latency_ms is " +
                format_number(r.latency_ms, 9) + " ms");
  }
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata_event("process_name", kTraceHostPid, 0, "host"));
  events.push_back(metadata_event("thread_name", kTraceHostPid, kTraceStepTid, "step"));
  if (!cudnn) {
    events.push_back(metadata_event("thread_name", kTraceHostPid, kTraceIssueTid, "op issue"));
  }
  events.push_back(metadata_event("process_name", kTraceGpuPid, 0, "GPU: " + r.gpu.name));
  events.push_back(metadata_event("thread_name", kTraceGpuPid, kTraceKernelTid, "kernels"));
  if (!cudnn) {
    events.push_back(metadata_event("thread_name", kTraceGpuPid, kTraceCopyTid, "copy"));
  }
  events.push_back(complete_event("step", "step", kTraceHostPid, kTraceStepTid, 0, r.latency_ms,
                                  {{"latency_ms", r.latency_ms},
                                   {"kernel_ms", r.kernel_ms},
                                   {"energy_j", r.energy_j},
                                   {"avg_power_w", r.avg_power_w}}));
  for (auto& event : layout.events) events.push_back(std::move(event));
  int without_kernels = 0;
  for (const auto& p : r.predictions) without_kernels += p.kernels == 0 ? 1 : 0;
  nlohmann::json other = {{"kind", "prediction_trace"},
                          {"schema_version", kTraceSchemaVersion},
                          {"tool_version", CNNPERF_VERSION},
                          {"gpu", r.gpu.name},
                          {"network", r.network},
                          {"runtime", to_string(r.runtime)},
                          {"batch", r.batch},
                          {"num_gpus", r.eager.num_gpus},
                          {"mode", to_string(r.mode)},
                          {"precision", to_string(r.precision)},
                          {"model", r.model},
                          {"latency_ms", r.latency_ms},
                          {"kernel_ms", r.kernel_ms},
                          {"gpu_track_ms", layout.gpu_track_ms},
                          {"host_issue_track_ms", layout.host_track_ms},
                          {"layers_without_kernels", without_kernels},
                          {"timing", layout.timing}};
  if (r.power_cap) other["power_limit_w"] = r.power_cap->limit_w;
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", std::move(other)}};
}

}  // namespace cnnperf
