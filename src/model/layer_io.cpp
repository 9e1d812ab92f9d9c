// SPDX-License-Identifier: Apache-2.0
// Canonical layer CSV reading and writing.
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/model/layer_csv_reader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf {

namespace {

std::int64_t integer_field(const CsvTable& table, std::size_t row, const char* name,
                           const char* square_alias, std::int64_t fallback) {
  auto read = [&](const char* field) -> std::optional<std::int64_t> {
    const std::optional<std::string> text = table.get(row, field);
    if (!text) return std::nullopt;
    const std::string where = table.where(row) + ": field '" + field + "'";
    const double value = parse_number(*text, where);
    if (value != std::floor(value) || std::fabs(value) > 9.0e15) {
      throw InputError(where + ": expected an integer, got '" + *text + "'");
    }
    return static_cast<std::int64_t>(value);
  };
  const std::optional<std::int64_t> value = read(name);
  const std::optional<std::int64_t> square =
      square_alias != nullptr ? read(square_alias) : std::nullopt;
  // kernel=3 beside kernel_h=5 is ambiguous (a typo, or a 5x3 meant?): both must agree.
  if (value && square && *value != *square) {
    throw InputError(table.where(row) + ": field '" + name + "': " + std::to_string(*value) +
                     " contradicts " + square_alias + " " + std::to_string(*square) + "; give " +
                     square_alias + " or the _h/_w pair");
  }
  return value.value_or(square.value_or(fallback));
}

bool bool_field(const CsvTable& table, std::size_t row, const char* name) {
  const auto text = table.get(row, name);
  if (!text) return false;
  const std::string lower = to_lower(*text);
  if (lower == "1" || lower == "true" || lower == "yes") return true;
  if (lower == "0" || lower == "false" || lower == "no") return false;
  throw InputError(table.where(row) + ": field '" + name + "': expected 0/1 or true/false, got '" +
                   *text + "'");
}

}  // namespace

const std::vector<std::string>& layer_row_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> all = layer_csv_columns();
    for (const char* extra :
         {"kernel", "stride", "padding", "dilation", "pad_h_end", "pad_w_end", "ceil_mode",
          "num_inputs", "name", "activation", "optimizer", "layout"}) {
      all.emplace_back(extra);
    }
    return all;
  }();
  return fields;
}

namespace {

// Columns `nets show` derives from a row's shape (h_out ... bytes): predict passes a row's
// columns through to its output, so a value left stale by an edit of the shape would sit
// beside a prediction of another layer. Absent columns are not checked.
void check_derived_columns(const CsvTable& table, std::size_t row, const Layer& layer) {
  // A view's output shape is its network's (flatten: C*H*W x 1 x 1), not the row's window:
  // h_out and w_out are checked where a window sets them.
  const bool windowed =
      op_class(layer.op) == OpClass::kConv || op_class(layer.op) == OpClass::kPool;
  struct Derived {
    const char* field;
    double expected;
    bool checked;
  };
  const std::array<Derived, 6> derived{{
      {"h_out", static_cast<double>(layer.h_out()), windowed},
      {"w_out", static_cast<double>(layer.w_out()), windowed},
      {"params", static_cast<double>(layer.params()), true},
      {"macs", static_cast<double>(layer.macs()), true},
      {"flops", layer.flops(), true},
      {"bytes", layer.bytes(), true},
  }};
  for (const auto& [field, expected, checked] : derived) {
    const std::optional<std::string> text = checked ? table.get(row, field) : std::nullopt;
    if (!text) continue;
    const std::string where = table.where(row) + ": field '" + field + "'";
    const double given = parse_number(*text, where);
    if (std::fabs(given - expected) > 1e-6 * std::max(std::fabs(expected), 1.0)) {
      throw InputError(where + ": got " + *text + "; expected " + format_number(expected, 15) +
                       ", derived from the row's shape, dtype and pass (fix it or drop the "
                       "column)");
    }
  }
}

}  // namespace

Layer layer_from_row(const CsvTable& table, std::size_t row) {
  Layer layer;
  const auto op_text = table.get(row, "op");
  if (!op_text) throw InputError(table.where(row) + ": field 'op': expected an operator name");
  try {
    layer.op = op_from_string(*op_text);
    if (const auto d = table.get(row, "dtype")) layer.dtype = dtype_from_string(*d);
    if (const auto p = table.get(row, "pass")) layer.pass = pass_from_string(*p);
  } catch (const InputError& e) {
    throw InputError(table.where(row) + ": " + e.what());
  }
  // Set-up columns of the measurement (MLPredict's rows); absent: the layer alone.
  const auto setup_field = [&](const char* field, auto parse, auto& target) {
    const auto text = table.get(row, field);
    if (!text) return;
    try {
      target = parse(*text);
    } catch (const InputError& e) {
      throw InputError(table.where(row) + ": field '" + field + "': " + e.what());
    }
  };
  setup_field("activation", activation_from_string, layer.activation);
  setup_field("optimizer", optimizer_from_string, layer.optimizer);
  setup_field("layout", layout_from_string, layer.layout);
  if (const auto n = table.get(row, "name")) layer.name = *n;
  layer.batch = integer_field(table, row, "batch", nullptr, 1);
  layer.c_in = integer_field(table, row, "c_in", nullptr, 1);
  layer.h_in = integer_field(table, row, "h_in", nullptr, 1);
  layer.w_in = integer_field(table, row, "w_in", nullptr, 1);
  const bool elementwise = op_class(layer.op) != OpClass::kConv &&
                           op_class(layer.op) != OpClass::kGemm &&
                           op_class(layer.op) != OpClass::kCopy;
  layer.c_out = integer_field(table, row, "c_out", nullptr, elementwise ? layer.c_in : 1);
  layer.kernel_h = integer_field(table, row, "kernel_h", "kernel", 1);
  layer.kernel_w = integer_field(table, row, "kernel_w", "kernel", layer.kernel_h);
  layer.stride_h = integer_field(table, row, "stride_h", "stride", 1);
  layer.stride_w = integer_field(table, row, "stride_w", "stride", layer.stride_h);
  layer.pad_h = integer_field(table, row, "pad_h", "padding", 0);
  layer.pad_w = integer_field(table, row, "pad_w", "padding", layer.pad_h);
  // Bottom/right padding (datasets: MLPredict's TensorFlow SAME rows); absent: symmetric.
  layer.pad_h_end = integer_field(table, row, "pad_h_end", nullptr, -1);
  layer.pad_w_end = integer_field(table, row, "pad_w_end", nullptr, -1);
  if (layer.pad_h_end == layer.pad_h) layer.pad_h_end = -1;
  if (layer.pad_w_end == layer.pad_w) layer.pad_w_end = -1;
  layer.dilation_h = integer_field(table, row, "dilation_h", "dilation", 1);
  layer.dilation_w = integer_field(table, row, "dilation_w", "dilation", layer.dilation_h);
  layer.groups = integer_field(table, row, "groups", nullptr, 1);
  layer.bias = bool_field(table, row, "bias");
  layer.ceil_mode = bool_field(table, row, "ceil_mode");
  // `nets show` writes both: a layer read back is the layer the network predicts.
  const bool binary = layer.op == Op::kAdd || layer.op == Op::kMul;
  layer.num_inputs =
      static_cast<int>(integer_field(table, row, "num_inputs", nullptr, binary ? 2 : 1));
  layer.validate(table.where(row));
  check_derived_columns(table, row, layer);
  return layer;
}

namespace {

void check_layer_header(const CsvTable& table) {
  if (!table.column("op")) {
    throw InputError(table.source +
                     ":1: no 'op' column (expected the canonical layer CSV header, "
                     "e.g. op,batch,c_in,h_in,w_in,c_out,kernel_h,...)");
  }
}

// `predict --net --format csv` closes its layers with the network's totals, a row whose op
// is `total`: not a layer, so reading that file back as layers leaves it out.
void drop_total_rows(CsvTable& table) {
  const auto op = table.column("op");
  if (!op) return;
  std::size_t kept = 0;
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    if (table.rows[row][*op] == "total") continue;
    if (kept != row) {
      table.rows[kept] = std::move(table.rows[row]);
      if (row < table.lines.size()) table.lines[kept] = table.lines[row];
    }
    ++kept;
  }
  table.rows.resize(kept);
  if (table.lines.size() > kept) table.lines.resize(kept);
}

void read_layers_of_rows(LayerTable& out) {
  drop_total_rows(out.table);
  out.layers.clear();
  out.layers.reserve(out.table.rows.size());
  for (std::size_t row = 0; row < out.table.rows.size(); ++row) {
    out.layers.push_back(layer_from_row(out.table, row));
  }
}

}  // namespace

LayerTable parse_layers_csv(std::string_view text, const std::string& source) {
  LayerTable out;
  out.table = parse_csv(text, source);
  check_layer_header(out.table);
  read_layers_of_rows(out);
  return out;
}

LayerTable read_layers_csv(const std::filesystem::path& path) {
  return parse_layers_csv(read_text_file(path), path.string());
}

LayerCsvReader::LayerCsvReader(const std::filesystem::path& path) : csv_(path) {
  check_layer_header(csv_.header());
}

bool LayerCsvReader::read(LayerTable& chunk, std::size_t max_rows) {
  csv_.read_rows(chunk.table, max_rows);
  read_layers_of_rows(chunk);
  return !chunk.layers.empty();
}

std::vector<std::string> layer_csv_fields(const Layer& layer) {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  return {to_string(layer.op),    s(layer.batch),       s(layer.c_in),     s(layer.h_in),
          s(layer.w_in),          s(layer.c_out),       s(layer.kernel_h), s(layer.kernel_w),
          s(layer.stride_h),      s(layer.stride_w),    s(layer.pad_h),    s(layer.pad_w),
          s(layer.dilation_h),    s(layer.dilation_w),  s(layer.groups),   layer.bias ? "1" : "0",
          to_string(layer.dtype), to_string(layer.pass)};
}

}  // namespace cnnperf
