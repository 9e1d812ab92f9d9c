// SPDX-License-Identifier: Apache-2.0
// Prediction intervals: quantiles of cross-validated log ratios per family and time regime.
#include "cnnperf/ml/intervals.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/ml/runtime_fit.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The q-quantile of sorted, non-empty `values` (R's type 7).
double sorted_quantile(const std::vector<double>& values, double q) {
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(pos));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(below);
  return values[below] + frac * (values[above] - values[below]);
}

// Sorted once for both quantiles: a grouped cell holds millions of values.
IntervalCell fit_cell(std::vector<double> log_ratios) {
  if (log_ratios.empty()) return {kNaN, kNaN, 0};
  std::sort(log_ratios.begin(), log_ratios.end());
  return {sorted_quantile(log_ratios, kIntervalLowQuantile),
          sorted_quantile(log_ratios, kIntervalHighQuantile), log_ratios.size()};
}

bool usable(const IntervalResidual& r) {
  return r.predicted_ms > 0 && r.measured_ms > 0 && std::isfinite(r.predicted_ms) &&
         std::isfinite(r.measured_ms);
}

nlohmann::json cell_json(const IntervalCell& c) {
  return {{"log_lo", c.log_lo}, {"log_hi", c.log_hi}, {"rows", c.rows}};
}

double number_at(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) {
    throw InputError(where + "." + key + ": expected a number");
  }
  return object[key].get<double>();
}

// Standard normal quantile at probability p in (0, 1), by bisection on erfc.
double normal_quantile(double p) {
  double lo = -10;
  double hi = 10;
  for (int it = 0; it < 80; ++it) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Student's t quantile with `dof` degrees of freedom where the standard normal one is z: the
// Cornish-Fisher expansion's first three terms (within 1 % of the exact value at the 10th and
// 90th percentiles from 2 degrees of freedom).
double student_t_quantile(double z, double dof) {
  const double z3 = z * z * z;
  const double z5 = z3 * z * z;
  const double z7 = z5 * z * z;
  return z + (z3 + z) / (4 * dof) + (5 * z5 + 16 * z3 + 3 * z) / (96 * dof * dof) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * dof * dof * dof);
}

// The offset a machine outside `offsets` may have, as quantiles on an even probability grid:
// a normal draw whose mean and spread are estimated from those few machines (the predictive
// distribution, mean + s * sqrt(1 + 1/n) * t with n - 1 degrees of freedom). With fewer than
// three machines: the offsets as they are.
std::vector<double> predictive_offsets(const std::vector<double>& offsets) {
  const auto n = static_cast<double>(offsets.size());
  if (offsets.size() < 3) return offsets;
  double mean = 0;
  for (const double o : offsets) mean += o / n;
  double ss = 0;
  for (const double o : offsets) ss += (o - mean) * (o - mean);
  const double spread = std::sqrt(ss / (n - 1)) * std::sqrt(1 + 1 / n);
  constexpr int kGrid = 40;
  std::vector<double> out;
  out.reserve(kGrid);
  for (int i = 0; i < kGrid; ++i) {
    const double z = normal_quantile((i + 0.5) / kGrid);
    out.push_back(mean + spread * student_t_quantile(z, n - 1));
  }
  return out;
}

// The cell a new group meets, from residuals grouped by machine: a held-out machine brings an
// offset of its own (its host, its clocks) that pooled rows of the others understate when one
// machine has most of them. Its offset is drawn from the predictive distribution of the
// groups' medians (a handful of machines' own 10th and 90th percentiles understate a new
// one's), its rows' spread around it from the groups' spreads. `rows` is left to the caller.
IntervalCell grouped_cell(const std::map<std::string, std::vector<double>>& by_group) {
  std::vector<double> offsets;
  std::vector<double> deviations;
  for (const auto& [group, lrs] : by_group) {
    const double median = quantile(lrs, 0.5);
    offsets.push_back(median);
    for (const double lr : lrs) deviations.push_back(lr - median);
  }
  offsets = predictive_offsets(offsets);
  std::vector<double> combined;
  combined.reserve(offsets.size() * deviations.size());
  for (const double offset : offsets) {
    for (const double deviation : deviations) combined.push_back(offset + deviation);
  }
  return fit_cell(std::move(combined));
}

IntervalCell cell_from_json(const nlohmann::json& j, const std::string& where) {
  IntervalCell c;
  c.log_lo = number_at(j, "log_lo", where);
  c.log_hi = number_at(j, "log_hi", where);
  const double rows = number_at(j, "rows", where);
  if (!(c.log_lo <= c.log_hi) || !std::isfinite(c.log_lo) || !std::isfinite(c.log_hi)) {
    throw InputError(where + ": expected finite log_lo <= log_hi");
  }
  if (rows < 1 || rows != std::floor(rows)) {
    throw InputError(where + ".rows: expected a positive integer");
  }
  c.rows = static_cast<std::size_t>(rows);
  return c;
}

// Each regime's upper bound (ms, exclusive) and name; above the last, kTopRegime.
constexpr std::array<std::pair<double, const char*>, 5> kRegimeBounds{{{0.01, "<0.01ms"},
                                                                       {0.1, "0.01-0.1ms"},
                                                                       {1.0, "0.1-1ms"},
                                                                       {10.0, "1-10ms"},
                                                                       {100.0, "10-100ms"}}};
constexpr const char* kTopRegime = ">=100ms";

bool time_regime_known(const std::string& name) {
  return name == kTopRegime || std::any_of(kRegimeBounds.begin(), kRegimeBounds.end(),
                                           [&](const auto& bound) { return name == bound.second; });
}

nlohmann::json family_json(const IntervalTable::Family& f) {
  nlohmann::json regimes = nlohmann::json::object();
  for (const auto& [regime, c] : f.regimes) regimes[regime] = cell_json(c);
  return {{"all", cell_json(f.all)}, {"regimes", regimes}};
}

IntervalTable::Family family_from_json(const nlohmann::json& f, const std::string& at) {
  if (!f.is_object() || !f.contains("all")) throw InputError(at + ".all: expected an object");
  IntervalTable::Family parsed;
  parsed.all = cell_from_json(f["all"], at + ".all");
  if (f.contains("regimes")) {
    if (!f["regimes"].is_object()) throw InputError(at + ".regimes: expected an object");
    for (const auto& [regime, c] : f["regimes"].items()) {
      if (!time_regime_known(regime)) {
        throw InputError(at + ".regimes." + regime +
                         ": unknown regime (expected <0.01ms, 0.01-0.1ms, 0.1-1ms, 1-10ms, "
                         "10-100ms or >=100ms)");
      }
      parsed.regimes[regime] = cell_from_json(c, at + ".regimes." + regime);
    }
  }
  return parsed;
}

}  // namespace

std::string interval_family(const Layer& layer) {
  return to_string(op_class(layer.op));
}

std::string time_regime(double predicted_ms) {
  for (const auto& [bound, name] : kRegimeBounds) {
    if (predicted_ms < bound) return name;
  }
  return kTopRegime;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

double IntervalResidual::log_ratio() const {
  return std::log(measured_ms / predicted_ms);
}

namespace {

// Every family's cells of `residuals`, sources pooled (IntervalTable::fit).
std::map<std::string, IntervalTable::Family> fit_families(
    const std::vector<IntervalResidual>& residuals, std::size_t min_cell_rows) {
  std::map<std::string, std::vector<double>> by_family;
  std::map<std::string, std::map<std::string, std::vector<double>>> by_regime;
  std::map<std::string, std::map<std::string, std::vector<double>>> by_group;
  // family -> regime -> group -> log ratios
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<double>>>>
      by_group_regime;
  std::set<std::string> ungrouped;  // families with a row that names no group
  for (const auto& r : residuals) {
    if (!usable(r)) continue;
    const double lr = r.log_ratio();
    by_family[r.family].push_back(lr);
    by_regime[r.family][time_regime(r.predicted_ms)].push_back(lr);
    if (r.group.empty()) {
      ungrouped.insert(r.family);
    } else {
      by_group[r.family][r.group].push_back(lr);
      by_group_regime[r.family][time_regime(r.predicted_ms)][r.group].push_back(lr);
    }
  }
  std::map<std::string, IntervalTable::Family> families;
  for (const auto& [family, ratios] : by_family) {
    IntervalTable::Family& f = families[family];
    const auto groups = by_group.find(family);
    if (!ungrouped.contains(family) && groups != by_group.end() && groups->second.size() >= 2) {
      f.all = grouped_cell(groups->second);
      f.all.rows = ratios.size();
      // The same within each regime with rows enough, from the groups' own medians there: a
      // machine's launch floor shifts its small ops more than its large ones.
      for (const auto& [regime, by_machine] : by_group_regime[family]) {
        const std::size_t rows = by_regime[family][regime].size();
        if (rows < min_cell_rows || by_machine.size() < 2) continue;
        f.regimes[regime] = grouped_cell(by_machine);
        f.regimes[regime].rows = rows;
      }
      continue;
    }
    f.all = fit_cell(ratios);
    for (const auto& [regime, cell_ratios] : by_regime[family]) {
      if (cell_ratios.size() >= min_cell_rows) f.regimes[regime] = fit_cell(cell_ratios);
    }
  }
  return families;
}

}  // namespace

IntervalTable IntervalTable::fit(const std::vector<IntervalResidual>& residuals,
                                 std::size_t min_cell_rows) {
  IntervalTable table;
  table.families_ = fit_families(residuals, min_cell_rows);
  // family -> source -> its rows, and the machines among them
  std::map<std::string, std::map<std::string, std::vector<IntervalResidual>>> by_source;
  std::map<std::string, std::map<std::string, std::set<std::string>>> machines;
  for (const auto& r : residuals) {
    if (!usable(r) || r.source.empty()) continue;
    by_source[r.family][r.source].push_back(r);
    machines[r.family][r.source].insert(r.group);
  }
  for (const auto& [family, sources] : by_source) {
    if (sources.size() < 2) continue;  // one source's cells are the family's
    for (const auto& [source, rows] : sources) {
      if (machines[family][source].size() < 2) continue;
      auto fitted = fit_families(rows, min_cell_rows);
      table.sources_[family][source] = std::move(fitted.at(family));
    }
  }
  return table;
}

const IntervalCell* IntervalTable::cell(const std::string& family, double predicted_ms,
                                        const std::string& source) const {
  const auto it = families_.find(family);
  if (it == families_.end() || !(predicted_ms > 0) || !std::isfinite(predicted_ms)) return nullptr;
  const Family* f = &it->second;
  if (const auto fs = sources_.find(family); fs != sources_.end() && !source.empty()) {
    if (const auto own = fs->second.find(source); own != fs->second.end()) f = &own->second;
  }
  const auto regime = f->regimes.find(time_regime(predicted_ms));
  return regime != f->regimes.end() ? &regime->second : &f->all;
}

std::optional<Interval> IntervalTable::interval(const std::string& family, double predicted_ms,
                                                const std::string& source) const {
  const IntervalCell* c = cell(family, predicted_ms, source);
  if (c == nullptr) return std::nullopt;
  // The interval always holds the prediction itself: where the model is biased (both
  // percentiles on one side) it is widened to it, which only adds coverage.
  return Interval{predicted_ms * std::exp(std::min(c->log_lo, 0.0)),
                  predicted_ms * std::exp(std::max(c->log_hi, 0.0))};
}

nlohmann::json IntervalTable::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [family, f] : families_) {
    out[family] = family_json(f);
    if (const auto fs = sources_.find(family); fs != sources_.end()) {
      nlohmann::json sources = nlohmann::json::object();
      for (const auto& [source, sf] : fs->second) sources[source] = family_json(sf);
      out[family]["sources"] = sources;
    }
  }
  return out;
}

IntervalTable IntervalTable::from_json(const nlohmann::json& families, const std::string& where) {
  if (!families.is_object()) throw InputError(where + ": expected an object of op families");
  IntervalTable table;
  for (const auto& [family, f] : families.items()) {
    const std::string at = where + "." + family;
    table.families_[family] = family_from_json(f, at);
    if (f.contains("sources")) {
      if (!f["sources"].is_object()) throw InputError(at + ".sources: expected an object");
      for (const auto& [source, sf] : f["sources"].items()) {
        table.sources_[family][source] = family_from_json(sf, at + ".sources." + source);
      }
    }
  }
  return table;
}

double Coverage::share() const {
  const std::size_t scored = rows - no_interval;
  return scored == 0 ? kNaN : static_cast<double>(inside) / static_cast<double>(scored);
}

void Coverage::count(const std::optional<Interval>& interval, double measured_ms) {
  ++rows;
  if (!interval) {
    ++no_interval;
  } else if (measured_ms >= interval->lo_ms && measured_ms <= interval->hi_ms) {
    ++inside;
  }
}

CoverageReport cross_validated_coverage(const std::vector<IntervalResidual>& residuals,
                                        std::size_t min_cell_rows) {
  std::set<int> folds;
  for (const auto& r : residuals) {
    if (usable(r)) folds.insert(r.fold);
  }
  CoverageReport report;
  for (const int f : folds) {
    std::vector<IntervalResidual> train;
    for (const auto& r : residuals) {
      if (r.fold != f) train.push_back(r);
    }
    const IntervalTable table = IntervalTable::fit(train, min_cell_rows);
    for (const auto& r : residuals) {
      if (r.fold != f || !usable(r)) continue;
      std::vector<Coverage*> cells{
          &report.overall, &report.per_family[r.family],
          &report.per_regime[r.family + " " + time_regime(r.predicted_ms)]};
      if (!r.group.empty()) cells.push_back(&report.per_group[r.group]);
      const auto interval = table.interval(r.family, r.predicted_ms, r.source);
      for (Coverage* c : cells) c->count(interval, r.measured_ms);
    }
  }
  return report;
}

nlohmann::json to_json(const Coverage& coverage) {
  const double share = coverage.share();
  return {{"rows", coverage.rows},
          {"inside", coverage.inside},
          {"no_interval", coverage.no_interval},
          {"coverage", std::isnan(share) ? nlohmann::json(nullptr) : nlohmann::json(share)}};
}

nlohmann::json to_json(const CoverageReport& report) {
  nlohmann::json per_family = nlohmann::json::object();
  for (const auto& [family, c] : report.per_family) per_family[family] = to_json(c);
  nlohmann::json per_regime = nlohmann::json::object();
  for (const auto& [regime, c] : report.per_regime) per_regime[regime] = to_json(c);
  nlohmann::json per_group = nlohmann::json::object();
  for (const auto& [group, c] : report.per_group) per_group[group] = to_json(c);
  return {{"overall", to_json(report.overall)},
          {"per_family", per_family},
          {"per_regime", per_regime},
          {"per_group", per_group}};
}

std::string coverage_text(const nlohmann::json& coverage) {
  const auto share = coverage.find("coverage");
  return share != coverage.end() && share->is_number()
             ? format_number(100 * share->get<double>(), 3) + " %"
             : std::string("none");
}

IntervalTable interval_table_from_file_json(const nlohmann::json& doc, const std::string& where) {
  const auto kind = doc.is_object() ? doc.find("kind") : doc.end();
  if (kind == doc.end() || !kind->is_string() || *kind != kIntervalTableKind) {
    throw InputError(where + ": kind: expected \"" + std::string(kIntervalTableKind) + "\"");
  }
  if (!doc.contains("schema_version") || !doc["schema_version"].is_number_integer() ||
      doc["schema_version"].get<int>() != kIntervalTableSchemaVersion) {
    throw InputError(where + ": schema_version: expected " +
                     std::to_string(kIntervalTableSchemaVersion));
  }
  if (!doc.contains("families")) throw InputError(where + ": families: expected an object");
  return IntervalTable::from_json(doc["families"], where + ": families");
}

nlohmann::json interval_table_file_json(const std::string& model, const IntervalTable& table,
                                        nlohmann::json provenance, nlohmann::json coverage) {
  return {{"kind", kIntervalTableKind},
          {"schema_version", kIntervalTableSchemaVersion},
          {"model", model},
          {"quantiles", {kIntervalLowQuantile, kIntervalHighQuantile}},
          {"min_cell_rows", kMinIntervalCellRows},
          {"provenance", std::move(provenance)},
          {"coverage", std::move(coverage)},
          {"families", table.to_json()}};
}

const std::optional<IntervalTable>& bundled_intervals() {
  static const std::optional<IntervalTable> table = []() -> std::optional<IntervalTable> {
    std::filesystem::path path;
    try {
      path = find_resource(kBundledIntervals);
    } catch (const Error&) {
      return std::nullopt;  // not installed: predictions say they have no interval
    }
    return interval_table_from_file_json(read_json_file(path.string()), path.string());
  }();
  return table;
}

std::optional<IntervalTable> unseen_gpu_table_from_file_json(const nlohmann::json& section,
                                                             const std::string& where) {
  if (!section.is_object() || !section.contains(kUnseenGpuIntervalsKey)) return std::nullopt;
  const auto& unseen = section[kUnseenGpuIntervalsKey];
  const std::string at = where + "." + kUnseenGpuIntervalsKey;
  if (!unseen.is_object() || !unseen.contains("families")) {
    throw InputError(at + ": expected an object with \"families\"");
  }
  return IntervalTable::from_json(unseen["families"], at + ".families");
}

void attach_layer_intervals(const std::vector<Layer>& layers,
                            std::vector<LayerPrediction>& predictions, const IntervalTable& table,
                            const UnseenGpuIntervals& unseen) {
  for (std::size_t i = 0; i < layers.size() && i < predictions.size(); ++i) {
    auto& p = predictions[i];
    // A layer outside the training data extrapolates as a held-out GPU's rows did.
    const bool wide = unseen.table != nullptr &&
                      ((i < unseen.layers.size() && unseen.layers[i]) || !p.in_distribution);
    const auto interval =
        (wide ? *unseen.table : table)
            .interval(interval_family(layers[i]), p.latency_ms(), kReferenceSource);
    p.latency_interval.reset();
    if (interval) p.latency_interval = LatencyInterval{interval->lo_ms, interval->hi_ms};
  }
}

void attach_network_intervals(NetworkPrediction& prediction, const IntervalTable& table,
                              const std::string& source, const UnseenGpuIntervals& unseen,
                              const RuntimeStepTable* runtime_steps) {
  prediction.interval_source = source;
  prediction.latency_interval.reset();
  if (prediction.power_cap) {
    for (auto& p : prediction.predictions) p.latency_interval.reset();
    prediction.interval_note = "none under a power cap (the residuals were measured uncapped)";
    return;
  }
  attach_layer_intervals(prediction.layers, prediction.predictions, table, unseen);
  std::vector<std::string> notes;
  const auto missing = std::count_if(prediction.predictions.begin(), prediction.predictions.end(),
                                     [](const LayerPrediction& p) { return !p.latency_interval; });
  if (missing > 0) {
    notes.push_back(std::to_string(missing) +
                    " layers have none (an op class without held-out residuals in the table, "
                    "e.g. pools, which no dataset measures, or no kernel time)");
  }
  if (prediction.runtime == Runtime::kPytorchCompile || prediction.runtime == Runtime::kTensorrt) {
    // The runtime's own fit holds its steps' held-out residuals, of the analytical model's
    // kernel times.
    const bool given = runtime_steps != nullptr && runtime_steps->runtime == prediction.runtime;
    const IntervalTable* own =
        given ? runtime_steps->table : bundled_runtime_step_intervals(prediction.runtime);
    const std::string file =
        given ? runtime_steps->file : bundled_runtime_overhead_path(prediction.runtime);
    const std::string none =
        "the step has none under the " + to_string(prediction.runtime) + " runtime";
    if (own != nullptr && prediction.model != kAnalyticalModelName) {
      notes.push_back(none +
                      " with a learned model (its step table is of the analytical model's "
                      "kernel times)");
    } else if (prediction.eager.num_gpus != 1) {
      notes.push_back(none + " on several GPUs (the residuals are of one GPU's steps)");
    } else if (const auto interval = (own != nullptr ? *own : table)
                                         .interval(kNetworkIntervalFamily, prediction.latency_ms)) {
      prediction.latency_interval = LatencyInterval{interval->lo_ms, interval->hi_ms};
      if (own != nullptr) {
        prediction.interval_source = source + "; the step's: " + file;
      } else {
        // Too few GPUs of the runtime for a table of its own (its fit writes one from three):
        // its steps spread at least as the eager steps of the same kernel times do.
        notes.push_back("the step's interval is the eager steps' (" + file +
                        " holds no step table: too few GPUs)");
      }
    } else {
      notes.push_back(none + (own != nullptr ? " (no kernel time)"
                                             : " (no step table, and the table holds no "
                                               "end-to-end residuals)"));
    }
  } else if (prediction.runtime != Runtime::kPytorch) {
    notes.push_back("the step has none under the " + to_string(prediction.runtime) +
                    " runtime (no measured network steps of it to fit one on)");
  } else if (prediction.eager.num_gpus != 1) {
    notes.push_back("the step has none on several GPUs (the residuals are of one GPU's steps)");
  } else if (const auto interval = table.interval(kNetworkIntervalFamily, prediction.latency_ms)) {
    prediction.latency_interval = LatencyInterval{interval->lo_ms, interval->hi_ms};
  } else {
    notes.push_back("the step has none (the table holds no end-to-end residuals)");
  }
  prediction.interval_note = join(notes, "; ");
}

}  // namespace cnnperf
