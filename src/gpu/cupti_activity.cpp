// SPDX-License-Identifier: Apache-2.0
// CUPTI Activity API tracing (see cupti_activity.hpp).
#include "cupti_activity.hpp"

#include <cstdlib>
#include <mutex>

#include <cupti.h>
#include <spdlog/spdlog.h>

#include "check.hpp"
#include "cupti_record_convert.hpp"

namespace cnnperf::gpu {
namespace {

// Everything the callbacks deliver, until collect() takes it.
struct ActivityStore {
  std::mutex mutex;
  ActivityBatch pending;
  std::uint64_t dropped = 0;
};

ActivityStore& store() {
  static ActivityStore s;
  return s;
}

// Whether a tracer is running (between a successful start() and its destructor).
bool& tracer_running() {
  static bool running = false;
  return running;
}

// The entry points of the running tracer (set by start()).
CuptiEntryPoints& api() {
  static CuptiEntryPoints entry_points;
  return entry_points;
}

const char* kind_name(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return "CONCURRENT_KERNEL";
    case CUPTI_ACTIVITY_KIND_RUNTIME: return "RUNTIME";
    case CUPTI_ACTIVITY_KIND_DRIVER: return "DRIVER";
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return "EXTERNAL_CORRELATION";
    default: return "?";
  }
}

bool is_api_kind(CUpti_ActivityKind kind) {
  return kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size,
                               std::size_t* max_num_records) {
  *buffer = allocate_activity_buffer(kActivityBufferBytes);
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_num_records = 0;  // as many as fit
}

void keep(ActivityBatch&& batch) {
  std::lock_guard<std::mutex> lock(store().mutex);
  auto& p = store().pending;
  p.kernels.insert(p.kernels.end(), std::make_move_iterator(batch.kernels.begin()),
                   std::make_move_iterator(batch.kernels.end()));
  p.correlations.insert(p.correlations.end(), batch.correlations.begin(), batch.correlations.end());
  p.api_records += batch.api_records;
  p.other_records += batch.other_records;
}

// Called from CUPTI's C frames, so nothing may propagate out of it: a buffer that cannot be
// read counts as one dropped record, which the row reports.
void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid_size) noexcept {
  try {
    ActivityBatch batch;
    if (valid_size > 0) walk_activity_buffer(buffer, valid_size, batch);
    keep(std::move(batch));
  } catch (...) {
    std::lock_guard<std::mutex> lock(store().mutex);
    ++store().dropped;
  }
  free_activity_buffer(buffer);
  // Ask CUPTI for drops only after releasing our lock (kineto notes the lock-order deadlock).
  std::size_t dropped = 0;
  if (api().dropped_records(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0) {
    std::lock_guard<std::mutex> lock(store().mutex);
    store().dropped += dropped;
  }
}

}  // namespace

std::size_t walk_activity_buffer(std::uint8_t* buffer, std::size_t valid_bytes,
                                 ActivityBatch& batch) {
  std::size_t records = 0;
  CUpti_Activity* record = nullptr;
  while (true) {
    const CUptiResult status = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
    if (status == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // end of the valid bytes
    if (status != CUPTI_SUCCESS) {
      spdlog::warn("CUPTI activity buffer: {} after {} records", describe(status), records);
      break;
    }
    ++records;
    if (auto kernel = convert_kernel_record(*record)) {
      batch.kernels.push_back(std::move(*kernel));
    } else if (auto correlation = convert_external_correlation(*record)) {
      batch.correlations.push_back(*correlation);
    } else if (is_api_kind(record->kind)) {
      ++batch.api_records;
    } else {
      ++batch.other_records;
    }
  }
  return records;
}

std::uint8_t* allocate_activity_buffer(std::size_t bytes) {
  return static_cast<std::uint8_t*>(std::aligned_alloc(kActivityBufferAlignment, bytes));
}

void free_activity_buffer(std::uint8_t* buffer) noexcept {
  std::free(buffer);
}

const std::vector<CUpti_ActivityKind>& traced_activity_kinds() {
  static const std::vector<CUpti_ActivityKind> kinds{
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
      CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  return kinds;
}

bool kernel_records_readable(std::uint32_t loaded_version) {
  return loaded_version / 100 == CUPTI_API_VERSION / 100;
}

std::unique_ptr<CuptiTracer> CuptiTracer::start(Status& status, const CuptiEntryPoints& entry) {
  api() = entry;
  std::uint32_t version = 0;
  const CUptiResult v = api().get_version(&version);
  if (v != CUPTI_SUCCESS) {
    status = {Outcome::kFailed, "cuptiGetVersion: " + describe(v)};
    return nullptr;
  }
  if (!kernel_records_readable(version)) {
    // Reading another version's records as CUpti_ActivityKernel10 would give wrong fields.
    status = {Outcome::kFailed, "CUPTI API version " + std::to_string(version) +
                                    " is loaded; this build reads the kernel records of " +
                                    std::to_string(CUPTI_API_VERSION) + " (" +
                                    kernel_record_struct_name() +
                                    "): rebuild against the loaded CUPTI"};
    return nullptr;
  }
  CUptiResult r = api().register_callbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    status = {Outcome::kFailed, "cuptiActivityRegisterCallbacks: " + describe(r)};
    return nullptr;
  }
  const auto& kinds = traced_activity_kinds();
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    r = api().enable(kinds[i]);
    if (r == CUPTI_SUCCESS) continue;
    for (std::size_t j = i; j-- > 0;) CNNPERF_CUPTI_CHECK_NOEXCEPT(api().disable(kinds[j]));
    status = {Outcome::kFailed,
              std::string("cuptiActivityEnable(") + kind_name(kinds[i]) + "): " + describe(r)};
    return nullptr;
  }
  status = {};
  tracer_running() = true;
  return std::unique_ptr<CuptiTracer>(new CuptiTracer());
}

CuptiTracer::~CuptiTracer() {
  tracer_running() = false;
  CNNPERF_CUPTI_CHECK_NOEXCEPT(api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  const auto& kinds = traced_activity_kinds();
  for (auto it = kinds.rbegin(); it != kinds.rend(); ++it) {
    CNNPERF_CUPTI_CHECK_NOEXCEPT(api().disable(*it));
  }
}

std::vector<KernelRecord> CuptiTracer::collect() {
  // Forced: also hand back buffers that are not full yet.
  CNNPERF_CUPTI_CHECK(api().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  ActivityBatch batch;
  {
    std::lock_guard<std::mutex> lock(store().mutex);
    std::swap(batch, store().pending);
  }
  attach_external_ids(batch.kernels, batch.correlations);
  return std::move(batch.kernels);
}

std::uint64_t CuptiTracer::take_dropped() {
  std::lock_guard<std::mutex> lock(store().mutex);
  const std::uint64_t dropped = store().dropped;
  store().dropped = 0;
  return dropped;
}

TracingPaused::TracingPaused() {
  if (!tracer_running()) return;
  for (CUpti_ActivityKind kind : traced_activity_kinds()) CNNPERF_CUPTI_CHECK(api().disable(kind));
  paused_ = true;
}

TracingPaused::~TracingPaused() {
  if (!paused_ || !tracer_running()) return;
  for (CUpti_ActivityKind kind : traced_activity_kinds()) {
    CNNPERF_CUPTI_CHECK_NOEXCEPT(api().enable(kind));
  }
}

void CuptiTracer::push(std::uint64_t external_id) {
  CNNPERF_CUPTI_CHECK(api().push_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external_id));
}

void CuptiTracer::pop() {
  std::uint64_t last = 0;
  CNNPERF_CUPTI_CHECK(api().pop_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
}

}  // namespace cnnperf::gpu
