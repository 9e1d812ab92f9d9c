// SPDX-License-Identifier: Apache-2.0
// `cnnperf ptx analyze|layer`: executed PTX instruction mixes by dynamic analysis on the CPU.
#include <memory>
#include <string>

#include "commands.hpp"
#include "ptx/ptx_command.hpp"

namespace cnnperf::cli {

namespace {

// --conv-kernel NAME to its PtxConvKernel (as the number CLI11 reads into the enum).
CLI::Validator conv_kernel_name() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        for (const auto& [name, kernel] : kPtxConvKernelNames) {
          if (value == name) {
            value = std::to_string(static_cast<int>(kernel));
            return {};
          }
        }
        return "expected auto, igemm or direct, got '" + value + "'";
      },
      "");
}

}  // namespace

void add_ptx_command(CLI::App& app, Runner& run) {
  auto* sub =
      app.add_subcommand("ptx", "Executed PTX instruction mixes by dynamic analysis on the CPU");
  sub->require_subcommand(1);
  sub->footer(
      "Example: cnnperf ptx layer --spec "
      "conv2d:c_in=64,h_in=56,w_in=56,c_out=64,kernel_h=3,kernel_w=3,pad_h=1,pad_w=1");

  auto a = std::make_shared<PtxAnalyzeOptions>();
  auto* an = sub->add_subcommand("analyze", "Emulate one kernel launch of a PTX file");
  an->add_option("file", a->file, "PTX file")->required();
  an->add_option("--kernel", a->kernel, "Entry (.entry) name")->required();
  an->add_option("--grid", a->grid, "Grid X,Y,Z")->required();
  an->add_option("--block", a->block, "Block X,Y,Z")->required();
  an->add_option("--param", a->params,
                 "INDEX=VALUE for parameter INDEX (0-based); pointer params default to distinct "
                 "fake addresses");
  an->add_flag("--full", a->full, "Simulate every CTA (no sampling, no extrapolation)");
  an->add_option("--max-warp-insts", a->max_warp_insts,
                 "Stop (exit 2) after this many emulated warp instructions, a loop that never ends")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  an->add_option("--samples", a->samples, "Interior CTAs sampled per grid dimension")
      ->check(CLI::Range(1, 64));
  an->add_option("--extrapolate", a->extrapolate,
                 "INDEX=LO,HI: parameter INDEX only sets a loop trip count; simulate LO and HI and "
                 "extrapolate linearly");
  an->add_option("--arch", a->arch,
                 "ptxas architecture for resources (default: the module's .target)");
  an->add_option("--format", a->format, "table|json|csv")->capture_default_str();
  an->add_option("-o,--output", a->output, "Write to FILE instead of stdout");
  an->footer(
      "Example: cnnperf ptx analyze models/ptx/conv_direct.sm_80.ptx --kernel conv2d_direct_nchw "
      "--grid 196 --block 256 --param 2=0 --param 4=1 --param 5=256 --param 6=14 --param 7=14 "
      "--param 8=256 "
      "--param 9=3 --param 10=3 --param 11=14 --param 12=14 --param 13=1 --param 14=1 --param 15=1 "
      "--param 16=1 --param 17=1 --param 18=1 --param 19=0 --format json");
  an->callback([a, &run] { run = [a] { return cnnperf::run_ptx_analyze(*a); }; });

  auto l = std::make_shared<PtxLayerCommandOptions>();
  auto* ly =
      sub->add_subcommand("layer", "Emulate the bundled reference kernel implementing a layer");
  ly->add_option("spec,--spec", l->spec,
                 "Layer spec OP:key=value,... (canonical CSV column names), positional or --spec");
  ly->add_option("--layers", l->layers_csv, "Canonical layer CSV, one result per row");
  ly->add_option("--arch", l->layer.arch, "Committed PTX to use: sm_80|sm_90")
      ->capture_default_str();
  ly->add_option("--conv-kernel", l->layer.conv_kernel,
                 "auto|igemm|direct (a depthwise layer always runs the depthwise kernel)")
      ->transform(conv_kernel_name())
      ->type_name("TEXT")
      ->default_str(to_string(l->layer.conv_kernel));
  ly->add_flag("--full", l->layer.full, "Simulate every CTA (no sampling, no extrapolation)");
  ly->add_option("--max-warp-insts", l->layer.max_warp_insts,
                 "Stop (exit 2) after this many emulated warp instructions per launch")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  ly->add_option("--format", l->format, "table|json|csv")->capture_default_str();
  ly->add_option("-o,--output", l->output, "Write to FILE instead of stdout");
  ly->footer(
      "Example: cnnperf ptx layer "
      "conv2d:batch=1,c_in=64,h_in=56,w_in=56,c_out=64,kernel_h=3,kernel_w=3,"
      "pad_h=1,pad_w=1 --format json");
  ly->callback([l, &run] { run = [l] { return cnnperf::run_ptx_layer(*l); }; });
}

}  // namespace cnnperf::cli
