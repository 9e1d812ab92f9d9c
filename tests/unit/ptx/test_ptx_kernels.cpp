// SPDX-License-Identifier: Apache-2.0
// Closed-form checks on the committed reference kernels: FMAs = MACs (valid taps), global
// bytes = tile arithmetic, sampling within 2% of --full, extrapolation, sm_80 == sm_90,
// LLVM (clang) PTX reconverges like nvcc PTX.
#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"
#include "ptx/ptx_command.hpp"
#include "ptx_test_util.hpp"

namespace cnnperf {
namespace {

PtxLayerOptions full_options() {
  PtxLayerOptions o;
  o.full = true;
  return o;
}

using test::ConvShape;
using test::op;

PtxLaunchResult run_direct(const ConvShape& c, bool full,
                           const std::string& file = test::ref_ptx("conv_direct")) {
  ptx::LaunchSpec s;
  const std::int64_t total = c.n * c.k * c.p() * c.q();
  s.grid = {(total + 127) / 128, 1, 1};
  s.block = {128, 1, 1};
  s.full = full;
  s.params[2] = 0;  // no bias
  test::set_params(s, 4, c.params());
  return analyze_ptx_file(file, "conv2d_direct_nchw", s);
}

TEST(PtxKernels, DirectConvFmasEqualValidTapMacs) {
  const ConvShape c{1, 3, 8, 8, 4, 3, 3, 1, 1};
  const auto r = run_direct(c, true);
  EXPECT_EQ(op(r.opcodes_thread, "fma.rn.f32"), 5808.0);  // 22*22 valid taps x 3 x 4
  EXPECT_EQ(op(r.opcodes_thread, "fma.rn.f32"), static_cast<double>(c.valid_taps() * c.c * c.k));
  // One output store per thread, two loads per valid tap.
  EXPECT_EQ(r.global_st_bytes, 4.0 * c.k * c.p() * c.q());
  EXPECT_EQ(r.global_ld_bytes, 8.0 * c.valid_taps() * c.c * c.k);
  EXPECT_FALSE(r.sampled);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
}

TEST(PtxKernels, DirectConvStridedSampledWithin2PercentOfFull) {
  const ConvShape c{1, 8, 30, 30, 16, 3, 3, 2, 1};
  const auto full = run_direct(c, true);
  const auto sampled = run_direct(c, false);
  ASSERT_TRUE(sampled.sampled);
  ASSERT_LT(sampled.ctas_simulated, full.ctas_simulated);
  EXPECT_EQ(op(full.opcodes_thread, "fma.rn.f32"), static_cast<double>(c.valid_taps() * c.c * c.k));
  for (const char* k : {"fma.rn.f32", "ld.global.nc.f32", "bra"})
    EXPECT_NEAR(op(sampled.opcodes_thread, k), op(full.opcodes_thread, k),
                0.02 * op(full.opcodes_thread, k))
        << k;
  EXPECT_NEAR(sampled.warp_insts, full.warp_insts, 0.02 * full.warp_insts);
  EXPECT_NEAR(sampled.thread_insts, full.thread_insts, 0.02 * full.thread_insts);
  EXPECT_NEAR(sampled.global_ld_bytes, full.global_ld_bytes, 0.02 * full.global_ld_bytes);
}

struct Tile {
  int bm, bn, bk, tm, tn;
  std::string entry() const {
    return "_Z12conv2d_igemmILi" + std::to_string(bm) + "ELi" + std::to_string(bn) + "ELi" +
           std::to_string(bk) + "ELi" + std::to_string(tm) + "ELi" + std::to_string(tn) +
           "EEvPKfS1_S1_Pfiiiiiiiiiiiiiiii";
  }
};

PtxLaunchResult run_igemm(const ConvShape& c, const Tile& t, bool full,
                          const std::string& file = test::ref_ptx("conv_implicit_gemm"),
                          bool extrapolate = false) {
  ptx::LaunchSpec s;
  const std::int64_t npq = c.n * c.p() * c.q();
  s.grid = {(npq + t.bn - 1) / t.bn, (c.k + t.bm - 1) / t.bm, 1};
  s.block = {(t.bm / t.tm) * (t.bn / t.tn), 1, 1};
  s.full = full;
  s.params[2] = 0;
  test::set_params(s, 4, c.params());
  if (extrapolate) {
    s.extrapolate_param = 5;  // C
    s.extrapolate_lo = static_cast<std::uint64_t>(c.c % t.bk + t.bk);
    s.extrapolate_hi = s.extrapolate_lo + static_cast<std::uint64_t>(t.bk);
  }
  return analyze_ptx_file(file, t.entry(), s);
}

TEST(PtxKernels, ImplicitGemmTileArithmetic) {
  // Padding and a ragged last tile in both dimensions: FMAs run on whole tiles.
  const ConvShape c{1, 5, 9, 9, 40, 3, 3, 1, 1};
  for (const Tile& t : {Tile{32, 32, 8, 2, 2}, Tile{64, 64, 8, 4, 4}, Tile{64, 32, 8, 4, 4},
                        Tile{128, 64, 8, 8, 4}}) {
    const auto r = run_igemm(c, t, true);
    const std::int64_t npq = c.n * c.p() * c.q(), crs = c.c * c.r * c.s;
    const std::int64_t gx = (npq + t.bn - 1) / t.bn, gy = (c.k + t.bm - 1) / t.bm;
    const std::int64_t ksteps = (crs + t.bk - 1) / t.bk;
    EXPECT_EQ(op(r.opcodes_thread, "fma.rn.f32"),
              static_cast<double>(gx * gy * t.bm * t.bn * ksteps * t.bk))
        << t.entry();
    // Global loads: every valid weight once per pixel tile, every non-padding input tap once per
    // channel tile.
    const double a_bytes = 4.0 * static_cast<double>(gx * c.k * crs);
    const double b_bytes = 4.0 * static_cast<double>(gy * c.c * c.valid_taps());
    EXPECT_EQ(r.global_ld_bytes, a_bytes + b_bytes) << t.entry();
    EXPECT_EQ(r.global_st_bytes, 4.0 * static_cast<double>(c.k * npq)) << t.entry();
    // Shared: each k-step stores the two tiles and every thread reads TM+TN values per kk.
    EXPECT_EQ(r.shared_st_bytes, 4.0 * static_cast<double>(gx * gy * ksteps * (t.bm + t.bn) * t.bk))
        << t.entry();
    EXPECT_EQ(r.shared_ld_bytes, 4.0 * static_cast<double>(gx * gy * ksteps * t.bk) *
                                     ((t.bm / t.tm) * (t.bn / t.tn)) * (t.tm + t.tn))
        << t.entry();
    EXPECT_EQ(op(r.opcodes_warp, "bar.sync"),
              static_cast<double>(gx * gy * 2 * ksteps * (r.block.x / 32)));
  }
}

TEST(PtxKernels, ImplicitGemmFmasEqualMacsWhenTilesDivide) {
  const ConvShape c{1, 8, 8, 8, 64, 1, 1, 1, 0};  // 1x1 conv: M=64, N=64, K=8
  const auto r = run_igemm(c, {64, 64, 8, 4, 4}, true);
  EXPECT_EQ(op(r.opcodes_thread, "fma.rn.f32"),
            static_cast<double>(c.n * c.k * c.c * c.p() * c.q()));
  EXPECT_DOUBLE_EQ(r.active_lane_efficiency, 1.0);
}

TEST(PtxKernels, ImplicitGemmSampledAndExtrapolatedWithin2Percent) {
  const ConvShape c{1, 64, 28, 28, 128, 3, 3, 1, 1};
  const Tile t{64, 64, 8, 4, 4};
  const auto full = run_igemm(c, t, true);
  const auto sampled = run_igemm(c, t, false);
  const auto extra = run_igemm(c, t, false, test::ref_ptx("conv_implicit_gemm"), true);
  ASSERT_TRUE(extra.extrapolated);
  for (const auto* r : {&sampled, &extra}) {
    EXPECT_NEAR(r->warp_insts, full.warp_insts, 0.02 * full.warp_insts);
    EXPECT_NEAR(r->thread_insts, full.thread_insts, 0.02 * full.thread_insts);
    EXPECT_NEAR(op(r->opcodes_thread, "fma.rn.f32"), op(full.opcodes_thread, "fma.rn.f32"),
                0.02 * op(full.opcodes_thread, "fma.rn.f32"));
    EXPECT_NEAR(r->global_ld_bytes, full.global_ld_bytes, 0.02 * full.global_ld_bytes);
    EXPECT_NEAR(r->shared_ld_bytes, full.shared_ld_bytes, 0.02 * full.shared_ld_bytes);
    EXPECT_NEAR(r->branch_efficiency, full.branch_efficiency, 0.02);
  }
  EXPECT_LT(extra.warp_insts_simulated, sampled.warp_insts_simulated);
}

TEST(PtxKernels, GemmTileArithmetic) {
  ptx::LaunchSpec s;
  const std::int64_t m = 70, n = 100, k = 37;
  s.grid = {(n + 31) / 32, (m + 31) / 32, 1};
  s.block = {256, 1, 1};
  s.full = true;
  test::set_params(s, 4, {m, n, k});
  const auto r = analyze_ptx_file(test::ref_ptx("gemm"),
                                  "_Z7gemm_ntILi32ELi32ELi8ELi2ELi2EEvPKfS1_S1_Pfiii", s);
  const std::int64_t ksteps = (k + 7) / 8;
  EXPECT_EQ(op(r.opcodes_thread, "fma.rn.f32"),
            static_cast<double>(s.grid.x * s.grid.y * 32 * 32 * ksteps * 8));
  // x read once per column tile, w once per row tile, bias once per output, y written once.
  EXPECT_EQ(r.global_ld_bytes,
            4.0 * static_cast<double>(s.grid.x * m * k + s.grid.y * n * k + m * n));
  EXPECT_EQ(r.global_st_bytes, 4.0 * static_cast<double>(m * n));
}

TEST(PtxKernels, DepthwiseAndPoolingValidTaps) {
  const ConvShape c{2, 6, 11, 11, 6, 3, 3, 2, 1};
  ptx::LaunchSpec s;
  const std::int64_t total = c.n * c.c * c.p() * c.q();
  s.grid = {(total + 63) / 64, 1, 1};
  s.block = {64, 1, 1};
  s.full = true;
  s.params[2] = 0;
  test::set_params(
      s, 4,
      {c.n, c.c, c.h, c.w, c.r, c.s, c.p(), c.q(), c.stride, c.stride, c.pad, c.pad, 1, 1, 0});
  const auto dw = analyze_ptx_file(test::ref_ptx("depthwise"), "depthwise_conv2d_nchw", s);
  EXPECT_EQ(op(dw.opcodes_thread, "fma.rn.f32"), static_cast<double>(c.valid_taps() * c.c));

  ptx::LaunchSpec p;
  p.grid = s.grid;
  p.block = s.block;
  p.full = true;
  test::set_params(p, 2,
                   {c.n, c.c, c.h, c.w, c.r, c.s, c.p(), c.q(), c.stride, c.stride, c.pad, c.pad});
  const auto mp = analyze_ptx_file(test::ref_ptx("pool"), "maxpool2d_nchw", p);
  EXPECT_EQ(op(mp.opcodes_thread, "max.f32"), static_cast<double>(c.valid_taps() * c.c));
  EXPECT_EQ(mp.global_ld_bytes, 4.0 * static_cast<double>(c.valid_taps() * c.c));
  const auto ap = analyze_ptx_file(test::ref_ptx("pool"), "avgpool2d_nchw", p);
  EXPECT_EQ(op(ap.opcodes_thread, "add.f32"), static_cast<double>(c.valid_taps() * c.c));
}

TEST(PtxKernels, Sm80AndSm90PtxGiveIdenticalCounts) {
  const ConvShape c{1, 4, 10, 10, 8, 3, 3, 1, 1};
  const auto a = run_direct(c, true, test::ref_ptx("conv_direct", "sm_80"));
  const auto b = run_direct(c, true, test::ref_ptx("conv_direct", "sm_90"));
  EXPECT_EQ(a.opcodes_warp, b.opcodes_warp);
  EXPECT_EQ(a.opcodes_thread, b.opcodes_thread);
}

TEST(PtxKernels, ClangPtxReconvergesLikeNvcc) {
  // LLVM lays out blocks differently from nvcc; with IPDOM reconvergence the FP datapath runs
  // once per warp per tap (same warp-level FMA count as nvcc) and lanes stay converged.
  const ConvShape c{1, 4, 14, 14, 8, 3, 3, 1, 1};
  const auto nv = run_direct(c, true);
  const auto cl = run_direct(c, true, test::data_ptx("conv_direct.clang.sm_80.ptx"));
  EXPECT_EQ(op(cl.opcodes_thread, "fma.rn.f32"), static_cast<double>(c.valid_taps() * c.c * c.k));
  EXPECT_EQ(op(cl.opcodes_warp, "fma.rn.f32"), op(nv.opcodes_warp, "fma.rn.f32"));
  EXPECT_EQ(cl.classes_warp.at("ld_global"), nv.classes_warp.at("ld_global"));
  EXPECT_GT(cl.active_lane_efficiency, 0.9);
  EXPECT_NEAR(cl.warp_insts, nv.warp_insts, 0.15 * nv.warp_insts);

  const ConvShape g{1, 5, 9, 9, 40, 3, 3, 1, 1};
  const Tile t{64, 32, 8, 4, 4};
  const auto gn = run_igemm(g, t, true);
  const auto gc = run_igemm(g, t, true, test::data_ptx("conv_implicit_gemm.clang.sm_80.ptx"));
  EXPECT_EQ(op(gc.opcodes_thread, "fma.rn.f32"), op(gn.opcodes_thread, "fma.rn.f32"));
  EXPECT_EQ(gc.global_ld_bytes, gn.global_ld_bytes);
  EXPECT_EQ(gc.shared_st_bytes, gn.shared_st_bytes);
  EXPECT_EQ(gc.classes_warp.at("sync"), gn.classes_warp.at("sync"));
}

TEST(PtxKernels, RepeatedLaunchesComeFromTheCache) {
  ptx_clear_caches();
  const ConvShape c{1, 4, 12, 12, 8, 3, 3, 1, 1};
  const auto a = run_direct(c, false);
  const auto b = run_direct(c, false);
  EXPECT_FALSE(a.from_cache);
  EXPECT_TRUE(b.from_cache);
  EXPECT_EQ(a.opcodes_warp, b.opcodes_warp);
  // Another launch of the same kernel is simulated, not taken from the first one's entry.
  const auto other = run_direct(ConvShape{1, 4, 12, 12, 16, 3, 3, 1, 1}, false);
  EXPECT_FALSE(other.from_cache);
  EXPECT_GT(other.thread_insts, a.thread_insts);
  ptx_clear_caches();
  EXPECT_FALSE(run_direct(c, false).from_cache);
}

TEST(PtxKernels, ABadSpecNamesItsFieldWithoutALineNumber) {
  try {
    (void)parse_layer_spec("conv2d:c_in=abc");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--spec: field 'c_in': expected a number, got 'abc'");
  }
}

TEST(PtxKernels, LayerMappingAndFeatures) {
  Layer l =
      parse_layer_spec("conv2d:batch=1,c_in=64,h_in=16,w_in=16,c_out=64,kernel_h=1,kernel_w=1");
  const auto rs = analyze_layer(l);
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(op(rs[0].opcodes_thread, "fma.rn.f32"), static_cast<double>(l.macs()));
  const auto f = ptx_layer_features(l);
  EXPECT_EQ(f.at("ptx_available"), 1.0);
  EXPECT_DOUBLE_EQ(f.at("ptx_fma_per_mac"), 1.0);
  EXPECT_GT(f.at("ptx_share_fp32"), 0.1);
  EXPECT_GT(f.at("ptx_registers"), 0.0);
  Layer sm = parse_layer_spec("softmax:c_in=10");
  EXPECT_EQ(ptx_layer_features(sm).at("ptx_available"), 0.0);
  // Grouped conv: one launch per group, counts scaled.
  Layer g = parse_layer_spec(
      "conv2d:c_in=32,h_in=8,w_in=8,c_out=32,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1,groups=4");
  const auto gr = analyze_layer(g, full_options());
  ASSERT_EQ(gr.size(), 1u);
  EXPECT_EQ(gr[0].launches, 4);
  // Depthwise: FMAs = MACs over valid taps.
  Layer d = parse_layer_spec(
      "conv2d:c_in=16,h_in=8,w_in=8,c_out=16,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1,groups=16");
  const auto dr = analyze_layer(d, full_options());
  EXPECT_EQ(op(dr[0].opcodes_thread, "fma.rn.f32"), 16.0 * 22 * 22);
}

TEST(PtxKernels, CommittedPtxIsNotStale) {
  const std::string script = std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/tools/gen_ptx.sh";
  // Anywhere: the kernel sources are the ones MANIFEST.txt records (sha256).
  EXPECT_EQ(std::system((script + " --check-sources").c_str()), 0)
      << "kernels/*.cu changed since models/ptx/ was generated: run tools/gen_ptx.sh";
  // With nvcc: regenerating gives the committed PTX and resources.
  if (std::system("command -v nvcc >/dev/null 2>&1 || test -x /usr/local/cuda/bin/nvcc") != 0)
    GTEST_SKIP() << "nvcc not present: sources checked, PTX not regenerated";
  EXPECT_EQ(std::system((script + " --check").c_str()), 0)
      << "models/ptx/ is stale: run tools/gen_ptx.sh (or the ptx_regen target)";
}

}  // namespace
}  // namespace cnnperf

namespace cnnperf {
namespace {

TEST(PtxKernels, LayerSamplingWithin2PercentOfFull) {
  for (const char* spec :
       {"conv2d:c_in=144,h_in=56,w_in=56,c_out=144,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1,groups="
        "144",
        "conv2d:c_in=64,h_in=28,w_in=28,c_out=64,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1",
        "linear:batch=4,c_in=512,c_out=100"}) {
    const Layer l = parse_layer_spec(spec);
    const auto s = analyze_layer(l);
    const auto f = analyze_layer(l, full_options());
    ASSERT_TRUE(s[0].sampled) << spec;
    EXPECT_NEAR(s[0].warp_insts, f[0].warp_insts, 0.02 * f[0].warp_insts) << spec;
    EXPECT_NEAR(s[0].thread_insts, f[0].thread_insts, 0.02 * f[0].thread_insts) << spec;
    EXPECT_NEAR(test::op(s[0].opcodes_thread, "fma.rn.f32"),
                test::op(f[0].opcodes_thread, "fma.rn.f32"),
                0.02 * test::op(f[0].opcodes_thread, "fma.rn.f32"))
        << spec;
    EXPECT_NEAR(s[0].global_ld_bytes, f[0].global_ld_bytes, 0.02 * f[0].global_ld_bytes) << spec;
  }
}

}  // namespace
}  // namespace cnnperf
