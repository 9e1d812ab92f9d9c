// SPDX-License-Identifier: Apache-2.0
// `cnnperf profile`: the options turned into layers and jobs (--net, --layers or --sweep), the
// dry-run plan, and the measured rows written (and resumed) in the chosen format.
#include "profile/profile_command.hpp"

#include <optional>
#include <tuple>
#include <unordered_set>

#include <spdlog/spdlog.h>

#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/model/network_io.hpp"
#include "commands.hpp"

namespace cnnperf {
namespace {

std::vector<SourcedLayer> layers_from_options(const ProfileOptions& options) {
  const std::optional<DType> dtype = optional_dtype_from_option(options.precision, "precision");
  const int sources = static_cast<int>(!options.net.empty()) +
                      static_cast<int>(!options.layers_csv.empty()) +
                      static_cast<int>(!options.sweep.empty());
  if (sources != 1) {
    throw InputError("profile: give exactly one of --net, --layers or --sweep (got " +
                     std::to_string(sources) + ")");
  }
  // --input-size shapes a network, --batch a network or a sweep's default: given where the rows
  // carry their own, they were silently ignored (1 is the default, so only other values count).
  if (!options.input_size.empty() && options.net.empty()) {
    throw InputError(
        "--input-size: applies to --net only; --layers rows and --sweep layers carry "
        "their own h_in and w_in (sweep them with hw=...)");
  }
  if (options.batch != 1 && !options.layers_csv.empty()) {
    throw InputError(
        "--batch: --layers rows carry their own batch; expected it only with --net or --sweep");
  }
  std::vector<SourcedLayer> out;
  if (!options.layers_csv.empty()) {
    const LayerTable table = read_layers_csv(options.layers_csv);
    for (std::size_t i = 0; i < table.layers.size(); ++i) {
      Layer layer = table.layers[i];
      if (dtype) layer.dtype = *dtype;
      out.push_back({layer, table.table.where(i)});
    }
    return out;
  }
  if (!options.sweep.empty()) {
    // --batch is the sweep's default batch: beside a swept batch it would be overwritten.
    if (options.batch != 1) {
      for (const std::string& spec : options.sweep) {
        if (parse_sweep_axis(spec).field != "batch") continue;
        throw InputError("--batch: the sweep sets batch itself (--sweep '" + spec +
                         "'); give one of the two");
      }
    }
    for (Layer& layer : expand_sweep(options.sweep, options.batch)) {
      if (dtype) layer.dtype = *dtype;
      out.push_back({layer, "sweep"});
    }
    return out;
  }
  NetworkOptions net_options;
  net_options.batch = options.batch;
  std::tie(net_options.input_h, net_options.input_w) = cli::parse_input_size(options.input_size);
  // Operators the importer cannot model are not convolutions cuDNN would run here anyway.
  ImportOptions import = import_options_from(net_options, /*skip_unsupported=*/true);
  import.dtype = dtype;  // unset: the file's own element type
  const Network network = load_network(options.net, import);
  std::size_t skipped = 0;
  for (const Layer& layer : network.layers) {
    if (layer.op != Op::kConv2d) {
      ++skipped;
      continue;
    }
    out.push_back({layer, network.name + ":" + layer.name});
  }
  spdlog::info("{}: {} convolution layers, {} other layers not profiled", network.name, out.size(),
               skipped);
  if (out.empty()) throw InputError(options.net + ": no convolution layer to profile");
  return out;
}

int run_self_check_command(const ProfileOptions& options, ProfilerBackend& backend) {
  if (!options.net.empty() || !options.layers_csv.empty() || !options.sweep.empty() ||
      options.resume || options.dry_run || options.keep_duplicates) {
    throw InputError(
        "--self-check: times its own known layer; expected no --net, --layers, --sweep, "
        "--resume, --dry-run or --keep-duplicates");
  }
  const OutputFormat format =
      options.format.empty() ? OutputFormat::kTable : output_format_from_string(options.format);
  const Status opened = backend.open(options.gpu_index);
  if (!opened.ok()) throw Error("no usable GPU: " + opened.reason);
  const SelfCheckResult result = run_self_check(backend, options.policy);
  write_output(options.output, render_self_check(result, format));
  if (!result.passed()) {
    spdlog::error("self-check failed: see the FAIL rows; docs/profiling.md says what each means");
    return cli::kExitRuntimeFailure;
  }
  return cli::kExitOk;
}

}  // namespace

std::vector<ProfileJob> plan_jobs(const ProfileOptions& options) {
  const std::vector<Layout> layouts = parse_layouts(options.layout);
  const AlgoRequest request = parse_algo_request(options.algo);
  std::vector<SourcedLayer> layers = layers_from_options(options);
  for (const auto& l : layers) {
    // The cuDNN back end times fp32 and fp16 convolutions (cudnn_conv.cpp).
    if (l.layer.dtype == DType::kBf16 || l.layer.dtype == DType::kInt8) {
      throw InputError((l.source.empty() ? std::string("--precision") : l.source) + ": dtype " +
                       to_string(l.layer.dtype) +
                       " is not profiled; expected fp32 or fp16 (what the cuDNN back end times)");
    }
  }
  return plan_jobs(layers, layouts, request, options.keep_duplicates);
}

std::string render_dry_run(const std::vector<ProfileJob>& jobs, const ProfileOptions& options) {
  const OutputFormat format =
      options.format.empty() ? OutputFormat::kTable : output_format_from_string(options.format);
  return render_dry_run(jobs, options.policy, format);
}

int run_profile(const ProfileOptions& options, ProfilerBackend& backend) {
  const MeasurePolicy& p = options.policy;
  if (p.warmup < 0) throw InputError("--warmup: expected 0 or more launches");
  if (p.min_samples < 1) throw InputError("--min-samples: expected a positive count");
  if (p.max_samples < p.min_samples) throw InputError("--max-samples: below --min-samples");
  if (!(p.max_noise_pct >= 0)) throw InputError("--max-noise: expected a percentage >= 0");
  if (!(p.min_time_s >= 0) || !(p.max_time_s > 0) || p.max_time_s < p.min_time_s) {
    throw InputError("--min-time/--max-time: expected 0 <= min-time <= max-time, max-time > 0");
  }
  if (!(p.energy_window_ms >= 0)) throw InputError("--energy-window-ms: expected >= 0");
  if (options.gpu_index < 0) throw InputError("--gpu-index: expected 0 or more");
  check_output_not_input(options.output, {options.net, options.layers_csv});

  if (options.self_check) return run_self_check_command(options, backend);
  const OutputFormat format =
      options.format.empty() ? OutputFormat::kCsv : output_format_from_string(options.format);
  const std::vector<ProfileJob> jobs = plan_jobs(options);
  if (options.dry_run) {
    // The plan goes to stdout, never to --output, so it cannot be mistaken for a dataset.
    if (!options.output.empty() && options.output != "-") {
      spdlog::warn("--dry-run: the plan goes to stdout; {} is not written", options.output);
    }
    write_output("", render_dry_run(jobs, options));
    return cli::kExitOk;
  }

  const bool to_file = !options.output.empty() && options.output != "-";
  ResumeState resume;
  if (options.resume) {
    if (format != OutputFormat::kCsv) throw InputError("--resume: needs --format csv");
    if (!to_file) throw InputError("--resume: needs --output FILE (cannot resume from stdout)");
    resume = read_resume_state(options.output);
  }

  const Status opened = backend.open(options.gpu_index);
  if (!opened.ok()) throw Error("no usable GPU: " + opened.reason);
  const DeviceInfo device = backend.device();
  if (!resume.gpu_uuid.empty() && resume.gpu_uuid != device.uuid) {
    throw InputError(options.output + ": rows were measured on " + resume.gpu_uuid + ", this is " +
                     device.uuid + " (" + device.name +
                     "); resume on the same GPU or write another --output");
  }
  spdlog::info("profiling on GPU {} ({}, {}), cuDNN {}, CUPTI {}", device.index, device.name,
               device.uuid, device.cudnn, device.cupti);

  // Rows kept from the earlier run, reordered to our columns.
  std::vector<std::vector<std::string>> out_rows;
  const std::unordered_set<std::string> done(resume.done_keys.begin(), resume.done_keys.end());
  for (std::size_t i = 0; i < resume.table.rows.size(); ++i) {
    if (!done.count(profile_row_key(resume.table, i))) continue;
    std::vector<std::string> cells;
    for (const auto& column : profile_columns()) {
      cells.push_back(resume.table.get(i, column).value_or(""));
    }
    out_rows.push_back(std::move(cells));
  }

  std::size_t skipped = 0;
  for (const ProfileJob& job : jobs) {
    if (done.count(job.key())) {
      ++skipped;
      continue;
    }
    for (const ProfileRow& row : measure_job(backend, job, p)) {
      spdlog::info("[{}/{}] {} {} {}: {} {}", job.id + 1, jobs.size(), job.source,
                   to_string(job.layer.layout),
                   row.algo_known ? to_string(row.algo) : job.algo_request,
                   to_string(row.status.outcome),
                   row.status.ok() ? format_number(row.latency_ms) + " ms" : row.status.reason);
      out_rows.push_back(profile_row_fields(row, device, p));
    }
    // Atomic rewrite after every job: an interrupted run keeps what it measured.
    if (to_file) write_output(options.output, render_profile_rows(out_rows, format));
  }
  if (skipped > 0) spdlog::info("--resume: {} jobs already measured, skipped", skipped);
  if (!to_file || jobs.size() == skipped) {
    write_output(options.output, render_profile_rows(out_rows, format));
  }
  return cli::kExitOk;
}

}  // namespace cnnperf
