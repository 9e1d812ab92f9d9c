// SPDX-License-Identifier: Apache-2.0
// The learned model file: LearnedModel::to_json and from_json (LearnedModel::load, the fast
// path for large files, is in model_file_loader.cpp).
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <string_view>
#include <type_traits>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "regressor_internal.hpp"

namespace cnnperf {

namespace {

// "file: key" at the top level, "file: families[0].key" below it.
std::string member_at(const std::string& where, const std::string& key) {
  return where + (where.ends_with("]") ? "." : ": ") + key;
}

template <typename T>
T field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw InputError(member_at(where, key) + ": missing field");
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
    throw InputError(member_at(where, key) + ": expected " + expected + ", got " +
                     j.at(key).type_name());
  }
}

// The members a model file may have. Anything else is refused rather than ignored: a key
// typed wrong ("eager_overheads") would otherwise drop what it holds without a word. "power"
// is read by nothing (models/power_model.json is the one power model) but older files hold it.
constexpr std::array<std::string_view, 11> kModelKeys = {
    "schema_version",   "kind",     "tool_version",  "target",
    "reference_source", "features", "feature_names", "families",
    "eager_overhead",   "metadata", "power"};
constexpr std::array<std::string_view, 13> kFamilyKeys = {
    "family",        "source",          "rows",        "tensor_core_rows",
    "gpus",          "feature_min",     "feature_max", "unseen_gpu",
    "host_floor_ms", "harness_traffic", "regressor",   "gpu_blind_regressor",
    "booster_bytes"};

template <std::size_t N>
void refuse_unknown_keys(const nlohmann::json& object, const std::array<std::string_view, N>& known,
                         const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      throw InputError(member_at(where, key) + ": unknown key (expected one of " + list + ")");
    }
  }
}

// The metadata is free-form (train's report), but the members cnnperf reads back are checked
// here, so that no later reader meets a value of another type.
void check_metadata(const nlohmann::json& metadata, const std::string& where) {
  if (!metadata.is_object()) {
    throw InputError(where + ": expected an object, got " + metadata.type_name());
  }
  if (metadata.contains("fingerprint") && !metadata.at("fingerprint").is_string()) {
    throw InputError(where + ".fingerprint: expected a string, got " +
                     metadata.at("fingerprint").type_name());
  }
  if (metadata.contains("intervals")) {
    (void)interval_table_from_file_json(metadata.at("intervals"), where + ".intervals");
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
    for (const auto& [key, floor] : f.harness.floor_ms) {
      floors.push_back({{"source", key.first}, {"gpu", key.second}, {"floor_ms", floor}});
    }
    nlohmann::json traffic = nlohmann::json::array();
    for (const auto& [key, x] : f.harness.traffic) {
      traffic.push_back({{"source", key.first},
                         {"pass", key.second},
                         {"basis", kTrafficBasis},
                         {"input_x", x.input},
                         {"output_x", x.output},
                         {"weight_x", x.weight}});
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
                    {"harness_traffic", traffic},
                    {"regressor", f.regressor->to_json()}});
    if (f.tensor_core_rows.has_value()) fams.back()["tensor_core_rows"] = *f.tensor_core_rows;
    if (f.gpu_blind_regressor != nullptr) {
      fams.back()["gpu_blind_regressor"] = f.gpu_blind_regressor->to_json();
    }
  }
  return {{"schema_version", kModelSchemaVersion},
          {"kind", "cnnperf_latency_model"},
          {"tool_version", CNNPERF_VERSION},
          {"target",
           "log(latency_ms / (analytical_ms + host_floor_ms + harness traffic_ms)) per op family"},
          {"reference_source", kReferenceSource},
          {"features", spec_.to_string()},
          {"feature_names", feature_names(spec_)},
          {"families", fams},
          {"eager_overhead", cnnperf::to_json(overhead_)},
          {"metadata", metadata_}};
}

std::unique_ptr<LearnedModel> LearnedModel::from_json(const nlohmann::json& doc,
                                                      const std::string& source) {
  if (!doc.is_object() || !doc.contains("kind") || doc.at("kind") != "cnnperf_latency_model") {
    throw InputError(source + ": kind: expected \"cnnperf_latency_model\"");
  }
  refuse_unknown_keys(doc, kModelKeys, source);
  const int version = field<int>(doc, "schema_version", source);
  if (version < kOldestModelSchemaVersion || version > kModelSchemaVersion) {
    throw InputError(source + ": schema_version: expected " +
                     std::to_string(kOldestModelSchemaVersion) + " to " +
                     std::to_string(kModelSchemaVersion) + ", got " + std::to_string(version));
  }
  const FeatureSpec spec = [&] {
    try {
      return FeatureSpec::parse(field<std::string>(doc, "features", source));
    } catch (const InputError& e) {
      // The parser knows no file ("features: unknown group 'x'"): name it.
      if (std::string_view(e.what()).starts_with(source + ": ")) throw;
      throw InputError(source + ": " + e.what());
    }
  }();
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
    if (!fams[i].is_object()) {
      throw InputError(where + ": expected an object, got " + fams[i].type_name());
    }
    refuse_unknown_keys(fams[i], kFamilyKeys, where);
    FamilyModel f;
    const auto family_name = field<std::string>(fams[i], "family", where);
    try {
      f.family = op_family_from_string(family_name);
    } catch (const InputError& e) {
      throw InputError(where + ".family: " + e.what());  // it knows no file: name it and the field
    }
    // A file without the key has one joint model per family (no per-source split).
    if (fams[i].contains("source")) f.source = field<std::string>(fams[i], "source", where);
    f.rows = field<std::size_t>(fams[i], "rows", where);
    // A file without the count does not say which math units it saw: no layer is held back.
    if (fams[i].contains("tensor_core_rows")) {
      f.tensor_core_rows = field<std::size_t>(fams[i], "tensor_core_rows", where);
      if (*f.tensor_core_rows > f.rows) {
        throw InputError(where + ".tensor_core_rows: expected at most rows (" +
                         std::to_string(f.rows) + "), got " + std::to_string(*f.tensor_core_rows));
      }
    }
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
    std::string mode = "learned";  // a file without unseen_gpu
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
      } catch (const ml_detail::FieldError& e) {
        throw InputError(where + "." + ml_detail::member_path(key, e.path()) + ": " + e.detail());
      } catch (const InputError& e) {
        throw InputError(where + "." + key + ": " + e.what());
      }
    };
    if (mode == "gpu-blind") f.gpu_blind_regressor = regressor_at("gpu_blind_regressor");
    if (fams[i].contains("host_floor_ms")) {  // absent: no floor
      const auto& floors = fams[i]["host_floor_ms"];
      if (!floors.is_array()) throw InputError(where + ".host_floor_ms: expected an array");
      for (std::size_t k = 0; k < floors.size(); ++k) {
        const std::string at = where + ".host_floor_ms[" + std::to_string(k) + "]";
        const auto floor = field<double>(floors[k], "floor_ms", at);
        if (!std::isfinite(floor) || floor < 0) {
          throw InputError(at + ".floor_ms: expected a finite number >= 0");
        }
        f.harness.floor_ms[{field<std::string>(floors[k], "source", at),
                            field<std::string>(floors[k], "gpu", at)}] = floor;
      }
    }
    if (fams[i].contains("harness_traffic")) {  // absent: no traffic terms
      const auto& traffic = fams[i]["harness_traffic"];
      if (!traffic.is_array()) throw InputError(where + ".harness_traffic: expected an array");
      for (std::size_t k = 0; k < traffic.size(); ++k) {
        const std::string at = where + ".harness_traffic[" + std::to_string(k) + "]";
        // Multiples over another basis (DRAM bandwidth) would be read as wrong times.
        if (!traffic[k].is_object() || !traffic[k].contains("basis") ||
            traffic[k]["basis"] != kTrafficBasis) {
          throw InputError(at + ".basis: expected \"" + std::string(kTrafficBasis) +
                           "\" (multiples of bytes at one byte per SM cycle; a file without "
                           "a basis was fitted over DRAM bandwidth: train it again)");
        }
        TrafficMultiples x;
        for (const auto& [name, member] : {std::pair{"input_x", &TrafficMultiples::input},
                                           std::pair{"output_x", &TrafficMultiples::output},
                                           std::pair{"weight_x", &TrafficMultiples::weight}}) {
          const auto v = field<double>(traffic[k], name, at);
          if (!std::isfinite(v) || v < 0) {
            throw InputError(at + "." + name + ": expected a finite number >= 0");
          }
          x.*member = v;
        }
        const auto pass = field<std::string>(traffic[k], "pass", at);
        try {
          (void)pass_from_string(pass);
        } catch (const InputError& e) {
          throw InputError(at + ".pass: " + e.what());
        }
        f.harness.traffic[{field<std::string>(traffic[k], "source", at), pass}] = x;
      }
    }
    f.regressor = regressor_at("regressor");
    families.push_back(std::move(f));
  }
  EagerOverhead o;
  if (doc.contains("eager_overhead")) {
    o = eager_overhead_from_json(doc["eager_overhead"], source + ": eager_overhead");
  }
  nlohmann::json metadata = nlohmann::json::object();
  if (doc.contains("metadata")) {
    metadata = doc.at("metadata");
    check_metadata(metadata, source + ": metadata");
  }
  // A "power" object in a model file is ignored
  // (models/power_model.json is the one power model).
  auto model = std::make_unique<LearnedModel>(spec, std::move(families), o, std::move(metadata));
  return model;
}

}  // namespace cnnperf
