// SPDX-License-Identifier: Apache-2.0
// `cnnperf validate`: placeholder until its issue lands; says so and exits 1.
#include <cstdio>

#include "commands.hpp"

namespace cnnperf::cli {

void add_validate_command(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand("validate", "(not yet available)");
  sub->callback([&run] {
    run = [] {
      std::fprintf(stderr, "cnnperf: validate is not available in this build yet\n");
      return 1;
    };
  });
}

}  // namespace cnnperf::cli
