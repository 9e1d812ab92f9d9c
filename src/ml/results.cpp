// SPDX-License-Identifier: Apache-2.0
// JSON of the train and validate results. Each struct's members are named once, in its
// `fields` list, which both directions walk; nlohmann::json keeps keys sorted, so the order of
// a list does not show in the output.
#include "cnnperf/ml/results.hpp"

#include "cnnperf/common/json_get.hpp"

#include <limits>
#include <string>

namespace cnnperf {

namespace {

using Json = nlohmann::json;

double number_or_nan(const Json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  return it->get<double>();
}

// One member into / out of an object: metrics use their own JSON (NaN as null), an unset
// optional is absent.
void put(Json& j, const char* key, const Metrics& m) {
  j[key] = to_json(m);
}
void put(Json& j, const char* key, const std::map<std::string, Metrics>& metrics) {
  Json out = Json::object();
  for (const auto& [name, m] : metrics) put(out, name.c_str(), m);
  j[key] = std::move(out);
}
template <typename T>
void put(Json& j, const char* key, const T& value) {
  j[key] = value;
}
template <typename T>
void put(Json& j, const char* key, const std::optional<T>& value) {
  if (value) put(j, key, *value);
}

// An absent member keeps the struct's default: a file of an older version lacks the members
// added after it (a member of the wrong type still throws).
void take(const Json& j, const char* key, Metrics& m) {
  if (j.contains(key)) m = metrics_from_json(j.at(key));
}
void take(const Json& j, const char* key, std::map<std::string, Metrics>& metrics) {
  metrics.clear();
  if (!j.contains(key)) return;
  for (const auto& [name, m] : j.at(key).items()) metrics[name] = metrics_from_json(m);
}
template <typename T>
void take(const Json& j, const char* key, T& value) {
  json_get_member_exact(j, key, value);
}
template <typename T>
void take(const Json& j, const char* key, std::optional<T>& value) {
  value.reset();
  if (j.contains(key)) take(j, key, value.emplace());
}

struct Writer {
  Json& j;
  template <typename T>
  void operator()(const char* key, const T& value) const {
    put(j, key, value);
  }
};

struct Reader {
  const Json& j;
  template <typename T>
  void operator()(const char* key, T& value) const {
    take(j, key, value);
  }
};

// The members of each result, for both directions (Self is the struct, const or not).
template <typename Self, typename F>
void fields(Self& h, F&& f, TrainDataHeader* /*tag*/) {
  f("schema_version", h.schema_version);
  f("tool_version", h.tool_version);
  f("data", h.data);
  f("fingerprint", h.fingerprint);
  f("folds", h.folds);
  f("seed", h.seed);
}

template <typename Self, typename F>
void fields(Self& r, F&& f, TrainCvRow* /*tag*/) {
  f("regressor", r.regressor);
  f("family", r.family);
  f("cv", r.cv);
  f("gpu", r.gpu);
  f("source", r.source);
  f("train_s", r.train_s);
  f("unseen_gpu_rows", r.unseen_gpu_rows);
  f("not_applicable", r.not_applicable);
}

template <typename Self, typename F>
void fields(Self& r, F&& f, TrainUnseenGpuRow* /*tag*/) {
  f("family", r.family);
  f("regressor", r.regressor);
  f("source", r.source);
  f("rows", r.rows);
  f("learned_mape_pct", r.learned_mape_pct);
  f("analytical_mape_pct", r.analytical_mape_pct);
  f("unseen_gpu", r.unseen_gpu);
  f("per_gpu", r.per_gpu);
}

template <typename Self, typename F>
void fields(Self& m, F&& f, TrainedModelRef* /*tag*/) {
  f("path", m.path);
  f("regressor_per_family", m.regressor_per_family);
}

template <typename Self, typename F>
void fields(Self& r, F&& f, TrainResult* /*tag*/) {
  fields(r.header, f, static_cast<TrainDataHeader*>(nullptr));
  f("rows", r.rows);
  f("skipped_rows", r.skipped_rows);
  f("features", r.features);
  f("sources", r.sources);
  f("host_floor", r.host_floor);
  f("cv_scheme", r.cv_scheme);
  f("cv", r.cv);
  f("unseen_gpu_check", r.unseen_gpu_check);
  f("model", r.model);
}

template <typename Self, typename F>
void fields(Self& r, F&& f, FeatureExportResult* /*tag*/) {
  fields(r.header, f, static_cast<TrainDataHeader*>(nullptr));
  f("features", r.features);
  f("feature_names", r.feature_names);
  f("host_floor", r.host_floor);
  f("cv_scheme", r.cv_scheme);
  f("rows_per_family", r.rows_per_family);
  f("path", r.path);
}

template <typename Self, typename F>
void fields(Self& r, F&& f, AlgoStudyReport* /*tag*/) {
  fields(r.header, f, static_cast<TrainDataHeader*>(nullptr));
  f("cv_scheme", r.cv_scheme);
  f("algo_classifier", r.algo_classifier);
  f("algo_inner_folds", r.algo_inner_folds);
  f("algo_study", r.algo_study);
}

template <typename Self, typename F>
void fields(Self& l, F&& f, ValidateLayerScores* /*tag*/) {
  f("files", l.files);
  f("fingerprint", l.fingerprint);
  f("rows", l.rows);
  f("skipped_rows", l.skipped_rows);
  f("unmodelled_rows", l.unmodelled_rows);
  f("source_features", l.source_features);
  f("overall", l.overall);
  f("per_gpu", l.per_gpu);
  f("per_family", l.per_family);
  f("training_rows", l.training_rows);
  f("intervals", l.intervals);
}

template <typename Self, typename F>
void fields(Self& e, F&& f, ValidateE2eScores* /*tag*/) {
  f("file", e.file);
  f("latency_model", e.latency_model);
  f("rows", e.rows);
  f("eager_overhead_source", e.eager_overhead_source);
  f("unmodelled_multi_gpu_rows", e.unmodelled_multi_gpu_rows);
}

template <typename Self, typename F>
void fields(Self& r, F&& f, ValidateResult* /*tag*/) {
  f("schema_version", r.schema_version);
  f("tool_version", r.tool_version);
  f("model", r.model);
  f("model_fingerprint", r.model_fingerprint);
  f("layers", r.layers);
  f("e2e", r.e2e);
}

template <typename T>
void write(Json& j, const T& value) {
  if (!j.is_object()) j = Json::object();
  fields(value, Writer{j}, static_cast<T*>(nullptr));
}

template <typename T>
void read(const Json& j, T& value) {
  json_require_object(j);
  fields(value, Reader{j}, static_cast<T*>(nullptr));
}

}  // namespace

Metrics metrics_from_json(const Json& j) {
  json_require_object(j);
  Metrics m;
  json_get_member_exact(j, "n", m.n);
  m.mape_pct = number_or_nan(j, "mape_pct");
  m.r2 = number_or_nan(j, "r2");
  m.adjusted_r2 = number_or_nan(j, "adjusted_r2");
  m.within_10pct = number_or_nan(j, "within_10pct");
  m.spearman = number_or_nan(j, "spearman");
  m.rmse = number_or_nan(j, "rmse");
  return m;
}

// A row's metrics sit beside its labels; a row the scheme did not apply to has none but n.
void to_json(Json& j, const TrainCvRow& row) {
  j = row.not_applicable ? Json{{"n", row.metrics.n}} : to_json(row.metrics);
  write(j, row);
}

void from_json(const Json& j, TrainCvRow& row) {
  row.metrics = metrics_from_json(j);
  read(j, row);
}

// gpu_blind_mape_pct is null, not absent, when not measured.
void to_json(Json& j, const TrainUnseenGpuRow& row) {
  write(j, row);
  j["gpu_blind_mape_pct"] = row.gpu_blind_mape_pct ? Json(*row.gpu_blind_mape_pct) : Json();
}

void from_json(const Json& j, TrainUnseenGpuRow& row) {
  read(j, row);
  const Json blind = j.value("gpu_blind_mape_pct", Json());
  row.gpu_blind_mape_pct = blind.is_null() ? std::nullopt : std::optional(blind.get<double>());
}

void to_json(Json& j, const TrainedModelRef& model) {
  write(j, model);
}
void from_json(const Json& j, TrainedModelRef& model) {
  read(j, model);
}

void to_json(Json& j, const TrainResult& r) {
  write(j, r);
  j["kind"] = kTrainMetricsKind;
  if (!r.unused_params_sections.empty()) j["unused_params_sections"] = r.unused_params_sections;
  if (!r.intervals.is_null()) j["intervals"] = r.intervals;
  if (!r.unseen_gpu_intervals.is_null()) j["unseen_gpu_intervals"] = r.unseen_gpu_intervals;
  if (!r.step_intervals.is_null()) j["step_intervals"] = r.step_intervals;
  if (!r.e2e.is_null()) j["e2e"] = r.e2e;
}

void from_json(const Json& j, TrainResult& r) {
  read(j, r);
  r.unused_params_sections = j.value("unused_params_sections", std::vector<std::string>{});
  r.intervals = j.value("intervals", Json());
  r.unseen_gpu_intervals = j.value("unseen_gpu_intervals", Json());
  r.step_intervals = j.value("step_intervals", Json());
  r.e2e = j.value("e2e", Json());
}

void to_json(Json& j, const FeatureExportResult& r) {
  write(j, r);
  j["kind"] = kFeatureExportKind;
}

void from_json(const Json& j, FeatureExportResult& r) {
  read(j, r);
}

void to_json(Json& j, const AlgoStudyReport& r) {
  write(j, r);
  j["kind"] = kAlgoStudyKind;
}

void from_json(const Json& j, AlgoStudyReport& r) {
  read(j, r);
}

void to_json(Json& j, const ValidateLayerScores& l) {
  write(j, l);
}
void from_json(const Json& j, ValidateLayerScores& l) {
  read(j, l);
}

// The evaluation's own members sit beside the section's.
void to_json(Json& j, const ValidateE2eScores& e) {
  j = e.evaluation;
  write(j, e);
}

void from_json(const Json& j, ValidateE2eScores& e) {
  read(j, e);
  e.evaluation = j;
  fields(
      e, [&](const char* key, const auto& /*value*/) { e.evaluation.erase(key); },
      static_cast<ValidateE2eScores*>(nullptr));
}

void to_json(Json& j, const ValidateResult& r) {
  write(j, r);
  j["kind"] = kValidationMetricsKind;
  if (!r.power.is_null()) j["power"] = r.power;
}

void from_json(const Json& j, ValidateResult& r) {
  read(j, r);
  r.power = j.value("power", Json());
}

}  // namespace cnnperf
