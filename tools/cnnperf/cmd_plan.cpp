// SPDX-License-Identifier: Apache-2.0
// `cnnperf plan`: placeholder until its issue lands; says so and exits 1.
#include <cstdio>

#include "commands.hpp"

namespace cnnperf::cli {

void add_plan_command(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("plan", "(not yet available)");
  sub->callback([&run] {
    run = [] {
      std::fprintf(stderr, "cnnperf: plan is not available in this build yet\n");
      return 1;
    };
  });
}

}  // namespace cnnperf::cli
