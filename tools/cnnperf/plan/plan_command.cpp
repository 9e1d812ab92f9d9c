// SPDX-License-Identifier: Apache-2.0
// `cnnperf plan`: candidate enumeration, prediction and the three printers of the ranking.
#include "plan/plan_command.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/model/zoo_accuracy.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"
#include "commands.hpp"
#include "predict/predict_command.hpp"

namespace cnnperf {

namespace {

constexpr const char* kBundledAccuracy = "models/zoo_accuracy.json";
// Above this many predictions a progress line every tenth keeps the user informed.
constexpr std::size_t kProgressThreshold = 200;
// Prediction warnings repeat across candidates; beyond this many distinct ones, a count.
constexpr std::size_t kMaxPredictionWarnings = 10;

std::vector<std::string> network_names(const PlanOptions& options, const AccuracyTable& table) {
  std::vector<std::string> names;
  if (options.nets.empty()) {
    for (const ZooEntry& entry : zoo_entries()) {
      if (table.find(entry.name) != nullptr) {
        names.push_back(entry.name);
      }
    }
    if (names.empty()) {
      throw InputError("--nets: no zoo network has a published top-1 in " + table.source_path() +
                       "; name the networks with --nets");
    }
    return names;
  }
  for (const std::string& name : cli::split_list(options.nets, "--nets")) {
    const ZooEntry* entry = find_zoo_entry(name);
    if (entry == nullptr) {
      throw InputError("--nets: unknown network '" + name +
                       "'; closest: " + join(closest_zoo_names(name), ", "));
    }
    if (std::find(names.begin(), names.end(), entry->name) == names.end()) {
      names.push_back(entry->name);
    }
  }
  return names;
}

std::vector<GpuSpec> resolve_gpus(const PlanOptions& options) {
  const std::vector<std::string> wanted =
      options.gpus.empty() ? kDefaultPlanGpus : cli::split_list(options.gpus, "--gpus");
  std::vector<GpuSpec> gpus;
  for (const std::string& name : wanted) {
    GpuSpec gpu = GpuDatabase::bundled().resolve(name);
    const bool seen =
        std::any_of(gpus.begin(), gpus.end(), [&](const GpuSpec& g) { return g.name == gpu.name; });
    if (!seen) {
      gpus.push_back(std::move(gpu));
    }
  }
  return gpus;
}

// Repeated list entries ("--batch 1,1", "--power-limits 150,150.0") once each, in order, as
// --gpus lists each GPU once: a duplicate candidate would be ranked twice.
template <typename T>
std::vector<T> first_of_each(const std::vector<T>& items) {
  std::vector<T> out;
  for (const T& item : items) {
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  }
  return out;
}

std::vector<std::optional<double>> power_limits(const std::string& text) {
  std::vector<std::optional<double>> limits;
  for (const std::string& item : cli::split_list(text, "--power-limits")) {
    if (to_lower(item) == "none") {
      limits.emplace_back(std::nullopt);
      continue;
    }
    const double w = parse_number(item, "--power-limits");
    if (w <= 0) {
      throw InputError("--power-limits: got '" + item + "'; expected watts > 0 or 'none'");
    }
    limits.emplace_back(w);
  }
  return first_of_each(limits);
}

std::optional<double> positive_or_none(double value, const std::string& flag) {
  if (!(value >= 0) || !std::isfinite(value)) {  // NaN compared false: it meant "none"
    throw InputError(flag + ": got " + format_number(value, 6) + "; expected a positive number");
  }
  return value > 0 ? std::optional<double>(value) : std::nullopt;
}

PlanCandidate candidate_from(const NetworkPrediction& p, const std::string& network,
                             const std::optional<double>& limit_w,
                             const PublishedAccuracy* accuracy) {
  PlanCandidate c;
  c.network = network;
  c.gpu = p.gpu.name;
  c.batch = p.batch;
  c.precision = to_string(p.precision);
  c.power_limit_w = limit_w;
  c.latency_ms = p.latency_ms;
  c.energy_j = p.energy_j;
  c.avg_power_w = p.avg_power_w;
  c.min_memory_gb = p.min_memory_gb;
  c.gpu_memory_gb = p.gpu.memory_gb;
  if (accuracy != nullptr) {
    c.top1_percent = accuracy->top1_percent;
  }
  return c;
}

std::string optional_text(const std::optional<double>& v, int digits) {
  return v ? format_number(*v, digits) : "-";
}

std::size_t shown_count(const PlanResult& result, int top) {
  return top > 0 ? std::min(result.ranked.size(), static_cast<std::size_t>(top))
                 : result.ranked.size();
}

std::string weights_text(const SocWeights& w) {
  return "latency " + format_number(w.latency, 3) + ", energy " + format_number(w.energy, 3) +
         ", accuracy " + format_number(w.accuracy, 3);
}

std::string latency_text(const SocSettings& s) {
  switch (s.latency_shape) {
    case LatencyShape::kDeadline:
      return "hard deadline " + format_number(s.latency_target_ms, 4) + " ms";
    case LatencyShape::kSoftTarget:
      return "soft target " + format_number(s.latency_target_ms, 4) + " ms";
    case LatencyShape::kThroughput: return "time per image relative to the candidates";
  }
  return "";
}

std::string render_json(const PlanResult& r, int top) {
  return json_text(to_json(first_candidates(r, static_cast<std::size_t>(top)))) + "\n";
}

std::string render_csv(const PlanResult& r, int top) {
  const SocSettings& s = r.settings;
  std::string out = csv_line({"rank",          "network",           "gpu",
                              "batch",         "precision",         "power_limit_w",
                              "latency_ms",    "energy_j",          "energy_per_image_j",
                              "avg_power_w",   "top1_percent",      "term_latency",
                              "term_energy",   "term_accuracy",     "weight_latency",
                              "weight_energy", "weight_accuracy",   "score",
                              "feasible",      "infeasible_reason", "profile",
                              "latency_model", "power_model",       "schema_version"}) +
                    "\n";
  auto num = [](const std::optional<double>& v) { return v ? format_number(*v, 8) : ""; };
  for (std::size_t i = 0; i < shown_count(r, top); ++i) {
    const ScoredCandidate& sc = r.ranked[i];
    const PlanCandidate& c = sc.candidate;
    out += csv_line({std::to_string(sc.rank),
                     c.network,
                     c.gpu,
                     std::to_string(c.batch),
                     c.precision,
                     num(c.power_limit_w),
                     format_number(c.latency_ms, 8),
                     format_number(c.energy_j, 8),
                     format_number(sc.energy_per_image_j, 8),
                     format_number(c.avg_power_w, 8),
                     num(c.top1_percent),
                     num(sc.terms.latency),
                     num(sc.terms.energy),
                     num(sc.terms.accuracy),
                     format_number(s.weights.latency, 6),
                     format_number(s.weights.energy, 6),
                     format_number(s.weights.accuracy, 6),
                     num(sc.score),
                     sc.feasible ? "true" : "false",
                     sc.infeasible_reason,
                     to_string(s.profile),
                     r.latency_model,
                     r.power_model,
                     std::to_string(kPlanSchemaVersion)}) +
           "\n";
  }
  return out;
}

std::string render_table(const PlanResult& r, int top) {
  const SocSettings& s = r.settings;
  const SocTolerances& t = s.tolerances;
  std::string out = "plan: profile " + to_string(s.profile) + ", latency: " + latency_text(s) +
                    "; weights " + weights_text(s.weights) + "\n";
  auto limit = [](const std::optional<double>& v, const char* unit) {
    return v ? format_number(*v, 5) + unit : std::string("none");
  };
  out += "tolerances: max latency " + limit(t.max_latency_ms, " ms") + ", max energy " +
         limit(t.max_energy_per_image_j, " J/image") + ", min top-1 " +
         limit(t.min_top1_percent, " %") + "; " + r.mode + "; latency model " + r.latency_model +
         "; power model " + r.power_model + "\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < shown_count(r, top); ++i) {
    const ScoredCandidate& sc = r.ranked[i];
    const PlanCandidate& c = sc.candidate;
    rows.push_back({std::to_string(sc.rank), c.network, c.gpu, std::to_string(c.batch), c.precision,
                    c.power_limit_w ? format_number(*c.power_limit_w, 4) : "none",
                    format_number(c.latency_ms, 4), format_number(c.energy_j, 4),
                    format_number(sc.energy_per_image_j, 4), optional_text(c.top1_percent, 5),
                    optional_text(sc.terms.latency, 3), optional_text(sc.terms.energy, 3),
                    optional_text(sc.terms.accuracy, 3), optional_text(sc.score, 3),
                    sc.feasible ? "" : "infeasible: " + sc.infeasible_reason});
  }
  out += format_table(
      {"rank", "network", "gpu", "batch", "precision", "power_limit_w", "latency_ms", "energy_j",
       "energy_per_image_j", "top1", "s_latency", "s_energy", "s_accuracy", "score", "note"},
      rows);
  const auto feasible = std::count_if(r.ranked.begin(), r.ranked.end(),
                                      [](const ScoredCandidate& c) { return c.feasible; });
  out += std::to_string(r.ranked.size()) + " candidates: " + std::to_string(feasible) +
         " feasible, " + std::to_string(r.ranked.size() - static_cast<std::size_t>(feasible)) +
         " infeasible; " + std::to_string(shown_count(r, top)) + " shown" +
         (shown_count(r, top) < r.ranked.size() ? " (--top 0 shows all)" : "") + ".\n";
  out +=
      "latency_ms and energy_j are per batch; energy_per_image_j = energy_j / batch. "
      "score = sum of weight x s_term, each s in [0, 1] (" +
      std::string(kPlanMethod) + ").\n";
  return out;
}

// The candidates of one prediction, one per power limit of the list; a limit that cannot run
// anything or that repeats the uncapped candidate is skipped with a warning.
void add_limit_candidates(const NetworkPrediction& base, const std::string& net, const GpuSpec& gpu,
                          const std::vector<std::optional<double>>& limits, bool uncapped_listed,
                          const PublishedAccuracy* accuracy, const PowerModel& power,
                          std::vector<PlanCandidate>& candidates,
                          const std::function<void(const std::string&)>& warn_once) {
  // A limit at or above the board power does not bind: the first such one stands
  // for the uncapped candidate when `none` is not listed.
  std::optional<double> not_binding;
  for (const auto& limit : limits) {
    if (!limit) {
      candidates.push_back(candidate_from(base, net, limit, accuracy));
      continue;
    }
    // A cap at or below idle power cannot run anything (apply_power_limit refuses
    // it); the other caps of the list still make sense, so skip rather than fail.
    if (*limit <= gpu.idle_power_w) {
      warn_once("power limit " + format_number(*limit, 4) + " W skipped on " + gpu.name +
                ": not above its idle power " + format_number(gpu.idle_power_w, 4) + " W");
      continue;
    }
    // A cap at or above the board power is the uncapped candidate again (GPUs ship
    // with their limit at tdp_w); listing it twice would only tie with itself.
    if (*limit >= gpu.tdp_w && (uncapped_listed || not_binding)) {
      warn_once(
          "power limit " + format_number(*limit, 4) + " W skipped on " + gpu.name +
          ": not below its board power " + format_number(gpu.tdp_w, 4) + " W (same as " +
          (uncapped_listed ? std::string("uncapped") : format_number(*not_binding, 4) + " W") +
          ")");
      continue;
    }
    if (*limit >= gpu.tdp_w) not_binding = limit;
    NetworkPrediction capped = base;
    apply_power_limit(capped, *limit, power);
    candidates.push_back(candidate_from(capped, net, limit, accuracy));
  }
}

}  // namespace

PlanResult plan_for_options(const PlanOptions& options) {
  // Validate every option before the first prediction, so a typo fails fast.
  const TaskProfile profile = task_profile_from_string(options.profile);
  std::optional<SocWeights> weights;
  if (!options.weights.empty()) {
    weights = parse_soc_weights(options.weights);
  }
  SocTolerances tolerances;
  tolerances.max_latency_ms = positive_or_none(options.max_latency_ms, "--max-latency-ms");
  tolerances.max_energy_per_image_j = positive_or_none(options.max_energy_j, "--max-energy-j");
  tolerances.min_top1_percent = positive_or_none(options.min_top1, "--min-top1");
  PlanResult result;
  result.settings = make_soc_settings(profile, weights, tolerances);
  const Mode mode = mode_from_string(options.mode);
  result.mode = to_string(mode);
  if (options.top < 0) {
    throw InputError("--top: got " + std::to_string(options.top) + "; expected 0 (all) or more");
  }
  (void)output_format_from_string(options.format);
  if (options.host_ms_per_op < 0) {
    throw InputError("--host-ms-per-op: expected a positive number of ms");
  }

  const AccuracyTable table = options.accuracy.empty()
                                  ? AccuracyTable::bundled()
                                  : AccuracyTable::load(user_file_or_resource(options.accuracy));
  // The bundled table is named as shipped, not by this machine's absolute path.
  result.accuracy_source =
      options.accuracy.empty() ? std::string(kBundledAccuracy) : table.source_path();
  const std::vector<std::string> nets = network_names(options, table);
  const std::vector<GpuSpec> gpus = resolve_gpus(options);
  for (const GpuSpec& gpu : gpus) {
    result.gpus.push_back(gpu.name);
  }
  std::vector<std::int64_t> batches;
  for (const std::string& b : cli::split_list(options.batch, "--batch")) {
    batches.push_back(parse_positive_int(b, "--batch"));
  }
  batches = first_of_each(batches);
  std::vector<DType> precisions;
  for (const std::string& p : cli::split_list(options.precision, "--precision")) {
    precisions.push_back(dtype_from_option(p, "precision"));
  }
  precisions = first_of_each(precisions);
  const std::vector<std::optional<double>> limits = power_limits(options.power_limits);
  const bool uncapped_listed =
      std::any_of(limits.begin(), limits.end(), [](const auto& l) { return !l.has_value(); });

  PredictOptions model_options;
  model_options.model = options.model;
  model_options.analytical = options.analytical;
  const auto model = select_model(model_options);
  result.latency_model = model->name();
  const PowerModel& power = PowerModel::bundled();
  result.power_model = power.source;

  std::vector<std::string> warnings;
  auto warn_once = [&warnings](const std::string& text) {
    if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) {
      warnings.push_back(text);
    }
  };
  std::vector<std::string> prediction_warnings;
  std::size_t extra_prediction_warnings = 0;

  const std::size_t predictions = nets.size() * batches.size() * precisions.size() * gpus.size();
  const bool progress = predictions > kProgressThreshold;
  if (progress) {
    spdlog::info("plan: predicting {} network/batch/precision/GPU combinations", predictions);
  }
  std::size_t done = 0;
  std::vector<PlanCandidate> candidates;
  std::string unsupported;               // why the first skipped precision could not run on its GPU
  std::set<std::string> predicted_gpus;  // GPUs that ran at least one precision asked
  for (const std::string& net : nets) {
    const PublishedAccuracy* accuracy = table.find(net);
    for (const std::int64_t batch : batches) {
      for (const DType dtype : precisions) {
        NetworkOptions net_options;
        net_options.batch = batch;
        net_options.dtype = dtype;
        Network network = build_zoo_network(net, net_options);
        allow_tf32_convolutions(network, options.allow_tf32);
        for (const GpuSpec& gpu : gpus) {
          // A precision the GPU has no rate for cannot run there; the other GPUs of the list
          // still can, so skip it as a limit below idle power is skipped.
          if (const std::string why = precision_unsupported_reason(gpu, dtype); !why.empty()) {
            warn_once(to_string(dtype) + " skipped on " + gpu.name + ": " + why);
            if (unsupported.empty()) unsupported = why;
            ++done;
            continue;
          }
          NetworkPrediction base = predict_network(network, gpu, *model, mode, power);
          predicted_gpus.insert(gpu.name);
          if (options.host_ms_per_op > 0) {
            set_host_ms_per_op(base, options.host_ms_per_op, power);
          }
          result.power_model = base.power_model;
          for (const auto& w : base.warnings) {
            const std::string text = net + " on " + gpu.name + ": " + w;
            if (prediction_warnings.size() < kMaxPredictionWarnings) {
              prediction_warnings.push_back(text);
            } else {
              ++extra_prediction_warnings;
            }
          }
          add_limit_candidates(base, net, gpu, limits, uncapped_listed, accuracy, power, candidates,
                               warn_once);
          ++done;
          if (progress && done % std::max<std::size_t>(predictions / 10, 1) == 0) {
            spdlog::info("plan: {}/{} predicted", done, predictions);
          }
        }
      }
    }
  }

  PlanScoring scoring = score_candidates(candidates, result.settings);
  result.ranked = std::move(scoring.ranked);
  result.candidates_total = result.ranked.size();
  result.candidates_feasible =
      static_cast<std::size_t>(std::count_if(result.ranked.begin(), result.ranked.end(),
                                             [](const ScoredCandidate& c) { return c.feasible; }));
  for (auto& w : scoring.warnings) {
    warn_once(w);
  }
  for (auto& w : prediction_warnings) {
    warn_once(w);
  }
  if (extra_prediction_warnings > 0) {
    warn_once(std::to_string(extra_prediction_warnings) +
              " more prediction warnings not shown (see `cnnperf predict` for one candidate)");
  }
  if (candidates.empty() && predicted_gpus.empty()) {
    // No GPU of the list has a rate for any precision asked.
    throw InputError(input_message("--precision", "no GPU of the list runs it: " + unsupported,
                                   "a precision the GPUs have a rate for"));
  }
  if (candidates.empty()) {
    // Every limit is at or below the idle power of every GPU that runs a precision asked:
    // nothing could run at all.
    std::vector<std::string> idle;
    idle.reserve(gpus.size());
    for (const GpuSpec& gpu : gpus) {
      if (predicted_gpus.count(gpu.name) == 0) continue;
      idle.push_back(gpu.name + " " + format_number(gpu.idle_power_w, 4) + " W");
    }
    throw InputError(input_message(
        "--power-limits",
        "every limit is at or below the idle power of every GPU" +
            std::string(idle.size() < gpus.size() ? " that runs a precision asked" : "") + " (" +
            join(idle, ", ") + ")",
        "a limit above a GPU's idle power, or none"));
  }
  result.warnings = std::move(warnings);
  return result;
}

std::string format_plan(const PlanResult& result, OutputFormat format, int top) {
  switch (format) {
    case OutputFormat::kJson: return render_json(result, top);
    case OutputFormat::kCsv: return render_csv(result, top);
    case OutputFormat::kTable: return render_table(result, top);
  }
  return render_table(result, top);
}

int run_plan(const PlanOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  check_output_not_input(options.output, {options.model, options.accuracy});
  const PlanResult result = plan_for_options(options);
  for (const auto& warning : result.warnings) {
    spdlog::warn("{}", warning);
  }
  write_output(options.output, format_plan(result, format, options.top));
  // As `predict` does for a budget: the result is written, then exit 3 says that nothing
  // fits, so a script can tell "no deployment meets the tolerances" from success.
  const bool any_feasible = std::any_of(result.ranked.begin(), result.ranked.end(),
                                        [](const ScoredCandidate& c) { return c.feasible; });
  // plan_for_options throws when nothing is ranked; front() below needs a candidate.
  if (!any_feasible && !result.ranked.empty()) {
    throw BudgetExceeded(
        "plan: no candidate is feasible (first: " + result.ranked.front().candidate.network +
        " on " + result.ranked.front().candidate.gpu + ": " +
        result.ranked.front().infeasible_reason + ")");
  }
  return 0;
}

}  // namespace cnnperf
