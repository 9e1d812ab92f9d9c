// SPDX-License-Identifier: Apache-2.0
// `cnnperf report`: options and the one library call behind the subcommand.
#pragma once

#include <string>
#include <vector>

namespace cnnperf {

/// Options of `cnnperf report` (strings as typed; validated by run_report).
struct ReportOptions {
  std::vector<std::string> inputs;  ///< JSON result files; "-" reads stdin
  std::string output;               ///< output file; "" or "-" = stdout
  std::string title;                ///< page title; "" = "cnnperf report"
};

/// Reads options.inputs (InputError naming an unreadable file) and renders them
/// (render_report); no input is an InputError with the usage line.
[[nodiscard]] std::string render_report_files(const ReportOptions& options);

/// Runs `cnnperf report`: render_report_files() written atomically to options.output.
/// Returns the exit code (0).
int run_report(const ReportOptions& options);

}  // namespace cnnperf
