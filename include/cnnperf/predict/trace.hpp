// SPDX-License-Identifier: Apache-2.0
// A network prediction as a Chrome trace-event file (chrome://tracing, Perfetto): the step's
// kernels on a GPU track, the host's issue of each op, the input copy and the step's fixed terms.
#pragma once

#include <nlohmann/json.hpp>

#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

/// 1: the first layout (otherData.kind "prediction_trace").
inline constexpr int kTraceSchemaVersion = 1;

/// Process and thread ids of the trace's tracks.
inline constexpr int kTraceHostPid = 1;
inline constexpr int kTraceGpuPid = 2;
inline constexpr int kTraceStepTid = 1;    ///< host: the step and its terms
inline constexpr int kTraceIssueTid = 2;   ///< host: issue of each op (pytorch-like runtimes)
inline constexpr int kTraceKernelTid = 1;  ///< GPU: the kernels, one event per layer
inline constexpr int kTraceCopyTid = 2;    ///< GPU: the host-to-device copy of the input

/// The predicted step laid out in time as a trace-event JSON object ({"traceEvents": [...],
/// "displayTimeUnit": "ms", "otherData": {...}}), ts and dur in microseconds. The layout mirrors
/// how latency_ms is composed (eager_step_parts): the step's span is latency_ms; the GPU track's
/// events add up to kernel_ms x kernel_time_scale x step_scale (kernel_ms itself when both are
/// 1, and under cuDNN), the host issue events to the step's host issue time x step_scale;
/// otherData says which scales applied and how host and GPU overlap. Pure and deterministic.
/// Throws Error when the prediction's terms do not add up to its latency_ms (a prediction not
/// made by predict_network and its setters).
[[nodiscard]] nlohmann::json to_trace_json(const NetworkPrediction& prediction);

}  // namespace cnnperf
