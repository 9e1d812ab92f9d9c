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
  for (const auto& row : rows) EXPECT_EQ(row.dtype, DType::kFp16) << row.network;
}

}  // namespace
}  // namespace cnnperf
