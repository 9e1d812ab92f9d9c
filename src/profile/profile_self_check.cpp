// SPDX-License-Identifier: Apache-2.0
// `profile --self-check`: one known convolution, and what its row says about whether this GPU's
// kernel records and energy counter can be trusted.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {

bool SelfCheckResult::passed() const {
  return !checks.empty() &&
         std::all_of(checks.begin(), checks.end(), [](const SelfCheckItem& c) { return c.passed; });
}

ProfileJob self_check_job() {
  ProfileJob job;
  job.layer.name = "resnet50:layer1.0.conv2";
  job.layer.batch = 32;
  job.layer.c_in = job.layer.c_out = 64;
  job.layer.h_in = job.layer.w_in = 56;
  job.layer.kernel_h = job.layer.kernel_w = 3;
  job.layer.pad_h = job.layer.pad_w = 1;
  job.layer.layout = Layout::kNchw;
  job.algo_request = "heuristic";
  job.source = "self-check";
  return job;
}

std::vector<SelfCheckItem> self_check_items(const ProfileRow& row, const MeasurePolicy& policy) {
  std::vector<SelfCheckItem> out;
  const auto add = [&out](const char* name, bool passed, std::string detail) {
    out.push_back({name, passed, std::move(detail)});
  };
  if (!row.status.ok()) {
    add("measured", false,
        "the convolution was not measured: " + to_string(row.status.outcome) + ": " +
            row.status.reason);
    return out;
  }
  add("measured", true,
      "mean " + format_number(row.latency_ms) + " ms per launch over " +
          std::to_string(row.samples) + " samples" +
          (row.algo_known ? " (" + to_string(row.algo) + ")" : ""));

  const bool records = !row.kernels.empty() && row.dropped_records == 0 &&
                       row.samples >= static_cast<std::size_t>(policy.min_samples);
  add("kernel_records", records,
      records ? std::to_string(row.kernels.size()) + " kernels per launch, none dropped"
              : std::to_string(row.kernels.size()) + " kernels per launch, " +
                    std::to_string(row.dropped_records) +
                    " records dropped by CUPTI: kernel times would miss kernels");

  const std::size_t traced = row.samples + row.missing_launches;
  add("attribution", row.missing_launches == 0,
      row.missing_launches == 0
          ? "all " + std::to_string(traced) + " traced launches had timed kernel records"
          : std::to_string(row.missing_launches) + " of " + std::to_string(traced) +
                " traced launches had no timed kernel record (external correlation or "
                "timestamps missing): layers would be timed from the rest only");

  const bool timestamps =
      std::all_of(row.kernels.begin(), row.kernels.end(),
                  [](const KernelRecord& k) { return k.timed() && k.end_ns > k.start_ns; }) &&
      row.latency_ms > 0;
  add("timestamps", timestamps,
      timestamps ? "every kernel of the representative launch has end > start"
                 : "a kernel of the representative launch has no positive duration");

  const bool converged = row.stop_reason.rfind("converged", 0) == 0;
  add("repeatability", converged,
      "noise " + format_number(row.noise_pct, 3) + " % (stop: " + row.stop_reason + ")" +
          (converged ? ""
                     : "; above the noise limit " + format_number(policy.max_noise_pct, 3) +
                           " %: another process on this GPU, or clocks changing"));

  const EnergyReading& e = row.energy;
  if (!e.status.ok()) {
    add("energy", false, "no energy reading: " + e.status.reason);
    return out;
  }
  const bool counter = e.method == "nvml-total-energy-counter";
  const int updates = counter ? e.counter_updates : e.power_samples;
  add("energy", updates >= 2,
      std::to_string(updates) +
          (counter ? " energy counter updates" : " power samples (" + e.method + ")") + " in a " +
          format_number(e.window_ms) + " ms window" +
          (updates >= 2 ? "" : ": fewer than 2, the window's energy is not resolved"));
  const double busy = energy_gpu_busy_pct(row);
  const bool busy_ok = std::isfinite(busy) && busy >= kSelfCheckMinBusyPct;
  add("energy_window_busy", busy_ok,
      "kernels ran " + format_number(busy, 3) + " % of the window (" + row.energy_launch_mode +
          ")" +
          (busy_ok ? ""
                   : "; below " + format_number(kSelfCheckMinBusyPct, 3) +
                         " %, per-launch energy includes the idle gaps between launches"));
  return out;
}

SelfCheckResult run_self_check(ProfilerBackend& backend, MeasurePolicy policy) {
  policy.energy_window_ms = std::max(policy.energy_window_ms, kSelfCheckEnergyWindowMs);
  SelfCheckResult result;
  result.device = backend.device();
  result.policy = policy;
  std::vector<ProfileRow> rows = measure_job(backend, self_check_job(), policy);
  result.row = std::move(rows.at(0));
  result.checks = self_check_items(result.row, policy);
  return result;
}

std::string render_self_check(const SelfCheckResult& result, OutputFormat format) {
  const std::size_t failed = std::count_if(result.checks.begin(), result.checks.end(),
                                           [](const SelfCheckItem& c) { return !c.passed; });
  if (format == OutputFormat::kJson) {
    nlohmann::json doc;
    doc["schema_version"] = kProfileSchemaVersion;
    doc["kind"] = kSelfCheckKind;
    doc["tool_version"] = CNNPERF_VERSION;
    doc["source"] = "cnnperf-profile";
    doc["passed"] = result.passed();
    doc["checks"] = nlohmann::json::array();
    for (const SelfCheckItem& c : result.checks) {
      doc["checks"].push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
    }
    doc["row"] = profile_row_json(profile_row_fields(result.row, result.device, result.policy));
    return json_text(doc) + "\n";
  }
  if (format == OutputFormat::kCsv) {
    std::string out = csv_line({"check", "passed", "detail"}) + "\n";
    for (const SelfCheckItem& c : result.checks) {
      out += csv_line({c.name, c.passed ? "1" : "0", c.detail}) + "\n";
    }
    return out;
  }
  const Layer& l = result.row.job.layer;
  std::string out = "self-check on GPU " + std::to_string(result.device.index) + " (" +
                    result.device.name + ", cuDNN " + result.device.cudnn + ", CUPTI " +
                    result.device.cupti + "): " + result.row.job.layer.name + ", conv " +
                    std::to_string(l.c_in) + "->" + std::to_string(l.c_out) + " " +
                    std::to_string(l.kernel_h) + "x" + std::to_string(l.kernel_w) + " on " +
                    std::to_string(l.h_in) + "x" + std::to_string(l.w_in) + ", batch " +
                    std::to_string(l.batch) + ", " + to_string(l.dtype) + "\n";
  std::vector<std::vector<std::string>> rows;
  for (const SelfCheckItem& c : result.checks) {
    rows.push_back({c.name, c.passed ? "pass" : "FAIL", c.detail});
  }
  out += format_table({"check", "result", "detail"}, rows);
  out += result.passed() ? "verdict: pass, kernel times and energy from this GPU can be trusted\n"
                         : "verdict: FAIL, " + std::to_string(failed) + " of " +
                               std::to_string(result.checks.size()) +
                               " checks failed (docs/profiling.md, Self-check)\n";
  return out;
}

}  // namespace cnnperf
