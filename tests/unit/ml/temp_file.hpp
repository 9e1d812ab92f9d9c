// SPDX-License-Identifier: Apache-2.0
// A test input written to the system temp directory (the ml tests' CSV fixtures).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace cnnperf::testing {

/// Writes `text` to <temp dir>/<name>, replacing it, and returns the path.
inline std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace cnnperf::testing
