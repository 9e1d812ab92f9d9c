// SPDX-License-Identifier: Apache-2.0
// User-satisfaction (SoC) scoring of predicted deployment choices for `cnnperf plan`.
#include "cnnperf/predict/plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_get.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

namespace {

constexpr const char* kWeightsExpected =
    "latency=W,energy=W,accuracy=W with each W a number >= 0, not all 0";

/// Range of a quantity over the feasible candidates.
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  [[nodiscard]] bool empty() const { return lo > hi; }
};

/// 1 at the best (lowest) value, 0 at the worst, on a log scale: latency and energy span
/// orders of magnitude across networks and GPUs, and a ratio is what a user perceives.
double lower_is_better_log(double value, const Range& range) {
  if (range.empty() || range.hi <= range.lo || range.lo <= 0 || value <= 0) {
    return 1.0;
  }
  const double s = std::log(range.hi / value) / std::log(range.hi / range.lo);
  return std::clamp(s, 0.0, 1.0);
}

/// 1 at the highest value, 0 at the lowest, linear (top-1 points are already comparable).
double higher_is_better_linear(double value, const Range& range) {
  if (range.empty() || range.hi <= range.lo) {
    return 1.0;
  }
  return std::clamp((value - range.lo) / (range.hi - range.lo), 0.0, 1.0);
}

std::string ms_text(double v) {
  return format_number(v, 4) + " ms";
}

}  // namespace

std::string to_string(TaskProfile profile) {
  switch (profile) {
    case TaskProfile::kRealtime: return "realtime";
    case TaskProfile::kInteractive: return "interactive";
    case TaskProfile::kBackground: return "background";
  }
  return "interactive";
}

TaskProfile task_profile_from_string(std::string_view text) {
  const std::string t = to_lower(trim(text));
  if (t == "realtime") {
    return TaskProfile::kRealtime;
  }
  if (t == "interactive") {
    return TaskProfile::kInteractive;
  }
  if (t == "background") {
    return TaskProfile::kBackground;
  }
  throw ParameterError(
      "profile", "got '" + std::string(text) + "'; expected realtime, interactive or background");
}

std::string to_string(LatencyShape shape) {
  switch (shape) {
    case LatencyShape::kDeadline: return "deadline";
    case LatencyShape::kSoftTarget: return "soft_target";
    case LatencyShape::kThroughput: return "throughput";
  }
  return "soft_target";
}

LatencyShape latency_shape_from_string(std::string_view text) {
  for (const LatencyShape shape :
       {LatencyShape::kDeadline, LatencyShape::kSoftTarget, LatencyShape::kThroughput}) {
    if (text == to_string(shape)) return shape;
  }
  throw InputError("latency_shape: got '" + std::string(text) +
                   "'; expected deadline, soft_target or throughput");
}

SocWeights parse_soc_weights(std::string_view text) {
  SocWeights w;
  std::set<std::string> seen;
  std::size_t start = 0;
  bool any = false;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string part =
        trim(text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (part.empty()) {
      throw ParameterError(
          "weights", "empty entry in '" + std::string(text) + "'; expected " + kWeightsExpected);
    }
    const auto eq = part.find('=');
    if (eq == std::string::npos) {
      throw ParameterError("weights", "'" + part + "' has no '='; expected " + kWeightsExpected);
    }
    const std::string key = to_lower(trim(part.substr(0, eq)));
    const std::string value = trim(part.substr(eq + 1));
    double* slot = nullptr;
    if (key == "latency") {
      slot = &w.latency;
    }
    if (key == "energy") {
      slot = &w.energy;
    }
    if (key == "accuracy") {
      slot = &w.accuracy;
    }
    if (slot == nullptr) {
      throw ParameterError("weights", "unknown term '" + key + "'; expected " + kWeightsExpected);
    }
    if (!seen.insert(key).second) {
      throw ParameterError("weights", "'" + key + "' given twice; expected " + kWeightsExpected);
    }
    double v = 0;
    try {
      v = parse_number(value, key);
    } catch (const InputError& e) {
      throw ParameterError("weights", e.what());
    }
    if (v < 0) {
      throw ParameterError("weights",
                           key + "=" + value + " is negative; expected " + kWeightsExpected);
    }
    *slot = v;
    any = true;
  }
  const double sum = w.latency + w.energy + w.accuracy;
  if (!any || sum <= 0) {
    throw ParameterError("weights", "all weights are 0; expected " + std::string(kWeightsExpected));
  }
  return {w.latency / sum, w.energy / sum, w.accuracy / sum};
}

const ProfileDefaults& profile_defaults(TaskProfile profile) {
  // Weights and targets are cnnperf's choices (P-CNN names the task types but its values
  // could not be read); docs/methodology.md says so and gives the reasoning.
  static const ProfileDefaults realtime{TaskProfile::kRealtime,
                                        {0.4, 0.3, 0.3},
                                        LatencyShape::kDeadline,
                                        1000.0 / 30.0,
                                        "one frame period of 30 frames/s video (1000/30 ms)"};
  static const ProfileDefaults interactive{
      TaskProfile::kInteractive,
      {0.5, 0.1, 0.4},
      LatencyShape::kSoftTarget,
      100.0,
      "Nielsen, Usability Engineering (1993), ch. 5: 0.1 s is about the limit for a "
      "response to feel instantaneous"};
  static const ProfileDefaults background{TaskProfile::kBackground,
                                          {0.2, 0.5, 0.3},
                                          LatencyShape::kThroughput,
                                          0.0,
                                          "no deadline: time per image relative to the candidates"};
  switch (profile) {
    case TaskProfile::kRealtime: return realtime;
    case TaskProfile::kInteractive: return interactive;
    case TaskProfile::kBackground: return background;
  }
  return interactive;
}

SocSettings make_soc_settings(TaskProfile profile, const std::optional<SocWeights>& weights,
                              const SocTolerances& tolerances) {
  auto check_positive = [](const std::optional<double>& v, const char* parameter) {
    if (v && !(std::isfinite(*v) && *v > 0)) {
      throw ParameterError(parameter,
                           "got " + format_number(*v, 6) + "; expected a positive number");
    }
  };
  check_positive(tolerances.max_latency_ms, "max_latency_ms");
  check_positive(tolerances.max_energy_per_image_j, "max_energy_per_image_j");
  check_positive(tolerances.min_top1_percent, "min_top1_percent");
  if (tolerances.min_top1_percent && *tolerances.min_top1_percent > 100) {
    throw ParameterError("min_top1_percent", "got " +
                                                 format_number(*tolerances.min_top1_percent, 6) +
                                                 "; expected a percentage in (0, 100]");
  }
  const ProfileDefaults& defaults = profile_defaults(profile);
  SocSettings s;
  s.profile = profile;
  s.latency_shape = defaults.latency_shape;
  s.latency_target_ms = defaults.latency_target_ms;
  s.tolerances = tolerances;
  if (tolerances.max_latency_ms) {
    if (s.latency_shape == LatencyShape::kDeadline) {
      s.latency_target_ms = *tolerances.max_latency_ms;
    } else if (s.latency_shape == LatencyShape::kSoftTarget) {
      s.latency_target_ms = std::min(s.latency_target_ms, *tolerances.max_latency_ms);
    }
  }
  SocWeights w = weights.value_or(defaults.weights);
  const double sum = w.latency + w.energy + w.accuracy;
  if (!(sum > 0) || w.latency < 0 || w.energy < 0 || w.accuracy < 0) {
    throw ParameterError("weights", "expected " + std::string(kWeightsExpected));
  }
  s.weights = {w.latency / sum, w.energy / sum, w.accuracy / sum};
  return s;
}

PlanScoring score_candidates(const std::vector<PlanCandidate>& candidates,
                             const SocSettings& settings) {
  PlanScoring out;
  const SocTolerances& tol = settings.tolerances;
  const bool accuracy_matters = settings.weights.accuracy > 0 || tol.min_top1_percent;
  // The hard latency limit: the real-time deadline, else the user's tolerance.
  std::optional<double> latency_limit = tol.max_latency_ms;
  if (settings.latency_shape == LatencyShape::kDeadline && settings.latency_target_ms > 0) {
    latency_limit = settings.latency_target_ms;
  }

  std::set<std::string> unknown_accuracy;
  out.ranked.reserve(candidates.size());
  for (const PlanCandidate& c : candidates) {
    ScoredCandidate s;
    s.candidate = c;
    s.energy_per_image_j = c.batch > 0 ? c.energy_j / static_cast<double>(c.batch) : c.energy_j;
    std::vector<std::string> reasons;
    if (accuracy_matters && !c.top1_percent) {
      reasons.emplace_back("no published top-1 accuracy");
      unknown_accuracy.insert(c.network);
    }
    if (tol.min_top1_percent && c.top1_percent && *c.top1_percent < *tol.min_top1_percent) {
      reasons.push_back("top-1 " + format_number(*c.top1_percent, 5) + "% < min " +
                        format_number(*tol.min_top1_percent, 5) + "%");
    }
    if (latency_limit && c.latency_ms > *latency_limit) {
      reasons.push_back("latency " + ms_text(c.latency_ms) + " > " +
                        (settings.latency_shape == LatencyShape::kDeadline ? "deadline " : "max ") +
                        ms_text(*latency_limit));
    }
    if (tol.max_energy_per_image_j && s.energy_per_image_j > *tol.max_energy_per_image_j) {
      reasons.push_back("energy " + format_number(s.energy_per_image_j, 4) + " J/image > max " +
                        format_number(*tol.max_energy_per_image_j, 4) + " J/image");
    }
    // A cap below what the lowest clock draws is predicted at that clock (predict warns): the
    // candidate then draws more than the cap it stands for, which a user planning under that
    // cap cannot take. The margin absorbs the clock bisection's tolerance.
    if (c.power_limit_w && c.avg_power_w > *c.power_limit_w * (1 + 1e-3)) {
      reasons.push_back("draws " + format_number(c.avg_power_w, 4) +
                        " W even at the lowest clock, over its " +
                        format_number(*c.power_limit_w, 4) + " W cap");
    }
    // As predict's warning: only a step that surely cannot fit is dropped.
    if (exceeds_gpu_memory(c.min_memory_gb, c.gpu_memory_gb)) {
      reasons.push_back("needs at least " + format_number(c.min_memory_gb, 3) +
                        " GB, more than the GPU's " + format_number(c.gpu_memory_gb, 3) + " GB (" +
                        format_number(c.gpu_memory_gb * kGbPerGib, 3) + " GB if GiB)");
    }
    s.feasible = reasons.empty();
    for (std::size_t i = 0; i < reasons.size(); ++i) {
      s.infeasible_reason += (i ? "; " : "") + reasons[i];
    }
    out.ranked.push_back(std::move(s));
  }

  // Normalization bounds come from the feasible candidates only: an infeasible extreme must
  // not compress the scale of the choices the user can actually take. With none feasible,
  // all candidates set the bounds, so the terms shown still say something.
  const bool any_feasible = std::any_of(out.ranked.begin(), out.ranked.end(),
                                        [](const ScoredCandidate& s) { return s.feasible; });
  Range energy;
  Range time_per_image;
  Range top1;
  for (const auto& s : out.ranked) {
    if (any_feasible && !s.feasible) {
      continue;
    }
    energy.add(s.energy_per_image_j);
    time_per_image.add(s.candidate.latency_ms /
                       static_cast<double>(std::max<std::int64_t>(s.candidate.batch, 1)));
    if (s.candidate.top1_percent) {
      top1.add(*s.candidate.top1_percent);
    }
  }

  for (auto& s : out.ranked) {
    const PlanCandidate& c = s.candidate;
    switch (settings.latency_shape) {
      case LatencyShape::kDeadline:
        s.terms.latency = c.latency_ms <= settings.latency_target_ms ? 1.0 : 0.0;
        break;
      case LatencyShape::kSoftTarget:
        s.terms.latency =
            (settings.latency_target_ms <= 0 || c.latency_ms <= settings.latency_target_ms)
                ? 1.0
                : settings.latency_target_ms / c.latency_ms;
        break;
      case LatencyShape::kThroughput:
        s.terms.latency = lower_is_better_log(
            c.latency_ms / static_cast<double>(std::max<std::int64_t>(c.batch, 1)), time_per_image);
        break;
    }
    s.terms.energy = lower_is_better_log(s.energy_per_image_j, energy);
    if (c.top1_percent) {
      s.terms.accuracy = higher_is_better_linear(*c.top1_percent, top1);
    }
    if (s.feasible) {
      s.score = settings.weights.latency * *s.terms.latency +
                settings.weights.energy * *s.terms.energy +
                settings.weights.accuracy * s.terms.accuracy.value_or(0.0);
    }
  }

  auto order_key = [](const ScoredCandidate& s) {
    return std::make_tuple(!s.feasible, -s.score.value_or(0.0), s.candidate.latency_ms,
                           s.energy_per_image_j, s.candidate.network, s.candidate.gpu,
                           s.candidate.batch, s.candidate.precision,
                           s.candidate.power_limit_w.value_or(0.0));
  };
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [&](const ScoredCandidate& a, const ScoredCandidate& b) {
                     return order_key(a) < order_key(b);
                   });
  int feasible = 0;
  for (std::size_t i = 0; i < out.ranked.size(); ++i) {
    out.ranked[i].rank = static_cast<int>(i) + 1;
    feasible += out.ranked[i].feasible ? 1 : 0;
  }

  if (!unknown_accuracy.empty()) {
    std::string names;
    for (const auto& n : unknown_accuracy) {
      names += (names.empty() ? "" : ", ") + n;
    }
    out.warnings.push_back("accuracy unknown (no published top-1) for " + names +
                           ": listed as infeasible because " +
                           (tol.min_top1_percent ? std::string("min_top1_percent is set")
                                                 : "the accuracy weight is > 0") +
                           "; weights with accuracy=0 rank them on latency and energy");
  }
  if (!candidates.empty() && feasible == 0) {
    out.warnings.emplace_back("no candidate meets the tolerances; every row is infeasible");
  }
  return out;
}

PlanResult first_candidates(PlanResult result, std::size_t top) {
  if (top > 0 && result.ranked.size() > top) result.ranked.resize(top);
  return result;
}

namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson optional_json(const std::optional<double>& v) {
  return v ? OrderedJson(*v) : OrderedJson(nullptr);
}

// A member that may be null or absent (both: unset).
std::optional<double> optional_at(const OrderedJson& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

OrderedJson candidate_json(const ScoredCandidate& sc) {
  const PlanCandidate& c = sc.candidate;
  return {
      {"rank", sc.rank},
      {"network", c.network},
      {"gpu", c.gpu},
      {"batch", c.batch},
      {"precision", c.precision},
      {"power_limit_w", optional_json(c.power_limit_w)},
      {"latency_ms", c.latency_ms},
      {"energy_j", c.energy_j},
      {"energy_per_image_j", sc.energy_per_image_j},
      {"avg_power_w", c.avg_power_w},
      {"top1_percent", optional_json(c.top1_percent)},
      {"feasible", sc.feasible},
      {"infeasible_reason", sc.feasible ? OrderedJson(nullptr) : OrderedJson(sc.infeasible_reason)},
      {"terms",
       {{"latency", optional_json(sc.terms.latency)},
        {"energy", optional_json(sc.terms.energy)},
        {"accuracy", optional_json(sc.terms.accuracy)}}},
      {"score", optional_json(sc.score)}};
}

ScoredCandidate candidate_from_json(const OrderedJson& j) {
  ScoredCandidate sc;
  PlanCandidate& c = sc.candidate;
  sc.rank = json_value_exact(j, "rank", sc.rank);
  c.network = json_value_exact(j, "network", c.network);
  c.gpu = json_value_exact(j, "gpu", c.gpu);
  c.batch = json_value_exact(j, "batch", c.batch);
  c.precision = json_value_exact(j, "precision", c.precision);
  c.power_limit_w = optional_at(j, "power_limit_w");
  c.latency_ms = json_value_exact(j, "latency_ms", c.latency_ms);
  c.energy_j = json_value_exact(j, "energy_j", c.energy_j);
  sc.energy_per_image_j = json_value_exact(j, "energy_per_image_j", sc.energy_per_image_j);
  c.avg_power_w = json_value_exact(j, "avg_power_w", c.avg_power_w);
  c.top1_percent = optional_at(j, "top1_percent");
  sc.feasible = json_value_exact(j, "feasible", sc.feasible);
  const auto reason = j.find("infeasible_reason");
  if (reason != j.end() && !reason->is_null()) sc.infeasible_reason = reason->get<std::string>();
  if (j.contains("terms")) {
    const OrderedJson& terms = j["terms"];
    sc.terms.latency = optional_at(terms, "latency");
    sc.terms.energy = optional_at(terms, "energy");
    sc.terms.accuracy = optional_at(terms, "accuracy");
  }
  sc.score = optional_at(j, "score");
  return sc;
}

}  // namespace

nlohmann::ordered_json to_json(const PlanResult& r) {
  const SocSettings& s = r.settings;
  OrderedJson out;
  out["schema_version"] = kPlanSchemaVersion;
  out["tool_version"] = CNNPERF_VERSION;
  out["kind"] = "plan";
  out["profile"] = to_string(s.profile);
  out["mode"] = r.mode;
  out["weights"] = {{"latency", s.weights.latency},
                    {"energy", s.weights.energy},
                    {"accuracy", s.weights.accuracy}};
  out["latency_shape"] = to_string(s.latency_shape);
  out["latency_target_ms"] =
      s.latency_target_ms > 0 ? OrderedJson(s.latency_target_ms) : OrderedJson(nullptr);
  out["latency_target_source"] = profile_defaults(s.profile).target_source;
  out["tolerances"] = {
      {"max_latency_ms", optional_json(s.tolerances.max_latency_ms)},
      {"max_energy_per_image_j", optional_json(s.tolerances.max_energy_per_image_j)},
      {"min_top1_percent", optional_json(s.tolerances.min_top1_percent)}};
  out["method"] = kPlanMethod;
  out["power_model"] = r.power_model;
  out["latency_model"] = r.latency_model;
  out["accuracy_source"] = r.accuracy_source;
  out["gpus"] = r.gpus;
  out["candidates_total"] = r.candidates_total;
  out["candidates_feasible"] = r.candidates_feasible;
  OrderedJson candidates = OrderedJson::array();
  for (const ScoredCandidate& sc : r.ranked) candidates.push_back(candidate_json(sc));
  out["candidates"] = std::move(candidates);
  out["warnings"] = r.warnings;
  return out;
}

PlanResult plan_result_from_json(const nlohmann::ordered_json& doc) {
  PlanResult r;
  SocSettings& s = r.settings;
  if (doc.contains("profile")) {
    s.profile = task_profile_from_string(doc["profile"].get<std::string>());
  }
  r.mode = json_value_exact(doc, "mode", r.mode);
  if (doc.contains("weights")) {
    const OrderedJson& w = doc["weights"];
    s.weights.latency = json_value_exact(w, "latency", s.weights.latency);
    s.weights.energy = json_value_exact(w, "energy", s.weights.energy);
    s.weights.accuracy = json_value_exact(w, "accuracy", s.weights.accuracy);
  }
  if (doc.contains("latency_shape")) {
    s.latency_shape = latency_shape_from_string(doc["latency_shape"].get<std::string>());
  }
  s.latency_target_ms = optional_at(doc, "latency_target_ms").value_or(0);
  if (doc.contains("tolerances")) {
    const OrderedJson& t = doc["tolerances"];
    s.tolerances.max_latency_ms = optional_at(t, "max_latency_ms");
    s.tolerances.max_energy_per_image_j = optional_at(t, "max_energy_per_image_j");
    s.tolerances.min_top1_percent = optional_at(t, "min_top1_percent");
  }
  r.power_model = json_value_exact(doc, "power_model", r.power_model);
  r.latency_model = json_value_exact(doc, "latency_model", r.latency_model);
  r.accuracy_source = json_value_exact(doc, "accuracy_source", r.accuracy_source);
  r.gpus = json_value_exact(doc, "gpus", r.gpus);
  if (doc.contains("candidates")) {
    for (const auto& c : doc["candidates"]) r.ranked.push_back(candidate_from_json(c));
  }
  const auto feasible = static_cast<std::size_t>(std::count_if(
      r.ranked.begin(), r.ranked.end(), [](const ScoredCandidate& c) { return c.feasible; }));
  // A file without the counts holds every candidate.
  r.candidates_total = json_value_exact(doc, "candidates_total", r.ranked.size());
  r.candidates_feasible = json_value_exact(doc, "candidates_feasible", feasible);
  r.warnings = json_value_exact(doc, "warnings", r.warnings);
  return r;
}

}  // namespace cnnperf
