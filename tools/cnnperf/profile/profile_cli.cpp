// SPDX-License-Identifier: Apache-2.0
// `cnnperf profile`: fills ProfileOptions, calls run_profile.
#include <memory>

#include "commands.hpp"
#include "profile/profile_command.hpp"

namespace cnnperf::cli {

void add_profile_command(CLI::App& app, Runner& run) {
  auto opts = std::make_shared<ProfileOptions>();
  auto* sub = app.add_subcommand(
      "profile",
      "Measure cuDNN forward convolutions on this GPU (CUPTI kernel times, NVML energy)");
  auto* net = sub->add_option("--net", opts->net, "Zoo network name, ONNX file or JSON layer list");
  auto* layers = sub->add_option("--layers", opts->layers_csv, "Canonical layer CSV");
  auto* sweep = sub->add_option(
      "--sweep", opts->sweep,
      "FIELD=VALUES, repeatable; VALUES is a comma list and/or start:end:step (end inclusive). "
      "Fields: batch c_in h_in w_in c_out kernel_h kernel_w stride_h stride_w pad_h pad_w "
      "dilation_h dilation_w groups bias dtype, and kernel stride pad dilation hw (both _h/_w)");
  net->excludes(layers)->excludes(sweep);
  layers->excludes(sweep);
  sub->add_option("--batch", opts->batch, "Batch size for --net and --sweep")
      ->capture_default_str();
  sub->add_option("--input-size", opts->input_size, "Input HxW for --net, e.g. 320x320");
  sub->add_option("--precision", opts->precision, "fp32|fp16 (default: from the source, fp32)");
  sub->add_option("--layout", opts->layout, "nchw|nhwc|nchw,nhwc")->capture_default_str();
  sub->add_option("--algo", opts->algo,
                  "heuristic|all|NAME[,NAME] (implicit_gemm, "
                  "implicit_precomp_gemm, gemm, direct, fft, fft_tiling, winograd, "
                  "winograd_nonfused)")
      ->capture_default_str();
  auto& p = opts->policy;
  sub->add_option("--warmup", p.warmup, "Untimed launches before sampling")->capture_default_str();
  sub->add_option("--min-samples", p.min_samples, "Samples at least")->capture_default_str();
  sub->add_option("--max-samples", p.max_samples, "Samples at most")->capture_default_str();
  sub->add_option("--max-noise", p.max_noise_pct,
                  "Stop once the relative stdev is at or below this, %")
      ->capture_default_str();
  sub->add_option("--min-time", p.min_time_s, "Sample at least this much GPU time, s")
      ->capture_default_str();
  sub->add_option("--max-time", p.max_time_s, "Stop sampling after this much GPU time, s")
      ->capture_default_str();
  sub->add_option(
         "--energy-window-ms", p.energy_window_ms,
         "NVML energy window per layer, ms (the counter moves about every 100 ms; 0 skips energy)")
      ->capture_default_str();
  sub->add_flag("--flush-l2", p.flush_l2, "Evict the L2 cache before every sample");
  sub->add_option("--gpu-index", opts->gpu_index, "CUDA device ordinal")->capture_default_str();
  sub->add_flag("--keep-duplicates", opts->keep_duplicates,
                "Profile repeated identical layers again (default: once, counted in 'duplicates')");
  sub->add_flag("--resume", opts->resume, "Keep rows already in --output and skip their layers");
  sub->add_flag("--dry-run", opts->dry_run,
                "List every layer and algorithm with a time estimate, on stdout (never to "
                "--output, which holds measured rows only); needs no GPU");
  sub->add_flag("--self-check", opts->self_check,
                "Time one known convolution and check that kernel records arrived and were "
                "attributed and that the energy window saw counter updates; exit 1 if not");
  sub->add_option("--format", opts->format,
                  "csv|json|table (default: csv; table for --dry-run and --self-check)");
  sub->add_option("-o,--output", opts->output, "Write rows to FILE (atomically) instead of stdout");
  sub->footer(
      "Examples:\n"
      "  cnnperf profile --self-check\n"
      "  cnnperf profile --net resnet50 --dry-run\n"
      "  cnnperf profile --net resnet50 --batch 32 --precision fp16 -o resnet50_a100.csv\n"
      "  cnnperf profile --layers layers.csv --algo all --layout nchw,nhwc -o out.csv --resume\n"
      "  cnnperf profile --sweep c_in=64:256:64 --sweep hw=14,28,56 --sweep c_out=64,128 \\\n"
      "                  --sweep kernel=1,3 --sweep pad=0,1 --max-noise 0.5 --flush-l2 -o "
      "sweep.csv\n"
      "See docs/profiling.md for what is recorded and how to run it on a GPU.");
  sub->callback([opts, &run] { run = [opts] { return run_profile(*opts); }; });
}

}  // namespace cnnperf::cli
