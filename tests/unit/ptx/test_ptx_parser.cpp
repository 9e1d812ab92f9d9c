// SPDX-License-Identifier: Apache-2.0
// Parser and bad-input behaviour: every committed PTX parses; malformed, truncated and
// unsupported PTX fails with file:line:column; unknown kernels list the entries; wrong
// parameters say which.
#include <cstdint>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "ptx_test_util.hpp"

namespace cnnperf {
namespace {

const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

std::string error_of(const std::string& text, const std::string& kernel = "k") {
  try {
    const auto m = ptx::parse_module(text, "t.ptx");
    (void)ptx::Program::build(m, kernel);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PtxParser, EveryCommittedPtxParsesAndDecodes) {
  int entries = 0;
  for (const auto& dir : {std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/ptx",
                          std::string(CNNPERF_TEST_DATA_DIR) + "/ptx"}) {
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
      if (f.path().extension() != ".ptx") continue;
      const auto m = ptx::parse_module(read_text_file(f.path()), f.path().string());
      for (const auto& e : m.entries()) {
        const auto p = ptx::Program::build(m, e);
        EXPECT_GT(p->code.size(), 10u) << e;
        ++entries;
      }
    }
  }
  EXPECT_GE(entries, 2 * 14 + 7);
}

TEST(PtxParser, ModuleStructure) {
  const std::string text =
      std::string(kHeader) +
      ".global .align 4 .b32 table[4] = {1, 2, 3, 4};\n"
      ".visible .entry k(\n .param .u64 k_p0,\n .param .align 8 .b8 k_s[16]\n) .maxntid 128, 1, "
      "1\n{\n"
      " .reg .b32 %r<3>;\n .shared .align 4 .b8 buf[64];\n"
      "$L0:\n ld.param.u32 %r1, [k_s+4];\n { .reg .b32 t; mov.b32 t, %r1; }\n ret;\n}\n";
  const auto m = ptx::parse_module(text, "t.ptx");
  ASSERT_EQ(m.entries(), std::vector<std::string>{"k"});
  const auto* f = m.find("k");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->params.size(), 2u);
  EXPECT_EQ(f->params[1].size_bytes, 16);
  EXPECT_EQ(f->maxntid[0], 128);
  EXPECT_EQ(f->instructions.size(), 3u);
  EXPECT_EQ(f->labels.at("$L0"), 0u);
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].init.size(), 16u);
  EXPECT_EQ(m.globals[0].init[4], 2);
}

TEST(PtxParser, LaunchAboveMaxntidIsRefusedWithTheKernelsLimit) {
  // .maxntid 64, 2 allows 128 threads per CTA, whatever their shape.
  const auto m = ptx::parse_module(
      std::string(kHeader) + ".visible .entry k() .maxntid 64, 2\n{\n ret;\n}\n", "t.ptx");
  const auto p = ptx::Program::build(m, "k");
  EXPECT_EQ(p->maxntid[0], 64);
  EXPECT_EQ(p->maxntid[1], 2);
  ptx::LaunchSpec spec;
  spec.block = {128, 1, 1};
  EXPECT_EQ(ptx::run_launch(*p, spec).ctas_simulated, 1u);
  spec.block = {32, 4, 1};
  EXPECT_EQ(ptx::run_launch(*p, spec).ctas_simulated, 1u);
  spec.block = {129, 1, 1};
  try {
    (void)ptx::run_launch(*p, spec);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "block: kernel 'k' allows at most 128 threads per CTA (.maxntid), got 129");
  }
}

// A loop that never ends runs to the budget: minutes at the default, so the caller is told
// how far it has got, every progress_warp_insts, on the emulating thread.
TEST(PtxParser, ALongLaunchReportsProgressUpToTheBudget) {
  const auto m = ptx::parse_module(
      std::string(kHeader) + ".visible .entry spin()\n{\n$L:\n  bra.uni $L;\n}\n", "t.ptx");
  const auto p = ptx::Program::build(m, "spin");
  ptx::LaunchSpec spec;
  spec.block = {32, 1, 1};
  spec.max_warp_insts = 10'000;
  spec.progress_warp_insts = 1'000;
  std::vector<std::uint64_t> seen;
  spec.progress = [&](std::uint64_t executed, std::uint64_t max_warp_insts) {
    EXPECT_EQ(max_warp_insts, 10'000U);
    seen.push_back(executed);
  };
  EXPECT_THROW((void)ptx::run_launch(*p, spec), ptx::WarpBudgetExceeded);
  // One report per 1,000 instructions (each branch is one), none past the budget.
  ASSERT_EQ(seen.size(), 10U);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1'000 * (i + 1));
  // Without a callback: the same budget, nothing called.
  spec.progress = nullptr;
  EXPECT_THROW((void)ptx::run_launch(*p, spec), ptx::WarpBudgetExceeded);
}

TEST(PtxParser, MalformedInputNamesLineAndColumn) {
  // Missing ';' after an instruction: reported where the next token starts.
  EXPECT_EQ(
      error_of(std::string(kHeader) + ".visible .entry k()\n{\n  mov.u32 %r1, 1\n  ret;\n}\n"),
      "t.ptx:7:3: expected ',' or ';' after an operand, got 'ret'");
  EXPECT_EQ(error_of(std::string(kHeader) + ".visible .entry k()\n{\n  ret;\n  #\n}\n"),
            "t.ptx:7:3: unexpected character '#'");
  EXPECT_EQ(error_of(".version 8.0\n.target sm_80\n.bogus 1;\n"),
            "t.ptx:3:1: expected a directive (.entry, .func, .global, .const, .shared, ...), got "
            "'.bogus'");
  EXPECT_EQ(error_of(std::string(kHeader) + ".visible .entry k()\n{\n  mov.f32 %f1, 0f3F80;\n}\n"),
            "t.ptx:6:16: malformed hex float literal");
}

TEST(PtxParser, TruncatedInputIsReported) {
  const std::string full = read_text_file(test::ref_ptx("conv_direct"));
  const std::string cut = full.substr(0, full.size() / 2);
  const std::string e = error_of(cut, "conv2d_direct_nchw");
  EXPECT_NE(e.find("t.ptx:"), std::string::npos) << e;
  EXPECT_NE(e.find("end of file"), std::string::npos) << e;
  EXPECT_EQ(error_of(".version 8.0\n.target sm_80\n.visible .entry k(\n"),
            "t.ptx:4:1: expected .param, got end of file");
}

TEST(PtxParser, UnsupportedAndUnknownInstructions) {
  const std::string pre = std::string(kHeader) + ".visible .entry k()\n{\n";
  EXPECT_EQ(error_of(pre + "  wgmma.fence.sync.aligned;\n  ret;\n}\n"),
            "t.ptx:6:3: unsupported instruction 'wgmma.fence.sync.aligned': tier 3 "
            "(Hopper/Blackwell asynchronous feature), not emulated");
  EXPECT_EQ(error_of(pre + "  ret;\n  frobnicate.u32 %r1, %r2;\n}\n"),
            "t.ptx:7:3: unknown instruction 'frobnicate.u32'");
  EXPECT_EQ(error_of(pre + "  bra $NOWHERE;\n}\n"), "t.ptx:6:7: unknown label '$NOWHERE'");
  EXPECT_EQ(error_of(pre + "  add.s32 %r1, %r2;\n}\n"),
            "t.ptx:6:3: 'add.s32' expects 3 operands, got 2");
  EXPECT_EQ(error_of(pre + "  .reg .b32 %r<2>;\n  mov.u32 %r1, %tid.w;\n}\n"),
            "t.ptx:7:16: unknown special register '%tid.w'");
  // A register no .reg declares (ptxas refuses it) was read as zero.
  const std::string regs = pre + "  .reg .b32 %r<2>;\n  .reg .pred %p;\n";
  EXPECT_EQ(error_of(regs + "  add.s32 %r1, %r9, %r0;\n  ret;\n}\n"),
            "t.ptx:8:16: register '%r9' is not declared (no .reg names it)");
  EXPECT_EQ(error_of(regs + "  add.s32 %r2, %r1, %r0;\n  ret;\n}\n"),
            "t.ptx:8:11: register '%r2' is not declared (no .reg names it)");
  EXPECT_EQ(error_of(regs + "  setp.eq.s32 %q, %r1, %r0;\n  ret;\n}\n"),
            "t.ptx:8:15: register '%q' is not declared (no .reg names it)");
  EXPECT_EQ(
      error_of(regs + "  setp.eq.s32 %p, %r1, %r0;\n  @%p add.s32 %r1, %r1, %r0;\n  ret;\n}\n"),
      "");
}

TEST(PtxParser, UnknownKernelListsEntries) {
  const std::string text = read_text_file(test::ref_ptx("pool"));
  EXPECT_EQ(error_of(text, "nope"),
            "t.ptx: no kernel 'nope'; entries found: maxpool2d_nchw, avgpool2d_nchw");
}

TEST(PtxParser, WrongParametersSayWhich) {
  ptx::LaunchSpec s;
  s.grid = {1, 1, 1};
  s.block = {32, 1, 1};
  s.params[30] = 1;
  try {
    (void)analyze_ptx_file(test::ref_ptx("pool"), "maxpool2d_nchw", s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "kernel 'maxpool2d_nchw' takes 14 parameters (indices 0..13); parameter index 30 "
                 "does not exist");
  }
  s.params.clear();
  s.params[2] = 1;
  try {
    (void)analyze_ptx_file(test::ref_ptx("pool"), "maxpool2d_nchw", s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("missing values for: 3 (maxpool2d_nchw_param_3), 4 "
                     "(maxpool2d_nchw_param_4)"),
              std::string::npos)
        << m;
  }
  // A value wider than its parameter was truncated to the low bytes silently.
  s.params.clear();
  for (int i = 2; i <= 13; ++i) s.params[i] = 1;
  s.params[5] = 99999999999999ULL;
  try {
    (void)analyze_ptx_file(test::ref_ptx("pool"), "maxpool2d_nchw", s);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "params: index 5: 0x5af3107a3fff does not fit parameter 5 "
                 "(maxpool2d_nchw_param_5), 4 bytes (a float parameter takes 2.5f, not 2.5)");
  }
  // pad_h -1 sign-extended and pad_w given as its 32-bit pattern both fit an int parameter.
  s.params[5] = 1;
  s.params[12] = ~std::uint64_t{0};
  s.params[13] = 0xffffffffULL;
  EXPECT_NO_THROW((void)analyze_ptx_file(test::ref_ptx("pool"), "maxpool2d_nchw", s));
  s.params.clear();
  s.block = {2048, 1, 1};
  EXPECT_THROW((void)analyze_ptx_file(test::ref_ptx("pool"), "maxpool2d_nchw", s), InputError);
}

}  // namespace
}  // namespace cnnperf
