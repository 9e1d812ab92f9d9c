// SPDX-License-Identifier: Apache-2.0
// Speed of the analytical prediction path (docs/benchmarks.md quotes these figures):
//   BM_AllZooNetsAllGpus       build every zoo network and predict all its layers on every
//                              bundled GPU (requirement: under 5 s in total)
//   BM_PredictNetworkResNet50  predict_network(resnet50, a100), network already built
//   BM_BuildZooResNet50        build_zoo_network("resnet50") alone
#include <benchmark/benchmark.h>

#include <cstddef>

#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/predict.hpp"

namespace {

using namespace cnnperf;

void BM_AllZooNetsAllGpus(benchmark::State& state) {
  const auto& gpus = GpuDatabase::bundled().all();
  const AnalyticalModel model;
  std::size_t layers_predicted = 0;
  std::size_t pairs = 0;
  for (auto _ : state) {
    for (const auto& entry : zoo_entries()) {
      // Built once per network per iteration: the layers do not depend on the GPU.
      const Network net = build_zoo_network(entry.name);
      for (const auto& gpu : gpus) {
        const auto preds = model.predict_layers(net.layers, gpu);
        benchmark::DoNotOptimize(preds.data());
        layers_predicted += preds.size();
        ++pairs;
      }
    }
  }
  state.counters["nets"] = static_cast<double>(zoo_entries().size());
  state.counters["gpus"] = static_cast<double>(gpus.size());
  state.counters["net_gpu_pairs_per_s"] =
      benchmark::Counter(static_cast<double>(pairs), benchmark::Counter::kIsRate);
  state.counters["layers_per_s"] =
      benchmark::Counter(static_cast<double>(layers_predicted), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AllZooNetsAllGpus)->Unit(benchmark::kMillisecond);

void BM_PredictNetworkResNet50(benchmark::State& state) {
  const GpuSpec gpu = GpuDatabase::bundled().resolve("a100");
  const Network net = build_zoo_network("resnet50");
  const AnalyticalModel model;
  for (auto _ : state) {
    const NetworkPrediction p =
        predict_network(net, gpu, model, Mode::kInference, PowerModel::bundled());
    benchmark::DoNotOptimize(p.latency_ms);
  }
  state.counters["layers"] = static_cast<double>(net.layers.size());
}
BENCHMARK(BM_PredictNetworkResNet50)->Unit(benchmark::kMicrosecond);

void BM_BuildZooResNet50(benchmark::State& state) {
  for (auto _ : state) {
    const Network net = build_zoo_network("resnet50");
    benchmark::DoNotOptimize(net.layers.data());
  }
}
BENCHMARK(BM_BuildZooResNet50)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
