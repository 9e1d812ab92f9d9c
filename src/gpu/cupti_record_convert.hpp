// SPDX-License-Identifier: Apache-2.0
// CUPTI activity records -> our own structs. The numbered record struct of the installed
// CUPTI (CUpti_ActivityKernel10 in CUDA 13.0) is named only in cupti_record_convert.cpp, so a
// toolkit update touches one file.
#pragma once

#include <cstddef>
#include <optional>

#include <cupti_activity.h>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf::gpu {

/// A KERNEL or CONCURRENT_KERNEL record as a KernelRecord (name copied); nullopt otherwise.
[[nodiscard]] std::optional<KernelRecord> convert_kernel_record(const CUpti_Activity& record);
/// An EXTERNAL_CORRELATION record; nullopt for any other kind.
[[nodiscard]] std::optional<ExternalCorrelation> convert_external_correlation(
    const CUpti_Activity& record);
/// Name and size of the kernel record struct this build converts (for logs and tests).
[[nodiscard]] const char* kernel_record_struct_name();
[[nodiscard]] std::size_t kernel_record_size();

}  // namespace cnnperf::gpu
