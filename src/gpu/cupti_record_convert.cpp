// SPDX-License-Identifier: Apache-2.0
// The one translation unit that names CUPTI's versioned kernel record struct.
#include "cupti_record_convert.hpp"

namespace cnnperf::gpu {
namespace {

// CUDA 13.0 / CUPTI 13.0: kernel activity records (KERNEL and CONCURRENT_KERNEL) are
// CUpti_ActivityKernel10. Later toolkits renumber it (Kernel11 in 13.1): change it here only.
using KernelRecordStruct = CUpti_ActivityKernel10;

}  // namespace

std::optional<KernelRecord> convert_kernel_record(const CUpti_Activity& record) {
  if (record.kind != CUPTI_ACTIVITY_KIND_KERNEL &&
      record.kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
    return std::nullopt;
  }
  const auto& k = reinterpret_cast<const KernelRecordStruct&>(record);
  KernelRecord out;
  out.name = k.name != nullptr ? k.name : "";
  out.start_ns = k.start;
  out.end_ns = k.end;
  out.grid = {k.gridX, k.gridY, k.gridZ};
  out.block = {k.blockX, k.blockY, k.blockZ};
  out.registers_per_thread = k.registersPerThread;
  out.static_smem_bytes = k.staticSharedMemory;
  out.dynamic_smem_bytes = k.dynamicSharedMemory;
  out.local_mem_per_thread_bytes = k.localMemoryPerThread;
  out.device_id = k.deviceId;
  out.stream_id = k.streamId;
  out.correlation_id = k.correlationId;
  return out;
}

std::optional<ExternalCorrelation> convert_external_correlation(const CUpti_Activity& record) {
  if (record.kind != CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) return std::nullopt;
  const auto& e = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
  return ExternalCorrelation{e.correlationId, e.externalId};
}

const char* kernel_record_struct_name() {
  return "CUpti_ActivityKernel10";
}

std::size_t kernel_record_size() {
  return sizeof(KernelRecordStruct);
}

}  // namespace cnnperf::gpu
