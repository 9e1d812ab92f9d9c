// SPDX-License-Identifier: Apache-2.0
// `cnnperf nets [show NAME]`: options -> cnnperf::run_nets.
#include <memory>

#include "commands.hpp"
#include "nets/nets_command.hpp"

namespace cnnperf::cli {

void add_nets_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<NetsOptions>();
  auto* sub = app.add_subcommand("nets", "List the network zoo, or show one network's layers");
  sub->add_option("--format", opts->format, "Output format: table|json|csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write the result to FILE (default: stdout)");
  sub->add_option(
      "--precision", opts->precision,
      "Element type for `nets show`'s bytes: fp32|fp16|bf16|int8 (the list has no bytes "
      "column)");
  sub->footer("Example: cnnperf nets --format csv --output zoo.csv");

  auto* show = sub->add_subcommand(
      "show",
      "Every layer of a network: shapes, kernel, stride, pad, groups, params, MACs, "
      "FLOPs, bytes, and totals");
  show->add_option("network", opts->show,
                   "Zoo name (e.g. resnet50), ONNX file, JSON layer list, nb201:<cell> or "
                   "fbnet:<22 blocks>")
      ->required();
  show->add_option("--batch", opts->batch, "Batch size")->capture_default_str();
  show->add_option("--input-size", opts->input_size,
                   "Input HxW (or N for NxN); default: the network's own size");
  show->add_option("--format", opts->format, "Output format: table|json|csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  show->add_option("-o,--output", opts->output, "Write the result to FILE (default: stdout)");
  show->add_option(
      "--precision", opts->precision,
      "Element type for bytes: fp32|fp16|bf16|int8 (default: an ONNX or JSON file's own, else "
      "fp32)");
  show->add_flag("--layer-list", opts->layer_list,
                 "Write the network as a JSON layer list (docs/model-import.md) that predict "
                 "--net, nets show and profile --net read back; --format is not used");
  show->footer(
      "Examples:\n"
      "  cnnperf nets show resnet50 --batch 8 --input-size 256x256 --format json\n"
      "  cnnperf nets show resnet18 --layer-list -o resnet18.json   # edit, then predict --net "
      "resnet18.json\n"
      "  cnnperf nets show 'fbnet:k3_e1 skip k3_e3 k3_e6 k5_e1 k5_e1_g2 k5_e3 k5_e6 skip skip skip "
      "k3_e1 k3_e1 k3_e1 k3_e1 k3_e1 k3_e1 k3_e1 k3_e1 k3_e1 k3_e1 k3_e1'");

  sub->callback([opts, &run] { run = [opts] { return cnnperf::run_nets(*opts); }; });
}

}  // namespace cnnperf::cli
