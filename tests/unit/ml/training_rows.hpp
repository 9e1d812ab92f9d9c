// SPDX-License-Identifier: Apache-2.0
// Building TrainingData by hand for the learned-model tests (the rows the tests add are
// SYNTHETIC; each test says how its "measured" latency is made).
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cnnperf/ml/learned_model.hpp"

namespace cnnperf::testing {

/// FamilyModel::fallback_spans that keeps the learned ratio everywhere: tests of how rows are
/// routed to models compare exact ratios, which the fallback would fade at the ranges' edges.
inline constexpr double kNoFallback = std::numeric_limits<double>::infinity();

/// Appends one row: `layer` on `gpu`, measured by `source` at `latency_ms`.
inline void add_row(TrainingData& data, const Layer& layer, const GpuSpec& gpu,
                    const std::string& source, double latency_ms) {
  data.layers.push_back(layer);
  data.gpus.push_back(gpu);
  data.gpu_names.push_back(gpu.name);
  data.sources.push_back(source);
  data.latency_ms.push_back(latency_ms);
}

/// Every row index of `data`, in order.
inline std::vector<std::size_t> all_rows(const TrainingData& data) {
  std::vector<std::size_t> rows(data.layers.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  return rows;
}

/// A model of one family: a decision tree of log latency at `max_depth`, fitted on every row of
/// `data` with the default features and no host floor, as the reference source's.
inline std::unique_ptr<LearnedModel> tree_model(const TrainingData& data, OpFamily family,
                                                int max_depth) {
  const FeatureSpec spec = FeatureSpec::parse("default");
  std::vector<FamilyModel> fams;
  fams.push_back(fit_family(data, all_rows(data), family, RegressorKind::kDecisionTree,
                            nlohmann::json{{"log_target", true}, {"max_depth", max_depth}}, spec,
                            /*host_floor=*/false));
  fams.back().source = kReferenceSource;
  return std::make_unique<LearnedModel>(spec, std::move(fams), EagerOverhead{},
                                        nlohmann::json::object());
}

}  // namespace cnnperf::testing
