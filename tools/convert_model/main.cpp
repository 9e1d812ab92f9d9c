// SPDX-License-Identifier: Apache-2.0
// cnnperf_convert_model IN OUT: reads a learned model file (kind cnnperf_latency_model) of any
// schema_version cnnperf reads and writes it as `cnnperf train --out` would now, e.g. a file
// whose XGBoost boosters are XGBoost's JSON (schema_version 1) as tree arrays. Only the
// storage changes: the trees, and so every prediction, stay bit for bit the same
// (tests/unit/ml/test_xgboost_fast_load.cpp). `cnnperf train` cannot do this: it refits.
#include <exception>
#include <iostream>
#include <string>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/learned_model.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: cnnperf_convert_model IN.json OUT.json\n";
    return 2;
  }
  try {
    const auto model = cnnperf::LearnedModel::load(argv[1]);
    cnnperf::write_output(argv[2], model->to_json().dump() + "\n");
  } catch (const cnnperf::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
