// SPDX-License-Identifier: Apache-2.0
// `cnnperf train`: per-regressor, per-family cross-validation and the learned model file.
#include "train/train_command.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/algo.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/power_calibration.hpp"
#include "cnnperf/ml/results.hpp"

namespace cnnperf {

namespace {

std::vector<RegressorKind> kinds_for(const std::string& text) {
  if (to_lower(text) == "all") return all_regressor_kinds();
  try {
    return {regressor_kind_from_string(text)};
  } catch (const InputError& e) {
    throw InputError(std::string("--regressor: ") + e.what() + " (or 'all')");
  }
}

nlohmann::json parse_overrides(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("--params: not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (!doc.is_object()) throw InputError("--params: expected a JSON object");
  return doc;
}

// A --params section for one family's model of one source: "conv/mlpredict".
bool is_source_section(const std::string& key) {
  return key.find('/') != std::string::npos;
}

// A source section's family text and source: "conv/mlpredict" -> {"conv", "mlpredict"}.
std::pair<std::string, std::string> section_parts(const std::string& key) {
  const auto slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// Onto `params`: the top-level keys of `overrides` that are neither regressor names nor source
// sections, then the object under the kind's own name ({"xgboost": {...}}), so `all` can be
// tuned per kind.
void apply_overrides(nlohmann::json& params, RegressorKind kind, const nlohmann::json& overrides,
                     const std::string& where) {
  std::vector<std::string> names;
  for (const auto k : all_regressor_kinds()) names.push_back(to_string(k));
  for (const auto& [key, value] : overrides.items()) {
    if (std::find(names.begin(), names.end(), key) == names.end() && !is_source_section(key)) {
      params[key] = value;
    }
  }
  const std::string own = to_string(kind);
  if (overrides.contains(own)) {
    if (!overrides[own].is_object()) throw InputError(where + "'" + own + "': expected an object");
    for (const auto& [key, value] : overrides[own].items()) params[key] = value;
  }
}

nlohmann::json params_for(RegressorKind kind, const nlohmann::json& overrides) {
  nlohmann::json params = default_params(kind);
  apply_overrides(params, kind, overrides, "--params: ");
  return params;
}

// params_for, with each "FAMILY/SOURCE" section of --params (same layout as the top level)
// replacing keys in that source's model of `family` only.
FamilyParams params_for(RegressorKind kind, OpFamily family, const nlohmann::json& overrides) {
  FamilyParams out(params_for(kind, overrides));
  for (const auto& [key, value] : overrides.items()) {
    if (!is_source_section(key)) continue;
    const auto [section_family, source] = section_parts(key);
    if (section_family != to_string(family)) continue;
    nlohmann::json section = nlohmann::json::object();
    apply_overrides(section, kind, value, "--params: '" + key + "': ");
    out.by_source[source] = std::move(section);
  }
  return out;
}

// Source sections name a family and a source, and hold an object, and each kind accepts the
// merged parameters: checked before minutes of loading.
void check_overrides(const std::vector<RegressorKind>& kinds, const nlohmann::json& overrides) {
  for (const auto& [key, value] : overrides.items()) {
    if (!is_source_section(key)) continue;
    const auto [family, source] = section_parts(key);
    try {
      (void)op_family_from_string(family);
    } catch (const InputError& e) {
      throw InputError("--params: '" + key + "': " + e.what() +
                       " (a source section is FAMILY/SOURCE, e.g. conv/mlpredict)");
    }
    if (source.empty() || is_source_section(source)) {
      throw InputError("--params: '" + key +
                       "': expected FAMILY/SOURCE with one source name, e.g. conv/mlpredict");
    }
    if (!value.is_object()) throw InputError("--params: '" + key + "': expected an object");
  }
  for (const auto kind : kinds) {
    for (const auto family : kOpFamilies) {
      const FamilyParams params = params_for(kind, family, overrides);
      (void)make_regressor(kind, params.base);
      for (const auto& [source, section] : params.by_source) {
        try {
          (void)make_regressor(kind, params.for_source(source));
        } catch (const InputError& e) {
          throw InputError("--params: '" + to_string(family) + "/" + source + "': " + e.what());
        }
      }
    }
  }
}

// Whether fit_family_models splits every leave-one-GPU-out fold of `family` by source, so
// that the reference rows' predictions come from the reference model alone.
bool logo_folds_split(const TrainingData& data, OpFamily family, SourceSplit split) {
  std::map<std::string, std::map<std::string, std::size_t>> rows_of;  // GPU -> source -> rows
  std::map<std::string, std::size_t> all;                             // source -> rows
  for (const auto r : family_rows(data, family)) {
    ++rows_of[data.gpus[r].name][data.sources[r]];
    ++all[data.sources[r]];
  }
  return std::all_of(rows_of.begin(), rows_of.end(), [&](const auto& gpu) {
    std::map<std::string, std::size_t> fold = all;  // the fold's training rows
    for (const auto& [source, n] : gpu.second) {
      if ((fold[source] -= n) == 0) fold.erase(source);  // as fit_family_models sees them
    }
    return fits_per_source(fold, split);
  });
}

TrainCvRow metrics_row(const std::string& regressor, const std::string& family,
                       const std::string& cv, const std::string& gpu, const Metrics& m,
                       double train_s) {
  TrainCvRow row{m, regressor, family, cv, gpu, std::nullopt, std::nullopt};
  if (train_s >= 0) row.train_s = train_s;
  return row;
}

double num(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
  return j[key].get<double>();
}

std::string cell(const nlohmann::json& j, const char* key, int digits = 4) {
  return format_number(num(j, key), digits);
}

std::vector<std::string> metric_cells(const nlohmann::json& r) {
  return {std::to_string(r.value("n", std::size_t{0})),
          cell(r, "mape_pct"),
          cell(r, "r2"),
          cell(r, "adjusted_r2"),
          cell(r, "within_10pct"),
          cell(r, "spearman")};
}

std::string render_algo_study(const nlohmann::json& report, OutputFormat format) {
  const std::vector<std::string> header = {"regressor", "variant",      "rows",     "n",
                                           "mape_pct",  "within_10pct", "spearman", "seconds"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::vector<std::string>> accuracy;
  for (const auto& [kind, study] : report["algo_study"].items()) {
    for (const auto& v : study["variants"]) {
      const auto& m = v["overall"];
      rows.push_back({kind, v["variant"], "all", std::to_string(m.value("n", std::size_t{0})),
                      cell(m, "mape_pct"), cell(m, "within_10pct"), cell(m, "spearman"),
                      format_number(v["seconds"].get<double>(), 3)});
      for (const auto& [gpu, g] : v["per_gpu"].items()) {
        rows.push_back({kind, v["variant"], gpu, std::to_string(g.value("n", std::size_t{0})),
                        cell(g, "mape_pct"), cell(g, "within_10pct"), cell(g, "spearman"), ""});
      }
      for (const auto& [cls, g] : v["per_class"].items()) {
        rows.push_back({kind, v["variant"], "ran " + cls,
                        std::to_string(g.value("n", std::size_t{0})), cell(g, "mape_pct"),
                        cell(g, "within_10pct"), cell(g, "spearman"), ""});
      }
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

std::string render(const nlohmann::json& report, OutputFormat format) {
  if (format == OutputFormat::kJson) return report.dump(2) + "\n";
  if (report.value("kind", "") == "algo_study") return render_algo_study(report, format);
  if (report.value("kind", "") == "feature_export") {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [family, n] : report["rows_per_family"].items()) {
      rows.push_back({family, std::to_string(n.get<std::size_t>()),
                      std::to_string(report["feature_names"].size()),
                      report["cv_scheme"].get<std::string>(), report["path"].get<std::string>()});
    }
    const std::vector<std::string> header{"family", "rows", "features", "fold_scheme", "file"};
    return format == OutputFormat::kCsv
               ? csv_with_schema(header, rows, report["schema_version"].get<int>())
               : format_table(header, rows);
  }
  if (report.value("kind", "") == "power_calibration") {
    std::string out = format_power_report(report, format);
    if (format == OutputFormat::kTable && report.contains("model_path")) {
      out += "power model written to " + report["model_path"].get<std::string>() + "\n";
    }
    return out;
  }
  const std::vector<std::string> header = {
      "regressor", "family",      "cv",           "gpu",      "n",      "mape_pct",
      "r2",        "adjusted_r2", "within_10pct", "spearman", "train_s"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : report["cv"]) {
    std::string gpu = r["gpu"];
    if (r.contains("source")) gpu += " (" + r["source"].get<std::string>() + " rows)";
    std::vector<std::string> line = {r["regressor"], r["family"], r["cv"], gpu};
    for (auto& c : metric_cells(r)) line.push_back(std::move(c));
    line.push_back(r.contains("train_s") ? format_number(r["train_s"].get<double>(), 3) : "");
    rows.push_back(std::move(line));
  }
  if (report.contains("e2e")) {
    // Single-GPU rows first, then (a calibration with 2+ GPU rows) the nn.DataParallel ones.
    const auto add = [&](const nlohmann::json& section, const std::string& family,
                         const std::string& scheme) {
      std::vector<std::string> line = {"eager-overhead", family, scheme, "all"};
      for (auto& c : metric_cells(section["overall"])) line.push_back(std::move(c));
      line.push_back("");
      rows.push_back(line);
      for (const char* part : {"per_gpu", "per_slice"}) {
        if (!section.contains(part)) continue;  // per_slice: NAS rows only
        for (const auto& [name, m] : section[part].items()) {
          std::vector<std::string> g = {"eager-overhead", family, scheme, name};
          for (auto& c : metric_cells(m)) g.push_back(std::move(c));
          g.push_back("");
          rows.push_back(std::move(g));
        }
      }
    };
    const std::array<const char*, 4> schemes{"leave-gpu-out", "leave-network-out", "config-folds",
                                             "in-sample"};
    for (const char* scheme : schemes) {
      if (!report["e2e"].contains(scheme)) continue;  // reports of older model files
      add(report["e2e"][scheme], "end-to-end", scheme);
    }
    for (const char* scheme : schemes) {
      if (report["e2e"].contains(scheme) && report["e2e"][scheme].contains("data_parallel")) {
        add(report["e2e"][scheme]["data_parallel"], "e2e 2+ GPUs", scheme);
      }
    }
  }
  if (format == OutputFormat::kCsv) {
    return csv_with_schema(header, rows, report.at("schema_version").get<int>());
  }
  std::string out = format_table(header, rows);
  if (report.contains("unseen_gpu_check")) {
    out += "\nunseen-GPU check (leave-gpu-out, " + std::string(kReferenceSource) +
           " rows; predict gives a GPU outside the training data the best of them):\n";
    for (const auto& c : report["unseen_gpu_check"]) {
      if (c["rows"].get<std::size_t>() == 0) {
        out += "  " + c["family"].get<std::string>() + ": no " + std::string(kReferenceSource) +
               " rows to check on -> " + c["unseen_gpu"].get<std::string>() + "\n";
        continue;
      }
      const auto& blind = c["gpu_blind_mape_pct"];
      out += "  " + c["family"].get<std::string>() + ": " + c["regressor"].get<std::string>() +
             " " + format_number(c["learned_mape_pct"].get<double>(), 4) + " %" +
             (blind.is_number()
                  ? ", without GPU features " + format_number(blind.get<double>(), 4) + " %"
                  : "") +
             " vs analytical " + format_number(c["analytical_mape_pct"].get<double>(), 4) +
             " % MAPE on " + std::to_string(c["rows"].get<std::size_t>()) + " rows -> " +
             c["unseen_gpu"].get<std::string>() + "\n";
    }
  }
  if (report.contains("eager_overhead")) {
    const auto& o = report["eager_overhead"];
    out += "\nanalytical eager overhead fitted on all rows: host_ms_per_op " +
           format_number(o["host_ms_per_op"].get<double>(), 4) + ", gpu_gap_ms_per_kernel " +
           format_number(o["gpu_gap_ms_per_kernel"].get<double>(), 4) + ", fixed_ms " +
           format_number(o["fixed_ms"].get<double>(), 4) + ", training_host_factor " +
           format_number(o["training_host_factor"].get<double>(), 4) + ", heavy_op_factor " +
           format_number(o.value("heavy_op_factor", 1.0), 4) + ", per_op_overlap " +
           format_number(o.value("per_op_overlap", 0.0), 4) + "\n";
    if (o.contains("per_gpu")) {
      for (const auto& [gpu, c] : o["per_gpu"].items()) {
        out += "  " + gpu + " (its " + std::to_string(c["rows"].get<int>()) +
               " rows): host_ms_per_op " + format_number(c["host_ms_per_op"].get<double>(), 4) +
               ", fixed_ms " + format_number(c["fixed_ms"].get<double>(), 4) +
               ", training_host_factor " +
               format_number(c["training_host_factor"].get<double>(), 4) + ", kernel_time_scale " +
               format_number(c["kernel_time_scale"].get<double>(), 4) + "\n";
      }
    }
    if (report.contains("e2e") && report["e2e"].contains("unseen_gpu_terms")) {
      const auto& u = report["e2e"]["unseen_gpu_terms"];
      out += "  a GPU without rows of its own gets the " + u["kept"].get<std::string>() +
             " terms (leave-gpu-out MAPE:";
      for (const auto& [policy, mape] : u["leave_gpu_out_mape_pct"].items()) {
        out += " " + policy + " " + format_number(mape.get<double>(), 4) + " %";
      }
      out += ")\n";
    }
    if (report.contains("overhead_path")) {
      out += "written to " + report["overhead_path"].get<std::string>() + "\n";
    }
  }
  if (report.contains("model")) {
    out += "\nmodel written to " + report["model"]["path"].get<std::string>() + " (";
    bool first = true;
    for (const auto& [fam, kind] : report["model"]["regressor_per_family"].items()) {
      out += (first ? "" : ", ") + fam + ": " + kind.get<std::string>();
      first = false;
    }
    out += ")\n";
  }
  return out;
}

// The equivalent command line, recorded in the model so it can be reproduced.
std::string command_line_of(const TrainOptions& o) {
  std::string line = "cnnperf train --data";
  for (const auto& f : o.data) line += " " + f;
  line += " --regressor " + o.regressor + " --features " + o.features + " --sources " + o.sources +
          " --cv " + o.cv + " --folds " + std::to_string(o.folds) + " --seed " +
          std::to_string(o.seed);
  if (o.max_rows > 0) line += " --max-rows " + std::to_string(o.max_rows);
  if (!o.params.empty()) line += " --params '" + o.params + "'";
  if (!o.host_floor) line += " --no-host-floor";
  if (o.unseen_gpu_check) line += " --unseen-gpu-check";
  if (!o.e2e.empty()) line += " --e2e " + join(o.e2e, " ");
  if (!o.out.empty()) line += " --out " + o.out;
  return line;
}

// `train --e2e FILE` without --data: the analytical baseline's eager overhead, calibrated on
// the end-to-end rows (leave-one-GPU-out, leave-one-network-out and in-sample), written as an
// overhead file.
nlohmann::json analytical_overhead_report(const TrainOptions& options) {
  const AnalyticalModel analytical;
  const E2eCalibration e2e = calibrate_e2e(options.e2e, analytical);
  nlohmann::json report = {{"schema_version", kEagerOverheadSchemaVersion},
                           {"tool_version", CNNPERF_VERSION},
                           {"kind", "eager_overhead_calibration"},
                           {"latency_model", "analytical"},
                           {"cv", nlohmann::json::array()},
                           {"e2e", e2e.report},
                           {"eager_overhead", to_json(e2e.overhead)}};
  if (!options.out.empty()) {
    const nlohmann::json file = {
        {"schema_version", kEagerOverheadSchemaVersion},
        {"kind", "eager_overhead"},
        {"tool_version", CNNPERF_VERSION},
        {"latency_model", "analytical"},
        {"command_line", "cnnperf train --e2e " + join(options.e2e, " ") + " --out " + options.out},
        {"eager_overhead", to_json(e2e.overhead)},
        {"calibration",
         {{"unseen_gpu_terms", e2e.report["unseen_gpu_terms"]},
          {"leave-gpu-out", e2e.report["leave-gpu-out"]["overall"]},
          {"leave-network-out", e2e.report["leave-network-out"]["overall"]},
          {"config-folds", e2e.report["config-folds"]["overall"]},
          {"in-sample", e2e.report["in-sample"]["overall"]}}}};
    write_output(options.out, file.dump(2) + "\n");
    spdlog::info("wrote {}", options.out);
    report["overhead_path"] = options.out;
  }
  return report;
}

}  // namespace

namespace {

// What every report on layer rows opens with: versions, the data and its fingerprint, folds
// and seed.
TrainDataHeader data_report_header(const TrainingData& data, const TrainOptions& options) {
  return {kTrainResultSchemaVersion, CNNPERF_VERSION, data.files,
          data.fingerprint,          options.folds,   options.seed};
}

/// Every file train reads.
std::vector<std::string> train_inputs(const TrainOptions& options) {
  std::vector<std::string> inputs = options.data;
  inputs.insert(inputs.end(), options.e2e.begin(), options.e2e.end());
  inputs.insert(inputs.end(), options.power.begin(), options.power.end());
  return inputs;
}

}  // namespace

nlohmann::json train_report(const TrainOptions& options) {
  // A fit takes seconds to minutes: a path it cannot write, or one that would replace an input,
  // fails now, not after it.
  const std::vector<std::string> inputs = train_inputs(options);
  const std::array<std::pair<const char*, const std::string*>, 3> outputs = {
      {{"--out", &options.out},
       {"--export-features", &options.export_features},
       {"--output", &options.output}}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& path = *outputs[i].second;
    check_output_not_input(path, inputs);
    if (path.empty() || path == "-") continue;
    // Two of them naming one file would keep only the last written (the model lost).
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
    for (std::size_t j = 0; j < i && !ec; ++j) {
      const std::string& other = *outputs[j].second;
      if (!other.empty() && other != "-" &&
          std::filesystem::weakly_canonical(other, ec) == canonical && !ec) {
        throw InputError(std::string(outputs[i].first) + ": " + path + " is also " +
                         outputs[j].first + "; expected another file");
      }
    }
  }
  if (options.data.empty() && options.max_rows > 0) {
    // --e2e and --power alone fit every row; a sample there was silently ignored.
    throw InputError("--max-rows: samples --data rows; --e2e and --power alone use every row");
  }
  if (!options.power.empty()) {
    if (!options.data.empty()) {
      throw InputError(
          "--power and --data: expected one of them (power rows calibrate the power "
          "model, layer rows the latency model)");
    }
    std::string command = "cnnperf train --power " + join(options.power, " ");
    if (!options.out.empty()) command += " --out " + options.out;
    nlohmann::json report = power_calibration_report(options.power, command);
    if (!options.out.empty()) {
      write_output(options.out, report["model"].dump(2) + "\n");
      spdlog::info("wrote {}", options.out);
      report["model_path"] = options.out;
    }
    return report;
  }
  if (options.data.empty() && !options.e2e.empty()) {
    return analytical_overhead_report(options);
  }
  if (options.data.empty()) {
    throw InputError(
        "--data: expected measured layer CSVs (or --power FILE for the power model, or --e2e "
        "FILE alone for the analytical baseline's eager overhead)");
  }
  const auto kinds = kinds_for(options.regressor);
  const FeatureSpec spec = FeatureSpec::parse(options.features);
  const CvScheme scheme = cv_scheme_from_string(options.cv);
  const SourceSplit split = source_split_from_string(options.sources);
  if (options.folds < 2) {
    throw InputError("--folds: expected at least 2, got " + std::to_string(options.folds));
  }
  const nlohmann::json overrides = parse_overrides(options.params);
  // Validate every kind's parameters before spending minutes on loading and CV.
  check_overrides(kinds, overrides);

  // Parse --algo-study before minutes of loading, so a typo fails at once.
  AlgoStudyOptions study;
  if (!options.algo_study.empty() && to_lower(options.algo_study) != "all") {
    std::size_t start = 0;
    while (start <= options.algo_study.size()) {
      const auto comma = options.algo_study.find(',', start);
      const auto item = options.algo_study.substr(
          start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? options.algo_study.size() + 1 : comma + 1;
      if (item.empty()) continue;
      const auto& known = algo_study_variants();
      if (std::find(known.begin(), known.end(), item) == known.end()) {
        throw InputError("--algo-study: unknown variant '" + item +
                         "' (expected all, or a list of baseline, quant, oracle, algo, "
                         "algo+quant, per-mode, oracle-per-mode)");
      }
      study.variants.push_back(item);
    }
  }
  if (!options.algo_study.empty()) {
    try {
      study.classifier = regressor_kind_from_string(options.algo_classifier);
    } catch (const InputError& e) {
      throw InputError(std::string("--algo-classifier: ") + e.what());
    }
  }

  // Said before minutes of loading: the export replaces training, so these would be ignored.
  if (!options.export_features.empty() &&
      (!options.out.empty() || !options.e2e.empty() || !options.algo_study.empty() ||
       options.unseen_gpu_check)) {
    throw InputError(
        "--export-features: expected no --out, --e2e, --algo-study or --unseen-gpu-check (it "
        "writes the feature matrix instead of training)");
  }

  const auto load_start = std::chrono::steady_clock::now();
  const TrainingData data = load_training_data(options.data, options.max_rows, options.seed);
  spdlog::info(
      "loaded {} rows ({} skipped) in {:.1f} s", data.layers.size(), data.skipped_rows,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count());
  if (data.layers.empty()) {
    throw InputError("--data: no usable measured rows in " + join(data.files, ", ") + " (" +
                     std::to_string(data.skipped_rows) +
                     " left out); expected rows with a positive latency_ms");
  }
  // A source section without rows to tune is most likely a typo: said before minutes of CV.
  std::vector<std::string> unused_sections;
  for (const auto& [key, value] : overrides.items()) {
    if (!is_source_section(key)) continue;
    // Named, not a structured binding: clang-tidy 14 (clang 14) rejects capturing those.
    const auto [family, source_name] = section_parts(key);
    const std::string& source = source_name;
    const auto rows = family_rows(data, op_family_from_string(family));
    if (std::none_of(rows.begin(), rows.end(),
                     [&](std::size_t r) { return data.sources[r] == source; })) {
      spdlog::warn("--params: section '{}' matches no rows of --data; it is not used", key);
      unused_sections.push_back(key);
    }
  }

  if (!options.export_features.empty()) {
    write_output(options.export_features, feature_matrix_csv(data, spec, scheme, options.folds,
                                                             options.seed, options.host_floor));
    spdlog::info("wrote {}", options.export_features);
    std::map<std::string, std::size_t> counts;
    for (const auto family : kOpFamilies) {
      const auto rows = family_rows(data, family);
      if (!rows.empty()) counts[to_string(family)] = rows.size();
    }
    return FeatureExportResult{data_report_header(data, options),
                               spec.to_string(),
                               feature_names(spec),
                               options.host_floor,
                               to_string(scheme),
                               counts,
                               options.export_features};
  }

  if (!options.algo_study.empty()) {
    if (options.max_rows > 0) {
      throw InputError(
          "--algo-study: expected all rows (drop --max-rows; the algorithm labels "
          "are read back row by row)");
    }
    study.inner_folds = options.algo_inner_folds;
    study.folds = options.folds;
    study.seed = options.seed;
    study.classifier_params = params_for(study.classifier, overrides);
    study.classifier_params["seed"] = options.seed;
    const std::vector<int> labels = load_conv_algo_labels(data);
    AlgoStudyReport report{data_report_header(data, options), "group-shape",
                           options.algo_classifier, options.algo_inner_folds};
    for (const auto kind : kinds) {
      study.regressor = kind;
      study.params = params_for(kind, overrides);
      spdlog::info("algorithm study with {}", to_string(kind));
      report.algo_study[to_string(kind)] = to_json(run_algo_study(data, labels, study));
    }
    return report;
  }

  TrainResult report;
  report.header = data_report_header(data, options);
  report.rows = data.layers.size();
  report.skipped_rows = data.skipped_rows;
  report.features = spec.to_string();
  report.sources = to_string(split);
  report.host_floor = options.host_floor;
  report.cv_scheme = to_string(scheme);
  report.unused_params_sections = unused_sections;
  std::map<OpFamily, std::pair<RegressorKind, double>> best;  // family -> (kind, MAPE)
  std::map<OpFamily, CvResult> best_logo;  // the best kind's CV, when it was leave-gpu-out
  nlohmann::json cv_by_family = nlohmann::json::object();
  for (const auto family : kOpFamilies) {
    if (family_rows(data, family).empty()) continue;
    for (const auto kind : kinds) {
      spdlog::info("cross-validating {} on {} ({})", to_string(kind), to_string(family),
                   to_string(scheme));
      const CvResult cv =
          cross_validate_family(data, family, kind, params_for(kind, family, overrides), spec,
                                scheme, options.folds, options.seed, split, options.host_floor);
      auto row = metrics_row(to_string(kind), to_string(family), to_string(scheme), "all",
                             cv.overall, cv.train_seconds);
      report.cv.push_back(row);
      // The model file keeps the metrics, not the fit's wall time: the same command twice
      // writes the same file, byte for byte.
      row.train_s.reset();
      cv_by_family[to_string(family)][to_string(kind)] = row;
      if (cv.per_source.size() > 1) {  // e.g. NeuSight's kernel time vs MLPredict's wall clock
        for (const auto& [source, m] : cv.per_source) {
          auto by_source =
              metrics_row(to_string(kind), to_string(family), to_string(scheme), "all", m, -1);
          by_source.source = source;
          report.cv.push_back(std::move(by_source));
        }
      }
      if (scheme == CvScheme::kLeaveGpuOut) {
        for (const auto& [gpu, m] : cv.per_gpu) {
          report.cv.push_back(
              metrics_row(to_string(kind), to_string(family), to_string(scheme), gpu, m, -1));
        }
      }
      const double mape = std::isnan(cv.overall.mape_pct) ? std::numeric_limits<double>::infinity()
                                                          : cv.overall.mape_pct;
      const auto it = best.find(family);
      if (it == best.end() || mape < it->second.second) {
        best[family] = {kind, mape};
        // The unseen-GPU check below reuses a leave-one-GPU-out CV instead of running it again.
        if (scheme == CvScheme::kLeaveGpuOut) best_logo[family] = cv;
      }
    }
  }

  // Leave-one-GPU-out, which predicts a GPU it has not seen best: the chosen regressor, the
  // same without GPU features, or the analytical model? Per family, on the reference source's
  // rows (what predict gives rows without a source); the answer is kept in the model
  // (FamilyModel::gpu_blind_regressor, FamilyModel::analytical_for_unseen_gpus).
  std::map<OpFamily, UnseenGpuCheck> unseen;
  const TrainingData reference =
      options.unseen_gpu_check ? rows_of_source(data, kReferenceSource) : TrainingData{};
  if (options.unseen_gpu_check) {
    report.unseen_gpu_check.emplace();
    for (const auto& [family, pick] : best) {
      spdlog::info("unseen-GPU check: {} on {} (leave-gpu-out)", to_string(pick.first),
                   to_string(family));
      const auto reference_rows = family_rows(reference, family);
      std::set<std::string> reference_gpus;
      for (const auto r : reference_rows) reference_gpus.insert(reference.gpus[r].name);
      const auto done = best_logo.find(family);
      // When every fold fits a model per source, the reference rows' predictions come from
      // the reference model alone: cross-validating those rows gives the same figures
      // without fitting the other sources' models.
      const TrainingData& logo_data = done == best_logo.end() && reference_gpus.size() >= 2 &&
                                              logo_folds_split(data, family, split)
                                          ? reference
                                          : data;
      const CvResult logo = done != best_logo.end()
                                ? done->second
                                : cross_validate_family(logo_data, family, pick.first,
                                                        params_for(pick.first, family, overrides),
                                                        spec, CvScheme::kLeaveGpuOut, options.folds,
                                                        options.seed, split, options.host_floor);
      UnseenGpuCheck check = unseen_gpu_check(logo_data, logo, options.host_floor);
      // The third candidate: the same regressor on the reference rows with the gpu group held
      // at 0, so a GPU is seen only through its roofline, waves and occupancy.
      if (check.rows > 0 && spec.gpu && reference_gpus.size() >= 2) {
        spdlog::info("unseen-GPU check: {} on {} {} rows without GPU features",
                     to_string(pick.first), to_string(family), kReferenceSource);
        check.gpu_blind_mape_pct =
            cross_validate_family(reference, family, pick.first,
                                  params_for(pick.first, family, overrides), gpu_blind_spec(spec),
                                  CvScheme::kLeaveGpuOut, options.folds, options.seed, split,
                                  options.host_floor)
                .overall.mape_pct;
      }
      unseen[family] = check;
      report.unseen_gpu_check->push_back({to_string(family), to_string(pick.first),
                                          kReferenceSource, check.rows, check.learned_mape_pct,
                                          std::isnan(check.gpu_blind_mape_pct)
                                              ? std::nullopt
                                              : std::optional(check.gpu_blind_mape_pct),
                                          check.analytical_mape_pct, check.choice()});
    }
  }

  if (options.out.empty()) {
    if (!options.e2e.empty()) {
      spdlog::warn("--e2e is used only with --out (it calibrates the model's eager overhead)");
    }
    return report;
  }

  std::vector<FamilyModel> families;
  std::map<std::string, std::string> chosen;
  nlohmann::json rows_per_family = nlohmann::json::object();
  for (const auto& [family, pick] : best) {
    const auto rows = family_rows(data, family);
    spdlog::info("fitting {} on all {} {} rows", to_string(pick.first), rows.size(),
                 to_string(family));
    std::vector<FamilyModel> fitted =
        fit_family_models(data, rows, family, pick.first, params_for(pick.first, family, overrides),
                          spec, split, options.host_floor);
    if (const auto it = unseen.find(family);
        it != unseen.end() && it->second.choice() != "learned") {
      std::vector<const FamilyModel*> views;
      views.reserve(fitted.size());
      for (const auto& m : fitted) views.push_back(&m);
      const FamilyModel* target = model_for_source(views, kReferenceSource);
      for (auto& m : fitted) {
        if (&m != target) continue;
        if (it->second.prefer_analytical()) {
          m.analytical_for_unseen_gpus = true;
          continue;
        }
        spdlog::info("fitting {} on all {} {} rows without GPU features", to_string(pick.first),
                     to_string(family), kReferenceSource);
        m.gpu_blind_regressor =
            fit_family(reference, family_rows(reference, family), family, pick.first,
                       params_for(pick.first, family, overrides).for_source(kReferenceSource),
                       gpu_blind_spec(spec), options.host_floor)
                .regressor;
      }
    }
    for (auto& m : fitted) families.push_back(std::move(m));
    chosen[to_string(family)] = to_string(pick.first);
    rows_per_family[to_string(family)] = rows.size();
  }
  std::map<std::string, std::size_t> rows_per_gpu;
  for (const auto& gpu : data.gpus) ++rows_per_gpu[gpu.name];
  nlohmann::json metadata = {
      {"training_files", data.files},
      {"fingerprint", data.fingerprint},
      {"rows", data.layers.size()},
      {"skipped_rows", data.skipped_rows},
      {"max_rows", options.max_rows},
      {"seed", options.seed},
      {"rows_per_family", rows_per_family},
      {"rows_per_gpu", rows_per_gpu},
      {"features", spec.to_string()},
      {"sources", to_string(split)},
      {"host_floor", options.host_floor},
      {"regressor_per_family", chosen},
      {"cv_scheme", to_string(scheme)},
      {"cv_metrics", cv_by_family},
      {"command_line",
       options.command_line.empty() ? command_line_of(options) : options.command_line}};
  LearnedModel model(spec, std::move(families), EagerOverhead{}, metadata);

  if (!options.e2e.empty()) {
    const E2eCalibration e2e = calibrate_e2e(options.e2e, model);
    report.e2e = e2e.report;
    model.metadata()["e2e"] = report.e2e;
    model.set_eager_overhead(e2e.overhead);
  }
  write_output(options.out, model.to_json().dump() + "\n");
  spdlog::info("wrote {}", options.out);
  report.model = TrainedModelRef{options.out, chosen};
  return report;
}

int run_train(const TrainOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  const nlohmann::json report = train_report(options);
  write_output(options.output, render(report, format));
  return 0;
}

}  // namespace cnnperf
