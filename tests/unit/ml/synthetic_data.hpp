// SPDX-License-Identifier: Apache-2.0
// SYNTHETIC test data generators for the regressor tests. Nothing here is a measurement:
// every target is a known closed-form function of random features, so the tests can check
// that a regressor recovers it.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "cnnperf/ml/regressor.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf::testing {

/// Synthetic rows: features uniform in [lo, hi), target = f(row).
struct SyntheticData {
  FeatureMatrix x;
  std::vector<double> y;
};

inline SyntheticData make_synthetic(std::size_t rows, std::size_t cols, std::uint64_t seed,
                                    const std::function<double(const double*)>& f, double lo = 0.0,
                                    double hi = 1.0) {
  std::mt19937_64 rng(seed);
  SyntheticData d;
  d.x = FeatureMatrix(rows, cols);
  d.y.resize(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      // Top 53 bits -> [0,1): identical on every platform, unlike std distributions.
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      d.x(r, c) = lo + (hi - lo) * u;
    }
    d.y[r] = f(d.x.row(r));
  }
  return d;
}

/// A smooth synthetic function of the first three features (for forest/boosting tests).
inline double smooth_function(const double* v) {
  return 2.0 + std::sin(3.0 * v[0]) + v[1] * v[1] + 0.5 * v[0] * v[2];
}

/// A square 3x3, stride-1, padded conv2d of `channels` in and out on a `side` x `side` input.
inline Layer conv3x3(std::int64_t batch, std::int64_t channels, std::int64_t side) {
  Layer l;
  l.op = Op::kConv2d;
  l.batch = batch;
  l.c_in = l.c_out = channels;
  l.h_in = l.w_in = side;
  l.kernel_h = l.kernel_w = 3;
  l.pad_h = l.pad_w = 1;
  return l;
}

/// A random 3x3, stride-1, padded conv2d shape (batch 1-32, 16-215 channels, 7-56 pixels).
inline Layer random_conv3x3(std::mt19937_64& rng) {
  Layer l;
  l.batch = 1 + static_cast<std::int64_t>(rng() % 32);
  l.c_in = 16 + static_cast<std::int64_t>(rng() % 200);
  l.c_out = 16 + static_cast<std::int64_t>(rng() % 200);
  l.h_in = l.w_in = 7 + static_cast<std::int64_t>(rng() % 50);
  l.kernel_h = l.kernel_w = 3;
  l.pad_h = l.pad_w = 1;
  return l;
}

}  // namespace cnnperf::testing
