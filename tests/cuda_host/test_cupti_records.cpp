// SPDX-License-Identifier: Apache-2.0
// Synthetic CUPTI activity buffers (kineto style): real CUpti_ActivityKernel10 and
// CUpti_ActivityExternalCorrelation structs with chosen values, laid out as CUPTI lays them
// out, walked with the real cuptiActivityGetNextRecord (host-only; works without a GPU).
// The values are synthetic, not measurements.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <cupti.h>

#include "../../src/gpu/cupti_activity.hpp"
#include "../../src/gpu/cupti_record_convert.hpp"
#include "fake_cupti.hpp"

namespace cnnperf::gpu {
namespace {

struct BufferDeleter {
  void operator()(std::uint8_t* p) const noexcept { free_activity_buffer(p); }
};

class SyntheticBuffer {
 public:
  SyntheticBuffer() : data_(allocate_activity_buffer(kActivityBufferBytes)) {
    std::memset(data_.get(), 0, kActivityBufferBytes);
  }
  template <typename Record>
  void append(const Record& record) {
    std::memcpy(data_.get() + used_, &record, sizeof(Record));
    used_ += sizeof(Record);
  }
  [[nodiscard]] std::uint8_t* data() { return data_.get(); }
  [[nodiscard]] std::size_t used() const { return used_; }

 private:
  std::unique_ptr<std::uint8_t, BufferDeleter> data_;
  std::size_t used_ = 0;
};

// CUPTI hands out records as CUpti_Activity*, the common header of every record struct.
template <typename Record>
const CUpti_Activity& as_activity(const Record& record) {
  return *static_cast<const CUpti_Activity*>(static_cast<const void*>(&record));
}

CUpti_ActivityKernel10 kernel(const char* name, std::uint32_t correlation, std::uint64_t start,
                              std::uint64_t end) {
  CUpti_ActivityKernel10 k = fake::kernel_record(name, correlation, start, end);
  k.gridX = 196;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 168;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 49152;
  k.localMemoryPerThread = 16;
  k.deviceId = 0;
  k.streamId = 13;
  return k;
}

CUpti_ActivityExternalCorrelation correlation(std::uint32_t correlation_id,
                                              std::uint64_t external) {
  return fake::correlation_record(correlation_id, external);
}

TEST(CuptiConvert, KernelRecordFieldsAreCopied) {
  const CUpti_ActivityKernel10 k = kernel("sm80_xmma_fprop_implicit_gemm", 42, 1000, 26000);
  const auto r = convert_kernel_record(as_activity(k));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "sm80_xmma_fprop_implicit_gemm");
  EXPECT_EQ(r->start_ns, 1000U);
  EXPECT_EQ(r->end_ns, 26000U);
  EXPECT_EQ(r->duration_ns(), 25000U);
  EXPECT_EQ(r->grid, (std::array<std::int32_t, 3>{196, 2, 1}));
  EXPECT_EQ(r->block, (std::array<std::int32_t, 3>{128, 1, 1}));
  EXPECT_EQ(r->registers_per_thread, 168);
  EXPECT_EQ(r->static_smem_bytes, 1024);
  EXPECT_EQ(r->dynamic_smem_bytes, 49152);
  EXPECT_EQ(r->local_mem_per_thread_bytes, 16);
  EXPECT_EQ(r->stream_id, 13U);
  EXPECT_EQ(r->correlation_id, 42U);
  EXPECT_EQ(r->external_id, 0U);
  EXPECT_STREQ(kernel_record_struct_name(), "CUpti_ActivityKernel10");
  EXPECT_EQ(kernel_record_size(), sizeof(CUpti_ActivityKernel10));
}

TEST(CuptiConvert, SerialKernelKindAndOtherKinds) {
  CUpti_ActivityKernel10 k = kernel("k", 1, 0, 10);
  k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  EXPECT_TRUE(convert_kernel_record(as_activity(k)));
  const auto e = correlation(7, 99);
  EXPECT_FALSE(convert_kernel_record(as_activity(e)));
  const auto c = convert_external_correlation(as_activity(e));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->correlation_id, 7U);
  EXPECT_EQ(c->external_id, 99U);
  EXPECT_FALSE(convert_external_correlation(as_activity(k)));
}

TEST(CuptiBuffer, WalkerConvertsEveryRecordAndJoins) {
  SyntheticBuffer buffer;
  // Launch 1 (sample 0): a transform kernel and the main kernel; launch 2 (sample 1).
  const std::uint64_t s0 = make_external_id(5, 0);
  const std::uint64_t s1 = make_external_id(5, 1);
  buffer.append(correlation(100, s0));
  buffer.append(kernel("nchwToNhwcKernel", 100, 1000, 3000));
  buffer.append(correlation(101, s0));
  buffer.append(kernel("sm80_xmma_fprop", 101, 3100, 23100));
  buffer.append(correlation(102, s1));
  buffer.append(kernel("sm80_xmma_fprop", 102, 30000, 50500));
  buffer.append(kernel("unrelated", 555, 60000, 61000));  // launched outside our push

  ActivityBatch batch;
  EXPECT_EQ(walk_activity_buffer(buffer.data(), buffer.used(), batch), 7U);
  ASSERT_EQ(batch.kernels.size(), 4U);
  ASSERT_EQ(batch.correlations.size(), 3U);
  EXPECT_EQ(batch.other_records, 0U);
  attach_external_ids(batch.kernels, batch.correlations);
  const auto groups = group_by_sample(batch.kernels, 5);
  ASSERT_EQ(groups.size(), 2U);
  ASSERT_EQ(groups.at(0).size(), 2U);
  EXPECT_EQ(groups.at(0)[0].name, "nchwToNhwcKernel");
  EXPECT_EQ(groups.at(0)[0].duration_ns() + groups.at(0)[1].duration_ns(), 22000U);
  EXPECT_EQ(groups.at(1)[0].duration_ns(), 20500U);
  EXPECT_EQ(batch.kernels[3].external_id, 0U);
}

TEST(CuptiBuffer, EmptyAndTruncatedBuffers) {
  SyntheticBuffer buffer;
  ActivityBatch batch;
  EXPECT_EQ(walk_activity_buffer(buffer.data(), 0, batch), 0U);
  buffer.append(kernel("k", 1, 0, 10));
  // Only part of the record is valid: CUPTI must not hand it out.
  EXPECT_EQ(walk_activity_buffer(buffer.data(), buffer.used() - 8, batch), 0U);
  EXPECT_TRUE(batch.kernels.empty());
}

TEST(CuptiBuffer, AllocationIsAlignedAsCuptiRequires) {
  std::uint8_t* p = allocate_activity_buffer(kActivityBufferBytes);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kActivityBufferAlignment, 0U);
  free_activity_buffer(p);
}

TEST(CuptiTracerStart, ReportsWhyWithoutADriver) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "GPU present";
  Status status;
  auto tracer = CuptiTracer::start(status);
  EXPECT_FALSE(tracer);
  EXPECT_EQ(status.outcome, Outcome::kFailed);
  EXPECT_NE(status.reason.find("cuptiActivityEnable"), std::string::npos) << status.reason;
}

TEST(CuptiTracerFake, KernelsAreAttributedToTheirLaunch) {
  Status status;
  auto tracer = CuptiTracer::start(status, fake::entry_points());
  ASSERT_TRUE(tracer) << status.reason;
  const std::uint64_t id = make_external_id(3, 0);
  CuptiTracer::push(id);
  fake::state().launch("sm80_xmma_fprop", 1000, 21000);
  CuptiTracer::pop();
  fake::state().launch("outside_our_push", 30000, 31000);
  const auto kernels = tracer->collect();
  ASSERT_EQ(kernels.size(), 2U);
  EXPECT_EQ(kernels[0].external_id, id);
  EXPECT_EQ(kernels[1].external_id, 0U);
  const auto groups = group_by_sample(kernels, 3);
  ASSERT_EQ(groups.size(), 1U);
  EXPECT_EQ(groups.at(0).at(0).duration_ns(), 20000U);
}

TEST(CuptiTracerFake, UntimedKernelsArriveMarkedUntimed) {
  Status status;
  auto tracer = CuptiTracer::start(status, fake::entry_points());
  ASSERT_TRUE(tracer) << status.reason;
  CuptiTracer::push(make_external_id(0, 0));
  fake::state().launch("timed", 100, 200);
  fake::state().launch("untimed", 0, 0);  // "timestamp information could not be collected"
  CuptiTracer::pop();
  const auto kernels = tracer->collect();
  ASSERT_EQ(kernels.size(), 2U);
  EXPECT_TRUE(kernels[0].timed());
  EXPECT_FALSE(kernels[1].timed());
}

TEST(CuptiTracerFake, ALoadedCuptiWithAnotherKernelStructIsRefused) {
  Status status;
  CuptiEntryPoints api = fake::entry_points();
  fake::state().version = 130100;  // CUDA 13.1: CUpti_ActivityKernel11
  auto tracer = CuptiTracer::start(status, api);
  EXPECT_FALSE(tracer);
  EXPECT_EQ(status.outcome, Outcome::kFailed);
  EXPECT_NE(status.reason.find("130100"), std::string::npos) << status.reason;
  EXPECT_TRUE(fake::state().enabled.empty());
  EXPECT_TRUE(kernel_records_readable(CUPTI_API_VERSION));
  EXPECT_TRUE(kernel_records_readable(CUPTI_API_VERSION / 100 * 100 + 99));  // a patch update
  EXPECT_FALSE(kernel_records_readable(CUPTI_API_VERSION + 100));
}

TEST(CuptiTracerFake, UntracedLaunchesMakeNoRecords) {
  Status status;
  auto tracer = CuptiTracer::start(status, fake::entry_points());
  ASSERT_TRUE(tracer) << status.reason;
  {
    TracingPaused paused;  // warm-up or energy window
    EXPECT_TRUE(fake::state().enabled.empty());
    fake::state().launch("warmup", 100, 200);
  }
  EXPECT_EQ(fake::state().enabled.size(), traced_activity_kinds().size());
  CuptiTracer::push(make_external_id(0, 0));
  fake::state().launch("sample", 300, 400);
  CuptiTracer::pop();
  const auto kernels = tracer->collect();
  ASSERT_EQ(kernels.size(), 1U);
  EXPECT_EQ(kernels[0].name, "sample");
  tracer.reset();
  TracingPaused without_tracer;  // no tracer: nothing to pause, nothing called
  EXPECT_TRUE(fake::state().enabled.empty());
}

TEST(CuptiTracerFake, EnablesAnApiKindAndDisablesEverythingAtTheEnd) {
  Status status;
  auto tracer = CuptiTracer::start(status, fake::entry_points());
  ASSERT_TRUE(tracer) << status.reason;
  EXPECT_TRUE(fake::state().is_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  EXPECT_TRUE(fake::state().is_enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  EXPECT_TRUE(fake::state().is_enabled(CUPTI_ACTIVITY_KIND_RUNTIME) ||
              fake::state().is_enabled(CUPTI_ACTIVITY_KIND_DRIVER));
  tracer.reset();
  EXPECT_TRUE(fake::state().enabled.empty());
}

TEST(CuptiBuffer, ApiRecordsAreCountedAndDropped) {
  SyntheticBuffer buffer;
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.correlationId = 100;
  buffer.append(correlation(100, make_external_id(1, 0)));
  buffer.append(api);
  buffer.append(kernel("k", 100, 10, 20));
  ActivityBatch batch;
  EXPECT_EQ(walk_activity_buffer(buffer.data(), buffer.used(), batch), 3U);
  EXPECT_EQ(batch.kernels.size(), 1U);
  EXPECT_EQ(batch.correlations.size(), 1U);
  EXPECT_EQ(batch.api_records, 1U);
  EXPECT_EQ(batch.other_records, 0U);
}

}  // namespace
}  // namespace cnnperf::gpu
