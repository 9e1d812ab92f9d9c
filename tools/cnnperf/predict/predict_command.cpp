// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict`: network or layer-CSV predictions, budgets for CI.
#include "predict/predict_command.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/stream_io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/runtime_fit.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/predict/sweep.hpp"
#include "cnnperf/predict/trace.hpp"
#include "commands.hpp"

namespace cnnperf {

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
    const std::string where = model.name() + ": metadata.intervals";
    choice.table = interval_table_from_file_json(section, where);
    const auto provenance = section.value("provenance", nlohmann::json::object());
    choice.source = model.name() + " (" + provenance.value("scheme", std::string("cv")) +
                    " residuals of its training";
    choice.unseen_gpu_table = unseen_gpu_table_from_file_json(section, where);
    if (choice.unseen_gpu_table) {
      choice.learned = learned;
      choice.source +=
          "; leave-gpu-out residuals for a GPU it was not fitted on or a layer outside its data";
    }
    choice.source += ")";
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

UnseenGpuIntervals IntervalChoice::unseen_for(const std::vector<Layer>& layers,
                                              const GpuSpec& gpu) const {
  if (!unseen_gpu_table || learned == nullptr) return {};
  return {&*unseen_gpu_table, learned->unseen_gpu_layers(layers, gpu)};
}

namespace {

// --layout: empty leaves each layer's own (the CLI has checked the value).
std::optional<Layout> layout_option(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return layout_from_option(text, "layout");
}

// --runtime-overhead's file, read once (a sweep predicts many steps with it); null for none.
const RuntimeOverheadFile* user_runtime_file(const std::string& path) {
  if (path.empty()) return nullptr;
  static std::map<std::string, RuntimeOverheadFile> read;
  auto it = read.find(path);
  if (it == read.end()) {
    // A bundled file (models/...) is found from any directory, like --model files.
    it = read.emplace(path, load_runtime_overhead_file(user_file_or_resource(path))).first;
  }
  return &it->second;
}

// Every layer's and the step's interval, or why there is none.
void attach_intervals(NetworkPrediction& prediction, const LatencyModel& model,
                      const PredictOptions& options) {
  const bool host_time_given = options.host_ms_per_op > 0;
  const IntervalChoice choice = intervals_for(model);
  if (!choice.table) {
    prediction.interval_note = "none: " + choice.missing;
    return;
  }
  std::optional<RuntimeStepTable> steps;
  if (const RuntimeOverheadFile* file = user_runtime_file(options.runtime_overhead)) {
    steps = RuntimeStepTable{file->runtime, file->step_intervals ? &*file->step_intervals : nullptr,
                             options.runtime_overhead};
  }
  attach_network_intervals(prediction, *choice.table, choice.source,
                           choice.unseen_for(prediction.layers, prediction.gpu),
                           steps ? &*steps : nullptr);
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
  for (const auto& [flag, given] :
       {std::pair{"--eager-overhead", !options.eager_overhead.empty()},
        std::pair{"--runtime-overhead", !options.runtime_overhead.empty()}}) {
    if (given && !options.model.empty()) {
      // A learned model file carries its own overhead; two would leave one silently unused.
      throw InputError(std::string(flag) + " and --model: expected one of them, not both");
    }
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
  std::unique_ptr<AnalyticalModel> model;
  if (!options.eager_overhead.empty()) {
    // The zoo's overhead and kernel model from the file (e.g. calibrated without a held-out
    // GPU); NAS networks keep their own overhead.
    spdlog::info("eager overhead: {} (--eager-overhead)", options.eager_overhead);
    model = std::make_unique<AnalyticalModel>(load_analytical_params(options.eager_overhead),
                                              load_eager_overhead(options.eager_overhead),
                                              bundled_nas_overhead());
    model->set_runtime_overhead_source(bundled_runtime_overhead);
  } else {
    model = bundled_analytical_model();
  }
  if (const RuntimeOverheadFile* file = user_runtime_file(options.runtime_overhead)) {
    // Its runtime's steps only; the other runtimes keep their bundled files.
    spdlog::info("{} overhead: {} (--runtime-overhead)", to_string(file->runtime),
                 options.runtime_overhead);
    model->set_runtime_overhead(file->runtime, file->overhead);
  }
  return model;
}

NetworkPrediction predict_for_options(const PredictOptions& options, const LatencyModel& model) {
  if (options.net.empty()) throw InputError("--net: expected a zoo name, .onnx or .json file");
  const GpuSpec gpu = GpuDatabase::bundled().resolve(options.gpu);
  ImportOptions import;
  import.batch = options.batch > 0 ? options.batch : 1;
  import.batch_given = options.batch > 0;
  // Unset: an ONNX model's input type or a layer list's dtype decides (zoo networks: fp32).
  import.dtype = optional_dtype_from_option(options.precision, "precision");
  const Runtime runtime = runtime_from_string(options.runtime);
  std::string precision_note;
  if (runtime == Runtime::kTensorrt && !import.dtype) {
    // A TensorRT engine is built at the precision asked for; MLPerf's are INT8.
    import.dtype = tensorrt_precision(gpu);
    if (*import.dtype != DType::kInt8) {
      precision_note = "tensorrt: " + gpu.name +
                       " has no INT8 tensor-core rate (tensor_int8_tops 0); priced at fp16 "
                       "(--precision to choose)";
    }
  }
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
  if (runtime != Runtime::kPytorch && (options.num_gpus != 1 || options.host_ms_per_op > 0)) {
    // Both are terms of PyTorch's step (nn.DataParallel, the host's issue time per op).
    throw InputError(std::string(options.num_gpus != 1 ? "--num-gpus" : "--host-ms-per-op") +
                     ": applies to --runtime pytorch, not to --runtime " + options.runtime);
  }
  apply_runtime_math(imported.network.layers, runtime, options.allow_tf32,
                     layout_option(options.layout));
  const PowerModel& power = PowerModel::bundled();
  NetworkPrediction result =
      predict_network(imported.network, gpu, model, mode_from_string(options.mode), power, runtime);
  if (options.host_ms_per_op > 0) set_host_ms_per_op(result, options.host_ms_per_op, power);
  if (options.input_on_gpu) set_input_on_gpu(result, power);
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
  if (!precision_note.empty()) result.warnings.push_back(precision_note);
  result.skipped_nodes = imported.skipped;
  for (const auto& skipped : imported.skipped) {
    result.warnings.push_back("node '" + skipped.name + "' (" + skipped.op_type +
                              ") not predicted: " + skipped.reason);
  }
  for (const auto& warning : imported.warnings) result.warnings.push_back(warning);
  return result;
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

namespace {

// One network prediction as `predict --net` prints it: intervals attached, every figure finite.
NetworkPrediction checked_prediction(const PredictOptions& options, const LatencyModel& model) {
  NetworkPrediction prediction = predict_for_options(options, model);
  attach_intervals(prediction, model, options);
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
  return prediction;
}

// A table on stdout ends with its warnings; saying them on stderr too printed each twice on a
// terminal. JSON and CSV (and a table written to a file) still say them there.
bool table_on_stdout(const PredictOptions& options, OutputFormat format) {
  return format == OutputFormat::kTable && (options.output.empty() || options.output == "-");
}

// The GPUs of a sweep: its list, each resolved once (two names of one entry are refused), else
// the single --gpu (a name or a spec file).
std::vector<GpuSpec> sweep_gpus(const PredictOptions& options, const PredictSweep& sweep) {
  const GpuDatabase& database = GpuDatabase::bundled();
  if (sweep.gpus.empty()) return {database.resolve(options.gpu)};
  std::vector<GpuSpec> gpus;
  for (const std::string& name : sweep.gpus) {
    GpuSpec gpu;
    try {
      gpu = database.resolve(name);
    } catch (const ParameterError& e) {
      throw InputError("--gpu: " + e.detail());
    } catch (const InputError& e) {
      throw InputError(std::string("--gpu: ") + e.what());
    }
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (gpus[i].name == gpu.name) {
        throw InputError("--gpu: '" + sweep.gpus[i] + "' and '" + name + "' are one GPU (" +
                         gpu.name + "); expected each GPU once");
      }
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

// A list as the sweep loops run it: its entries as option text, else the single option's
// (PredictOptions holds precision and runtime as text).
template <typename T, typename Text>
std::vector<std::string> entries_or(const std::vector<T>& list, const std::string& single,
                                    Text text) {
  if (list.empty()) return {single};
  std::vector<std::string> out;
  out.reserve(list.size());
  for (const T& entry : list) out.push_back(text(entry));
  return out;
}

// One row per combination of the lists, each the single prediction of its options; the
// budgets apply to every row, and the rows over one are named in the output and the error.
int run_sweep(const PredictOptions& options, const PredictSweep& sweep, OutputFormat format) {
  const std::vector<GpuSpec> gpus = sweep_gpus(options, sweep);
  const auto precisions =
      entries_or(sweep.precisions, options.precision, [](DType d) { return to_string(d); });
  const auto runtimes =
      entries_or(sweep.runtimes, options.runtime, [](Runtime r) { return to_string(r); });
  const std::vector<std::int64_t> batches =
      sweep.batches.empty() ? std::vector<std::int64_t>{options.batch} : sweep.batches;
  const std::size_t count = gpus.size() * precisions.size() * runtimes.size() * batches.size();
  if (count > kMaxSweepPredictions) {
    throw InputError("--gpu, --precision, --runtime, --batch: " + std::to_string(count) +
                     " combinations; expected at most " + std::to_string(kMaxSweepPredictions) +
                     " in one call");
  }
  PredictionSweep result;
  result.gpus = gpus;
  // A learned model file serves the GPU it is loaded for (select_model), so one per GPU.
  std::unique_ptr<LatencyModel> shared;
  if (options.model.empty()) shared = select_model(options, nullptr);
  std::vector<std::string> over;
  std::vector<std::string> without_interval;
  std::string first_note;
  for (const GpuSpec& gpu : gpus) {
    const auto own = options.model.empty() ? nullptr : select_model(options, &gpu);
    const LatencyModel& model = own ? *own : *shared;
    for (const auto& precision : precisions) {
      for (const auto& runtime : runtimes) {
        for (const std::int64_t batch : batches) {
          PredictOptions one = options;
          if (!sweep.gpus.empty()) one.gpu = gpu.name;
          one.precision = precision;
          one.runtime = runtime;
          one.batch = batch;
          // The command line of the single prediction, for an error to name it by.
          const std::string combination =
              "--gpu " + gpu.name + (precision.empty() ? "" : " --precision " + precision) +
              " --runtime " + runtime + (batch > 0 ? " --batch " + std::to_string(batch) : "");
          NetworkPrediction prediction;
          try {
            prediction = checked_prediction(one, model);
          } catch (const ParameterError& e) {
            throw InputError(combination + ": " + cli::option_for_parameter(e.parameter()) + ": " +
                             e.detail());
          } catch (const InputError& e) {
            throw InputError(combination + ": " + e.what());
          }
          if (result.rows.empty()) {
            result.network = prediction.network;
            result.network_source = prediction.network_source;
            result.mode = prediction.mode;
            result.power_model = prediction.power_model;
            result.interval_source = prediction.interval_source;
          }
          if (!prediction.latency_interval) {
            // The rows' figure is the step's: say which rows have none, and why for the first.
            without_interval.push_back(std::to_string(result.rows.size() + 1));
            if (without_interval.size() == 1) first_note = prediction.interval_note;
          }
          PredictionSweepRow row = sweep_row(prediction);
          if (const auto message = check_budget(one, prediction)) {
            row.over_budget = *message;
            over.push_back("[row " + std::to_string(result.rows.size() + 1) + ", " +
                           row_label(row) + "] " + *message);
          }
          result.rows.push_back(std::move(row));
        }
      }
    }
  }
  if (!without_interval.empty()) {
    result.interval_note = "no step interval in row" +
                           std::string(without_interval.size() == 1 ? " " : "s ") +
                           join(without_interval, ", ") + " (first: " + first_note + ")";
  }
  if (!table_on_stdout(options, format)) {
    for (const auto& warning : sweep_warnings(result)) spdlog::warn("{}", warning);
  }
  write_output(options.output, format_prediction_sweep(result, format));
  if (!over.empty()) {
    throw BudgetExceeded(std::to_string(over.size()) + " of " + std::to_string(result.rows.size()) +
                         " rows over budget: " + join(over, "; "));
  }
  return 0;
}

}  // namespace

int run_predict(const PredictOptions& options, const PredictSweep& sweep) {
  const bool from_mode = !options.from_csv.empty();
  if (from_mode && (!options.net.empty() || !options.layers_csv.empty())) {
    throw InputError(std::string(options.net.empty() ? "--layers" : "--net") +
                     " and --from: expected one of them, not both");
  }
  // --from's rows go the way of --layers' rows, with their measurements carried to --gpu.
  const std::string& rows_csv = from_mode ? options.from_csv : options.layers_csv;
  const std::string rows_flag = from_mode ? "--from" : "--layers";
  const bool layers_mode = !rows_csv.empty();
  for (const std::string& out : {options.output, options.trace}) {
    check_output_not_input(out, {options.net, rows_csv, options.gpu, options.model,
                                 options.eager_overhead, options.runtime_overhead});
  }
  if (const RuntimeOverheadFile* file = user_runtime_file(options.runtime_overhead)) {
    // A file of a runtime not predicted would go unread without a word.
    const std::string runtime = to_string(file->runtime);
    const bool predicted = sweep.runtimes.empty()
                               ? options.runtime == runtime
                               : std::find(sweep.runtimes.begin(), sweep.runtimes.end(),
                                           file->runtime) != sweep.runtimes.end();
    if (!predicted) {
      throw InputError("--runtime-overhead: " + options.runtime_overhead + " is a " + runtime +
                       " overhead; expected --runtime " + runtime +
                       " (or a --runtime list with it)");
    }
  }
  if (!options.trace.empty() && (options.trace == "-" || layers_mode)) {
    throw InputError("--trace: expected a file name, with --net (a trace is of a network's step)");
  }
  if (!options.trace.empty() && !options.output.empty() &&
      std::filesystem::weakly_canonical(options.trace) ==
          std::filesystem::weakly_canonical(options.output)) {
    throw InputError("--trace and --output: expected two different files, got " + options.trace);
  }
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
  if (options.gpu.empty() && sweep.gpus.empty() && (!layers_mode || from_mode)) {
    throw InputError(std::string("--gpu: required (a GPU name, alias or JSON file") +
                     (from_mode ? ": the GPU --from's rows are predicted on)" : ")"));
  }
  if (layers_mode) {
    if (!options.net.empty()) {
      throw InputError("--layers and --net: expected one of them, not both");
    }
    if (options.power_limit_w > 0) {
      // A cap acts on a whole step's average power; single rows have no step to share it.
      throw InputError("--power-limit: applies to --net predictions, not to " + rows_flag +
                       " rows");
    }
    if (options.num_gpus != 1) {
      throw InputError("--num-gpus: applies to --net predictions, not to " + rows_flag + " rows");
    }
    // Each row carries its own sizes and pass; network options would be silently ignored.
    for (const auto& [flag, given] :
         {std::pair{"--max-latency-ms", options.max_latency_ms > 0},
          std::pair{"--max-energy-j", options.max_energy_j > 0},
          std::pair{"--batch", options.batch > 0 || !sweep.batches.empty()},
          std::pair{"--input-size", !options.input_size.empty()},
          std::pair{"--precision", !options.precision.empty() || !sweep.precisions.empty()},
          std::pair{"--mode", options.mode != "inference"},
          std::pair{"--host-ms-per-op", options.host_ms_per_op > 0},
          std::pair{"--input-on-gpu", options.input_on_gpu}}) {
      if (given) {
        throw InputError(std::string(flag) + ": applies to --net predictions, not to " + rows_flag +
                         " rows (each row gives its own sizes, dtype and pass; a budget applies "
                         "to a network's step)");
      }
    }
    // One table of rows: a list of GPUs or runtimes would need one per entry.
    for (const auto& [flag, listed] : {std::pair{"--gpu", !sweep.gpus.empty()},
                                       std::pair{"--runtime", !sweep.runtimes.empty()}}) {
      if (listed) {
        throw InputError(std::string(flag) + ": a list applies to --net predictions, not to " +
                         rows_flag +
                         " rows; expected one value (a gpu column in the --layers CSV puts each "
                         "row on its own GPU)");
      }
    }
    const auto model = select_model(options, nullptr);
    std::optional<GpuSpec> gpu;
    if (!options.gpu.empty()) gpu = GpuDatabase::bundled().resolve(options.gpu);
    const LayersRun run{runtime_from_string(options.runtime), options.allow_tf32,
                        layout_option(options.layout)};
    OutputWriter out(options.output);
    const auto write = [&out](std::string_view text) { out.write(text); };
    if (from_mode) {
      write_transfer_predictions(rows_csv, *gpu, *model, run, format, write);
    } else {
      write_layer_predictions(rows_csv, gpu ? &*gpu : nullptr, *model, run, format, write);
    }
    out.commit();
    return 0;
  }
  if (!sweep.empty() && !options.trace.empty()) {
    throw InputError(
        "--trace: a trace is of one prediction; expected one value each of --gpu, --batch, "
        "--precision and --runtime, not a list");
  }
  if (!sweep.empty()) return run_sweep(options, sweep, format);
  const GpuSpec net_gpu = GpuDatabase::bundled().resolve(options.gpu);
  const auto model = select_model(options, &net_gpu);
  const NetworkPrediction prediction = checked_prediction(options, *model);
  if (!table_on_stdout(options, format)) {
    for (const auto& warning : prediction.warnings) spdlog::warn("{}", warning);
  }
  write_output(options.output, format_prediction(prediction, format));
  if (!options.trace.empty()) write_output(options.trace, to_trace_json(prediction).dump(1) + "\n");
  if (const auto over = check_budget(options, prediction)) {
    throw BudgetExceeded(*over);
  }
  return 0;
}

}  // namespace cnnperf
