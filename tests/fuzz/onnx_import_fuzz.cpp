// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: ONNX import (`--net FILE.onnx`), strict and with --skip-unsupported.
#include "cnnperf/model/network_io.hpp"
#include "fuzz_input.hpp"
#include "onnx/onnx_module.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The importer linked in, not loaded as a module, so its code is instrumented and covered.
  static const cnnperf::onnx_module::Api* const importer =
      cnnperf_onnx_importer(cnnperf::onnx_module::kAbi);
  const auto bytes = cnnperf::fuzz::as_text(data, size);
  for (const bool skip : {false, true}) {
    cnnperf::ImportOptions options;
    options.skip_unsupported = skip;
    cnnperf::fuzz::expect_parse_or_input_error(
        [&] { (void)importer->import_bytes(bytes, "fuzz.onnx", options); });
  }
  return 0;
}
