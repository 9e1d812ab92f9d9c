// SPDX-License-Identifier: Apache-2.0
// A test input written to the system temp directory (the ml tests' CSV fixtures).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace cnnperf::testing {

/// Writes `text` to <temp dir>/<name>, replacing it, and returns the path.
inline std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

/// A CSV file split in two temp files, each with its header: its first `first_rows` rows in
/// <temp dir>/<prefix>_a.csv, the rest in <prefix>_b.csv (reading several files as one).
inline std::pair<std::filesystem::path, std::filesystem::path> split_csv(
    const std::string& path, int first_rows, const std::string& prefix) {
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  std::string first = header + "\n";
  std::string second = header + "\n";
  std::string line;
  for (int n = 0; std::getline(in, line); ++n) (n < first_rows ? first : second) += line + "\n";
  return {write_temp(prefix + "_a.csv", first), write_temp(prefix + "_b.csv", second)};
}

}  // namespace cnnperf::testing
