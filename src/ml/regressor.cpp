// SPDX-License-Identifier: Apache-2.0
// Regressor base class (validation, log-target wrapper, JSON envelope), factory, params.
#include "cnnperf/ml/regressor.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "regressor_internal.hpp"

namespace cnnperf {

FeatureMatrix::FeatureMatrix(std::size_t n_rows, std::size_t n_cols)
    : rows(n_rows), cols(n_cols), values(n_rows * n_cols, 0.0) {}

FeatureMatrix::FeatureMatrix(std::size_t n_rows, std::size_t n_cols, std::vector<double> data,
                             std::vector<std::string> column_names)
    : rows(n_rows), cols(n_cols), values(std::move(data)), names(std::move(column_names)) {
  if (values.size() != rows * cols) {
    throw InputError("feature matrix: expected " + std::to_string(rows * cols) + " values (" +
                     std::to_string(rows) + " rows x " + std::to_string(cols) + " columns), got " +
                     std::to_string(values.size()));
  }
  if (!names.empty() && names.size() != cols) {
    throw InputError("feature matrix: expected " + std::to_string(cols) + " column names, got " +
                     std::to_string(names.size()));
  }
}

FeatureMatrix FeatureMatrix::select_rows(std::span<const std::size_t> row_indices) const {
  FeatureMatrix out(row_indices.size(), cols);
  out.names = names;
  for (std::size_t i = 0; i < row_indices.size(); ++i) {
    const std::size_t r = row_indices[i];
    if (r >= rows) {
      throw InputError("feature matrix: row index " + std::to_string(r) + " out of range");
    }
    std::copy_n(row(r), cols, out.values.data() + i * cols);
  }
  return out;
}

namespace {

struct KindName {
  RegressorKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {{RegressorKind::kLinear, "linear"},
                                   {RegressorKind::kKnn, "knn"},
                                   {RegressorKind::kDecisionTree, "dtree"},
                                   {RegressorKind::kRandomForest, "rf"},
                                   {RegressorKind::kXgboost, "xgboost"}};

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string to_string(RegressorKind kind) {
  for (const auto& kn : kKindNames) {
    if (kn.kind == kind) return kn.name;
  }
  return "unknown";
}

RegressorKind regressor_kind_from_string(std::string_view name) {
  const std::string key = lower(name);
  for (const auto& kn : kKindNames) {
    if (key == kn.name) return kn.kind;
  }
  throw InputError("regressor '" + std::string(name) +
                   "': expected one of linear, knn, dtree, rf, xgboost");
}

std::vector<RegressorKind> all_regressor_kinds() {
  std::vector<RegressorKind> out;
  for (const auto& kn : kKindNames) out.push_back(kn.kind);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Base class

Regressor::Regressor(nlohmann::json params) : params_(std::move(params)) {
  log_target_ = params_.value("log_target", false);
}

void Regressor::fit(const FeatureMatrix& x, std::span<const double> y,
                    std::span<const double> weights) {
  const std::string who = "fit(" + to_string(kind()) + ")";
  if (x.rows == 0 || x.cols == 0) throw InputError(who + ": empty feature matrix");
  if (x.values.size() != x.rows * x.cols) throw InputError(who + ": feature matrix size mismatch");
  if (y.size() != x.rows) {
    throw InputError(who + ": expected " + std::to_string(x.rows) + " targets, got " +
                     std::to_string(y.size()));
  }
  if (!weights.empty() && weights.size() != x.rows) {
    throw InputError(who + ": expected " + std::to_string(x.rows) + " weights, got " +
                     std::to_string(weights.size()));
  }
  for (std::size_t i = 0; i < x.values.size(); ++i) {
    if (!std::isfinite(x.values[i])) {
      throw InputError(who + ": row " + std::to_string(i / x.cols) + ", column " +
                       std::to_string(i % x.cols) + ": expected a finite feature value");
    }
  }
  double weight_sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0.0) {
      throw InputError(who + ": weight of row " + std::to_string(i) +
                       ": expected a finite non-negative number");
    }
    weight_sum += weights[i];
  }
  if (!weights.empty() && weight_sum <= 0.0) {
    throw InputError(who + ": all sample weights are zero");
  }
  std::vector<double> target(y.begin(), y.end());
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (!std::isfinite(target[i])) {
      throw InputError(who + ": target of row " + std::to_string(i) + ": expected a finite number");
    }
    if (log_target_) {
      if (target[i] <= 0.0) {
        throw InputError(who + ": target of row " + std::to_string(i) +
                         ": expected a positive number (log_target is on)");
      }
      target[i] = std::log(target[i]);
    }
  }
  fitted_ = false;  // a failed fit must not leave a half-trained model usable
  fit_impl(x, target, weights);
  n_features_ = x.cols;
  feature_names_ = x.names;
  fitted_ = true;
}

std::vector<double> Regressor::predict(const FeatureMatrix& x) const {
  if (!fitted_) throw Error("predict(" + to_string(kind()) + "): the model is not trained");
  if (x.cols != n_features_) {
    throw InputError("predict(" + to_string(kind()) + "): expected " + std::to_string(n_features_) +
                     " features per row, got " + std::to_string(x.cols));
  }
  if (!x.names.empty() && !feature_names_.empty() && x.names != feature_names_) {
    for (std::size_t c = 0; c < x.cols; ++c) {
      if (x.names[c] != feature_names_[c]) {
        throw InputError("predict(" + to_string(kind()) + "): feature " + std::to_string(c) +
                         ": expected '" + feature_names_[c] + "', got '" + x.names[c] + "'");
      }
    }
  }
  if (x.rows == 0) return {};
  std::vector<double> out = predict_impl(x);
  if (log_target_) {
    for (double& v : out) v = std::exp(v);
  }
  return out;
}

nlohmann::json Regressor::to_json() const {
  if (!fitted_) throw Error("to_json(" + to_string(kind()) + "): the model is not trained");
  nlohmann::json doc;
  doc["schema_version"] = kRegressorSchemaVersion;
  doc["kind"] = to_string(kind());
  doc["params"] = params_;
  doc["n_features"] = n_features_;
  doc["feature_names"] = feature_names_;
  doc["model"] = model_to_json();
  return doc;
}

std::unique_ptr<Regressor> Regressor::from_json(const nlohmann::json& doc) {
  using ml_detail::FieldError;
  using ml_detail::require;
  if (!doc.is_object()) {
    throw FieldError("", std::string("expected a regressor object, got ") + doc.type_name(),
                     "regressor: expected an object");
  }
  const auto& version = require(doc, "schema_version", "");
  if (!version.is_number_integer() || version.get<std::int64_t>() != kRegressorSchemaVersion) {
    throw FieldError("schema_version", "expected " + std::to_string(kRegressorSchemaVersion));
  }
  const auto& kind_field = require(doc, "kind", "");
  if (!kind_field.is_string()) {
    throw FieldError("kind", std::string("expected a string, got ") + kind_field.type_name());
  }
  RegressorKind kind{};
  try {
    kind = regressor_kind_from_string(kind_field.get<std::string>());
  } catch (const InputError& e) {
    throw FieldError("kind", e.what());
  }
  std::unique_ptr<Regressor> model;
  try {
    model = make_regressor(kind, require(doc, "params", ""));
  } catch (const FieldError&) {
    throw;
  } catch (const InputError& e) {
    throw FieldError("params", e.what());
  }
  const auto& n_features = require(doc, "n_features", "");
  if (!n_features.is_number_unsigned() || n_features.get<std::size_t>() == 0) {
    throw FieldError("n_features", "expected a positive integer");
  }
  model->n_features_ = n_features.get<std::size_t>();
  if (doc.contains("feature_names")) {
    const auto& names = doc.at("feature_names");
    if (!names.is_array() ||
        !std::all_of(names.begin(), names.end(), [](const auto& n) { return n.is_string(); })) {
      throw FieldError("feature_names", "expected an array of strings");
    }
    model->feature_names_ = names.get<std::vector<std::string>>();
    if (!model->feature_names_.empty() && model->feature_names_.size() != model->n_features_) {
      throw FieldError("feature_names", "expected n_features names");
    }
  }
  try {
    model->model_from_json(require(doc, "model", ""));
  } catch (const nlohmann::json::exception&) {
    // Every reader checks its members' types (FieldError); this is a last guard that keeps
    // the JSON library's internal message out of a user's error.
    throw FieldError(
        "model", "expected the layout a " + to_string(kind) + " regressor of this version writes");
  }
  model->fitted_ = true;
  return model;
}

std::unique_ptr<Regressor> make_regressor(RegressorKind kind, const nlohmann::json& params) {
  switch (kind) {
    case RegressorKind::kLinear: return ml_detail::make_linear(params);
    case RegressorKind::kKnn: return ml_detail::make_knn(params);
    case RegressorKind::kDecisionTree: return ml_detail::make_decision_tree(params);
    case RegressorKind::kRandomForest: return ml_detail::make_random_forest(params);
    case RegressorKind::kXgboost: return ml_detail::make_xgboost(params);
  }
  throw InputError("unknown regressor kind");
}

// ---------------------------------------------------------------------------------------------
// Private helpers

namespace ml_detail {

ParamReader::ParamReader(std::string kind, const nlohmann::json& params) : kind_(std::move(kind)) {
  if (params.is_null()) {
    in_ = nlohmann::json::object();
  } else if (params.is_object()) {
    in_ = params;
  } else {
    throw FieldError("params", std::string("expected an object, got ") + params.type_name(),
                     kind_ + " params: expected a JSON object, got " + params.type_name());
  }
}

void ParamReader::fail(const std::string& key, const std::string& expected) const {
  // At most the value's start: a hostile file's value may be megabytes long.
  std::string got = in_.at(key).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  const std::string detail = "expected " + expected + ", got " + got;
  throw FieldError("params." + key, detail, kind_ + " params: field '" + key + "': " + detail);
}

bool ParamReader::get_bool(const std::string& key, bool fallback) {
  bool v = fallback;
  if (in_.contains(key)) {
    if (!in_[key].is_boolean()) fail(key, "true or false");
    v = in_[key].get<bool>();
    in_.erase(key);
  }
  out_[key] = v;
  return v;
}

std::int64_t ParamReader::get_int(const std::string& key, std::int64_t fallback,
                                  std::int64_t min_value, std::int64_t max_value) {
  std::int64_t v = fallback;
  const std::string range =
      "an integer in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "]";
  if (in_.contains(key)) {
    const auto& j = in_[key];
    if (j.is_number_integer()) {
      v = j.get<std::int64_t>();
    } else if (j.is_number_float() && std::floor(j.get<double>()) == j.get<double>() &&
               std::abs(j.get<double>()) < 9e15) {
      v = static_cast<std::int64_t>(j.get<double>());
    } else {
      fail(key, range);
    }
    if (v < min_value || v > max_value) fail(key, range);
    in_.erase(key);
  }
  out_[key] = v;
  return v;
}

double ParamReader::get_double(const std::string& key, double fallback, double min_value,
                               double max_value) {
  double v = fallback;
  if (in_.contains(key)) {
    const auto& j = in_[key];
    if (!j.is_number()) fail(key, "a number");
    v = j.get<double>();
    if (!std::isfinite(v) || v < min_value || v > max_value) {
      std::ostringstream os;
      os << "a number in [" << min_value << ", " << max_value << "]";
      fail(key, os.str());
    }
    in_.erase(key);
  }
  out_[key] = v;
  return v;
}

std::string ParamReader::get_choice(const std::string& key, const std::string& fallback,
                                    const std::vector<std::string>& choices) {
  std::string v = fallback;
  if (in_.contains(key)) {
    std::string expected = "one of";
    for (const auto& c : choices) expected += " \"" + c + "\"";
    if (!in_[key].is_string()) fail(key, expected);
    v = in_[key].get<std::string>();
    if (std::find(choices.begin(), choices.end(), v) == choices.end()) fail(key, expected);
    in_.erase(key);
  }
  out_[key] = v;
  return v;
}

void ParamReader::get_common() {
  get_bool("log_target", false);
  // Seeds are kept below 2^53 so they survive any JSON reader as exact numbers.
  get_int("seed", 42, 0, (std::int64_t{1} << 53) - 1);
}

nlohmann::json ParamReader::finish() {
  if (!in_.empty()) {
    std::string known;
    for (const auto& [k, v] : out_.items()) known += (known.empty() ? "" : ", ") + k;
    const std::string detail = "unknown field (known: " + known + ")";
    throw FieldError(
        "params." + in_.begin().key(), detail,
        kind_ + " params: unknown field '" + in_.begin().key() + "' (known: " + known + ")");
  }
  return out_;
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

unsigned resolve_threads(std::int64_t requested) {
  if (requested > 0) return static_cast<unsigned>(requested);
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1U : hw;
}

std::string member_path(const std::string& at, const std::string& key) {
  return at.empty() ? key : at + "." + key;
}

const nlohmann::json& require(const nlohmann::json& doc, const std::string& key,
                              const std::string& at) {
  if (!doc.is_object()) {
    throw FieldError(at, std::string("expected an object, got ") + doc.type_name());
  }
  const auto it = doc.find(key);
  if (it == doc.end()) throw FieldError(member_path(at, key), "missing");
  return *it;
}

double number_member(const nlohmann::json& doc, const std::string& key, const std::string& at) {
  const auto& v = require(doc, key, at);
  if (!v.is_number()) {
    throw FieldError(member_path(at, key), std::string("expected a number, got ") + v.type_name());
  }
  return v.get<double>();
}

namespace {

// The elements of array `key` of `doc`, each checked by `read` (which returns false when the
// element is not of its kind), with the element's index in the error.
template <typename T, typename Read>
std::vector<T> typed_array(const nlohmann::json& doc, const std::string& key, const std::string& at,
                           const char* plural, const char* single, Read read) {
  const auto& v = require(doc, key, at);
  if (!v.is_array()) {
    throw FieldError(member_path(at, key),
                     std::string("expected an array of ") + plural + ", got " + v.type_name());
  }
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!read(v[i], out[i])) {
      throw FieldError(member_path(at, key) + "[" + std::to_string(i) + "]",
                       std::string("expected ") + single + ", got " + v[i].type_name());
    }
  }
  return out;
}

}  // namespace

std::vector<double> number_array(const nlohmann::json& doc, const std::string& key,
                                 const std::string& at) {
  return typed_array<double>(doc, key, at, "numbers", "a number",
                             [](const nlohmann::json& e, double& out) {
                               if (!e.is_number()) return false;
                               out = e.get<double>();
                               return true;
                             });
}

std::vector<std::int32_t> int32_array(const nlohmann::json& doc, const std::string& key,
                                      const std::string& at) {
  return typed_array<std::int32_t>(doc, key, at, "integers", "an integer in int32 range",
                                   [](const nlohmann::json& e, std::int32_t& out) {
                                     if (!e.is_number_integer()) return false;
                                     const auto v = e.get<std::int64_t>();
                                     if (v < std::numeric_limits<std::int32_t>::min() ||
                                         v > std::numeric_limits<std::int32_t>::max()) {
                                       return false;
                                     }
                                     out = static_cast<std::int32_t>(v);
                                     return true;
                                   });
}

}  // namespace ml_detail
}  // namespace cnnperf
