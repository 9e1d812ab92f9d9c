// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: GPU spec JSON, as one custom spec (`--gpu FILE`) and as a database
// (models/gpus.json's schema); both readers take a path.
#include "cnnperf/model/gpu_spec.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& path = cnnperf::fuzz::input_file(cnnperf::fuzz::as_text(data, size), ".json");
  cnnperf::fuzz::expect_parse_or_input_error([&] { (void)cnnperf::load_gpu_spec_file(path); });
  cnnperf::fuzz::expect_parse_or_input_error([&] {
    const auto db = cnnperf::GpuDatabase::load(path);
    for (const auto& gpu : db.all()) (void)db.find(gpu.name);
  });
  return 0;
}
