// SPDX-License-Identifier: Apache-2.0
// Training time of the five regressors on SYNTHETIC data: 100k rows x 30 features drawn
// from a fixed-seed generator, target a smooth non-linear function of some of them (nothing
// here is a measurement). Each benchmark is one full fit() with default parameters and
// n_threads=2. "Time" is wall time, "CPU" the CPU time of the whole process (all threads),
// which is the robust figure on a shared machine; docs/ml-bench.md reports both.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "cnnperf/ml/regressor.hpp"

namespace {

constexpr std::size_t kRows = 100000;
constexpr std::size_t kCols = 30;

struct Synthetic {
  cnnperf::FeatureMatrix x;
  std::vector<double> y;
};

const Synthetic& synthetic() {
  static const Synthetic data = [] {
    Synthetic d;
    d.x = cnnperf::FeatureMatrix(kRows, kCols);
    d.y.resize(kRows);
    std::mt19937_64 rng(2024);
    auto uniform = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    for (std::size_t r = 0; r < kRows; ++r) {
      for (std::size_t c = 0; c < kCols; ++c) {
        // A mix like real layer features: log-scale sizes, small integers, 0/1 flags.
        double v = uniform();
        if (c % 3 == 0) v = std::exp(10.0 * v);
        if (c % 3 == 1) v = std::floor(8.0 * v);
        if (c % 5 == 4) v = v < 0.5 ? 0.0 : 1.0;
        d.x(r, c) = v;
      }
      const double* v = d.x.row(r);
      d.y[r] = 0.01 * std::log1p(v[0]) * (1.0 + v[1]) + 0.5 * std::sin(v[2]) + 0.1 * v[3] * v[4] +
               0.05 * std::sqrt(v[6]) + 1.0 + 0.02 * (uniform() - 0.5);
    }
    return d;
  }();
  return data;
}

void fit_kind(benchmark::State& state, cnnperf::RegressorKind kind) {
  const Synthetic& d = synthetic();
  nlohmann::json params = nlohmann::json::object();
  if (kind != cnnperf::RegressorKind::kLinear && kind != cnnperf::RegressorKind::kDecisionTree) {
    params["n_threads"] = 2;
  }
  for (auto _ : state) {
    auto model = cnnperf::make_regressor(kind, params);
    model->fit(d.x, d.y);
    benchmark::DoNotOptimize(model);
  }
  state.counters["rows"] = static_cast<double>(kRows);
  state.counters["features"] = static_cast<double>(kCols);
}

void BM_FitLinear(benchmark::State& s) {
  fit_kind(s, cnnperf::RegressorKind::kLinear);
}
void BM_FitKnn(benchmark::State& s) {
  fit_kind(s, cnnperf::RegressorKind::kKnn);
}
void BM_FitDecisionTree(benchmark::State& s) {
  fit_kind(s, cnnperf::RegressorKind::kDecisionTree);
}
void BM_FitRandomForest(benchmark::State& s) {
  fit_kind(s, cnnperf::RegressorKind::kRandomForest);
}
void BM_FitXgboost(benchmark::State& s) {
  fit_kind(s, cnnperf::RegressorKind::kXgboost);
}

void BM_FitAllFive(benchmark::State& state) {
  const Synthetic& d = synthetic();
  for (auto _ : state) {
    for (auto kind : cnnperf::all_regressor_kinds()) {
      auto model = cnnperf::make_regressor(kind, {});
      model->fit(d.x, d.y);
      benchmark::DoNotOptimize(model);
    }
  }
}

// One iteration each: a fit takes seconds, and the point is the wall time of one training.
void one_fit(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->Iterations(1)->MeasureProcessCPUTime()->UseRealTime();
}
BENCHMARK(BM_FitLinear)->Apply(one_fit);
BENCHMARK(BM_FitKnn)->Apply(one_fit);
BENCHMARK(BM_FitDecisionTree)->Apply(one_fit);
BENCHMARK(BM_FitRandomForest)->Apply(one_fit);
BENCHMARK(BM_FitXgboost)->Apply(one_fit);
BENCHMARK(BM_FitAllFive)->Apply(one_fit);

}  // namespace

BENCHMARK_MAIN();
