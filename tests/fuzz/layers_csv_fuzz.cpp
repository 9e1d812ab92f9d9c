// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the layer CSV reader (`predict --layers`), on the bytes as one file.
#include "cnnperf/model/layer_io.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cnnperf::fuzz::expect_parse_or_input_error([&] {
    const auto table = cnnperf::parse_layers_csv(cnnperf::fuzz::as_text(data, size), "fuzz.csv");
    for (const auto& layer : table.layers) (void)cnnperf::layer_csv_fields(layer);
  });
  return 0;
}
