// SPDX-License-Identifier: Apache-2.0
// libFuzzer target over the PTX front end: parse_module, then decode every entry (CFG and
// post-dominators included). Bad input must end in cnnperf::InputError, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ptx/ptx_emu.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto module = cnnperf::ptx::parse_module(text, "fuzz.ptx");
    for (const auto& entry : module.entries()) {
      try {
        (void)cnnperf::ptx::Program::build(module, entry);
      } catch (const cnnperf::InputError&) {
      }
    }
  } catch (const cnnperf::InputError&) {
  }
  return 0;
}
