// SPDX-License-Identifier: Apache-2.0
// `cnnperf report`: reads the JSON results, has the library render them, writes the page.
#include "report/report_command.hpp"

#include <iostream>
#include <sstream>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/report/report.hpp"
#include "commands.hpp"

namespace cnnperf {

namespace {

constexpr const char* kUsage =
    "usage: cnnperf report INPUT.json [MORE.json ...] [--output report.html] [--title TEXT]";

}  // namespace

std::string render_report_files(const ReportOptions& options) {
  if (options.inputs.empty()) {
    throw InputError(std::string("report: expected at least one JSON result file; ") + kUsage);
  }
  std::vector<ReportInput> inputs;
  for (const auto& path : options.inputs) {
    if (path == "-") {
      std::ostringstream text;
      text << std::cin.rdbuf();
      inputs.push_back({"(stdin)", text.str()});
    } else {
      inputs.push_back({path, read_text_file(path)});
    }
  }
  return render_report(inputs, options.title);
}

int run_report(const ReportOptions& options) {
  check_output_not_input(options.output, options.inputs);
  write_output(options.output, render_report_files(options));
  return cli::kExitOk;
}

}  // namespace cnnperf
