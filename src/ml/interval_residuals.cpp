// SPDX-License-Identifier: Apache-2.0
// Held-out residuals for the prediction intervals (analytical, learned, end to end).
#include "cnnperf/ml/interval_residuals.hpp"

#include <set>

#include "learned_model_internal.hpp"

namespace cnnperf {

std::string interval_group(const TrainingData& data, std::size_t r) {
  return data.sources[r] + "/" + data.gpus[r].name;
}

std::vector<IntervalResidual> analytical_residuals(
    const TrainingData& data, CvScheme scheme, int folds, std::uint64_t seed,
    std::map<std::string, std::string>* not_applicable) {
  std::vector<IntervalResidual> out;
  for (const auto family : kOpFamilies) {
    const auto rows = family_rows(data, family);
    if (rows.empty()) continue;
    if (const auto why = scheme_not_applicable(data, rows, scheme); !why.empty()) {
      if (not_applicable != nullptr) (*not_applicable)[to_string(family)] = why;
      continue;
    }
    if (scheme == CvScheme::kLeaveGpuOut) {
      std::set<std::string> gpus;
      for (const auto r : rows) gpus.insert(data.gpus[r].name);
      if (gpus.size() < 2) {
        if (not_applicable != nullptr) {
          (*not_applicable)[to_string(family)] = "rows of one GPU (" + *gpus.begin() + ")";
        }
        continue;
      }
    }
    int n_folds = 0;
    const std::vector<int> fold = family_folds(data, rows, scheme, folds, seed, &n_folds);
    for (int f = 0; f < n_folds; ++f) {
      std::vector<std::size_t> train;
      std::vector<std::size_t> test;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        (fold[i] == f ? test : train).push_back(rows[i]);
      }
      if (test.empty()) continue;
      // HarnessTerms::floor_for gives a pair without rows of its own the typical floor.
      const HarnessTerms harness = fold_harness_terms(data, train, test, scheme);
      for (const auto r : test) {
        const double predicted = ml_detail::analytical_ms(data.layers[r], data.gpus[r]) +
                                 harness.ms_for(data.sources[r], data.layers[r], data.gpus[r]);
        // Grouped by machine, so the band is that of a new machine's offset
        // (IntervalTable::fit).
        out.push_back({interval_family(data.layers[r]), predicted, data.latency_ms[r], f,
                       interval_group(data, r), data.sources[r]});
      }
    }
  }
  return out;
}

std::vector<IntervalResidual> cv_residuals(const TrainingData& data, const CvResult& cv,
                                           CvScheme scheme, int folds, std::uint64_t seed) {
  std::vector<IntervalResidual> out;
  if (!cv.not_applicable.empty() || cv.rows.empty()) return out;
  const std::vector<int> fold = family_folds(data, cv.rows, scheme, folds, seed, nullptr);
  out.reserve(cv.rows.size());
  for (std::size_t i = 0; i < cv.rows.size(); ++i) {
    const std::size_t r = cv.rows[i];
    out.push_back({interval_family(data.layers[r]), cv.predicted_ms[i], data.latency_ms[r], fold[i],
                   interval_group(data, r), data.sources[r]});
  }
  return out;
}

std::vector<IntervalResidual> e2e_residuals(const std::vector<E2eRow>& rows,
                                            const E2eEvaluation& evaluation) {
  std::map<std::string, int> fold_of;
  std::vector<IntervalResidual> out;
  for (std::size_t i = 0; i < rows.size() && i < evaluation.predicted_ms.size(); ++i) {
    if (rows[i].num_gpus != 1) continue;  // the totals' interval is of one GPU's step
    const auto it = fold_of.emplace(rows[i].gpu.name, static_cast<int>(fold_of.size())).first;
    out.push_back({kNetworkIntervalFamily, evaluation.predicted_ms[i], rows[i].latency_ms,
                   it->second, rows[i].gpu.name, ""});
  }
  return out;
}

}  // namespace cnnperf
