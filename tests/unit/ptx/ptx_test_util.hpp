// SPDX-License-Identifier: Apache-2.0
// Helpers for the PTX tests: paths of the committed reference PTX and launch builders.
#pragma once

#include <string>
#include <vector>

#include "cnnperf/ptx/ptx.hpp"

namespace cnnperf::test {

inline std::string ref_ptx(const std::string& stem, const std::string& arch = "sm_80") {
  return std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/ptx/" + stem + "." + arch + ".ptx";
}
inline std::string data_ptx(const std::string& name) {
  return std::string(CNNPERF_TEST_DATA_DIR) + "/ptx/" + name;
}

struct ConvShape {
  std::int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1, stride = 1, pad = 0;
  [[nodiscard]] std::int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  [[nodiscard]] std::int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
  /// Sum over outputs (one channel pair) of the taps that fall inside the input.
  [[nodiscard]] std::int64_t valid_taps() const {
    std::int64_t total = 0;
    for (std::int64_t pp = 0; pp < p(); ++pp)
      for (std::int64_t qq = 0; qq < q(); ++qq)
        for (std::int64_t rr = 0; rr < r; ++rr)
          for (std::int64_t ss = 0; ss < s; ++ss) {
            const std::int64_t hh = pp * stride - pad + rr, ww = qq * stride - pad + ss;
            if (hh >= 0 && hh < h && ww >= 0 && ww < w) ++total;
          }
    return total * n;
  }
  [[nodiscard]] std::vector<std::int64_t> params() const {
    return {n, c, h, w, k, r, s, p(), q(), stride, stride, pad, pad, 1, 1, 0};
  }
};

inline void set_params(ptx::LaunchSpec& s, int first, const std::vector<std::int64_t>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    s.params[first + static_cast<int>(i)] = static_cast<std::uint64_t>(v[i]);
}

inline double op(const std::map<std::string, double>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? 0.0 : it->second;
}

}  // namespace cnnperf::test
