// SPDX-License-Identifier: Apache-2.0
// The message of the InputError a call throws, so a test can compare whole messages.
#pragma once

#include <string>
#include <utility>

#include "cnnperf/common/error.hpp"

namespace cnnperf::test {

/// What `call()` throws as InputError, or "no error" when it returns.
template <class Call>
std::string input_error_of(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace cnnperf::test
