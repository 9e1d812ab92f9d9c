// SPDX-License-Identifier: Apache-2.0
// `cnnperf train`: fills TrainOptions, calls run_train.
#include <memory>

#include "commands.hpp"
#include "train/train_command.hpp"

namespace cnnperf::cli {

namespace {

// The options of `train latency`, also those of plain `train` (which means `train latency`).
void add_latency_options(CLI::App* sub, const std::shared_ptr<TrainOptions>& opts) {
  sub->add_option("--data", opts->data, "Measured layer CSVs (plain or .gz), one or more")
      ->expected(1, -1);
  sub->add_option("--regressor", opts->regressor, "linear|knn|dtree|rf|xgboost|all")
      ->capture_default_str();
  sub->add_option("--features", opts->features,
                  "Feature groups: default, all, a list "
                  "(layer,analytical,gpu,source,setup,ptx,quant) or +group/-group edits")
      ->capture_default_str();
  sub->add_option("--sources", opts->sources,
                  "split: one regressor per measurement source (each with 1000+ rows of the op "
                  "family), as their timing methods differ; joint: one, the source a feature")
      ->capture_default_str();
  sub->add_flag_callback(
      "--no-host-floor", [opts] { opts->host_floor = false; },
      "Regress on the analytical estimate alone, without the fitted harness terms: each "
      "machine's host floor (what a measurement adds at the smallest work) and a "
      "framework's extra-kernel traffic; every such term is then 0");
  sub->add_option("--cv", opts->cv,
                  "kfold|group-shape|leave-gpu-out|leave-source-out (train on every measurement "
                  "source but one, score the held-out one after its own harness terms, floors and "
                  "traffic; per "
                  "source, with its rows on GPUs no other source has)")
      ->capture_default_str();
  sub->add_flag("--unseen-gpu-check", opts->unseen_gpu_check,
                "Also cross-validate leave-one-GPU-out on the reference source's rows; GPUs "
                "outside the training data get, per family, the best there of the learned model, "
                "the same without GPU features (gpu-blind) and the analytical one (another board "
                "of a trained chip takes that board's GPU features instead); with --out, their "
                "held-out residuals size the intervals of such GPUs and of layers outside the "
                "data");
  sub->add_option("--folds", opts->folds, "Folds for kfold and group-shape")->capture_default_str();
  sub->add_option("--out", opts->out,
                  "Write the model (all rows, the best regressor per op family) to FILE");
  sub->add_option("--e2e", opts->e2e,
                  "End-to-end CSVs, one or more of one kind (torchvision or NAS): calibrate the "
                  "model's eager-framework overhead and its step intervals (with --out)")
      ->expected(1, -1);
  sub->add_option("--max-rows", opts->max_rows, "Use a seeded uniform sample of N rows")
      ->check(positive_integer());
  sub->add_option("--seed", opts->seed, "Seed for sampling and folds")->capture_default_str();
  sub->add_option("--params", opts->params,
                  "JSON overriding the default hyper-parameters: top-level keys go to every "
                  "kind trained (e.g. '{\"n_estimators\":200}' with --regressor xgboost), a "
                  "section per kind to that kind only (with --regressor all: "
                  "'{\"xgboost\":{\"max_depth\":6},\"rf\":{\"n_trees\":200}}'), and for "
                  "one family's model of one source (--sources split) a section alike, "
                  "'{\"conv/mlpredict\":{\"xgboost\":{\"max_depth\":8}}}'");
  sub->add_option("--export-features", opts->export_features,
                  "Instead of training: write what train fits to FILE.csv (family, source, gpu, "
                  "the row's --cv fold, every feature, baseline_ms, latency_ms, log_ratio), to "
                  "fit other learners on the same features and folds");
  sub->add_option("--format", opts->format, "table|json|csv")->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write the metrics to FILE instead of stdout");
}

// `train e2e` and `train power`: the rows to calibrate on and where the result goes.
CLI::App* add_calibration_command(CLI::App* train, const char* name, const char* description,
                                  const char* data_help, const char* out_help,
                                  const std::shared_ptr<TrainCalibrationOptions>& opts) {
  auto* sub = train->add_subcommand(name, description);
  sub->add_option("--data", opts->data, data_help)->required()->expected(1, -1);
  sub->add_option("--out", opts->out, out_help);
  sub->add_option("--format", opts->format, "table|json|csv")->capture_default_str();
  sub->add_option("-o,--output", opts->output, "Write the metrics to FILE instead of stdout");
  return sub;
}

}  // namespace

void add_train_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<TrainOptions>();
  auto* sub = app.add_subcommand(
      "train",
      "Fit a model on measurements: the learned latency model (train latency, also plain "
      "train), the analytical baseline's eager overhead (train e2e), the power model (train "
      "power) or the prediction intervals (train intervals)");
  sub->require_subcommand(0, 1);
  add_latency_options(sub, opts);
  sub->footer(
      "Examples:\n"
      "  cnnperf train --data datasets/layers_neusight.csv.gz --regressor all --max-rows 20000\n"
      "  cnnperf train --data datasets/layers_*.csv.gz --cv leave-gpu-out --regressor xgboost\n"
      "  cnnperf train --data datasets/layers_*.csv.gz --cv leave-source-out --max-rows 40000\n"
      "  cnnperf train --data datasets/layers_neusight.csv.gz datasets/layers_mlpredict.csv.gz \\\n"
      "      --e2e datasets/e2e_torchvision.csv --out my_model.json\n"
      "  cnnperf train --data datasets/layers_mlpredict.csv.gz --regressor xgboost \\\n"
      "      --params '{\"conv/mlpredict\":{\"xgboost\":{\"max_depth\":8}}}'   # one source's "
      "model\n"
      "  cnnperf train --data conv.csv --cv group-shape --export-features conv_features.csv\n"
      "  cnnperf train e2e --data datasets/e2e_torchvision.csv --out my_overhead.json\n"
      "  cnnperf train power --data datasets/power_zeus.csv --out my_power_model.json\n"
      "  cnnperf train intervals --data datasets/layers_*.csv.gz --e2e "
      "datasets/e2e_torchvision.csv \\\n"
      "      --max-rows 40000 --out my_intervals.json\n"
      "XGBoost's OpenMP threads wait passively (OMP_WAIT_POLICY=PASSIVE) unless\n"
      "OMP_WAIT_POLICY or GOMP_SPINCOUNT is set: spinning threads slow a busy machine.");

  auto* latency = sub->add_subcommand(
      "latency", "Cross-validate regressors on measured layers and write a learned model");
  add_latency_options(latency, opts);
  latency->footer("Plain `cnnperf train` takes the same options (see its examples).");

  auto e2e = std::make_shared<TrainCalibrationOptions>();
  auto* e2e_sub = add_calibration_command(
      sub, "e2e",
      "Calibrate the analytical baseline on end-to-end rows: its fp16 tensor-core efficiency "
      "per architecture, then its eager-framework overhead (leave-one-GPU-out, "
      "leave-one-network-out, in-sample)",
      "End-to-end CSVs, one or more of one kind (torchvision or NAS)",
      "Write the overhead file (as models/eager_overhead.json) to FILE", e2e);
  e2e_sub->add_flag("!--no-cv", e2e->cross_validate,
                    "Fit only, without the cross-validations (for scripts that hold out GPUs "
                    "themselves, e.g. bench/e2e_spreadsheet.py)");
  e2e_sub
      ->add_option("--runtime", e2e->runtime,
                   "pytorch (eager), pytorch-compile (timm's eager/compiled pairs) or tensorrt "
                   "(MLPerf Inference ResNet-50 results)")
      ->capture_default_str();
  e2e_sub->footer(
      "Examples:\n"
      "  cnnperf train e2e --data datasets/e2e_torchvision.csv --out my_overhead.json\n"
      "  cnnperf train e2e --data datasets/e2e_torchvision.csv datasets/e2e_timm.csv.gz \\\n"
      "      --out my_eager_overhead.json   # as the bundled calibration is fitted\n"
      "  cnnperf train e2e --data datasets/e2e_help_nas.csv.gz --out my_nas_overhead.json\n"
      "  cnnperf train e2e --runtime pytorch-compile --data datasets/e2e_timm.csv.gz \\\n"
      "      --out my_compile_overhead.json\n"
      "  cnnperf train e2e --runtime tensorrt --data datasets/e2e_mlperf_inference.csv.gz \\\n"
      "      --out my_tensorrt_overhead.json");

  auto intervals = std::make_shared<TrainIntervalsOptions>();
  auto* intervals_sub = sub->add_subcommand(
      "intervals",
      "Fit the analytical default's 80 % intervals on its held-out residuals and report their "
      "held-out coverage per validation scheme, op family, time regime and machine");
  intervals_sub->add_option("--data", intervals->data, "Measured layer CSVs (plain or .gz)")
      ->required()
      ->expected(1, -1);
  intervals_sub
      ->add_option("--e2e", intervals->e2e,
                   "End-to-end CSVs (torchvision): the network totals' interval, from "
                   "leave-one-GPU-out residuals")
      ->expected(1, -1);
  intervals_sub
      ->add_option("--cv", intervals->cv,
                   "kfold|group-shape|leave-gpu-out|leave-source-out: the scheme whose held-out "
                   "residuals the written table is fitted on (coverage is reported under "
                   "kfold, leave-gpu-out and leave-source-out)")
      ->capture_default_str();
  intervals_sub->add_option("--folds", intervals->folds, "Folds for kfold and group-shape")
      ->capture_default_str();
  intervals_sub
      ->add_option("--max-rows", intervals->max_rows, "Use a seeded uniform sample of N rows")
      ->check(positive_integer());
  intervals_sub->add_option("--seed", intervals->seed, "Seed for sampling and folds")
      ->capture_default_str();
  intervals_sub->add_option("--out", intervals->out,
                            "Write the intervals file (as models/intervals.json) to FILE");
  intervals_sub->add_option("--format", intervals->format, "table|json|csv")->capture_default_str();
  intervals_sub->add_option("-o,--output", intervals->output,
                            "Write the coverage report to FILE instead of stdout");
  intervals_sub->footer(
      "Example:\n"
      "  cnnperf train intervals --data datasets/layers_neusight.csv.gz \\\n"
      "      datasets/layers_mlpredict.csv.gz datasets/layers_neusight_test.csv.gz \\\n"
      "      --e2e datasets/e2e_torchvision.csv --max-rows 40000 --out my_intervals.json");

  auto power = std::make_shared<TrainCalibrationOptions>();
  auto* power_sub = add_calibration_command(
      sub, "power", "Calibrate the power model on measured power rows, leave-one-GPU-out",
      "Measured power CSVs, one or more (datasets/power_zeus.csv)", "Write the power model to FILE",
      power);
  power_sub->footer(
      "Example:\n"
      "  cnnperf train power --data datasets/power_zeus.csv --out my_power_model.json");

  sub->callback([opts, e2e, power, intervals, e2e_sub, power_sub, intervals_sub, &run] {
    if (intervals_sub->parsed()) {
      run = [intervals] { return run_train_intervals(*intervals); };
    } else if (e2e_sub->parsed()) {
      run = [e2e] { return run_train_e2e(*e2e); };
    } else if (power_sub->parsed()) {
      run = [power] { return run_train_power(*power); };
    } else {
      run = [opts] { return run_train(*opts); };
    }
  });
}

}  // namespace cnnperf::cli
