// SPDX-License-Identifier: Apache-2.0
// `cnnperf train`: fills TrainOptions, calls run_train.
#include <memory>

#include "commands.hpp"
#include "train/train_command.hpp"

namespace cnnperf::cli {

void add_train_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<TrainOptions>();
  auto* sub = app.add_subcommand(
      "train", "Cross-validate regressors on measured layers and write a learned model");
  sub->add_option("--data", opts->data, "Measured layer CSVs (plain or .gz), one or more")
      ->expected(1, -1);
  sub->add_option("--power", opts->power,
                  "Measured power CSVs, one or more (datasets/power_zeus.csv): calibrate the "
                  "power model instead, leave-one-GPU-out; --out writes it")
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
      "Regress on the analytical estimate alone, without each machine's fitted host "
      "floor (what a measurement adds at the smallest work); the model before "
      "2026-11-24");
  sub->add_option("--cv", opts->cv, "kfold|group-shape|leave-gpu-out")->capture_default_str();
  sub->add_flag("--unseen-gpu-check", opts->unseen_gpu_check,
                "Also cross-validate leave-one-GPU-out on the reference source's rows; GPUs "
                "outside the training data get, per family, the best there of the learned model, "
                "the same without GPU features (gpu-blind) and the analytical one (another board "
                "of a trained chip takes that board's GPU features instead)");
  sub->add_option("--folds", opts->folds, "Folds for kfold and group-shape")->capture_default_str();
  sub->add_option("--out", opts->out,
                  "Write the model (all rows, the best regressor per op family) to FILE");
  sub->add_option("--e2e", opts->e2e,
                  "End-to-end CSVs, one or more of one kind (torchvision or NAS): calibrate the "
                  "model's eager-framework overhead (with --out); without --data, the analytical "
                  "baseline's")
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
  sub->footer(
      "Examples:\n"
      "  cnnperf train --data datasets/layers_neusight.csv.gz --regressor all --max-rows 20000\n"
      "  cnnperf train --data datasets/layers_*.csv.gz --cv leave-gpu-out --regressor xgboost\n"
      "  cnnperf train --data datasets/layers_neusight.csv.gz datasets/layers_mlpredict.csv.gz \\\n"
      "      --e2e datasets/e2e_torchvision.csv --out models/my_model.json\n"
      "  cnnperf train --data datasets/layers_mlpredict.csv.gz --regressor xgboost \\\n"
      "      --params '{\"conv/mlpredict\":{\"xgboost\":{\"max_depth\":8}}}'   # one source's "
      "model\n"
      "  cnnperf train --e2e datasets/e2e_torchvision.csv --out models/eager_overhead.json"
      "   # analytical baseline\n"
      "  cnnperf train --e2e datasets/e2e_help_nas.csv.gz --out models/eager_overhead_nas.json"
      "   # NAS spaces\n"
      "  cnnperf train --power datasets/power_zeus.csv --out models/power_model.json\n"
      "  cnnperf train --data conv.csv --cv group-shape --export-features conv_features.csv\n"
      "Export OMP_WAIT_POLICY=PASSIVE before training on a shared machine: XGBoost's OpenMP\n"
      "threads otherwise spin between boosting rounds (it must be set before the process starts).");
  sub->callback([opts, &run] { run = [opts] { return run_train(*opts); }; });
}

}  // namespace cnnperf::cli
