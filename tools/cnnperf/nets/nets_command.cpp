// SPDX-License-Identifier: Apache-2.0
// `cnnperf nets`: the zoo listing and per-layer inspection, one result model, three printers.
#include "nets/nets_command.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/model/network.hpp"
#include "cnnperf/model/network_io.hpp"
#include "cnnperf/model/network_layers.hpp"
#include "cnnperf/model/zoo.hpp"
#include "commands.hpp"

namespace cnnperf {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kZooSource =
    "cnnperf built-in zoo: layers transcribed from torchvision.models (Xception: Chollet 2017, "
    "Keras layout); params/MACs/FLOPs counted by cnnperf from those layers; published figures "
    "as cited per network";

std::string shape_text(std::int64_t c, std::int64_t h, std::int64_t w) {
  return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
}

std::string pair_text(std::int64_t a, std::int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

bool has_window(const Layer& layer) {
  const OpClass cls = op_class(layer.op);
  return cls == OpClass::kConv || cls == OpClass::kPool;
}

// ---- nets (list) ----------------------------------------------------------------------

struct ListRow {
  const ZooEntry* entry;
  std::size_t layers;
  std::int64_t params;
  std::int64_t macs;
  double flops;
};

std::vector<ListRow> list_rows(DType dtype) {
  std::vector<ListRow> rows;
  for (const ZooEntry& entry : zoo_entries()) {
    NetworkOptions options;
    options.dtype = dtype;
    const Network net = build_zoo_network(entry.name, options);
    rows.push_back({&entry, net.layers.size(), net.params(), net.macs(), net.flops()});
  }
  return rows;
}

std::string render_list(OutputFormat format, DType dtype) {
  const std::vector<ListRow> rows = list_rows(dtype);
  if (format == OutputFormat::kJson) {
    Json out;
    out["schema_version"] = kNetsSchemaVersion;
    out["kind"] = kNetworkListKind;
    out["tool_version"] = CNNPERF_VERSION;
    out["source"] = kZooSource;
    out["batch"] = 1;
    Json nets = Json::array();
    for (const ListRow& r : rows) {
      const ZooEntry& e = *r.entry;
      Json n;
      n["name"] = e.name;
      n["family"] = e.family;
      n["description"] = e.description;
      n["input_h"] = e.default_input_h;
      n["input_w"] = e.default_input_w;
      n["layers"] = r.layers;
      n["params"] = r.params;
      n["macs"] = r.macs;
      n["gmacs"] = static_cast<double>(r.macs) / 1e9;
      n["gflops"] = r.flops / 1e9;
      n["published_params"] = e.published_params;
      n["auxiliary_params"] = e.auxiliary_params;
      if (e.published_gmacs > 0) {
        n["published_gmacs"] = e.published_gmacs;
      } else {
        n["published_gmacs"] = nullptr;
      }
      n["published_source"] = e.published_source;
      n["top1_accuracy"] = e.top1_accuracy;
      n["accuracy_source"] = e.accuracy_source;
      nets.push_back(std::move(n));
    }
    out["networks"] = std::move(nets);
    return json_text(out) + "\n";
  }
  const std::vector<std::string> header{
      "name",   "family",           "input",           "layers", "params", "gmacs",
      "gflops", "published_params", "published_gmacs", "top1"};
  std::vector<std::vector<std::string>> cells;
  for (const ListRow& r : rows) {
    const ZooEntry& e = *r.entry;
    cells.push_back({e.name, e.family, pair_text(e.default_input_h, e.default_input_w),
                     std::to_string(r.layers), std::to_string(r.params),
                     format_number(static_cast<double>(r.macs) / 1e9, 4),
                     format_number(r.flops / 1e9, 4), std::to_string(e.published_params),
                     e.published_gmacs > 0 ? format_number(e.published_gmacs, 5) : "",
                     format_number(e.top1_accuracy, 5)});
  }
  if (format == OutputFormat::kCsv) {
    // CSV has no comments: provenance and schema version are columns of every row.
    std::vector<std::string> csv_header = header;
    for (const char* extra : {"published_source", "accuracy_source", "schema_version"}) {
      csv_header.emplace_back(extra);
    }
    std::string out = csv_line(csv_header) + "\n";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::vector<std::string> row = cells[i];
      row.push_back(rows[i].entry->published_source);
      row.push_back(rows[i].entry->accuracy_source);
      row.push_back(std::to_string(kNetsSchemaVersion));
      out += csv_line(row) + "\n";
    }
    return out;
  }
  return format_table(header, cells) +
         "gmacs/gflops: batch 1 at the input size shown; a multiply-add is 2 FLOPs. "
         "top1: ImageNet-1k, see `--format json` for sources.\n";
}

// ---- nets show ------------------------------------------------------------------------

std::string render_show(const NetsOptions& options, OutputFormat format,
                        std::optional<DType> given) {
  const auto [input_h, input_w] = cli::parse_input_size(options.input_size);
  NetworkOptions net_options;
  net_options.batch = options.batch;
  net_options.input_h = input_h;
  net_options.input_w = input_w;
  ImportOptions import = import_options_from(net_options);
  import.dtype = given;  // unset: an ONNX or JSON file's own element type (zoo: fp32)
  const Network net = load_network(options.show, import);
  const DType dtype = net.layers.empty() ? given.value_or(DType::kFp32) : net.layers.front().dtype;
  if (options.layer_list) return network_to_json(net);
  const std::string source = net.source == "zoo" ? std::string(kZooSource) : net.source;

  double total_bytes = 0;
  for (const Layer& layer : net.layers) total_bytes += layer.bytes();

  if (format == OutputFormat::kJson) {
    NetworkLayersResult result = network_layers_result(net, dtype, source);
    result.schema_version = kNetsSchemaVersion;
    return json_text(Json(result)) + "\n";
  }

  if (format == OutputFormat::kCsv) {
    // Canonical layer CSV columns first, so the output feeds `cnnperf predict --layers`.
    std::vector<std::string> header{"name"};
    for (const auto& column : layer_csv_columns()) header.push_back(column);
    for (const char* extra : {"ceil_mode", "num_inputs", "h_out", "w_out", "params", "macs",
                              "flops", "bytes", "network", "source", "schema_version"}) {
      header.emplace_back(extra);
    }
    // CSV has no comments: provenance and schema version are columns of every row.
    const std::string short_source = net.source == "zoo" ? "cnnperf zoo" : net.source;
    std::string out = csv_line(header) + "\n";
    for (const Layer& layer : net.layers) {
      std::int64_t c = 0;
      std::int64_t h = 0;
      std::int64_t w = 0;
      network_layer_output_shape(layer, c, h, w);
      std::vector<std::string> row{layer.name};
      for (auto& field : layer_csv_fields(layer)) row.push_back(std::move(field));
      row.push_back(layer.ceil_mode ? "1" : "0");
      row.push_back(std::to_string(layer.num_inputs));
      row.push_back(std::to_string(h));
      row.push_back(std::to_string(w));
      row.push_back(std::to_string(layer.params()));
      row.push_back(std::to_string(layer.macs()));
      row.push_back(format_number(layer.flops(), 15));
      row.push_back(format_number(layer.bytes(), 15));
      row.push_back(net.name);
      row.push_back(short_source);
      row.push_back(std::to_string(kNetsSchemaVersion));
      out += csv_line(row) + "\n";
    }
    return out;
  }

  std::vector<std::vector<std::string>> cells;
  for (const Layer& layer : net.layers) {
    std::int64_t c = 0;
    std::int64_t h = 0;
    std::int64_t w = 0;
    network_layer_output_shape(layer, c, h, w);
    const bool window = has_window(layer);
    cells.push_back({layer.name, to_string(layer.op),
                     shape_text(layer.c_in, layer.h_in, layer.w_in), shape_text(c, h, w),
                     window ? pair_text(layer.kernel_h, layer.kernel_w) : "",
                     window ? pair_text(layer.stride_h, layer.stride_w) : "",
                     window ? pair_text(layer.pad_h, layer.pad_w) : "",
                     layer.op == Op::kConv2d ? std::to_string(layer.groups) : "",
                     std::to_string(layer.params()), std::to_string(layer.macs()),
                     format_number(layer.flops(), 6), format_number(layer.bytes(), 6)});
  }
  cells.push_back({"total", "", "", "", "", "", "", "", std::to_string(net.params()),
                   std::to_string(net.macs()), format_number(net.flops(), 6),
                   format_number(total_bytes, 6)});
  std::string out = net.name + " (" + net.source + "): batch " + std::to_string(net.batch) +
                    ", input " + shape_text(net.input_c, net.input_h, net.input_w) + ", " +
                    to_string(dtype) + ", " + std::to_string(net.layers.size()) + " layers\n";
  out += format_table({"name", "op", "in", "out", "kernel", "stride", "pad", "groups", "params",
                       "macs", "flops", "bytes"},
                      cells);
  out += "params " + std::to_string(net.params()) + " (" +
         format_number(static_cast<double>(net.params()) / 1e6, 5) + " M), GMACs " +
         format_number(static_cast<double>(net.macs()) / 1e9, 5) + ", GFLOPs " +
         format_number(net.flops() / 1e9, 5) + " (multiply-add = 2 FLOPs), compulsory bytes " +
         format_number(total_bytes / 1e6, 5) + " MB\n";
  return out;
}

}  // namespace

std::string render_nets(const NetsOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  const std::optional<DType> given = optional_dtype_from_option(options.precision, "precision");
  if (options.batch <= 0) {
    throw InputError("--batch: expected a positive integer, got " + std::to_string(options.batch));
  }
  if (options.show.empty()) {
    if (options.layer_list) throw InputError("--layer-list: applies to 'nets show NAME'");
    return render_list(format, given.value_or(DType::kFp32));
  }
  return render_show(options, format, given);
}

int run_nets(const NetsOptions& options) {
  check_output_not_input(options.output, {options.show});
  write_output(options.output, render_nets(options));
  return 0;
}

}  // namespace cnnperf
