// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict --layers`: a layer CSV predicted and written a chunk of rows at a time.
#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/common/stream_io.hpp"
#include "cnnperf/model/layer_csv_reader.hpp"
#include "cnnperf/predict/layer_predictions.hpp"
#include "predict/predict_command.hpp"

namespace cnnperf {

namespace {

// Rows read, predicted and written at once: enough for the model's batches, little memory.
constexpr std::size_t kRowsPerChunk = 4096;

std::string fmt_ms(double v) {
  return format_number(v, 6);
}

// The GPU each row runs on: --gpu's, else the one its `gpu` cell names, resolved once a name.
class RowGpus {
 public:
  explicit RowGpus(const GpuSpec* gpu) : gpu_(gpu) {}

  const GpuSpec& of(const CsvTable& table, std::size_t row) {
    if (gpu_ != nullptr) return *gpu_;
    const auto name = table.get(row, "gpu");
    if (!name) throw InputError(table.where(row) + ": field 'gpu': expected a GPU name (or --gpu)");
    auto it = resolved_.find(*name);
    if (it == resolved_.end()) {
      try {
        it = resolved_.emplace(*name, GpuDatabase::bundled().resolve(*name)).first;
      } catch (const InputError& e) {
        throw InputError(table.where(row) + ": field 'gpu': " + e.what());
      }
    }
    return it->second;
  }

  // The GPUs of the rows seen, by the `gpu` value naming each in sorted order (one per value,
  // so two aliases of a board list it twice); --gpu's alone when given (none for no rows).
  [[nodiscard]] std::vector<std::string> names(bool any_row) const {
    if (gpu_ != nullptr) {
      return any_row ? std::vector<std::string>{gpu_->name} : std::vector<std::string>{};
    }
    std::vector<std::string> out;
    out.reserve(resolved_.size());
    for (const auto& [value, spec] : resolved_) out.push_back(spec.name);
    return out;
  }

 private:
  const GpuSpec* gpu_;
  std::map<std::string, GpuSpec> resolved_;
};

// The rows of one chunk predicted, each group of rows on one GPU at once.
std::vector<LayerPrediction> predict_chunk(const LayerTable& chunk, RowGpus& gpus,
                                           const LatencyModel& model, const LayersRun& run,
                                           const IntervalChoice& intervals) {
  std::vector<std::pair<const GpuSpec*, std::vector<std::size_t>>> groups;
  for (std::size_t i = 0; i < chunk.layers.size(); ++i) {
    const GpuSpec* gpu = &gpus.of(chunk.table, i);
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& entry) { return entry.first == gpu; });
    if (group == groups.end()) group = groups.insert(groups.end(), {gpu, {}});
    group->second.push_back(i);
  }
  std::vector<LayerPrediction> predictions(chunk.layers.size());
  for (const auto& [gpu, rows] : groups) {
    std::vector<Layer> layers;
    layers.reserve(rows.size());
    for (const std::size_t i : rows) layers.push_back(chunk.layers[i]);
    // The math a network's layer gets under the same runtime (predict_for_options).
    apply_runtime_math(layers, run.runtime, run.allow_tf32);
    std::vector<LayerPrediction> part =
        predict_layers_under(layers, *gpu, model, run.runtime, PowerModel::bundled());
    if (intervals.table) attach_layer_intervals(layers, part, *intervals.table);
    for (std::size_t j = 0; j < rows.size(); ++j) predictions[rows[j]] = std::move(part[j]);
  }
  return predictions;
}

// Renders the rows of each chunk as the format asks. JSON and CSV go out as they come; a table
// is aligned over all of its rows, so it holds them, kMaxLayerTableRows at most.
class LayerPredictionFormatter {
 public:
  LayerPredictionFormatter(const CsvTable& header, OutputFormat format)
      : header_(header), format_(format), added_(layer_prediction_column_names(header.header)) {}

  // The text before the first row.
  [[nodiscard]] std::string begin(const LatencyModel& model, const LayersRun& run,
                                  const GpuSpec* gpu, const std::vector<std::string>& gpu_names,
                                  const IntervalChoice& intervals) {
    if (format_ == OutputFormat::kJson) {
      // The rows are written as they are predicted (add_json_row), not held.
      LayerPredictions result;
      result.model = model.name();
      result.runtime = run.runtime;
      if (gpu != nullptr) result.gpu = *gpu;
      result.gpus = gpu_names;
      result.source = header_.source;
      result.intervals = intervals.table ? intervals.source : "none: " + intervals.missing;
      result.columns = added_;
      // The document with its rows left empty, cut where they go: "rows": [ | ]\n}
      const std::string whole = json_text(to_json(result));
      const std::size_t cut = whole.rfind("[]") + 1;
      json_end_ = whole.substr(cut) + "\n";
      return whole.substr(0, cut);
    }
    std::vector<std::string> names = header_.header;
    names.insert(names.end(), added_.begin(), added_.end());
    if (format_ == OutputFormat::kTable) {
      table_header_ = std::move(names);
      return {};
    }
    // Where the numbers came from, and the version of the JSON form, end each CSV row (the
    // table, for a person, leaves them out).
    for (std::string name : {"model", "runtime", "schema_version"}) {
      while (std::find(names.begin(), names.end(), name) != names.end()) {
        name = "predicted_" + name;
      }
      names.push_back(name);
    }
    provenance_ = "," + csv_line({model.name(), to_string(run.runtime),
                                  std::to_string(kPredictionSchemaVersion)});
    return csv_line(names) + "\n";
  }

  // The text of a chunk's rows.
  [[nodiscard]] std::string rows(CsvTable& chunk, const std::vector<LayerPrediction>& predictions) {
    std::string out;
    for (std::size_t i = 0; i < chunk.rows.size(); ++i) {
      const LayerPrediction& p = predictions[i];
      if (format_ == OutputFormat::kJson) {
        add_json_row(out, chunk.rows[i], p);
        continue;
      }
      std::vector<std::string>& row = chunk.rows[i];
      const auto& interval = p.latency_interval;
      std::array<std::string, 9> values{fmt_ms(p.kernel_ms),
                                        fmt_ms(p.overhead_ms),
                                        fmt_ms(p.latency_ms()),
                                        interval ? fmt_ms(interval->lo_ms) : "",
                                        interval ? fmt_ms(interval->hi_ms) : "",
                                        format_number(p.energy_mj, 6),
                                        format_number(p.avg_power_w, 5),
                                        fmt_ms(p.roofline_ms),
                                        p.in_distribution ? "true" : "false"};
      std::move(values.begin(), values.end(), std::back_inserter(row));
      if (format_ == OutputFormat::kCsv) {
        out += csv_line(row) + provenance_ + "\n";
        continue;
      }
      if (table_rows_.size() == kMaxLayerTableRows) {
        throw InputError(chunk.where(i) + ": more than " + std::to_string(kMaxLayerTableRows) +
                         " rows for --format table (expected --format csv or json, which "
                         "stream any number of rows)");
      }
      table_rows_.push_back(std::move(row));
    }
    return out;
  }

  // The text after the last row.
  [[nodiscard]] std::string end() const {
    if (format_ == OutputFormat::kJson) return (json_rows_ > 0 ? "\n  " : "") + json_end_;
    if (format_ == OutputFormat::kTable) return format_table(table_header_, table_rows_);
    return {};
  }

 private:
  void add_json_row(std::string& out, const std::vector<std::string>& cells,
                    const LayerPrediction& p) {
    LayerPredictionRow row{{}, p};
    row.cells.reserve(header_.header.size());
    for (std::size_t c = 0; c < header_.header.size(); ++c) {
      row.cells.emplace_back(header_.header[c], cells[c]);
    }
    // As the whole document prints it: each row an element of "rows", two levels in (a JSON
    // text holds no raw newline inside a string, so each one starts a line).
    out += json_rows_++ == 0 ? "\n    " : ",\n    ";
    for (const char c : json_text(to_json(row, added_))) {
      out.push_back(c);
      if (c == '\n') out += "    ";
    }
  }

  const CsvTable& header_;
  OutputFormat format_;
  LayerPredictionColumnNames added_;
  std::string provenance_;
  std::string json_end_;
  std::size_t json_rows_ = 0;
  std::vector<std::string> table_header_;
  std::vector<std::vector<std::string>> table_rows_;
};

}  // namespace

void write_layer_predictions(const std::filesystem::path& csv, const GpuSpec* gpu,
                             const LatencyModel& model, const LayersRun& run, OutputFormat format,
                             const std::function<void(std::string_view)>& write) {
  LayerCsvReader reader(csv);
  const CsvTable& header = reader.header();
  if (gpu == nullptr && !header.column("gpu")) {
    throw InputError("--gpu: required unless " + header.source + " has a 'gpu' column");
  }
  RowGpus gpus(gpu);
  if (format == OutputFormat::kJson && gpu == nullptr) {
    // JSON lists the GPUs before the rows: a first pass over the `gpu` column finds them.
    CsvReader rows(csv);
    CsvTable chunk;
    while (rows.read_rows(chunk, kRowsPerChunk) > 0) {
      for (std::size_t i = 0; i < chunk.rows.size(); ++i) (void)gpus.of(chunk, i);
    }
  }
  const IntervalChoice intervals = intervals_for(model);
  // Said in the output (`intervals`), so a log line only: the tool's own rows warn of nothing.
  if (!intervals.table) spdlog::info("no latency intervals: {}", intervals.missing);
  LayerPredictionFormatter formatter(header, format);
  LayerTable chunk;
  bool more = reader.read(chunk, kRowsPerChunk);
  // Held until the first chunk is predicted: an error in a short file prints nothing.
  std::string text = formatter.begin(model, run, gpu, gpus.names(more), intervals);
  for (; more; more = reader.read(chunk, kRowsPerChunk)) {
    const std::vector<LayerPrediction> predictions =
        predict_chunk(chunk, gpus, model, run, intervals);
    text += formatter.rows(chunk.table, predictions);
    write(text);
    text.clear();
  }
  write(text + formatter.end());
}

std::string predict_layers_text(const std::filesystem::path& csv, const GpuSpec* gpu,
                                const LatencyModel& model, const LayersRun& run,
                                OutputFormat format) {
  std::string out;
  write_layer_predictions(csv, gpu, model, run, format,
                          [&out](std::string_view text) { out += text; });
  return out;
}

}  // namespace cnnperf
