// SPDX-License-Identifier: Apache-2.0
// The feature matrix train fits, as CSV, with each row's fold and baseline.
#include "cnnperf/ml/feature_export.hpp"

#include <spdlog/spdlog.h>

#include <cmath>

#include "cnnperf/common/io.hpp"
#include "learned_model_internal.hpp"

namespace cnnperf {

using ml_detail::analytical_ms;
using ml_detail::matrix_for_rows;

std::string feature_matrix_csv(const TrainingData& data, const FeatureSpec& spec, CvScheme scheme,
                               int folds, std::uint64_t seed, bool host_floor) {
  std::vector<std::string> header{"family", "source", "gpu", "fold"};
  for (const auto& name : feature_names(spec)) header.push_back(name);
  for (const char* name : {"baseline_ms", "latency_ms", "log_ratio"}) header.emplace_back(name);
  std::string out = csv_line(header) + "\n";
  for (const auto family : kOpFamilies) {
    const auto rows = family_rows(data, family);
    if (rows.empty()) continue;
    if (const auto why = scheme_not_applicable(data, rows, scheme); !why.empty()) {
      // As train reports such a family: without folds, it has nothing to export.
      spdlog::warn("{} rows not exported: {}", to_string(family), why);
      continue;
    }
    int n_folds = 0;
    const auto fold = family_folds(data, rows, scheme, folds, seed, &n_folds);
    // Each row's floor as cross-validation fits it (fold_harness_terms): from the rows outside
    // its fold, so a held-out GPU gets the other GPUs' typical floor, not its own.
    std::vector<HarnessTerms> harness(static_cast<std::size_t>(n_folds));
    if (host_floor) {
      for (int f = 0; f < n_folds; ++f) {
        std::vector<std::size_t> train, test;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          (fold[i] != f ? train : test).push_back(rows[i]);
        }
        harness[static_cast<std::size_t>(f)] = fold_harness_terms(data, train, test, scheme);
      }
    }
    const FeatureMatrix x = matrix_for_rows(data, rows, spec);
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto r = rows[i];
      const double baseline = analytical_ms(data.layers[r], data.gpus[r]) +
                              harness[static_cast<std::size_t>(fold[i])].ms_for(
                                  data.sources[r], data.layers[r], data.gpus[r]);
      cells = {to_string(family), data.sources[r], data.gpus[r].name, std::to_string(fold[i])};
      for (std::size_t c = 0; c < x.cols; ++c) cells.push_back(format_number(x(i, c), 10));
      cells.push_back(format_number(baseline, 10));
      cells.push_back(format_number(data.latency_ms[r], 10));
      cells.push_back(format_number(std::log(data.latency_ms[r] / baseline), 10));
      out += csv_line(cells) + "\n";
    }
  }
  return out;
}

}  // namespace cnnperf
