// SPDX-License-Identifier: Apache-2.0
// 80 % prediction intervals from cross-validated residuals: the table predict reads
// (models/intervals.json, or a learned model file's "intervals"), how it is fitted, and the
// held-out coverage that says whether it is calibrated.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

inline constexpr int kIntervalTableSchemaVersion = 1;
inline constexpr const char* kIntervalTableKind = "latency_intervals";
/// The bundled table of the analytical default (train intervals writes it).
inline constexpr const char* kBundledIntervals = "models/intervals.json";
/// The quantiles of log(measured / predicted) that bound the interval: an 80 % interval.
inline constexpr double kIntervalLowQuantile = 0.10;
inline constexpr double kIntervalHighQuantile = 0.90;
/// A regime cell with fewer residuals takes its family's quantiles: a 10th percentile of a
/// handful of rows is noise.
inline constexpr std::size_t kMinIntervalCellRows = 50;
/// The family of the network totals' residuals (end-to-end steps) in a table.
inline constexpr const char* kNetworkIntervalFamily = "network";

/// The family a layer's residuals and interval belong to: its op class (conv, gemm,
/// pointwise, normalization, pool, copy; layer.hpp), finer than the learned model's op
/// families, so that an op class never measured (pools) has no interval rather than another
/// class's.
[[nodiscard]] std::string interval_family(const Layer& layer);

/// The regime of a predicted time: its decade, "<0.01ms", "0.01-0.1ms", "0.1-1ms", "1-10ms",
/// "10-100ms" or ">=100ms". A model's relative error differs by size (launch-bound small ops,
/// wave-quantized mid-size ones, steady large ones).
[[nodiscard]] std::string time_regime(double predicted_ms);

/// The q-quantile (0..1) of `values`, linear between order statistics (R's type 7); NaN for
/// none.
[[nodiscard]] double quantile(std::vector<double> values, double q);

/// One held-out comparison: a prediction of a row of `family` and what was measured.
struct IntervalResidual {
  std::string family;
  double predicted_ms = 0;
  double measured_ms = 0;
  int fold = 0;  ///< the validation fold the row was held out in (cross_validated_coverage)
  /// The machine whose offset the row shares with its siblings (an end-to-end step's GPU, a
  /// layer row's source and GPU); empty for rows whose errors are independent. See
  /// IntervalTable::fit.
  std::string group;
  /// The harness that measured the row (a layer row's `source`); empty for end-to-end steps.
  /// A family's rows of one source with machines enough get cells of their own
  /// (IntervalTable::fit).
  std::string source;
  [[nodiscard]] double log_ratio() const;  ///< log(measured / predicted)
};

/// The quantiles of one cell's log ratios.
struct IntervalCell {
  double log_lo = 0;  ///< kIntervalLowQuantile of log(measured / predicted)
  double log_hi = 0;  ///< kIntervalHighQuantile
  std::size_t rows = 0;
};

/// An interval in ms.
struct Interval {
  double lo_ms = 0;
  double hi_ms = 0;
};

/// Per family, its quantiles over all its residuals and per time regime (only regimes with
/// kMinIntervalCellRows or more; the others take the family's).
class IntervalTable {
 public:
  struct Family {
    IntervalCell all;
    std::map<std::string, IntervalCell> regimes;
  };

  /// Fits the quantiles of `residuals` (rows with a non-positive time are left out). A family
  /// whose residuals all name a `group`, two groups or more, is fitted as a new group would
  /// meet it: its quantiles are those of every group's median log ratio plus every row's
  /// deviation from its own group's median (each group weighs the same, however many rows it
  /// has); a regime with min_cell_rows rows and two groups or more gets a cell of its own the
  /// same way, from the groups' medians within it. Within a family, each source whose
  /// residuals name two groups or more is fitted the same way on its rows alone (a new machine
  /// of a known harness spreads like that harness's machines, not like every harness's).
  [[nodiscard]] static IntervalTable fit(const std::vector<IntervalResidual>& residuals,
                                         std::size_t min_cell_rows = kMinIntervalCellRows);
  /// The interval of a prediction of `family` (predicted x exp(quantiles) of its regime's
  /// cell, else of its family's, widened to hold the prediction: lo <= predicted <= hi), from
  /// `source`'s cells where the family has them, else the family's; nullopt for a family the
  /// table has no residuals of, or a non-positive prediction: no interval rather than a
  /// made-up one.
  [[nodiscard]] std::optional<Interval> interval(const std::string& family, double predicted_ms,
                                                 const std::string& source = "") const;
  /// The cell interval() uses, or null.
  [[nodiscard]] const IntervalCell* cell(const std::string& family, double predicted_ms,
                                         const std::string& source = "") const;
  [[nodiscard]] bool empty() const { return families_.empty(); }
  [[nodiscard]] const std::map<std::string, Family>& families() const { return families_; }
  /// Per family, the cells of each source fitted on its own (family -> source -> cells).
  [[nodiscard]] const std::map<std::string, std::map<std::string, Family>>& sources() const {
    return sources_;
  }

  /// {"family": {"all": cell, "regimes": {regime: cell}, "sources": {source: {"all",
  /// "regimes"}}}}, each cell {"log_lo", "log_hi", "rows"}; "sources" only where fitted.
  [[nodiscard]] nlohmann::json to_json() const;
  /// Parses to_json's form; throws InputError "where.family.field: expected ..." otherwise.
  [[nodiscard]] static IntervalTable from_json(const nlohmann::json& families,
                                               const std::string& where);

 private:
  std::map<std::string, Family> families_;
  std::map<std::string, std::map<std::string, Family>> sources_;
};

/// Held-out coverage of one group of residuals.
struct Coverage {
  std::size_t rows = 0;                ///< residuals scored
  std::size_t inside = 0;              ///< of them, measured within [lo, hi]
  std::size_t no_interval = 0;         ///< residuals whose fold's table had no cell for them
  [[nodiscard]] double share() const;  ///< inside / (rows - no_interval); NaN when none
  /// Counts one measurement against its interval (nullopt: no_interval).
  void count(const std::optional<Interval>& interval, double measured_ms);
};

/// Coverage of intervals fitted on the other folds: for each fold, a table fitted on the
/// residuals of every other fold scores that fold's residuals, so no quantile ever sees the
/// rows it is scored on. Overall, per family, per family and time regime of the prediction,
/// and per group (the machine a grouped residual was measured on; none for ungrouped ones).
struct CoverageReport {
  Coverage overall;
  std::map<std::string, Coverage> per_family;
  std::map<std::string, Coverage> per_regime;  ///< "family regime", e.g. "conv 1-10ms"
  std::map<std::string, Coverage> per_group;
};
[[nodiscard]] CoverageReport cross_validated_coverage(
    const std::vector<IntervalResidual>& residuals,
    std::size_t min_cell_rows = kMinIntervalCellRows);
/// {"rows", "inside", "no_interval", "coverage"} (coverage null when nothing was scored).
[[nodiscard]] nlohmann::json to_json(const Coverage& coverage);
[[nodiscard]] nlohmann::json to_json(const CoverageReport& report);
/// A to_json(Coverage) object's share as the tables print it: "83.6 %", or "none" when nothing
/// was scored.
[[nodiscard]] std::string coverage_text(const nlohmann::json& coverage);

/// The bundled table's file (kBundledIntervals, found with find_resource), parsed once;
/// nullopt when the file is absent (predictions then carry no interval). Throws InputError for
/// a file that does not parse.
[[nodiscard]] const std::optional<IntervalTable>& bundled_intervals();
/// Parses an intervals file ({"kind": kIntervalTableKind, "schema_version", "families"});
/// `where` names it in errors.
[[nodiscard]] IntervalTable interval_table_from_file_json(const nlohmann::json& doc,
                                                          const std::string& where);

/// The key of a learned model's intervals section that holds its table for GPUs a family was
/// not fitted on: {"scheme", "source", "coverage", "families"} (families as
/// IntervalTable::to_json), fitted on the leave-one-GPU-out residuals of the unseen-GPU check.
inline constexpr const char* kUnseenGpuIntervalsKey = "unseen_gpu";
/// The unseen-GPU table of an intervals section (kUnseenGpuIntervalsKey), nullopt when the
/// section has none; throws InputError naming `where` and the field for a malformed one.
[[nodiscard]] std::optional<IntervalTable> unseen_gpu_table_from_file_json(
    const nlohmann::json& section, const std::string& where);

/// An intervals file's document (kBundledIntervals, or a learned model file's "intervals"):
/// kind, schema_version, the `model` whose predictions it bounds, the quantiles, min_cell_rows,
/// `provenance`, the held-out `coverage` and `table`'s families. One writer for both, so the
/// two cannot drift from what interval_table_from_file_json reads.
[[nodiscard]] nlohmann::json interval_table_file_json(const std::string& model,
                                                      const IntervalTable& table,
                                                      nlohmann::json provenance,
                                                      nlohmann::json coverage);

/// A second table for the layers whose model was fitted without rows of their GPU (a learned
/// model's unseen-GPU table, from held-out GPUs' residuals): which layers those are, by index.
/// Layers the model flags outside its training data (in_distribution false) take it too: they
/// extrapolate as a held-out GPU's rows did, where the main table's residuals (k-fold) are of
/// rows inside the data. Not owning.
struct UnseenGpuIntervals {
  const IntervalTable* table = nullptr;  ///< null: every layer takes the main table
  std::vector<bool> layers;              ///< per layer: its GPU is unseen (missing: seen)
};

/// Sets each prediction's latency_interval from `table`, or unseen.table where set for the
/// layers unseen.layers marks and those not in_distribution (the cell of interval_family(layer) and
/// the regime of its latency_ms, the reference source's where the family has them: predict gives a
/// layer without a source the reference harness); unset where the table has no cell for it.
void attach_layer_intervals(const std::vector<Layer>& layers,
                            std::vector<LayerPrediction>& predictions, const IntervalTable& table,
                            const UnseenGpuIntervals& unseen = {});

/// A network's intervals: every layer's (attach_layer_intervals) and the step's, from the
/// table's kNetworkIntervalFamily cells (end-to-end residuals of single-GPU PyTorch steps)
/// for a single-GPU step under the pytorch runtime, from the runtime's bundled overhead file
/// (bundled_runtime_step_intervals) under pytorch-compile and tensorrt; none under cudnn (no
/// measured steps of it) or a power cap (residuals measured uncapped). `source` names the
/// table; interval_note says what has no interval and why. `runtime_steps`, when given for the
/// prediction's runtime, replaces that runtime's bundled file (a user's own fit).
struct RuntimeStepTable {
  Runtime runtime = Runtime::kPytorchCompile;
  const IntervalTable* table = nullptr;  ///< null: the file holds none; not owning
  std::string file;                      ///< the file, as the interval's source names it
};
void attach_network_intervals(NetworkPrediction& prediction, const IntervalTable& table,
                              const std::string& source, const UnseenGpuIntervals& unseen = {},
                              const RuntimeStepTable* runtime_steps = nullptr);

}  // namespace cnnperf
