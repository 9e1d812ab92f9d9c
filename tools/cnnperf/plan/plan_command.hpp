// SPDX-License-Identifier: Apache-2.0
// `cnnperf plan`: enumerates deployment choices (zoo network x GPU x batch x precision x power
// cap), predicts each, scores them with the user-satisfaction score (plan.hpp) and prints
// the ranking.
#pragma once

#include <string>
#include <vector>

#include "cnnperf/common/io.hpp"
#include "cnnperf/predict/plan.hpp"

namespace cnnperf {

/// GPUs ranked when --gpus is not given: a data-centre inference card, a data-centre
/// training card, a desktop card and an embedded module.
inline const std::vector<std::string> kDefaultPlanGpus = {"t4", "a100", "rtx-3090",
                                                          "jetson-agx-orin"};

/// Options of `cnnperf plan` (strings as typed; validated by plan_for_options).
struct PlanOptions {
  bool allow_tf32 = true;  ///< fp32 convolutions on TF32 tensor cores (PyTorch's default)
  std::string profile = "interactive";  ///< realtime | interactive | background
  std::string weights;                  ///< "latency=W,energy=W,accuracy=W"; "": the profile's
  double max_latency_ms = 0;            ///< hard limit on batch latency, ms; 0: none
  double max_energy_j = 0;  ///< hard limit on energy per image (energy_j / batch), J; 0: none
  double min_top1 = 0;      ///< hard floor on published top-1, percent; 0: none
  std::string nets;         ///< comma list of zoo names; "": every net with a published top-1
  std::string gpus;         ///< comma list of names/aliases; "": kDefaultPlanGpus
  std::string batch = "1";  ///< comma list of batch sizes
  std::string precision = "fp32";     ///< comma list of fp32|fp16
  std::string power_limits = "none";  ///< comma list of caps in W, "none" = uncapped
  std::string mode = "inference";     ///< inference | training
  std::string model;                  ///< learned model file; "": the default (as `predict`)
  bool analytical = false;            ///< force the analytical baseline
  double host_ms_per_op = 0;          ///< the user's host time per op, ms; 0: the model's
  std::string accuracy;               ///< accuracy table file; "": models/zoo_accuracy.json
  int top = 20;                       ///< rows printed; 0: all
  std::string format = "table";
  std::string output;  ///< file, or "" for stdout
};

/// Enumerates, predicts and scores the candidates (no output). Throws InputError for bad
/// options, unknown networks or GPUs.
[[nodiscard]] PlanResult plan_for_options(const PlanOptions& options);

/// Renders the ranking: the first `top` candidates (0: all).
[[nodiscard]] std::string format_plan(const PlanResult& result, OutputFormat format, int top);

/// Runs the subcommand: writes the ranking and returns 0; when no candidate is feasible the
/// ranking is still written and BudgetExceeded (exit 3) is thrown.
int run_plan(const PlanOptions& options);

}  // namespace cnnperf
