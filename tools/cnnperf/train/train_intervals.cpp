// SPDX-License-Identifier: Apache-2.0
// `cnnperf train intervals`: the analytical default's 80 % intervals and their held-out
// coverage per validation scheme and op family.
#include <spdlog/spdlog.h>

#include <array>
#include <cmath>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/interval_residuals.hpp"
#include "train/train_command.hpp"

namespace cnnperf {

namespace {

constexpr int kIntervalsReportSchemaVersion = 1;
// Every scheme the coverage is reported under (group-shape only when --cv asks for it).
constexpr std::array<CvScheme, 3> kCoverageSchemes{CvScheme::kKfold, CvScheme::kLeaveGpuOut,
                                                   CvScheme::kLeaveSourceOut};
constexpr const char* kE2eScheme = "leave-gpu-out";

std::string command_line_of(const TrainIntervalsOptions& o) {
  std::string line = "cnnperf train intervals --data " + join(o.data, " ");
  if (!o.e2e.empty()) line += " --e2e " + join(o.e2e, " ");
  line +=
      " --cv " + o.cv + " --folds " + std::to_string(o.folds) + " --seed " + std::to_string(o.seed);
  if (o.max_rows > 0) line += " --max-rows " + std::to_string(o.max_rows);
  if (!o.out.empty()) line += " --out " + o.out;
  return line;
}

nlohmann::json scheme_section(const std::vector<IntervalResidual>& residuals,
                              const std::map<std::string, std::string>& not_applicable) {
  nlohmann::json section = to_json(cross_validated_coverage(residuals));
  section["not_applicable"] = not_applicable;
  return section;
}

std::string percent(const nlohmann::json& coverage) {
  return coverage.is_number() ? format_number(100 * coverage.get<double>(), 3) : "";
}

std::vector<std::string> coverage_line(const std::string& scheme, const std::string& family,
                                       const nlohmann::json& c) {
  return {scheme,
          family,
          std::to_string(c["rows"].get<std::size_t>()),
          std::to_string(c["inside"].get<std::size_t>()),
          std::to_string(c["no_interval"].get<std::size_t>()),
          percent(c["coverage"])};
}

std::string render(const nlohmann::json& report, OutputFormat format) {
  if (format == OutputFormat::kJson) return json_text(report) + "\n";
  const std::vector<std::string> header{"scheme", "family",      "rows",
                                        "inside", "no_interval", "coverage_pct"};
  std::vector<std::vector<std::string>> rows;
  std::string notes;
  for (const auto& [scheme, section] : report["schemes"].items()) {
    rows.push_back(coverage_line(scheme, "all", section["overall"]));
    for (const auto& [family, c] : section["per_family"].items()) {
      rows.push_back(coverage_line(scheme, family, c));
    }
    for (const auto& [regime, c] : section["per_regime"].items()) {
      rows.push_back(coverage_line(scheme, regime, c));
    }
    for (const auto& [group, c] : section["per_group"].items()) {
      rows.push_back(coverage_line(scheme, "machine " + group, c));
    }
    for (const auto& [family, why] : section["not_applicable"].items()) {
      notes += "  " + scheme + " " + family + ": not applicable, " + why.get<std::string>() + "\n";
    }
  }
  if (format == OutputFormat::kCsv) {
    return csv_with_schema(header, rows, report["schema_version"].get<int>());
  }
  std::string out = format_table(header, rows);
  out += "\nintervals of the " + report["model"].get<std::string>() +
         " model: the 10th-90th percentiles of log(measured / predicted) per family and time "
         "regime, fitted on the other folds' residuals of each scheme\n";
  if (!notes.empty()) out += notes;
  if (report.contains("path")) {
    out += "table (fitted on the " + report["table_scheme"].get<std::string>() +
           " residuals) written to " + report["path"].get<std::string>() + "\n";
  }
  return out;
}

}  // namespace

nlohmann::json train_intervals_report(const TrainIntervalsOptions& options) {
  if (options.data.empty()) throw InputError("--data: expected measured layer CSVs");
  if (options.folds < 2) {
    throw InputError("--folds: expected at least 2, got " + std::to_string(options.folds));
  }
  CvScheme table_scheme = CvScheme::kLeaveGpuOut;
  try {
    table_scheme = cv_scheme_from_string(options.cv);
  } catch (const ParameterError& e) {
    throw InputError("--cv: " + e.detail());
  }
  std::vector<std::string> inputs = options.data;
  inputs.insert(inputs.end(), options.e2e.begin(), options.e2e.end());
  check_output_not_input(options.out, inputs);
  check_output_not_input(options.output, inputs);
  const TrainingData data =
      load_training_data(user_file_list(options.data, "--data"), options.max_rows, options.seed);
  if (data.layers.empty()) {
    throw InputError("--data: no usable measured rows in " + join(data.files, ", ") +
                     "; expected rows with a positive latency_ms");
  }
  nlohmann::json report = {{"schema_version", kIntervalsReportSchemaVersion},
                           {"tool_version", CNNPERF_VERSION},
                           {"kind", "interval_coverage"},
                           {"model", "analytical"},
                           {"data", data.files},
                           {"fingerprint", data.fingerprint},
                           {"rows", data.layers.size()},
                           {"max_rows", options.max_rows},
                           {"seed", options.seed},
                           {"folds", options.folds},
                           {"table_scheme", to_string(table_scheme)},
                           {"schemes", nlohmann::json::object()}};
  std::vector<IntervalResidual> table_residuals;
  std::vector<CvScheme> schemes(kCoverageSchemes.begin(), kCoverageSchemes.end());
  if (table_scheme == CvScheme::kGroupShape) schemes.push_back(table_scheme);
  for (const auto scheme : schemes) {
    spdlog::info("interval coverage under {}", to_string(scheme));
    std::map<std::string, std::string> not_applicable;
    auto residuals =
        analytical_residuals(data, scheme, options.folds, options.seed, &not_applicable);
    report["schemes"][to_string(scheme)] = scheme_section(residuals, not_applicable);
    if (scheme == table_scheme) table_residuals = std::move(residuals);
  }
  if (!options.e2e.empty()) {
    auto rows = load_e2e_rows(user_file_list(options.e2e, "--e2e"));
    std::erase_if(rows, [](const E2eRow& r) { return r.num_gpus > 1; });
    require_single_gpu_rows(rows, join(options.e2e, " "));
    spdlog::info("end-to-end leave-one-GPU-out on {} rows", rows.size());
    const auto model = bundled_analytical_model();
    const auto terms = e2e_terms(rows, *model);
    const E2eEvaluation logo =
        evaluate_e2e_leave_gpu_out(rows, terms, bundled_analytical_overhead().unseen_gpu_terms);
    auto residuals = e2e_residuals(rows, logo);
    report["schemes"][std::string("e2e ") + kE2eScheme] = scheme_section(residuals, {});
    table_residuals.insert(table_residuals.end(), residuals.begin(), residuals.end());
  }
  if (!options.out.empty()) {
    const IntervalTable table = IntervalTable::fit(table_residuals);
    nlohmann::json file =
        interval_table_file_json("analytical", table,
                                 {{"data", data.files},
                                  {"fingerprint", data.fingerprint},
                                  {"rows", data.layers.size()},
                                  {"max_rows", options.max_rows},
                                  {"seed", options.seed},
                                  {"scheme", to_string(table_scheme)},
                                  {"e2e", options.e2e},
                                  {"e2e_scheme", options.e2e.empty() ? "" : kE2eScheme},
                                  {"command_line", command_line_of(options)}},
                                 report["schemes"]);
    // A standalone file names the tool that wrote it; a learned model's section sits in a model
    // file that does.
    file["tool_version"] = CNNPERF_VERSION;
    write_output(options.out, json_text(file) + "\n");
    spdlog::info("wrote {}", options.out);
    report["path"] = options.out;
  }
  return report;
}

int run_train_intervals(const TrainIntervalsOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  write_output(options.output, render(train_intervals_report(options), format));
  return 0;
}

}  // namespace cnnperf
