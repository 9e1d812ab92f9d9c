// SPDX-License-Identifier: Apache-2.0
// Training data loading and per-family learned models over the analytical baseline.
#include "cnnperf/ml/learned_model.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "json_cursor.hpp"
#include "learned_model_internal.hpp"
#include "regressor_internal.hpp"

#if __has_include(<sys/mman.h>) && __has_include(<fcntl.h>) && __has_include(<unistd.h>)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define CNNPERF_HAVE_MMAP 1
#else
#define CNNPERF_HAVE_MMAP 0
#endif

namespace cnnperf {

namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 1469598103934665603ULL) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = digits[v & 15];
    v >>= 4;
  }
  return out;
}

// Rows `keep` of `data` (in that order) with its files, fingerprint and skipped count.
TrainingData subset(const TrainingData& data, const std::vector<std::size_t>& keep) {
  TrainingData out;
  for (const auto i : keep) {
    out.layers.push_back(data.layers[i]);
    out.gpu_names.push_back(data.gpu_names[i]);
    out.gpus.push_back(data.gpus[i]);
    out.sources.push_back(data.sources[i]);
    out.latency_ms.push_back(data.latency_ms[i]);
  }
  out.files = data.files;
  out.fingerprint = data.fingerprint;
  out.skipped_rows = data.skipped_rows;
  return out;
}

}  // namespace

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

// A measured layer time beyond this (about 11.6 days) is a unit or parsing mistake.
constexpr double kMaxMeasuredLatencyMs = 1e9;

TrainingData load_training_data(const std::vector<std::string>& files, std::size_t max_rows,
                                std::uint64_t seed) {
  if (files.empty()) throw ParameterError("data", "expected at least one dataset file");
  TrainingData data;
  std::uint64_t hash = 1469598103934665603ULL;
  std::unordered_map<std::string, GpuSpec> gpu_cache;
  const GpuDatabase& db = GpuDatabase::bundled();
  // The examples' `datasets/...` names (and their wildcards) work from any directory, like
  // bundled model files.
  const std::vector<std::string> expanded = user_file_list(files, "data");
  for (const auto& file : expanded) {
    const std::string text = read_text_file(file);
    hash = fnv1a(text, hash);
    const LayerTable table = parse_layers_csv(text, file);
    if (!table.table.column("latency_ms") || !table.table.column("gpu")) {
      throw InputError(file + ":1: expected columns 'latency_ms' and 'gpu' (a measured dataset)");
    }
    spdlog::info("{}: {} rows", file, table.layers.size());
    // With pad_h_end/pad_w_end the reader models asymmetric (TensorFlow SAME) padding exactly.
    const bool has_pad_end = table.table.column("pad_h_end").has_value();
    std::size_t skipped = 0;
    std::string first_skip;
    for (std::size_t row = 0; row < table.layers.size(); ++row) {
      const auto exact = table.table.get(row, "symmetric_pad_exact");
      const auto target = table.table.get_number(row, "latency_ms");
      if (target && *target > kMaxMeasuredLatencyMs) {
        throw InputError(
            table.table.where(row) + ": field 'latency_ms': expected a measured time of at most " +
            format_number(kMaxMeasuredLatencyMs) + " ms, got " + format_number(*target));
      }
      // A measured time at or below 0 is a corrupt row, not a missing one.
      if (target && !(*target > 0)) {
        throw InputError(table.table.where(row) +
                         ": field 'latency_ms': expected a measured time above 0 ms, got " +
                         format_number(*target));
      }
      const bool asymmetric = exact && *exact == "0" && !has_pad_end;
      if (asymmetric || !target) {
        if (skipped++ == 0) {
          first_skip = table.table.where(row) +
                       (asymmetric ? ": asymmetric padding without pad_h_end/pad_w_end"
                                   : ": latency_ms empty");
        }
        continue;
      }
      const std::string gpu_name = table.table.get(row, "gpu").value_or("");
      auto it = gpu_cache.find(gpu_name);
      if (it == gpu_cache.end()) {
        const auto spec = db.find(gpu_name);
        if (!spec) {
          throw InputError(table.table.where(row) + ": field 'gpu': unknown GPU '" + gpu_name +
                           "' (expected a name or alias of the GPU database)");
        }
        it = gpu_cache.emplace(gpu_name, *spec).first;
      }
      data.layers.push_back(table.layers[row]);
      data.gpu_names.push_back(gpu_name);
      data.gpus.push_back(it->second);
      data.sources.push_back(table.table.get(row, "source").value_or(""));
      data.latency_ms.push_back(*target);
    }
    if (skipped > 0) {
      // Said, not silent: a file of bad rows must not look like a smaller good one.
      spdlog::warn("{}: {} of {} rows left out (first: {})", file, skipped, table.layers.size(),
                   first_skip);
    }
    data.skipped_rows += skipped;
    data.files.push_back(file);
  }
  data.fingerprint = hex(hash);
  if (max_rows > 0 && data.layers.size() > max_rows) {
    std::vector<std::size_t> keep(data.layers.size());
    std::iota(keep.begin(), keep.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(keep.begin(), keep.end(), rng);
    keep.resize(max_rows);
    std::sort(keep.begin(), keep.end());
    data = subset(data, keep);
  }
  return data;
}

std::vector<std::size_t> family_rows(const TrainingData& data, OpFamily family) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < data.layers.size(); ++i) {
    if (op_family(data.layers[i].op) == family) rows.push_back(i);
  }
  return rows;
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

double FamilyModel::floor_ms(const std::string& source, const std::string& gpu) const {
  if (host_floor_ms.empty()) return 0;
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

std::map<std::pair<std::string, std::string>, double> fit_host_floors(
    const TrainingData& data, const std::vector<std::size_t>& rows) {
  // (measured ms, measured - analytical) per pair. The fastest rows show the floor: what they
  // measured beyond the kernel the analytical model prices.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> by_pair;
  for (const auto r : rows) {
    const double a = analytical_ms(data.layers[r], data.gpus[r]);
    by_pair[{data.sources[r], data.gpus[r].name}].emplace_back(data.latency_ms[r],
                                                               data.latency_ms[r] - a);
  }
  std::map<std::pair<std::string, std::string>, double> out;
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

FamilyModel fit_family(const TrainingData& data, const std::vector<std::size_t>& rows,
                       OpFamily family, RegressorKind kind, const nlohmann::json& params,
                       const FeatureSpec& spec, bool host_floor) {
  if (rows.empty()) throw InputError("no training rows for the " + to_string(family) + " family");
  FamilyModel model;
  model.family = family;
  model.rows = rows.size();
  if (host_floor) model.host_floor_ms = fit_host_floors(data, rows);
  const FeatureMatrix x = matrix_for_rows(data, rows, spec);
  std::vector<double> ratio(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    ratio[i] = data.latency_ms[r] / (analytical_ms(data.layers[r], data.gpus[r]) +
                                     model.floor_ms(data.sources[r], data.gpus[r].name));
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
                                 const FeatureSpec& spec) {
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
    const auto pred = predict_rows(*model, data, part, spec);
    for (std::size_t j = 0; j < pos.size(); ++j) out[pos[j]] = pred[j];
  }
  return out;
}

const GpuSpec* seen_sibling(const FamilyModel& model, const GpuSpec& gpu) {
  return GpuDatabase::bundled().board_of_same_chip(gpu, model.gpus);
}

namespace {

bool unseen_without_sibling(const FamilyModel& model, const GpuSpec& gpu) {
  return std::find(model.gpus.begin(), model.gpus.end(), gpu.name) == model.gpus.end() &&
         seen_sibling(model, gpu) == nullptr;
}

}  // namespace

bool analytical_for(const FamilyModel& model, const GpuSpec& gpu, const std::string& source) {
  return model.analytical_for_unseen_gpus && source == kReferenceSource &&
         unseen_without_sibling(model, gpu);
}

bool gpu_blind_for(const FamilyModel& model, const GpuSpec& gpu, const std::string& source) {
  return model.gpu_blind_regressor != nullptr && source == kReferenceSource &&
         unseen_without_sibling(model, gpu);
}

FeatureSpec gpu_blind_spec(FeatureSpec spec) {
  spec.gpu_held_constant = true;
  return spec;
}

TrainingData rows_of_source(const TrainingData& data, const std::string& source) {
  std::vector<std::size_t> keep;
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    if (data.sources[r] == source) keep.push_back(r);
  }
  return subset(data, keep);
}

std::vector<double> predict_rows(const FamilyModel& model, const TrainingData& data,
                                 const std::vector<std::size_t>& rows, const FeatureSpec& spec) {
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
    const auto& regressor = k == 1 ? model.gpu_blind_regressor : model.regressor;
    const std::vector<double> r =
        k == 1 ? regressor->predict(matrix_for_rows(data, part[k], gpu_blind_spec(spec)))
               : regressor->predict(matrix_for_rows(data, part[k], spec, &feature_gpus));
    for (std::size_t j = 0; j < pos[k].size(); ++j) ratio[pos[k][j]] = r[j];
  }
  std::vector<double> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = rows[i];
    const LayerEstimate e = estimate_layer(data.layers[r], data.gpus[r]);
    const double baseline = e.latency_ms + model.floor_ms(data.sources[r], data.gpus[r].name);
    out[i] = analytical_for(model, data.gpus[r], data.sources[r])
                 ? baseline
                 : std::max(baseline * ratio[i], e.roofline_ms);
  }
  return out;
}

std::string feature_matrix_csv(const TrainingData& data, const FeatureSpec& spec, CvScheme scheme,
                               int folds, std::uint64_t seed, bool host_floor) {
  std::vector<std::string> header{"family", "source", "gpu", "fold"};
  for (const auto& name : feature_names(spec)) header.push_back(name);
  for (const char* name : {"baseline_ms", "latency_ms", "log_ratio"}) header.emplace_back(name);
  std::string out = csv_line(header) + "\n";
  for (const auto family : kOpFamilies) {
    const auto rows = family_rows(data, family);
    if (rows.empty()) continue;
    int n_folds = 0;
    const auto fold = family_folds(data, rows, scheme, folds, seed, &n_folds);
    // Each row's floor as cross-validation fits it: from the rows outside its fold, so a
    // held-out GPU gets the other GPUs' typical floor, not its own.
    std::vector<FamilyModel> floors(static_cast<std::size_t>(n_folds));
    if (host_floor) {
      for (int f = 0; f < n_folds; ++f) {
        std::vector<std::size_t> train;
        for (std::size_t i = 0; i < rows.size(); ++i) {
          if (fold[i] != f) train.push_back(rows[i]);
        }
        floors[static_cast<std::size_t>(f)].host_floor_ms = fit_host_floors(data, train);
      }
    }
    const FeatureMatrix x = matrix_for_rows(data, rows, spec);
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto r = rows[i];
      const double baseline =
          analytical_ms(data.layers[r], data.gpus[r]) +
          floors[static_cast<std::size_t>(fold[i])].floor_ms(data.sources[r], data.gpus[r].name);
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

std::vector<LayerPrediction> LearnedModel::predict_layers_as(
    const std::vector<Layer>& layers, const GpuSpec& gpu,
    const std::vector<std::string>& sources) const {
  return predict(layers, gpu, sources, /*with_floor=*/true);
}

std::vector<LayerPrediction> LearnedModel::predict_network_layers(const std::vector<Layer>& layers,
                                                                  const GpuSpec& gpu) const {
  return predict(layers, gpu, {}, /*with_floor=*/false);
}

std::vector<LayerPrediction> LearnedModel::predict(const std::vector<Layer>& layers,
                                                   const GpuSpec& gpu,
                                                   const std::vector<std::string>& sources,
                                                   bool with_floor) const {
  if (!only_gpu_.empty() && gpu.name != only_gpu_) {
    // Its other regressors were not read: predicting would silently take the wrong one.
    throw Error(name_ + ": loaded to predict " + only_gpu_ + " only, not " + gpu.name);
  }
  if (!sources.empty() && sources.size() != layers.size()) {
    throw Error("predict_layers_as: " + std::to_string(sources.size()) + " sources for " +
                std::to_string(layers.size()) + " layers");
  }
  const std::vector<std::string> names = feature_names(spec_);
  std::vector<LayerPrediction> out(layers.size());
  std::vector<LayerEstimate> estimates(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) estimates[i] = estimate_layer(layers[i], gpu);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerEstimate& e = estimates[i];
    out[i].latency_ms = e.latency_ms;
    out[i].roofline_ms = e.roofline_ms;
    out[i].kernels = e.kernels;
    out[i].bound = e.bound;
    out[i].algorithm = e.algorithm;
    out[i].in_distribution = e.kernels == 0;  // views are exact; others need a model
  }
  std::vector<OpFamily> families;  // each once, in file order
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
      if (!m->source.empty()) {
        trained.push_back(m->source);
        continue;
      }
      for (const auto& source : known_sources()) {
        std::string column = "src_" + source;
        std::replace(column.begin(), column.end(), '-', '_');
        const auto it = std::find(names.begin(), names.end(), column);
        if (it != names.end() &&
            m->feature_max[static_cast<std::size_t>(it - names.begin())] > 0.5) {
          trained.push_back(source);
        }
      }
    }
    // Rows of this family by the model (and whether its gpu-blind regressor) that predicts
    // them, with the source each is given.
    std::map<std::pair<const FamilyModel*, bool>,
             std::pair<std::vector<std::size_t>, std::vector<std::string>>>
        work;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (estimates[i].kernels == 0 || op_family(layers[i].op) != family) continue;
      const bool own = !sources.empty() &&
                       std::find(trained.begin(), trained.end(), sources[i]) != trained.end();
      const std::string source = own ? sources[i] : std::string(kReferenceSource);
      const FamilyModel* model = model_for_source(models, source);
      if (analytical_for(*model, gpu, source)) {
        // Leave-one-GPU-out, the analytical estimate (plus the typical machine's host floor)
        // was the better one for this family on a GPU without measurements: keep it, flagged
        // as outside the data.
        if (with_floor) out[i].latency_ms += model->floor_ms(source, gpu.name);
        out[i].in_distribution = false;
        continue;
      }
      auto& [idx, row_sources] = work[{model, gpu_blind_for(*model, gpu, source)}];
      idx.push_back(i);
      row_sources.push_back(source);
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
      const FeatureMatrix x =
          build_feature_matrix(ls, gpus, row_sources, blind ? gpu_blind_spec(spec_) : spec_);
      const auto& regressor = blind ? fam->gpu_blind_regressor : fam->regressor;
      if (regressor == nullptr) {  // only_gpu_ is checked first; this guards the invariant
        throw Error(name_ + ": a regressor was not read for " + gpu.name);
      }
      const std::vector<double> ratio = regressor->predict(x);
      for (std::size_t j = 0; j < idx.size(); ++j) {
        auto& p = out[idx[j]];
        const double floor = with_floor ? fam->floor_ms(row_sources[j], gpu.name) : 0.0;
        p.latency_ms = std::max((estimates[idx[j]].latency_ms + floor) * ratio[j], p.roofline_ms);
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
  for (std::size_t i = 0; i < layers.size(); ++i) {
    auto& p = out[i];
    const LayerEstimate& e = estimates[i];
    // Utilizations relative to the learned latency drive the power model.
    if (p.latency_ms > 0) {
      p.compute_utilization = std::min(1.0, e.compute_ms / p.latency_ms);
      p.memory_utilization = std::min(1.0, e.memory_ms / p.latency_ms);
    }
  }
  return out;
}

namespace {

template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw InputError(where + "." + key + ": missing field");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    // Say what was expected, as every other input error does.
    const char* expected = "a value of another type";
    if constexpr (std::is_same_v<T, std::string>) {
      expected = "a string";
    } else if constexpr (std::is_integral_v<T>) {
      expected = "an integer";
    } else if constexpr (std::is_floating_point_v<T>) {
      expected = "a number";
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      expected = "an array of strings";
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      expected = "an array of numbers";
    }
    throw InputError(where + "." + key + ": expected " + expected + ", got " +
                     j.at(key).type_name());
  }
}

}  // namespace

nlohmann::json LearnedModel::to_json() const {
  if (!only_gpu_.empty()) {
    throw Error(name_ + ": loaded for " + only_gpu_ + " only, without all its regressors");
  }
  nlohmann::json fams = nlohmann::json::array();
  for (const auto& f : families_) {
    nlohmann::json floors = nlohmann::json::array();
    for (const auto& [key, floor] : f.host_floor_ms) {
      floors.push_back({{"source", key.first}, {"gpu", key.second}, {"floor_ms", floor}});
    }
    const char* unseen = f.analytical_for_unseen_gpus       ? "analytical"
                         : f.gpu_blind_regressor != nullptr ? "gpu-blind"
                                                            : "learned";
    fams.push_back({{"family", to_string(f.family)},
                    {"source", f.source},
                    {"rows", f.rows},
                    {"gpus", f.gpus},
                    {"feature_min", f.feature_min},
                    {"feature_max", f.feature_max},
                    {"unseen_gpu", unseen},
                    {"host_floor_ms", floors},
                    {"regressor", f.regressor->to_json()}});
    if (f.gpu_blind_regressor != nullptr) {
      fams.back()["gpu_blind_regressor"] = f.gpu_blind_regressor->to_json();
    }
    // The length of each embedded booster as the file (compact JSON) holds it, so a loader
    // that needs only some boosters skips the others without reading them (load()).
    nlohmann::json bytes = nlohmann::json::object();
    for (const char* key : {"regressor", "gpu_blind_regressor"}) {
      const auto& r = fams.back();
      if (r.contains(key) && r[key].contains("model") && r[key]["model"].is_object() &&
          r[key]["model"].contains("booster")) {
        bytes[key] = r[key]["model"]["booster"].dump().size();
      }
    }
    if (!bytes.empty()) fams.back()["booster_bytes"] = std::move(bytes);
  }
  return {{"schema_version", kModelSchemaVersion},
          {"kind", "cnnperf_latency_model"},
          {"tool_version", CNNPERF_VERSION},
          {"target", "log(latency_ms / (analytical_ms + host_floor_ms)) per op family"},
          {"reference_source", kReferenceSource},
          {"features", spec_.to_string()},
          {"feature_names", feature_names(spec_)},
          {"families", fams},
          {"eager_overhead", cnnperf::to_json(overhead_)},
          {"metadata", metadata_}};
}

std::unique_ptr<LearnedModel> LearnedModel::from_json(const nlohmann::json& doc,
                                                      const std::string& source) {
  if (!doc.is_object() || doc.value("kind", "") != "cnnperf_latency_model") {
    throw InputError(source + ": kind: expected \"cnnperf_latency_model\"");
  }
  const int version = field<int>(doc, "schema_version", source);
  if (version != kModelSchemaVersion) {
    throw InputError(source + ": schema_version: expected " + std::to_string(kModelSchemaVersion) +
                     ", got " + std::to_string(version));
  }
  const FeatureSpec spec = FeatureSpec::parse(field<std::string>(doc, "features", source));
  const auto names = field<std::vector<std::string>>(doc, "feature_names", source);
  if (names != feature_names(spec)) {
    throw InputError(source + ": feature_names: do not match this build's features for '" +
                     spec.to_string() + "' (retrain the model)");
  }
  std::vector<FamilyModel> families;
  if (!doc.contains("families") || !doc.at("families").is_array() || doc.at("families").empty()) {
    // A model without a regressor would predict nothing learned, silently.
    throw InputError(source + ": families: expected a non-empty array of fitted op families");
  }
  const auto& fams = doc.at("families");
  for (std::size_t i = 0; i < fams.size(); ++i) {
    const std::string where = source + ": families[" + std::to_string(i) + "]";
    FamilyModel f;
    const auto family_name = field<std::string>(fams[i], "family", where);
    try {
      f.family = op_family_from_string(family_name);
    } catch (const InputError& e) {
      throw InputError(where + ".family: " + e.what());  // it knows no file: name it and the field
    }
    // Files before the per-source split (2026-11-24) have one model per family and no key.
    if (fams[i].contains("source")) f.source = field<std::string>(fams[i], "source", where);
    f.rows = field<std::size_t>(fams[i], "rows", where);
    f.gpus = field<std::vector<std::string>>(fams[i], "gpus", where);
    f.feature_min = field<std::vector<double>>(fams[i], "feature_min", where);
    f.feature_max = field<std::vector<double>>(fams[i], "feature_max", where);
    // The range check reads one bound per feature: a shorter array would be read past its end.
    for (const auto& [key, bounds] :
         {std::pair{"feature_min", &f.feature_min}, std::pair{"feature_max", &f.feature_max}}) {
      if (bounds->size() != names.size()) {
        throw InputError(where + "." + key + ": expected " + std::to_string(names.size()) +
                         " values, one per feature_names entry, got " +
                         std::to_string(bounds->size()));
      }
    }
    std::string mode = "learned";  // files before 2026-11-24 have no unseen_gpu
    if (fams[i].contains("unseen_gpu")) {
      mode = field<std::string>(fams[i], "unseen_gpu", where);
      if (mode != "learned" && mode != "analytical" && mode != "gpu-blind") {
        throw InputError(where +
                         ".unseen_gpu: expected \"learned\", \"analytical\" or \"gpu-blind\"");
      }
    }
    f.analytical_for_unseen_gpus = mode == "analytical";
    if ((mode == "gpu-blind") != fams[i].contains("gpu_blind_regressor")) {
      throw InputError(where + ".gpu_blind_regressor: expected exactly when unseen_gpu is " +
                       "\"gpu-blind\"");
    }
    // The regressors' own errors know no file: say which one and where in it.
    const auto regressor_at = [&](const char* key) {
      if (!fams[i].contains(key)) throw InputError(where + "." + key + ": missing");
      try {
        return Regressor::from_json(fams[i].at(key));
      } catch (const InputError& e) {
        throw InputError(where + "." + key + ": " + e.what());
      }
    };
    if (mode == "gpu-blind") f.gpu_blind_regressor = regressor_at("gpu_blind_regressor");
    if (fams[i].contains("host_floor_ms")) {  // absent before 2026-11-24: no floor
      const auto& floors = fams[i]["host_floor_ms"];
      if (!floors.is_array()) throw InputError(where + ".host_floor_ms: expected an array");
      for (std::size_t k = 0; k < floors.size(); ++k) {
        const std::string at = where + ".host_floor_ms[" + std::to_string(k) + "]";
        const auto floor = field<double>(floors[k], "floor_ms", at);
        if (!std::isfinite(floor) || floor < 0) {
          throw InputError(at + ".floor_ms: expected a finite number >= 0");
        }
        f.host_floor_ms[{field<std::string>(floors[k], "source", at),
                         field<std::string>(floors[k], "gpu", at)}] = floor;
      }
    }
    f.regressor = regressor_at("regressor");
    families.push_back(std::move(f));
  }
  EagerOverhead o;
  if (doc.contains("eager_overhead")) {
    o = eager_overhead_from_json(doc["eager_overhead"], source + ": eager_overhead");
  }
  // Files before the separate power model carried a "power" object; it is ignored now
  // (models/power_model.json is the one power model).
  auto model = std::make_unique<LearnedModel>(spec, std::move(families), o,
                                              doc.value("metadata", nlohmann::json::object()));
  return model;
}

namespace {

/// Byte range [begin, end) of families[family].regressor.model.booster in a model file.
struct BoosterSpan {
  std::size_t family = 0;  ///< index in the model's families (after any filtering)
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t file_family = 0;  ///< index in the file's families array (for messages)
  bool gpu_blind = false;       ///< the family's gpu_blind_regressor's booster, not regressor's
};

const char* regressor_key(bool gpu_blind) {
  return gpu_blind ? "gpu_blind_regressor" : "regressor";
}

/// Thrown by find_boosters when the layout is valid JSON but not the usual one (a repeated
/// key): the loader then takes the plain DOM path, whose duplicate-key rule is nlohmann's.
struct UnusualLayout {};

/// Walks the whole file without building values and returns where each XGBoost booster
/// object is. Throws InputError on invalid JSON.
std::vector<BoosterSpan> find_boosters(std::string_view text, const std::string& path) {
  ml_detail::JsonCursor c(text, path);
  std::vector<BoosterSpan> out;
  // Calls `on_key(key)` for each member of the object at the cursor; `on_key` reads or
  // skips the value. A repeated key among `watched` makes the layout unusual.
  auto members = [&c](std::initializer_list<std::string_view> watched, auto&& on_key) {
    c.begin_object();
    std::vector<std::string_view> seen;
    std::string_view key;
    while (c.next_member(key)) {
      for (const auto w : watched) {
        if (key == w) {
          if (std::find(seen.begin(), seen.end(), w) != seen.end()) throw UnusualLayout{};
          seen.push_back(w);
        }
      }
      on_key(key);
    }
  };
  members({"families"}, [&](std::string_view key) {
    if (key != "families" || c.peek() != '[') {
      c.skip_value();
      return;
    }
    c.begin_array();
    for (std::size_t i = 0; c.next_element(); ++i) {
      if (c.peek() != '{') {
        c.skip_value();
        continue;
      }
      // The boosters' lengths in bytes, when the writer recorded them ahead of them.
      std::size_t regressor_bytes = 0;
      std::size_t blind_bytes = 0;
      members({"booster_bytes", "regressor", "gpu_blind_regressor"}, [&](std::string_view k1) {
        if (k1 == "booster_bytes" && c.peek() == '{') {
          c.begin_object();
          std::string_view k;
          while (c.next_member(k)) {
            const bool of_blind = k == "gpu_blind_regressor";
            if ((k != "regressor" && !of_blind) || c.peek() == '"') {
              c.skip_value();
              continue;
            }
            const std::int64_t n = c.int_value();
            (of_blind ? blind_bytes : regressor_bytes) = n > 0 ? static_cast<std::size_t>(n) : 0;
          }
          return;
        }
        const bool blind = k1 == "gpu_blind_regressor";
        if ((k1 != "regressor" && !blind) || c.peek() != '{') {
          c.skip_value();
          return;
        }
        members({"model"}, [&](std::string_view k2) {
          if (k2 != "model" || c.peek() != '{') {
            c.skip_value();
            return;
          }
          members({"booster"}, [&](std::string_view k3) {
            if (k3 == "booster" && c.peek() == '{') {
              // Unchecked here: the XGBoost regressor reads this range to its last byte
              // with a validating cursor (the arrays it ignores get a character check).
              (void)c.peek();
              const std::size_t begin = c.offset();
              // With the recorded length, the booster's megabytes are not scanned at all; a
              // wrong one cannot pass unnoticed: the rest of the file, parsed by nlohmann
              // without the span, or the booster, read by a validating cursor, fails and
              // the file takes the plain path.
              const std::size_t bytes = blind ? blind_bytes : regressor_bytes;
              if (bytes == 0 || !c.skip_container_of_size(bytes)) {
                (void)c.skip_container_unchecked();
              }
              out.push_back({i, begin, c.offset(), i, blind});
            } else {
              c.skip_value();
            }
          });
        });
      });
    }
  });
  c.expect_end();
  return out;
}

/// The model file as a DOM in which each XGBoost booster is ml_detail::pending_booster_value()
/// (its range is in `spans`). nlohmann then parses only the small rest of the file; the
/// boosters (97 % of the bundled model's 13.5 MB) are read once, by attach_boosters.
/// Returns nullopt when the file should take the plain path (invalid JSON, repeated keys).
std::optional<nlohmann::json> parse_without_boosters(std::string_view text, const std::string& path,
                                                     std::vector<BoosterSpan>& spans) {
  try {
    spans = find_boosters(text, path);
  } catch (const InputError&) {
    return std::nullopt;  // the plain parser reports the error with nlohmann's wording
  } catch (const UnusualLayout&) {
    return std::nullopt;
  }
  std::string rest;
  std::size_t cut = 0;
  for (const auto& s : spans) cut += s.end - s.begin;
  rest.reserve(text.size() - cut + 4 * spans.size());
  std::size_t prev = 0;
  for (const auto& s : spans) {
    rest.append(text.substr(prev, s.begin - prev));
    rest += "null";
    prev = s.end;
  }
  rest.append(text.substr(prev));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(rest);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // the caller's full parse reports where the text is wrong
  }
  for (const auto& s : spans) {
    doc.at("families").at(s.family).at(regressor_key(s.gpu_blind)).at("model")["booster"] =
        ml_detail::pending_booster_value();
  }
  return doc;
}

/// A whole file, read-only. Mapped where possible: on the shared VM a fresh 13.5 MB heap copy
/// costs ~12 ms of page faults, mapping the cached file ~1 ms. Compressed files, systems
/// without mmap and every error case go through read_text_file (and its messages).
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) {
#if CNNPERF_HAVE_MMAP
    if (!path.ends_with(".gz")) {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      struct stat st {};
      if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        flags |= MAP_POPULATE;  // one call maps every page instead of a fault per page
#endif
        void* map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, flags, fd, 0);
        if (map != MAP_FAILED) {
          map_ = map;
          size_ = static_cast<std::size_t>(st.st_size);
        }
      }
      if (fd >= 0) ::close(fd);
      if (map_ != nullptr) return;
    }
#endif
    text_ = read_text_file(path);
  }
  ~FileBytes() {
#if CNNPERF_HAVE_MMAP
    if (map_ != nullptr) ::munmap(map_, size_);
#endif
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  [[nodiscard]] std::string_view view() const {
    return map_ != nullptr ? std::string_view(static_cast<const char*>(map_), size_)
                           : std::string_view(text_);
  }

 private:
  void* map_ = nullptr;
  std::size_t size_ = 0;
  std::string text_;
};

/// Reads each booster's trees straight from the file's bytes into its regressor, the
/// families in parallel (they are independent and each is about a third of the work).
void attach_boosters(const LearnedModel& model, const std::shared_ptr<const FileBytes>& file,
                     const std::vector<BoosterSpan>& spans, const std::string& path) {
  const std::string_view text = file->view();
  std::vector<std::exception_ptr> errors(spans.size());
  auto attach = [&](std::size_t k) {
    const BoosterSpan& s = spans[k];
    try {
      const FamilyModel& f = model.families().at(s.family);
      // from_json read a gpu_blind_regressor exactly when it is there.
      const auto& regressor = s.gpu_blind ? f.gpu_blind_regressor : f.regressor;
      (void)ml_detail::attach_booster_text(*regressor, file, text.substr(s.begin, s.end - s.begin),
                                           path + ": families[" + std::to_string(s.file_family) +
                                               "]." + regressor_key(s.gpu_blind) + ".model.booster",
                                           s.begin);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  const auto workers = std::min<std::size_t>(ml_detail::resolve_threads(0), spans.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < spans.size(); k = next++) attach(k);
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

std::unique_ptr<LearnedModel> LearnedModel::load(const std::string& named_path,
                                                 bool reference_source_only,
                                                 const GpuSpec* only_gpu) {
  const std::string path = user_file_or_resource(named_path);
  const auto file = std::make_shared<const FileBytes>(path);
  const std::string_view text = file->view();
  std::vector<BoosterSpan> spans;
  std::optional<nlohmann::json> doc = parse_without_boosters(text, path, spans);
  if (!doc) {
    spans.clear();
    doc = parse_json_text(text, path);
  }
  auto model = from_json(*doc, path);
  if (reference_source_only) {
    // Per family, the model rows without a source go to; the others are dropped before
    // their boosters are read, and the spans renumbered to the kept families.
    std::vector<const FamilyModel*> used;
    for (const auto& f : model->families_) {
      std::vector<const FamilyModel*> same;
      for (const auto& g : model->families_) {
        if (g.family == f.family) same.push_back(&g);
      }
      if (model_for_source(same, kReferenceSource) == &f) used.push_back(&f);
    }
    constexpr std::size_t kDropped = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> new_index(model->families_.size(), kDropped);
    std::vector<FamilyModel> kept;
    for (std::size_t i = 0; i < model->families_.size(); ++i) {
      if (std::find(used.begin(), used.end(), &model->families_[i]) == used.end()) continue;
      new_index[i] = kept.size();
      kept.push_back(std::move(model->families_[i]));
    }
    model->families_ = std::move(kept);
    std::vector<BoosterSpan> kept_spans;
    for (auto s : spans) {
      if (new_index.at(s.family) == kDropped) continue;
      s.family = new_index[s.family];
      kept_spans.push_back(s);
    }
    spans = std::move(kept_spans);
    if (only_gpu != nullptr) {
      // Rows without a source on `only_gpu` take one of each family's two regressors; the
      // other's booster is not read (a network's prediction: 5 boosters would be read, 3 are used).
      for (auto& f : model->families_) {
        if (f.gpu_blind_regressor == nullptr) continue;
        const bool blind = gpu_blind_for(f, *only_gpu, kReferenceSource);
        (blind ? f.regressor : f.gpu_blind_regressor).reset();
      }
      std::erase_if(spans, [&](const BoosterSpan& s) {
        const FamilyModel& f = model->families_.at(s.family);
        return (s.gpu_blind ? f.gpu_blind_regressor : f.regressor) == nullptr;
      });
      model->only_gpu_ = only_gpu->name;
    }
  }
  attach_boosters(*model, file, spans, path);
  model->set_name(std::filesystem::path(path).filename().string());
  return model;
}

}  // namespace cnnperf
