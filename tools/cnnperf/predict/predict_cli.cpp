// SPDX-License-Identifier: Apache-2.0
// `cnnperf predict`: fills PredictOptions (and the lists of a sweep), calls run_predict.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "predict/predict_command.hpp"

namespace cnnperf::cli {

namespace {

static_assert(kMaxSweepPredictions == 256, "--help says a sweep has at most 256 rows");

// The text of the options that may hold a list; parsed into PredictSweep before the run.
struct SweepText {
  std::string batch;
};

// A comma list of a sweep's option: every entry passes `entry`, whose message names it. A
// value without a comma is `entry`'s alone, so a single value reads as it always did.
CLI::Validator sweep_list(const CLI::Validator& entry) {
  return CLI::Validator(
      [entry](std::string& value) -> std::string {
        if (value.find(',') == std::string::npos) return entry(value);
        std::vector<std::string> items;
        try {
          items = split_list(value, "list");
        } catch (const InputError&) {
          return "empty entry in '" + value + "'; expected a comma-separated list";
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
          if (const std::string bad = entry(items[i]); !bad.empty()) {
            return bad + " (entry " + std::to_string(i + 1) + " of '" + value + "')";
          }
        }
        return {};
      },
      entry.get_description());
}

// --precision entries: the names the library accepts.
CLI::Validator precision_name() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          (void)dtype_from_option(value, "precision");
          return {};
        } catch (const ParameterError& e) {
          return e.detail();
        }
      },
      "PRECISION");
}

// A GPU option's value is a list of database names unless it names a spec file.
bool gpu_list(const std::string& text) {
  return text.find(',') != std::string::npos && text.find('/') == std::string::npos &&
         !(text.size() > 5 && text.ends_with(".json"));
}

// Each entry once: a repeated one would predict the same row twice.
template <typename T>
void refuse_repeats(const std::vector<T>& items, const std::vector<std::string>& text,
                    const std::string& flag) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto first = std::find(items.begin(), items.end(), items[i]) - items.begin();
    if (static_cast<std::size_t>(first) != i) {
      throw InputError(flag + ": '" + text[static_cast<std::size_t>(first)] + "' and '" + text[i] +
                       "' are one value; expected each once");
    }
  }
}

// Moves every option given as a list (two or more entries) from `opts` into the sweep; the
// entries were checked as the command line was parsed.
PredictSweep parse_sweep(PredictOptions& opts, const SweepText& text) {
  PredictSweep sweep;
  if (!text.batch.empty()) {
    const auto batches = split_list(text.batch, "--batch");
    std::vector<std::int64_t> values;
    values.reserve(batches.size());
    for (const auto& b : batches) values.push_back(parse_positive_int(b, "--batch"));
    if (values.size() == 1) {
      opts.batch = values.front();
    } else {
      refuse_repeats(values, batches, "--batch");
      sweep.batches = values;
    }
  }
  if (gpu_list(opts.gpu)) {
    sweep.gpus = split_list(opts.gpu, "--gpu");
    refuse_repeats(sweep.gpus, sweep.gpus, "--gpu");  // one GPU by two names: run_predict
    opts.gpu.clear();
  }
  if (opts.precision.find(',') != std::string::npos) {
    const auto names = split_list(opts.precision, "--precision");
    for (const auto& p : names) sweep.precisions.push_back(dtype_from_option(p, "precision"));
    refuse_repeats(sweep.precisions, names, "--precision");
    opts.precision.clear();
  }
  if (opts.runtime.find(',') != std::string::npos) {
    const auto names = split_list(opts.runtime, "--runtime");
    for (const auto& r : names) sweep.runtimes.push_back(runtime_from_string(r));
    refuse_repeats(sweep.runtimes, names, "--runtime");
    opts.runtime = "pytorch";
  }
  return sweep;
}

}  // namespace

void add_predict_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<PredictOptions>();
  auto sweep = std::make_shared<SweepText>();
  auto* sub = app.add_subcommand("predict", "Predict per-layer and end-to-end latency and energy");
  sub->add_option("--net", opts->net,
                  "Zoo network name, ONNX file, JSON layer list, or a NAS-space network: "
                  "nb201:<NAS-Bench-201 cell> or fbnet:<22 FBNet blocks> (CIFAR-100, 32x32)");
  sub->add_option("--layers", opts->layers_csv, "Canonical layer CSV: one prediction per row");
  sub->add_option("--from", opts->from_csv,
                  "Layer rows measured on one GPU (what `cnnperf profile` writes: latency_ms and "
                  "gpu per row), predicted on --gpu from each measurement and the model's ratio "
                  "between the two GPUs");
  sub->add_option("--gpu", opts->gpu,
                  "GPU name, alias (as nvidia-smi prints it) or JSON spec; with --layers it may "
                  "be left out when the CSV has a gpu column (each row on its own GPU). "
                  "--net: a comma list of names or aliases sweeps them");
  sub->add_option("--batch", sweep->batch,
                  "Batch size (default: 1, or the ONNX model's); --net: a comma list sweeps them")
      ->type_name("INT[,INT...]")
      ->check(sweep_list(positive_integer()));
  sub->add_option("--mode", opts->mode, "inference|training")->capture_default_str();
  sub->add_option(
         "--precision", opts->precision,
         "fp32|fp16|bf16|int8 (default: an ONNX or JSON file's own, else fp32; tensorrt: int8 "
         "where the GPU has an INT8 tensor rate, else fp16). bf16 and int8 need the "
         "GPU's tensor_bf16_tflops or tensor_int8_tops. --net: a comma list sweeps them")
      ->check(CLI::Validator(
          [list = sweep_list(precision_name())](std::string& value) -> std::string {
            // A single value is the library's to check (a file's own type when not given).
            return value.find(',') == std::string::npos ? std::string() : list(value);
          },
          "PRECISION"));
  sub->add_option("--input-size", opts->input_size, "Input HxW, e.g. 320x320");
  sub->add_option("--power-limit", opts->power_limit_w,
                  "GPU board power cap, W: the SM clock drops until the step's predicted "
                  "average power fits (calibrated power model)")
      ->check(positive_number());
  sub->add_option("--host-ms-per-op", opts->host_ms_per_op,
                  "Host time to issue one op on your machine, ms (default: the model's "
                  "calibrated value); sets latency_ms of host-bound networks")
      ->check(positive_number());
  sub->add_flag("--input-on-gpu", opts->input_on_gpu,
                "--net, --runtime pytorch: the input batch is already on the GPU (made or "
                "staged there before the step, as timm's benchmark runs), so the step has no "
                "host-to-device copy of it (by default it copies the batch, as a data loader "
                "feeding the GPU does); the other runtimes' steps never copy it, so there it "
                "changes nothing (a --runtime list compares them under one harness)");
  sub->add_option("--num-gpus", opts->num_gpus,
                  "--net: GPUs of one PyTorch nn.DataParallel step, each with --batch "
                  "(calibrated on 2-4 GPU rows; energy of all GPUs)")
      ->capture_default_str();
  sub->add_option("--model", opts->model,
                  "Trained model file (default: the analytical baseline, for --net and "
                  "--layers alike; docs/accuracy.md says why)");
  sub->add_flag("--analytical", opts->analytical, "Use the analytical baseline model");
  sub->add_option("--eager-overhead", opts->eager_overhead,
                  "Eager-overhead file (written by `cnnperf train e2e`) for the analytical "
                  "baseline's zoo networks (default: the bundled models/eager_overhead.json)");
  sub->add_option("--runtime-overhead", opts->runtime_overhead,
                  "Runtime-overhead file (written by `cnnperf train e2e --runtime "
                  "pytorch-compile|tensorrt`) for the analytical baseline's steps under that "
                  "runtime, with its step intervals (default: the bundled "
                  "models/compile_overhead.json and models/tensorrt_overhead.json)");
  sub->add_option("--runtime", opts->runtime,
                  "What runs the layers: cudnn (direct library call, what profile measures), "
                  "pytorch (eager), pytorch-compile (torch.compile; inference) or tensorrt "
                  "(inference; int8 by default where the GPU has the rate). A layer's kernel_ms "
                  "is the same under each at one precision, except that pytorch-compile and "
                  "tensorrt fuse ops of a network (fused_into: kernel_ms 0) and run "
                  "convolutions channels-last (no layout transposes); overhead_ms and "
                  "latency_ms are the runtime's (docs/methodology.md, Runtimes). --net: a comma "
                  "list sweeps them")
      ->check(sweep_list(CLI::IsMember(runtime_names())))
      ->capture_default_str();
  sub->add_flag("!--no-tf32", opts->allow_tf32,
                "Strict fp32 convolutions (by default fp32 convolutions run on TF32 tensor "
                "cores on Ampere and later, as cuDNN and PyTorch run them)");
  sub->add_option("--layout", opts->layout,
                  "Activation layout of the convolutions: nchw (PyTorch's default) or nhwc "
                  "(channels_last). An NCHW convolution on tensor cores also runs cuDNN's "
                  "layout transposes. Default: nchw for --net, each row's `layout` for "
                  "--layers; pytorch-compile and tensorrt run channels-last whatever is asked")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  sub->add_flag("--skip-unsupported", opts->skip_unsupported,
                "Flag unsupported ONNX nodes instead of failing");
  sub->add_option("--max-latency-ms", opts->max_latency_ms,
                  "Exit 3 when the predicted latency_ms exceeds this budget")
      ->check(positive_number());
  sub->add_option("--max-energy-j", opts->max_energy_j,
                  "Exit 3 when the predicted energy_j exceeds this budget")
      ->check(positive_number());
  sub->add_option("--format", opts->format,
                  "table|json|csv (default: table for --net, csv for --layers; a --layers "
                  "table holds at most 10000 rows, csv and json any number)");
  sub->add_option("-o,--output", opts->output, "Write to FILE instead of stdout");
  sub->add_option("--trace", opts->trace,
                  "--net: also write the predicted step as a Chrome trace-event JSON FILE "
                  "(chrome://tracing, ui.perfetto.dev): kernels on a GPU track, op issue and "
                  "the step's fixed terms on a host track, the input copy");
  sub->footer(
      "Examples:\n"
      "  cnnperf predict --net resnet50 --gpu a100\n"
      "  cnnperf predict --net mobilenet_v2 --gpu \"Tesla T4\" --batch 32 --format json\n"
      "  cnnperf predict --net model.onnx --gpu rtx3090 --precision fp16\n"
      "  cnnperf predict --net resnet50 --gpu a100 --precision fp16 --layout nhwc   # "
      "channels_last\n"
      "  cnnperf predict --layers layers.csv --gpu v100 --format csv -o out.csv\n"
      "  cnnperf nets show resnet18 --batch 8 --format csv > r18.csv\n"
      "  cnnperf predict --layers r18.csv --gpu v100 --runtime cudnn   # same kernel_ms as --net\n"
      "  cnnperf predict --net resnet50 --gpu a100 --runtime tensorrt   # INT8 engine, batch 1\n"
      "  cnnperf predict --net resnet50 --gpu l4 --runtime tensorrt \\\n"
      "      --runtime-overhead my_trt.json   # your own `train e2e --runtime tensorrt` fit\n"
      "  cnnperf predict --net resnet50 --gpu rtx4090 --batch 256 --precision fp16 \\\n"
      "      --runtime pytorch-compile\n"
      "  cnnperf predict --net resnet50 --gpu rtx4090 --batch 256 --precision fp16 \\\n"
      "      --input-on-gpu   # a benchmark loop whose batch is already on the GPU (timm's)\n"
      "  cnnperf predict --layers rows_with_gpu_column.csv -o out.csv   # each row on its GPU\n"
      "  cnnperf predict --from datasets/profiled/h100/resnet50_b1_fp32_window200ms.csv \\\n"
      "      --gpu a100 --runtime cudnn --format table   # measured on an H100, on an A100\n"
      "  cnnperf predict --net resnet50 --gpu v100 --model models/cnnperf_default.json\n"
      "  cnnperf predict --net resnet50 --gpu t4 --max-latency-ms 10   # exit 3 if over\n"
      "  cnnperf predict --net resnet50 --gpu a100 --trace step.json   # open in Perfetto\n"
      "  cnnperf predict --net resnet50 --gpu v100 --mode training --batch 64 --power-limit 150\n"
      "  cnnperf predict --net resnet50 --gpu titan-rtx --batch 12 --num-gpus 4 --mode training\n"
      "  cnnperf predict --gpu \"GeForce GTX 1080 Ti\" --batch 32 --net \\\n"
      "      "
      "'nb201:|nor_conv_3x3~0|+|none~0|nor_conv_1x1~1|+|skip_connect~0|nor_conv_1x1~1|none~2|'\n"
      "  cnnperf predict --net resnet50 --batch 1,8,32 --gpu a100,t4,h100 \\\n"
      "      --precision fp32,fp16 --format csv   # a sweep: one row per combination\n"
      "A comma list in --gpu, --batch, --precision or --runtime (with --net) predicts every\n"
      "combination, at most 256, into one table, CSV or JSON (kind prediction_sweep): one row\n"
      "each, ordered by gpu, --precision entry (each runtime's default where none was\n"
      "given), runtime, batch, with the figures of a single prediction's total.\n"
      "--max-latency-ms and --max-energy-j apply to every row: exit 3 when any row is over,\n"
      "and the output and the error name those rows.\n"
      "--net's total: latency_ms = kernel_ms + kernel_scale_ms (the end-to-end calibration's\n"
      "correction to the summed kernel time on the GPU's measuring machine, and what a step\n"
      "saves when its weights and largest layer fit in L2 and repeated steps read them there;\n"
      "negative where its steps ran faster) + overhead_ms (what the runtime adds; never\n"
      "negative).\n"
      "--layers adds kernel_ms (GPU time of the layer's kernels, the same number --net gives\n"
      "the layer), overhead_ms (what the runtime adds to the op run alone) and latency_ms\n"
      "(their sum). A column the input already has (a dataset's measured latency_ms) gets\n"
      "the prefix predicted_.\n"
      "--from gives the same columns, with kernel_ms = latency_ms measured on the row's gpu x\n"
      "the model's kernel_ms on --gpu / its kernel_ms on the row's gpu (what the model gets\n"
      "wrong on both GPUs alike cancels; docs/accuracy.md: closer than --layers on\n"
      "convolutions, not on linear layers), then measured_ms_on_source_gpu and source_gpu;\n"
      "JSON and a table end with the rows' total, the network end to end (each row an op run\n"
      "alone, as --layers gives it).");

  sub->callback([opts, sweep, &run] {
    run = [opts, sweep] {
      const PredictSweep lists = parse_sweep(*opts, *sweep);
      return run_predict(*opts, lists);
    };
  });
}

}  // namespace cnnperf::cli
