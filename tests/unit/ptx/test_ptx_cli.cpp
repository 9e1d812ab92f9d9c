// SPDX-License-Identifier: Apache-2.0
// End-to-end `cnnperf ptx`: output formats, required JSON fields, exit codes and one-line
// errors with file:line:column.
#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cnnperf/common/io.hpp"
#include "ptx/ptx_command.hpp"
#include "ptx_test_util.hpp"

namespace cnnperf {
namespace {

struct CliRun {
  int code = -1;
  std::string out;
};

CliRun cli(const std::string& args) {
  const std::string cmd = std::string(CNNPERF_BINARY) + " " + args + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const char* kDirectArgs =
    " --kernel conv2d_direct_nchw --grid 13 --block 128 --param 2=0 --param 4=1 --param 5=8 "
    "--param 6=20 --param 7=20"
    " --param 8=4 --param 9=3 --param 10=3 --param 11=20 --param 12=20 --param 13=1 --param 14=1 "
    "--param 15=1"
    " --param 16=1 --param 17=1 --param 18=1 --param 19=0";

TEST(PtxCli, AnalyzeJsonHasTheContractFields) {
  const CliRun r =
      cli("ptx analyze " + test::ref_ptx("conv_direct") + kDirectArgs + " --full --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema_version"), 1);
  const auto& l = j.at("launches").at(0);
  for (const char* k :
       {"kernel", "grid", "block", "sampled", "ctas_simulated", "opcodes_thread", "opcodes_warp",
        "classes", "bytes", "branch_efficiency", "active_lane_efficiency", "resources", "warnings"})
    EXPECT_TRUE(l.contains(k)) << k;
  for (const char* k : {"global_ld", "global_st", "shared_ld", "shared_st", "local_ld", "local_st"})
    EXPECT_TRUE(l.at("bytes").contains(k)) << k;
  EXPECT_EQ(l.at("opcodes_thread").at("fma.rn.f32").get<double>(),
            8.0 * 4 * 58 * 58);  // (3*20-2)^2 valid taps per channel pair
  EXPECT_EQ(l.at("resources").at("registers").get<int>() > 0, true);
}

TEST(PtxCli, CsvHasOneRowPerLaunchAndOutputFileIsWritten) {
  const std::string path = ::testing::TempDir() + "/ptx_out.csv";
  const CliRun r = cli("ptx analyze " + test::ref_ptx("conv_direct") + kDirectArgs +
                       " --format csv --output " + path);
  ASSERT_EQ(r.code, 0) << r.out;
  const CsvTable t = parse_csv(read_text_file(path), path);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_TRUE(t.column("warp:fma.rn.f32").has_value());
  EXPECT_TRUE(t.column("global_ld_bytes").has_value());
  EXPECT_EQ(*t.get(0, "kernel"), "conv2d_direct_nchw");
}

TEST(PtxCli, LayerFromSpecAndCsv) {
  const CliRun r = cli(
      "ptx layer --spec "
      "conv2d:c_in=16,h_in=8,w_in=8,c_out=16,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j.at("launches").at(0).at("kernel").get<std::string>().find("conv2d_igemm"),
            std::string::npos);
  // What report reads: the typed result gives back every member the command wrote.
  EXPECT_EQ(nlohmann::json(j.get<PtxAnalysisResult>()), j);
  const std::string csv = ::testing::TempDir() + "/layers.csv";
  write_output(csv,
               "op,c_in,h_in,w_in,c_out,kernel_h,kernel_w\nconv2d,8,8,8,8,1,1\nmaxpool,8,8,8,8,2,"
               "2\nlinear,64,1,1,10,1,1\n");
  const CliRun c = cli("ptx layer --layers " + csv + " --format csv");
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_EQ(parse_csv(c.out, "stdout").rows.size(), 3u);
}

TEST(PtxCli, BadInputIsExitTwoWithOneLine) {
  const std::string bad = ::testing::TempDir() + "/bad.ptx";
  write_output(bad,
               ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  add.s32 "
               "%r1, %r2 %r3;\n}\n");
  CliRun r = cli("ptx analyze " + bad + " --kernel k --grid 1 --block 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out,
            "cnnperf: error: " + bad + ":6:20: expected ',' or ';' after an operand, got '%r3'\n");
  r = cli("ptx analyze " + test::ref_ptx("pool") + " --kernel maxpool --grid 1 --block 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("entries found: maxpool2d_nchw, avgpool2d_nchw"), std::string::npos)
      << r.out;
  r = cli("ptx analyze " + test::ref_ptx("pool") +
          " --kernel maxpool2d_nchw --grid 1 --block 32 --param 99=1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("takes 14 parameters"), std::string::npos) << r.out;
  r = cli("ptx layer --spec softmax:c_in=10");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no reference kernel for op 'softmax'"), std::string::npos) << r.out;
  // A spec is not a CSV row: a typo or a repeated key does not fall back to a default.
  r = cli("ptx layer conv2d:c_in=8,kernal_h=3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--spec: unknown field 'kernal_h'"), std::string::npos) << r.out;
  // The reference kernels are fp32 forward: an fp16 or backward layer was emulated as one.
  r = cli("ptx layer conv2d:c_in=8,c_out=8,h_in=8,w_in=8,dtype=fp16");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("the reference kernels are fp32 forward passes"), std::string::npos)
      << r.out;
  r = cli("ptx layer conv2d:c_in=,c_out=8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--spec: field 'c_in': expected a value after '='"), std::string::npos)
      << r.out;
  r = cli("ptx layer conv2d:c_in=8,c_in=16");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--spec: field 'c_in' given twice"), std::string::npos) << r.out;
  // Within the layer limits, beyond a launch's: said for the layer, not for a --grid it lacks.
  r =
      cli("ptx layer conv2d:batch=1048576,c_in=1024,c_out=1024,groups=1024,h_in=64,w_in=64,"
          "kernel_h=3,kernel_w=3,pad_h=1,pad_w=1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("beyond CUDA's launch limits"), std::string::npos) << r.out;
  r = cli("ptx analyze " + test::ref_ptx("pool") +
          " --kernel maxpool2d_nchw --grid 1 --block 1,1,128");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--block: dimensions must be in 1..1024 x 1..1024 x 1..64 (CUDA's limits), "
                       "got 1,1,128"),
            std::string::npos)
      << r.out;
  r = cli("ptx analyze " + test::ref_ptx("pool") +
          " --kernel maxpool2d_nchw --grid 1 --block 2000");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--block: dimensions must be in 1..1024 x 1..1024 x 1..64"),
            std::string::npos)
      << r.out;
}

// --arch reaches ptxas on a command line; the bundled PTX's recorded resources are its own
// target's, so another --arch must not be reported with them.
TEST(PtxCli, ArchIsAnArchitectureNameAndTheRecordedResourcesAreOnlyForTheirOwn) {
  const std::string base = "ptx analyze " + test::ref_ptx("conv_direct") + kDirectArgs;
  const std::string marker = ::testing::TempDir() + "/arch_injected";
  std::remove(marker.c_str());
  for (const std::string& arch :
       std::vector<std::string>{"bogus", "sm_8", "sm_80x", "'sm_80;touch " + marker + "'"}) {
    const CliRun r = cli(base + " --arch " + arch);
    EXPECT_EQ(r.code, 2) << arch << ": " << r.out;
    EXPECT_NE(r.out.find("--arch: expected a GPU architecture"), std::string::npos) << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the shell ran the --arch text";
  CliRun r = cli(base + " --format json");  // the file's own target: the recorded resources
  ASSERT_EQ(r.code, 0) << r.out;
  auto res = nlohmann::json::parse(r.out).at("launches").at(0).at("resources");
  EXPECT_EQ(res.at("arch"), "sm_80");
  EXPECT_EQ(res.at("source"), "models/ptx/resources.txt");
  r = cli(base + " --arch sm_90 --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  res = nlohmann::json::parse(r.out).at("launches").at(0).at("resources");
  if (!res.is_null()) {  // from ptxas, where the toolkit is installed
    EXPECT_EQ(res.at("arch"), "sm_90");
    EXPECT_NE(res.at("source"), "models/ptx/resources.txt");
  }
}

// --extrapolate that could not be used was dropped without a word.
TEST(PtxCli, ExtrapolateThatCannotBeUsedIsSaid) {
  const std::string base = "ptx analyze " + test::ref_ptx("gemm") +
                           " --kernel _Z7gemm_ntILi32ELi32ELi8ELi2ELi2EEvPKfS1_S1_Pfiii --grid 4,4 "
                           "--block 64 --param 4=128 --param 5=128 --param 6=256 --format json";
  CliRun r = cli(base + " --extrapolate 6=16,8");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--extrapolate: expected LO below HI, got '6=16,8'"), std::string::npos)
      << r.out;
  r = cli(base + " --extrapolate 6=8,512");
  ASSERT_EQ(r.code, 0) << r.out;
  auto launch = nlohmann::json::parse(r.out).at("launches").at(0);
  EXPECT_FALSE(launch.at("extrapolated").get<bool>());
  EXPECT_NE(launch.at("warnings").dump().find("parameter 6 is 256, not above HI (512)"),
            std::string::npos)
      << launch.at("warnings").dump();
  r = cli(base + " --extrapolate 6=8,16");
  ASSERT_EQ(r.code, 0) << r.out;
  launch = nlohmann::json::parse(r.out).at("launches").at(0);
  EXPECT_TRUE(launch.at("extrapolated").get<bool>());
  EXPECT_EQ(launch.at("warnings").dump().find("--extrapolate"), std::string::npos);
}

// A depthwise layer runs the depthwise reference kernel whatever --conv-kernel names: said.
TEST(PtxCli, ConvKernelOnADepthwiseLayerIsSaid) {
  const std::string layer = "ptx layer conv2d:c_in=16,c_out=16,groups=16,h_in=8,w_in=8";
  CliRun r = cli(layer + " --conv-kernel direct");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("--conv-kernel direct: a depthwise convolution (groups = c_in = c_out = "
                       "16) runs the depthwise reference kernel"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("depthwise_conv2d_nchw"), std::string::npos) << r.out;
  r = cli(layer);  // auto: nothing to say
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("--conv-kernel"), std::string::npos) << r.out;
}

TEST(PtxCli, LayerSpecIsPositionalAsInTheDesign) {
  const CliRun r = cli("ptx layer relu:c_in=8,h_in=4,w_in=4 --format csv");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(parse_csv(r.out, "stdout").rows.size(), 1u);
}

// A loop whose bound never comes would run forever; the emulation budget stops it.
TEST(PtxCli, LaunchThatNeverEndsStopsAtTheBudget) {
  const std::string spin = ::testing::TempDir() + "/spin.ptx";
  write_output(spin,
               ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry spin()\n{\n"
               "$L:\n  bra.uni $L;\n}\n");
  CliRun r =
      cli("ptx analyze " + spin + " --kernel spin --grid 1 --block 32 --max-warp-insts 100000");
  EXPECT_EQ(r.code, 2) << r.out;
  // One line, saying what to do (the time taken varies: it is cut out).
  const std::string taken = " in ";
  const auto at = r.out.find(taken), end = r.out.find(" s without finishing");
  ASSERT_NE(at, std::string::npos) << r.out;
  ASSERT_NE(end, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(0, at) + r.out.substr(end + 2),
            "cnnperf: error: kernel 'spin' executed more than 100000 warp instructions "
            "(--max-warp-insts) without finishing; expected a launch that ends: if a loop never "
            "ends, check the --param values that bound it; if the launch is long, extrapolate "
            "its trip count (--extrapolate INDEX=LO,HI), or raise --max-warp-insts above "
            "100000\n");
  // It samples already; only under --full is sampling the advice.
  r = cli("ptx analyze " + spin +
          " --kernel spin --grid 1 --block 32 --max-warp-insts 100000 --full");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("if the launch is long, sample (drop --full), extrapolate"),
            std::string::npos)
      << r.out;
  r = cli("ptx layer conv2d:c_in=64 --max-warp-insts 10");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find("--full"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("raise --max-warp-insts above 10"), std::string::npos) << r.out;
  // --full over more CTAs than the budget could run is refused before it allocates anything.
  r = cli("ptx analyze " + test::ref_ptx("conv_direct") +
          " --kernel conv2d_direct_nchw"
          " --grid 2147483647,65535,65535 --block 128 --full" +
          std::string(kDirectArgs).substr(std::string(kDirectArgs).find(" --param")));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("CTAs need more than the --max-warp-insts budget"), std::string::npos)
      << r.out;
}

// What `ptx analyze` prints while a long launch runs: at most one line per interval, the count
// of the current launch against the budget, and when the budget comes at the rate so far.
TEST(PtxCli, EmulationProgressIsThrottledAndSaysWhenTheBudgetComes) {
  std::ostringstream out;
  EmulationProgress every_call(out, std::chrono::steady_clock::duration::zero());
  every_call.report(2'500'000'000, 10'000'000'000);
  const std::string line = out.str();
  EXPECT_EQ(line.rfind("cnnperf: ptx: 2500000000 of 10000000000 warp instructions "
                       "(--max-warp-insts) emulated, 25% after ",
                       0),
            0U)
      << line;
  EXPECT_NE(line.find(" s; the budget is reached in about "), std::string::npos) << line;
  const std::string tail = " s unless the launch ends\n";
  ASSERT_GT(line.size(), tail.size());
  EXPECT_EQ(line.substr(line.size() - tail.size()), tail) << line;
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
  every_call.report(5'000'000'000, 10'000'000'000);
  const std::string two = out.str();
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 2) << two;
  // Throttled: calls within the interval print nothing.
  std::ostringstream quiet;
  EmulationProgress hourly(quiet, std::chrono::hours(1));
  hourly.report(1'000, 10'000);
  hourly.report(2'000, 10'000);
  EXPECT_EQ(quiet.str(), "");
  // The callback given to the library reports to the same object.
  every_call.callback()(7'500'000'000, 10'000'000'000);
  EXPECT_NE(out.str().find("7500000000 of 10000000000"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace cnnperf
