// SPDX-License-Identifier: Apache-2.0
// Error types of the library. The CLI maps each to its exit code (tools/cnnperf/main.cpp).
#pragma once

#include <stdexcept>
#include <string>

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

/// A prediction exceeded a budget the user set.
class BudgetExceeded : public Error {
 public:
  using Error::Error;
};

/// Builds "where: what (expected: expectation)" for InputError messages.
[[nodiscard]] std::string input_message(const std::string& where, const std::string& what,
                                        const std::string& expected = {});

}  // namespace cnnperf
