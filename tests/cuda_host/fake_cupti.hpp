// SPDX-License-Identifier: Apache-2.0
// A fake CUPTI Activity API for CuptiTracer (no driver needed). It is no kinder than the real
// library: each rule below quotes the sentence of cupti_activity.h (CUDA 13.0) it follows.
// Timestamps and names are synthetic, not measurements.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include <cupti.h>

#include "../../src/gpu/cupti_activity.hpp"

namespace cnnperf::gpu::fake {

/// A concurrent-kernel record with the fields every test sets.
inline CUpti_ActivityKernel10 kernel_record(const char* name, std::uint32_t correlation,
                                            std::uint64_t start_ns, std::uint64_t end_ns) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.correlationId = correlation;
  k.start = start_ns;
  k.end = end_ns;
  return k;
}

inline CUpti_ActivityExternalCorrelation correlation_record(std::uint32_t correlation,
                                                            std::uint64_t external_id) {
  CUpti_ActivityExternalCorrelation e{};
  e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  e.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
  e.correlationId = correlation;
  e.externalId = external_id;
  return e;
}

struct FakeCupti {
  CUpti_BuffersCallbackRequestFunc requested = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
  std::vector<std::uint64_t> external_ids;  // the CUSTOM0 stack of the calling thread
  std::vector<std::uint8_t> pending;        // records not yet handed back
  std::uint32_t next_correlation = 1;
  std::size_t dropped = 0;  // reported by cuptiActivityGetNumDroppedRecords
  // "This define along with cuptiGetVersion can be used to dynamically detect if the version
  // of CUPTI compiled against matches the version of the loaded CUPTI library"
  // (cupti_version.h): a test sets a newer one, whose kernel records are another struct.
  std::uint32_t version = CUPTI_API_VERSION;

  [[nodiscard]] bool is_enabled(CUpti_ActivityKind kind) const {
    for (auto k : enabled) {
      if (k == kind) return true;
    }
    return false;
  }
  template <typename Record>
  void append(const Record& record) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&record);
    pending.insert(pending.end(), bytes, bytes + sizeof(Record));
  }

  /// One runtime-API kernel launch, as CUPTI records it.
  void launch(const char* name, std::uint64_t start_ns, std::uint64_t end_ns) {
    const std::uint32_t correlation = next_correlation++;
    // "When a CUPTI activity API record is created while within an external API region and
    // CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION is enabled, the activity API record will be
    // preceded by a CUpti_ActivityExternalCorrelation record" (cuptiActivityPushExternal-
    // CorrelationId): no API kind enabled, no API record, so no correlation record.
    if (is_enabled(CUPTI_ACTIVITY_KIND_RUNTIME)) {
      if (is_enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) && !external_ids.empty()) {
        append(correlation_record(correlation, external_ids.back()));
      }
      CUpti_ActivityAPI api{};
      api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
      api.correlationId = correlation;
      api.start = start_ns > 500 ? start_ns - 500 : 0;
      api.end = start_ns;
      append(api);
    }
    if (is_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
      append(kernel_record(name, correlation, start_ns, end_ns));
    }
  }

  /// A forced flush "returns all the activity buffers including the ones which have one or
  /// more incomplete activity records" (cuptiActivityFlushAll): here one buffer, requested,
  /// filled and completed.
  CUptiResult flush() {
    if (pending.empty()) return CUPTI_SUCCESS;
    std::uint8_t* buffer = nullptr;
    std::size_t size = 0;
    std::size_t max_records = 0;
    requested(&buffer, &size, &max_records);
    if (buffer == nullptr || size < pending.size()) return CUPTI_ERROR_UNKNOWN;
    std::memcpy(buffer, pending.data(), pending.size());
    const std::size_t valid = pending.size();
    pending.clear();
    completed(nullptr, 0, buffer, size, valid);
    return CUPTI_SUCCESS;
  }
};

inline FakeCupti& state() {
  static FakeCupti s;
  return s;
}

/// Entry points over state(), reset to a fresh fake.
inline CuptiEntryPoints entry_points() {
  state() = FakeCupti{};
  CuptiEntryPoints api;
  api.register_callbacks = [](CUpti_BuffersCallbackRequestFunc r,
                              CUpti_BuffersCallbackCompleteFunc c) {
    state().requested = r;
    state().completed = c;
    return CUPTI_SUCCESS;
  };
  api.enable = [](CUpti_ActivityKind kind) {
    state().enabled.push_back(kind);
    return CUPTI_SUCCESS;
  };
  api.disable = [](CUpti_ActivityKind kind) {
    auto& e = state().enabled;
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (*it == kind) {
        e.erase(it);
        break;
      }
    }
    return CUPTI_SUCCESS;
  };
  api.flush_all = [](std::uint32_t) { return state().flush(); };
  api.push_external_id = [](CUpti_ExternalCorrelationKind, std::uint64_t id) {
    state().external_ids.push_back(id);
    return CUPTI_SUCCESS;
  };
  api.pop_external_id = [](CUpti_ExternalCorrelationKind, std::uint64_t* last) {
    // "CUPTI_ERROR_QUEUE_EMPTY No external id is currently associated with kind."
    if (state().external_ids.empty()) return CUPTI_ERROR_QUEUE_EMPTY;
    if (last != nullptr) *last = state().external_ids.back();
    state().external_ids.pop_back();
    return CUPTI_SUCCESS;
  };
  api.dropped_records = [](CUcontext, std::uint32_t, std::size_t* dropped) {
    *dropped = state().dropped;
    state().dropped = 0;
    return CUPTI_SUCCESS;
  };
  api.get_version = [](std::uint32_t* version) {
    *version = state().version;
    return CUPTI_SUCCESS;
  };
  return api;
}

}  // namespace cnnperf::gpu::fake
