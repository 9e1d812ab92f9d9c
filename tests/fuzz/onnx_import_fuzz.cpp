// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: ONNX import (`--net FILE.onnx`), strict and with --skip-unsupported.
#include "cnnperf/model/network_io.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = cnnperf::fuzz::as_text(data, size);
  for (const bool skip : {false, true}) {
    cnnperf::ImportOptions options;
    options.skip_unsupported = skip;
    cnnperf::fuzz::expect_parse_or_input_error(
        [&] { (void)cnnperf::import_onnx_bytes(bytes, "fuzz.onnx", options); });
  }
  return 0;
}
