// SPDX-License-Identifier: Apache-2.0
// `cnnperf gpus [show NAME]`: options -> one call to cnnperf::run_gpus.
#include <memory>

#include "commands.hpp"
#include "gpus/gpus_command.hpp"

namespace cnnperf::cli {

void add_gpus_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<GpusOptions>();
  auto* sub = app.add_subcommand("gpus", "List the GPU specification database, or show one entry");
  sub->add_option("--format", opts->format, "Output format: table|json|csv")->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  sub->add_option("--segment", opts->segment,
                  "Only GPUs of this segment: datacenter|desktop|workstation|jetson");
  sub->add_option("--arch", opts->arch,
                  "Only GPUs of this architecture: kepler|maxwell|pascal|volta|turing|ampere|"
                  "ada|hopper|blackwell");
  sub->add_option("--database", opts->database,
                  "GPU database file (default: the bundled models/gpus.json)");
  sub->footer(
      "Examples:\n"
      "  cnnperf gpus --segment datacenter\n"
      "  cnnperf gpus show \"Tesla V100-PCIE-32GB\" --format json\n"
      "  cnnperf gpus show my_gpu.json   (a custom spec file, see docs/gpus.md)");

  auto* show = sub->add_subcommand(
      "show", "Show every field of one GPU with its source (name, alias, family or spec file)");
  show->add_option("NAME", opts->show, "GPU name, alias (e.g. \"Tesla T4\"), family or JSON file")
      ->required();
  show->fallthrough();  // --format/--output given after NAME belong to `gpus`
  show->footer(
      "--format and -o/--output (options of `gpus`) apply here too.\n"
      "Example: cnnperf gpus show a100 --format json");

  sub->callback([opts, &run] { run = [opts] { return cnnperf::run_gpus(*opts); }; });
}

}  // namespace cnnperf::cli
