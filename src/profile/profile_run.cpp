// SPDX-License-Identifier: Apache-2.0
// The measurement loop: warm-up, traced sample batches until the policy stops, NVML window.
// Vendor work happens behind ProfilerBackend.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

double kernel_sum_ms(const std::vector<KernelRecord>& kernels) {
  std::uint64_t ns = 0;
  for (const auto& k : kernels) ns += k.duration_ns();
  return static_cast<double>(ns) / 1.0e6;
}

ProfileRow measure_algo(ProfilerBackend& backend, const ProfileJob& job, ConvAlgo algo,
                        const MeasurePolicy& policy) {
  ProfileRow row;
  row.job = job;
  row.algo = algo;
  row.algo_known = true;
  Prepared prepared = backend.prepare(job.layer, job.layout, algo);
  row.algo = prepared.algo;
  if (!prepared.status.ok() || !prepared.runner) {
    row.status = prepared.status.ok() ? Status{Outcome::kFailed, "no runner"} : prepared.status;
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
  std::size_t missing = 0;
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
      if (it == groups.end() || it->second.empty()) {
        ++missing;
        continue;
      }
      ++found;
      const double ms = kernel_sum_ms(it->second);
      series.add(ms);
      totals.emplace_back(s, ms);
      by_sample[s] = std::move(it->second);
    }
    next_sample += static_cast<std::uint32_t>(n);
    if (found == 0) {
      row.status = {Outcome::kFailed, "CUPTI delivered no kernel record for " + std::to_string(n) +
                                          " traced launches (dropped records: " +
                                          std::to_string(row.dropped_records) + ")"};
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
  if (missing > 0) {
    row.stop_reason += ";" + std::to_string(missing) + " launches without kernel records";
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
  meter.begin_window();
  runner.run(row.energy_launches, false, job.id, 0);
  row.energy = meter.end_window();
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
    ConvAlgo algo = ConvAlgo::kImplicitGemm;
    if (job.algo_request == "heuristic") {
      Status status;
      const auto chosen = backend.heuristic_algo(job.layer, job.layout, status);
      if (!chosen) {
        row.status = status.ok() ? Status{Outcome::kNotSupported, "heuristic returned no algorithm"}
                                 : status;
        return {row};
      }
      algo = *chosen;
    } else {
      algo = conv_algo_from_string(job.algo_request);
    }
    row = measure_algo(backend, job, algo, policy);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    // A vendor call failed mid-measurement: this row failed, the sweep goes on.
    row.status = {Outcome::kFailed, e.what()};
  }
  row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {row};
}

}  // namespace cnnperf
