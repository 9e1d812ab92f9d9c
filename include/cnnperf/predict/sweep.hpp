// SPDX-License-Identifier: Apache-2.0
// A sweep: one network predicted for several GPUs, precisions, runtimes and batch sizes, each
// combination a row of the figures of its prediction's `total`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/runtime.hpp"

namespace cnnperf {

/// 1: the first layout.
inline constexpr int kPredictionSweepSchemaVersion = 1;

/// The members that order a sweep's rows, most significant first (the JSON's "order").
inline constexpr std::array<const char*, 4> kPredictionSweepOrder{"gpu", "precision", "runtime",
                                                                  "batch"};

/// One combination of a sweep: what a network prediction of it says about the whole step (the
/// figures of to_json's `total` and the CSV's total row).
struct PredictionSweepRow {
  std::string gpu;  ///< database name
  DType precision = DType::kFp32;
  Runtime runtime = Runtime::kPytorch;
  std::int64_t batch = 1;
  int num_gpus = 1;
  std::string model;  ///< the LatencyModel that predicted it
  std::int64_t params = 0;
  double flops = 0;
  double bytes = 0;
  double kernel_ms = 0;
  double kernel_scale_ms = 0;  ///< the prediction's kernel_scale_ms()
  double latency_ms = 0;
  std::optional<LatencyInterval> latency_interval;
  double energy_j = 0;
  double avg_power_w = 0;
  double roofline_ms = 0;  ///< sum over the layers
  double min_memory_gb = 0;
  bool in_distribution = true;  ///< every layer is
  std::size_t skipped_nodes = 0;
  std::vector<std::string> warnings;
  /// Why the row fails a budget the caller set (e.g. "latency budget exceeded: ..."); empty
  /// when it passes or no budget is set.
  std::string over_budget;

  [[nodiscard]] double overhead_ms() const { return latency_ms - kernel_ms - kernel_scale_ms; }
  /// Samples per second of the step: batch x num_gpus per latency_ms.
  [[nodiscard]] double throughput_samples_per_s() const;
};

/// The rows of a sweep, in the order the caller predicted them, and what they share.
struct PredictionSweep {
  std::string network;
  std::string network_source;
  Mode mode = Mode::kInference;
  std::string power_model;
  std::string interval_source;  ///< the table of the rows' intervals; empty: none
  std::string interval_note;    ///< which rows have no step interval and why; empty: none
  std::vector<GpuSpec> gpus;    ///< the database entries of the rows, each once
  std::vector<PredictionSweepRow> rows;
};

/// The row of one prediction.
[[nodiscard]] PredictionSweepRow sweep_row(const NetworkPrediction& prediction);

/// "a100-sxm4-40gb fp16 tensorrt batch 8": how messages and the table name a row.
[[nodiscard]] std::string row_label(const PredictionSweepRow& row);

/// Each distinct warning of the rows once, prefixed by the rows that carry it ("[all rows] ...",
/// "[rows 1, 3] ..."): a sweep repeats most of them on every row.
[[nodiscard]] std::vector<std::string> sweep_warnings(const PredictionSweep& sweep);

/// Printers: JSON (kind "prediction_sweep"), CSV (one line per row) and an aligned table.
[[nodiscard]] nlohmann::ordered_json to_json(const PredictionSweep& sweep);
/// One element of the JSON's "rows".
[[nodiscard]] nlohmann::ordered_json to_json(const PredictionSweepRow& row);
/// Parses what to_json writes (to_json of the result gives the document back). A member the
/// layout lacks takes the struct's default; one of the wrong type throws nlohmann's
/// type_error, an unknown precision, runtime or mode InputError.
[[nodiscard]] PredictionSweep prediction_sweep_from_json(const nlohmann::ordered_json& doc);
[[nodiscard]] PredictionSweepRow prediction_sweep_row_from_json(const nlohmann::ordered_json& row);
[[nodiscard]] std::string format_prediction_sweep(const PredictionSweep& sweep,
                                                  OutputFormat format);

}  // namespace cnnperf
