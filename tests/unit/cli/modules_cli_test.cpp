// SPDX-License-Identifier: Apache-2.0
// The binary links no CUDA, ONNX, protobuf or XGBoost library (what keeps its start-up short,
// docs/benchmarks.md): those parts are loaded when first needed, and a missing one is an
// error that names it, not a failure to start.
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "cnnperf/common/config.hpp"
#include "cnnperf/common/module.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;
using cli_test::run_cnnperf;

const char* const kOnnxConv =
    "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx";

// The NEEDED entries of the binary's dynamic section, as `readelf -d` prints them.
std::string needed_libraries() {
  const std::string command = std::string("readelf -d \"") + CNNPERF_BINARY + "\" 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    if (std::string(line).find("(NEEDED)") != std::string::npos) out += line;
  }
  ::pclose(pipe);
  return out;
}

TEST(Modules, TheBinaryLinksNoCudaOnnxProtobufOrXgboost) {
  const std::string needed = needed_libraries();
  if (needed.empty()) GTEST_SKIP() << "readelf (binutils) not available";
  EXPECT_NE(needed.find("libstdc++"), std::string::npos) << needed;  // readelf read it
  for (const char* lib :
       {"libcudart", "libcudnn", "libcupti", "libcuda.", "libonnx", "libprotobuf", "libxgboost"}) {
    EXPECT_EQ(needed.find(lib), std::string::npos) << lib << " is linked:\n" << needed;
  }
}

TEST(Modules, AMissingModuleIsNamedWithEveryPlaceLookedIn) {
  const ModuleSpec spec{"libcnnperf_absent.so", "CNNPERF_TEST_ABSENT_MODULE", "/nonexistent/build",
                        "entry"};
  std::string why;
  EXPECT_EQ(load_module_entry(spec, why), nullptr);
  EXPECT_NE(why.find("libcnnperf_absent.so was not found (looked in: "), std::string::npos) << why;
  EXPECT_NE(why.find("/nonexistent/build/libcnnperf_absent.so"), std::string::npos) << why;
  EXPECT_NE(why.find("set CNNPERF_TEST_ABSENT_MODULE"), std::string::npos) << why;
}

TEST(Modules, AFileThatIsNotALibraryIsRefusedWithDlopensReason) {
  const fs::path fake = cli_test::temp_dir() / "libnot_a_library.so";
  {
    std::FILE* f = std::fopen(fake.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("text", f);
    std::fclose(f);
  }
  ::setenv("CNNPERF_TEST_FAKE_MODULE", fake.c_str(), 1);
  const ModuleSpec spec{"libignored.so", "CNNPERF_TEST_FAKE_MODULE", "", "entry"};
  std::string why;
  EXPECT_EQ(load_module_entry(spec, why), nullptr);
  ::unsetenv("CNNPERF_TEST_FAKE_MODULE");
  EXPECT_NE(why.find(fake.string() + " could not be loaded: "), std::string::npos) << why;
}

TEST(Modules, OnnxImportLoadsItsModuleAndNamesItWhenMissing) {
  if (!fs::exists(kOnnxConv)) GTEST_SKIP() << kOnnxConv << " absent (libonnx-testdata)";
  const auto ok =
      run_cnnperf(std::string("predict --net ") + kOnnxConv + " --gpu a100 --format json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"conv2d\""), std::string::npos) << ok.out;

  const auto missing = run_cnnperf(std::string("predict --net ") + kOnnxConv + " --gpu a100",
                                   "CNNPERF_ONNX_MODULE=/nonexistent/libcnnperf_onnx.so ");
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
  EXPECT_NE(missing.err.find("ONNX import is not available: the importer libcnnperf_onnx.so was "
                             "not found (looked in: /nonexistent/libcnnperf_onnx.so"),
            std::string::npos)
      << missing.err;
  // Everything else still works without the module.
  const auto zoo = run_cnnperf("predict --net resnet18 --gpu a100",
                               "CNNPERF_ONNX_MODULE=/nonexistent/libcnnperf_onnx.so ");
  EXPECT_EQ(zoo.exit_code, 0) << zoo.err;
}

TEST(Modules, ProfileNamesAMissingCudaBackEnd) {
  if (!CNNPERF_HAVE_CUDA) GTEST_SKIP() << "a build without CUDA has no back-end module";
  const fs::path out = cli_test::temp_dir() / "modules_profile.csv";
  const auto r = run_cnnperf("profile --net resnet18 --batch 1 -o '" + out.string() + "'",
                             "CNNPERF_GPU_MODULE=/nonexistent/libcnnperf_cuda.so ");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no usable GPU: the CUDA back end libcnnperf_cuda.so was not found "
                       "(looked in: /nonexistent/libcnnperf_cuda.so"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace cnnperf
