// SPDX-License-Identifier: Apache-2.0
// Runs the built cnnperf binary (CNNPERF_BINARY) for end-to-end CLI tests: exit code, stdout,
// stderr, and a per-process scratch directory removed after the last test.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cnnperf::cli_test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// A scratch directory of this test process, removed when the tests end.
inline std::filesystem::path temp_dir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path d =
        std::filesystem::temp_directory_path() / ("cnnperf_cli_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

class TempDirCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir(), ignored);
  }
};
inline const auto* const kTempDirCleanup = ::testing::AddGlobalTestEnvironment(new TempDirCleanup);

/// Runs `cnnperf ARGS` through the shell (ARGS may redirect stdin); stdout and stderr apart.
/// `env` is put before the command, e.g. "NAME=value ".
inline RunResult run_cnnperf(const std::string& args, const std::string& env = "") {
  const std::filesystem::path err_file = temp_dir() / "stderr.txt";
  const std::string command =
      env + "\"" + CNNPERF_BINARY + "\" " + args + " 2>\"" + err_file.string() + "\"";
  RunResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 65536> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.out.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  return result;
}

/// The JSON a `cnnperf ARGS` that must succeed prints. When it fails, the test fails and this
/// throws: a caller indexing an empty document with const operator[] would read past it.
inline nlohmann::json json_of(const std::string& args) {
  const RunResult r = run_cnnperf(args);
  if (r.exit_code != 0) {
    ADD_FAILURE() << args << " exited " << r.exit_code << "\n" << r.err;
    throw std::runtime_error("cnnperf " + args + " failed");
  }
  return nlohmann::json::parse(r.out);
}

/// `relative` (a path in the source tree, e.g. "datasets/power_zeus.csv") as an absolute path,
/// quoted for the shell run_cnnperf goes through.
inline std::string source_file(const std::string& relative) {
  return std::string("\"") + CNNPERF_SOURCE_DIR_FOR_TESTS + "/" + relative + "\"";
}

/// Lines of `text` (its newlines): a failure must say what went wrong in one.
inline int count_lines(const std::string& text) {
  int lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

}  // namespace cnnperf::cli_test
