// SPDX-License-Identifier: Apache-2.0
// Speed of the PTX emulator (docs/ptx.md quotes these figures):
//   BM_EmulateDirectConvFull    every CTA of a direct conv: warp-instructions per second
//   BM_EmulateIgemmFull         every CTA of an implicit-GEMM conv (shared memory, barriers)
//   BM_ResNet50ConvLayersSampled all 53 conv layers of ResNet-50 (batch 1), cold caches
//   BM_RepeatedLayerFromCache   the same layer again (served by the launch cache)
#include <benchmark/benchmark.h>

#include "cnnperf/model/zoo.hpp"
#include "cnnperf/ptx/ptx.hpp"
#include "ptx/ptx_command.hpp"

namespace {

using namespace cnnperf;

std::string ref(const std::string& stem) {
  return std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/ptx/" + stem + ".sm_80.ptx";
}

void report(benchmark::State& state, std::uint64_t warp_insts) {
  state.counters["warp_insts_per_s"] =
      benchmark::Counter(static_cast<double>(warp_insts), benchmark::Counter::kIsRate);
}

void BM_EmulateDirectConvFull(benchmark::State& state) {
  ptx::LaunchSpec s;
  // C=K=64, 14x14, 3x3, pad 1: 49 CTAs of 256 threads.
  s.grid = {49, 1, 1};
  s.block = {256, 1, 1};
  s.full = true;
  s.params[2] = 0;
  const std::int64_t v[] = {1, 64, 14, 14, 64, 3, 3, 14, 14, 1, 1, 1, 1, 1, 1, 0};
  for (int i = 0; i < 16; ++i) s.params[4 + i] = static_cast<std::uint64_t>(v[i]);
  std::uint64_t total = 0;
  for (auto _ : state) {
    ptx_clear_caches();
    const auto r = analyze_ptx_file(ref("conv_direct"), "conv2d_direct_nchw", s);
    total += r.warp_insts_simulated;
  }
  report(state, total);
}
BENCHMARK(BM_EmulateDirectConvFull)->Unit(benchmark::kMillisecond);

void BM_EmulateIgemmFull(benchmark::State& state) {
  ptx::LaunchSpec s;
  // C=64, K=128, 14x14, 3x3, pad 1, 64x64 tiles: 4x2 CTAs.
  s.grid = {4, 2, 1};
  s.block = {256, 1, 1};
  s.full = true;
  s.params[2] = 0;
  const std::int64_t v[] = {1, 64, 14, 14, 128, 3, 3, 14, 14, 1, 1, 1, 1, 1, 1, 0};
  for (int i = 0; i < 16; ++i) s.params[4 + i] = static_cast<std::uint64_t>(v[i]);
  std::uint64_t total = 0;
  for (auto _ : state) {
    ptx_clear_caches();
    const auto r =
        analyze_ptx_file(ref("conv_implicit_gemm"),
                         "_Z12conv2d_igemmILi64ELi64ELi8ELi4ELi4EEvPKfS1_S1_Pfiiiiiiiiiiiiiiii", s);
    total += r.warp_insts_simulated;
  }
  report(state, total);
}
BENCHMARK(BM_EmulateIgemmFull)->Unit(benchmark::kMillisecond);

void BM_ResNet50ConvLayersSampled(benchmark::State& state) {
  const Network net = build_zoo_network("resnet50");
  std::vector<Layer> convs;
  for (const auto& l : net.layers)
    if (l.op == Op::kConv2d) convs.push_back(l);
  std::uint64_t total = 0;
  for (auto _ : state) {
    ptx_clear_caches();
    for (const auto& l : convs)
      for (const auto& r : analyze_layer(l)) total += r.warp_insts_simulated;
  }
  state.counters["conv_layers"] = static_cast<double>(convs.size());
  report(state, total);
}
BENCHMARK(BM_ResNet50ConvLayersSampled)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RepeatedLayerFromCache(benchmark::State& state) {
  const Layer l = parse_layer_spec(
      "conv2d:c_in=256,h_in=14,w_in=14,c_out=256,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1");
  (void)analyze_layer(l);
  for (auto _ : state) benchmark::DoNotOptimize(analyze_layer(l));
}
BENCHMARK(BM_RepeatedLayerFromCache)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
