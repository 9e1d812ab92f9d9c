// SPDX-License-Identifier: Apache-2.0
// One checked-call helper per vendor API. Each failure keeps the API, the numeric code, its
// name, the call's source text, file:line and the vendor's message (for cuDNN also
// cudnnGetLastErrorString). The throwing macros raise GpuError; the _NOEXCEPT ones log (for
// destructors). Only src/gpu includes this header.
#pragma once

#include <string>

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cupti.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/profile/profile.hpp"

namespace cnnperf::gpu {

enum class Api { kCuda, kCudnn, kCupti, kNvml };
[[nodiscard]] std::string to_string(Api api);

/// A failed vendor call (exit code 1 when it escapes).
class GpuError : public Error {
 public:
  GpuError(Api api, long code, std::string code_name, std::string call, std::string where,
           std::string vendor_message);
  [[nodiscard]] Api api() const { return api_; }
  [[nodiscard]] long code() const { return code_; }
  [[nodiscard]] const std::string& code_name() const { return code_name_; }
  [[nodiscard]] const std::string& call() const { return call_; }
  [[nodiscard]] const std::string& where() const { return where_; }
  [[nodiscard]] const std::string& vendor_message() const { return vendor_message_; }

 private:
  Api api_;
  long code_;
  std::string code_name_, call_, where_, vendor_message_;
};

/// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version".
[[nodiscard]] std::string describe(cudaError_t status);
/// "CUDNN_STATUS_NOT_SUPPORTED_SHAPE" plus "; last error: ..." when cuDNN has one.
[[nodiscard]] std::string describe(cudnnStatus_t status);
/// "CUPTI_ERROR_UNKNOWN: ..." from cuptiGetResultString.
[[nodiscard]] std::string describe(CUptiResult status);
/// cudnnGetLastErrorString, "" when empty.
[[nodiscard]] std::string cudnn_last_error();

/// Outcome mapping (CUTLASS's Disposition): BAD_PARAM family -> invalid problem,
/// NOT_SUPPORTED family -> not supported, success -> passed, anything else -> failed. The
/// codes that describe the machine or our own call rather than the problem (incompatible
/// driver/cudart, arch mismatch, missing prerequisite or sub-library; null or misaligned
/// pointer, stream mismatch) are failed, so that a resumed run retries them.
[[nodiscard]] Outcome outcome_from_cudnn(cudnnStatus_t status);
/// Success -> passed; invalid configuration/value -> invalid problem; anything else failed.
[[nodiscard]] Outcome outcome_from_cuda(cudaError_t status);
/// The Status of a cuDNN call: outcome plus "call: description".
[[nodiscard]] Status cudnn_status(cudnnStatus_t status, const char* call);
/// Throws DeviceLost for a sticky error: no later job could run either.
[[nodiscard]] Status cuda_status(cudaError_t status, const char* call);

/// Whether `status` is a sticky error: the context is corrupted and every later call fails
/// ("the process must be terminated and relaunched", CUDA runtime API documentation).
[[nodiscard]] bool is_sticky(cudaError_t status);
/// GpuError; DeviceLost (with the same message) for a sticky error.
[[noreturn]] void throw_cuda(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cudnn(cudnnStatus_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cupti(CUptiResult status, const char* call, const char* file, int line);
/// Non-throwing variants: log a warning and go on.
void warn_cuda(cudaError_t status, const char* call, const char* file, int line) noexcept;
void warn_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) noexcept;
void warn_cupti(CUptiResult status, const char* call, const char* file, int line) noexcept;

}  // namespace cnnperf::gpu

#define CNNPERF_CUDA_CHECK(call)                                                    \
  do {                                                                              \
    const cudaError_t cnnperf_status_ = (call);                                     \
    if (cnnperf_status_ != cudaSuccess) {                                           \
      (void)cudaGetLastError(); /* clear the sticky error of a non-fatal failure */ \
      ::cnnperf::gpu::throw_cuda(cnnperf_status_, #call, __FILE__, __LINE__);       \
    }                                                                               \
  } while (0)
#define CNNPERF_CUDNN_CHECK(call)                                              \
  do {                                                                         \
    const cudnnStatus_t cnnperf_status_ = (call);                              \
    if (cnnperf_status_ != CUDNN_STATUS_SUCCESS)                               \
      ::cnnperf::gpu::throw_cudnn(cnnperf_status_, #call, __FILE__, __LINE__); \
  } while (0)
#define CNNPERF_CUPTI_CHECK(call)                                              \
  do {                                                                         \
    const CUptiResult cnnperf_status_ = (call);                                \
    if (cnnperf_status_ != CUPTI_SUCCESS)                                      \
      ::cnnperf::gpu::throw_cupti(cnnperf_status_, #call, __FILE__, __LINE__); \
  } while (0)
#define CNNPERF_CUDA_CHECK_NOEXCEPT(call)                                    \
  do {                                                                       \
    const cudaError_t cnnperf_status_ = (call);                              \
    if (cnnperf_status_ != cudaSuccess)                                      \
      ::cnnperf::gpu::warn_cuda(cnnperf_status_, #call, __FILE__, __LINE__); \
  } while (0)
#define CNNPERF_CUDNN_CHECK_NOEXCEPT(call)                                    \
  do {                                                                        \
    const cudnnStatus_t cnnperf_status_ = (call);                             \
    if (cnnperf_status_ != CUDNN_STATUS_SUCCESS)                              \
      ::cnnperf::gpu::warn_cudnn(cnnperf_status_, #call, __FILE__, __LINE__); \
  } while (0)
#define CNNPERF_CUPTI_CHECK_NOEXCEPT(call)                                    \
  do {                                                                        \
    const CUptiResult cnnperf_status_ = (call);                               \
    if (cnnperf_status_ != CUPTI_SUCCESS)                                     \
      ::cnnperf::gpu::warn_cupti(cnnperf_status_, #call, __FILE__, __LINE__); \
  } while (0)
