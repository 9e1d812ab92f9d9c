// SPDX-License-Identifier: Apache-2.0
// The JSON of `predict --layers` and its parser.
#include "cnnperf/predict/layer_predictions.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cnnperf/common/config.hpp"

namespace cnnperf {

namespace {

using OrderedJson = nlohmann::ordered_json;

// Index of the columns in kLayerPredictionColumns.
enum Column : std::size_t {
  kKernel,
  kOverhead,
  kLatency,
  kLatencyLo,
  kLatencyHi,
  kEnergy,
  kPower,
  kRoofline,
  kInDistribution
};

// The prediction's values from the members of `row` under `columns`, null: left unset.
LayerPrediction prediction_from_json(const OrderedJson& row,
                                     const LayerPredictionColumnNames& columns) {
  const auto at = [&](Column c) -> const OrderedJson* {
    const auto it = row.find(columns[c]);
    return it == row.end() || it->is_null() || it->is_string() ? nullptr : &*it;
  };
  const auto number = [&](Column c, double& field) {
    if (const OrderedJson* v = at(c)) field = v->get<double>();
  };
  LayerPrediction p;
  // Files without kernel_ms carry the kernel time as latency_ms (and no overhead).
  number(kLatency, p.kernel_ms);
  number(kKernel, p.kernel_ms);
  number(kOverhead, p.overhead_ms);
  if (at(kLatencyLo) != nullptr && at(kLatencyHi) != nullptr) {
    p.latency_interval =
        LatencyInterval{at(kLatencyLo)->get<double>(), at(kLatencyHi)->get<double>()};
  }
  number(kEnergy, p.energy_mj);
  number(kPower, p.avg_power_w);
  number(kRoofline, p.roofline_ms);
  if (const OrderedJson* v = at(kInDistribution)) p.in_distribution = v->get<bool>();
  return p;
}

}  // namespace

LayerPredictionColumnNames layer_prediction_column_names(
    const std::vector<std::string>& input_columns) {
  LayerPredictionColumnNames names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    names[i] = kLayerPredictionColumns[i];
    while (std::find(input_columns.begin(), input_columns.end(), names[i]) != input_columns.end()) {
      names[i] = "predicted_" + names[i];
    }
  }
  return names;
}

OrderedJson to_json(const LayerPredictionRow& row, const LayerPredictionColumnNames& columns) {
  const LayerPrediction& p = row.prediction;
  const auto& interval = p.latency_interval;
  OrderedJson out = OrderedJson::object();
  for (const auto& [column, cell] : row.cells) out[column] = cell;
  out[columns[kKernel]] = p.kernel_ms;
  out[columns[kOverhead]] = p.overhead_ms;
  out[columns[kLatency]] = p.latency_ms();
  out[columns[kLatencyLo]] = interval ? OrderedJson(interval->lo_ms) : OrderedJson();
  out[columns[kLatencyHi]] = interval ? OrderedJson(interval->hi_ms) : OrderedJson();
  out[columns[kEnergy]] = p.energy_mj;
  out[columns[kPower]] = p.avg_power_w;
  out[columns[kRoofline]] = p.roofline_ms;
  out[columns[kInDistribution]] = p.in_distribution;
  return out;
}

OrderedJson to_json(const LayerPredictions& result) {
  OrderedJson rows = OrderedJson::array();
  for (const auto& row : result.rows) rows.push_back(to_json(row, result.columns));
  return {{"schema_version", kPredictionSchemaVersion},
          {"tool_version", CNNPERF_VERSION},
          {"kind", "layer_predictions"},
          {"model", result.model},
          {"runtime", to_string(result.runtime)},
          {"gpu", result.gpu ? OrderedJson(nlohmann::json(*result.gpu))
                             : OrderedJson("per row: the gpu column")},
          {"gpus", result.gpus},
          {"source", result.source},
          {"intervals", result.intervals},
          {"rows", std::move(rows)}};
}

LayerPredictions layer_predictions_from_json(const OrderedJson& doc) {
  LayerPredictions result;
  result.model = doc.value("model", result.model);
  if (doc.contains("runtime")) {
    result.runtime = runtime_from_string(doc["runtime"].get<std::string>());
  }
  const auto gpu = doc.find("gpu");
  if (gpu != doc.end() && gpu->is_object()) {
    if (gpu->contains("architecture")) {
      result.gpu = gpu_spec_from_json(nlohmann::json(*gpu), "gpu", false);
    } else {
      GpuSpec named;
      named.name = gpu->value("name", named.name);
      named.display_name = gpu->value("display_name", named.display_name);
      result.gpu = named;
    }
  }
  result.gpus = doc.value("gpus", result.gpus);
  result.source = doc.value("source", result.source);
  result.intervals = doc.value("intervals", result.intervals);
  result.columns = layer_prediction_column_names({});
  if (!doc.contains("rows")) return result;
  bool first = true;
  for (const auto& r : doc["rows"]) {
    LayerPredictionRow row;
    std::vector<std::string> input_columns;
    for (const auto& [key, value] : r.items()) {
      if (!value.is_string()) continue;
      row.cells.emplace_back(key, value.get<std::string>());
      input_columns.push_back(key);
    }
    const LayerPredictionColumnNames columns = layer_prediction_column_names(input_columns);
    if (first) result.columns = columns;
    first = false;
    row.prediction = prediction_from_json(r, columns);
    result.rows.push_back(std::move(row));
  }
  return result;
}

}  // namespace cnnperf
