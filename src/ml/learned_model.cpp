// SPDX-License-Identifier: Apache-2.0
// Per-family learned models over the analytical baseline: fitting and prediction. The model
// file is read and written in model_file.cpp, loaded fast in model_file_loader.cpp.
#include "cnnperf/ml/learned_model.hpp"

#include <spdlog/spdlog.h>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <string_view>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/runtime_fit.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "learned_model_internal.hpp"
#include "regressor_internal.hpp"

namespace cnnperf {

namespace ml_detail {

double analytical_ms(const Layer& layer, const GpuSpec& gpu) {
  return estimate_layer(layer, gpu).latency_ms;
}

FeatureMatrix matrix_for_rows(const TrainingData& data, const std::vector<std::size_t>& rows,
                              const FeatureSpec& spec,
                              const std::vector<const GpuSpec*>* feature_gpus) {
  std::vector<const Layer*> layers;
  std::vector<const GpuSpec*> gpus;
  std::vector<std::string> sources;
  layers.reserve(rows.size());
  gpus.reserve(rows.size());
  sources.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    layers.push_back(&data.layers[r]);
    gpus.push_back(feature_gpus != nullptr ? (*feature_gpus)[i] : &data.gpus[r]);
    sources.push_back(data.sources[r]);
  }
  return build_feature_matrix(layers, gpus, sources, spec);
}

}  // namespace ml_detail

using ml_detail::analytical_ms;
using ml_detail::matrix_for_rows;

FeatureMatrix feature_matrix_of_rows(const TrainingData& data, const std::vector<std::size_t>& rows,
                                     const FeatureSpec& spec) {
  return matrix_for_rows(data, rows, spec);
}

nlohmann::json default_params(RegressorKind kind) {
  switch (kind) {
    case RegressorKind::kLinear: return {{"log_target", true}, {"l2", 1e-3}};
    case RegressorKind::kKnn: return {{"log_target", true}, {"k", 5}, {"weights", "distance"}};
    case RegressorKind::kDecisionTree:
      return {{"log_target", true}, {"max_depth", 18}, {"min_samples_leaf", 3}};
    case RegressorKind::kRandomForest:
      return {
          {"log_target", true}, {"n_trees", 60}, {"min_samples_leaf", 2}, {"max_features", 0.5}};
    case RegressorKind::kXgboost:
      return {{"log_target", true},   {"n_estimators", 600}, {"learning_rate", 0.08},
              {"max_depth", 8},       {"subsample", 0.9},    {"colsample_bytree", 0.8},
              {"min_child_weight", 2}};
  }
  return {{"log_target", true}};
}

double HarnessTerms::floor_for(const std::string& source, const std::string& gpu) const {
  const auto& host_floor_ms = floor_ms;
  if (host_floor_ms.empty() || source == kKernelTimeSource) return 0;
  const auto it = host_floor_ms.find({source, gpu});
  if (it != host_floor_ms.end()) return it->second;
  for (const bool same_source : {true, false}) {
    double log_sum = 0;
    int n = 0;
    for (const auto& [key, floor] : host_floor_ms) {
      if ((!same_source || key.first == source) && floor > 0) {
        log_sum += std::log(floor);
        ++n;
      }
    }
    if (n > 0) return std::exp(log_sum / n);
  }
  return 0;
}

double HarnessTerms::ms_for(const std::string& source, const Layer& layer,
                            const GpuSpec& gpu) const {
  const double floor = floor_for(source, gpu.name);
  if (source == kKernelTimeSource) return floor;
  const auto it = traffic.find({source, to_string(layer.pass)});
  if (it == traffic.end()) return floor;
  const auto t = traffic_ms(layer, gpu);
  return floor + it->second.input * t[0] + it->second.output * t[1] + it->second.weight * t[2];
}

void HarnessTerms::insert(const HarnessTerms& other) {
  floor_ms.insert(other.floor_ms.begin(), other.floor_ms.end());
  traffic.insert(other.traffic.begin(), other.traffic.end());
}

bool harness_runs_extra_kernels(const std::string& source) {
  return source != kReferenceSource && source != kKernelTimeSource;
}

std::array<double, 3> traffic_ms(const Layer& layer, const GpuSpec& gpu) {
  if (gpu.sm_count <= 0 || gpu.boost_clock_mhz <= 0) return {0, 0, 0};
  const double bytes_per_ms = gpu.sm_count * gpu.boost_clock_mhz * 1e3;  // a byte per SM cycle
  const double word = bytes_per_element(layer.dtype);
  return {word * static_cast<double>(layer.input_elements()) / bytes_per_ms,
          word * static_cast<double>(layer.output_elements()) / bytes_per_ms,
          word * static_cast<double>(layer.params()) / bytes_per_ms};
}

namespace {

// Non-negative least squares of y on the three columns of x: the best unconstrained solution
// over each subset of the columns that is non-negative (the optimum is one of them).
TrafficMultiples nnls3(const std::vector<std::array<double, 3>>& x, const std::vector<double>& y) {
  Eigen::Matrix3d gram = Eigen::Matrix3d::Zero();
  Eigen::Vector3d rhs = Eigen::Vector3d::Zero();
  double yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Eigen::Vector3d xi(x[i][0], x[i][1], x[i][2]);
    gram += xi * xi.transpose();
    rhs += xi * y[i];
    yy += y[i] * y[i];
  }
  Eigen::Vector3d best = Eigen::Vector3d::Zero();
  double best_sse = yy;
  for (int mask = 1; mask < 8; ++mask) {
    std::vector<int> cols;
    for (int c = 0; c < 3; ++c) {
      if ((mask >> c & 1) != 0) cols.push_back(c);
    }
    const auto n = static_cast<Eigen::Index>(cols.size());
    Eigen::MatrixXd g(n, n);
    Eigen::VectorXd b(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      b(i) = rhs(cols[i]);
      for (Eigen::Index j = 0; j < n; ++j) g(i, j) = gram(cols[i], cols[j]);
    }
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(g);
    if (ldlt.info() != Eigen::Success || !ldlt.isPositive()) continue;
    const Eigen::VectorXd sol = ldlt.solve(b);
    if (!sol.allFinite() || (sol.array() < 0).any()) continue;
    Eigen::Vector3d full = Eigen::Vector3d::Zero();
    for (Eigen::Index i = 0; i < n; ++i) full(cols[i]) = sol(i);
    const double sse = yy - 2 * full.dot(rhs) + full.dot(gram * full);
    if (sse < best_sse) {
      best_sse = sse;
      best = full;
    }
  }
  return {best(0), best(1), best(2)};
}

using PairFloors = std::map<std::pair<std::string, std::string>, double>;

// Each row's analytical estimate, by position in `rows`: the harness fits read it many times.
std::vector<double> analytical_of(const TrainingData& data, const std::vector<std::size_t>& rows) {
  std::vector<double> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out[i] = analytical_ms(data.layers[rows[i]], data.gpus[rows[i]]);
  }
  return out;
}

// fit_host_floors over `analytical` (by position in `rows`), each row's other harness terms
// `known_ms` (by position too) taken off first.
PairFloors host_floors(const TrainingData& data, const std::vector<std::size_t>& rows,
                       const std::vector<double>& analytical,
                       const std::function<double(std::size_t)>& known_ms) {
  // (measured ms, measured - analytical - known) per pair. The fastest rows show the floor:
  // what they measured beyond the kernel the analytical model prices (and any known term).
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> by_pair;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    const double a = analytical[i] + (known_ms ? known_ms(i) : 0.0);
    by_pair[{data.sources[r], data.gpus[r].name}].emplace_back(data.latency_ms[r],
                                                               data.latency_ms[r] - a);
  }
  PairFloors out;
  for (auto& [key, v] : by_pair) {
    const std::size_t k = std::min(v.size(), std::max(kFloorMinRows, v.size() / kFloorRowShare));
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    std::vector<double> excess(k);
    for (std::size_t i = 0; i < k; ++i) excess[i] = std::max(0.0, v[i].second);
    const auto mid = excess.begin() + static_cast<std::ptrdiff_t>(k / 2);
    std::nth_element(excess.begin(), mid, excess.end());
    out[key] = *mid;
  }
  return out;
}

// The traffic multiples of fit_harness_terms over `analytical` (by position in `rows`).
std::map<std::pair<std::string, std::string>, TrafficMultiples> harness_traffic(
    const TrainingData& data, const std::vector<std::size_t>& rows,
    const std::vector<double>& analytical, const PairFloors& floors) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    if (harness_runs_extra_kernels(data.sources[r])) {
      by_key[{data.sources[r], to_string(data.layers[r].pass)}].push_back(i);
    }
  }
  std::map<std::pair<std::string, std::string>, TrafficMultiples> out;
  for (const auto& [key, part] : by_key) {
    if (part.size() < kTrafficMinRows) continue;
    std::vector<std::array<double, 3>> x;
    std::vector<double> y;
    x.reserve(part.size());
    y.reserve(part.size());
    for (const auto i : part) {
      const auto r = rows[i];
      const auto floor = floors.find({data.sources[r], data.gpus[r].name});
      const double rest =
          data.latency_ms[r] - analytical[i] - (floor == floors.end() ? 0.0 : floor->second);
      const double w = 1.0 / data.latency_ms[r];
      auto t = traffic_ms(data.layers[r], data.gpus[r]);
      for (auto& v : t) v *= w;
      x.push_back(t);
      y.push_back(rest * w);
    }
    out[key] = nnls3(x, y);
  }
  return out;
}

// fit_harness_terms over `analytical` (by position in `rows`).
HarnessTerms harness_terms(const TrainingData& data, const std::vector<std::size_t>& rows,
                           const std::vector<double>& analytical) {
  HarnessTerms terms;
  terms.floor_ms = host_floors(data, rows, analytical, {});
  terms.traffic = harness_traffic(data, rows, analytical, terms.floor_ms);
  // The fastest rows that show a floor carry some traffic too: the floor is read again beyond
  // it, and the multiples refitted over the new floor (a few rounds settle both).
  for (int round = 0; round < kHarnessFitRounds && !terms.traffic.empty(); ++round) {
    HarnessTerms traffic_only;
    traffic_only.traffic = terms.traffic;
    terms.floor_ms = host_floors(data, rows, analytical, [&](std::size_t i) {
      const auto r = rows[i];
      return traffic_only.ms_for(data.sources[r], data.layers[r], data.gpus[r]);
    });
    terms.traffic = harness_traffic(data, rows, analytical, terms.floor_ms);
  }
  return terms;
}

}  // namespace

HarnessTerms fit_harness_terms(const TrainingData& data, const std::vector<std::size_t>& rows) {
  return harness_terms(data, rows, analytical_of(data, rows));
}

PairFloors fit_host_floors(const TrainingData& data, const std::vector<std::size_t>& rows) {
  return host_floors(data, rows, analytical_of(data, rows), {});
}

FamilyModel fit_family(const TrainingData& data, const std::vector<std::size_t>& rows,
                       OpFamily family, RegressorKind kind, const nlohmann::json& params,
                       const FeatureSpec& spec, bool host_floor) {
  if (rows.empty()) throw InputError("no training rows for the " + to_string(family) + " family");
  FamilyModel model;
  model.family = family;
  model.rows = rows.size();
  model.tensor_core_rows =
      static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [&](std::size_t r) {
        return runs_on_tensor_cores(data.layers[r], data.gpus[r]);
      }));
  const std::vector<double> analytical = analytical_of(data, rows);
  if (host_floor) model.harness = harness_terms(data, rows, analytical);
  const FeatureMatrix x = matrix_for_rows(data, rows, spec);
  std::vector<double> ratio(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    ratio[i] = data.latency_ms[r] /
               (analytical[i] + model.harness_ms(data.sources[r], data.layers[r], data.gpus[r]));
  }
  model.regressor = make_regressor(kind, params);
  model.regressor->fit(x, ratio);
  model.feature_min.assign(x.cols, std::numeric_limits<double>::infinity());
  model.feature_max.assign(x.cols, -std::numeric_limits<double>::infinity());
  for (std::size_t r = 0; r < x.rows; ++r) {
    for (std::size_t c = 0; c < x.cols; ++c) {
      model.feature_min[c] = std::min(model.feature_min[c], x(r, c));
      model.feature_max[c] = std::max(model.feature_max[c], x(r, c));
    }
  }
  for (const auto r : rows) {
    if (std::find(model.gpus.begin(), model.gpus.end(), data.gpus[r].name) == model.gpus.end()) {
      model.gpus.push_back(data.gpus[r].name);
    }
  }
  std::sort(model.gpus.begin(), model.gpus.end());
  return model;
}

nlohmann::json FamilyParams::for_source(const std::string& source) const {
  nlohmann::json out = base;
  if (const auto it = by_source.find(source); it != by_source.end()) {
    for (const auto& [key, value] : it->second.items()) out[key] = value;
  }
  return out;
}

SourceSplit source_split_from_string(std::string_view text) {
  const std::string lower = to_lower(text);
  if (lower == "joint") return SourceSplit::kJoint;
  if (lower == "split") return SourceSplit::kSplit;
  throw ParameterError("sources",
                       "unknown value '" + std::string(text) + "' (expected split or joint)");
}

std::string to_string(SourceSplit split) {
  return split == SourceSplit::kSplit ? "split" : "joint";
}

bool fits_per_source(const std::map<std::string, std::size_t>& rows_per_source, SourceSplit split) {
  if (split != SourceSplit::kSplit || rows_per_source.size() < 2) return false;
  return std::all_of(rows_per_source.begin(), rows_per_source.end(), [](const auto& source) {
    return !source.first.empty() && source.second >= kMinRowsPerSourceModel;
  });
}

std::vector<FamilyModel> fit_family_models(const TrainingData& data,
                                           const std::vector<std::size_t>& rows, OpFamily family,
                                           RegressorKind kind, const FamilyParams& params,
                                           const FeatureSpec& spec, SourceSplit split,
                                           bool host_floor) {
  std::map<std::string, std::vector<std::size_t>> by_source;
  for (const auto r : rows) by_source[data.sources[r]].push_back(r);
  std::map<std::string, std::size_t> counts;
  for (const auto& [source, part] : by_source) counts[source] = part.size();
  std::vector<FamilyModel> out;
  if (!fits_per_source(counts, split)) {
    // Rows of one source take that source's parameters; a mix fitted jointly, the base.
    const bool one_source = by_source.size() == 1;
    out.push_back(fit_family(data, rows, family, kind,
                             one_source ? params.for_source(by_source.begin()->first) : params.base,
                             spec, host_floor));
    return out;
  }
  for (const auto& [source, part] : by_source) {
    spdlog::info("fitting {} {} on its {} {} rows", to_string(kind), to_string(family), part.size(),
                 source);
    out.push_back(
        fit_family(data, part, family, kind, params.for_source(source), spec, host_floor));
    out.back().source = source;
  }
  return out;
}

const FamilyModel* model_for_source(const std::vector<const FamilyModel*>& models,
                                    const std::string& source) {
  const FamilyModel* joint = nullptr;
  const FamilyModel* reference = nullptr;
  for (const auto* m : models) {
    if (m->source.empty()) {
      joint = joint != nullptr ? joint : m;
    } else if (m->source == source) {
      return m;
    } else if (m->source == kReferenceSource) {
      reference = m;
    }
  }
  if (joint != nullptr) return joint;
  if (reference != nullptr) return reference;
  return models.empty() ? nullptr : models.front();
}

std::vector<double> predict_rows(const std::vector<const FamilyModel*>& models,
                                 const TrainingData& data, const std::vector<std::size_t>& rows,
                                 const FeatureSpec& spec,
                                 const AnalyticalParams& held_back_params) {
  std::map<const FamilyModel*, std::vector<std::size_t>> positions;  // model -> row positions
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const FamilyModel* m = model_for_source(models, data.sources[rows[i]]);
    if (m == nullptr) throw Error("predict_rows: no model for the rows' family");
    positions[m].push_back(i);
  }
  std::vector<double> out(rows.size());
  for (const auto& [model, pos] : positions) {
    std::vector<std::size_t> part;
    part.reserve(pos.size());
    for (const auto i : pos) part.push_back(rows[i]);
    const auto pred = predict_rows(*model, data, part, spec, held_back_params);
    for (std::size_t j = 0; j < pos.size(); ++j) out[pos[j]] = pred[j];
  }
  return out;
}

std::vector<double> distance_weights(const FeatureSpec& spec) {
  std::vector<double> weights;
  for (const auto& group : feature_groups(spec)) {
    weights.push_back(group == "gpu" ? kGpuDistanceWeight : 1.0);
  }
  return weights;
}

double distance_outside(const FamilyModel& model, const FeatureMatrix& x, std::size_t r,
                        const std::vector<double>& weights) {
  double distance = 0.0;
  const std::size_t cols = std::min({x.cols, model.feature_min.size(), weights.size()});
  for (std::size_t c = 0; c < cols; ++c) {
    const double lo = model.feature_min[c];
    const double hi = model.feature_max[c];
    const double beyond = std::max({0.0, x(r, c) - hi, lo - x(r, c)});
    if (beyond > 0.0) distance += weights[c] * beyond / std::max(hi - lo, 1.0);
  }
  return distance;
}

double learned_share(double distance, double spans) {
  return std::exp(-std::max(distance, 0.0) / spans);
}

void LearnedModel::set_fallback_spans(double spans) {
  for (auto& f : families_) f.fallback_spans = spans;
}

void LearnedModel::set_batch_monotone(bool on) {
  for (auto& f : families_) f.batch_monotone = on;
}

const GpuSpec* seen_sibling(const FamilyModel& model, const GpuSpec& gpu) {
  return GpuDatabase::bundled().board_of_same_chip(gpu, model.gpus);
}

namespace {

bool unseen_without_sibling(const FamilyModel& model, const GpuSpec& gpu) {
  return std::find(model.gpus.begin(), model.gpus.end(), gpu.name) == model.gpus.end() &&
         seen_sibling(model, gpu) == nullptr;
}

/// Whether the family's model saw rows of `source` (its own source, or a one-hot column that
/// was ever 1 in a joint model); `names` are the spec's feature names.
bool trained_on(const FamilyModel& model, const std::vector<std::string>& names,
                const std::string& source) {
  if (!model.source.empty()) return model.source == source;
  std::string column = "src_" + source;
  std::replace(column.begin(), column.end(), '-', '_');
  const auto it = std::find(names.begin(), names.end(), column);
  return it != names.end() &&
         model.feature_max.at(static_cast<std::size_t>(it - names.begin())) > 0.5;
}

}  // namespace

bool analytical_for(const FamilyModel& model, const GpuSpec& gpu, const std::string& source) {
  return model.analytical_for_unseen_gpus && source == kReferenceSource &&
         unseen_without_sibling(model, gpu);
}

bool LearnedModel::unseen_gpu(OpFamily family, const std::string& gpu_name) const {
  std::vector<const FamilyModel*> models;
  for (const auto& m : families_) {
    if (m.family == family) models.push_back(&m);
  }
  const FamilyModel* reference = model_for_source(models, kReferenceSource);
  return reference != nullptr && std::find(reference->gpus.begin(), reference->gpus.end(),
                                           gpu_name) == reference->gpus.end();
}

std::vector<bool> LearnedModel::unseen_gpu_layers(const std::vector<Layer>& layers,
                                                  const GpuSpec& gpu) const {
  std::map<OpFamily, bool> unseen;  // per family, computed once
  std::vector<bool> out(layers.size(), false);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const OpFamily family = op_family(layers[i].op);
    auto it = unseen.find(family);
    if (it == unseen.end()) it = unseen.emplace(family, unseen_gpu(family, gpu.name)).first;
    out[i] = it->second;
  }
  return out;
}

bool untrained_math(const FamilyModel& model, const Layer& layer, const GpuSpec& gpu) {
  return model.tensor_core_rows.has_value() && *model.tensor_core_rows == 0 &&
         runs_on_tensor_cores(layer, gpu);
}

bool gpu_blind_for(const FamilyModel& model, const GpuSpec& gpu, const std::string& source) {
  return model.gpu_blind_regressor != nullptr && source == kReferenceSource &&
         unseen_without_sibling(model, gpu);
}

FeatureSpec gpu_blind_spec(FeatureSpec spec) {
  spec.gpu_held_constant = true;
  return spec;
}

FeatureMatrix gpu_blind_matrix(FeatureMatrix x, const FeatureSpec& spec) {
  const std::vector<std::string> groups = feature_groups(spec);
  if (groups.size() != x.cols) {
    throw Error("gpu_blind_matrix: " + std::to_string(x.cols) + " columns for " +
                std::to_string(groups.size()) + " features");
  }
  for (std::size_t c = 0; c < x.cols; ++c) {
    if (groups[c] != "gpu") continue;
    for (std::size_t r = 0; r < x.rows; ++r) x.values[r * x.cols + c] = 0.0;
  }
  return x;
}

std::vector<std::int64_t> batch_chain(std::int64_t batch) {
  std::vector<std::int64_t> chain;
  for (std::int64_t b = batch / 2; b >= 1; b /= 2) chain.push_back(b);
  return chain;
}

namespace {

// The batch chains of a list of n items, to append after it: entry k is (item index, halved
// batch); chain_end[i] is where item i's chain ends in the combined list. Disabled, every
// chain is empty.
struct BatchChains {
  std::vector<std::pair<std::size_t, std::int64_t>> entries;
  std::vector<std::size_t> chain_end;
};

BatchChains batch_chains(const std::vector<std::int64_t>& batches, bool enabled) {
  BatchChains chains;
  chains.chain_end.assign(batches.size(), batches.size());
  for (std::size_t i = 0; i < batches.size() && enabled; ++i) {
    for (const std::int64_t b : batch_chain(batches[i])) chains.entries.emplace_back(i, b);
    chains.chain_end[i] = batches.size() + chains.entries.size();
  }
  return chains;
}

// Folds each of the first n values' chain into it (keep(value, chain member)), then drops the
// chain entries.
template <typename T, typename Keep>
void fold_batch_chains(std::vector<T>& values, std::size_t n, const BatchChains& chains,
                       Keep keep) {
  std::size_t begin = n;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = begin; j < chains.chain_end[i]; ++j) keep(values[i], values[j]);
    begin = chains.chain_end[i];
  }
  values.resize(n);
}

}  // namespace

namespace {

// predict_rows without the batch repair: each row as the regressors give it. `overhead_ms`,
// when given, receives each row's harness part (its harness terms, scaled like the rest where the
// regressor predicts the row), as LearnedModel::predict splits it from the kernel time.
std::vector<double> predict_rows_as_fitted(const FamilyModel& model, const TrainingData& data,
                                           const std::vector<std::size_t>& rows,
                                           const FeatureSpec& spec,
                                           const std::vector<std::string>* floor_sources,
                                           const AnalyticalParams& held_back_params,
                                           std::vector<double>* overhead_ms = nullptr) {
  // Rows on GPUs the model has not seen may take its gpu-blind regressor, on its features;
  // each row is predicted by one of the two. A row on a seen GPU's sibling takes the
  // regressor with the sibling's GPU features.
  std::array<std::vector<std::size_t>, 2> pos;  // [0]: the regressor, [1]: the gpu-blind one
  std::array<std::vector<std::size_t>, 2> part;
  std::vector<const GpuSpec*> feature_gpus;        // of part[0]: its own GPU or the sibling
  std::map<std::string, const GpuSpec*> siblings;  // GPU name -> seen_sibling, once per GPU
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const GpuSpec& gpu = data.gpus[rows[i]];
    const bool blind = gpu_blind_for(model, gpu, data.sources[rows[i]]);
    pos[blind ? 1 : 0].push_back(i);
    part[blind ? 1 : 0].push_back(rows[i]);
    if (blind) continue;
    const auto [it, added] = siblings.try_emplace(gpu.name, nullptr);
    if (added) it->second = seen_sibling(model, gpu);
    feature_gpus.push_back(it->second != nullptr ? it->second : &gpu);
  }
  std::vector<double> ratio(rows.size());
  for (const int k : {0, 1}) {
    if (part[k].empty()) continue;
    // The distance to the training ranges is taken on the features the rows would have on
    // the full regressor (a gpu-blind row's own GPU features included).
    const FeatureMatrix x = matrix_for_rows(data, part[k], spec, k == 1 ? nullptr : &feature_gpus);
    const std::vector<double> r =
        k == 1 ? model.gpu_blind_regressor->predict(gpu_blind_matrix(x, spec))
               : model.regressor->predict(x);
    const std::vector<double> weights = distance_weights(spec);
    for (std::size_t j = 0; j < pos[k].size(); ++j) {
      ratio[pos[k][j]] = std::pow(
          r[j], learned_share(distance_outside(model, x, j, weights), model.fallback_spans));
    }
  }
  std::vector<double> out(rows.size());
  if (overhead_ms != nullptr) overhead_ms->assign(rows.size(), 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    const LayerEstimate e = estimate_layer(data.layers[r], data.gpus[r]);
    const std::string& floor_source =
        floor_sources != nullptr ? (*floor_sources)[i] : data.sources[r];
    const double floor = model.harness_ms(floor_source, data.layers[r], data.gpus[r]);
    const bool learned = !analytical_for(model, data.gpus[r], data.sources[r]) &&
                         !untrained_math(model, data.layers[r], data.gpus[r]);
    if (overhead_ms != nullptr) (*overhead_ms)[i] = learned ? floor * ratio[i] : floor;
    if (learned) {
      out[i] = e.with_main_kernels_ms((e.main_kernels_ms() + floor) * ratio[i]);
    } else if (runs_on_tensor_cores(data.layers[r], data.gpus[r])) {
      // Held back on tensor cores: the default model's kernel time, as predict gives it.
      out[i] = estimate_layer(data.layers[r], data.gpus[r], held_back_params).latency_ms + floor;
    } else {
      out[i] = e.latency_ms + floor;
    }
  }
  return out;
}

}  // namespace

std::vector<double> predict_rows(const FamilyModel& model, const TrainingData& data,
                                 const std::vector<std::size_t>& rows, const FeatureSpec& spec,
                                 const AnalyticalParams& held_back_params) {
  // A row of a source the model was not trained on is a one-hot state no tree has seen: it is
  // predicted as the reference source, as predict_layers_as does. Its floor stays its own
  // source's (FamilyModel::floor_ms: none for kernel time; leave-source-out fits the held-out
  // source's).
  const std::vector<std::string> names = feature_names(spec);
  std::map<std::string, bool> trained;  // source -> trained_on, once per source
  bool substitute = false;
  for (const auto r : rows) {
    const auto [it, added] = trained.try_emplace(data.sources[r], false);
    if (added) it->second = trained_on(model, names, data.sources[r]);
    substitute = substitute || !it->second;
  }
  if (!model.batch_monotone && !substitute) {
    return predict_rows_as_fitted(model, data, rows, spec, nullptr, held_back_params);
  }
  // The rows, then each row's batch chain (batch_chain), as rows of their own.
  TrainingData all;
  std::vector<std::size_t> all_rows;
  std::vector<std::string> floor_sources;
  const auto add = [&](std::size_t r, const Layer& l) {
    all.layers.push_back(l);
    all.gpus.push_back(data.gpus[r]);
    all.sources.push_back(trained.at(data.sources[r]) ? data.sources[r]
                                                      : std::string(kReferenceSource));
    floor_sources.push_back(data.sources[r]);
    all_rows.push_back(all_rows.size());
  };
  std::vector<std::int64_t> batches;
  batches.reserve(rows.size());
  for (const auto r : rows) {
    add(r, data.layers[r]);
    batches.push_back(data.layers[r].batch);
  }
  const BatchChains chains = batch_chains(batches, model.batch_monotone);
  for (const auto& [i, b] : chains.entries) {
    Layer l = data.layers[rows[i]];
    l.batch = b;
    add(rows[i], l);
  }
  std::vector<double> overhead;
  std::vector<double> out = predict_rows_as_fitted(model, all, all_rows, spec, &floor_sources,
                                                   held_back_params, &overhead);
  // The chain lifts the kernel time, as LearnedModel::predict does; each row keeps its own
  // harness part on top.
  std::vector<double> kernel(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) kernel[i] = out[i] - overhead[i];
  fold_batch_chains(kernel, rows.size(), chains,
                    [](double& v, double member) { v = std::max(v, member); });
  out.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = kernel[i] + overhead[i];
  return out;
}

LearnedModel::LearnedModel(FeatureSpec spec, std::vector<FamilyModel> families,
                           EagerOverhead overhead, nlohmann::json metadata)
    : spec_(spec),
      families_(std::move(families)),
      overhead_(std::move(overhead)),
      metadata_(std::move(metadata)) {}

std::vector<LayerPrediction> LearnedModel::predict_layers(const std::vector<Layer>& layers,
                                                          const GpuSpec& gpu) const {
  return predict_layers_as(layers, gpu, {});
}

std::optional<EagerOverhead> LearnedModel::runtime_overhead(Runtime runtime) const {
  return bundled_runtime_overhead(runtime);
}

std::string LearnedModel::training_data() const {
  return "the " + std::string(kReferenceSource) +
         " rows it learns kernel time from: their layer ranges and GPUs, another board of a "
         "trained chip counting as outside; the validate command scores rows of other sources "
         "with their own models";
}

std::vector<LayerPrediction> LearnedModel::predict_layers_as(
    const std::vector<Layer>& layers, const GpuSpec& gpu,
    const std::vector<std::string>& sources) const {
  return predict(layers, gpu, sources, /*with_floor=*/true);
}

std::vector<LayerPrediction> LearnedModel::predict_network_layers(const std::vector<Layer>& layers,
                                                                  const GpuSpec& gpu) const {
  return predict(layers, gpu, {}, /*with_floor=*/false);
}

std::vector<LayerPrediction> LearnedModel::predict(const std::vector<Layer>& given,
                                                   const GpuSpec& gpu,
                                                   const std::vector<std::string>& given_sources,
                                                   bool with_floor) const {
  if (!only_gpu_.empty() && gpu.name != only_gpu_) {
    // Its other regressors were not read: predicting would silently take the wrong one.
    throw Error(name_ + ": loaded to predict " + only_gpu_ + " only, not " + gpu.name);
  }
  if (!given_sources.empty() && given_sources.size() != given.size()) {
    throw Error("predict_layers_as: " + std::to_string(given_sources.size()) + " sources for " +
                std::to_string(given.size()) + " layers");
  }
  // The layers, then each layer's batch chain (batch_chain) as layers of their own: a layer's
  // kernel time is the largest over its chain, so doubling the batch never lowers it.
  std::vector<Layer> layers = given;
  std::vector<std::string> sources = given_sources;
  const bool monotone = std::any_of(families_.begin(), families_.end(),
                                    [](const FamilyModel& f) { return f.batch_monotone; });
  std::vector<std::int64_t> batches;
  batches.reserve(given.size());
  for (const Layer& l : given) batches.push_back(l.batch);
  const BatchChains chains = batch_chains(batches, monotone);
  for (const auto& [i, b] : chains.entries) {
    layers.push_back(given[i]);
    layers.back().batch = b;
    if (!sources.empty()) sources.push_back(given_sources[i]);
  }
  const std::vector<std::string> names = feature_names(spec_);
  std::vector<LayerPrediction> out(layers.size());
  std::vector<LayerEstimate> estimates(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) estimates[i] = estimate_layer(layers[i], gpu);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerEstimate& e = estimates[i];
    out[i].kernel_ms = e.latency_ms;
    out[i].roofline_ms = e.roofline_ms;
    out[i].kernels = e.kernels;
    out[i].bound = e.bound;
    out[i].algorithm = e.algorithm;
    out[i].in_distribution = e.kernels == 0;  // views are exact; others need a model
  }
  std::vector<std::string> floor_sources(layers.size());  // whose harness floor each row has
  std::vector<bool> learned(layers.size(), false);        // the regressor set its kernel_ms
  std::vector<OpFamily> families;                         // each once, in file order
  for (const auto& m : families_) {
    if (std::find(families.begin(), families.end(), m.family) == families.end()) {
      families.push_back(m.family);
    }
  }
  for (const auto family : families) {
    std::vector<const FamilyModel*> models;
    for (const auto& m : families_) {
      if (m.family == family) models.push_back(&m);
    }
    if (models.empty()) continue;
    // A source without training rows in this family (unknown, or its one-hot never 1 in a
    // joint model) is a state no tree has seen; such rows get the reference source (kernel
    // time) instead.
    std::vector<std::string> trained;
    for (const auto* m : models) {
      for (const auto& source : known_sources()) {
        if (trained_on(*m, names, source)) trained.push_back(source);
      }
    }
    // Rows of this family by the model (and whether its gpu-blind regressor) that predicts
    // them, with the source each is given.
    std::map<std::pair<const FamilyModel*, bool>,
             std::pair<std::vector<std::size_t>, std::vector<std::string>>>
        work;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (estimates[i].kernels == 0 || op_family(layers[i].op) != family) continue;
      // No training row is bf16 or int8: such a layer keeps the analytical estimate (at the
      // type's tensor rate), flagged as outside the data.
      if (layers[i].dtype == DType::kBf16 || layers[i].dtype == DType::kInt8) {
        out[i].in_distribution = false;
        continue;
      }
      const bool own = !sources.empty() &&
                       std::find(trained.begin(), trained.end(), sources[i]) != trained.end();
      const std::string source = own ? sources[i] : std::string(kReferenceSource);
      // A kernel-time row carries no harness floor, also where the regressor stands in with
      // the reference source for it; other untrained sources borrow the reference's.
      const std::string& floor_source =
          !sources.empty() && sources[i] == kKernelTimeSource ? sources[i] : source;
      const FamilyModel* model = model_for_source(models, source);
      if (analytical_for(*model, gpu, source) || untrained_math(*model, layers[i], gpu)) {
        // Leave-one-GPU-out, the analytical estimate (plus the typical machine's host floor)
        // was the better one for this family on a GPU without measurements, or the layer runs
        // on tensor cores, which no training row of the family did: keep it, flagged as
        // outside the data.
        if (with_floor) out[i].overhead_ms = model->harness_ms(floor_source, layers[i], gpu);
        out[i].in_distribution = false;
        continue;
      }
      auto& [idx, row_sources] = work[{model, gpu_blind_for(*model, gpu, source)}];
      idx.push_back(i);
      row_sources.push_back(source);
      floor_sources[i] = floor_source;
    }
    for (const auto& [key, rows] : work) {
      const auto& [fam, blind] = key;
      const auto& [idx, row_sources] = rows;
      std::vector<const Layer*> ls;
      ls.reserve(idx.size());
      for (const auto i : idx) ls.push_back(&layers[i]);
      // A GPU the family did not see but a sibling of which it did is given that sibling's
      // GPU features (seen_sibling); the baseline stays this GPU's.
      const GpuSpec* sibling = blind ? nullptr : seen_sibling(*fam, gpu);
      const std::vector<const GpuSpec*> gpus(ls.size(), sibling != nullptr ? sibling : &gpu);
      // The full spec's features also measure the distance to the training ranges (a
      // gpu-blind row's with its own GPU's features).
      const FeatureMatrix x = build_feature_matrix(ls, gpus, row_sources, spec_);
      const auto& regressor = blind ? fam->gpu_blind_regressor : fam->regressor;
      if (regressor == nullptr) {  // only_gpu_ is checked first; this guards the invariant
        throw Error(name_ + ": a regressor was not read for " + gpu.name);
      }
      const std::vector<double> ratio = regressor->predict(blind ? gpu_blind_matrix(x, spec_) : x);
      const std::vector<double> weights = distance_weights(spec_);
      for (std::size_t j = 0; j < idx.size(); ++j) {
        auto& p = out[idx[j]];
        const double floor =
            with_floor ? fam->harness_ms(floor_sources[idx[j]], layers[idx[j]], gpu) : 0.0;
        const double r = std::pow(
            ratio[j], learned_share(distance_outside(*fam, x, j, weights), fam->fallback_spans));
        // The harness's terms, scaled like the rest of its measurement, are its overhead: the
        // kernel time is what is left.
        const LayerEstimate& e = estimates[idx[j]];
        p.kernel_ms = e.with_main_kernels_ms(e.main_kernels_ms() * r);
        p.overhead_ms = floor * r;
        learned[idx[j]] = true;
        bool inside = true;
        for (std::size_t c = 0; c < x.cols && inside; ++c) {
          const double span = fam->feature_max[c] - fam->feature_min[c];
          const double slack = 0.02 * span + 1e-9;
          inside = x(j, c) >= fam->feature_min[c] - slack && x(j, c) <= fam->feature_max[c] + slack;
        }
        // blind or sibling: a GPU outside the training data
        p.in_distribution = inside && !blind && sibling == nullptr;
      }
    }
  }
  // What a layer that keeps the analytical estimate gets: the default model's, whose fitted
  // terms (tensor-core efficiencies) apply to tensor-core layers only.
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (!learned[i] && runs_on_tensor_cores(layers[i], gpu)) {
      out[i].kernel_ms = estimate_layer(layers[i], gpu, kernel_params_).latency_ms;
    }
  }
  fold_batch_chains(out, given.size(), chains,
                    [](LayerPrediction& p, const LayerPrediction& member) {
                      p.kernel_ms = std::max(p.kernel_ms, member.kernel_ms);
                    });
  for (std::size_t i = 0; i < given.size(); ++i) {
    auto& p = out[i];
    const LayerEstimate& e = estimates[i];
    // Utilizations relative to the learned kernel time drive the power model.
    if (p.kernel_ms > 0) {
      p.compute_utilization = std::min(1.0, e.compute_ms / p.kernel_ms);
      p.memory_utilization = std::min(1.0, e.memory_ms / p.kernel_ms);
    }
  }
  return out;
}

}  // namespace cnnperf
