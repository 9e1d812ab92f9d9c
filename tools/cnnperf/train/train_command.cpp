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
#include <optional>
#include <set>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/feature_export.hpp"
#include "cnnperf/ml/interval_residuals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/power_calibration.hpp"
#include "cnnperf/ml/results.hpp"
#include "cnnperf/ml/runtime_fit.hpp"
#include "cnnperf/ml/training_row_set.hpp"

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
                       const std::string& cv, const std::string& gpu, const Metrics& m) {
  TrainCvRow row;
  row.metrics = m;
  row.regressor = regressor;
  row.family = family;
  row.cv = cv;
  row.gpu = gpu;
  return row;
}

double num(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::numeric_limits<double>::quiet_NaN();
  return j[key].get<double>();
}

// An undefined metric (JSON null) is an empty cell in the table and the CSV alike.
std::string cell(const nlohmann::json& j, const char* key, int digits = 4) {
  const double v = num(j, key);
  return std::isnan(v) ? std::string() : format_number(v, digits);
}

std::vector<std::string> metric_cells(const nlohmann::json& r) {
  return {std::to_string(r.value("n", std::size_t{0})),
          cell(r, "mape_pct"),
          cell(r, "r2"),
          cell(r, "adjusted_r2"),
          cell(r, "within_10pct"),
          cell(r, "spearman")};
}

// Under the table of a leave-source-out run: why a family was not scored, and how many of a
// held-out source's rows were also on GPUs that no other source measured.
std::string source_out_notes(const nlohmann::json& cv_rows) {
  std::string out;
  for (const auto& r : cv_rows) {
    const std::string what =
        r["regressor"].get<std::string>() + " " + r["family"].get<std::string>();
    if (r.contains("not_applicable")) {
      out += "  " + what + ": not applicable, " + r["not_applicable"].get<std::string>() + "\n";
    } else if (r.contains("unseen_gpu_rows")) {
      out += "  " + what + ", " + r["source"].get<std::string>() +
             " held out: " + std::to_string(r["unseen_gpu_rows"].get<std::size_t>()) + " of its " +
             std::to_string(r["n"].get<std::size_t>()) +
             " rows on GPUs no other source has (unseen GPUs too)\n";
    }
  }
  return out.empty() ? out : "\nleave-source-out:\n" + out;
}

std::string format_runtime_report(const nlohmann::json& report, OutputFormat format);

// One line of held-out coverage: "<label>: X % of N held-out <noun> inside", then each op
// family's share when `per_family`.
std::string coverage_line(const std::string& label, const nlohmann::json& report,
                          const std::string& noun, bool per_family) {
  const auto& overall = report["overall"];
  std::string out = label + ": " + coverage_text(overall) + " of " +
                    std::to_string(overall["rows"].get<std::size_t>()) + " held-out " + noun +
                    " inside";
  if (per_family) {
    for (const auto& [family, c] : report["per_family"].items()) {
      out += ", " + family + " " + coverage_text(c);
    }
  }
  return out + "\n";
}

// Under the table: the held-out coverage of the 80 % intervals of the best kind per family,
// and of the steps' and unseen GPUs' tables where the run fitted them.
std::string interval_coverage_note(const nlohmann::json& report) {
  const std::string label = "80 % intervals (quantiles fitted on the other folds' residuals, " +
                            report["cv_scheme"].get<std::string>() + ")";
  std::string out = "\n" + coverage_line(label, report["intervals"], "rows", true);
  if (report.contains("step_intervals")) {
    out += coverage_line("80 % intervals of the steps (--e2e, leave-gpu-out)",
                         report["step_intervals"], "steps", false);
  }
  if (report.contains("unseen_gpu_intervals")) {
    out += coverage_line("80 % intervals for unseen GPUs (" + std::string(kReferenceSource) +
                             " rows, leave-gpu-out)",
                         report["unseen_gpu_intervals"], "rows", true);
  }
  return out;
}

std::string render(const nlohmann::json& report, OutputFormat format) {
  if (format == OutputFormat::kJson) return json_text(report) + "\n";
  if (report.value("kind", "") == "runtime_overhead_calibration") {
    return format_runtime_report(report, format);
  }
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
    if (r.contains("not_applicable")) gpu += " (not applicable)";
    std::vector<std::string> line = {r["regressor"], r["family"], r["cv"], gpu};
    if (r.contains("not_applicable")) {
      line.emplace_back("0");
      line.resize(header.size() - 1);  // no metrics: nothing was fitted
    } else {
      for (auto& c : metric_cells(r)) line.push_back(std::move(c));
    }
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
  std::string out = format_table(header, rows) + source_out_notes(report["cv"]);
  if (report.contains("intervals")) out += interval_coverage_note(report);
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
      if (c.contains("per_gpu") && !c["per_gpu"].empty()) {
        out += "    per held-out GPU, learned / without GPU features / analytical MAPE %:";
        for (const auto& [gpu, s] : c["per_gpu"].items()) {
          const auto& b = s["gpu_blind_mape_pct"];
          out += " " + gpu + " " + format_number(s["learned_mape_pct"].get<double>(), 3) + " / " +
                 (b.is_number() ? format_number(b.get<double>(), 3) : std::string("-")) + " / " +
                 format_number(s["analytical_mape_pct"].get<double>(), 3) + ";";
        }
        out.back() = '\n';
      }
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

// Every output path against every input and against the others: a fit takes seconds to
// minutes, so a path it cannot write, or one that would replace an input, fails now.
void check_outputs(const std::vector<std::string>& inputs,
                   const std::vector<std::pair<const char*, const std::string*>>& outputs) {
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
}

void check_calibration_outputs(const TrainCalibrationOptions& options) {
  check_outputs(options.data, {{"--out", &options.out}, {"--output", &options.output}});
}

// What every report on layer rows opens with: versions, the data and its fingerprint, folds
// and seed.
// The reports' own version: a model file's (kModelSchemaVersion) changes with its format.
TrainDataHeader data_report_header(const TrainingData& data, const TrainOptions& options) {
  return {kTrainResultSchemaVersion, CNNPERF_VERSION, data.files,
          data.fingerprint,          options.folds,   options.seed};
}

// The parsed options of `train latency`, checked before minutes of loading.
// As for ValidateResult (results.hpp): clang-tidy 14 reads the implicit move of a
// nlohmann::json member as throwing.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct LatencySetup {
  std::vector<RegressorKind> kinds;
  FeatureSpec spec;
  CvScheme scheme = CvScheme::kKfold;
  SourceSplit split = SourceSplit::kSplit;
  nlohmann::json overrides;
};

LatencySetup latency_setup(const TrainOptions& options) {
  std::vector<std::string> inputs = options.data;
  inputs.insert(inputs.end(), options.e2e.begin(), options.e2e.end());
  check_outputs(inputs, {{"--out", &options.out},
                         {"--export-features", &options.export_features},
                         {"--output", &options.output}});
  if (options.data.empty() && options.max_rows > 0) {
    // train e2e and train power fit every row; a sample there was silently ignored.
    throw InputError("--max-rows: samples --data rows; train e2e and train power use every row");
  }
  if (options.data.empty()) {
    throw InputError(
        "--data: expected measured layer CSVs (train power calibrates the power model, "
        "train e2e the analytical baseline's eager overhead)");
  }
  LatencySetup setup;
  setup.kinds = kinds_for(options.regressor);
  setup.spec = FeatureSpec::parse(options.features);
  setup.scheme = cv_scheme_from_string(options.cv);
  setup.split = source_split_from_string(options.sources);
  if (options.folds < 2) {
    throw InputError("--folds: expected at least 2, got " + std::to_string(options.folds));
  }
  setup.overrides = parse_overrides(options.params);
  // Validate every kind's parameters before spending minutes on loading and CV.
  check_overrides(setup.kinds, setup.overrides);
  // The export replaces training, so these would be ignored.
  if (!options.export_features.empty() &&
      (!options.out.empty() || !options.e2e.empty() || options.unseen_gpu_check)) {
    throw InputError(
        "--export-features: expected no --out, --e2e or --unseen-gpu-check (it writes the "
        "feature matrix instead of training)");
  }
  return setup;
}

TrainingData load_layer_rows(const TrainOptions& options) {
  const auto load_start = std::chrono::steady_clock::now();
  TrainingData data =
      load_training_data(user_file_list(options.data, "--data"), options.max_rows, options.seed);
  spdlog::info(
      "loaded {} rows ({} skipped) in {:.1f} s", data.layers.size(), data.skipped_rows,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count());
  if (data.layers.empty()) {
    throw InputError("--data: no usable measured rows in " + join(data.files, ", ") + " (" +
                     std::to_string(data.skipped_rows) +
                     " left out); expected rows with a positive latency_ms");
  }
  return data;
}

// The --params source sections without rows to tune: most likely typos, said before minutes
// of CV.
std::vector<std::string> unused_param_sections(const TrainingData& data,
                                               const nlohmann::json& overrides) {
  std::vector<std::string> unused;
  for (const auto& [key, value] : overrides.items()) {
    if (!is_source_section(key)) continue;
    // Named, not a structured binding: clang-tidy 14 (clang 14) rejects capturing those.
    const auto [family, source_name] = section_parts(key);
    const std::string& source = source_name;
    const auto rows = family_rows(data, op_family_from_string(family));
    if (std::none_of(rows.begin(), rows.end(),
                     [&](std::size_t r) { return data.sources[r] == source; })) {
      spdlog::warn("--params: section '{}' matches no rows of --data; it is not used", key);
      unused.push_back(key);
    }
  }
  return unused;
}

// --export-features: the feature matrix instead of training.
FeatureExportResult export_features_report(const TrainingData& data, const TrainOptions& options,
                                           const LatencySetup& setup) {
  write_output(options.export_features,
               feature_matrix_csv(data, setup.spec, setup.scheme, options.folds, options.seed,
                                  options.host_floor));
  spdlog::info("wrote {}", options.export_features);
  FeatureExportResult result;
  result.header = data_report_header(data, options);
  result.features = setup.spec.to_string();
  result.feature_names = feature_names(setup.spec);
  result.host_floor = options.host_floor;
  result.cv_scheme = to_string(setup.scheme);
  result.path = options.export_features;
  for (const auto family : kOpFamilies) {
    const auto rows = family_rows(data, family);
    if (!rows.empty()) result.rows_per_family[to_string(family)] = rows.size();
  }
  return result;
}

// The cross-validation of every kind on every family: the best kind per family.
struct CvOutcome {
  std::map<OpFamily, std::pair<RegressorKind, double>> best;  // family -> (kind, MAPE)
  std::map<OpFamily, CvResult> best_logo;  // the best kind's CV, when it was leave-gpu-out
  std::map<OpFamily, CvResult> best_cv;    // the best kind's CV: the intervals' residuals
  nlohmann::json by_family = nlohmann::json::object();  // the metrics the model file keeps
};

// Appends the metrics rows of one CV per source and per GPU to `rows`.
void add_cv_rows(std::vector<TrainCvRow>& rows, const CvResult& cv, CvScheme scheme) {
  const std::string kind = to_string(cv.kind);
  const std::string family = to_string(cv.family);
  const std::string scheme_name = to_string(scheme);
  if (cv.per_source.size() > 1) {  // e.g. NeuSight's kernel time vs MLPredict's wall clock
    for (const auto& [source, m] : cv.per_source) {
      auto by_source = metrics_row(kind, family, scheme_name, "all", m);
      by_source.source = source;
      if (const auto it = cv.unseen_gpu_rows.find(source); it != cv.unseen_gpu_rows.end()) {
        by_source.unseen_gpu_rows = it->second;  // leave-source-out: held-out source S
      }
      rows.push_back(std::move(by_source));
    }
  }
  if (scheme == CvScheme::kLeaveGpuOut) {
    for (const auto& [gpu, m] : cv.per_gpu) {
      rows.push_back(metrics_row(kind, family, scheme_name, gpu, m));
    }
  }
}

CvOutcome cross_validate_kinds(const TrainingData& data, const TrainOptions& options,
                               const LatencySetup& setup, std::vector<TrainCvRow>& rows) {
  CvOutcome outcome;
  for (const auto family : kOpFamilies) {
    if (family_rows(data, family).empty()) continue;
    for (const auto kind : setup.kinds) {
      spdlog::info("cross-validating {} on {} ({})", to_string(kind), to_string(family),
                   to_string(setup.scheme));
      const CvResult cv = cross_validate_family(
          data, family, kind, params_for(kind, family, setup.overrides), setup.spec, setup.scheme,
          options.folds, options.seed, setup.split, options.host_floor);
      if (!cv.not_applicable.empty()) {
        spdlog::warn("{} {}: {} does not apply: {}", to_string(kind), to_string(family),
                     to_string(setup.scheme), cv.not_applicable);
        TrainCvRow row = metrics_row(to_string(kind), to_string(family), to_string(setup.scheme),
                                     "all", Metrics{});
        row.not_applicable = cv.not_applicable;
        rows.push_back(row);
        outcome.by_family[to_string(family)][to_string(kind)] = row;
        // Still fitted for the model file (--out): the first kind, no MAPE to rank by.
        outcome.best.try_emplace(family, kind, std::numeric_limits<double>::infinity());
        continue;
      }
      auto row = metrics_row(to_string(kind), to_string(family), to_string(setup.scheme), "all",
                             cv.overall);
      // The model file keeps the metrics, not the fit's wall time: the same command twice
      // writes the same file, byte for byte.
      outcome.by_family[to_string(family)][to_string(kind)] = row;
      row.train_s = cv.train_seconds;
      rows.push_back(std::move(row));
      add_cv_rows(rows, cv, setup.scheme);
      const double mape = std::isnan(cv.overall.mape_pct) ? std::numeric_limits<double>::infinity()
                                                          : cv.overall.mape_pct;
      const auto it = outcome.best.find(family);
      if (it == outcome.best.end() || mape < it->second.second) {
        outcome.best[family] = {kind, mape};
        outcome.best_cv[family] = cv;
        // The unseen-GPU check reuses a leave-one-GPU-out CV instead of running it again.
        if (setup.scheme == CvScheme::kLeaveGpuOut) outcome.best_logo[family] = cv;
      }
    }
  }
  return outcome;
}

// The check's per-GPU MAPEs as the report keeps them (TrainUnseenGpuRow::per_gpu).
nlohmann::json per_gpu_json(const UnseenGpuCheck& check) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [gpu, s] : check.per_gpu()) {
    out[gpu] = {{"rows", s.rows},
                {"learned_mape_pct", s.learned_mape_pct},
                {"gpu_blind_mape_pct", std::isnan(s.gpu_blind_mape_pct)
                                           ? nlohmann::json(nullptr)
                                           : nlohmann::json(s.gpu_blind_mape_pct)},
                {"analytical_mape_pct", s.analytical_mape_pct}};
  }
  return out;
}

// One family's unseen-GPU check (see unseen_gpu_checks).
UnseenGpuCheck unseen_gpu_check_of(const TrainingData& data, const TrainingData& reference,
                                   OpFamily family, RegressorKind kind, const TrainOptions& options,
                                   const LatencySetup& setup, const CvOutcome& cv) {
  spdlog::info("unseen-GPU check: {} on {} (leave-gpu-out)", to_string(kind), to_string(family));
  const FamilyParams params = params_for(kind, family, setup.overrides);
  std::set<std::string> reference_gpus;
  for (const auto r : family_rows(reference, family)) reference_gpus.insert(reference.gpus[r].name);
  const auto done = cv.best_logo.find(family);
  // When every fold fits a model per source, the reference rows' predictions come from
  // the reference model alone: cross-validating those rows gives the same figures
  // without fitting the other sources' models.
  const TrainingData& logo_data = done == cv.best_logo.end() && reference_gpus.size() >= 2 &&
                                          logo_folds_split(data, family, setup.split)
                                      ? reference
                                      : data;
  const CvResult logo = done != cv.best_logo.end()
                            ? done->second
                            : cross_validate_family(logo_data, family, kind, params, setup.spec,
                                                    CvScheme::kLeaveGpuOut, options.folds,
                                                    options.seed, setup.split, options.host_floor);
  UnseenGpuCheck check = unseen_gpu_check(logo_data, logo, options.host_floor);
  // The third candidate: the same regressor on the reference rows with the gpu group held
  // at 0, so a GPU is seen only through its roofline, waves and occupancy.
  if (check.rows > 0 && setup.spec.gpu && reference_gpus.size() >= 2) {
    spdlog::info("unseen-GPU check: {} on {} {} rows without GPU features", to_string(kind),
                 to_string(family), kReferenceSource);
    const CvResult blind = cross_validate_family(
        reference, family, kind, params, gpu_blind_spec(setup.spec), CvScheme::kLeaveGpuOut,
        options.folds, options.seed, setup.split, options.host_floor);
    check.gpu_blind_mape_pct = blind.overall.mape_pct;
    check.gpu_blind_residuals =
        cv_residuals(reference, blind, CvScheme::kLeaveGpuOut, options.folds, options.seed);
  }
  return check;
}

// Leave-one-GPU-out, which predicts a GPU it has not seen best: the chosen regressor, the
// same without GPU features, or the analytical model? Per family, on the reference source's
// rows (what predict gives rows without a source); the answer is kept in the model
// (FamilyModel::gpu_blind_regressor, FamilyModel::analytical_for_unseen_gpus).
std::map<OpFamily, UnseenGpuCheck> unseen_gpu_checks(const TrainingData& data,
                                                     const TrainingData& reference,
                                                     const TrainOptions& options,
                                                     const LatencySetup& setup, const CvOutcome& cv,
                                                     TrainResult& result) {
  std::map<OpFamily, UnseenGpuCheck> unseen;
  auto& rows = result.unseen_gpu_check.emplace();
  for (const auto& [family, pick] : cv.best) {
    const UnseenGpuCheck check =
        unseen_gpu_check_of(data, reference, family, pick.first, options, setup, cv);
    unseen[family] = check;
    rows.push_back({to_string(family), to_string(pick.first), kReferenceSource, check.rows,
                    check.learned_mape_pct,
                    std::isnan(check.gpu_blind_mape_pct)
                        ? std::nullopt
                        : std::optional<double>(check.gpu_blind_mape_pct),
                    check.analytical_mape_pct, check.choice(), per_gpu_json(check)});
  }
  return unseen;
}

// The best kind of each family fitted on all its rows, with the unseen-GPU choice applied to
// the reference source's model.
std::vector<FamilyModel> fit_families(const TrainingData& data, const TrainingData& reference,
                                      const TrainOptions& options, const LatencySetup& setup,
                                      const CvOutcome& cv,
                                      const std::map<OpFamily, UnseenGpuCheck>& unseen) {
  std::vector<FamilyModel> families;
  for (const auto& [family, pick] : cv.best) {
    const auto rows = family_rows(data, family);
    spdlog::info("fitting {} on all {} {} rows", to_string(pick.first), rows.size(),
                 to_string(family));
    const FamilyParams params = params_for(pick.first, family, setup.overrides);
    std::vector<FamilyModel> fitted = fit_family_models(
        data, rows, family, pick.first, params, setup.spec, setup.split, options.host_floor);
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
        m.gpu_blind_regressor = fit_family(reference, family_rows(reference, family), family,
                                           pick.first, params.for_source(kReferenceSource),
                                           gpu_blind_spec(setup.spec), options.host_floor)
                                    .regressor;
      }
    }
    for (auto& m : fitted) families.push_back(std::move(m));
  }
  return families;
}

// The held-out residuals a model's interval tables are fitted on, with their coverage.
struct IntervalResiduals {
  std::vector<IntervalResidual> layers;  // the best kinds' out-of-fold residuals (--cv)
  nlohmann::json coverage;
  std::vector<IntervalResidual> unseen_gpu;  // the unseen-GPU check's, of the chosen candidates
  nlohmann::json unseen_gpu_coverage;
  std::vector<IntervalResidual> steps;  // the --e2e calibration's leave-one-GPU-out ones
  nlohmann::json steps_coverage;
};

// The intervals file section a model keeps (as models/intervals.json): quantiles of the best
// kinds' out-of-fold residuals under the model's --cv scheme.
// With the unseen-GPU check, also the table for GPUs a family was not fitted on: quantiles of
// the leave-one-GPU-out residuals of what such a GPU gets (UnseenGpuCheck::choice), under
// "unseen_gpu" (predict reads it for those layers).
// With --e2e, the steps' cells too, from the leave-one-GPU-out residuals of the calibration.
nlohmann::json learned_intervals(const TrainingData& data, const TrainOptions& options,
                                 const LatencySetup& setup, const IntervalResiduals& residuals) {
  nlohmann::json coverage = {{to_string(setup.scheme), residuals.coverage}};
  std::vector<IntervalResidual> all = residuals.layers;
  if (!residuals.steps.empty()) {
    coverage[std::string("e2e ") + to_string(CvScheme::kLeaveGpuOut)] = residuals.steps_coverage;
    all.insert(all.end(), residuals.steps.begin(), residuals.steps.end());
  }
  nlohmann::json section = interval_table_file_json(
      "learned", IntervalTable::fit(all),
      {{"data", data.files},
       {"fingerprint", data.fingerprint},
       {"rows", data.layers.size()},
       {"scheme", to_string(setup.scheme)},
       {"command_line",
        options.command_line.empty() ? command_line_of(options) : options.command_line}},
      std::move(coverage));
  if (!residuals.unseen_gpu.empty()) {
    section[kUnseenGpuIntervalsKey] = {
        {"scheme", to_string(CvScheme::kLeaveGpuOut)},
        {"source", kReferenceSource},
        {"coverage", {{to_string(CvScheme::kLeaveGpuOut), residuals.unseen_gpu_coverage}}},
        {"families", IntervalTable::fit(residuals.unseen_gpu).to_json()}};
  }
  return section;
}

// Fits the model on all rows, calibrates its eager overhead (--e2e) and writes it to --out.
void write_model(const TrainingData& data, const TrainingData& reference,
                 const TrainOptions& options, const LatencySetup& setup, const CvOutcome& cv,
                 const std::map<OpFamily, UnseenGpuCheck>& unseen, TrainResult& result,
                 IntervalResiduals residuals) {
  std::vector<FamilyModel> families = fit_families(data, reference, options, setup, cv, unseen);
  std::map<std::string, std::string> chosen;
  nlohmann::json rows_per_family = nlohmann::json::object();
  for (const auto& [family, pick] : cv.best) {
    chosen[to_string(family)] = to_string(pick.first);
    rows_per_family[to_string(family)] = family_rows(data, family).size();
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
      {"features", setup.spec.to_string()},
      {"sources", to_string(setup.split)},
      {"host_floor", options.host_floor},
      {"regressor_per_family", chosen},
      {"cv_scheme", to_string(setup.scheme)},
      {"cv_metrics", cv.by_family},
      {"command_line",
       options.command_line.empty() ? command_line_of(options) : options.command_line}};
  // Which rows the model was fitted on, so that validate can score unseen rows apart.
  if (const auto rows = TrainingRowSet::of(data)) {
    metadata[kTrainingRowsKey] = rows->to_json();
  } else {
    spdlog::warn(
        "{} training rows are too many to record in the model file (at most {} bytes); "
        "validate will not tell the rows it was trained on from others",
        data.layers.size(), TrainingRowSet::kMaxBytes);
  }
  LearnedModel model(setup.spec, std::move(families), EagerOverhead{}, metadata);
  if (!options.e2e.empty()) {
    const E2eCalibration e2e = calibrate_e2e(user_file_list(options.e2e, "--e2e"), model);
    result.e2e = e2e.report;
    model.metadata()["e2e"] = e2e.report;
    model.set_eager_overhead(e2e.overhead);
    residuals.steps = e2e.step_residuals;
    residuals.steps_coverage = to_json(cross_validated_coverage(residuals.steps));
    result.step_intervals = residuals.steps_coverage;
  }
  model.metadata()["intervals"] = learned_intervals(data, options, setup, residuals);
  write_output(options.out, json_text(model.to_json(), -1) + "\n");
  spdlog::info("wrote {}", options.out);
  result.model = TrainedModelRef{options.out, chosen};
}

}  // namespace

nlohmann::json train_report(const TrainOptions& options) {
  const LatencySetup setup = latency_setup(options);
  const TrainingData data = load_layer_rows(options);
  std::vector<std::string> unused_sections = unused_param_sections(data, setup.overrides);
  if (!options.export_features.empty()) return export_features_report(data, options, setup);

  TrainResult result;
  result.header = data_report_header(data, options);
  result.rows = data.layers.size();
  result.skipped_rows = data.skipped_rows;
  result.features = setup.spec.to_string();
  result.sources = to_string(setup.split);
  result.host_floor = options.host_floor;
  result.cv_scheme = to_string(setup.scheme);
  result.unused_params_sections = std::move(unused_sections);
  const CvOutcome cv = cross_validate_kinds(data, options, setup, result.cv);
  std::vector<IntervalResidual> residuals;
  for (const auto& [family, result] : cv.best_cv) {
    auto part = cv_residuals(data, result, setup.scheme, options.folds, options.seed);
    residuals.insert(residuals.end(), part.begin(), part.end());
  }
  // The held-out coverage of intervals fitted on the other folds' residuals, and the table
  // fitted on all of them, which the model file keeps (predict --model reads it).
  result.intervals = to_json(cross_validated_coverage(residuals));
  const TrainingData reference =
      options.unseen_gpu_check ? rows_of_source(data, kReferenceSource) : TrainingData{};
  const std::map<OpFamily, UnseenGpuCheck> unseen =
      options.unseen_gpu_check ? unseen_gpu_checks(data, reference, options, setup, cv, result)
                               : std::map<OpFamily, UnseenGpuCheck>{};
  // The same for GPUs the model was not fitted on, from the unseen-GPU check's held-out GPUs.
  std::vector<IntervalResidual> unseen_residuals;
  for (const auto& [family, check] : unseen) {
    const auto& part = check.chosen_residuals();
    unseen_residuals.insert(unseen_residuals.end(), part.begin(), part.end());
  }
  if (!unseen_residuals.empty()) {
    result.unseen_gpu_intervals = to_json(cross_validated_coverage(unseen_residuals));
  }
  if (options.out.empty()) {
    if (!options.e2e.empty()) {
      spdlog::warn("--e2e is used only with --out (it calibrates the model's eager overhead)");
    }
    return result;
  }
  write_model(data, reference, options, setup, cv, unseen, result,
              {std::move(residuals),
               result.intervals,
               std::move(unseen_residuals),
               result.unseen_gpu_intervals,
               {},
               {}});
  return result;
}

namespace {

// `train e2e --runtime pytorch-compile|tensorrt`: the runtime's overhead file and its report.
nlohmann::json train_runtime_report(const TrainCalibrationOptions& options, Runtime runtime) {
  const std::vector<std::string> files = user_file_list(options.data, "--data");
  if (files.size() != 1) {
    throw InputError("--data: --runtime " + options.runtime + " fits on one file (" +
                     (runtime == Runtime::kTensorrt ? "datasets/e2e_mlperf_inference.csv.gz"
                                                    : "datasets/e2e_timm.csv.gz") +
                     "), got " + std::to_string(files.size()));
  }
  const AnalyticalModel analytical;
  const RuntimeCalibration c = calibrate_runtime(runtime, files.front(), analytical);
  nlohmann::json report = {{"schema_version", kRuntimeOverheadSchemaVersion},
                           {"tool_version", CNNPERF_VERSION},
                           {"kind", "runtime_overhead_calibration"},
                           {"runtime", to_string(runtime)},
                           {"latency_model", "analytical"},
                           {"report", c.report},
                           {"overhead", to_json(c.overhead)}};
  if (!options.out.empty()) {
    nlohmann::json file = to_json(c);
    file["provenance"]["command"] = "cnnperf train e2e --runtime " + to_string(runtime) +
                                    " --data " + options.data.front() + " --out " + options.out;
    write_output(options.out, json_text(file) + "\n");
    spdlog::info("wrote {}", options.out);
    report["overhead_path"] = options.out;
  }
  return report;
}

// One table row per validation scheme and slice of a runtime report (and of its eager twin).
std::string format_runtime_report(const nlohmann::json& report, OutputFormat format) {
  std::vector<std::vector<std::string>> rows;
  const auto add = [&](const std::string& runtime, const nlohmann::json& r) {
    for (const char* scheme : {"leave-gpu-out", "leave-network-out", "in-sample"}) {
      if (!r.contains(scheme) || !r[scheme].is_object()) continue;
      const auto& e = r[scheme];
      const auto line = [&](const std::string& slice, const nlohmann::json& m) {
        rows.push_back(
            {runtime, scheme, slice, std::to_string(m.value("n", 0)),
             m["mape_pct"].is_number() ? format_number(m["mape_pct"].get<double>(), 4) : "",
             m["spearman"].is_number() ? format_number(m["spearman"].get<double>(), 3) : ""});
      };
      line("all", e["overall"]);
      for (const auto& [slice, m] : e["per_slice"].items()) line(slice, m);
    }
  };
  add(report["runtime"].get<std::string>(), report["report"]);
  if (report["report"].contains("eager")) add("pytorch (same rows)", report["report"]["eager"]);
  const std::vector<std::string> header{"runtime", "cv", "slice", "n", "mape_pct", "spearman"};
  if (format == OutputFormat::kCsv) {
    return csv_with_schema(header, rows, report["schema_version"].get<int>());
  }
  std::string out = format_table(header, rows);
  const auto& o = report["overhead"];
  const std::string gap =
      o.contains("gpu_gap_cycles_per_kernel")
          ? "gpu_gap_cycles_per_kernel " +
                format_number(o["gpu_gap_cycles_per_kernel"].get<double>(), 4)
          : "gpu_gap_ms_per_kernel " + format_number(o["gpu_gap_ms_per_kernel"].get<double>(), 4);
  out += "fitted: kernel_time_scale " + format_number(o["kernel_time_scale"].get<double>(), 4) +
         ", " + gap + ", fixed_ms " + format_number(o["fixed_ms"].get<double>(), 4) +
         ", host_ms_per_op " + format_number(o["host_ms_per_op"].get<double>(), 4) + "\n";
  if (report["report"].contains("intervals")) {
    const auto& iv = report["report"]["intervals"];
    out += "80 % step intervals, each GPU's held-out steps scored with a table of the others': " +
           coverage_text(iv["coverage"]["overall"]) + " of " +
           std::to_string(iv["residuals"].get<std::size_t>()) + " steps inside" +
           (iv.contains("table") ? "; table " + iv["table"].get<std::string>() : "") + "\n";
    if (iv.contains("eager_table")) {
      out += "  a step takes the eager steps' table (" +
             iv["eager_table"]["file"].get<std::string>() + "), which holds " +
             coverage_text(iv["eager_table"]["coverage"]) + " of these held-out steps\n";
    }
  }
  if (report.contains("overhead_path")) {
    out += "overhead written to " + report["overhead_path"].get<std::string>() + "\n";
  }
  return out;
}

}  // namespace

nlohmann::json train_e2e_report(const TrainCalibrationOptions& options) {
  check_calibration_outputs(options);
  // Only the runtimes with a fitted step: cudnn's gaps are the eager fit's.
  std::optional<Runtime> fitted;
  for (const Runtime r : {Runtime::kPytorch, Runtime::kPytorchCompile, Runtime::kTensorrt}) {
    if (options.runtime == to_string(r)) fitted = r;
  }
  if (!fitted) {
    const std::string expected = "expected pytorch, pytorch-compile or tensorrt";
    throw InputError(options.runtime == to_string(Runtime::kCudnn)
                         ? "--runtime: cudnn has no fitted overhead (its gaps are the eager "
                           "fit's); " +
                               expected
                         : "--runtime: " + expected + ", got '" + options.runtime + "'");
  }
  const Runtime runtime = *fitted;
  if (runtime == Runtime::kPytorchCompile || runtime == Runtime::kTensorrt) {
    return train_runtime_report(options, runtime);
  }
  // The kernel model first (its fp16 tensor-core efficiency per architecture), then the
  // overhead on the kernel times it gives: what predict uses together.
  const AnalyticalE2eCalibration cal =
      calibrate_analytical_e2e(user_file_list(options.data, "--data"), options.cross_validate);
  const E2eCalibration& e2e = cal.e2e;
  const nlohmann::json kernel_model = {
      {"tensor_core_fp16_efficiency", cal.tensor_cores.fp16_efficiency},
      {"fit", cal.tensor_cores.report}};
  nlohmann::json report = {{"schema_version", kEagerOverheadSchemaVersion},
                           {"tool_version", CNNPERF_VERSION},
                           {"kind", "eager_overhead_calibration"},
                           {"latency_model", "analytical"},
                           {"cv", nlohmann::json::array()},
                           {"e2e", e2e.report},
                           {"kernel_model", kernel_model},
                           {"eager_overhead", to_json(e2e.overhead)}};
  if (!options.out.empty()) {
    nlohmann::json file = {
        {"schema_version", kEagerOverheadSchemaVersion},
        {"kind", "eager_overhead"},
        {"tool_version", CNNPERF_VERSION},
        {"latency_model", "analytical"},
        {"command_line", "cnnperf train e2e --data " + join(options.data, " ") +
                             (options.cross_validate ? "" : " --no-cv") + " --out " + options.out},
        {"kernel_model", kernel_model},
        {"eager_overhead", to_json(e2e.overhead)},
        {"calibration", nlohmann::json::object()}};
    for (const char* key :
         {"unseen_gpu_terms", "leave-gpu-out", "leave-network-out", "config-folds", "in-sample"}) {
      if (!e2e.report.contains(key)) continue;  // --no-cv: the fit alone
      const auto& part = e2e.report[key];
      file["calibration"][key] = part.contains("overall") ? part["overall"] : part;
    }
    write_output(options.out, json_text(file) + "\n");
    spdlog::info("wrote {}", options.out);
    report["overhead_path"] = options.out;
  }
  return report;
}

nlohmann::json train_power_report(const TrainCalibrationOptions& options) {
  check_calibration_outputs(options);
  std::string command = "cnnperf train power --data " + join(options.data, " ");
  if (!options.out.empty()) command += " --out " + options.out;
  nlohmann::json report = power_calibration_report(user_file_list(options.data, "--data"), command);
  if (!options.out.empty()) {
    write_output(options.out, json_text(report["model"]) + "\n");
    spdlog::info("wrote {}", options.out);
    report["model_path"] = options.out;
  }
  return report;
}

int run_train(const TrainOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  const nlohmann::json report = train_report(options);
  write_output(options.output, render(report, format));
  return 0;
}

int run_train_e2e(const TrainCalibrationOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  write_output(options.output, render(train_e2e_report(options), format));
  return 0;
}

int run_train_power(const TrainCalibrationOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  write_output(options.output, render(train_power_report(options), format));
  return 0;
}

}  // namespace cnnperf
