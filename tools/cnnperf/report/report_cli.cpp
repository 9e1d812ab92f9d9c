// SPDX-License-Identifier: Apache-2.0
// `cnnperf report`: fills ReportOptions, calls run_report.
#include <memory>

#include "commands.hpp"
#include "report/report_command.hpp"

namespace cnnperf::cli {

void add_report_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<ReportOptions>();
  auto* sub = app.add_subcommand(
      "report", "Render JSON results as one self-contained HTML page with SVG charts");
  // Not ->required(): with no input run_report says what is expected, with the usage line.
  sub->add_option("inputs", opts->inputs,
                  "JSON results written by cnnperf (predict, plan, train, validate, ptx, gpus "
                  "show, nets show; any other JSON is shown generically); - reads stdin");
  sub->add_option("-o,--output", opts->output, "Write the HTML page to FILE (default: stdout)");
  sub->add_option("--title", opts->title, "Page title (default: cnnperf report)");
  sub->footer(
      "Examples:\n"
      "  cnnperf predict --net resnet50 --gpu a100 --format json -o r50.json\n"
      "  cnnperf report r50.json --output report.html\n"
      "  cnnperf predict --layers layers.csv --gpu v100 --format json | cnnperf report - -o "
      "l.html\n"
      "  cnnperf report a100.json t4.json metrics.json --title \"ResNet-50 study\" -o study.html");
  sub->callback([opts, &run] { run = [opts] { return cnnperf::run_report(*opts); }; });
}

}  // namespace cnnperf::cli
