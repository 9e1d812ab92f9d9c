// SPDX-License-Identifier: Apache-2.0
// cnnperf_algo_study: does knowing (or predicting) the cuDNN algorithm lower the learned
// model's conv error? A research program beside cnnperf, not part of it.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "algo_study_report.hpp"
#include "cnnperf/common/error.hpp"

int main(int argc, char** argv) {
  cnnperf::AlgoStudyReportOptions opts;
  std::string format = "table";
  std::string output;
  CLI::App app{
      "Measure whether the cuDNN algorithm (NeuSight kernel names) helps the learned model on "
      "conv rows, group-shape folds (docs/accuracy.md)"};
  app.add_option("--data", opts.data, "Measured layer CSVs with kernel names, every row")
      ->required()
      ->expected(1, -1);
  app.add_option("--variants", opts.variants,
                 "'all' or a list of baseline, quant, oracle, algo, algo+quant, per-mode, "
                 "oracle-per-mode")
      ->capture_default_str();
  app.add_option("--regressor", opts.regressor, "linear|knn|dtree|rf|xgboost|all")
      ->capture_default_str();
  app.add_option("--classifier", opts.classifier,
                 "Regressor kind of the one-vs-rest algorithm classifier")
      ->capture_default_str();
  app.add_option("--inner-folds", opts.inner_folds,
                 "Inner folds giving training rows out-of-fold class probabilities (0: in-sample)")
      ->capture_default_str();
  app.add_option("--folds", opts.folds, "Group-shape folds")->capture_default_str();
  app.add_option("--seed", opts.seed, "Seed for the folds and the regressors")
      ->capture_default_str();
  app.add_option("--params", opts.params,
                 "JSON object replacing default hyper-parameters of every kind run");
  app.add_option("--format", format, "table|json|csv")->capture_default_str();
  app.add_option("-o,--output", output, "Write the report to FILE instead of stdout");
  app.footer(
      "Example:\n"
      "  zcat datasets/layers_neusight.csv.gz | awk -F, 'NR==1 || $1==\"conv2d\"' > conv.csv\n"
      "  cnnperf_algo_study --data conv.csv --variants all --regressor rf");
  CLI11_PARSE(app, argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("cnnperf_algo_study"));
  spdlog::set_pattern("cnnperf_algo_study: %^%l%$: %v");
  try {
    const auto report = cnnperf::algo_study_report(opts);
    cnnperf::write_output(
        output, cnnperf::render_algo_study(report, cnnperf::output_format_from_string(format)));
    return 0;
  } catch (const cnnperf::ParameterError& e) {
    std::string option = "--" + e.parameter();
    std::replace(option.begin(), option.end(), '_', '-');
    std::fprintf(stderr, "cnnperf_algo_study: error: %s: %s\n", option.c_str(), e.detail().c_str());
    return 2;
  } catch (const cnnperf::InputError& e) {
    std::fprintf(stderr, "cnnperf_algo_study: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cnnperf_algo_study: error: %s\n", e.what());
    return 1;
  }
}
