// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the JSON layer list (`--net FILE.json`, `nets show --format json`'s output),
// parsed and written back.
#include "cnnperf/model/network_io.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cnnperf::fuzz::expect_parse_or_input_error([&] {
    const auto net = cnnperf::parse_network_json(cnnperf::fuzz::as_text(data, size), "fuzz.json");
    (void)cnnperf::network_to_json(net);
  });
  return 0;
}
