// SPDX-License-Identifier: Apache-2.0
// The algorithm study as a command (research/algo_study/main.cpp runs it).
#include "algo_study_report.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

#include "algo.hpp"
#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/learned_model.hpp"

namespace cnnperf {

namespace {

std::vector<std::string> parse_variants(const std::string& text) {
  std::vector<std::string> variants;
  if (to_lower(text) == "all") return variants;  // empty: every variant
  const auto& known = algo_study_variants();
  for (const auto& item : split(text, ',')) {
    if (item.empty()) continue;
    if (std::find(known.begin(), known.end(), item) == known.end()) {
      throw ParameterError("variants", "unknown variant '" + item +
                                           "' (expected all, or a list of baseline, quant, "
                                           "oracle, algo, algo+quant, per-mode, oracle-per-mode)");
    }
    variants.push_back(item);
  }
  return variants;
}

RegressorKind kind_of(const std::string& parameter, const std::string& text) {
  try {
    return regressor_kind_from_string(text);
  } catch (const InputError& e) {
    throw ParameterError(parameter, e.what());
  }
}

nlohmann::json parse_params(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ParameterError("params", "not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (!doc.is_object()) throw ParameterError("params", "expected a JSON object");
  return doc;
}

nlohmann::json params_for(RegressorKind kind, const nlohmann::json& overrides) {
  nlohmann::json params = default_params(kind);
  params.update(overrides);
  return params;
}

double num(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
  return j[key].get<double>();
}

std::string cell(const nlohmann::json& j, const char* key) {
  return format_number(num(j, key), 4);
}

}  // namespace

nlohmann::json algo_study_report(const AlgoStudyReportOptions& options) {
  const std::vector<RegressorKind> kinds =
      to_lower(options.regressor) == "all" ? all_regressor_kinds()
                                           : std::vector{kind_of("regressor", options.regressor)};
  // Options are checked before minutes of loading, so a typo fails at once.
  AlgoStudyOptions study;
  study.variants = parse_variants(options.variants);
  study.classifier = kind_of("classifier", options.classifier);
  const nlohmann::json overrides = parse_params(options.params);
  if (options.folds < 2) {
    throw ParameterError("folds", "expected at least 2, got " + std::to_string(options.folds));
  }
  study.inner_folds = options.inner_folds;
  study.folds = options.folds;
  study.seed = options.seed;
  study.classifier_params = params_for(study.classifier, overrides);
  study.classifier_params["seed"] = options.seed;

  const TrainingData data = load_training_data(options.data);
  const std::vector<int> labels = load_conv_algo_labels(data);
  nlohmann::json report = {{"schema_version", kModelSchemaVersion},
                           {"tool_version", CNNPERF_VERSION},
                           {"data", data.files},
                           {"fingerprint", data.fingerprint},
                           {"folds", options.folds},
                           {"seed", options.seed},
                           {"kind", "algo_study"},
                           {"cv_scheme", "group-shape"},
                           {"algo_classifier", options.classifier},
                           {"algo_inner_folds", options.inner_folds},
                           {"algo_study", nlohmann::json::object()}};
  for (const auto kind : kinds) {
    study.regressor = kind;
    study.params = params_for(kind, overrides);
    spdlog::info("algorithm study with {}", to_string(kind));
    report["algo_study"][to_string(kind)] = to_json(run_algo_study(data, labels, study));
  }
  return report;
}

std::string render_algo_study(const nlohmann::json& report, OutputFormat format) {
  if (format == OutputFormat::kJson) return report.dump(2) + "\n";
  const std::vector<std::string> header = {"regressor", "variant",      "rows",     "n",
                                           "mape_pct",  "within_10pct", "spearman", "seconds"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<std::string>> accuracy;
  const auto add = [&](const std::string& kind, const nlohmann::json& v, const std::string& part,
                       const nlohmann::json& m, const std::string& seconds) {
    rows.push_back({kind, v["variant"], part, std::to_string(m.value("n", std::size_t{0})),
                    cell(m, "mape_pct"), cell(m, "within_10pct"), cell(m, "spearman"), seconds});
  };
  for (const auto& [kind, study] : report["algo_study"].items()) {
    for (const auto& v : study["variants"]) {
      add(kind, v, "all", v["overall"], format_number(v["seconds"].get<double>(), 3));
      for (const auto& [gpu, g] : v["per_gpu"].items()) add(kind, v, gpu, g, "");
      for (const auto& [cls, g] : v["per_class"].items()) add(kind, v, "ran " + cls, g, "");
    }
    if (study.contains("classifier_accuracy_pct") && accuracy.empty()) {
      accuracy.push_back({"all", format_number(study["classifier_accuracy_pct"].get<double>(), 4)});
      for (const auto& [gpu, a] : study["classifier_accuracy_pct_per_gpu"].items()) {
        accuracy.push_back({gpu, format_number(a.get<double>(), 4)});
      }
    }
  }
  if (format == OutputFormat::kCsv) {
    return csv_with_schema(header, rows, report.at("schema_version").get<int>());
  }
  std::string out = format_table(header, rows);
  if (!accuracy.empty()) {
    out += "\nalgorithm classifier (" + report["algo_classifier"].get<std::string>() +
           ", out-of-fold on the test rows of each fold)\n";
    out += format_table({"gpu", "accuracy_pct"}, accuracy);
  }
  return out;
}

}  // namespace cnnperf
