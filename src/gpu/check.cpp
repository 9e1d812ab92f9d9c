// SPDX-License-Identifier: Apache-2.0
// Vendor status descriptions, outcome mapping and the throw/warn helpers of check.hpp.
#include "check.hpp"

#include <array>
#include <filesystem>

#include <spdlog/spdlog.h>

namespace cnnperf::gpu {
namespace {

std::string where_of(const char* file, int line) {
  return std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
}

std::string message(const GpuError& e) {
  return e.where() + ": " + e.call() + " failed: " + e.code_name() +
         (e.vendor_message().empty() ? "" : " (" + e.vendor_message() + ")");
}

}  // namespace

std::string to_string(Api api) {
  switch (api) {
    case Api::kCuda: return "CUDA";
    case Api::kCudnn: return "cuDNN";
    case Api::kCupti: return "CUPTI";
    case Api::kNvml: return "NVML";
  }
  return "?";
}

GpuError::GpuError(Api api, long code, std::string code_name, std::string call, std::string where,
                   std::string vendor_message)
    : Error(where + ": " + call + " failed: " + code_name +
            (vendor_message.empty() ? "" : " (" + vendor_message + ")")),
      api_(api),
      code_(code),
      code_name_(std::move(code_name)),
      call_(std::move(call)),
      where_(std::move(where)),
      vendor_message_(std::move(vendor_message)) {}

std::string describe(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

std::string cudnn_last_error() {
  std::array<char, 1024> buffer{};
  cudnnGetLastErrorString(buffer.data(), buffer.size());
  return std::string(buffer.data());
}

std::string describe(cudnnStatus_t status) {
  std::string text = cudnnGetErrorString(status);
  const std::string last = cudnn_last_error();
  if (!last.empty()) text += "; last error: " + last;
  return text;
}

std::string describe(CUptiResult status) {
  const char* text = nullptr;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(status));
  }
  return text;
}

Outcome outcome_from_cudnn(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_SUCCESS: return Outcome::kPassed;
    // The machine, not the problem: a driver or cudart too old, a build without this GPU's
    // architecture, a missing library. Failed, so that a resumed run on a fixed machine retries.
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER:
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART:
    case CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH:
    case CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING:
    case CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE:
    // Our own call was wrong (null or misaligned pointer, wrong stream), not the problem.
    case CUDNN_STATUS_BAD_PARAM_NULL_POINTER:
    case CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER:
    case CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH: return Outcome::kFailed;
    default: break;
  }
  // cuDNN 9 codes are category * 1000 + specific error.
  switch (CUDNN_STATUS_CATEGORY(static_cast<int>(status))) {
    case CUDNN_STATUS_BAD_PARAM: return Outcome::kInvalidProblem;
    case CUDNN_STATUS_NOT_SUPPORTED: return Outcome::kNotSupported;
    default: return Outcome::kFailed;
  }
}

Outcome outcome_from_cuda(cudaError_t status) {
  switch (status) {
    case cudaSuccess: return Outcome::kPassed;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration: return Outcome::kInvalidProblem;
    default: return Outcome::kFailed;
  }
}

Status cudnn_status(cudnnStatus_t status, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return {};
  return {outcome_from_cudnn(status), std::string(call) + ": " + describe(status)};
}

Status cuda_status(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return {};
  if (is_sticky(status)) {
    throw DeviceLost(std::string("GPU lost: ") + call + ": " + describe(status));
  }
  return {outcome_from_cuda(status), std::string(call) + ": " + describe(status)};
}

bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorContextIsDestroyed: return true;
    default: return false;
  }
}

void throw_cuda(cudaError_t status, const char* call, const char* file, int line) {
  GpuError error(Api::kCuda, status, cudaGetErrorName(status), call, where_of(file, line),
                 cudaGetErrorString(status));
  if (is_sticky(status)) throw DeviceLost(std::string("GPU lost: ") + error.what());
  throw error;
}

void throw_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  throw GpuError(Api::kCudnn, status, cudnnGetErrorString(status), call, where_of(file, line),
                 cudnn_last_error());
}

void throw_cupti(CUptiResult status, const char* call, const char* file, int line) {
  throw GpuError(Api::kCupti, status, describe(status), call, where_of(file, line), "");
}

void warn_cuda(cudaError_t status, const char* call, const char* file, int line) noexcept {
  try {
    spdlog::warn("{}", message(GpuError(Api::kCuda, status, cudaGetErrorName(status), call,
                                        where_of(file, line), cudaGetErrorString(status))));
  } catch (...) {
  }
}

void warn_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) noexcept {
  try {
    spdlog::warn("{}", message(GpuError(Api::kCudnn, status, cudnnGetErrorString(status), call,
                                        where_of(file, line), cudnn_last_error())));
  } catch (...) {
  }
}

void warn_cupti(CUptiResult status, const char* call, const char* file, int line) noexcept {
  try {
    spdlog::warn("{}", message(GpuError(Api::kCupti, status, describe(status), call,
                                        where_of(file, line), "")));
  } catch (...) {
  }
}

}  // namespace cnnperf::gpu
