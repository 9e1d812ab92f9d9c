// SPDX-License-Identifier: Apache-2.0
// Shared by the libFuzzer targets: bad input may end in cnnperf::InputError (ParameterError is
// one), the clean refusal a command turns into exit 2; anything else escaping is a finding, so
// it is left to reach libFuzzer (which reports an uncaught exception as a crash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "cnnperf/common/error.hpp"

namespace cnnperf::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `parse`, accepting an InputError as the expected answer to bad bytes.
template <class F>
void expect_parse_or_input_error(F&& parse) {
  try {
    parse();
  } catch (const cnnperf::InputError&) {
  }
}

/// A per-process file holding the input, for entry points that read a path only (the model
/// loader maps its file). Under $TMPDIR (else /tmp); rewritten on every input.
inline const std::string& input_file(std::string_view bytes, const char* suffix) {
  static const std::string path = [suffix] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/cnnperf_fuzz_" +
           std::to_string(::getpid()) + suffix;
  }();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) std::abort();  // the fuzzer's own environment failed, not the parser
  return path;
}

}  // namespace cnnperf::fuzz
