// SPDX-License-Identifier: Apache-2.0
// The measurement loop: warm-up, traced sample batches until the policy stops, NVML window.
// Vendor work happens behind ProfilerBackend.
#include <algorithm>
#include <chrono>
#include <cmath>

#include <spdlog/spdlog.h>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

// GPU time of one launch: the union of its kernels' intervals. Kernels may overlap
// (programmatic dependent launch on Hopper starts the next before the last ends); a plain
// sum would count the overlap twice.
double kernel_busy_ms(std::vector<KernelRecord> kernels) {
  std::sort(kernels.begin(), kernels.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  std::uint64_t ns = 0;
  std::uint64_t covered_to = 0;
  for (const auto& k : kernels) {
    const std::uint64_t from = std::max(k.start_ns, covered_to);
    if (k.end_ns > from) ns += k.end_ns - from;
    covered_to = std::max(covered_to, k.end_ns);
  }
  return static_cast<double>(ns) / 1.0e6;
}

// Closes the energy window on every path: a runner that throws inside the window must not
// leave the meter sampling.
class EnergyWindow {
 public:
  explicit EnergyWindow(PowerMeter& meter) : meter_(meter) { meter_.begin_window(); }
  ~EnergyWindow() {
    if (!open_) return;
    try {
      (void)meter_.end_window();
    } catch (...) {  // already unwinding with the runner's error
    }
  }
  EnergyWindow(const EnergyWindow&) = delete;
  EnergyWindow& operator=(const EnergyWindow&) = delete;
  [[nodiscard]] EnergyReading close() {
    open_ = false;
    return meter_.end_window();
  }

 private:
  PowerMeter& meter_;
  bool open_ = true;
};

// Prepares the first choice that works; the others are the heuristic's next-ranked ones,
// tried when an earlier one is refused. Not ok: the first choice's refusal.
Prepared prepare_first_working(ProfilerBackend& backend, const ProfileJob& job,
                               const std::vector<AlgoChoice>& choices) {
  Prepared first;
  first.status = {Outcome::kFailed, "no algorithm to prepare"};
  for (std::size_t i = 0; i < choices.size(); ++i) {
    Prepared prepared = backend.prepare(job.layer, job.layer.layout, choices[i]);
    if (prepared.status.ok() && !prepared.runner) prepared.status = {Outcome::kFailed, "no runner"};
    if (prepared.status.ok()) {
      if (i > 0) {
        spdlog::info("{}: heuristic choice {} refused ({}); measuring its choice {}, {}",
                     job.source, to_string(first.algo), first.status.reason, i + 1,
                     to_string(prepared.algo));
      }
      return prepared;
    }
    if (i == 0) first = std::move(prepared);
  }
  return first;
}

ProfileRow measure_algo(ProfilerBackend& backend, const ProfileJob& job,
                        const std::vector<AlgoChoice>& choices, const MeasurePolicy& policy) {
  ProfileRow row;
  row.job = job;
  row.algo_known = true;
  Prepared prepared = prepare_first_working(backend, job, choices);
  row.algo = prepared.algo;
  if (!prepared.status.ok()) {
    row.status = prepared.status;
    return row;
  }
  ConvRunner& runner = *prepared.runner;
  row.workspace_bytes = runner.workspace_bytes();

  (void)backend.collect_kernels();  // drop records of the set-up launch
  (void)backend.dropped_records();
  if (policy.warmup > 0) runner.run(policy.warmup, false, job.id, 0);

  SampleSeries series(policy);
  std::map<std::uint32_t, std::vector<KernelRecord>> by_sample;
  std::vector<std::pair<std::uint32_t, double>> totals;
  std::uint32_t next_sample = 0;
  std::size_t missing = 0;  // launches without records, or with a kernel CUPTI could not time
  while (series.stop_reason().empty()) {
    const int n = next_batch_size(series, policy, series.mean_ms());
    if (n <= 0) break;
    if (policy.flush_l2) {
      for (int i = 0; i < n; ++i) {
        runner.flush_l2();
        runner.run(1, true, job.id, next_sample + static_cast<std::uint32_t>(i));
      }
    } else {
      runner.run(n, true, job.id, next_sample);
    }
    auto groups = group_by_sample(backend.collect_kernels(), job.id);
    row.dropped_records += backend.dropped_records();
    std::size_t found = 0;
    for (int i = 0; i < n; ++i) {
      const std::uint32_t s = next_sample + static_cast<std::uint32_t>(i);
      auto it = groups.find(s);
      if (it == groups.end() || it->second.empty() ||
          !std::all_of(it->second.begin(), it->second.end(),
                       [](const KernelRecord& k) { return k.timed(); })) {
        ++missing;
        continue;
      }
      ++found;
      const double ms = kernel_busy_ms(it->second);
      series.add(ms);
      totals.emplace_back(s, ms);
      by_sample[s] = std::move(it->second);
    }
    next_sample += static_cast<std::uint32_t>(n);
    if (found == 0) {
      row.status = {
          Outcome::kFailed,
          "CUPTI delivered no timed kernel record for " + std::to_string(n) +
              " traced launches (dropped records: " + std::to_string(row.dropped_records) + ")"};
      return row;
    }
  }
  if (series.count() == 0) {
    row.status = {Outcome::kFailed, "no sample taken"};
    return row;
  }
  row.latency_ms = series.mean_ms();
  row.latency_median_ms = series.median_ms();
  row.latency_min_ms = series.min_ms();
  row.noise_pct = series.noise_pct();
  row.samples = series.count();
  row.stop_reason = series.stop_reason();
  row.missing_launches = missing;
  if (missing > 0) {
    row.stop_reason += ";" + std::to_string(missing) + " launches without timed kernel records";
  }
  // Representative launch: the sample closest to the median.
  const double median = row.latency_median_ms;
  const auto best = std::min_element(totals.begin(), totals.end(), [median](auto a, auto b) {
    return std::abs(a.second - median) < std::abs(b.second - median);
  });
  row.kernels = by_sample[best->first];

  PowerMeter& meter = backend.power_meter();
  const Status available = meter.available();
  if (!available.ok() || policy.energy_window_ms <= 0) {
    row.energy.status = available.ok() ? Status{Outcome::kNotRun, "energy_window_ms 0"} : available;
    return row;
  }
  row.energy_launches = energy_window_launches(policy.energy_window_ms, row.latency_ms);
  EnergyWindow window(meter);
  runner.run(row.energy_launches, false, job.id, 0);
  row.energy = window.close();
  row.energy_launch_mode = runner.untraced_launch_mode();
  return row;
}

}  // namespace

std::vector<ProfileRow> measure_job(ProfilerBackend& backend, const ProfileJob& job,
                                    const MeasurePolicy& policy) {
  const auto t0 = std::chrono::steady_clock::now();
  ProfileRow row;
  row.job = job;
  if (!job.precheck.ok()) {
    row.status = job.precheck;
    return {row};
  }
  try {
    std::vector<AlgoChoice> choices;
    if (job.algo_request == "heuristic") {
      Status status;
      choices = backend.heuristic_algos(job.layer, job.layer.layout, status);
      if (choices.empty()) {
        row.status = status.ok() ? Status{Outcome::kNotSupported, "heuristic returned no algorithm"}
                                 : status;
        return {row};
      }
    } else {
      choices = {AlgoChoice{conv_algo_from_string(job.algo_request), std::nullopt}};
    }
    row = measure_algo(backend, job, choices, policy);
  } catch (const InputError&) {
    throw;
  } catch (const DeviceLost&) {
    throw;
  } catch (const Error& e) {
    // A vendor call failed mid-measurement: this row failed, the sweep goes on.
    row.status = {Outcome::kFailed, e.what()};
  }
  row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {row};
}

}  // namespace cnnperf
