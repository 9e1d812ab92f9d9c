// SPDX-License-Identifier: Apache-2.0
// Which rows of an end-to-end file with several runtimes and layouts (datasets/e2e_timm.csv.gz)
// load as eager PyTorch rows of zoo networks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {
namespace {

TEST(E2eRows, OnlyEagerNchwRowsOfZooNetworksLoad) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("cnnperf_e2e_rows_" + std::to_string(::getpid()) + ".csv");
  {
    // SYNTHETIC: invented latencies; only which rows load, and as which network, is under test.
    std::ofstream(path)
        << "network,zoo_network,gpu,num_gpus,batch,dtype,mode,runtime,memory_format,latency_ms\n"
        << "resnet50,resnet50,NVIDIA GeForce RTX 3090,1,256,fp16,inference,pytorch,nchw,81\n"
        << "resnet50,resnet50,NVIDIA GeForce RTX 3090,1,256,fp16,inference,pytorch-compile,nchw,"
           "52\n"
        << "resnet50,resnet50,NVIDIA GeForce RTX 3090,1,256,fp16,inference,tensorrt,nchw,40\n"
        << "resnet50,resnet50,NVIDIA GeForce RTX 3090,1,256,fp16,inference,pytorch,nhwc,73\n"
        // timm's resnet50 at another input size: zoo_network empty, so outside the zoo
        // although `network` is a zoo name.
        << "resnet50,,NVIDIA GeForce RTX 3090,1,256,fp16,inference,pytorch,nchw,44\n"
        << "vgg16,,NVIDIA GeForce RTX 3090,1,256,fp16,inference,pytorch,nchw,150\n"
        << "tv_resnet34,resnet34,NVIDIA GeForce RTX 3090,1,512,fp16,training,pytorch,nchw,99\n";
  }
  const auto rows = load_e2e_rows(path.string());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].network, "resnet50");
  EXPECT_DOUBLE_EQ(rows[0].latency_ms, 81);
  EXPECT_EQ(rows[0].dtype, DType::kFp16);
  EXPECT_EQ(rows[1].network, "resnet34");  // zoo_network, not timm's tv_resnet34
  EXPECT_DOUBLE_EQ(rows[1].latency_ms, 99);
  EXPECT_EQ(rows[1].batch, 512);

  // Without runtime / memory_format / zoo_network columns every row is eager NCHW and
  // `network` is the zoo name (e2e_torchvision.csv).
  {
    // SYNTHETIC: invented latencies.
    std::ofstream(path) << "network,gpu,batch,dtype,mode,latency_ms\n"
                        << "resnet50,TITAN RTX,12,fp32,inference,30\n"
                        << "vgg16,TITAN RTX,12,fp32,inference,60\n";
  }
  const auto plain = load_e2e_rows(path.string());
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_EQ(plain[1].network, "vgg16");
  std::filesystem::remove(path);
}

TEST(E2eRows, TheTimmDatasetLoadsItsEagerNchwZooRows) {
  const std::string file = user_file_or_resource("datasets/e2e_timm.csv.gz");
  const CsvTable table = read_csv(file);
  std::size_t expected = 0;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    expected += table.get(r, "runtime") == "pytorch" && table.get(r, "memory_format") == "nchw" &&
                table.get(r, "zoo_network").has_value();
  }
  const auto rows = load_e2e_rows(file);
  EXPECT_GT(expected, 0u);
  EXPECT_LT(expected, table.rows.size());
  EXPECT_EQ(rows.size(), expected);
  for (const auto& row : rows) {
    EXPECT_EQ(row.dtype, DType::kFp16) << row.network;
    // timm's benchmark makes its batch on the GPU: no step of it copies the input.
    EXPECT_FALSE(row.input_copy_timed) << row.network;
  }
  // pytorch-gpu-benchmark times `img.to('cuda')` inside each step.
  for (const auto& row : load_e2e_rows(user_file_or_resource("datasets/e2e_torchvision.csv"))) {
    EXPECT_TRUE(row.input_copy_timed) << row.network;
  }
}

TEST(E2eRows, TimingMethodSaysWhetherTheInputCopyIsTimed) {
  EXPECT_TRUE(timing_excludes_input_copy("host-wallclock-cuda-sync-per-step-mean-input-on-gpu"));
  EXPECT_FALSE(timing_excludes_input_copy("host-wallclock-sync-incl-h2d-copy"));
  EXPECT_FALSE(timing_excludes_input_copy("not-recorded"));
  EXPECT_FALSE(timing_excludes_input_copy(""));

  const auto path = std::filesystem::temp_directory_path() /
                    ("cnnperf_e2e_timing_" + std::to_string(::getpid()) + ".csv");
  {
    // SYNTHETIC: invented latencies; only the timing method's effect is under test.
    std::ofstream(path) << "network,gpu,batch,dtype,mode,latency_ms,timing_method\n"
                        << "resnet50,TITAN RTX,256,fp16,inference,90,"
                           "host-wallclock-sync-incl-h2d-copy\n"
                        << "resnet50,TITAN RTX,256,fp16,inference,80,"
                           "host-wallclock-cuda-sync-per-step-mean-input-on-gpu\n";
  }
  const auto rows = load_e2e_rows(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].input_copy_timed);
  EXPECT_FALSE(rows[1].input_copy_timed);

  // Same network, GPU and batch: one prediction, but only the first row's step copies its
  // 256 x 3 x 224 x 224 fp16 batch, and only its predicted step pays for it.
  const auto model = bundled_analytical_model();
  const auto terms = e2e_terms(rows, *model);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_DOUBLE_EQ(terms[0].input_bytes, 256.0 * 3 * 224 * 224 * 2);
  EXPECT_DOUBLE_EQ(terms[1].input_bytes, 0);
  EXPECT_DOUBLE_EQ(terms[0].kernel_ms, terms[1].kernel_ms);
  const EagerOverhead& overhead = bundled_analytical_overhead();
  ASSERT_GT(overhead.h2d_gbs, 0);
  EXPECT_NEAR(eager_latency_ms(terms[0], overhead) - eager_latency_ms(terms[1], overhead),
              terms[0].input_bytes / (overhead.h2d_gbs * 1e6), 1e-9);
}

}  // namespace
}  // namespace cnnperf
