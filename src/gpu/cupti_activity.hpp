// SPDX-License-Identifier: Apache-2.0
// CUPTI Activity API: concurrent-kernel, API and external-correlation records, buffers handed
// to CUPTI through the requested/completed callbacks, forced flushes, dropped-record counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <cupti_activity.h>
#include <cupti_version.h>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf::gpu {

/// CUPTI requires activity buffers aligned to 8 bytes.
inline constexpr std::size_t kActivityBufferAlignment = 8;
/// Size of each buffer handed to CUPTI.
inline constexpr std::size_t kActivityBufferBytes = std::size_t{4} << 20;

/// What one completed buffer held.
struct ActivityBatch {
  std::vector<KernelRecord> kernels;
  std::vector<ExternalCorrelation> correlations;
  std::size_t api_records = 0;    ///< RUNTIME/DRIVER records: needed for correlation, then dropped
  std::size_t other_records = 0;  ///< records of kinds we do not use
};

/// The CUPTI entry points the tracer calls: the real ones by default. Tests substitute a fake
/// that follows CUPTI's documented rules, since the real cuptiActivityEnable fails without a
/// driver.
struct CuptiEntryPoints {
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc) =
      cuptiActivityRegisterCallbacks;
  CUptiResult (*enable)(CUpti_ActivityKind) = cuptiActivityEnable;
  CUptiResult (*disable)(CUpti_ActivityKind) = cuptiActivityDisable;
  CUptiResult (*flush_all)(std::uint32_t) = cuptiActivityFlushAll;
  CUptiResult (*push_external_id)(CUpti_ExternalCorrelationKind,
                                  std::uint64_t) = cuptiActivityPushExternalCorrelationId;
  CUptiResult (*pop_external_id)(CUpti_ExternalCorrelationKind,
                                 std::uint64_t*) = cuptiActivityPopExternalCorrelationId;
  CUptiResult (*dropped_records)(CUcontext, std::uint32_t,
                                 std::size_t*) = cuptiActivityGetNumDroppedRecords;
  CUptiResult (*get_version)(std::uint32_t*) = cuptiGetVersion;
};

/// Whether a loaded CUPTI of API version `loaded_version` (cuptiGetVersion, xxyyzz) writes the
/// kernel record struct this build reads: the same toolkit major.minor as CUPTI_API_VERSION
/// (13.1 renumbers the struct).
[[nodiscard]] bool kernel_records_readable(std::uint32_t loaded_version);

/// The activity kinds the tracer enables, in order. CUPTI writes an external-correlation
/// record only for an API record (cuptiActivityPushExternalCorrelationId), so the runtime and
/// driver API kinds are on although their records are dropped once correlated: cuDNN launches
/// through both.
[[nodiscard]] const std::vector<CUpti_ActivityKind>& traced_activity_kinds();

/// Walks the valid bytes of an activity buffer with cuptiActivityGetNextRecord and converts
/// every kernel and external-correlation record into `batch`. Returns the records read.
std::size_t walk_activity_buffer(std::uint8_t* buffer, std::size_t valid_bytes,
                                 ActivityBatch& batch);

/// Aligned allocation as CUPTI's buffer-requested callback must return; free with
/// free_activity_buffer.
[[nodiscard]] std::uint8_t* allocate_activity_buffer(std::size_t bytes);
void free_activity_buffer(std::uint8_t* buffer) noexcept;

/// Process-wide tracer (CUPTI's callbacks carry no user pointer). start() registers the
/// callbacks and enables traced_activity_kinds(); the destructor flushes and disables them.
class CuptiTracer {
 public:
  /// Not ok with the CUPTI reason when tracing cannot be enabled (e.g. no driver).
  /// `api` stays in use until the tracer is destroyed.
  [[nodiscard]] static std::unique_ptr<CuptiTracer> start(Status& status,
                                                          const CuptiEntryPoints& api = {});
  ~CuptiTracer();
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  /// Forces a flush and returns every kernel collected since the last call, external ids
  /// attached.
  [[nodiscard]] std::vector<KernelRecord> collect();
  /// Records CUPTI reported dropped since the last call.
  [[nodiscard]] std::uint64_t take_dropped();
  /// Pushes / pops our external correlation id (CUSTOM0) around launches.
  static void push(std::uint64_t external_id);
  static void pop();

 private:
  CuptiTracer() = default;
};

/// Tracing off for a scope: the untraced launches (warm-up, energy window) make no records
/// to pile up and pay no tracing cost inside the energy window. No-op without a tracer.
class TracingPaused {
 public:
  TracingPaused();
  ~TracingPaused();
  TracingPaused(const TracingPaused&) = delete;
  TracingPaused& operator=(const TracingPaused&) = delete;

 private:
  bool paused_ = false;
};

}  // namespace cnnperf::gpu
