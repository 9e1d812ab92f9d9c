// SPDX-License-Identifier: Apache-2.0
// `cnnperf validate`: fills ValidateOptions, calls run_validate.
#include <memory>

#include "commands.hpp"
#include "validate/validate_command.hpp"

namespace cnnperf::cli {

void add_validate_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<ValidateOptions>();
  auto* sub = app.add_subcommand(
      "validate", "Accuracy of a model file on measured data (per GPU, per layer, end to end)");
  sub->add_option("--model", opts->model,
                  "Learned model file (written by `cnnperf train`); default: what predict "
                  "uses, the bundled learned model for --data, the analytical baseline for --e2e");
  sub->add_option("--data", opts->data, "Measured layer CSVs (plain or .gz), one or more")
      ->expected(1, -1);
  sub->add_option("--e2e", opts->e2e,
                  "Measured end-to-end CSVs, one or more of one kind (e2e_torchvision.csv or "
                  "e2e_help_nas.csv.gz schema)")
      ->expected(1, -1);
  sub->add_option("--power", opts->power,
                  "Measured power CSVs, one or more (power_zeus.csv schema): power, power-cap "
                  "slowdown and energy errors of the power model")
      ->expected(1, -1);
  sub->add_option("--power-model", opts->power_model,
                  "Power model file for --power (default: the bundled models/power_model.json)");
  sub->add_option("--fail-if-mape-above", opts->fail_if_mape_above,
                  "Exit 1 when an overall MAPE (%) the report prints (per layer, end to end on 1 "
                  "or 2+ GPUs, power-cap slowdown) exceeds X");
  sub->add_option("--format", opts->format, "table|json|csv")->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  sub->footer(
      "Per-layer rows are predicted with each row's own measurement source (the `source`\n"
      "column), end-to-end rows with the model's calibrated eager overhead. Per-layer rows\n"
      "also report the share of rows inside their 80 % interval, from the model file's\n"
      "tables as predict takes them (table: the last line; JSON: layers.intervals).\n"
      "Examples:\n"
      "  cnnperf validate --data datasets/layers_neusight.csv.gz   # the bundled learned model\n"
      "  cnnperf validate --data datasets/layers_neusight_test.csv.gz   # shapes and GPUs it never "
      "saw\n"
      "  cnnperf validate --e2e datasets/e2e_torchvision.csv       # the analytical baseline\n"
      "  cnnperf validate --model my.json --e2e datasets/e2e_torchvision.csv --format json\n"
      "  cnnperf validate --e2e datasets/e2e_help_nas.csv.gz       # NAS networks, ~1 min\n"
      "  cnnperf validate --model my.json --data new.csv --fail-if-mape-above 25   # CI gate\n"
      "  cnnperf validate --power datasets/power_zeus.csv   # the bundled power model, in-sample");
  sub->callback([opts, &run] { run = [opts] { return run_validate(*opts); }; });
}

}  // namespace cnnperf::cli
