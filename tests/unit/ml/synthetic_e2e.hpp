// SPDX-License-Identifier: Apache-2.0
// SYNTHETIC end-to-end rows for the eager-overhead calibration tests. Nothing here is a
// measurement: each latency is the end-to-end formula evaluated with known terms, so the
// tests can check that the calibration recovers them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"

namespace cnnperf::testing {

inline GpuSpec named_gpu(const std::string& name) {
  GpuSpec g;
  g.name = name;
  g.display_name = name;
  return g;
}

/// Shared terms and two machines, "gpu-a" and "gpu-b", with terms of their own.
inline EagerOverhead two_machine_truth() {
  EagerOverhead truth;
  truth.host_ms_per_op = 0.04;
  truth.gpu_gap_ms_per_kernel = 0.0;
  truth.fixed_ms = 1.0;
  truth.training_host_factor = 4;
  truth.per_gpu["gpu-a"] = {0.03, 0.5, 3.0, 0.8, 120, {}};
  truth.per_gpu["gpu-b"] = {0.07, 2.0, 6.0, 1.3, 120, {}};
  return truth;
}

struct SyntheticE2e {
  std::vector<E2eRow> rows;
  std::vector<E2eTerms> terms;
};

/// `count` rows per GPU with random kernel time (0.5-40 ms) and ops (40-400); `layout` sets
/// row i's network, mode and batch; latency_ms = eager_latency_ms under `truth` (its per-GPU
/// terms and per-network step scales applied).
inline SyntheticE2e synthetic_e2e_rows(const EagerOverhead& truth,
                                       const std::vector<std::pair<std::string, int>>& gpu_counts,
                                       std::uint64_t seed,
                                       const std::function<void(int, E2eRow&)>& layout,
                                       double input_bytes = 0) {
  SyntheticE2e d;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> kernel(0.5, 40.0);
  std::uniform_int_distribution<int> ops(40, 400);
  for (const auto& [name, count] : gpu_counts) {
    for (int i = 0; i < count; ++i) {
      E2eRow row;
      row.gpu_name = name;
      row.gpu = named_gpu(name);
      layout(i, row);
      E2eTerms t;
      t.kernel_ms = kernel(rng);
      t.ops = ops(rng);
      t.kernels = t.ops;
      t.input_bytes = input_bytes;
      t.training = row.mode == Mode::kTraining;
      row.latency_ms = eager_latency_ms(
          t, overhead_for(truth, row.gpu, network_step_key(row.network, row.dtype, row.mode)));
      d.rows.push_back(row);
      d.terms.push_back(t);
    }
  }
  return d;
}

/// `count` inference rows of networks "net0", "net1", ... on "gpu-x", a GPU without terms of
/// its own, with make_terms(i) as row i's terms; latency_ms = eager_latency_ms under `truth`.
inline SyntheticE2e one_gpu_rows(const EagerOverhead& truth, int count,
                                 const std::function<E2eTerms(int)>& make_terms) {
  SyntheticE2e d;
  for (int i = 0; i < count; ++i) {
    E2eRow row;
    row.network = "net" + std::to_string(i);
    row.gpu = named_gpu("gpu-x");
    d.terms.push_back(make_terms(i));
    row.latency_ms = eager_latency_ms(d.terms.back(), truth);
    d.rows.push_back(row);
  }
  return d;
}

inline std::vector<std::size_t> every_row(const SyntheticE2e& d) {
  std::vector<std::size_t> all(d.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

/// Expects an overhead's `field` set to `value` to come back from its JSON, and JSON without
/// `key` (a file without the field) to read as `absent`.
inline void expect_optional_field(double EagerOverhead::*field, const char* key, double value,
                                  double absent) {
  EagerOverhead o;
  o.*field = value;
  EXPECT_DOUBLE_EQ(eager_overhead_from_json(to_json(o), "x").*field, value) << key;
  nlohmann::json old = to_json(o);
  old.erase(key);
  EXPECT_DOUBLE_EQ(eager_overhead_from_json(old, "x").*field, absent) << key;
}

/// Expects reading `bad` as the eager_overhead object of "f.json" to be an InputError whose
/// message names `field`, a path below it (e.g. "per_gpu.gpu-a").
inline void expect_overhead_error_naming(const nlohmann::json& bad, const std::string& field) {
  try {
    (void)eager_overhead_from_json(bad, "f.json: eager_overhead");
    ADD_FAILURE() << "expected InputError naming " << field;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: eager_overhead." + field), std::string::npos)
        << e.what();
  }
}

}  // namespace cnnperf::testing
