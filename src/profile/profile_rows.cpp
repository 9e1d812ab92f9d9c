// SPDX-License-Identifier: Apache-2.0
// Profile output: the dataset row schema, printers, reading an earlier output to resume,
// and the dry-run plan with its time estimate.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

std::string num(double value, int digits = 6) {
  if (!std::isfinite(value)) return "";
  return format_number(value, digits);
}

const KernelRecord* main_kernel(const std::vector<KernelRecord>& kernels) {
  const KernelRecord* best = nullptr;
  for (const auto& k : kernels) {
    if (best == nullptr || k.duration_ns() > best->duration_ns()) best = &k;
  }
  return best;
}

}  // namespace

const std::vector<std::string>& profile_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = layer_csv_columns();
    const std::vector<std::string> extra{
        // Targets and provenance (DESIGN §3 / docs/data-formats.md).
        "latency_ms", "energy_mj", "avg_power_w", "gpu", "source", "framework", "library_versions",
        "timing_method",
        // What ran and how it went.
        "layout", "algo_request", "algo", "algo_status", "algo_reason", "workspace_bytes",
        // Timing statistics.
        "latency_median_ms", "latency_min_ms", "noise_pct", "samples", "stop_reason", "warmup",
        "l2_flush",
        // Kernels of one representative launch (CUPTI Activity records).
        "kernels_per_launch", "main_kernel", "kernel_sequence", "grid_x", "grid_y", "grid_z",
        "block_x", "block_y", "block_z", "registers_per_thread", "static_smem_bytes",
        "dynamic_smem_bytes", "dropped_records", "missing_launches",
        // Energy.
        "energy_method", "energy_window_ms", "energy_launches", "energy_gpu_busy_pct",
        "energy_counter_updates", "energy_launch_mode", "power_limit_w",
        // Device and clocks.
        "gpu_uuid", "gpu_index", "compute_capability", "sm_clock_mhz", "mem_clock_mhz",
        "clock_policy",
        // Where the layer came from.
        "layer_name", "layer_source", "duplicates", "schema_version"};
    c.insert(c.end(), extra.begin(), extra.end());
    return c;
  }();
  return columns;
}

double energy_gpu_busy_pct(const ProfileRow& row) {
  if (!row.status.ok() || !row.energy.status.ok() || row.energy_launches <= 0 ||
      !(row.energy.window_ms > 0)) {
    return NAN;
  }
  return 100.0 * row.energy_launches * row.latency_ms / row.energy.window_ms;
}

std::vector<std::string> profile_row_fields(const ProfileRow& row, const DeviceInfo& device,
                                            const MeasurePolicy& policy) {
  std::vector<std::string> f = layer_csv_fields(row.job.layer);
  const bool passed = row.status.ok();
  const bool have_energy = passed && row.energy.status.ok() && row.energy_launches > 0;
  const double energy_per_launch_mj =
      have_energy ? row.energy.energy_mj / row.energy_launches : NAN;
  const double avg_power_w =
      have_energy && row.energy.window_ms > 0 ? row.energy.energy_mj / row.energy.window_ms : NAN;
  std::string versions = "cuda-" + device.cuda_runtime + ";cudnn-" + device.cudnn + ";cupti-" +
                         device.cupti + ";cuda-driver-" + device.cuda_driver;
  if (!device.driver.empty()) versions += ";driver-" + device.driver;

  f.push_back(passed ? num(row.latency_ms) : "");
  f.push_back(have_energy ? num(energy_per_launch_mj) : "");
  f.push_back(have_energy ? num(avg_power_w) : "");
  f.push_back(device.name);
  f.push_back("cnnperf-profile");
  f.push_back(device.cudnn.empty() ? "cudnn" : "cudnn-" + device.cudnn);
  f.push_back(versions);
  f.push_back("cupti-activity-kernel-sum-per-launch-mean");

  f.push_back(to_string(row.job.layer.layout));
  f.push_back(row.job.algo_request);
  f.push_back(row.algo_known ? to_string(row.algo) : "");
  f.push_back(to_string(row.status.outcome));
  f.push_back(row.status.reason);
  f.push_back(passed ? std::to_string(row.workspace_bytes) : "");

  f.push_back(passed ? num(row.latency_median_ms) : "");
  f.push_back(passed ? num(row.latency_min_ms) : "");
  f.push_back(passed ? num(row.noise_pct, 4) : "");
  f.push_back(passed ? std::to_string(row.samples) : "");
  f.push_back(row.stop_reason);
  f.push_back(std::to_string(policy.warmup));
  f.push_back(policy.flush_l2 ? "1" : "0");

  const KernelRecord* main = passed ? main_kernel(row.kernels) : nullptr;
  std::string sequence;
  for (const auto& k : row.kernels) sequence += (sequence.empty() ? "" : ";") + k.name;
  f.push_back(passed ? std::to_string(row.kernels.size()) : "");
  f.push_back(main ? main->name : "");
  f.push_back(passed ? sequence : "");
  for (int i = 0; i < 3; ++i) f.push_back(main ? std::to_string(main->grid[i]) : "");
  for (int i = 0; i < 3; ++i) f.push_back(main ? std::to_string(main->block[i]) : "");
  f.push_back(main ? std::to_string(main->registers_per_thread) : "");
  f.push_back(main ? std::to_string(main->static_smem_bytes) : "");
  f.push_back(main ? std::to_string(main->dynamic_smem_bytes) : "");
  f.push_back(passed ? std::to_string(row.dropped_records) : "");
  f.push_back(passed ? std::to_string(row.missing_launches) : "");

  // Never a silent zero: without a reading the method column says why.
  f.push_back(passed ? (row.energy.status.ok() ? row.energy.method
                                               : "not available: " + row.energy.status.reason)
                     : "");
  f.push_back(have_energy ? num(row.energy.window_ms) : "");
  f.push_back(have_energy ? std::to_string(row.energy_launches) : "");
  const double busy_pct = energy_gpu_busy_pct(row);
  f.push_back(std::isfinite(busy_pct) ? num(busy_pct, 4) : "");
  f.push_back(have_energy && row.energy.counter_updates > 0
                  ? std::to_string(row.energy.counter_updates)
                  : "");
  f.push_back(have_energy ? row.energy_launch_mode : "");
  f.push_back(row.energy.power_limit_w > 0 ? num(row.energy.power_limit_w) : "");

  f.push_back(device.uuid);
  f.push_back(std::to_string(device.index));
  f.push_back(device.cc_major > 0
                  ? std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor)
                  : "");
  f.push_back(row.energy.sm_clock_mhz > 0 ? num(row.energy.sm_clock_mhz) : "");
  f.push_back(row.energy.mem_clock_mhz > 0 ? num(row.energy.mem_clock_mhz) : "");
  f.push_back("unlocked-observed");

  f.push_back(row.job.layer.name);
  f.push_back(row.job.source);
  f.push_back(std::to_string(row.job.duplicates));
  f.push_back(std::to_string(kProfileSchemaVersion));
  return f;
}

nlohmann::json profile_row_json(const std::vector<std::string>& fields) {
  const auto& header = profile_columns();
  nlohmann::json row = nlohmann::json::object();
  for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
  return row;
}

std::string render_profile_rows(const std::vector<std::vector<std::string>>& rows,
                                OutputFormat format) {
  const auto& header = profile_columns();
  switch (format) {
    case OutputFormat::kCsv: {
      std::string out = csv_line(header) + "\n";
      for (const auto& row : rows) out += csv_line(row) + "\n";
      return out;
    }
    case OutputFormat::kJson: {
      nlohmann::json doc;
      doc["schema_version"] = kProfileSchemaVersion;
      doc["kind"] = kProfileRowsKind;
      doc["tool_version"] = CNNPERF_VERSION;
      doc["source"] = "cnnperf-profile";
      doc["rows"] = nlohmann::json::array();
      for (const auto& row : rows) doc["rows"].push_back(profile_row_json(row));
      return json_text(doc) + "\n";
    }
    case OutputFormat::kTable: {
      // The table shows the columns a person reads; CSV/JSON carry everything.
      const std::vector<std::string> shown{"c_in",      "h_in",        "c_out",      "kernel_h",
                                           "stride_h",  "groups",      "dtype",      "layout",
                                           "algo",      "algo_status", "latency_ms", "energy_mj",
                                           "noise_pct", "samples",     "main_kernel"};
      std::vector<std::size_t> idx;
      idx.reserve(shown.size());
      for (const auto& name : shown) {
        idx.push_back(static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                               header.begin()));
      }
      std::vector<std::vector<std::string>> cells;
      for (const auto& row : rows) {
        std::vector<std::string> c;
        c.reserve(idx.size());
        for (std::size_t i : idx) c.push_back(i < row.size() ? row[i] : "");
        cells.push_back(std::move(c));
      }
      return format_table(shown, cells);
    }
  }
  return {};
}

std::string profile_row_key(const CsvTable& table, std::size_t row) {
  const Layer layer = layer_from_row(table, row);
  std::string key;
  for (const auto& field : layer_csv_fields(layer)) key += field + ",";
  return key + table.get(row, "layout").value_or("nchw") + "," +
         table.get(row, "algo_request").value_or("heuristic");
}

ResumeState read_resume_state(const std::string& path) {
  ResumeState state;
  if (path.empty() || path == "-") {
    throw InputError("cannot resume stdout: expected the output file of an earlier run");
  }
  if (!std::filesystem::exists(path)) return state;  // nothing measured yet: start fresh
  state.table = read_csv(path);
  for (const char* required : {"op", "algo_request", "algo_status", "layout", "gpu_uuid"}) {
    if (!state.table.column(required)) {
      throw InputError(path + ": not a cnnperf profile output (column '" + std::string(required) +
                       "' missing); expected an earlier profile output to resume");
    }
  }
  for (std::size_t i = 0; i < state.table.rows.size(); ++i) {
    const Outcome outcome = outcome_from_string(state.table.get(i, "algo_status").value_or(""));
    const auto uuid = state.table.get(i, "gpu_uuid");
    if (uuid && state.gpu_uuid.empty()) state.gpu_uuid = *uuid;
    // Failed or not-run rows are measured again; the rest are final.
    if (outcome == Outcome::kFailed || outcome == Outcome::kNotRun) continue;
    state.done_keys.push_back(profile_row_key(state.table, i));
  }
  return state;
}

std::string render_dry_run(const std::vector<ProfileJob>& jobs, const MeasurePolicy& policy,
                           OutputFormat format) {
  const MeasurePolicy& p = policy;
  std::vector<std::vector<std::string>> rows;
  TimeEstimate total;
  std::size_t runnable = 0;
  nlohmann::json json_jobs = nlohmann::json::array();
  for (const ProfileJob& job : jobs) {
    const TimeEstimate t = estimate_job_time(job, p);
    total.low_s += t.low_s;
    total.high_s += t.high_s;
    if (job.precheck.ok()) ++runnable;
    const Layer& l = job.layer;
    const std::string shape = std::to_string(l.batch) + "x" + std::to_string(l.c_in) + "x" +
                              std::to_string(l.h_in) + "x" + std::to_string(l.w_in) + " -> " +
                              std::to_string(l.c_out) + " k" + std::to_string(l.kernel_h) + "x" +
                              std::to_string(l.kernel_w) + " s" + std::to_string(l.stride_h) +
                              " p" + std::to_string(l.pad_h) + " d" + std::to_string(l.dilation_h) +
                              " g" + std::to_string(l.groups);
    const std::string status = job.precheck.ok()
                                   ? "will run"
                                   : to_string(job.precheck.outcome) + ": " + job.precheck.reason;
    rows.push_back({std::to_string(job.id), job.source, shape, to_string(l.dtype),
                    to_string(job.layer.layout), job.algo_request, std::to_string(job.duplicates),
                    format_number(t.low_s, 3) + "-" + format_number(t.high_s, 3), status});
    nlohmann::json j;
    j["id"] = job.id;
    j["source"] = job.source;
    j["layer"] = nlohmann::json::object();
    const auto fields = layer_csv_fields(l);
    for (std::size_t i = 0; i < fields.size(); ++i) j["layer"][layer_csv_columns()[i]] = fields[i];
    j["layout"] = to_string(job.layer.layout);
    j["algo_request"] = job.algo_request;
    j["duplicates"] = job.duplicates;
    j["status"] = to_string(job.precheck.outcome);
    j["reason"] = job.precheck.reason;
    j["estimate_low_s"] = t.low_s;
    j["estimate_high_s"] = t.high_s;
    json_jobs.push_back(std::move(j));
  }
  const std::string policy_text =
      "warmup " + std::to_string(p.warmup) + " launches, min-samples " +
      std::to_string(p.min_samples) + ", max-noise " + format_number(p.max_noise_pct, 3) +
      "%, min-time " + format_number(p.min_time_s, 3) + " s, max-time " +
      format_number(p.max_time_s, 3) + " s, energy window " + format_number(p.energy_window_ms, 3) +
      " ms" + (p.flush_l2 ? ", L2 flushed before every sample" : "");
  if (format == OutputFormat::kJson) {
    nlohmann::json doc;
    doc["schema_version"] = kProfileSchemaVersion;
    doc["kind"] = kProfilePlanKind;
    doc["tool_version"] = CNNPERF_VERSION;
    doc["dry_run"] = true;
    doc["policy"] = policy_text;
    doc["jobs"] = std::move(json_jobs);
    doc["runnable_jobs"] = runnable;
    doc["estimate_low_s"] = total.low_s;
    doc["estimate_high_s"] = total.high_s;
    return json_text(doc) + "\n";
  }
  const std::vector<std::string> header{
      "id", "layer", "shape (NxCxHxW -> K)", "dtype", "layout", "algo", "dups", "est_s", "status"};
  if (format == OutputFormat::kCsv) {
    std::string out = csv_line(header) + "\n";
    for (const auto& row : rows) out += csv_line(row) + "\n";
    return out;
  }
  std::string out = format_table(header, rows);
  out += "\n" + std::to_string(jobs.size()) + " jobs (" + std::to_string(runnable) +
         " runnable), estimated profiling time " + format_number(total.low_s, 3) + "-" +
         format_number(total.high_s, 3) + " s\npolicy: " + policy_text + "\n";
  return out;
}

}  // namespace cnnperf
