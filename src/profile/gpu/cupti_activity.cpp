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

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size,
                               std::size_t* max_num_records) {
  *buffer = allocate_activity_buffer(kActivityBufferBytes);
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_num_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid_size) {
  ActivityBatch batch;
  if (valid_size > 0) walk_activity_buffer(buffer, valid_size, batch);
  free_activity_buffer(buffer);
  {
    std::lock_guard<std::mutex> lock(store().mutex);
    auto& p = store().pending;
    p.kernels.insert(p.kernels.end(), std::make_move_iterator(batch.kernels.begin()),
                     std::make_move_iterator(batch.kernels.end()));
    p.correlations.insert(p.correlations.end(), batch.correlations.begin(),
                          batch.correlations.end());
    p.other_records += batch.other_records;
  }
  // Ask CUPTI for drops only after releasing our lock (kineto notes the lock-order deadlock).
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS &&
      dropped > 0) {
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

std::unique_ptr<CuptiTracer> CuptiTracer::start(Status& status) {
  const auto fail = [&status](CUptiResult r, const char* call) {
    status = {Outcome::kFailed, std::string(call) + ": " + describe(r)};
    return nullptr;
  };
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) return fail(r, "cuptiActivityRegisterCallbacks");
  r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) return fail(r, "cuptiActivityEnable(CONCURRENT_KERNEL)");
  r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  if (r != CUPTI_SUCCESS) {
    CNNPERF_CUPTI_CHECK_NOEXCEPT(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    return fail(r, "cuptiActivityEnable(EXTERNAL_CORRELATION)");
  }
  status = {};
  return std::unique_ptr<CuptiTracer>(new CuptiTracer());
}

CuptiTracer::~CuptiTracer() {
  CNNPERF_CUPTI_CHECK_NOEXCEPT(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  CNNPERF_CUPTI_CHECK_NOEXCEPT(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  CNNPERF_CUPTI_CHECK_NOEXCEPT(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
}

std::vector<KernelRecord> CuptiTracer::collect() {
  // Forced: also hand back buffers that are not full yet.
  CNNPERF_CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
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

void CuptiTracer::push(std::uint64_t external_id) {
  CNNPERF_CUPTI_CHECK(
      cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, external_id));
}

void CuptiTracer::pop() {
  std::uint64_t last = 0;
  CNNPERF_CUPTI_CHECK(
      cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
}

}  // namespace cnnperf::gpu
