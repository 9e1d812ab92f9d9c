// SPDX-License-Identifier: Apache-2.0
// Cross-validation of the learned model: fold assignment per op family (k-fold, group-shape,
// leave-one-GPU-out, leave-source-out), out-of-fold predictions and the unseen-GPU check.
#include "cnnperf/ml/cross_validation.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <unordered_map>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/interval_residuals.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "learned_model_internal.hpp"

namespace cnnperf {

using ml_detail::analytical_ms;

namespace {

// Shape key without the GPU: rows sharing it stay in one fold for group-shape CV.
std::string shape_key(const Layer& l) {
  return csv_line(layer_csv_fields(l));
}

}  // namespace

CvScheme cv_scheme_from_string(std::string_view text) {
  const std::string lower = to_lower(text);
  if (lower == "kfold") return CvScheme::kKfold;
  if (lower == "group" || lower == "group-shape") return CvScheme::kGroupShape;
  if (lower == "leave-gpu-out" || lower == "logo") return CvScheme::kLeaveGpuOut;
  if (lower == "leave-source-out") return CvScheme::kLeaveSourceOut;
  throw ParameterError("cv", "unknown scheme '" + std::string(text) +
                                 "' (expected kfold, group-shape, leave-gpu-out or "
                                 "leave-source-out)");
}

std::string to_string(CvScheme scheme) {
  switch (scheme) {
    case CvScheme::kKfold: return "kfold";
    case CvScheme::kGroupShape: return "group-shape";
    case CvScheme::kLeaveGpuOut: return "leave-gpu-out";
    case CvScheme::kLeaveSourceOut: return "leave-source-out";
  }
  return "kfold";
}

std::string scheme_not_applicable(const TrainingData& data, const std::vector<std::size_t>& rows,
                                  CvScheme scheme) {
  if (scheme != CvScheme::kLeaveSourceOut) return "";
  std::set<std::string> sources;
  for (const auto r : rows) sources.insert(data.sources[r]);
  if (sources.size() >= 2) return "";
  const std::string only = sources.empty() ? "no" : "only '" + *sources.begin() + "'";
  return "rows of " + only +
         " source; leave-source-out trains on the other sources and needs rows of two or more";
}

HarnessTerms fold_harness_terms(const TrainingData& data, const std::vector<std::size_t>& train,
                                const std::vector<std::size_t>& test, CvScheme scheme) {
  HarnessTerms terms = fit_harness_terms(data, train);
  if (scheme == CvScheme::kLeaveSourceOut) terms.insert(fit_harness_terms(data, test));
  return terms;
}

std::vector<int> family_folds(const TrainingData& data, const std::vector<std::size_t>& rows,
                              CvScheme scheme, int folds, std::uint64_t seed, int* n_folds_out) {
  const std::size_t n = rows.size();
  std::vector<int> fold(n, 0);
  int n_folds = std::max(2, folds);
  std::mt19937_64 rng(seed);
  if (scheme == CvScheme::kLeaveGpuOut) {
    std::map<std::string, int> ids;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& name = data.gpus[rows[i]].name;
      const auto it = ids.emplace(name, static_cast<int>(ids.size())).first;
      fold[i] = it->second;
    }
    n_folds = static_cast<int>(ids.size());
    if (n_folds < 2) {
      throw InputError("leave-one-GPU-out: these rows hold only one GPU (" +
                       (n > 0 ? data.gpus[rows[0]].name : std::string("none")) +
                       "); expected rows of two or more");
    }
  } else if (scheme == CvScheme::kLeaveSourceOut) {
    if (const auto why = scheme_not_applicable(data, rows, scheme); !why.empty()) {
      throw InputError("leave-source-out: " + why);
    }
    std::map<std::string, int> ids;  // by name: the fold order does not depend on row order
    for (const auto r : rows) ids.emplace(data.sources[r], 0);
    int id = 0;
    for (auto& entry : ids) entry.second = id++;
    for (std::size_t i = 0; i < n; ++i) fold[i] = ids.at(data.sources[rows[i]]);
    n_folds = id;
  } else if (scheme == CvScheme::kGroupShape) {
    std::unordered_map<std::string, int> group_of;
    std::vector<int> group(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto key = shape_key(data.layers[rows[i]]);
      group[i] = group_of.emplace(key, static_cast<int>(group_of.size())).first->second;
    }
    if (group_of.size() < static_cast<std::size_t>(n_folds)) {
      throw ParameterError("folds", "only " + std::to_string(group_of.size()) +
                                        " distinct shapes for " + std::to_string(n_folds) +
                                        " folds; expected at least one shape per fold (fewer "
                                        "folds, or more rows)");
    }
    std::vector<int> assignment(group_of.size());
    std::iota(assignment.begin(), assignment.end(), 0);
    std::shuffle(assignment.begin(), assignment.end(), rng);
    for (std::size_t i = 0; i < n; ++i) {
      fold[i] = assignment[static_cast<std::size_t>(group[i])] % n_folds;
    }
  } else {
    // An empty fold scores nothing and one row cannot train: every fold needs a row.
    if (n < static_cast<std::size_t>(n_folds)) {
      throw ParameterError("folds", "only " + std::to_string(n) + " rows for " +
                                        std::to_string(n_folds) +
                                        " folds; expected at least one row per fold (fewer "
                                        "folds, or more rows)");
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i = 0; i < n; ++i) fold[order[i]] = static_cast<int>(i % n_folds);
  }
  if (n_folds_out != nullptr) *n_folds_out = n_folds;
  return fold;
}

CvResult cross_validate_family(const TrainingData& data, OpFamily family, RegressorKind kind,
                               const FamilyParams& params, const FeatureSpec& spec, CvScheme scheme,
                               int folds, std::uint64_t seed, SourceSplit split, bool host_floor,
                               double fallback_spans) {
  CvResult result;
  result.kind = kind;
  result.family = family;
  result.rows = family_rows(data, family);
  const std::size_t n = result.rows.size();
  if (n == 0) return result;
  result.not_applicable = scheme_not_applicable(data, result.rows, scheme);
  if (!result.not_applicable.empty()) return result;
  int n_folds = 0;
  std::vector<int> fold;
  try {
    fold = family_folds(data, result.rows, scheme, folds, seed, &n_folds);
  } catch (const ParameterError& e) {
    throw ParameterError(e.parameter(), to_string(family) + " rows: " + e.detail());
  } catch (const InputError& e) {
    // Name the family: another family of the same data may hold several GPUs.
    throw InputError(to_string(family) + " rows: " + e.what());
  }
  result.predicted_ms.assign(n, 0);
  result.predicted_without_fallback_ms.assign(n, 0);
  const auto start = std::chrono::steady_clock::now();
  for (int f = 0; f < n_folds; ++f) {
    std::vector<std::size_t> train, test, test_pos;
    for (std::size_t i = 0; i < n; ++i) {
      if (fold[i] == f) {
        test.push_back(result.rows[i]);
        test_pos.push_back(i);
      } else {
        train.push_back(result.rows[i]);
      }
    }
    if (test.empty() || train.empty()) continue;
    spdlog::info("cv {} {} fold {}/{}: train {} test {}", to_string(kind), to_string(family), f + 1,
                 n_folds, train.size(), test.size());
    std::vector<FamilyModel> models =
        fit_family_models(data, train, family, kind, params, spec, split, host_floor);
    for (auto& m : models) m.fallback_spans = fallback_spans;
    if (host_floor && scheme == CvScheme::kLeaveSourceOut) {
      // The held-out source's own harness terms, from its own rows; the regressors never saw
      // them (fold_harness_terms).
      const HarnessTerms own = fit_harness_terms(data, test);
      for (auto& m : models) m.harness.insert(own);
    }
    std::vector<const FamilyModel*> views;
    views.reserve(models.size());
    for (const auto& m : models) views.push_back(&m);
    const auto pred = predict_rows(views, data, test, spec);
    for (std::size_t i = 0; i < test.size(); ++i) result.predicted_ms[test_pos[i]] = pred[i];
    for (auto& m : models) m.fallback_spans = std::numeric_limits<double>::infinity();
    const auto without = predict_rows(views, data, test, spec);
    for (std::size_t i = 0; i < test.size(); ++i) {
      result.predicted_without_fallback_ms[test_pos[i]] = without[i];
    }
  }
  result.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> truth(n);
  for (std::size_t i = 0; i < n; ++i) truth[i] = data.latency_ms[result.rows[i]];
  const std::size_t n_features = feature_names(spec).size();
  result.overall = compute_metrics(truth, result.predicted_ms, n_features);
  using Split = std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>;
  Split by_gpu;
  Split by_source;
  for (std::size_t i = 0; i < n; ++i) {
    for (auto* split : {&by_gpu, &by_source}) {
      const std::size_t row = result.rows[i];
      auto& [t, p] = (*split)[split == &by_gpu ? data.gpus[row].name : data.sources[row]];
      t.push_back(truth[i]);
      p.push_back(result.predicted_ms[i]);
    }
  }
  for (const auto& [gpu, tp] : by_gpu) {
    result.per_gpu[gpu] = compute_metrics(tp.first, tp.second, n_features);
  }
  for (const auto& [source, tp] : by_source) {
    result.per_source[source] = compute_metrics(tp.first, tp.second, n_features);
  }
  if (scheme == CvScheme::kLeaveSourceOut) {
    std::map<std::string, std::set<std::string>> sources_of_gpu;
    for (const auto r : result.rows) sources_of_gpu[data.gpus[r].name].insert(data.sources[r]);
    for (const auto r : result.rows) {
      auto& count = result.unseen_gpu_rows[data.sources[r]];  // every source gets its entry
      if (sources_of_gpu[data.gpus[r].name].size() == 1) ++count;
    }
  }
  return result;
}

std::string UnseenGpuCheck::choice() const {
  if (rows == 0) return "learned";
  std::string best = "learned";
  double best_mape = learned_mape_pct;
  if (analytical_mape_pct < best_mape) {
    best = "analytical";
    best_mape = analytical_mape_pct;
  }
  if (gpu_blind_mape_pct < best_mape) best = "gpu-blind";  // false for NaN
  return best;
}

const std::vector<IntervalResidual>& UnseenGpuCheck::chosen_residuals() const {
  const std::string best = choice();
  if (best == "analytical") return analytical_residuals;
  if (best == "gpu-blind") return gpu_blind_residuals;
  return learned_residuals;
}

std::map<std::string, UnseenGpuCheck::GpuScores> UnseenGpuCheck::per_gpu() const {
  // A residual's group is "source/gpu"; the check's rows are all of the reference source.
  const auto gpu_of = [](const IntervalResidual& r) {
    const auto slash = r.group.find('/');
    return slash == std::string::npos ? r.group : r.group.substr(slash + 1);
  };
  const auto mape_per_gpu = [&](const std::vector<IntervalResidual>& residuals) {
    std::map<std::string, std::pair<double, std::size_t>> sums;
    for (const auto& r : residuals) {
      auto& [sum, n] = sums[gpu_of(r)];
      sum += std::abs(r.predicted_ms - r.measured_ms) / r.measured_ms;
      ++n;
    }
    std::map<std::string, std::pair<double, std::size_t>> out;
    for (const auto& [gpu, s] : sums) {
      out[gpu] = {100 * s.first / static_cast<double>(s.second), s.second};
    }
    return out;
  };
  std::map<std::string, GpuScores> out;
  for (const auto& [gpu, m] : mape_per_gpu(learned_residuals)) {
    out[gpu].learned_mape_pct = m.first;
    out[gpu].rows = m.second;
  }
  for (const auto& [gpu, m] : mape_per_gpu(analytical_residuals)) {
    out[gpu].analytical_mape_pct = m.first;
  }
  for (const auto& [gpu, m] : mape_per_gpu(gpu_blind_residuals)) {
    out[gpu].gpu_blind_mape_pct = m.first;
  }
  return out;
}

UnseenGpuCheck unseen_gpu_check(const TrainingData& data, const CvResult& logo, bool host_floor) {
  UnseenGpuCheck check;
  check.family = logo.family;
  // Per held-out GPU, the floors its fold had: each pair's floor reads only that pair's rows,
  // so those are all pairs' floors but the held-out GPU's, fitted once. Only the reference
  // source's rows are scored, and its harness has no traffic terms
  // (harness_runs_extra_kernels), so none are fitted here.
  std::map<std::string, HarnessTerms> without;
  if (host_floor) {
    const auto floors = fit_host_floors(data, logo.rows);
    for (const auto& entry : floors) {
      const std::string& held_gpu = entry.first.second;
      auto& fold = without[held_gpu].floor_ms;
      if (!fold.empty()) continue;
      fold = floors;
      std::erase_if(fold, [&](const auto& f) { return f.first.second == held_gpu; });
    }
  }
  std::vector<double> truth, learned, analytical;
  std::map<std::string, int> fold_of;  // one fold per held-out GPU
  for (std::size_t i = 0; i < logo.rows.size(); ++i) {
    const std::size_t r = logo.rows[i];
    if (data.sources[r] != kReferenceSource) continue;
    truth.push_back(data.latency_ms[r]);
    learned.push_back(logo.predicted_ms[i]);
    const auto it = without.find(data.gpus[r].name);
    const double floor = it == without.end()
                             ? 0.0
                             : it->second.ms_for(data.sources[r], data.layers[r], data.gpus[r]);
    analytical.push_back(analytical_ms(data.layers[r], data.gpus[r]) + floor);
    const int fold =
        fold_of.emplace(data.gpus[r].name, static_cast<int>(fold_of.size())).first->second;
    const std::string family = interval_family(data.layers[r]);
    const std::string group = interval_group(data, r);
    check.learned_residuals.push_back(
        {family, learned.back(), truth.back(), fold, group, data.sources[r]});
    check.analytical_residuals.push_back(
        {family, analytical.back(), truth.back(), fold, group, data.sources[r]});
  }
  check.rows = truth.size();
  if (check.rows == 0) return check;
  check.learned_mape_pct = compute_metrics(truth, learned, 1).mape_pct;
  check.analytical_mape_pct = compute_metrics(truth, analytical, 1).mape_pct;
  return check;
}

}  // namespace cnnperf
