// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: `report`'s input parser and renderer, on the bytes as one JSON input (any
// kind it recognises: predictions, plan, train/validate metrics, PTX analysis, GPU, layers).
#include "cnnperf/report/report.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<cnnperf::ReportInput> inputs{
      {"fuzz.json", std::string(cnnperf::fuzz::as_text(data, size))}};
  cnnperf::fuzz::expect_parse_or_input_error([&] { (void)cnnperf::render_report(inputs); });
  return 0;
}
