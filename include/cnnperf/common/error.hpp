// SPDX-License-Identifier: Apache-2.0
// Error types of the library. The CLI maps each to its exit code (tools/cnnperf/main.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace cnnperf {

/// A runtime failure, e.g. no usable GPU or an I/O error while writing.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input. The message names the file, line/field and what was expected, in one line.
class InputError : public Error {
 public:
  using Error::Error;
};

/// Bad value of one named parameter of a library call (an options struct's member, e.g.
/// "batch", "host_ms_per_op"). what() is "<parameter>: <detail>"; the CLI prints the option
/// that set the parameter instead (tools/cnnperf/main.cpp), so the library names no flag.
class ParameterError : public InputError {
 public:
  ParameterError(std::string parameter, std::string detail)
      : InputError(parameter + ": " + detail),
        parameter_(std::move(parameter)),
        detail_(std::move(detail)) {}
  [[nodiscard]] const std::string& parameter() const noexcept { return parameter_; }
  [[nodiscard]] const std::string& detail() const noexcept { return detail_; }

 private:
  std::string parameter_;
  std::string detail_;
};

/// A prediction exceeded a budget the user set.
class BudgetExceeded : public Error {
 public:
  using Error::Error;
};

/// Builds "where: what (expected: expectation)" for InputError messages.
[[nodiscard]] std::string input_message(const std::string& where, const std::string& what,
                                        const std::string& expected = {});

}  // namespace cnnperf
