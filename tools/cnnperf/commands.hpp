// SPDX-License-Identifier: Apache-2.0
// Subcommand registration. Each <name>/<name>_cli.cpp declares its options into a plain
// struct and, when its subcommand is chosen, stores in `run` one call into the library.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"

namespace cnnperf::cli {

/// Exit codes (DESIGN §3): a runtime failure (cnnperf::Error, e.g. no usable GPU) is 1.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeFailure = 1;
inline constexpr int kExitBadInput = 2;    ///< bad usage or input (cnnperf::InputError)
inline constexpr int kExitOverBudget = 3;  ///< cnnperf::BudgetExceeded

/// For an option whose 0 means "not given" in its options struct: a value typed on the
/// command line must be a positive integer (else exit 2 naming the option).
inline CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          (void)parse_positive_int(value, "value");
          return {};
        } catch (const InputError&) {
          return "expected a positive integer, got " + value;
        }
      },
      "POSITIVE");
}

/// For an option whose 0 means "not given": a value typed on the command line must be a
/// positive finite number (an explicit 0 silently meant "no cap" or "no budget").
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          if (parse_number(value, "value") > 0) return {};
        } catch (const InputError&) {
        }
        return "expected a positive number, got " + value;
      },
      "POSITIVE");
}

/// --input-size: "HxW" or "N" (square, either case of x) as (height, width); "" gives (0, 0),
/// the network's own. Throws InputError naming the option.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> parse_input_size(const std::string& text);

/// Splits a comma list, each entry trimmed of blanks; an empty entry is an InputError naming
/// `flag`.
[[nodiscard]] std::vector<std::string> split_list(const std::string& text, const std::string& flag);

/// The option that sets a library parameter: "--" + the parameter with '_' as '-'
/// ("host_ms_per_op" -> "--host-ms-per-op"), unless `kOptionOverrides` names another.
[[nodiscard]] std::string option_for_parameter(const std::string& parameter);

/// What main() runs after parsing; returns the exit code.
using Runner = std::function<int()>;

void add_predict_command(CLI::App& app, Runner& run);
void add_profile_command(CLI::App& app, Runner& run);
void add_ptx_command(CLI::App& app, Runner& run);
void add_train_command(CLI::App& app, Runner& run);
void add_validate_command(CLI::App& app, Runner& run);
void add_gpus_command(CLI::App& app, Runner& run);
void add_nets_command(CLI::App& app, Runner& run);
void add_plan_command(CLI::App& app, Runner& run);
void add_report_command(CLI::App& app, Runner& run);

}  // namespace cnnperf::cli
