// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict`: options and the one library call behind the subcommand.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/intervals.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

struct PredictOptions {
  std::string net;         ///< zoo name, .onnx or .json layer list (or empty with layers_csv)
  std::string layers_csv;  ///< canonical layer CSV: one prediction per row
  std::string from_csv;    ///< measured layer rows (latency_ms, gpu) carried to --gpu
  std::string gpu;         ///< database name, alias, or JSON spec file
  std::int64_t batch = 0;  ///< 0: the network's default (1)
  std::string mode = "inference";
  std::string precision;      ///< fp32|fp16; empty: the network file's, else fp32
  std::string input_size;     ///< "HxW" or empty
  double power_limit_w = 0;   ///< 0: no cap
  double host_ms_per_op = 0;  ///< host time to issue one op on the user's machine, ms; 0: model's
  int num_gpus = 1;           ///< --net: GPUs of nn.DataParallel, batch per GPU unchanged
  bool input_on_gpu = false;  ///< --net: the input batch is on the GPU already (no copy)
  std::string model;          ///< model file; empty: the default (see select_model)
  bool analytical = false;    ///< force the analytical baseline
  /// eager-overhead file (`train e2e`) for the analytical baseline's zoo networks; empty: bundled
  std::string eager_overhead;
  /// runtime-overhead file (`train e2e --runtime R`) replacing the bundled one of its runtime
  /// for the analytical baseline; empty: bundled
  std::string runtime_overhead;
  std::string runtime = "pytorch";  ///< a runtime_names() entry (runtime_from_string)
  bool allow_tf32 = true;  ///< fp32 convolutions on TF32 tensor cores (the runtimes' default)
  std::string layout;      ///< nchw|nhwc; empty: nchw for --net, each row's own for --layers
  bool skip_unsupported = false;
  double max_latency_ms = 0;  ///< CI budget; 0: none (exit 3 when exceeded)
  double max_energy_j = 0;    ///< CI budget; 0: none (exit 3 when exceeded)
  std::string format;         ///< table|json|csv; empty: table for --net, csv for --layers
  std::string output;         ///< file, or empty for stdout
  std::string trace;          ///< --net: Chrome trace-event file of the step; empty: none
};

/// The lists of a sweep (`--gpu a100,t4 --batch 1,8 --precision fp32,fp16 --runtime ...`),
/// parsed once by the CLI. A list holds two or more distinct entries; an empty one leaves its
/// option to PredictOptions' single value. Each row of the sweep is the single prediction of
/// PredictOptions with one entry of each list, in the order gpu, precision, runtime, batch.
struct PredictSweep {
  std::vector<std::string> gpus;  ///< database names or aliases (a spec file is never a list)
  std::vector<std::int64_t> batches;
  std::vector<DType> precisions;
  std::vector<Runtime> runtimes;

  [[nodiscard]] bool empty() const {
    return gpus.empty() && batches.empty() && precisions.empty() && runtimes.empty();
  }
};

/// The most rows one sweep predicts (the product of its lists' lengths).
inline constexpr std::size_t kMaxSweepPredictions = 256;

/// Chooses the LatencyModel: --model FILE, else the analytical baseline (--analytical says so
/// explicitly), one default for --net and --layers so that a layer gets one kernel_ms.
/// `net_gpu`: with --model and --net, the GPU predicted; only the boosters it uses are read
/// (LearnedModel::load's only_gpu), so the model serves that GPU only.
[[nodiscard]] std::unique_ptr<LatencyModel> select_model(const PredictOptions& options,
                                                         const GpuSpec* net_gpu = nullptr);

/// How `predict --layers` runs its rows: the runtime, and whether fp32 convolutions may use
/// TF32 (as for a network's layers under the same options).
struct LayersRun {
  Runtime runtime = Runtime::kPytorch;
  bool allow_tf32 = true;
  std::optional<Layout> layout;  ///< every convolution's, when given; else each row's own
};

/// The interval table of a model: a learned model file's own (from its cross-validation), the
/// bundled one for the analytical default; none, with why, where there is none.
struct IntervalChoice {
  std::optional<IntervalTable> table;
  std::string source;   ///< where the table came from
  std::string missing;  ///< why there is no table
  /// A learned model's table for GPUs its families were not fitted on, and the model that
  /// says which layers those are (not owning); unset: every layer takes `table`.
  std::optional<IntervalTable> unseen_gpu_table;
  const LearnedModel* learned = nullptr;
  /// Which of `layers` on `gpu` take unseen_gpu_table (none without one).
  [[nodiscard]] UnseenGpuIntervals unseen_for(const std::vector<Layer>& layers,
                                              const GpuSpec& gpu) const;
};
[[nodiscard]] IntervalChoice intervals_for(const LatencyModel& model);

/// Predicts a network for the options (no output). Throws InputError for bad input.
[[nodiscard]] NetworkPrediction predict_for_options(const PredictOptions& options,
                                                    const LatencyModel& model);

/// A table is aligned over all of its rows, so `predict --layers --format table` holds them:
/// at most this many (CSV and JSON stream any number).
inline constexpr std::size_t kMaxLayerTableRows = 10000;

/// `predict --layers` of the layer CSV `csv` (plain or .gz): input columns unchanged, plus
/// kernel_ms, overhead_ms, latency_ms, energy_mj, avg_power_w, roofline_ms, in_distribution (a
/// name already present gets "predicted_"). kernel_ms is what predict_network gives the same
/// layer. `gpu`: every row runs on it; nullptr: each row on the GPU its `gpu` column names (a
/// name or alias; an unknown one is an InputError naming the row).
/// Rows are read, predicted and handed to `write` a chunk at a time, so memory stays flat in
/// the row count; an error after the first chunk has already written the chunks before it
/// (OutputWriter keeps a file whole). A table of more than kMaxLayerTableRows rows is an
/// InputError.
void write_layer_predictions(const std::filesystem::path& csv, const GpuSpec* gpu,
                             const LatencyModel& model, const LayersRun& run, OutputFormat format,
                             const std::function<void(std::string_view)>& write);
/// write_layer_predictions's text, whole.
[[nodiscard]] std::string predict_layers_text(const std::filesystem::path& csv, const GpuSpec* gpu,
                                              const LatencyModel& model, const LayersRun& run,
                                              OutputFormat format);

/// `predict --from`: the rows of `csv`, each a layer's kernel time measured on the GPU its `gpu`
/// column names (latency_ms, as `cnnperf profile` writes it), predicted on `target`: kernel_ms =
/// the measurement x the model's kernel_ms on `target` / on the row's GPU; overhead_ms,
/// latency_ms and the other columns as write_layer_predictions gives them on `target` (energy at
/// the predicted power over that kernel_ms; no interval), then measured_ms_on_source_gpu and
/// source_gpu. JSON and a table end with the rows' total (the network end to end, each row an
/// op run alone, counted `duplicates` times where that column is). A row without a positive
/// latency_ms or with an unknown gpu is an InputError naming it.
void write_transfer_predictions(const std::filesystem::path& csv, const GpuSpec& target,
                                const LatencyModel& model, const LayersRun& run,
                                OutputFormat format,
                                const std::function<void(std::string_view)>& write);
/// write_transfer_predictions's text, whole.
[[nodiscard]] std::string predict_transfer_text(const std::filesystem::path& csv,
                                                const GpuSpec& target, const LatencyModel& model,
                                                const LayersRun& run, OutputFormat format);

/// Checks the budgets; returns the one-line message when one is exceeded.
[[nodiscard]] std::optional<std::string> check_budget(const PredictOptions& options,
                                                      const NetworkPrediction& prediction);

/// Runs the subcommand: writes the result, returns the exit code (0, or 3 over budget). A
/// non-empty `sweep` writes one row per combination (PredictionSweep); the budgets then apply
/// to every row.
int run_predict(const PredictOptions& options, const PredictSweep& sweep = {});

}  // namespace cnnperf
