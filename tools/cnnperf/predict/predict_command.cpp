// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict`: network or layer-CSV predictions, budgets for CI.
#include "predict/predict_command.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/network_io.hpp"
#include "commands.hpp"

namespace cnnperf {

namespace {

std::string fmt_ms(double v) {
  return format_number(v, 6);
}

// The interval table of `model`: a learned model file's own (from its cross-validation), the
// bundled one for the analytical default; none, with why, where there is none.
struct IntervalChoice {
  std::optional<IntervalTable> table;
  std::string source;
  std::string missing;  ///< why there is no table
};

IntervalChoice intervals_for(const LatencyModel& model) {
  IntervalChoice choice;
  if (const auto* learned = dynamic_cast<const LearnedModel*>(&model)) {
    const auto& metadata = learned->metadata();
    if (!metadata.contains("intervals")) {
      choice.missing =
          "the model file has no interval table (train latency --out writes one from its "
          "cross-validation residuals)";
      return choice;
    }
    const auto& section = metadata.at("intervals");
    choice.table = interval_table_from_file_json(section, model.name() + ": metadata.intervals");
    const auto provenance = section.value("provenance", nlohmann::json::object());
    choice.source = model.name() + " (" + provenance.value("scheme", std::string("cv")) +
                    " residuals of its training)";
    return choice;
  }
  if (const auto& bundled = bundled_intervals()) {
    choice.table = *bundled;
    choice.source = kBundledIntervals;
  } else {
    choice.missing = std::string(kBundledIntervals) + " not found (cnnperf train intervals --out)";
  }
  return choice;
}

// Every layer's and the step's interval, or why there is none.
void attach_intervals(NetworkPrediction& prediction, const LatencyModel& model,
                      bool host_time_given) {
  const IntervalChoice choice = intervals_for(model);
  if (!choice.table) {
    prediction.interval_note = "none: " + choice.missing;
    return;
  }
  attach_network_intervals(prediction, *choice.table, choice.source);
  if (host_time_given && prediction.latency_interval) {
    // The residuals are of the measuring machines' fitted host terms, not the user's.
    prediction.latency_interval.reset();
    prediction.interval_note += std::string(prediction.interval_note.empty() ? "" : "; ") +
                                "the step has none with --host-ms-per-op (the residuals are "
                                "of fitted host terms)";
  }
}

}  // namespace

std::unique_ptr<LatencyModel> select_model(const PredictOptions& options, const GpuSpec* net_gpu) {
  if (options.analytical && !options.model.empty()) {
    throw InputError("--analytical and --model: expected one of them, not both");
  }
  if (!options.model.empty()) {
    spdlog::info("model: {} (--model)", options.model);
    // Kernel time needs only the reference source's models (LearnedModel::load).
    return LearnedModel::load(options.model, /*reference_source_only=*/true, net_gpu);
  }
  // One default for --net and --layers, so that a layer gets one kernel_ms: the analytical
  // baseline, the more accurate on measurements of other harnesses than the learned model's
  // own (docs/methodology.md, "Which latency model `predict` uses").
  spdlog::info(
      "model: analytical baseline{}",
      options.analytical ? " (--analytical)" : " (the default; --model FILE for a learned one)");
  return bundled_analytical_model();
}

NetworkPrediction predict_for_options(const PredictOptions& options, const LatencyModel& model) {
  if (options.net.empty()) throw InputError("--net: expected a zoo name, .onnx or .json file");
  const GpuSpec gpu = GpuDatabase::bundled().resolve(options.gpu);
  ImportOptions import;
  import.batch = options.batch > 0 ? options.batch : 1;
  import.batch_given = options.batch > 0;
  // Unset: an ONNX model's input type or a layer list's dtype decides (zoo networks: fp32).
  import.dtype = optional_dtype_from_option(options.precision, "precision");
  const auto [h, w] = cli::parse_input_size(options.input_size);
  import.input_h = h;
  import.input_w = w;
  import.skip_unsupported = options.skip_unsupported;
  ImportResult imported = import_network(options.net, import);
  if (imported.network.layers.empty() && !imported.skipped.empty()) {
    // Nothing was predicted: a latency here would be the host overhead alone, and a budget
    // gate would pass on it.
    const SkippedNode& first = imported.skipped.front();
    // The list of supported operators that the reason may carry is --help's, not this line's.
    const std::string reason = first.reason.substr(0, first.reason.find(" (expected one of"));
    throw InputError(options.net + ": nothing to predict: all " +
                     std::to_string(imported.skipped.size()) + " computing node" +
                     (imported.skipped.size() == 1 ? " was" : "s were") +
                     " skipped (first: node '" + first.name + "' (" + first.op_type +
                     "): " + reason + "); expected at least one supported node");
  }
  const Runtime runtime = runtime_from_string(options.runtime);
  if (runtime != Runtime::kPytorch && (options.num_gpus != 1 || options.host_ms_per_op > 0)) {
    // Both are terms of PyTorch's step (nn.DataParallel, the host's issue time per op).
    throw InputError(std::string(options.num_gpus != 1 ? "--num-gpus" : "--host-ms-per-op") +
                     ": applies to --runtime pytorch, not to --runtime " + options.runtime);
  }
  apply_runtime_math(imported.network.layers, runtime, options.allow_tf32);
  const PowerModel& power = PowerModel::bundled();
  NetworkPrediction result =
      predict_network(imported.network, gpu, model, mode_from_string(options.mode), power, runtime);
  if (options.host_ms_per_op > 0) set_host_ms_per_op(result, options.host_ms_per_op, power);
  if (options.num_gpus > 1 && result.overhead.data_parallel.rows == 0) {
    throw InputError("--num-gpus: the model's eager overhead (" + result.overhead.source +
                     ") has no data-parallel calibration; retrain it with train --e2e on rows "
                     "with num_gpus > 1");
  }
  if (options.num_gpus != 1) set_num_gpus(result, options.num_gpus, power);
  if (options.power_limit_w > 0 && options.num_gpus > 1) {
    // The cap model is fitted on single-GPU steps (apply_power_limit).
    throw InputError("--power-limit with --num-gpus " + std::to_string(options.num_gpus) +
                     ": not modelled (expected one of them)");
  }
  if (options.power_limit_w > 0) apply_power_limit(result, options.power_limit_w, power);
  result.skipped_nodes = imported.skipped;
  for (const auto& skipped : imported.skipped) {
    result.warnings.push_back("node '" + skipped.name + "' (" + skipped.op_type +
                              ") not predicted: " + skipped.reason);
  }
  for (const auto& warning : imported.warnings) result.warnings.push_back(warning);
  return result;
}

std::string predict_layers_csv_text(const LayerTable& table, const GpuSpec* gpu,
                                    const LatencyModel& model, const LayersRun& run,
                                    OutputFormat format) {
  // Rows grouped by the GPU they run on: one group for --gpu, else one per `gpu` value.
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < table.layers.size(); ++i) {
    if (gpu != nullptr) {
      groups[""].push_back(i);
      continue;
    }
    const auto name = table.table.get(i, "gpu");
    if (!name || name->empty()) {
      throw InputError(table.table.where(i) + ": field 'gpu': expected a GPU name (or --gpu)");
    }
    groups[*name].push_back(i);
  }
  std::vector<LayerPrediction> predictions(table.layers.size());
  std::vector<std::string> gpu_names;
  const IntervalChoice intervals = intervals_for(model);
  // Said in the output (`intervals`), so a log line only: the tool's own rows warn of nothing.
  if (!intervals.table) spdlog::info("no latency intervals: {}", intervals.missing);
  for (const auto& [name, rows] : groups) {
    GpuSpec resolved;
    if (gpu == nullptr) {
      try {
        resolved = GpuDatabase::bundled().resolve(name);
      } catch (const InputError& e) {
        throw InputError(table.table.where(rows.front()) + ": field 'gpu': " + e.what());
      }
    }
    const GpuSpec& target = gpu != nullptr ? *gpu : resolved;
    gpu_names.push_back(target.name);
    std::vector<Layer> layers;
    layers.reserve(rows.size());
    for (const std::size_t i : rows) layers.push_back(table.layers[i]);
    // The math a network's layer gets under the same runtime (predict_for_options).
    apply_runtime_math(layers, run.runtime, run.allow_tf32);
    std::vector<LayerPrediction> part =
        predict_layers_under(layers, target, model, run.runtime, PowerModel::bundled());
    if (intervals.table) attach_layer_intervals(layers, part, *intervals.table);
    for (std::size_t j = 0; j < rows.size(); ++j) predictions[rows[j]] = std::move(part[j]);
  }
  std::vector<std::string> added{"kernel_ms",     "overhead_ms",   "latency_ms",
                                 "latency_ms_lo", "latency_ms_hi", "energy_mj",
                                 "avg_power_w",   "roofline_ms",   "in_distribution"};
  for (auto& name : added) {
    // Until unique: an input holding both latency_ms and predicted_latency_ms keeps both.
    while (table.table.column(name)) name = "predicted_" + name;
  }
  auto values = [&](std::size_t i) {
    const auto& p = predictions[i];
    const auto& interval = p.latency_interval;
    return std::vector<std::string>{fmt_ms(p.kernel_ms),
                                    fmt_ms(p.overhead_ms),
                                    fmt_ms(p.latency_ms()),
                                    interval ? fmt_ms(interval->lo_ms) : "",
                                    interval ? fmt_ms(interval->hi_ms) : "",
                                    format_number(p.energy_mj, 6),
                                    format_number(p.avg_power_w, 5),
                                    fmt_ms(p.roofline_ms),
                                    p.in_distribution ? "true" : "false"};
  };
  if (format == OutputFormat::kJson) {
    // Ordered: each row keeps the input's columns in file order, as DESIGN says of --layers.
    using OrderedJson = nlohmann::ordered_json;
    OrderedJson rows = OrderedJson::array();
    for (std::size_t i = 0; i < table.layers.size(); ++i) {
      OrderedJson row = OrderedJson::object();
      for (std::size_t c = 0; c < table.table.header.size(); ++c) {
        row[table.table.header[c]] = table.table.rows[i][c];
      }
      const auto& p = predictions[i];
      row[added[0]] = p.kernel_ms;
      row[added[1]] = p.overhead_ms;
      row[added[2]] = p.latency_ms();
      row[added[3]] = p.latency_interval ? OrderedJson(p.latency_interval->lo_ms) : OrderedJson();
      row[added[4]] = p.latency_interval ? OrderedJson(p.latency_interval->hi_ms) : OrderedJson();
      row[added[5]] = p.energy_mj;
      row[added[6]] = p.avg_power_w;
      row[added[7]] = p.roofline_ms;
      row[added[8]] = p.in_distribution;
      rows.push_back(std::move(row));
    }
    const OrderedJson out = {
        {"schema_version", kPredictionSchemaVersion},
        {"tool_version", CNNPERF_VERSION},
        {"kind", "layer_predictions"},
        {"model", model.name()},
        {"runtime", to_string(run.runtime)},
        {"gpu", gpu != nullptr ? OrderedJson(nlohmann::json(*gpu))
                               : OrderedJson("per row: the gpu column")},
        {"gpus", gpu_names},
        {"source", table.table.source},
        {"intervals", intervals.table ? intervals.source : "none: " + intervals.missing},
        {"rows", rows}};
    return json_text(out) + "\n";
  }
  std::vector<std::string> header = table.table.header;
  header.insert(header.end(), added.begin(), added.end());
  if (format == OutputFormat::kTable) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < table.layers.size(); ++i) {
      auto row = table.table.rows[i];
      const auto extra = values(i);
      row.insert(row.end(), extra.begin(), extra.end());
      rows.push_back(std::move(row));
    }
    return format_table(header, rows);
  }
  // Where the numbers came from, and the version of the JSON form, end each CSV row (the
  // table, for a person, leaves them out).
  for (std::string name : {"model", "runtime", "schema_version"}) {
    while (std::find(header.begin(), header.end(), name) != header.end()) {
      name = "predicted_" + name;
    }
    header.push_back(name);
  }
  std::string out = csv_line(header) + "\n";
  const std::string provenance =
      csv_line({model.name(), to_string(run.runtime), std::to_string(kPredictionSchemaVersion)});
  for (std::size_t i = 0; i < table.layers.size(); ++i) {
    auto row = table.table.rows[i];
    const auto extra = values(i);
    row.insert(row.end(), extra.begin(), extra.end());
    out += csv_line(row) + "," + provenance + "\n";
  }
  return out;
}

std::optional<std::string> check_budget(const PredictOptions& options,
                                        const NetworkPrediction& prediction) {
  if (options.max_latency_ms > 0 && prediction.latency_ms > options.max_latency_ms) {
    const double over = prediction.latency_ms - options.max_latency_ms;
    return "latency budget exceeded: predicted " + format_number(prediction.latency_ms, 4) +
           " ms > " + format_number(options.max_latency_ms, 4) + " ms by " +
           format_number(over, 3) + " ms (" +
           format_number(100 * over / options.max_latency_ms, 3) + "%)";
  }
  if (options.max_energy_j > 0 && prediction.energy_j > options.max_energy_j) {
    const double over = prediction.energy_j - options.max_energy_j;
    return "energy budget exceeded: predicted " + format_number(prediction.energy_j, 4) + " J > " +
           format_number(options.max_energy_j, 4) + " J by " + format_number(over, 3) + " J (" +
           format_number(100 * over / options.max_energy_j, 3) + "%)";
  }
  return std::nullopt;
}

int run_predict(const PredictOptions& options) {
  const bool layers_mode = !options.layers_csv.empty();
  check_output_not_input(options.output,
                         {options.net, options.layers_csv, options.gpu, options.model});
  // --layers writes rows for other tools (DESIGN: csv|json); a table only when asked for.
  const OutputFormat format = output_format_from_string(
      options.format.empty() ? (layers_mode ? "csv" : "table") : options.format);
  // 0 is each option's "not given"; a negative value is a mistake to name.
  for (const auto& [flag, value] : {std::pair{"--max-latency-ms", options.max_latency_ms},
                                    std::pair{"--max-energy-j", options.max_energy_j},
                                    std::pair{"--power-limit", options.power_limit_w},
                                    std::pair{"--host-ms-per-op", options.host_ms_per_op}}) {
    if (value < 0 || !std::isfinite(value)) {
      throw InputError(std::string(flag) + ": expected a positive number, got " +
                       format_number(value, 6));
    }
  }
  if (options.batch < 0) {
    throw InputError("--batch: expected a positive integer, got " + std::to_string(options.batch));
  }
  if (options.gpu.empty() && options.layers_csv.empty()) {
    throw InputError("--gpu: required (a GPU name, alias or JSON file)");
  }
  std::optional<GpuSpec> net_gpu;
  if (options.layers_csv.empty()) net_gpu = GpuDatabase::bundled().resolve(options.gpu);
  if (!options.layers_csv.empty()) {
    if (!options.net.empty()) {
      throw InputError("--layers and --net: expected one of them, not both");
    }
    if (options.power_limit_w > 0) {
      // A cap acts on a whole step's average power; single rows have no step to share it.
      throw InputError("--power-limit: applies to --net predictions, not to --layers rows");
    }
    if (options.num_gpus != 1) {
      throw InputError("--num-gpus: applies to --net predictions, not to --layers rows");
    }
    // Each row carries its own sizes and pass; network options would be silently ignored.
    for (const auto& [flag, given] : {std::pair{"--max-latency-ms", options.max_latency_ms > 0},
                                      std::pair{"--max-energy-j", options.max_energy_j > 0},
                                      std::pair{"--batch", options.batch > 0},
                                      std::pair{"--input-size", !options.input_size.empty()},
                                      std::pair{"--precision", !options.precision.empty()},
                                      std::pair{"--mode", options.mode != "inference"},
                                      std::pair{"--host-ms-per-op", options.host_ms_per_op > 0}}) {
      if (given) {
        throw InputError(std::string(flag) +
                         ": applies to --net predictions, not to --layers rows (each row gives "
                         "its own sizes, dtype and pass; a budget applies to a network's step)");
      }
    }
    const LayerTable table = read_layers_csv(options.layers_csv);
    const auto model = select_model(options, nullptr);
    std::optional<GpuSpec> gpu;
    if (!options.gpu.empty()) {
      gpu = GpuDatabase::bundled().resolve(options.gpu);
    } else if (!table.table.column("gpu")) {
      throw InputError("--gpu: required unless " + options.layers_csv + " has a 'gpu' column");
    }
    const LayersRun run{runtime_from_string(options.runtime), options.allow_tf32};
    write_output(options.output,
                 predict_layers_csv_text(table, gpu ? &*gpu : nullptr, *model, run, format));
    return 0;
  }
  const auto model = select_model(options, net_gpu ? &*net_gpu : nullptr);
  NetworkPrediction prediction = predict_for_options(options, *model);
  attach_intervals(prediction, *model, options.host_ms_per_op > 0);
  // No output carries a number that is not one, and no budget gate passes on it.
  for (const auto& [field, value] :
       {std::pair{"latency_ms", prediction.latency_ms},
        std::pair{"kernel_ms", prediction.kernel_ms}, std::pair{"energy_j", prediction.energy_j},
        std::pair{"avg_power_w", prediction.avg_power_w}}) {
    if (!std::isfinite(value)) {
      throw InputError(std::string("predicted ") + field + " is " + format_number(value) +
                       ", not a finite number; expected options within their ranges (see "
                       "--help)");
    }
  }
  // A table on stdout ends with its warnings; saying them on stderr too printed each twice
  // on a terminal. JSON and CSV (and a table written to a file) still say them there.
  const bool table_on_stdout =
      format == OutputFormat::kTable && (options.output.empty() || options.output == "-");
  if (!table_on_stdout) {
    for (const auto& warning : prediction.warnings) spdlog::warn("{}", warning);
  }
  write_output(options.output, format_prediction(prediction, format));
  if (const auto over = check_budget(options, prediction)) {
    throw BudgetExceeded(*over);
  }
  return 0;
}

}  // namespace cnnperf
