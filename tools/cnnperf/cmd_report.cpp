// SPDX-License-Identifier: Apache-2.0
// `cnnperf report`: placeholder until its issue lands; says so and exits 1.
#include <cstdio>

#include "commands.hpp"

namespace cnnperf::cli {

void add_report_command(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("report", "(not yet available)");
  sub->callback([&run] {
    run = [] {
      std::fprintf(stderr, "cnnperf: report is not available in this build yet\n");
      return 1;
    };
  });
}

}  // namespace cnnperf::cli
