// SPDX-License-Identifier: Apache-2.0
// `cnnperf validate`: a model file's accuracy on measured per-layer and end-to-end data.
#include "validate/validate_command.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/power_calibration.hpp"
#include "cnnperf/ml/results.hpp"
#include "cnnperf/ml/training_row_set.hpp"
#include "predict/predict_command.hpp"

namespace cnnperf {

namespace {

constexpr const char* kNoTrainingRows = "the model does not record its training rows";

struct Pairs {
  std::vector<double> truth;
  std::vector<double> pred;
  void add(double t, double p) {
    truth.push_back(t);
    pred.push_back(p);
  }
};

std::map<std::string, Metrics> metrics_map(const std::map<std::string, Pairs>& groups,
                                           std::size_t n_features) {
  std::map<std::string, Metrics> out;
  for (const auto& [key, pairs] : groups) {
    out[key] = compute_metrics(pairs.truth, pairs.pred, n_features);
  }
  return out;
}

// An undefined metric (JSON null, e.g. adjusted R^2 with no more rows than features) is an
// empty cell in the table and the CSV alike.
std::string cell(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "";
  return format_number(j[key].get<double>(), 4);
}

void add_rows(std::vector<std::vector<std::string>>& rows, const std::string& scope,
              const std::string& group, const nlohmann::json& m) {
  rows.push_back({scope, group, std::to_string(m.value("n", std::size_t{0})), cell(m, "mape_pct"),
                  cell(m, "r2"), cell(m, "adjusted_r2"), cell(m, "within_10pct"),
                  cell(m, "spearman")});
}

// Per row of `data`, whether the model flags it outside its training data (in_distribution
// false), predicted with its own source, a GPU at a time as predict_layers_as takes them.
// Only the reference source's rows can take the unseen-GPU table, so only they are predicted
// (the others are false).
std::vector<bool> rows_outside_training_data(const LearnedModel& model, const TrainingData& data) {
  std::map<std::string, std::vector<std::size_t>> by_gpu;
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    if (data.sources[r] == kReferenceSource) by_gpu[data.gpus[r].name].push_back(r);
  }
  std::vector<bool> outside(data.layers.size(), false);
  for (const auto& [name, rows] : by_gpu) {
    std::vector<Layer> layers;
    std::vector<std::string> sources;
    layers.reserve(rows.size());
    sources.reserve(rows.size());
    for (const auto r : rows) {
      layers.push_back(data.layers[r]);
      sources.push_back(data.sources[r]);
    }
    const auto predictions = model.predict_layers_as(layers, data.gpus[rows.front()], sources);
    for (std::size_t j = 0; j < rows.size(); ++j) {
      outside[rows[j]] = !predictions[j].in_distribution;
    }
  }
  return outside;
}

// One line on the share of rows inside their 80 % interval, for the table.
std::string interval_coverage_note(const nlohmann::json& report) {
  if (!report.contains("layers") || !report["layers"].contains("intervals")) return {};
  const auto& intervals = report["layers"]["intervals"];
  if (!intervals.contains("overall")) {
    return "80 % intervals: " + intervals.value("table", std::string()) + "\n";
  }
  std::string out = "80 % intervals (" + intervals["table"].get<std::string>() +
                    "): " + coverage_text(intervals["overall"]) + " of the rows inside";
  for (const char* key : {"per_family", "per_gpu"}) {
    for (const auto& [name, c] : intervals[key].items()) {
      out += ", " + name + " " + coverage_text(c);
    }
  }
  return out + "\n";
}

// One line on how many scored rows the model was trained on, for the table.
std::string training_rows_note(const nlohmann::json& report) {
  if (!report.contains("layers") || !report["layers"].contains("training_rows")) return {};
  const auto& t = report["layers"]["training_rows"];
  if (!t.value("recorded", false)) return std::string("training rows: ") + kNoTrainingRows + "\n";
  const auto seen = t["seen"].value("rows", std::size_t{0});
  const auto unseen = t["unseen"].value("rows", std::size_t{0});
  return "training rows: " + std::to_string(seen) + " of the " + std::to_string(seen + unseen) +
         " rows scored were seen in training (the model records " +
         std::to_string(t.value("model_rows", std::size_t{0})) +
         "; an unseen row passes for seen with probability " +
         format_number(t.value("false_positive_rate", 0.0), 2) + ")\n";
}

std::string render(const nlohmann::json& report, OutputFormat format) {
  if (format == OutputFormat::kJson) return json_text(report) + "\n";
  // The power section has its own columns (power, slowdown and energy errors).
  std::string power =
      report.contains("power") ? format_power_report(report["power"], format) : std::string();
  if (!report.contains("layers") && !report.contains("e2e")) return power;
  const std::vector<std::string> header = {
      "scope", "group", "n", "mape_pct", "r2", "adjusted_r2", "within_10pct", "spearman"};
  std::vector<std::vector<std::string>> rows;
  if (report.contains("layers")) {
    const auto& l = report["layers"];
    add_rows(rows, "layer", "all", l["overall"]);
    // Rows the model was fitted on score better than it predicts: they are scored apart.
    const auto& trained = l.contains("training_rows") ? l["training_rows"] : nlohmann::json();
    if (trained.value("recorded", false)) {
      for (const char* part : {"seen", "unseen"}) {
        if (trained[part].contains("overall")) {
          add_rows(rows, "layer", std::string(part) + " in training", trained[part]["overall"]);
        }
      }
    }
    for (const auto& [fam, m] : l["per_family"].items()) {
      add_rows(rows, "layer", "family=" + fam, m);
    }
    for (const auto& [gpu, m] : l["per_gpu"].items()) add_rows(rows, "layer", "gpu=" + gpu, m);
  }
  if (report.contains("e2e")) {
    const auto& e = report["e2e"];
    add_rows(rows, "end-to-end", "all", e["overall"]);
    for (const auto& [gpu, m] : e["per_gpu"].items()) add_rows(rows, "end-to-end", "gpu=" + gpu, m);
    if (e.contains("per_slice")) {
      for (const auto& [slice, m] : e["per_slice"].items()) add_rows(rows, "end-to-end", slice, m);
    }
    if (e.contains("data_parallel")) {
      const auto& d = e["data_parallel"];
      add_rows(rows, "end-to-end, 2+ GPUs", "all", d["overall"]);
      for (const auto& [gpu, m] : d["per_gpu"].items()) {
        add_rows(rows, "end-to-end, 2+ GPUs", "gpu=" + gpu, m);
      }
    }
  }
  if (format == OutputFormat::kCsv) {
    return csv_with_schema(header, rows, report.at("schema_version").get<int>()) +
           (power.empty() ? "" : "\n" + power);
  }
  std::string models;
  if (report.contains("layers")) models += "per layer: " + report["model"].get<std::string>();
  if (report.contains("e2e")) {
    models += std::string(models.empty() ? "" : "; ") +
              "end to end: " + report["e2e"]["latency_model"].get<std::string>();
  }
  return format_table(header, rows) + "models scored: " + models + "\n" +
         training_rows_note(report) + interval_coverage_note(report) +
         (power.empty() ? "" : "\n" + power);
}

}  // namespace

nlohmann::json validate_report(const ValidateOptions& options) {
  if (options.data.empty() && options.e2e.empty() && options.power.empty()) {
    throw InputError("--data/--e2e/--power: expected at least one measured dataset");
  }
  if (!options.power_model.empty() && options.power.empty()) {
    // Only the power rows are scored with it: without them it would be read for nothing.
    throw InputError("--power-model: applies to --power rows; expected --power FILE with it");
  }
  ValidateResult report;
  report.tool_version = CNNPERF_VERSION;
  if (!options.power.empty()) {
    const PowerModel power = options.power_model.empty()
                                 ? PowerModel::bundled()
                                 : PowerModel::load(user_file_or_resource(options.power_model));
    report.power = power_validation_report(user_file_list(options.power, "--power"), power);
    if (options.data.empty() && options.e2e.empty()) return report;
  }
  // Without --model, each part is scored with the model `predict` would use for it: the
  // bundled learned model per layer, the analytical baseline end to end.
  std::unique_ptr<LearnedModel> learned;
  if (!options.model.empty() || !options.data.empty()) {
    const std::string path =
        options.model.empty() ? find_resource(kBundledLearnedModel).string() : options.model;
    learned = LearnedModel::load(path);
    report.model = options.model.empty() ? std::string(kBundledLearnedModel) : path;
    report.model_fingerprint = learned->metadata().value("fingerprint", std::string());
  }
  if (!options.data.empty()) {
    const LearnedModel* model = learned.get();
    const FeatureSpec& spec = model->feature_spec();
    const std::size_t n_features = feature_names(spec).size();
    const TrainingData data = load_training_data(user_file_list(options.data, "--data"));
    const std::optional<TrainingRowSet> trained_on =
        TrainingRowSet::from_metadata(learned->metadata(), *report.model + ": metadata");
    Pairs overall;
    Pairs seen;
    Pairs unseen;
    std::map<std::string, Pairs> per_gpu, per_family;
    std::size_t unmodelled = 0;
    // Interval coverage, with the tables predict gives the model's layers.
    const IntervalChoice tables = intervals_for(*model);
    const std::vector<bool> outside =
        tables.unseen_gpu_table ? rows_outside_training_data(*model, data) : std::vector<bool>{};
    Coverage covered;
    std::map<std::string, Coverage> covered_per_family, covered_per_gpu;
    for (const auto family : kOpFamilies) {
      const auto rows = family_rows(data, family);
      if (rows.empty()) continue;
      std::vector<const FamilyModel*> fams;
      for (const auto& f : model->families()) {
        if (f.family == family) fams.push_back(&f);
      }
      if (fams.empty()) {
        unmodelled += rows.size();
        continue;
      }
      // Each row is predicted with its own measurement source (not the reference source
      // predict uses), so the comparison is against what that source's timing measures.
      const auto pred = predict_rows(fams, data, rows, spec, model->kernel_params());
      std::map<std::string, bool> unseen_gpus;  // per GPU name, LearnedModel::unseen_gpu once
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const double truth = data.latency_ms[rows[i]];
        overall.add(truth, pred[i]);
        per_gpu[data.gpus[rows[i]].name].add(truth, pred[i]);
        per_family[to_string(family)].add(truth, pred[i]);
        if (trained_on) {
          (trained_on->contains(training_row_hash(data, rows[i])) ? seen : unseen)
              .add(truth, pred[i]);
        }
        if (tables.table) {
          const std::string& source = data.sources[rows[i]];
          const std::string& gpu = data.gpus[rows[i]].name;
          // The unseen-GPU table is of the reference source's rows (train's unseen-GPU check);
          // predict gives it to those rows and to rows outside the training data
          // (attach_layer_intervals).
          auto unseen_gpu = unseen_gpus.find(gpu);
          if (unseen_gpu == unseen_gpus.end()) {
            unseen_gpu = unseen_gpus.emplace(gpu, model->unseen_gpu(family, gpu)).first;
          }
          const bool wide = tables.unseen_gpu_table && source == kReferenceSource &&
                            (unseen_gpu->second || outside[rows[i]]);
          const std::string op_class = interval_family(data.layers[rows[i]]);
          const auto interval =
              (wide ? *tables.unseen_gpu_table : *tables.table).interval(op_class, pred[i], source);
          for (Coverage* c : {&covered, &covered_per_family[op_class], &covered_per_gpu[gpu]}) {
            c->count(interval, truth);
          }
        }
      }
    }
    if (unmodelled > 0) {
      spdlog::warn("{} rows belong to op families the model has no regressor for; not scored",
                   unmodelled);
    }
    if (overall.truth.empty()) {
      throw InputError("--data: no rows the model can score in " + join(data.files, ", ") +
                       "; expected measured rows of an op family the model has (" +
                       std::to_string(unmodelled) + " rows of others)");
    }
    nlohmann::json training_rows = {{"recorded", trained_on.has_value()}};
    if (trained_on) {
      training_rows["model_rows"] = trained_on->rows();
      training_rows["false_positive_rate"] = trained_on->false_positive_rate();
      for (const auto& [key, pairs] : {std::pair{"seen", &seen}, std::pair{"unseen", &unseen}}) {
        nlohmann::json part = {{"rows", pairs->truth.size()}};
        if (!pairs->truth.empty()) {
          part["overall"] = to_json(compute_metrics(pairs->truth, pairs->pred, n_features));
        }
        training_rows[key] = std::move(part);
      }
    } else {
      training_rows["note"] = kNoTrainingRows;
    }
    nlohmann::json intervals = {
        {"table", tables.table ? tables.source : "none: " + tables.missing}};
    if (tables.table) {
      intervals["overall"] = to_json(covered);
      for (const auto& [key, part] :
           {std::pair{"per_family", &covered_per_family}, std::pair{"per_gpu", &covered_per_gpu}}) {
        nlohmann::json shares = nlohmann::json::object();
        for (const auto& [name, c] : *part) shares[name] = to_json(c);
        intervals[key] = std::move(shares);
      }
    }
    report.layers = ValidateLayerScores{data.files,
                                        data.fingerprint,
                                        overall.truth.size(),
                                        data.skipped_rows,
                                        unmodelled,
                                        "each row's own `source` column",
                                        compute_metrics(overall.truth, overall.pred, n_features),
                                        metrics_map(per_gpu, n_features),
                                        metrics_map(per_family, n_features),
                                        std::move(training_rows),
                                        std::move(intervals)};
  }
  if (!options.e2e.empty()) {
    auto rows = load_e2e_rows(user_file_list(options.e2e, "--e2e"));
    const std::string files = join(options.e2e, " ");
    std::unique_ptr<LatencyModel> baseline;
    if (options.model.empty()) baseline = bundled_analytical_model();
    const LatencyModel* model = options.model.empty() ? baseline.get() : learned.get();
    // A model calibrated without data-parallel terms predicts single-GPU steps only.
    const bool data_parallel = model->eager_overhead().data_parallel.rows > 0;
    const auto multi_rows = static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const E2eRow& r) { return r.num_gpus > 1; }));
    if (!data_parallel) {
      std::erase_if(rows, [](const E2eRow& r) { return r.num_gpus > 1; });
    }
    require_single_gpu_rows(rows, files);
    const auto terms = e2e_terms(rows, *model);
    const EagerOverhead overhead = model->eager_overhead_for(e2e_network_source(rows));
    const E2eEvaluation eval = evaluate_e2e(rows, terms, overhead);
    ValidateE2eScores& e2e = report.e2e.emplace();
    e2e.file = files;
    e2e.latency_model = options.model.empty() ? "analytical" : *report.model;
    e2e.rows = rows.size();
    e2e.eager_overhead_source = overhead.source;
    e2e.evaluation = to_json(eval);
    if (eval.data_parallel_rows == 0 && multi_rows > 0) e2e.unmodelled_multi_gpu_rows = multi_rows;
  }
  return report;
}

int run_validate(const ValidateOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  const std::optional<double> gate = options.fail_if_mape_above;
  if (gate && (*gate < 0 || !std::isfinite(*gate))) {
    throw InputError("--fail-if-mape-above: expected a non-negative percentage");
  }
  std::vector<std::string> inputs = options.data;
  inputs.insert(inputs.end(), options.e2e.begin(), options.e2e.end());
  inputs.insert(inputs.end(), options.power.begin(), options.power.end());
  inputs.push_back(options.model);
  inputs.push_back(options.power_model);
  check_output_not_input(options.output, inputs);
  const nlohmann::json report = validate_report(options);
  write_output(options.output, render(report, format));
  const nlohmann::json::json_pointer recorded("/layers/training_rows/recorded");
  if (format == OutputFormat::kCsv && report.contains(recorded) && !report[recorded].get<bool>()) {
    // The table says so under its rows and JSON in its field; CSV rows have no place for it.
    spdlog::warn("{}: {}", report.value("model", std::string()), kNoTrainingRows);
  }
  if (gate) {
    // Every overall MAPE the report prints is gated, the 2+ GPU end-to-end rows' too.
    const std::array<std::pair<const char*, const char*>, 4> gated{{
        {"per-layer", "/layers/overall/mape_pct"},
        {"end-to-end", "/e2e/overall/mape_pct"},
        {"end-to-end 2+ GPUs", "/e2e/data_parallel/overall/mape_pct"},
        {"power-cap slowdown", "/power/scores/overall/slowdown_mape_pct"},
    }};
    for (const auto& [label, pointer] : gated) {
      const nlohmann::json::json_pointer at(pointer);
      if (!report.contains(at) || !report[at].is_number()) continue;
      const double mape = report[at].get<double>();
      if (mape > *gate) {
        std::fprintf(stderr, "cnnperf: validate: %s MAPE %s %% exceeds --fail-if-mape-above %s\n",
                     label, format_number(mape, 4).c_str(), format_number(*gate, 4).c_str());
        return 1;
      }
    }
  }
  return 0;
}

}  // namespace cnnperf
