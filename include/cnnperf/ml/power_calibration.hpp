// SPDX-License-Identifier: Apache-2.0
// Calibrating and validating the power model on measured power rows (datasets/power_zeus.csv):
// average board power of an uncapped training step, and what a power cap does to epoch time,
// power and energy. Leave-one-GPU-out, like the latency models.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

/// One measured configuration: a training epoch under one power cap.
struct PowerRow {
  std::string gpu_name;  ///< as written in the file
  GpuSpec gpu;           ///< resolved database entry
  std::string network;   ///< zoo name of the trained network
  std::string dataset;   ///< e.g. "imagenet"
  std::int64_t batch = 1;
  double power_limit_w = 0;     ///< cap set through NVML, W
  double time_per_epoch_s = 0;  ///< measured wall time of one epoch, s
  double avg_power_w = 0;       ///< measured average board power over the epoch, W
  double epoch_images = 0;      ///< training images per epoch of the dataset
  bool fitted = true;           ///< its workload calibrates the model (else it is only scored)
  std::string where;            ///< "file:line"
};

/// Rows cnnperf can model, and how many it left out and why.
struct PowerData {
  std::vector<PowerRow> rows;
  std::map<std::string, std::size_t> skipped;  ///< reason -> rows
  std::string path;
};

/// Reads a power CSV (columns gpu, dataset, network, batch, power_limit_w, time_per_epoch_s,
/// avg_power_w). Keeps only (dataset, network) pairs whose zoo network is the architecture and
/// input that was measured (ImageNet ResNet-50: torchvision resnet50 at 224x224); the others
/// (CIFAR-sized ShuffleNetV2, BERT, DeepSpeech2, NCF) are counted in `skipped`.
/// Throws InputError naming file:line and field for malformed rows or unknown GPUs. `path` is
/// found as user_file_or_resource finds it (bundled `datasets/...` from any directory).
[[nodiscard]] PowerData load_power_rows(const std::string& path);
/// The rows of several power CSVs as one set, in order (names may be wildcards; a file named
/// twice is read once); `path` is the files' names, space-separated.
[[nodiscard]] PowerData load_power_rows(const std::vector<std::string>& files);

/// The power model's answer for one row, next to the measurement.
struct PowerRowResult {
  double predicted_power_w = 0;  ///< average step power under the row's cap, W
  double measured_power_w = 0;
  double predicted_slowdown = 1;      ///< step latency under the cap / under the reference cap
  double measured_slowdown = 1;       ///< epoch time under the cap / under the reference cap
  double predicted_energy_ratio = 1;  ///< energy per step under the cap / at the reference cap
  double measured_energy_ratio = 1;   ///< energy per epoch likewise
  double clock_ratio = 1;             ///< modelled SM clock / boost
  double predicted_epoch_s = 0;       ///< steps per epoch x predicted step latency, s
  double measured_epoch_s = 0;
  bool reference = false;  ///< the highest cap of its (GPU, network, batch): the baseline
};

/// Uncapped step predictions of every configuration of `data`, made once with `model`
/// (training mode, fp32) so that power models can be fitted and scored quickly.
class PowerCalibrationSet {
 public:
  PowerCalibrationSet(const PowerData& data, const LatencyModel& model);
  /// Predictions of `power` for the rows in `subset` (indices into data.rows), same order.
  [[nodiscard]] std::vector<PowerRowResult> evaluate(const PowerModel& power,
                                                     const std::vector<std::size_t>& subset) const;
  /// Fits the activity weights on the reference rows' power, then the cap response on the
  /// slowdowns of the other rows, both over the rows of `subset` whose workload is fitted.
  [[nodiscard]] PowerModel fit(const std::vector<std::size_t>& subset) const;
  [[nodiscard]] const PowerData& data() const { return data_; }

 private:
  PowerData data_;
  std::vector<NetworkPrediction> configs_;     ///< one per (GPU, network, batch)
  std::vector<std::size_t> config_of_row_;     ///< row -> configs_ index
  std::vector<std::size_t> reference_of_row_;  ///< row -> row index of its reference cap
};

/// Accuracy figures of one group of rows, in percent.
struct PowerScores {
  std::size_t rows = 0;
  double uncapped_power_mape = 0;       ///< reference rows: average power without a binding cap
  double power_mape = 0;                ///< every row: average power under its cap
  double slowdown_mape = 0;             ///< capped rows: slowdown relative to the reference cap
  double slowdown_within_10 = 0;        ///< share of capped rows whose slowdown is within ±10 %
  double ignore_cap_slowdown_mape = 0;  ///< the same error if the cap were ignored (slowdown 1)
  double energy_ratio_mape = 0;         ///< capped rows: energy relative to the reference cap
  double epoch_time_mape = 0;           ///< every row: absolute epoch time (latency model + cap)
};
[[nodiscard]] PowerScores score_power_rows(const std::vector<PowerRowResult>& results);
[[nodiscard]] nlohmann::json to_json(const PowerScores& scores);

/// Leave-one-GPU-out evaluation, the in-sample fit on every GPU, and the fitted model (whose
/// `calibration` field carries these figures). JSON: {"kind": "power_calibration", ...}.
[[nodiscard]] nlohmann::json power_calibration_report(const std::vector<std::string>& files,
                                                      const std::string& command_line);

/// The scores of one given power model on a power CSV, per GPU and overall (the validation).
[[nodiscard]] nlohmann::json power_validation_report(const std::vector<std::string>& files,
                                                     const PowerModel& power);

/// Either report as a table (with the fitted parameters and skipped rows), CSV or JSON.
[[nodiscard]] std::string format_power_report(const nlohmann::json& report, OutputFormat format);

}  // namespace cnnperf
