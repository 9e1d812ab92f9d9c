// SPDX-License-Identifier: Apache-2.0
// `cnnperf plan`: fills PlanOptions, calls run_plan.
#include <memory>

#include "commands.hpp"
#include "plan/plan_command.hpp"

namespace cnnperf::cli {

void add_plan_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<PlanOptions>();
  auto* sub = app.add_subcommand(
      "plan", "Rank deployment choices by user satisfaction (P-CNN-style SoC score)");
  sub->add_option("--profile", opts->profile,
                  "Task profile: realtime (hard deadline) | interactive (soft target) | "
                  "background (throughput)")
      ->capture_default_str();
  sub->add_option("--weights", opts->weights,
                  "Override the profile's weights, e.g. latency=0.5,energy=0.2,accuracy=0.3 "
                  "(missing terms are 0; normalized to sum 1)");
  sub->add_option("--max-latency-ms", opts->max_latency_ms,
                  "Hard limit on the latency of one batch, ms (realtime: the deadline)")
      ->check(positive_number());
  sub->add_option("--max-energy-j", opts->max_energy_j,
                  "Hard limit on energy per image (energy of a batch / batch), J")
      ->check(positive_number());
  sub->add_option("--min-top1", opts->min_top1, "Hard floor on published top-1 accuracy, %");
  sub->add_option("--nets", opts->nets,
                  "Comma list of zoo networks (default: every net with a published top-1)");
  sub->add_option("--gpus", opts->gpus,
                  "Comma list of GPU names or aliases (default: t4,a100,rtx-3090,jetson-agx-orin)");
  sub->add_option("--batch", opts->batch, "Comma list of batch sizes")->capture_default_str();
  sub->add_option("--precision", opts->precision,
                  "Comma list of fp32|fp16|bf16|int8 (a GPU without the rate of one skips it, "
                  "with a warning)")
      ->capture_default_str();
  sub->add_option("--power-limits", opts->power_limits,
                  "Comma list of power caps in W, 'none' = uncapped")
      ->capture_default_str();
  sub->add_option("--mode", opts->mode, "inference|training")->capture_default_str();
  sub->add_option("--model", opts->model, "Trained latency model file (as in predict)");
  sub->add_flag("--analytical", opts->analytical, "Use the analytical baseline model");
  sub->add_flag("!--no-tf32", opts->allow_tf32,
                "Strict fp32 convolutions (by default fp32 convolutions run on TF32 tensor "
                "cores on Ampere and later, as PyTorch runs them)");
  sub->add_option("--host-ms-per-op", opts->host_ms_per_op,
                  "Host time to issue one op on your machine, ms (as in predict)")
      ->check(positive_number());
  sub->add_option("--accuracy", opts->accuracy,
                  "Table of published top-1 figures (default: models/zoo_accuracy.json)");
  sub->add_option("--top", opts->top, "Rows printed (0: all)")->capture_default_str();
  sub->add_option("--format", opts->format, "table|json|csv")->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  sub->footer(
      "Examples:\n"
      "  cnnperf plan --profile realtime --gpus t4,jetson-agx-orin --batch 1,8\n"
      "  cnnperf plan --profile interactive --nets resnet50,mobilenet_v3_large,efficientnet_b0 "
      "--gpus a100 --precision fp32,fp16 --power-limits none,250 --format json -o plan.json\n"
      "  cnnperf plan --profile background --batch 32,128 --max-energy-j 0.05 --min-top1 75\n"
      "  cnnperf plan --weights latency=0.2,energy=0.6,accuracy=0.2 --top 10\n"
      "Infeasible candidates are listed with their reasons; exit 3 when none is feasible.\n"
      "Score and profile defaults: docs/methodology.md (plan: user satisfaction).");
  sub->callback([opts, &run] { run = [opts] { return run_plan(*opts); }; });
}

}  // namespace cnnperf::cli
