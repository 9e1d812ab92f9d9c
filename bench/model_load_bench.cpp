// SPDX-License-Identifier: Apache-2.0
// Speed of loading the bundled learned model (docs/benchmarks.md quotes these figures):
//   BM_LoadBundledModel          LearnedModel::load(models/cnnperf_default.json): the fast
//                                path `predict --model` takes (mapped file, boosters read in
//                                place, families on parallel threads)
//   BM_LoadBundledModelPlainDom  the same file through a full nlohmann DOM and from_json (what
//                                a caller holding a parsed document pays)
//   BM_PredictResNet50Learned    predict_network(resnet50, a100) with the loaded model
// Wall time (UseRealTime): the loader uses several threads.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"

namespace {

using namespace cnnperf;

std::string bundled_model_path() {
  return std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/cnnperf_default.json";
}

void BM_LoadBundledModel(benchmark::State& state) {
  for (auto _ : state) {
    const auto model = LearnedModel::load(bundled_model_path());
    benchmark::DoNotOptimize(model.get());
  }
}
BENCHMARK(BM_LoadBundledModel)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LoadBundledModelPlainDom(benchmark::State& state) {
  std::ifstream in(bundled_model_path(), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  for (auto _ : state) {
    const auto model = LearnedModel::from_json(nlohmann::json::parse(text.str()), "bundled");
    benchmark::DoNotOptimize(model.get());
  }
}
BENCHMARK(BM_LoadBundledModelPlainDom)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PredictResNet50Learned(benchmark::State& state) {
  const auto model = LearnedModel::load(bundled_model_path());
  const Network net = build_zoo_network("resnet50");
  const GpuSpec gpu = *GpuDatabase::bundled().find("a100");
  for (auto _ : state) {
    const auto preds = model->predict_layers(net.layers, gpu);
    benchmark::DoNotOptimize(preds.data());
  }
}
BENCHMARK(BM_PredictResNet50Learned)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
