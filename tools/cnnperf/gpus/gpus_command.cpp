// SPDX-License-Identifier: Apache-2.0
// `cnnperf gpus [show NAME]`: one result model (GpuSpec rows), three printers.
#include "gpus/gpus_command.hpp"

#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/gpu_spec.hpp"

namespace cnnperf {
namespace {

using nlohmann::json;

constexpr int kOutputSchemaVersion = 1;
constexpr const char* kGpuListKind = "gpu_list";

std::string number_text(double value) {
  return value == 0 ? "0" : format_number(value, 6);
}

// Value of one field as text (the same text in table and CSV).
std::string field_text(const GpuSpec& g, const std::string& field) {
  json j = g;
  const json& v = j.at(field);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return number_text(v.get<double>());
  if (field == "aliases") return join(g.aliases, "; ");
  return json_text(v, -1);
}

void check_choice(const std::string& option, const std::string& value,
                  const std::set<std::string>& allowed) {
  if (value.empty() || allowed.count(value) != 0) return;
  std::vector<std::string> names(allowed.begin(), allowed.end());
  throw InputError(option + ": expected one of " + join(names, "|") + ", got '" + value + "'");
}

std::string render_list(const GpuDatabase& db, const GpusOptions& o, OutputFormat format) {
  std::vector<const GpuSpec*> rows;
  for (const auto& g : db.all()) {
    if (!o.segment.empty() && g.segment != o.segment) continue;
    if (!o.arch.empty() && g.architecture != o.arch) continue;
    rows.push_back(&g);
  }
  if (rows.empty()) spdlog::warn("no GPU matches the filters");

  if (format == OutputFormat::kJson) {
    json out = json::object();
    out["schema_version"] = kOutputSchemaVersion;
    out["kind"] = kGpuListKind;
    out["tool_version"] = CNNPERF_VERSION;
    out["database"] = db.source_path();
    out["database_schema_version"] = db.schema_version();
    out["filters"] = {{"segment", o.segment}, {"arch", o.arch}};
    out["count"] = rows.size();
    out["gpus"] = json::array();
    for (const auto* g : rows) out["gpus"].push_back(*g);
    return json_text(out) + "\n";
  }
  if (format == OutputFormat::kCsv) {
    // Every field but the per-field sources (see `gpus show NAME` for those).
    std::vector<std::string> header;
    for (const auto& f : gpu_spec_field_names()) {
      if (f != "sources") header.push_back(f);
    }
    std::vector<std::vector<std::string>> cells;
    for (const auto* g : rows) {
      cells.emplace_back();
      for (const auto& f : header) cells.back().push_back(field_text(*g, f));
    }
    return csv_with_schema(header, cells, kOutputSchemaVersion);
  }
  const std::vector<std::string> header = {
      "name",           "architecture", "SMs",   "boost MHz", "FP32 TFLOPS", "tensor FP16 TFLOPS",
      "bandwidth GB/s", "memory GB",    "TDP W", "year"};
  std::vector<std::vector<std::string>> cells;
  cells.reserve(rows.size());
  for (const auto* g : rows) {
    cells.push_back({g->name, g->architecture, std::to_string(g->sm_count),
                     number_text(g->boost_clock_mhz), number_text(g->fp32_tflops),
                     number_text(g->tensor_fp16_tflops), number_text(g->memory_bandwidth_gbs),
                     number_text(g->memory_gb), number_text(g->tdp_w),
                     std::to_string(g->release_year)});
  }
  return format_table(header, cells) + "\n" + std::to_string(rows.size()) + " GPUs from " +
         db.source_path() +
         " (specifications, peaks at the boost clock; sources: cnnperf gpus show NAME)\n";
}

std::string render_show(const GpuDatabase& db, const GpusOptions& o, OutputFormat format) {
  const GpuSpec g = [&] {
    try {
      return db.resolve(o.show);
    } catch (const ParameterError& e) {
      throw InputError("gpus show: " + e.detail());  // a positional, not an option
    }
  }();
  if (format == OutputFormat::kJson) {
    GpuSpecResult result;
    result.schema_version = kOutputSchemaVersion;
    result.tool_version = CNNPERF_VERSION;
    result.database = db.source_path();
    result.query = o.show;
    result.gpu = g;
    return json_text(json(result)) + "\n";
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : gpu_spec_field_names()) {
    if (f == "sources") continue;
    rows.push_back({f, field_text(g, f), g.source_of(f)});
  }
  if (format == OutputFormat::kCsv) {
    return csv_with_schema({"field", "value", "source"}, rows, kOutputSchemaVersion);
  }
  return format_table({"field", "value", "source"}, rows);
}

}  // namespace

std::string render_gpus(const GpusOptions& options) {
  const OutputFormat format = output_format_from_string(options.format);
  check_choice("--segment", options.segment, {"datacenter", "desktop", "workstation", "jetson"});
  check_choice(
      "--arch", options.arch,
      {"kepler", "maxwell", "pascal", "volta", "turing", "ampere", "ada", "hopper", "blackwell"});
  if (!options.show.empty() && (!options.segment.empty() || !options.arch.empty())) {
    // A filter cannot apply to one named GPU; ignoring it would hide the user's intent.
    throw InputError(std::string(options.segment.empty() ? "--arch" : "--segment") +
                     ": filters the list; `gpus show` takes one GPU by name (drop the filter)");
  }
  GpuDatabase loaded;
  const GpuDatabase* db = &loaded;
  if (options.database.empty()) {
    db = &GpuDatabase::bundled();
  } else {
    loaded = GpuDatabase::load(user_file_or_resource(options.database));
  }
  return options.show.empty() ? render_list(*db, options, format)
                              : render_show(*db, options, format);
}

int run_gpus(const GpusOptions& options) {
  check_output_not_input(options.output, {options.database, options.show});
  const std::string text = render_gpus(options);
  write_output(options.output, text);
  return 0;
}

}  // namespace cnnperf
