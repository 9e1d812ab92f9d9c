// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict --layers`: a layer CSV predicted and written a chunk of rows at a time.
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
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

  // Whether each row names its own GPU (no single one given).
  [[nodiscard]] bool per_row() const { return gpu_ == nullptr; }

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
    apply_runtime_math(layers, run.runtime, run.allow_tf32, run.layout);
    std::vector<LayerPrediction> part =
        predict_layers_under(layers, *gpu, model, run.runtime, PowerModel::bundled());
    if (intervals.table) {
      attach_layer_intervals(layers, part, *intervals.table, intervals.unseen_for(layers, *gpu));
    }
    for (std::size_t j = 0; j < rows.size(); ++j) predictions[rows[j]] = std::move(part[j]);
  }
  return predictions;
}

// What --from adds to each row, after the prediction's columns.
constexpr std::array<const char*, 2> kSourceColumns{"measured_ms_on_source_gpu", "source_gpu"};

// A --from row's measurement on its own GPU and that GPU's database name, and how many of
// the network's layers it stands for.
struct SourceMeasurement {
  double measured_ms = 0;
  std::string gpu;
  double count = 1;
};

// The network end to end of --from: the rows' sums (each an op run alone, as --layers gives),
// a row counted as many times as its `duplicates` cell says (profile folds a network's
// repeated layers into one row).
struct TransferTotal {
  double kernel_ms = 0;
  double overhead_ms = 0;
  double latency_ms = 0;
  double energy_mj = 0;
  double measured_ms = 0;
  std::size_t rows = 0;
  double layers = 0;
};

// The measured kernel time of a --from row: latency_ms, a positive number.
double measured_ms(const CsvTable& table, std::size_t row) {
  const std::optional<double> value = table.get_number(row, "latency_ms");
  if (!value || *value <= 0) {
    throw InputError(table.where(row) +
                     ": field 'latency_ms': expected the kernel time measured on the row's gpu, "
                     "a positive number in ms");
  }
  return *value;
}

// --from: each row's kernel_ms on the target is its measurement times the model's ratio
// between the target and the row's own GPU, so what the model misses on both GPUs alike (the
// library's algorithm, the shape's quirks) cancels. Energy follows the kernel time at the
// predicted power. Returns the rows' measurements, for their columns.
std::vector<SourceMeasurement> apply_measurements(const CsvTable& table, RowGpus& sources,
                                                  const std::vector<LayerPrediction>& on_source,
                                                  std::vector<LayerPrediction>& on_target) {
  std::vector<SourceMeasurement> measured;
  measured.reserve(table.rows.size());
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    const double ms = measured_ms(table, i);
    LayerPrediction& p = on_target[i];
    const double model_source_ms = on_source[i].kernel_ms;
    // ratio first: on the same GPU it is exactly 1, and the row keeps its measurement.
    if (model_source_ms > 0) {
      p.kernel_ms = ms * (p.kernel_ms / model_source_ms);
      p.energy_mj = p.avg_power_w * p.kernel_ms;  // W x ms = mJ
    }
    const std::optional<double> duplicates = table.get_number(i, "duplicates");
    if (duplicates && (*duplicates < 1 || *duplicates != std::floor(*duplicates))) {
      throw InputError(table.where(i) + ": field 'duplicates': expected a positive integer");
    }
    measured.push_back({ms, sources.of(table, i).name, duplicates.value_or(1)});
  }
  return measured;
}

// Renders the rows of each chunk as the format asks. JSON and CSV go out as they come; a table
// is aligned over all of its rows, so it holds them, kMaxLayerTableRows at most.
class LayerPredictionFormatter {
 public:
  // `from`: --from's rows, with kSourceColumns after the prediction's and a total.
  LayerPredictionFormatter(const CsvTable& header, OutputFormat format, bool from)
      : header_(header),
        format_(format),
        from_(from),
        added_(layer_prediction_column_names(header.header)) {}

  // The text before the first row. `source_gpus`: --from's, the GPUs the rows were measured on.
  [[nodiscard]] std::string begin(const LatencyModel& model, const LayersRun& run,
                                  const GpuSpec* gpu, const std::vector<std::string>& gpu_names,
                                  const IntervalChoice& intervals,
                                  const std::vector<std::string>& source_gpus) {
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
      nlohmann::ordered_json doc = to_json(result);
      if (from_) {
        // The rows stay last: the text is cut where they go.
        doc.erase("rows");
        doc["source_gpus"] = source_gpus;
        doc["transfer"] =
            "kernel_ms = measured_ms_on_source_gpu x the model's kernel_ms on gpu / on source_gpu";
        doc["rows"] = nlohmann::ordered_json::array();
      }
      // The document with its rows left empty, cut where they go: "rows": [ | ]\n}
      const std::string whole = json_text(doc);
      const std::size_t cut = whole.rfind("[]") + 1;
      json_end_ = whole.substr(cut) + "\n";
      return whole.substr(0, cut);
    }
    std::vector<std::string> names = header_.header;
    names.insert(names.end(), added_.begin(), added_.end());
    if (from_) names.insert(names.end(), kSourceColumns.begin(), kSourceColumns.end());
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

  // The text of a chunk's rows; `measured`: --from's, one per row.
  [[nodiscard]] std::string rows(CsvTable& chunk, const std::vector<LayerPrediction>& predictions,
                                 const std::vector<SourceMeasurement>& measured) {
    std::string out;
    for (std::size_t i = 0; i < chunk.rows.size(); ++i) {
      const LayerPrediction& p = predictions[i];
      const SourceMeasurement* source = from_ ? &measured[i] : nullptr;
      if (source != nullptr) add_to_total(p, *source);
      if (format_ == OutputFormat::kJson) {
        add_json_row(out, chunk.rows[i], p, source);
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
      if (source != nullptr) {
        row.push_back(fmt_ms(source->measured_ms));
        row.push_back(source->gpu);
      }
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
  // --from's total follows the rows in JSON and in a table (a CSV holds rows alone).
  [[nodiscard]] std::string end() const {
    if (format_ == OutputFormat::kJson) {
      const std::string rows_end = json_rows_ > 0 ? "\n  " : "";
      if (!from_) return rows_end + json_end_;
      std::string total = "],\n  \"total\": ";
      for (const char c : json_text(total_json())) {
        total.push_back(c);
        if (c == '\n') total += "  ";
      }
      return rows_end + total + "\n}\n";
    }
    if (format_ == OutputFormat::kTable) {
      std::string text = format_table(table_header_, table_rows_);
      if (from_) {
        text += "network end to end (" + std::to_string(total_.rows) + " rows, " +
                format_number(total_.layers, 9) +
                " layers with duplicates, each an op run alone): kernel_ms " +
                fmt_ms(total_.kernel_ms) + ", overhead_ms " + fmt_ms(total_.overhead_ms) +
                ", latency_ms " + fmt_ms(total_.latency_ms) + ", energy_mj " +
                format_number(total_.energy_mj, 6) + "; measured_ms_on_source_gpu " +
                fmt_ms(total_.measured_ms) + "\n";
      }
      return text;
    }
    return {};
  }

 private:
  void add_to_total(const LayerPrediction& p, const SourceMeasurement& source) {
    total_.kernel_ms += source.count * p.kernel_ms;
    total_.overhead_ms += source.count * p.overhead_ms;
    total_.latency_ms += source.count * p.latency_ms();
    total_.energy_mj += source.count * p.energy_mj;
    total_.measured_ms += source.count * source.measured_ms;
    ++total_.rows;
    total_.layers += source.count;
  }

  [[nodiscard]] nlohmann::ordered_json total_json() const {
    return {{"rows", total_.rows},
            {"layers", total_.layers},
            {"kernel_ms", total_.kernel_ms},
            {"overhead_ms", total_.overhead_ms},
            {"latency_ms", total_.latency_ms},
            {"energy_mj", total_.energy_mj},
            {"measured_ms_on_source_gpu", total_.measured_ms}};
  }

  void add_json_row(std::string& out, const std::vector<std::string>& cells,
                    const LayerPrediction& p, const SourceMeasurement* source) {
    LayerPredictionRow row{{}, p};
    row.cells.reserve(header_.header.size());
    for (std::size_t c = 0; c < header_.header.size(); ++c) {
      row.cells.emplace_back(header_.header[c], cells[c]);
    }
    // As the whole document prints it: each row an element of "rows", two levels in (a JSON
    // text holds no raw newline inside a string, so each one starts a line).
    out += json_rows_++ == 0 ? "\n    " : ",\n    ";
    nlohmann::ordered_json doc = to_json(row, added_);
    if (source != nullptr) {
      doc[kSourceColumns[0]] = source->measured_ms;
      doc[kSourceColumns[1]] = source->gpu;
    }
    for (const char c : json_text(doc)) {
      out.push_back(c);
      if (c == '\n') out += "    ";
    }
  }

  const CsvTable& header_;
  OutputFormat format_;
  bool from_;
  LayerPredictionColumnNames added_;
  TransferTotal total_;
  std::string provenance_;
  std::string json_end_;
  std::size_t json_rows_ = 0;
  std::vector<std::string> table_header_;
  std::vector<std::vector<std::string>> table_rows_;
};

}  // namespace

namespace {

// The rows of `csv` predicted a chunk at a time: on `gpu` (nullptr: each row's own), or with
// `target`, --from's: each row's measurement carried to the target (apply_measurements).
void write_rows(const std::filesystem::path& csv, const GpuSpec* gpu, const GpuSpec* target,
                const LatencyModel& model, const LayersRun& run, OutputFormat format,
                const std::function<void(std::string_view)>& write) {
  LayerCsvReader reader(csv);
  const CsvTable& header = reader.header();
  const bool from = target != nullptr;
  if (from) {
    for (const char* name : {"latency_ms", "gpu"}) {
      if (!header.column(name)) {
        throw InputError(header.source + ":1: field '" + name +
                         "': missing; expected --from rows measured by `cnnperf profile` "
                         "(latency_ms, the kernel time, and the gpu it ran on)");
      }
    }
    for (const char* name : kSourceColumns) {
      if (header.column(name)) {
        throw InputError(header.source + ":1: field '" + name +
                         "': expected measured rows, not rows --from already wrote");
      }
    }
  } else if (gpu == nullptr && !header.column("gpu")) {
    throw InputError("--gpu: required unless " + header.source + " has a 'gpu' column");
  }
  RowGpus gpus(from ? nullptr : gpu);
  if (format == OutputFormat::kJson && gpus.per_row()) {
    // JSON lists the GPUs before the rows: a first pass over the `gpu` column finds them.
    CsvReader rows(csv);
    CsvTable chunk;
    while (rows.read_rows(chunk, kRowsPerChunk) > 0) {
      for (std::size_t i = 0; i < chunk.rows.size(); ++i) (void)gpus.of(chunk, i);
    }
  }
  // The model's intervals describe its own error, not that of a measurement carried over.
  IntervalChoice intervals;
  if (from) {
    intervals.missing = "a prediction from a measured row (--from) has no interval table";
  } else {
    intervals = intervals_for(model);
  }
  // Said in the output (`intervals`), so a log line only: the tool's own rows warn of nothing.
  if (!intervals.table) spdlog::info("no latency intervals: {}", intervals.missing);
  LayerPredictionFormatter formatter(header, format, from);
  RowGpus on_target(target);
  LayerTable chunk;
  bool more = reader.read(chunk, kRowsPerChunk);
  // Held until the first chunk is predicted: an error in a short file prints nothing.
  std::string text =
      from ? formatter.begin(model, run, target, on_target.names(more), intervals, gpus.names(more))
           : formatter.begin(model, run, gpu, gpus.names(more), intervals, {});
  for (; more; more = reader.read(chunk, kRowsPerChunk)) {
    std::vector<LayerPrediction> predictions = predict_chunk(chunk, gpus, model, run, intervals);
    std::vector<SourceMeasurement> measured;
    if (from) {
      std::vector<LayerPrediction> on_source = std::move(predictions);
      predictions = predict_chunk(chunk, on_target, model, run, intervals);
      measured = apply_measurements(chunk.table, gpus, on_source, predictions);
    }
    text += formatter.rows(chunk.table, predictions, measured);
    write(text);
    text.clear();
  }
  write(text + formatter.end());
}

}  // namespace

void write_layer_predictions(const std::filesystem::path& csv, const GpuSpec* gpu,
                             const LatencyModel& model, const LayersRun& run, OutputFormat format,
                             const std::function<void(std::string_view)>& write) {
  write_rows(csv, gpu, nullptr, model, run, format, write);
}

void write_transfer_predictions(const std::filesystem::path& csv, const GpuSpec& target,
                                const LatencyModel& model, const LayersRun& run,
                                OutputFormat format,
                                const std::function<void(std::string_view)>& write) {
  write_rows(csv, nullptr, &target, model, run, format, write);
}

namespace {

/// What a streaming writer writes, as one string.
std::string collected(
    const std::function<void(const std::function<void(std::string_view)>&)>& write_all) {
  std::string out;
  write_all([&out](std::string_view text) { out += text; });
  return out;
}

}  // namespace

std::string predict_layers_text(const std::filesystem::path& csv, const GpuSpec* gpu,
                                const LatencyModel& model, const LayersRun& run,
                                OutputFormat format) {
  return collected(
      [&](const auto& write) { write_layer_predictions(csv, gpu, model, run, format, write); });
}

std::string predict_transfer_text(const std::filesystem::path& csv, const GpuSpec& target,
                                  const LatencyModel& model, const LayersRun& run,
                                  OutputFormat format) {
  return collected([&](const auto& write) {
    write_transfer_predictions(csv, target, model, run, format, write);
  });
}

}  // namespace cnnperf
