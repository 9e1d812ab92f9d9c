// SPDX-License-Identifier: Apache-2.0
// A sweep's rows and its printers. Each row holds the whole-step figures of one prediction,
// computed as the single prediction's `total` computes them, so a row and the single result of
// the same combination agree digit for digit.
#include "cnnperf/predict/sweep.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/json_get.hpp"
#include "cnnperf/common/json_io.hpp"

namespace cnnperf {

double PredictionSweepRow::throughput_samples_per_s() const {
  return latency_ms > 0 ? 1e3 * static_cast<double>(batch) * num_gpus / latency_ms : 0.0;
}

PredictionSweepRow sweep_row(const NetworkPrediction& prediction) {
  PredictionSweepRow row;
  row.gpu = prediction.gpu.name;
  row.precision = prediction.precision;
  row.runtime = prediction.runtime;
  row.batch = prediction.batch;
  row.num_gpus = prediction.eager.num_gpus;
  row.model = prediction.model;
  for (std::size_t i = 0; i < prediction.layers.size(); ++i) {
    const Layer& layer = prediction.layers[i];
    row.params += layer.params();
    row.flops += layer.flops();
    row.bytes += layer.bytes();
    row.roofline_ms += prediction.predictions[i].roofline_ms;
    row.in_distribution = row.in_distribution && prediction.predictions[i].in_distribution;
  }
  row.kernel_ms = prediction.kernel_ms;
  row.kernel_scale_ms = prediction.kernel_scale_ms();
  row.latency_ms = prediction.latency_ms;
  row.latency_interval = prediction.latency_interval;
  row.energy_j = prediction.energy_j;
  row.avg_power_w = prediction.avg_power_w;
  row.min_memory_gb = prediction.min_memory_gb;
  row.skipped_nodes = prediction.skipped_nodes.size();
  row.warnings = prediction.warnings;
  return row;
}

std::string row_label(const PredictionSweepRow& row) {
  return row.gpu + " " + to_string(row.precision) + " " + to_string(row.runtime) + " batch " +
         std::to_string(row.batch);
}

std::vector<std::string> sweep_warnings(const PredictionSweep& sweep) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> merged;
  for (std::size_t r = 0; r < sweep.rows.size(); ++r) {
    for (const auto& warning : sweep.rows[r].warnings) {
      auto it = std::find_if(merged.begin(), merged.end(),
                             [&](const auto& entry) { return entry.first == warning; });
      if (it == merged.end()) {
        merged.emplace_back(warning, std::vector<std::size_t>{});
        it = std::prev(merged.end());
      }
      it->second.push_back(r + 1);
    }
  }
  std::vector<std::string> out;
  for (const auto& [text, rows] : merged) {
    std::string which;
    if (rows.size() == sweep.rows.size()) {
      which = "all rows";
    } else {
      which = rows.size() == 1 ? "row" : "rows";
      for (std::size_t i = 0; i < rows.size(); ++i) {
        which += (i == 0 ? " " : ", ") + std::to_string(rows[i]);
      }
    }
    out.push_back("[" + which + "] " + text);
  }
  return out;
}

namespace {

std::string bound_cell(const std::optional<LatencyInterval>& interval, bool hi) {
  if (!interval) return "";
  return format_number(hi ? interval->hi_ms : interval->lo_ms, 6);
}

const std::vector<std::string> kCsvHeader{"gpu",
                                          "precision",
                                          "runtime",
                                          "batch",
                                          "num_gpus",
                                          "kernel_ms",
                                          "kernel_scale_ms",
                                          "overhead_ms",
                                          "latency_ms",
                                          "latency_ms_lo",
                                          "latency_ms_hi",
                                          "energy_j",
                                          "avg_power_w",
                                          "throughput_samples_per_s",
                                          "min_memory_gb",
                                          "roofline_ms",
                                          "params",
                                          "flops",
                                          "bytes",
                                          "in_distribution",
                                          "skipped_nodes",
                                          "network",
                                          "model",
                                          "over_budget"};

std::string sweep_csv(const PredictionSweep& sweep) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : sweep.rows) {
    rows.push_back({row.gpu,
                    to_string(row.precision),
                    to_string(row.runtime),
                    std::to_string(row.batch),
                    std::to_string(row.num_gpus),
                    format_number(row.kernel_ms, 6),
                    format_number(row.kernel_scale_ms, 6),
                    format_number(row.overhead_ms(), 6),
                    format_number(row.latency_ms, 6),
                    bound_cell(row.latency_interval, false),
                    bound_cell(row.latency_interval, true),
                    format_number(row.energy_j, 6),
                    format_number(row.avg_power_w, 5),
                    format_number(row.throughput_samples_per_s(), 6),
                    format_number(row.min_memory_gb, 6),
                    format_number(row.roofline_ms, 6),
                    std::to_string(row.params),
                    format_number(row.flops, 10),
                    format_number(row.bytes, 10),
                    row.in_distribution ? "true" : "false",
                    std::to_string(row.skipped_nodes),
                    sweep.network,
                    row.model,
                    row.over_budget});
  }
  return csv_with_schema(kCsvHeader, rows, kPredictionSweepSchemaVersion);
}

std::string sweep_table(const PredictionSweep& sweep) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r < sweep.rows.size(); ++r) {
    const auto& row = sweep.rows[r];
    const std::string interval = row.latency_interval
                                     ? format_number(row.latency_interval->lo_ms, 3) + "-" +
                                           format_number(row.latency_interval->hi_ms, 3)
                                     : "";
    std::string note = row.over_budget.empty() ? "" : "over budget";
    if (!row.in_distribution) note += std::string(note.empty() ? "" : "; ") + "out-of-range";
    rows.push_back({std::to_string(r + 1), row.gpu, to_string(row.precision),
                    to_string(row.runtime), std::to_string(row.batch),
                    format_number(row.kernel_ms, 4), format_number(row.kernel_scale_ms, 4),
                    format_number(row.overhead_ms(), 4), format_number(row.latency_ms, 4), interval,
                    format_number(row.energy_j, 4), format_number(row.avg_power_w, 4),
                    format_number(row.throughput_samples_per_s(), 4),
                    format_number(row.min_memory_gb, 3), note});
  }
  const std::string model = sweep.rows.empty() ? "" : sweep.rows.front().model;
  std::string out =
      sweep.network + ", " + to_string(sweep.mode) + ": " + std::to_string(sweep.rows.size()) +
      " predictions (ordered by gpu, precision asked (each runtime's default where none was), "
      "runtime, batch), model: " +
      model + "\n";
  out += format_table({"#", "gpu", "precision", "runtime", "batch", "kernel_ms", "kernel_scale_ms",
                       "overhead_ms", "latency_ms", "latency_ms 80%", "energy_j", "avg_power_w",
                       "samples_per_s", "min_memory_gb", "note"},
                      rows);
  if (!sweep.interval_source.empty()) out += "\nintervals: " + sweep.interval_source + "\n";
  if (!sweep.interval_note.empty()) out += "intervals: " + sweep.interval_note + "\n";
  for (std::size_t r = 0; r < sweep.rows.size(); ++r) {
    if (sweep.rows[r].over_budget.empty()) continue;
    out += "over budget [row " + std::to_string(r + 1) + ", " + row_label(sweep.rows[r]) +
           "]: " + sweep.rows[r].over_budget + "\n";
  }
  for (const auto& warning : sweep_warnings(sweep)) out += "warning " + warning + "\n";
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const PredictionSweepRow& row) {
  using Json = nlohmann::ordered_json;
  const auto& interval = row.latency_interval;
  return {{"gpu", row.gpu},
          {"precision", to_string(row.precision)},
          {"runtime", to_string(row.runtime)},
          {"batch", row.batch},
          {"num_gpus", row.num_gpus},
          {"kernel_ms", row.kernel_ms},
          {"kernel_scale_ms", row.kernel_scale_ms},
          {"overhead_ms", row.overhead_ms()},
          {"latency_ms", row.latency_ms},
          {"latency_ms_lo", interval ? Json(interval->lo_ms) : Json()},
          {"latency_ms_hi", interval ? Json(interval->hi_ms) : Json()},
          {"energy_j", row.energy_j},
          {"avg_power_w", row.avg_power_w},
          {"throughput_samples_per_s", row.throughput_samples_per_s()},
          {"min_memory_gb", row.min_memory_gb},
          {"roofline_ms", row.roofline_ms},
          {"params", row.params},
          {"flops", row.flops},
          {"bytes", row.bytes},
          {"in_distribution", row.in_distribution},
          {"skipped_nodes", row.skipped_nodes},
          {"model", row.model},
          {"over_budget", row.over_budget.empty() ? Json() : Json(row.over_budget)},
          {"warnings", row.warnings}};
}

nlohmann::ordered_json to_json(const PredictionSweep& sweep) {
  using Json = nlohmann::ordered_json;
  Json gpus = Json::array();
  for (const auto& gpu : sweep.gpus) gpus.push_back(Json(nlohmann::json(gpu)));
  Json rows = Json::array();
  for (const auto& row : sweep.rows) rows.push_back(to_json(row));
  return {{"schema_version", kPredictionSweepSchemaVersion},
          {"tool_version", CNNPERF_VERSION},
          {"kind", "prediction_sweep"},
          {"model", sweep.rows.empty() ? std::string() : sweep.rows.front().model},
          {"network", sweep.network},
          {"network_source", sweep.network_source},
          {"mode", to_string(sweep.mode)},
          {"power_model", sweep.power_model},
          {"order", kPredictionSweepOrder},
          {"gpus", gpus},
          {"rows", rows},
          {"intervals", {{"source", sweep.interval_source}, {"note", sweep.interval_note}}},
          {"warnings", sweep_warnings(sweep)}};
}

PredictionSweepRow prediction_sweep_row_from_json(const nlohmann::ordered_json& j) {
  PredictionSweepRow row;
  row.gpu = json_value_exact(j, "gpu", row.gpu);
  if (j.contains("precision")) row.precision = dtype_from_string(j["precision"].get<std::string>());
  if (j.contains("runtime")) row.runtime = runtime_from_string(j["runtime"].get<std::string>());
  row.batch = json_value_exact(j, "batch", row.batch);
  row.num_gpus = json_value_exact(j, "num_gpus", row.num_gpus);
  row.kernel_ms = json_value_exact(j, "kernel_ms", row.kernel_ms);
  row.kernel_scale_ms = json_value_exact(j, "kernel_scale_ms", row.kernel_scale_ms);
  row.latency_ms = json_value_exact(j, "latency_ms", row.latency_ms);
  const auto lo = j.find("latency_ms_lo");
  const auto hi = j.find("latency_ms_hi");
  if (lo != j.end() && hi != j.end() && !lo->is_null() && !hi->is_null()) {
    row.latency_interval = LatencyInterval{lo->get<double>(), hi->get<double>()};
  }
  row.energy_j = json_value_exact(j, "energy_j", row.energy_j);
  row.avg_power_w = json_value_exact(j, "avg_power_w", row.avg_power_w);
  row.min_memory_gb = json_value_exact(j, "min_memory_gb", row.min_memory_gb);
  row.roofline_ms = json_value_exact(j, "roofline_ms", row.roofline_ms);
  row.params = json_value_exact(j, "params", row.params);
  row.flops = json_value_exact(j, "flops", row.flops);
  row.bytes = json_value_exact(j, "bytes", row.bytes);
  row.in_distribution = json_value_exact(j, "in_distribution", row.in_distribution);
  row.skipped_nodes = json_value_exact(j, "skipped_nodes", row.skipped_nodes);
  row.model = json_value_exact(j, "model", row.model);
  // null: within every budget.
  const auto over = j.find("over_budget");
  if (over != j.end() && !over->is_null()) row.over_budget = over->get<std::string>();
  row.warnings = json_value_exact(j, "warnings", row.warnings);
  return row;
}

PredictionSweep prediction_sweep_from_json(const nlohmann::ordered_json& doc) {
  PredictionSweep sweep;
  sweep.network = json_value_exact(doc, "network", sweep.network);
  sweep.network_source = json_value_exact(doc, "network_source", sweep.network_source);
  if (doc.contains("mode")) sweep.mode = mode_from_string(doc["mode"].get<std::string>());
  sweep.power_model = json_value_exact(doc, "power_model", sweep.power_model);
  if (doc.contains("intervals")) {
    const auto& intervals = doc["intervals"];
    sweep.interval_source = json_value_exact(intervals, "source", sweep.interval_source);
    sweep.interval_note = json_value_exact(intervals, "note", sweep.interval_note);
  }
  if (doc.contains("gpus")) {
    const auto& gpus = doc["gpus"];
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      sweep.gpus.push_back(
          gpu_spec_from_json(nlohmann::json(gpus.at(i)), "gpus[" + std::to_string(i) + "]", false));
    }
  }
  if (doc.contains("rows")) {
    for (const auto& row : doc["rows"]) sweep.rows.push_back(prediction_sweep_row_from_json(row));
  }
  return sweep;
}

std::string format_prediction_sweep(const PredictionSweep& sweep, OutputFormat format) {
  if (format == OutputFormat::kJson) return json_text(to_json(sweep)) + "\n";
  if (format == OutputFormat::kCsv) return sweep_csv(sweep);
  return sweep_table(sweep);
}

}  // namespace cnnperf
