// SPDX-License-Identifier: Apache-2.0
// Error types shared by the library and the CLI; each maps to one exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace cnnperf {

/// A runtime failure (exit code 1), e.g. no usable GPU or an I/O error while writing.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  [[nodiscard]] virtual int exit_code() const noexcept { return 1; }
};

/// Bad usage or bad input (exit code 2). The message names the file, line/field and what
/// was expected, in one line.
class InputError : public Error {
 public:
  using Error::Error;
  [[nodiscard]] int exit_code() const noexcept override { return 2; }
};

/// A prediction exceeded a budget the user set (exit code 3).
class BudgetExceeded : public Error {
 public:
  using Error::Error;
  [[nodiscard]] int exit_code() const noexcept override { return 3; }
};

/// Builds "where: what (expected: expectation)" for InputError messages.
[[nodiscard]] std::string input_message(const std::string& where, const std::string& what,
                                        const std::string& expected = {});

}  // namespace cnnperf
