// SPDX-License-Identifier: Apache-2.0
// Measurement policy: sample statistics, the stopping rule (nvbench's stdrel criterion:
// relative stdev below a bound after a minimum of samples and time), batch sizing, the NVML
// window length, and the dry-run time estimate.
#include <algorithm>
#include <cmath>
#include <limits>

#include "cnnperf/profile/profile.hpp"

namespace cnnperf {

void SampleSeries::add(double latency_ms) {
  samples_ms_.push_back(latency_ms);
  total_ms_ += latency_ms;
}

double SampleSeries::mean_ms() const {
  return samples_ms_.empty() ? 0.0 : total_ms_ / static_cast<double>(samples_ms_.size());
}

double SampleSeries::median_ms() const {
  if (samples_ms_.empty()) return 0.0;
  std::vector<double> sorted = samples_ms_;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double SampleSeries::min_ms() const {
  return samples_ms_.empty() ? 0.0 : *std::min_element(samples_ms_.begin(), samples_ms_.end());
}

double SampleSeries::stdev_ms() const {
  const std::size_t n = samples_ms_.size();
  if (n < 2) return 0.0;
  const double mean = mean_ms();
  double sum_sq = 0;
  for (double v : samples_ms_) sum_sq += (v - mean) * (v - mean);
  return std::sqrt(sum_sq / static_cast<double>(n - 1));
}

double SampleSeries::noise_pct() const {
  if (samples_ms_.size() < 2) return std::numeric_limits<double>::infinity();
  const double mean = mean_ms();
  if (mean <= 0) return std::numeric_limits<double>::infinity();
  return 100.0 * stdev_ms() / mean;
}

std::string SampleSeries::stop_reason() const {
  const auto n = static_cast<long long>(samples_ms_.size());
  if (n >= policy_.max_samples) return "max-samples";
  if (total_ms_ >= policy_.max_time_s * 1000.0) return "max-time";
  if (n >= policy_.min_samples && total_ms_ >= policy_.min_time_s * 1000.0 &&
      noise_pct() <= policy_.max_noise_pct) {
    return "converged";
  }
  return {};
}

int energy_window_launches(double window_ms, double mean_latency_ms) {
  if (window_ms <= 0) return 0;
  if (!(mean_latency_ms > 0)) return 1;
  // The small slack keeps a mean of 0.09999999 ms from asking for one extra launch.
  const double launches = std::ceil(window_ms / mean_latency_ms - 1e-6);
  // A 1 us kernel over 1 s is 1M launches; cap to keep the launch queue sane.
  return static_cast<int>(std::clamp(launches, 1.0, 1.0e7));
}

int next_batch_size(const SampleSeries& series, const MeasurePolicy& policy,
                    double mean_latency_ms) {
  const auto have = static_cast<long long>(series.count());
  const long long room = std::max<long long>(0, policy.max_samples - have);
  if (room == 0) return 0;
  long long batch = have < policy.min_samples ? policy.min_samples - have : std::max(have, 1LL);
  if (mean_latency_ms > 0) {
    // Do not overshoot max_time by more than one batch's worth of launches.
    const double left_ms = policy.max_time_s * 1000.0 - series.total_ms();
    const auto by_time =
        static_cast<long long>(std::ceil(std::max(left_ms, 0.0) / mean_latency_ms));
    batch = std::min(batch, std::max(by_time, 1LL));
  }
  return static_cast<int>(std::clamp(batch, 1LL, std::min(room, 100000LL)));
}

TimeEstimate estimate_job_time(const ProfileJob& job, const MeasurePolicy& policy) {
  if (!job.precheck.ok()) return {};  // becomes a row with its reason, nothing runs
  // Per algorithm: set-up (descriptors, workspace, a checking launch) ~0.05 s; warm-up is a
  // few launches (bounded by sampling time); sampling lasts between min_time and max_time of
  // GPU time; the CUPTI flush per batch ~0.01 s; then the NVML window.
  constexpr double kSetupS = 0.05;
  constexpr double kFlushS = 0.01;
  const double window_s = policy.energy_window_ms / 1000.0;
  // Each batch doubles, so the number of flushes grows like log2 of the sample count.
  const double batches_low = 1;
  const double batches_high = std::max(1.0, std::log2(std::max(1, policy.max_samples)));
  const double warm_low = 0;
  const double warm_high = policy.min_time_s;  // warm-up longer than that would be unusual
  TimeEstimate t;
  t.low_s = (kSetupS + warm_low + policy.min_time_s + batches_low * kFlushS + window_s);
  t.high_s = (kSetupS + warm_high + policy.max_time_s + batches_high * kFlushS + window_s);
  return t;
}

}  // namespace cnnperf
