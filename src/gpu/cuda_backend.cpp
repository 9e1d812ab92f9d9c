// SPDX-License-Identifier: Apache-2.0
// The CUDA profiler back end: device selection, cuDNN handle and stream, CUPTI tracing and the
// NVML power meter, owned for the whole run; plus the module's entry point.
#include <array>
#include <cstdio>
#include <string_view>

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cupti.h>
#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include "check.hpp"
#include "cudnn_conv.hpp"
#include "cupti_activity.hpp"
#include "cupti_record_convert.hpp"
#include "nvml_power.hpp"

namespace cnnperf {
namespace gpu {
namespace {

std::string version_text(int v) {  // CUDA's 1000*major + 10*minor
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string uuid_text(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex.data();
    if (i == 3 || i == 5 || i == 7 || i == 9) out += "-";
  }
  return out;
}

class CudaStream {
 public:
  CudaStream() { CNNPERF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { CNNPERF_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(stream_)); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_{};
};

class CudnnHandle {
 public:
  /// Records the creation status instead of throwing (CUTLASS's CudnnCreate).
  CudnnHandle() : status_(cudnnCreate(&handle_)) {}
  ~CudnnHandle() {
    if (status_ == CUDNN_STATUS_SUCCESS) CNNPERF_CUDNN_CHECK_NOEXCEPT(cudnnDestroy(handle_));
  }
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  [[nodiscard]] cudnnStatus_t status() const { return status_; }
  [[nodiscard]] cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_{};
  cudnnStatus_t status_;
};

// cudart answers cudaErrorInsufficientDriver both where no driver is installed and where it
// is older than the runtime: tell the two apart, and name the version the build needs.
std::string explain_no_device(cudaError_t status) {
  if (status != cudaErrorInsufficientDriver) return describe(status);
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda == nullptr) {
    return "no NVIDIA driver found (libcuda.so.1 could not be loaded); this build needs one "
           "supporting CUDA " +
           version_text(CUDART_VERSION) + " or newer";
  }
  dlclose(libcuda);
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    return "the NVIDIA driver supports CUDA " + version_text(driver) + "; this build needs CUDA " +
           version_text(CUDART_VERSION) + " or newer (update the driver)";
  }
  return describe(status);
}

class CudaBackend final : public ProfilerBackend {
 public:
  Status open(int gpu_index) override {
    int count = 0;
    const cudaError_t r = cudaGetDeviceCount(&count);
    if (r != cudaSuccess) {
      (void)cudaGetLastError();
      return {Outcome::kNotRun, explain_no_device(r)};
    }
    if (count == 0) return {Outcome::kNotRun, "no CUDA device found"};
    if (gpu_index >= count) {
      return {Outcome::kInvalidProblem, "GPU index " + std::to_string(gpu_index) + ": only " +
                                            std::to_string(count) + " CUDA device(s)"};
    }
    // CUPTI before the context exists, so no kernel escapes the trace.
    Status traced;
    tracer_ = CuptiTracer::start(traced);
    if (!tracer_) return {Outcome::kNotRun, "CUPTI activity tracing unavailable: " + traced.reason};

    const Status set = cuda_status(cudaSetDevice(gpu_index), "cudaSetDevice");
    if (!set.ok()) return {Outcome::kNotRun, set.reason};
    cudaDeviceProp prop{};
    const Status props =
        cuda_status(cudaGetDeviceProperties(&prop, gpu_index), "cudaGetDeviceProperties");
    if (!props.ok()) return {Outcome::kNotRun, props.reason};
    info_.index = gpu_index;
    info_.name = prop.name;
    info_.uuid = uuid_text(prop.uuid);
    info_.cc_major = prop.major;
    info_.cc_minor = prop.minor;
    info_.l2_bytes = prop.l2CacheSize;
    int v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) info_.cuda_runtime = version_text(v);
    if (cudaDriverGetVersion(&v) == cudaSuccess) info_.cuda_driver = version_text(v);
    const auto cudnn = static_cast<int>(cudnnGetVersion());
    info_.cudnn = std::to_string(cudnn / 10000) + "." + std::to_string((cudnn % 10000) / 100) +
                  "." + std::to_string(cudnn % 100);
    std::uint32_t cupti = 0;
    if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS) info_.cupti = std::to_string(cupti);

    handle_ = std::make_unique<CudnnHandle>();
    if (handle_->status() != CUDNN_STATUS_SUCCESS) {
      return {Outcome::kNotRun, "cudnnCreate: " + describe(handle_->status())};
    }
    stream_ = std::make_unique<CudaStream>();
    CNNPERF_CUDNN_CHECK(cudnnSetStream(handle_->get(), stream_->get()));

    Status nvml_status;
    nvml_ = NvmlLibrary::load(nvml_status);
    if (nvml_) info_.driver = nvml_->driver_version();
    meter_ = std::make_unique<NvmlPowerMeter>(nvml_, info_.uuid, nvml_status);
    if (!meter_->available().ok()) {
      spdlog::warn("energy not measured: {}", meter_->available().reason);
    }
    spdlog::info("CUPTI kernel records: {} ({} bytes)", kernel_record_struct_name(),
                 kernel_record_size());
    return {};
  }

  [[nodiscard]] DeviceInfo device() const override { return info_; }

  std::vector<AlgoChoice> heuristic_algos(const Layer& layer, Layout layout,
                                          Status& status) override {
    return heuristic_ranking(handle_->get(), layer, layout, status);
  }

  Prepared prepare(const Layer& layer, Layout layout, const AlgoChoice& choice) override {
    Prepared p;
    p.algo = choice.algo;
    auto runner = std::make_unique<CudnnConvRunner>(handle_->get(), stream_->get(), info_.l2_bytes,
                                                    layer, layout, choice, p.status);
    if (p.status.ok()) p.runner = std::move(runner);
    return p;
  }

  std::vector<KernelRecord> collect_kernels() override { return tracer_->collect(); }
  std::uint64_t dropped_records() override { return tracer_->take_dropped(); }
  PowerMeter& power_meter() override { return *meter_; }

 private:
  // Destruction order (reverse): meter, NVML, the cuDNN handle before the stream it was set
  // to use, then CUPTI flushes last.
  std::unique_ptr<CuptiTracer> tracer_;
  std::unique_ptr<CudaStream> stream_;
  std::unique_ptr<CudnnHandle> handle_;
  std::shared_ptr<NvmlLibrary> nvml_;
  std::unique_ptr<NvmlPowerMeter> meter_;
  DeviceInfo info_;
};

}  // namespace
}  // namespace gpu
}  // namespace cnnperf

// The one symbol the back-end module exports (src/profile/gpu_loader finds it with dlsym). The
// caller owns the result and checks `abi` first: the binary and the module must come from the
// same build, since the interface is C++.
extern "C" __attribute__((visibility("default"))) cnnperf::ProfilerBackend*
cnnperf_cuda_backend_create(const char* abi) {
  if (abi == nullptr || std::string_view(abi) != cnnperf::kProfilerBackendAbi) return nullptr;
  return new cnnperf::gpu::CudaBackend();  // NOLINT(cppcoreguidelines-owning-memory): C entry
}
