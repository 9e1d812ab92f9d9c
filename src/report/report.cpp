// SPDX-License-Identifier: Apache-2.0
// `cnnperf report`: JSON results -> one self-contained HTML page. Each input is recognised
// (report kind), then rendered by the section writer of that kind; anything unrecognised
// goes through the generic writer, which accepts every valid JSON value.
#include "cnnperf/report/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/ml/results.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/network_layers.hpp"
#include "cnnperf/predict/layer_predictions.hpp"
#include "cnnperf/predict/plan.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/sweep.hpp"
#include "cnnperf/ptx/ptx.hpp"
#include "cnnperf/ptx/ptx_emu.hpp"
#include "cnnperf/report/svg_chart.hpp"

namespace cnnperf {

namespace {

// Ordered, so tables keep the column order the producing command wrote.
using Json = nlohmann::ordered_json;
using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Caps keep a report of a 100k-row layer file viewable. A network's per-layer bar charts show
// its slowest layers only (kTopLayerBars): 175 bars of ResNet-50 were a page of small slivers;
// its time by op class and bound and its roofline cover every layer.
constexpr std::size_t kTopLayerBars = 25;
constexpr std::size_t kMaxTableRows = 1000;
constexpr std::size_t kMaxBars = 2000;
constexpr std::size_t kMaxScatterPoints = 20000;
constexpr std::size_t kSlowestLayers = 15;
constexpr std::size_t kMaxCellChars = 160;
constexpr int kMaxFlattenDepth = 4;

constexpr const char* kStyle = R"(
body{font-family:sans-serif;font-size:14px;color:#222;margin:24px auto;max-width:1180px;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:36px;border-bottom:2px solid #4e79a7;padding-bottom:4px}
h3{font-size:15px;margin-top:22px}
p.meta{color:#555;margin-top:0}
table{border-collapse:collapse;margin:8px 0 12px 0;font-size:12px}
th,td{border:1px solid #ddd;padding:3px 7px;vertical-align:top;text-align:left}
th{background:#f2f4f7}
td{white-space:nowrap}table.kv td,table.wrap td{white-space:normal}
table.wrap th,table.wrap td{overflow-wrap:anywhere}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.kv th{width:220px;font-weight:normal;color:#444;background:#f7f7f7}
tr.muted td{color:#999;background:#fafafa}
ul.warnings li{color:#8a4b00}
p.note{color:#666;font-size:12px}
div.scroll{overflow-x:auto}
svg.chart{display:block;margin:8px 0 16px 0;max-width:100%;height:auto}
details{margin:8px 0}summary{cursor:pointer;color:#333}
)";

// Top-level fields that say where a result came from; the provenance table shows them, so
// the per-kind field tables leave them out.
const std::vector<std::string> kProvenanceKeys{
    "schema_version", "tool_version",    "kind",           "model",      "model_fingerprint",
    "latency_model",  "power_model",     "network_source", "source",     "sources",
    "database",       "accuracy_source", "data",           "fingerprint"};

bool is_provenance_key(const std::string& key) {
  return std::find(kProvenanceKeys.begin(), kProvenanceKeys.end(), key) != kProvenanceKeys.end();
}

/// `cols` with the names in `front` first (those present, in that order), then the rest in
/// their own order, then the names in `back`.
std::vector<std::string> order_columns(const std::vector<std::string>& cols,
                                       const std::vector<std::string>& front,
                                       const std::vector<std::string>& back = {}) {
  auto has = [&](const std::string& c) {
    return std::find(cols.begin(), cols.end(), c) != cols.end();
  };
  auto listed = [&](const std::vector<std::string>& list, const std::string& c) {
    return std::find(list.begin(), list.end(), c) != list.end();
  };
  std::vector<std::string> out;
  for (const auto& c : front) {
    if (has(c) && !listed(out, c)) {
      out.push_back(c);
    }
  }
  for (const auto& c : cols) {
    if (!listed(front, c) && !listed(back, c)) {
      out.push_back(c);
    }
  }
  for (const auto& c : back) {
    if (has(c) && !listed(out, c)) {
      out.push_back(c);
    }
  }
  return out;
}

// Identity columns first, then the headline metric, as the train/validate tables print them.
const std::vector<std::string> kMetricColumns{
    "regressor", "family", "gpu",         "cv",           "scope",    "n",
    "mape_pct",  "r2",     "adjusted_r2", "within_10pct", "spearman", "rmse"};

// ---- JSON value helpers -----------------------------------------------------------------

std::string dump_compact(const Json& v) {
  return v.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

std::string cut(std::string text, std::size_t limit) {
  if (text.size() > limit) {
    text = text.substr(0, limit - 3) + "...";
  }
  return text;
}

bool is_scalar(const Json& v) {
  return !v.is_object() && !v.is_array();
}

bool is_array_of_objects(const Json& v) {
  return v.is_array() && !v.empty() &&
         std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_object(); });
}

/// Text of a value as shown in a table cell: numbers with `digits` significant digits
/// (integers exact), arrays of scalars joined, anything nested as compact JSON.
std::string value_text(const Json& v, int digits = 4) {
  if (v.is_string()) {
    return v.get<std::string>();
  }
  if (v.is_boolean()) {
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_null()) {
    return "null";
  }
  if (v.is_number_unsigned()) {
    return std::to_string(v.get<std::uint64_t>());
  }
  if (v.is_number_integer()) {
    return std::to_string(v.get<std::int64_t>());
  }
  if (v.is_number_float()) {
    return format_number(v.get<double>(), digits);
  }
  if (v.is_array() && std::all_of(v.begin(), v.end(), is_scalar)) {
    std::string out;
    for (const auto& e : v) {
      out += (out.empty() ? "" : ", ") + value_text(e, digits);
    }
    return out;
  }
  return cut(dump_compact(v), kMaxCellChars);
}

/// A numeric value, also from a numeric string (layer CSV cells pass through as text).
std::optional<double> number_of(const Json& v) {
  if (v.is_number()) {
    return v.get<double>();
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.empty()) {
      return std::nullopt;
    }
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end == s.c_str() + s.size() && std::isfinite(d)) {
      return d;
    }
  }
  return std::nullopt;
}

std::optional<double> number_at(const Json& obj, const std::string& key) {
  if (!obj.is_object()) {
    return std::nullopt;
  }
  const auto it = obj.find(key);
  if (it == obj.end()) {
    return std::nullopt;
  }
  return number_of(*it);
}

std::string string_at(const Json& obj, const std::string& key, const std::string& fallback = {}) {
  if (!obj.is_object()) {
    return fallback;
  }
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    return fallback;
  }
  return value_text(*it, 6);
}

bool numeric_looking(const std::string& text) {
  if (text.empty()) {
    return false;
  }
  char* end = nullptr;
  (void)std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

/// Scalars of an object as "a.b.c" keys; arrays of objects are left to the table writer.
void flatten(const Json& obj, const std::string& prefix, KeyValues& out, int depth = 0) {
  for (const auto& [key, v] : obj.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (v.is_object() && !v.empty() && depth < kMaxFlattenDepth) {
      flatten(v, name, out, depth + 1);
    } else if (is_array_of_objects(v)) {
      out.emplace_back(name, std::to_string(v.size()) + " object(s), tabulated below");
    } else {
      out.emplace_back(name, value_text(v, 6));
    }
  }
}

// ---- HTML pieces ----------------------------------------------------------------------

std::string kv_table(const KeyValues& rows) {
  std::string out = "<table class=\"kv\">\n";
  for (const auto& [k, v] : rows) {
    out += "<tr><th>" + html_escape(k) + "</th><td>" + html_escape(v) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

/// A table; cells that look numeric are right-aligned; rows flagged muted are greyed.
std::string html_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::vector<bool>& muted = {}, bool wrap = false) {
  std::string out =
      std::string("<div class=\"scroll\"><table") + (wrap ? " class=\"wrap\"" : "") + ">\n<tr>";
  for (const auto& h : header) {
    out += "<th>" + html_escape(h) + "</th>";
  }
  out += "</tr>\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += (r < muted.size() && muted[r]) ? "<tr class=\"muted\">" : "<tr>";
    for (const auto& cell : rows[r]) {
      out += numeric_looking(cell) ? "<td class=\"num\">" : "<td>";
      out += html_escape(cell) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

std::string note(const std::string& text) {
  return "<p class=\"note\">" + html_escape(text) + "</p>\n";
}

std::string h3(const std::string& text) {
  return "<h3>" + html_escape(text) + "</h3>\n";
}

std::string warnings_list(const Json& doc) {
  const auto it = doc.find("warnings");
  if (it == doc.end()) {
    return {};
  }
  std::string out = h3("Warnings");
  if (!it->is_array() || it->empty()) {
    if (it->is_array()) {
      return out + note("none");
    }
    return out + "<ul class=\"warnings\"><li>" + html_escape(value_text(*it)) + "</li></ul>\n";
  }
  out += "<ul class=\"warnings\">\n";
  for (const auto& w : *it) {
    out += "<li>" + html_escape(value_text(w)) + "</li>\n";
  }
  return out + "</ul>\n";
}

/// schema_version, tool_version, kind and every provenance field the producer wrote.
std::string provenance(const Json& doc, const std::set<std::string>& shown_elsewhere) {
  KeyValues rows;
  if (!doc.is_object()) {
    rows.emplace_back("schema_version", "not given");
    rows.emplace_back("tool_version", "not given");
    return kv_table(rows);
  }
  for (const char* key : {"schema_version", "tool_version"}) {
    rows.emplace_back(key, string_at(doc, key, "not given"));
  }
  for (const auto& key : kProvenanceKeys) {
    if (key == "schema_version" || key == "tool_version") {
      continue;
    }
    const auto it = doc.find(key);
    if (it == doc.end() || shown_elsewhere.count(key) > 0) {
      continue;
    }
    if (it->is_object()) {
      flatten(*it, key, rows);
    } else {
      rows.emplace_back(key, value_text(*it, 6));
    }
  }
  return kv_table(rows);
}

// ---- generic ------------------------------------------------------------------------------

/// Column union of an array of objects, in first-seen order.
std::vector<std::string> columns_of(const Json& array) {
  std::vector<std::string> cols;
  std::set<std::string> seen;
  for (const auto& row : array) {
    for (const auto& [k, v] : row.items()) {
      if (seen.insert(k).second) {
        cols.push_back(k);
      }
    }
  }
  return cols;
}

std::string object_table(const Json& array, const std::vector<std::string>& cols,
                         std::size_t limit = kMaxTableRows) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < array.size() && i < limit; ++i) {
    std::vector<std::string> row;
    for (const auto& c : cols) {
      const auto it = array[i].find(c);
      row.push_back(it == array[i].end() ? "" : value_text(*it));
    }
    rows.push_back(std::move(row));
  }
  std::string out = html_table(cols, rows);
  if (array.size() > limit) {
    out += note("first " + std::to_string(limit) + " of " + std::to_string(array.size()) +
                " rows shown");
  }
  return out;
}

/// Label column of a table: "name" or the first string-valued column.
std::optional<std::string> label_column(const Json& array, const std::vector<std::string>& cols) {
  for (const char* preferred : {"name", "label", "network", "kernel", "regressor"}) {
    if (std::find(cols.begin(), cols.end(), preferred) != cols.end()) {
      return preferred;
    }
  }
  for (const auto& c : cols) {
    const auto it = array.front().find(c);
    if (it != array.front().end() && it->is_string() && !number_of(*it)) {
      return c;
    }
  }
  return std::nullopt;
}

/// The numeric column a generic bar chart shows: a well-known measure when present, else
/// the first numeric column whose values are not all the same.
std::optional<std::string> measure_column(const Json& array, const std::vector<std::string>& cols) {
  auto numeric = [&](const std::string& c) {
    std::size_t count = 0;
    std::set<double> distinct;
    for (const auto& row : array) {
      const auto it = row.find(c);
      if (it == row.end() || !it->is_number()) {
        continue;
      }
      ++count;
      if (distinct.size() < 2) {
        distinct.insert(it->get<double>());
      }
    }
    return std::pair{count, distinct.size()};
  };
  for (const char* preferred : {"latency_ms", "mape_pct", "score", "energy_j", "energy_mj", "flops",
                                "macs", "params", "value"}) {
    if (std::find(cols.begin(), cols.end(), preferred) == cols.end()) {
      continue;
    }
    if (numeric(preferred).first > 0) {
      return preferred;
    }
  }
  for (const auto& c : cols) {
    const auto [count, distinct] = numeric(c);
    if (count > 0 && distinct > 1) {
      return c;
    }
  }
  return std::nullopt;
}

std::string generic_array_section(const std::string& path, const Json& array) {
  const auto cols = columns_of(array);
  std::string out = h3(path + " (" + std::to_string(array.size()) + " rows)");
  const auto measure = measure_column(array, cols);
  if (measure) {
    const auto label = label_column(array, cols);
    BarChart chart;
    chart.title = *measure + " per row of " + path;
    chart.value_label = *measure + " (as given)";
    for (std::size_t i = 0; i < array.size() && i < kMaxBars; ++i) {
      const auto v = number_at(array[i], *measure);
      if (!v) {
        continue;
      }
      std::string text = "#" + std::to_string(i + 1);
      if (label && array[i].contains(*label)) {
        text += " " + value_text(array[i][*label]);
      }
      chart.bars.push_back({text, *v, std::nullopt, false, {}});
    }
    out += render_bar_chart(chart);
    if (array.size() > kMaxBars) {
      out += note("chart shows the first " + std::to_string(kMaxBars) + " rows");
    }
  }
  return out + object_table(array, cols);
}

void collect_arrays(const Json& v, const std::string& path,
                    std::vector<std::pair<std::string, const Json*>>& out, int depth) {
  if (is_array_of_objects(v)) {
    out.emplace_back(path, &v);
    return;
  }
  if (!v.is_object() || depth >= kMaxFlattenDepth) {
    return;
  }
  for (const auto& [k, child] : v.items()) {
    collect_arrays(child, path.empty() ? k : path + "." + k, out, depth + 1);
  }
}

std::string render_generic(const Json& doc) {
  std::string out;
  if (!doc.is_object()) {
    if (is_array_of_objects(doc)) {
      return generic_array_section("(top level)", doc);
    }
    return kv_table({{"value", value_text(doc, 6)}});
  }
  KeyValues rows;
  Json rest = Json::object();
  for (const auto& [k, v] : doc.items()) {
    if (!is_provenance_key(k)) {
      rest[k] = v;
    }
  }
  flatten(rest, "", rows);
  if (!rows.empty()) {
    out += h3("Fields") + kv_table(rows);
  }
  std::vector<std::pair<std::string, const Json*>> arrays;
  collect_arrays(doc, "", arrays, 0);
  for (const auto& [path, array] : arrays) {
    out += generic_array_section(path, *array);
  }
  return out;
}

// ---- network_prediction --------------------------------------------------------------------

// The bounds the latency model names (LayerPrediction::bound), in the charts' series order;
// "other": none, fused, or a name an older file wrote.
constexpr std::array<const char*, 4> kBoundSeries{"compute-bound", "memory-bound",
                                                  "overhead-bound (launch)", "other"};
std::size_t bound_series(const std::string& bound) {
  if (bound == "compute") return 0;
  if (bound == "memory") return 1;
  if (bound == "overhead") return 2;
  return 3;
}

// A layer's op class (conv, gemm, pointwise, ...) from its op's name; "other" for a name this
// build does not know (a file of another version).
std::string op_class_of(const LayerPredictionRecord& layer) {
  try {
    return to_string(op_class(op_from_string(layer.op)));
  } catch (const InputError&) {
    return "other";
  }
}

std::string text_or(const std::string& text, const char* fallback) {
  return text.empty() ? fallback : text;
}

// Kernel time by op class, each split by bound; a bar of all kernels first, and the step's time
// outside kernels (host issue, runtime gaps, input copy, per-step constant) last.
std::string time_by_class_chart(const NetworkPredictionRecord& result) {
  constexpr std::size_t kOutside = kBoundSeries.size();
  std::vector<std::pair<std::string, std::vector<double>>> classes;
  std::vector<double> all(kOutside + 1, 0.0);
  for (const auto& l : result.layers) {
    const double ms = l.prediction.kernel_ms;
    if (!(ms > 0)) continue;
    const std::string cls = op_class_of(l);
    auto it =
        std::find_if(classes.begin(), classes.end(), [&](const auto& c) { return c.first == cls; });
    if (it == classes.end()) {
      classes.emplace_back(cls, std::vector<double>(kOutside + 1, 0.0));
      it = std::prev(classes.end());
    }
    const std::size_t b = bound_series(l.prediction.bound);
    it->second[b] += ms;
    all[b] += ms;
  }
  const auto sum = [](const std::vector<double>& parts) {
    double out = 0;
    for (const double p : parts) out += p;
    return out;
  };
  // Largest first; stable, so equal sums keep first-seen order and the page stays deterministic.
  std::stable_sort(classes.begin(), classes.end(),
                   [&](const auto& a, const auto& b) { return sum(a.second) > sum(b.second); });
  StackedBarChart chart;
  chart.title = "Time by op class and bound";
  chart.value_label = "ms";
  chart.series.assign(kBoundSeries.begin(), kBoundSeries.end());
  chart.series.emplace_back("outside kernels (host, runtime)");
  chart.bars.push_back({"all kernels", all, false, "kernel_ms of every layer"});
  for (const auto& [cls, parts] : classes) chart.bars.push_back({cls, parts, false, "kernel_ms"});
  if (result.latency_ms > result.kernel_ms) {
    std::vector<double> outside(kOutside + 1, 0.0);
    outside[kOutside] = result.latency_ms - result.kernel_ms;
    chart.bars.push_back({"step outside kernels", outside, false, "latency_ms - kernel_ms"});
  }
  return render_stacked_bar_chart(chart) +
         note(
             "A layer's bound is the latency model's: what limits its kernels (the SM pipes, "
             "DRAM, or launch latency for tiny kernels). The last bar is the step's latency_ms "
             "minus its kernel_ms: host issue, gaps between kernels, input copy and the per-step "
             "constant, less the kernel time the step overlaps or scales away.");
}

// Roofs of the GPU entry for the step's precision: (label, FLOP/s).
std::vector<std::pair<std::string, double>> compute_roofs(const NetworkPredictionRecord& result) {
  const GpuSpec& gpu = result.gpu;
  constexpr double kTera = 1e12;
  std::vector<std::pair<std::string, double>> roofs;
  switch (result.precision) {
    case DType::kFp16:
      roofs = {{"fp16 CUDA cores", gpu.fp16_tflops * kTera},
               {"fp16 tensor cores", gpu.tensor_fp16_tflops * kTera}};
      break;
    case DType::kBf16: roofs = {{"bf16 tensor cores", gpu.tensor_bf16_tflops * kTera}}; break;
    case DType::kInt8: roofs = {{"int8 tensor cores (op/s)", gpu.tensor_int8_tops * kTera}}; break;
    default:
      roofs = {{"fp32 CUDA cores", gpu.fp32_tflops * kTera}};
      // The TF32 rate the analytical model runs fp32 convolutions at (analytical.cpp).
      if (result.tf32_convolutions > 0) {
        roofs.emplace_back("TF32 tensor cores", gpu.tensor_tf32_tflops * kTera);
      }
  }
  std::erase_if(roofs, [](const auto& r) { return !(r.second > 0); });
  return roofs;
}

// Each layer at its arithmetic intensity and achieved FLOP/s under the GPU's roofs.
std::string roofline_chart(const NetworkPredictionRecord& result) {
  XyChart chart;
  chart.title = "Roofline: each layer's achieved FLOP/s at its arithmetic intensity";
  chart.x_label = "arithmetic intensity (flops / bytes)";
  chart.y_label = "FLOP/s (flops / kernel_ms)";
  chart.series.assign(kBoundSeries.begin(), kBoundSeries.end());
  double x_lo = 0;
  double x_hi = 0;
  for (const auto& l : result.layers) {
    const double ms = l.prediction.kernel_ms;
    if (!(l.flops > 0) || !(l.bytes > 0) || !(ms > 0)) continue;
    const double intensity = l.flops / l.bytes;
    const double rate = l.flops / (ms * 1e-3);
    x_lo = chart.points.empty() ? intensity : std::min(x_lo, intensity);
    x_hi = chart.points.empty() ? intensity : std::max(x_hi, intensity);
    chart.points.push_back(
        {intensity, rate,
         text_or(l.name, "?") + " (" + l.op + ", " + text_or(l.prediction.bound, "?") +
             "): " + format_number(intensity, 4) + " flops/byte, " + format_number(rate / 1e9, 4) +
             " GFLOP/s, " + format_number(ms, 4) + " ms",
         bound_series(l.prediction.bound), std::nullopt});
  }
  const double bandwidth = result.gpu.memory_bandwidth_gbs * 1e9;
  const auto roofs = compute_roofs(result);
  std::string roof_text;
  if (bandwidth > 0 && !roofs.empty() && !chart.points.empty()) {
    double top = 0;
    for (const auto& r : roofs) top = std::max(top, r.second);
    x_hi = std::max(x_hi, 2 * top / bandwidth);
    chart.lines.push_back({"DRAM " + format_number(bandwidth / 1e9, 4) + " GB/s",
                           {{x_lo, bandwidth * x_lo}, {top / bandwidth, top}},
                           false,
                           "#555"});
    constexpr std::array<const char*, 3> kRoofColors{"#b00020", "#7a3db8", "#2b7a2b"};
    for (std::size_t k = 0; k < roofs.size(); ++k) {
      const auto& [name, peak] = roofs[k];
      chart.lines.push_back({name + " " + format_number(peak / 1e12, 4) + " TFLOP/s",
                             {{peak / bandwidth, peak}, {x_hi, peak}},
                             true,
                             kRoofColors[k % kRoofColors.size()]});
    }
  } else {
    roof_text = " No roofs: the GPU entry has no memory_bandwidth_gbs or peak rate for " +
                to_string(result.precision) + ".";
  }
  if (chart.points.empty()) return "";
  return render_xy_chart(chart) +
         note(
             "x: the layer's flops over the bytes the model counts it moving (DRAM); y: its "
             "flops over its predicted kernel_ms. Roofs from the GPU entry: DRAM bandwidth x "
             "intensity, and the peak rate of each unit the step's precision can use." +
             roof_text);
}

// The `top` largest of `bars` by value, largest first (stable: ties keep network order).
std::vector<Bar> largest_bars(std::vector<Bar> bars, std::size_t top) {
  std::stable_sort(bars.begin(), bars.end(),
                   [](const Bar& a, const Bar& b) { return a.value > b.value; });
  if (bars.size() > top) bars.resize(top);
  return bars;
}

// A GPU named by a string alone (older files) has no database entry: its name only.
bool has_gpu_entry(const GpuSpec& gpu) {
  return !gpu.display_name.empty();
}

std::string render_network_prediction(const Json& doc) {
  const NetworkPredictionRecord result = network_prediction_from_json(nlohmann::json(doc));
  const Json typed = to_json(result);
  std::string out;
  const GpuSpec& gpu = result.gpu;
  KeyValues setup{
      {"GPU", has_gpu_entry(gpu) ? gpu.display_name + " (" + gpu.name + ")" : gpu.name},
      {"network",
       result.network + (result.network_source.empty() ? "" : " (" + result.network_source + ")")}};
  for (const char* key : {"batch", "mode", "precision", "model", "power_model", "power_limit_w"}) {
    if (typed.contains(key)) setup.emplace_back(key, string_at(typed, key));
  }
  out += h3("Setup") + kv_table(setup);
  if (typed.contains("power_cap")) {
    KeyValues cap;
    flatten(typed["power_cap"], "", cap);
    out += h3("Power cap") + kv_table(cap);
  }
  // A file without totals (none of cnnperf's) has no figures to show, not zeros.
  if (doc.contains("total")) {
    // The four figures a reader looks for first, with units, then whatever else is there.
    const Json& total = typed["total"];
    KeyValues totals;
    const std::vector<std::pair<std::string, std::string>> main_figures{
        {"kernel_ms", "ms"}, {"latency_ms", "ms"}, {"energy_j", "J"}, {"avg_power_w", "W"}};
    for (const auto& [key, unit] : main_figures) {
      totals.emplace_back(key + " (" + unit + ")", value_text(total[key], 6));
    }
    for (const auto& item : total.items()) {
      const std::string& key = item.key();
      const bool main = std::any_of(main_figures.begin(), main_figures.end(),
                                    [&](const auto& f) { return f.first == key; });
      if (!main) {
        totals.emplace_back(key, value_text(item.value(), 6));
      }
    }
    out += h3("Totals") + kv_table(totals) +
           note(
               "kernel_ms: sum of predicted GPU kernel time; latency_ms: end-to-end time of one "
               "step in an eager framework (launch overhead and input copy included).");
  }

  const std::vector<LayerPredictionRecord>& layers = result.layers;
  const std::string shown = std::to_string(std::min(layers.size(), kTopLayerBars)) + " of " +
                            std::to_string(layers.size()) + " layers";
  BarChart latency;
  latency.title = "Slowest layers by kernel time (" + shown + ")";
  latency.value_label = "kernel_ms (ms)";
  latency.marker_label = "roofline_ms (lower bound)";
  BarChart energy;
  energy.title = "Layers with the most energy (" + shown + ")";
  energy.value_label = "energy_mj (mJ)";
  // Layers the model flags as outside its training range are drawn in the warning colour.
  latency.flag_label = energy.flag_label = "in_distribution: false";
  double summed_ms = 0;
  for (const auto& l : layers) {
    const LayerPrediction& p = l.prediction;
    const std::string label = text_or(l.name, "?");
    const bool out_of_range = !p.in_distribution;
    const std::string what =
        l.op + ", bound: " + text_or(p.bound, "?") + (out_of_range ? ", out of range" : "");
    summed_ms += p.kernel_ms;
    latency.bars.push_back({label, p.kernel_ms, p.roofline_ms, false, what, out_of_range});
    energy.bars.push_back({label, p.energy_mj, std::nullopt, false, what, out_of_range});
  }
  if (!layers.empty()) {
    out += h3("Where the time goes") + time_by_class_chart(result);
    out += h3("Roofline") + roofline_chart(result);
    latency.bars = largest_bars(std::move(latency.bars), kTopLayerBars);
    energy.bars = largest_bars(std::move(energy.bars), kTopLayerBars);
    out += h3("Slowest layers") + render_bar_chart(latency);
    out += h3("Energy per layer") + render_bar_chart(energy);

    std::vector<const LayerPredictionRecord*> order;
    order.reserve(layers.size());
    for (const auto& l : layers) order.push_back(&l);
    // Stable, so equal latencies keep network order and the page stays deterministic.
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
      return a->prediction.kernel_ms > b->prediction.kernel_ms;
    });
    std::vector<std::vector<std::string>> rows;
    for (std::size_t k = 0; k < order.size() && k < kSlowestLayers; ++k) {
      const LayerPredictionRecord& l = *order[k];
      const LayerPrediction& p = l.prediction;
      rows.push_back({std::to_string(k + 1), l.name, l.op, format_number(p.kernel_ms, 4),
                      format_number(p.roofline_ms, 4),
                      summed_ms > 0 ? format_number(100 * p.kernel_ms / summed_ms, 3) : "",
                      format_number(p.energy_mj, 4), format_number(p.avg_power_w, 4), p.bound,
                      p.in_distribution ? "true" : "false"});
    }
    out += h3("Slowest layers, in figures") +
           html_table({"rank", "name", "op", "kernel_ms", "roofline_ms", "share (%)", "energy_mj",
                       "avg_power_w", "bound", "in_distribution"},
                      rows, {}, true) +
           note(
               "share: the layer's kernel_ms over the sum of all layers' kernel_ms (computed by "
               "the report).");
  }
  out += warnings_list(typed);
  if (has_gpu_entry(gpu)) {
    KeyValues spec;
    flatten(typed["gpu"], "", spec);
    out += "<details><summary>GPU database entry as given (with its sources)</summary>\n" +
           kv_table(spec) + "</details>\n";
  }
  return out;
}

// ---- prediction_sweep ----------------------------------------------------------------------

// A row's series: its GPU, with the precision and runtime where the sweep has several.
std::string sweep_series(const PredictionSweepRow& row, bool by_precision, bool by_runtime) {
  std::string name = row.gpu.empty() ? "?" : row.gpu;
  if (by_precision) name += " " + to_string(row.precision);
  if (by_runtime) name += " " + to_string(row.runtime);
  return name;
}

// One line per series of `figure` against batch, each series' points in batch order.
LineChart sweep_line_chart(const std::vector<PredictionSweepRow>& rows, const std::string& figure,
                           const std::string& unit, double (*value)(const PredictionSweepRow&),
                           bool by_precision, bool by_runtime) {
  LineChart chart;
  chart.title = "Predicted " + figure + " against batch";
  chart.x_label = "batch (log scale)";
  chart.y_label = figure + " (" + unit + ", log scale)";
  for (const auto& row : rows) {
    const auto batch = static_cast<double>(row.batch);
    const std::string name = sweep_series(row, by_precision, by_runtime);
    auto it = std::find_if(chart.series.begin(), chart.series.end(),
                           [&](const LineSeries& s) { return s.name == name; });
    if (it == chart.series.end()) {
      chart.series.push_back({name, {}});
      it = std::prev(chart.series.end());
    }
    it->points.push_back({batch, value(row), name + " batch " + format_number(batch, 10)});
  }
  for (auto& series : chart.series) {
    std::stable_sort(series.points.begin(), series.points.end(),
                     [](const ScatterPoint& a, const ScatterPoint& b) { return a.x < b.x; });
  }
  return chart;
}

std::string render_prediction_sweep(const Json& doc) {
  const PredictionSweep sweep = prediction_sweep_from_json(doc);
  std::string out;
  KeyValues setup;
  setup.emplace_back(
      "network",
      sweep.network + (doc.contains("network_source") ? " (" + sweep.network_source + ")" : ""));
  setup.emplace_back("mode", to_string(sweep.mode));
  if (!sweep.rows.empty()) setup.emplace_back("model", sweep.rows.front().model);
  setup.emplace_back("power_model", sweep.power_model);
  std::string order;
  for (const char* key : kPredictionSweepOrder) {
    order += (order.empty() ? "" : ", ") + std::string(key);
  }
  setup.emplace_back("order", order);
  const std::vector<PredictionSweepRow>& rows = sweep.rows;
  setup.emplace_back("rows", std::to_string(rows.size()));
  out += h3("Setup") + kv_table(setup);
  const Json warnings = {{"warnings", sweep_warnings(sweep)}};
  if (rows.empty()) return out + note("no rows") + warnings_list(warnings);

  std::set<std::int64_t> batches;
  std::set<DType> precisions;
  std::set<Runtime> runtimes;
  std::int64_t largest_batch = rows.front().batch;
  for (const auto& row : rows) {
    batches.insert(row.batch);
    precisions.insert(row.precision);
    runtimes.insert(row.runtime);
    largest_batch = std::max(largest_batch, row.batch);
  }
  const bool by_precision = precisions.size() > 1;
  const bool by_runtime = runtimes.size() > 1;
  if (batches.size() > 1) {
    const auto latency = [](const PredictionSweepRow& r) { return r.latency_ms; };
    const auto energy = [](const PredictionSweepRow& r) { return r.energy_j; };
    out += h3("Latency and energy against batch") +
           render_line_chart(
               sweep_line_chart(rows, "latency_ms", "ms", latency, by_precision, by_runtime)) +
           render_line_chart(
               sweep_line_chart(rows, "energy_j", "J", energy, by_precision, by_runtime));
  }
  BarChart compare;
  compare.title = "latency_ms at batch " + std::to_string(largest_batch) + " (the largest)";
  compare.value_label = "latency_ms (ms)";
  compare.marker_label = "latency_ms_hi (80 % interval)";
  for (const auto& row : rows) {
    if (row.batch != largest_batch) continue;
    const auto hi =
        row.latency_interval ? std::optional<double>(row.latency_interval->hi_ms) : std::nullopt;
    compare.bars.push_back({sweep_series(row, by_precision, by_runtime), row.latency_ms, hi, false,
                            row.over_budget, !row.over_budget.empty()});
  }
  compare.flag_label = "over budget";
  out += h3("GPU comparison") + render_bar_chart(compare);
  // The combination, then the figures in the order predict writes them; each row's warnings
  // are the page's warnings list.
  Json table = Json::array();
  for (const auto& row : rows) table.push_back(to_json(row));
  std::vector<std::string> cols = order_columns(columns_of(table), {}, {"model", "over_budget"});
  cols.erase(std::remove(cols.begin(), cols.end(), "warnings"), cols.end());
  out += h3("Rows") + object_table(table, cols);
  return out + warnings_list(warnings);
}

// ---- layer_predictions ---------------------------------------------------------------------

// A row's input cell of `column`; unset where the input has no such column.
const std::string* cell_of(const LayerPredictionRow& row, const std::string& column) {
  const auto it = std::find_if(row.cells.begin(), row.cells.end(),
                               [&](const auto& cell) { return cell.first == column; });
  return it == row.cells.end() ? nullptr : &it->second;
}

std::string render_layer_predictions(const Json& doc) {
  const LayerPredictions result = layer_predictions_from_json(doc);
  std::string out;
  KeyValues setup;
  if (result.gpu) {
    setup.emplace_back("GPU", result.gpu->display_name + " (" + result.gpu->name + ")");
  }
  if (doc.contains("model")) setup.emplace_back("model", result.model);
  if (doc.contains("source")) setup.emplace_back("source", result.source);
  const std::vector<LayerPredictionRow>& rows = result.rows;
  setup.emplace_back("rows", std::to_string(rows.size()));
  out += h3("Setup") + kv_table(setup);
  if (rows.empty()) {
    return out + note("no rows");
  }

  // predict renames its own columns to predicted_* when the input already has them, and
  // the input's latency_ms is then the measurement.
  const std::string& predicted = result.columns[2];
  const bool renamed = predicted != kLayerPredictionColumns[2];
  auto row_label = [&](std::size_t i) {
    const LayerPredictionRow& r = rows[i];
    std::string label = "#" + std::to_string(i + 1);
    if (const std::string* name = cell_of(r, "name")) {
      return label + " " + *name;
    }
    const auto cell = [&](const char* column, const char* fallback) {
      const std::string* text = cell_of(r, column);
      return text != nullptr ? *text : std::string(fallback);
    };
    if (cell_of(r, "op") != nullptr) {
      label += " " + cell("op", "");
    }
    if (cell_of(r, "c_in") != nullptr) {
      label += " " + cell("c_in", "") + "x" + cell("h_in", "1") + "x" + cell("w_in", "1") + "->" +
               cell("c_out", "?");
    }
    return label;
  };

  BarChart chart;
  chart.title = "Predicted latency per row";
  chart.value_label = predicted + " (ms)";
  chart.marker_label = result.columns[7] + " (lower bound)";
  chart.flag_label = "in_distribution: false";
  for (std::size_t i = 0; i < rows.size() && i < kMaxBars; ++i) {
    const LayerPrediction& p = rows[i].prediction;
    const bool out_of_range = !p.in_distribution;
    chart.bars.push_back({row_label(i), p.latency_ms(), p.roofline_ms, false,
                          out_of_range ? "out of range" : "", out_of_range});
  }
  out += h3("Latency per row") + render_bar_chart(chart);
  if (rows.size() > kMaxBars) {
    out += note("chart shows the first " + std::to_string(kMaxBars) + " of " +
                std::to_string(rows.size()) + " rows");
  }

  if (renamed) {
    ScatterChart scatter;
    scatter.title = "Predicted vs measured latency (log-log)";
    scatter.x_label = "measured latency_ms (ms, from the input file)";
    scatter.y_label = predicted + " (ms)";
    double ape_sum = 0;
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string* measured_text = cell_of(rows[i], "latency_ms");
      const auto m = measured_text != nullptr ? number_of(Json(*measured_text)) : std::nullopt;
      if (!m) {
        continue;
      }
      const double p = rows[i].prediction.latency_ms();
      if (*m > 0) {
        ape_sum += std::fabs(p - *m) / *m;
        ++pairs;
      }
      if (scatter.points.size() < kMaxScatterPoints) {
        scatter.points.push_back({*m, p, row_label(i)});
      }
    }
    out += h3("Predicted vs measured") + render_scatter_chart(scatter);
    if (pairs > 0) {
      out +=
          note("MAPE over the " + std::to_string(pairs) + " rows with a measured latency_ms > 0: " +
               format_number(100 * ape_sum / static_cast<double>(pairs), 4) +
               " % (computed by the report from the file's own columns).");
    }
  }
  // name, op and the latency columns first so they are visible without scrolling, then the
  // other layer columns in canonical order, then the rest.
  std::vector<std::string> front{"name",
                                 "op",
                                 "latency_ms",
                                 "predicted_latency_ms",
                                 "roofline_ms",
                                 "predicted_roofline_ms",
                                 "energy_mj",
                                 "predicted_energy_mj",
                                 "avg_power_w",
                                 "predicted_avg_power_w",
                                 "in_distribution",
                                 "predicted_in_distribution"};
  for (const auto& c : layer_csv_columns()) {
    front.push_back(c);
  }
  Json table = Json::array();
  for (const auto& row : rows) table.push_back(to_json(row, result.columns));
  out += h3("Rows") + object_table(table, order_columns(columns_of(table), front));
  return out;
}

// ---- plan ----------------------------------------------------------------------------------

// A plan figure's cell: `missing` where the file has none.
std::string plan_number(const std::optional<double>& v, const char* missing) {
  return v ? format_number(*v, 4) : missing;
}

// "resnet50 @ t4 b8 fp16 150W": the candidate without its rank (the cap only when capped).
std::string candidate_text(const PlanCandidate& c) {
  std::string l = c.network + " @ " + c.gpu + " b" + std::to_string(c.batch) + " " + c.precision;
  if (c.power_limit_w) l += " " + format_number(*c.power_limit_w, 4) + "W";
  return l;
}

std::string infeasible_text(const ScoredCandidate& c) {
  return c.infeasible_reason.empty() ? "no reason given" : c.infeasible_reason;
}

// The candidates by latency and energy per image, accuracy as colour, with the Pareto front of
// the feasible ones: none of them is both faster and uses less energy per image.
std::string latency_energy_chart(const std::vector<ScoredCandidate>& candidates) {
  XyChart chart;
  chart.title = "Latency and energy per image of each candidate";
  chart.x_label = "latency_ms (ms)";
  chart.y_label = "energy_per_image_j (J)";
  chart.shade_label = "top1_percent";
  std::optional<double> low;
  std::optional<double> high;
  std::vector<std::pair<double, double>> feasible;
  for (std::size_t i = 0; i < candidates.size() && i < kMaxScatterPoints; ++i) {
    const ScoredCandidate& sc = candidates[i];
    const PlanCandidate& c = sc.candidate;
    const double latency = c.latency_ms;
    const double energy = sc.energy_per_image_j;
    const auto accuracy = c.top1_percent;
    if (accuracy) {
      low = low ? std::min(*low, *accuracy) : *accuracy;
      high = high ? std::max(*high, *accuracy) : *accuracy;
    }
    std::string tip = "#" + std::to_string(sc.rank) + " " + c.network + " @ " + c.gpu + " b" +
                      std::to_string(c.batch) + " " + c.precision + ": " +
                      format_number(latency, 4) + " ms, " + format_number(energy, 4) +
                      " J/image, top1 " +
                      (accuracy ? format_number(*accuracy, 4) + " %" : std::string("unknown"));
    if (!sc.feasible) tip += " (infeasible: " + infeasible_text(sc) + ")";
    chart.points.push_back({latency, energy, tip, 0, accuracy, !sc.feasible});
    if (sc.feasible) feasible.emplace_back(latency, energy);
  }
  if (chart.points.empty()) return "";
  chart.shade_low = low.value_or(0);
  chart.shade_high = high.value_or(1);
  // Fastest first (ties: less energy first); a point is on the front when it uses less energy
  // than every faster one.
  std::sort(feasible.begin(), feasible.end());
  XyLine front{"Pareto front (feasible)", {}, false, "#b00020"};
  for (const auto& point : feasible) {
    if (front.points.empty() || point.second < front.points.back().second) {
      front.points.push_back(point);
    }
  }
  if (!front.points.empty()) chart.lines.push_back(front);
  return h3("Latency and energy") + render_xy_chart(chart) +
         note(
             "Each candidate at its latency_ms and energy_per_image_j (log-log), coloured by "
             "top1_percent (white: unknown); grey: infeasible. The line joins the feasible "
             "candidates no other feasible one beats on both.");
}

std::string render_plan(const Json& doc) {
  const PlanResult plan = plan_result_from_json(doc);
  std::string out;
  KeyValues setup;
  // profile, weights, tolerances and whatever else plan says about the run, in its order.
  const Json typed = to_json(plan);
  for (const auto& [key, v] : typed.items()) {
    if (key == "candidates" || key == "warnings" || is_provenance_key(key)) {
      continue;
    }
    if (v.is_object()) {
      flatten(v, key, setup);
    } else {
      setup.emplace_back(key, value_text(v, 6));
    }
  }
  out += h3("Profile") + kv_table(setup);
  const Json warnings = {{"warnings", plan.warnings}};
  const std::vector<ScoredCandidate>& candidates = plan.ranked;
  if (candidates.empty()) {
    return out + note("no candidates") + warnings_list(warnings);
  }

  const SocWeights& weights = plan.settings.weights;
  struct Term {
    const char* name;
    double weight;
    std::optional<double> SocTerms::*value;
  };
  const std::array<Term, 3> terms{{{"latency", weights.latency, &SocTerms::latency},
                                   {"energy", weights.energy, &SocTerms::energy},
                                   {"accuracy", weights.accuracy, &SocTerms::accuracy}}};

  // One candidate column (network @ gpu, batch, precision, cap) and wrapping reasons keep the
  // table within the page.
  std::vector<std::string> header{"rank",        "candidate",          "latency_ms",
                                  "energy_j",    "energy_per_image_j", "avg_power_w",
                                  "top1_percent"};
  for (const auto& t : terms) {
    header.push_back(std::string("term ") + t.name);
  }
  header.emplace_back("score");
  header.emplace_back("feasible");
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> muted;
  StackedBarChart chart;
  chart.title = "Score per candidate: weighted satisfaction terms";
  chart.value_label = "score = sum of weight x term (as given); grey = infeasible";
  for (const auto& t : terms) {
    chart.series.push_back(std::string(t.name) + " (w=" + format_number(t.weight, 3) + ")");
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ScoredCandidate& sc = candidates[i];
    const PlanCandidate& c = sc.candidate;
    if (i < kMaxTableRows) {
      std::vector<std::string> row{std::to_string(sc.rank), candidate_text(c)};
      for (const double figure : {c.latency_ms, c.energy_j, sc.energy_per_image_j, c.avg_power_w}) {
        row.push_back(format_number(figure, 4));
      }
      row.push_back(plan_number(c.top1_percent, "unknown"));
      for (const auto& t : terms) {
        row.push_back(plan_number(sc.terms.*t.value, "null"));
      }
      row.push_back(plan_number(sc.score, "null"));
      row.push_back(sc.feasible ? "yes" : "no: " + infeasible_text(sc));
      rows.push_back(std::move(row));
      muted.push_back(!sc.feasible);
    }
    if (i < kMaxBars) {
      StackedBar bar{"#" + std::to_string(sc.rank) + " " + candidate_text(c),
                     {},
                     !sc.feasible,
                     sc.infeasible_reason};
      for (const auto& t : terms) {
        bar.parts.push_back((sc.terms.*t.value).value_or(0.0) * t.weight);
      }
      chart.bars.push_back(std::move(bar));
    }
  }
  out += h3("Ranked candidates") + html_table(header, rows, muted, true);
  if (candidates.size() > kMaxTableRows) {
    out += note("first " + std::to_string(kMaxTableRows) + " of " +
                std::to_string(candidates.size()) + " candidates shown");
  }
  out += latency_energy_chart(candidates);
  out += h3("Score breakdown") + render_stacked_bar_chart(chart) +
         note(
             "Each segment is the candidate's satisfaction term times its weight from the "
             "file; a term given as null (e.g. unknown accuracy) contributes 0.");
  return out + warnings_list(warnings);
}

// ---- train / validate metrics ---------------------------------------------------------------

// A typed result's members as key/value rows, each only when the file wrote it: the struct
// holds a default for a member an older version did not write, which that file never said.
class WrittenMembers {
 public:
  explicit WrittenMembers(const Json& object) : object_(object) {}
  void add(const std::string& key, const std::string& text) {
    if (object_.contains(key)) rows_.emplace_back(key, text);
  }
  template <typename Number>
  void add_number(const std::string& key, Number value) {
    if constexpr (std::is_floating_point_v<Number>) {
      add(key, format_number(static_cast<double>(value), 6));
    } else {
      add(key, std::to_string(value));
    }
  }
  void add_bool(const std::string& key, bool value) { add(key, value ? "true" : "false"); }
  void add_list(const std::string& key, const std::vector<std::string>& values) {
    std::string text;
    for (const auto& v : values) text += (text.empty() ? "" : ", ") + v;
    add(key, text);
  }
  /// A member the struct keeps as JSON (a sub-report): its scalars as "key.a.b" rows.
  void add_object(const std::string& key, const nlohmann::json& value) {
    if (!object_.contains(key)) return;
    if (value.is_object()) {
      flatten(Json(value), key, rows_);
    } else {
      rows_.emplace_back(key, value_text(Json(value), 6));
    }
  }
  [[nodiscard]] const KeyValues& rows() const { return rows_; }

 private:
  const Json& object_;
  KeyValues rows_;
};

// The metrics of Metrics in the tables' column order (after n).
constexpr std::array<std::pair<const char*, double Metrics::*>, 6> kMetricMembers{{
    {"mape_pct", &Metrics::mape_pct},
    {"r2", &Metrics::r2},
    {"adjusted_r2", &Metrics::adjusted_r2},
    {"within_10pct", &Metrics::within_10pct},
    {"spearman", &Metrics::spearman},
    {"rmse", &Metrics::rmse},
}};

// A metric as its table cell: NaN is what the file had as null or did not write.
std::string metric_text(double value) {
  return std::isnan(value) ? "" : format_number(value, 4);
}

// The metric columns some row has a value in (a file of an older version wrote fewer).
std::vector<std::size_t> metric_columns(const std::vector<const Metrics*>& rows) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < kMetricMembers.size(); ++c) {
    const auto member = kMetricMembers[c].second;
    if (std::any_of(rows.begin(), rows.end(),
                    [&](const Metrics* m) { return !std::isnan(m->*member); })) {
      out.push_back(c);
    }
  }
  return out;
}

std::string mape_chart(const std::string& title,
                       const std::vector<std::pair<std::string, double>>& bars) {
  BarChart chart;
  chart.title = title;
  chart.value_label = "MAPE (%, lower is better)";
  for (const auto& [label, v] : bars) {
    chart.bars.push_back({label, v, std::nullopt, false, {}});
  }
  return render_bar_chart(chart);
}

// A train row's optional columns: shown when some row has the member.
struct CvOptionalColumn {
  const char* name;
  std::string (*text)(const TrainCvRow&);
  bool (*has)(const TrainCvRow&);
};
const std::array<CvOptionalColumn, 4> kCvOptionalColumns{{
    {"source", [](const TrainCvRow& r) { return r.source.value_or(""); },
     [](const TrainCvRow& r) { return r.source.has_value(); }},
    {"train_s", [](const TrainCvRow& r) { return r.train_s ? format_number(*r.train_s, 4) : ""; },
     [](const TrainCvRow& r) { return r.train_s.has_value(); }},
    {"unseen_gpu_rows",
     [](const TrainCvRow& r) {
       return r.unseen_gpu_rows ? std::to_string(*r.unseen_gpu_rows) : std::string();
     },
     [](const TrainCvRow& r) { return r.unseen_gpu_rows.has_value(); }},
    {"not_applicable", [](const TrainCvRow& r) { return r.not_applicable.value_or(""); },
     [](const TrainCvRow& r) { return r.not_applicable.has_value(); }},
}};

std::string cv_table(const std::vector<TrainCvRow>& cv) {
  std::vector<const Metrics*> metrics;
  metrics.reserve(cv.size());
  for (const auto& r : cv) metrics.push_back(&r.metrics);
  const auto columns = metric_columns(metrics);
  std::vector<std::string> header{"regressor", "family", "gpu", "cv", "n"};
  for (const std::size_t c : columns) header.emplace_back(kMetricMembers[c].first);
  std::vector<const CvOptionalColumn*> optional;
  for (const auto& column : kCvOptionalColumns) {
    if (std::any_of(cv.begin(), cv.end(), column.has)) {
      optional.push_back(&column);
      header.emplace_back(column.name);
    }
  }
  std::vector<std::vector<std::string>> cells;
  for (const TrainCvRow& r : cv) {
    std::vector<std::string> row{r.regressor, r.family, r.gpu, r.cv, std::to_string(r.metrics.n)};
    for (const std::size_t c : columns) {
      row.push_back(metric_text(r.metrics.*kMetricMembers[c].second));
    }
    for (const auto* column : optional) row.push_back(column->text(r));
    cells.push_back(std::move(row));
  }
  return html_table(header, cells);
}

std::string unseen_gpu_table(const std::vector<TrainUnseenGpuRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const auto& r : rows) {
    cells.push_back({r.family, r.regressor, r.source, std::to_string(r.rows),
                     format_number(r.learned_mape_pct, 4),
                     r.gpu_blind_mape_pct ? format_number(*r.gpu_blind_mape_pct, 4) : "null",
                     format_number(r.analytical_mape_pct, 4), r.unseen_gpu});
  }
  std::string out = h3("Unseen-GPU check") +
                    html_table({"family", "regressor", "source", "rows", "learned_mape_pct",
                                "gpu_blind_mape_pct", "analytical_mape_pct", "unseen_gpu"},
                               cells);
  // Where each candidate wins or loses, which the pooled MAPEs average away.
  std::vector<std::vector<std::string>> per_gpu;
  for (const auto& r : rows) {
    for (const auto& item : r.per_gpu.items()) {
      const Json& s = item.value();
      const auto number = [&s](const char* key) {
        return s.contains(key) && s[key].is_number() ? format_number(s[key].get<double>(), 4)
                                                     : std::string("null");
      };
      per_gpu.push_back({r.family, item.key(), std::to_string(s.value("rows", std::size_t{0})),
                         number("learned_mape_pct"), number("gpu_blind_mape_pct"),
                         number("analytical_mape_pct")});
    }
  }
  if (!per_gpu.empty()) {
    out += h3("Unseen-GPU check per held-out GPU") +
           html_table({"family", "gpu", "rows", "learned_mape_pct", "gpu_blind_mape_pct",
                       "analytical_mape_pct"},
                      per_gpu);
  }
  return out;
}

std::string render_train(const Json& doc) {
  const auto result = nlohmann::json(doc).get<TrainResult>();
  WrittenMembers run(doc);
  run.add_number("rows", result.rows);
  run.add_number("skipped_rows", result.skipped_rows);
  run.add("features", result.features);
  run.add("sources", result.sources);
  run.add_bool("host_floor", result.host_floor);
  run.add("cv_scheme", result.cv_scheme);
  run.add_number("folds", result.header.folds);
  run.add_number("seed", result.header.seed);
  run.add_list("unused_params_sections", result.unused_params_sections);
  if (result.unseen_gpu_check) {
    run.add("unseen_gpu_check",
            std::to_string(result.unseen_gpu_check->size()) + " row(s), tabulated below");
  }
  run.add_object("intervals", result.intervals);
  run.add_object("unseen_gpu_intervals", result.unseen_gpu_intervals);
  run.add_object("step_intervals", result.step_intervals);
  run.add_object("e2e", result.e2e);
  std::string out = h3("Run") + kv_table(run.rows());
  if (result.cv.empty()) {
    out += note("no cross-validation rows");
  } else {
    out += h3("Cross-validation metrics") + cv_table(result.cv);
  }
  if (result.unseen_gpu_check && !result.unseen_gpu_check->empty()) {
    out += unseen_gpu_table(*result.unseen_gpu_check);
  }
  std::vector<std::pair<std::string, double>> overall;
  std::vector<std::pair<std::string, double>> per_gpu;
  for (const auto& r : result.cv) {
    if (std::isnan(r.metrics.mape_pct) || r.not_applicable) continue;
    std::string label = r.regressor.empty() ? "?" : r.regressor;
    if (!r.family.empty()) label += " / " + r.family;
    if (r.source) label += " / " + *r.source;
    if (r.gpu.empty() || r.gpu == "all") {
      overall.emplace_back(label, r.metrics.mape_pct);
    } else {
      per_gpu.emplace_back(label + " / " + r.gpu, r.metrics.mape_pct);
    }
  }
  if (!overall.empty()) {
    out += mape_chart("MAPE per regressor and op family (all GPUs)", overall);
  }
  if (!per_gpu.empty()) {
    out += mape_chart("MAPE per regressor, op family and GPU (" +
                          (result.cv_scheme.empty() ? "?" : result.cv_scheme) + ")",
                      per_gpu);
  }
  return out;
}

using ScopedMetrics = std::vector<std::pair<std::string, Metrics>>;

/// The metric objects of a part validate keeps as JSON (an evaluation, the power scores):
/// members holding "mape_pct", and those of each "per_x" map of them.
ScopedMetrics json_metric_rows(const nlohmann::json& part) {
  ScopedMetrics rows;
  for (const auto& [k, v] : part.items()) {
    if (!v.is_object()) continue;
    if (v.contains("mape_pct")) {
      rows.emplace_back(k, metrics_from_json(v));
      continue;
    }
    for (const auto& [sub, m] : v.items()) {
      if (m.is_object() && m.contains("mape_pct")) {
        rows.emplace_back(k + ": " + sub, metrics_from_json(m));
      }
    }
  }
  return rows;
}

/// A part's fields, then its metric table and MAPE chart.
std::string metric_part(const std::string& title, const std::string& member,
                        const KeyValues& fields, const ScopedMetrics& rows) {
  std::string out = h3(title + " (" + member + ")") + kv_table(fields);
  if (rows.empty()) return out;
  std::vector<const Metrics*> metrics;
  metrics.reserve(rows.size());
  for (const auto& [scope, m] : rows) metrics.push_back(&m);
  const auto columns = metric_columns(metrics);
  std::vector<std::string> header{"scope", "n"};
  for (const std::size_t c : columns) header.emplace_back(kMetricMembers[c].first);
  std::vector<std::vector<std::string>> cells;
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& [scope, m] : rows) {
    std::vector<std::string> row{scope, std::to_string(m.n)};
    for (const std::size_t c : columns) row.push_back(metric_text(m.*kMetricMembers[c].second));
    cells.push_back(std::move(row));
    if (!std::isnan(m.mape_pct)) bars.emplace_back(scope, m.mape_pct);
  }
  return out + html_table(header, cells) + mape_chart("MAPE, " + title, bars);
}

/// The scalar members of a part validate keeps as JSON.
void json_scalars(const nlohmann::json& part, KeyValues& fields) {
  for (const auto& [k, v] : part.items()) {
    if (!v.is_object()) fields.emplace_back(k, value_text(Json(v), 6));
  }
}

std::string render_validate(const Json& doc) {
  const auto result = nlohmann::json(doc).get<ValidateResult>();
  std::string out;
  // Per-layer accuracy before end-to-end, then the power scores.
  if (result.layers) {
    const ValidateLayerScores& l = *result.layers;
    const Json& part = doc.at("layers");
    WrittenMembers fields(part);
    fields.add_list("files", l.files);
    fields.add("fingerprint", l.fingerprint);
    fields.add_number("rows", l.rows);
    fields.add_number("skipped_rows", l.skipped_rows);
    fields.add_number("unmodelled_rows", l.unmodelled_rows);
    fields.add("source_features", l.source_features);
    fields.add_object("training_rows", l.training_rows);
    ScopedMetrics rows;
    if (part.contains("overall")) rows.emplace_back("overall", l.overall);
    for (const auto& [family, m] : l.per_family) rows.emplace_back("per_family: " + family, m);
    for (const auto& [gpu, m] : l.per_gpu) rows.emplace_back("per_gpu: " + gpu, m);
    out += metric_part("Per-layer accuracy", "layers", fields.rows(), rows);
  }
  if (result.e2e) {
    const ValidateE2eScores& e = *result.e2e;
    WrittenMembers members(doc.at("e2e"));
    members.add("file", e.file);
    members.add("latency_model", e.latency_model);
    members.add_number("rows", e.rows);
    members.add("eager_overhead_source", e.eager_overhead_source);
    if (e.unmodelled_multi_gpu_rows) {
      members.add_number("unmodelled_multi_gpu_rows", *e.unmodelled_multi_gpu_rows);
    }
    KeyValues fields = members.rows();
    json_scalars(e.evaluation, fields);
    out += metric_part("End-to-end accuracy", "e2e", fields, json_metric_rows(e.evaluation));
  }
  if (result.power.is_object()) {
    KeyValues fields;
    json_scalars(result.power, fields);
    out += metric_part("power", "power", fields, json_metric_rows(result.power));
  }
  return out;
}

// ---- ptx ------------------------------------------------------------------------------------

std::string dim3_text(const ptx::Dim3& d) {
  return std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z);
}

std::string launch_section(const PtxLaunchResult& l, const Json& written) {
  WrittenMembers fields(written);
  fields.add("file", l.file);
  fields.add("kernel", l.kernel);
  fields.add("layer", l.layer);
  fields.add("grid", dim3_text(l.grid));
  fields.add("block", dim3_text(l.block));
  fields.add_number("launches", l.launches);
  fields.add_bool("sampled", l.sampled);
  fields.add_bool("extrapolated", l.extrapolated);
  fields.add_number("ctas_total", l.ctas_total);
  fields.add_number("ctas_simulated", l.ctas_simulated);
  fields.add_number("warp_insts_simulated", l.warp_insts_simulated);
  fields.add_number("warp_insts", l.warp_insts);
  fields.add_number("thread_insts", l.thread_insts);
  fields.add_number("branches", l.branches);
  fields.add_number("divergent_branches", l.divergent_branches);
  fields.add_number("branch_efficiency", l.branch_efficiency);
  fields.add_number("active_lane_efficiency", l.active_lane_efficiency);
  fields.add_object("resources", l.resources ? nlohmann::json(*l.resources) : nlohmann::json());
  std::string out = kv_table(fields.rows());
  if (!l.classes_warp.empty()) {
    double total = 0;
    for (const auto& [k, warp] : l.classes_warp) total += warp;
    BarChart chart;
    chart.title = "Instruction-class mix (executed warp instructions)";
    chart.value_label = "share of executed warp instructions (%)";
    for (const auto& [k, warp] : l.classes_warp) {
      const auto thread = l.classes_thread.find(k);
      chart.bars.push_back(
          {k, total > 0 ? 100 * warp / total : 0, std::nullopt, false,
           format_number(warp, 6) + " warp / " +
               format_number(thread == l.classes_thread.end() ? 0 : thread->second, 6) +
               " thread instructions"});
    }
    out += render_bar_chart(chart);
  }
  if (written.contains("bytes")) {
    BarChart chart;
    chart.title = "Bytes moved per memory space";
    chart.value_label = "MB (10^6 bytes)";
    // The spaces the file wrote, in its order, with the struct's counts.
    const nlohmann::json bytes = nlohmann::json(l).at("bytes");
    for (const auto& [space, v] : written.at("bytes").items()) {
      chart.bars.push_back({space, bytes.value(space, 0.0) / 1e6, std::nullopt, false, {}});
    }
    out += render_bar_chart(chart);
  }
  if (written.contains("warnings")) {
    out += h3("Warnings");
    if (l.warnings.empty()) {
      out += note("none");
    } else {
      out += "<ul class=\"warnings\">\n";
      for (const auto& w : l.warnings) out += "<li>" + html_escape(w) + "</li>\n";
      out += "</ul>\n";
    }
  }
  return out;
}

std::string render_ptx(const Json& doc) {
  const auto result = nlohmann::json(doc).get<PtxAnalysisResult>();
  if (result.launches.empty()) {
    return note("no launches");
  }
  std::string out;
  for (std::size_t i = 0; i < result.launches.size(); ++i) {
    const PtxLaunchResult& l = result.launches[i];
    out += h3("Launch " + std::to_string(i + 1) + ": " + (l.kernel.empty() ? "?" : l.kernel));
    out += launch_section(l, doc.at("launches").at(i));
  }
  return out;
}

// ---- gpus show ------------------------------------------------------------------------------

std::string render_gpu_spec(const Json& doc) {
  const auto result = nlohmann::json(doc).get<GpuSpecResult>();
  WrittenMembers fields(doc);
  fields.add("query", result.query);
  // The entry's members in GpuSpec's order, each as to_json writes it; sources apart.
  const nlohmann::json gpu = result.gpu;
  const Json& written = doc.at("gpu");
  KeyValues rows = fields.rows();
  for (const auto& name : gpu_spec_field_names()) {
    if (name != "sources" && written.contains(name)) {
      rows.emplace_back(name, value_text(Json(gpu.at(name)), 6));
    }
  }
  std::string out = h3("Specification") + kv_table(rows);
  if (!result.gpu.sources.empty()) {
    KeyValues sources(result.gpu.sources.begin(), result.gpu.sources.end());
    out += h3("Sources per field") + kv_table(sources);
  }
  return out;
}

// ---- nets show ------------------------------------------------------------------------------

// `typed` (a result's to_json) with only the members `written` has, at every depth: a member an
// older file did not write is not shown with the type's default.
Json written_only(const Json& typed, const Json& written) {
  if (typed.is_object() && written.is_object()) {
    Json out = Json::object();
    for (const auto& [key, value] : typed.items()) {
      const auto it = written.find(key);
      if (it != written.end()) out[key] = written_only(value, *it);
    }
    return out;
  }
  if (typed.is_array() && written.is_array() && typed.size() == written.size()) {
    Json out = Json::array();
    for (std::size_t i = 0; i < typed.size(); ++i) {
      out.push_back(written_only(typed[i], written[i]));
    }
    return out;
  }
  return typed;
}

// The generic layout (its fields, then a chart and table of the layers), of the typed result.
std::string render_network_layers(const Json& doc) {
  const auto result = doc.get<NetworkLayersResult>();
  return render_generic(written_only(Json(result), doc));
}

// ---- parsing and page ---------------------------------------------------------------------

Json parse_input(const ReportInput& input) {
  return parse_json_text(input.json_text, input.name);
}

// The "kind" of each result with a section writer of its own; cnnperf's other kinds
// (gpu_list, network_list, profile_rows, train's algo_study, ...) render as generic JSON.
constexpr std::array<std::pair<std::string_view, ReportKind>, 9> kKindNames{{
    {"network_prediction", ReportKind::kNetworkPrediction},
    {"prediction_sweep", ReportKind::kPredictionSweep},
    {"layer_predictions", ReportKind::kLayerPredictions},
    {"plan", ReportKind::kPlan},
    {"train_metrics", ReportKind::kTrainMetrics},
    {"validation_metrics", ReportKind::kValidateMetrics},
    {"ptx_analysis", ReportKind::kPtxAnalysis},
    {"gpu_spec", ReportKind::kGpuSpec},
    {"network_layers", ReportKind::kNetworkLayers},
}};

// Files without a "kind" (written by versions of cnnperf before every result carried one):
// the kind their producer writes now, recognised by what only that producer writes; empty
// when none matches.
std::string legacy_kind(const Json& doc) {
  if (doc.contains("cv") && doc["cv"].is_array() && doc.contains("cv_scheme")) {
    return "train_metrics";
  }
  if (doc.contains("model_fingerprint") && (doc.contains("layers") || doc.contains("e2e"))) {
    return "validation_metrics";
  }
  if (doc.contains("launches") && doc["launches"].is_array()) {
    return "ptx_analysis";
  }
  if (doc.contains("gpu") && doc["gpu"].is_object() && doc.contains("query")) {
    return "gpu_spec";
  }
  if (doc.contains("network") && doc.contains("layers") && doc.contains("total") &&
      doc.contains("input")) {
    return "network_layers";
  }
  return {};
}

// A result's own "kind" when it is a string, else the legacy detection's.
ReportKind kind_of(const Json& doc) {
  if (!doc.is_object()) {
    return ReportKind::kGeneric;
  }
  const auto it = doc.find("kind");
  const std::string kind =
      it != doc.end() && it->is_string() ? it->get<std::string>() : legacy_kind(doc);
  for (const auto& [name, report_kind] : kKindNames) {
    if (kind == name) {
      return report_kind;
    }
  }
  return ReportKind::kGeneric;
}

// A figure's key ends in its unit (latency_ms, energy_j): such a member must hold a number
// (a numeric string from a passed-through CSV cell, or null for "none").
bool is_figure_key(const std::string& key) {
  static const std::array<std::string_view, 8> units{"_ms", "_j", "_mj",  "_w",
                                                     "_gb", "_s", "_pct", "_mhz"};
  return std::any_of(units.begin(), units.end(), [&](std::string_view unit) {
    return key.size() > unit.size() &&
           key.compare(key.size() - unit.size(), unit.size(), unit) == 0;
  });
}

void check_figures(const Json& object, const std::string& path, const std::string& name) {
  for (const auto& [key, v] : object.items()) {
    const bool text_ok = v.is_string() && (v.get_ref<const std::string&>().empty() || number_of(v));
    if (is_figure_key(key) && !v.is_null() && !v.is_number() && !text_ok) {
      throw InputError(
          input_message(name + ": " + path + key, "got " + cut(dump_compact(v), 40), "a number"));
    }
  }
}

// The kinds with a renderer of their own are cnnperf's outputs: a member they read that has
// the wrong shape means a damaged or hand-edited file, which would otherwise render as
// "no rows" or show a text latency as a feasible candidate.
void check_known_shape(ReportKind kind, const Json& doc, const std::string& name) {
  // The member the train, ptx and GPU writers start from: a file naming its kind must have it
  // (the legacy detection finds these kinds by it).
  const char* required = kind == ReportKind::kTrainMetrics  ? "cv"
                         : kind == ReportKind::kPtxAnalysis ? "launches"
                         : kind == ReportKind::kGpuSpec     ? "gpu"
                                                            : nullptr;
  if (required != nullptr) {
    const bool object = kind == ReportKind::kGpuSpec;
    const auto it = doc.find(required);
    if (it == doc.end() || (object ? !it->is_object() : !it->is_array())) {
      throw InputError(input_message(
          name + ": " + required, it == doc.end() ? "missing" : "got " + cut(dump_compact(*it), 40),
          object ? "an object" : "an array"));
    }
  }
  const char* array_key = kind == ReportKind::kNetworkPrediction  ? "layers"
                          : kind == ReportKind::kLayerPredictions ? "rows"
                          : kind == ReportKind::kPredictionSweep  ? "rows"
                          : kind == ReportKind::kPlan             ? "candidates"
                                                                  : nullptr;
  if (array_key == nullptr) return;
  if (doc.contains(array_key)) {
    const Json& rows = doc[array_key];
    if (!rows.is_array() || (!rows.empty() && !is_array_of_objects(rows))) {
      throw InputError(input_message(name + ": " + array_key, "got " + cut(dump_compact(rows), 40),
                                     "an array of objects"));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      check_figures(rows[i], std::string(array_key) + "[" + std::to_string(i) + "].", name);
    }
  }
  if (doc.contains("total")) {
    if (!doc["total"].is_object()) {
      throw InputError(input_message(name + ": total", "got " + cut(dump_compact(doc["total"]), 40),
                                     "an object"));
    }
    check_figures(doc["total"], "total.", name);
  }
}

std::string section_body(ReportKind kind, const Json& doc) {
  switch (kind) {
    case ReportKind::kNetworkPrediction: return render_network_prediction(doc);
    case ReportKind::kPredictionSweep: return render_prediction_sweep(doc);
    case ReportKind::kLayerPredictions: return render_layer_predictions(doc);
    case ReportKind::kPlan: return render_plan(doc);
    case ReportKind::kTrainMetrics: return render_train(doc);
    case ReportKind::kValidateMetrics:
      // Power scores alone have none of the metric rows that layout shows: the generic
      // layout shows all of them.
      if (doc.contains("layers") || doc.contains("e2e")) return render_validate(doc);
      break;
    case ReportKind::kPtxAnalysis: return render_ptx(doc);
    case ReportKind::kGpuSpec: return render_gpu_spec(doc);
    case ReportKind::kNetworkLayers: return render_network_layers(doc);
    case ReportKind::kGeneric: break;
  }
  return render_generic(doc);
}

// The heading names what the result holds, read as its section reads it (from_json).
std::string section_heading(ReportKind kind, const Json& doc) {
  switch (kind) {
    case ReportKind::kNetworkPrediction: {
      const NetworkPredictionRecord result = network_prediction_from_json(nlohmann::json(doc));
      return result.network + " on " + result.gpu.name;
    }
    case ReportKind::kPredictionSweep: {
      const PredictionSweep sweep = prediction_sweep_from_json(doc);
      return sweep.network + ", " + std::to_string(sweep.rows.size()) + " rows";
    }
    case ReportKind::kGpuSpec: return nlohmann::json(doc).get<GpuSpecResult>().gpu.name;
    case ReportKind::kNetworkLayers: return doc.get<NetworkLayersResult>().network;
    default: return {};
  }
}

// A section's heading and body parse its input into the result type its command writes
// (from_json): a member of the wrong type or a missing one is a damaged input, reported with
// the file's name.
template <typename Read>
std::string read_typed(ReportKind kind, const std::string& name, Read&& read) {
  try {
    return std::forward<Read>(read)();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(
        input_message(name, e.what(), "a " + to_string(kind) + " result as cnnperf writes it"));
  } catch (const InputError& e) {
    // A parser's message names the member ("gpu.segment: ..."), not the file.
    throw InputError(name + ": " + e.what());
  }
}

}  // namespace

std::string to_string(ReportKind kind) {
  switch (kind) {
    case ReportKind::kNetworkPrediction: return "network prediction";
    case ReportKind::kPredictionSweep: return "prediction sweep";
    case ReportKind::kLayerPredictions: return "layer predictions";
    case ReportKind::kPlan: return "deployment plan";
    case ReportKind::kTrainMetrics: return "training metrics";
    case ReportKind::kValidateMetrics: return "validation metrics";
    case ReportKind::kPtxAnalysis: return "PTX analysis";
    case ReportKind::kGpuSpec: return "GPU specification";
    case ReportKind::kNetworkLayers: return "network layers";
    case ReportKind::kGeneric: return "JSON result";
  }
  return "JSON result";
}

ReportKind detect_report_kind(const ReportInput& input) {
  return kind_of(parse_input(input));
}

std::string render_report(const std::vector<ReportInput>& inputs, const std::string& title) {
  if (inputs.empty()) {
    throw ParameterError("inputs", "expected at least one JSON result");
  }
  // Parse everything first so a bad input fails before any work is done.
  // Each input's kind is resolved once (its "kind", or the legacy detection), then the
  // members that kind's section reads are checked.
  std::vector<Json> docs;
  std::vector<ReportKind> kinds;
  std::vector<std::string> headings;
  docs.reserve(inputs.size());
  for (const auto& input : inputs) {
    docs.push_back(parse_input(input));
    kinds.push_back(kind_of(docs.back()));
    check_known_shape(kinds.back(), docs.back(), input.name);
    headings.push_back(read_typed(kinds.back(), input.name,
                                  [&] { return section_heading(kinds.back(), docs.back()); }));
  }

  const std::string page_title = title.empty() ? "cnnperf report" : title;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"generator\" content=\"cnnperf " + html_escape(CNNPERF_VERSION) + "\">\n";
  out += "<meta name=\"cnnperf-report\" content=\"schema_version=" +
         std::to_string(kReportSchemaVersion) + "\">\n";
  out += "<title>" + html_escape(page_title) + "</title>\n<style>" + kStyle +
         "</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(page_title) + "</h1>\n";
  out += "<p class=\"meta\">Written by cnnperf " + html_escape(CNNPERF_VERSION) +
         " (report layout schema_version " + std::to_string(kReportSchemaVersion) + ") from " +
         std::to_string(inputs.size()) +
         " input file(s). Figures are shown as the inputs give them; a value the report "
         "computes itself says so. Self-contained: no script, no external resource.</p>\n";
  out += "<ol>\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& heading = headings[i];
    out += "<li><a href=\"#input-" + std::to_string(i + 1) + "\">" + html_escape(inputs[i].name) +
           "</a>: " + html_escape(to_string(kinds[i])) +
           (heading.empty() ? "" : ", " + html_escape(heading)) + "</li>\n";
  }
  out += "</ol>\n";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& heading = headings[i];
    out += "<section id=\"input-" + std::to_string(i + 1) + "\">\n<h2>" + std::to_string(i + 1) +
           ". " + html_escape(to_string(kinds[i])) +
           (heading.empty() ? "" : ": " + html_escape(heading)) + "</h2>\n";
    out += "<p class=\"meta\">file: " + html_escape(inputs[i].name) + "</p>\n";
    // Fields the section's own header shows are not repeated in the provenance table.
    std::set<std::string> shown;
    if (kinds[i] == ReportKind::kNetworkPrediction || kinds[i] == ReportKind::kPredictionSweep) {
      shown = {"model", "power_model", "network_source"};
    }
    if (kinds[i] == ReportKind::kLayerPredictions) {
      shown = {"model", "source"};
    }
    out += provenance(docs[i], shown) +
           read_typed(kinds[i], inputs[i].name, [&] { return section_body(kinds[i], docs[i]); }) +
           "</section>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace cnnperf
