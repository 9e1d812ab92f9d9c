// SPDX-License-Identifier: Apache-2.0
// `cnnperf ptx analyze|layer`: the options' text forms parsed into a launch or layers, the
// library's analysis, the results written in the chosen format.
#include "ptx/ptx_command.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "commands.hpp"

namespace cnnperf {

namespace {

std::uint64_t parse_param_value(const std::string& text, const std::string& what) {
  if (text.empty()) throw InputError(what + ": empty value");
  char* end = nullptr;
  const bool is_float = text.find('.') != std::string::npos || text.back() == 'f' ||
                        (text.find('e') != std::string::npos && text.rfind("0x", 0) != 0);
  if (is_float) {
    std::string t = text;
    const bool single = t.back() == 'f';
    if (single) t.pop_back();
    errno = 0;
    const double d = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0') {
      throw InputError(what + ": expected a number, got '" + text + "'");
    }
    if (single) {
      const float f = static_cast<float>(d);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      return b;
    }
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  }
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE) {
    errno = 0;
    const unsigned long long u = std::strtoull(text.c_str(), &end, 0);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE) {
      throw InputError(what + ": expected an integer, got '" + text + "'");
    }
    return u;
  }
  return static_cast<std::uint64_t>(v);
}

std::string render(const std::vector<PtxLaunchResult>& results, const std::string& format) {
  switch (output_format_from_string(format)) {
    case OutputFormat::kJson: return ptx_results_json(results);
    case OutputFormat::kCsv: return ptx_results_csv(results);
    case OutputFormat::kTable: break;
  }
  return ptx_results_table(results);
}

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(seconds < 10 ? 1 : 0) << seconds << " s";
  return text.str();
}

// The library words the emulation budget by its parameter; said here by the options, with
// what to do: `ptx analyze` runs the user's launch (its --param values may never end a loop),
// `ptx layer` a bundled kernel on a shape.
std::string budget_message(const ptx::WarpBudgetExceeded& e, double seconds, bool layer,
                           bool full) {
  const std::string budget = std::to_string(e.budget());
  if (e.ctas_refused() > 0) {
    return "--full: " + std::to_string(e.ctas_refused()) +
           " CTAs need more than the --max-warp-insts budget of " + budget +
           " warp instructions; expected fewer CTAs, or sampling (without --full)";
  }
  std::string message = "kernel '" + e.kernel() + "' executed more than " + budget +
                        " warp instructions (--max-warp-insts) in " + seconds_text(seconds) +
                        " without finishing; expected a launch that ends: ";
  // Sampling is the default: only a --full run can still be told to sample.
  const std::string sample = full ? "sample (drop --full), " : "";
  if (!layer) {
    message +=
        "if a loop never ends, check the --param values that bound it; if the launch is long, " +
        sample + "extrapolate its trip count (--extrapolate INDEX=LO,HI), or ";
  } else {
    message += sample + (full ? "or " : "");
  }
  return message + "raise --max-warp-insts above " + budget;
}

std::vector<PtxLaunchResult> analyze_layer_for_options(const Layer& layer,
                                                       const PtxLayerOptions& options) {
  std::vector<PtxLaunchResult> results;
  EmulationProgress progress(std::cerr);
  PtxLayerOptions with_progress = options;
  with_progress.progress = progress.callback();
  try {
    results = analyze_layer(layer, with_progress);
  } catch (const ptx::WarpBudgetExceeded& e) {
    throw InputError(budget_message(e, progress.seconds(), true, options.full));
  }
  if (options.conv_kernel != PtxConvKernel::kAuto && ptx_depthwise_layer(layer)) {
    // Not an error: in a --layers file the option still holds for the other convolutions.
    spdlog::warn(
        "--conv-kernel {}: a depthwise convolution (groups = c_in = c_out = {}) runs the "
        "depthwise reference kernel",
        to_string(options.conv_kernel), layer.c_in);
  }
  return results;
}

}  // namespace

EmulationProgress::EmulationProgress(std::ostream& out,
                                     std::chrono::steady_clock::duration interval)
    : out_(out), interval_(interval), start_(std::chrono::steady_clock::now()), last_(start_) {}

std::function<void(std::uint64_t, std::uint64_t)> EmulationProgress::callback() {
  return [this](std::uint64_t executed, std::uint64_t max_warp_insts) {
    report(executed, max_warp_insts);
  };
}

double EmulationProgress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void EmulationProgress::report(std::uint64_t executed, std::uint64_t max_warp_insts) {
  if (executed < last_executed_) earlier_ += last_executed_;  // a new launch (ptx layer)
  last_executed_ = executed;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < interval_) return;
  last_ = now;
  const double elapsed = seconds();
  const double rate = static_cast<double>(earlier_ + executed) / std::max(elapsed, 1e-9);
  const double left = static_cast<double>(max_warp_insts - std::min(executed, max_warp_insts));
  std::ostringstream line;
  line << "cnnperf: ptx: " << executed << " of " << max_warp_insts
       << " warp instructions (--max-warp-insts) emulated, " << std::fixed << std::setprecision(0)
       << 100.0 * static_cast<double>(executed) / static_cast<double>(max_warp_insts) << "% after "
       << seconds_text(elapsed) << "; the budget is reached in about " << seconds_text(left / rate)
       << " unless the launch ends\n";
  out_ << line.str() << std::flush;
}

ptx::Dim3 parse_dim3(const std::string& text, const std::string& what) {
  ptx::Dim3 d;
  std::int64_t v[3] = {1, 1, 1};
  std::stringstream ss(text);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i >= 3) throw InputError(what + ": expected X[,Y[,Z]], got '" + text + "'");
    v[i++] = parse_positive_int(part, what);
  }
  if (i == 0) throw InputError(what + ": expected X[,Y[,Z]], got '" + text + "'");
  d.x = v[0];
  d.y = v[1];
  d.z = v[2];
  return d;
}

Layer parse_layer_spec(const std::string& spec) {
  // One row built in memory: errors name --spec and the field, without a line number.
  CsvTable table;
  table.source = "--spec";
  const auto colon = spec.find(':');
  table.header = {"op"};
  table.rows = {{spec.substr(0, colon)}};
  table.lines = {0};
  if (colon != std::string::npos) {
    std::stringstream ss(spec.substr(colon + 1));
    std::string kv;
    while (std::getline(ss, kv, ',')) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw InputError("--spec: expected key=value, got '" + kv + "'");
      }
      if (eq + 1 == kv.size()) {  // "c_in=" took the default, as if the field were not given
        throw InputError("--spec: field '" + kv.substr(0, eq) + "': expected a value after '='");
      }
      // A layer CSV passes other columns through; a spec has no use for them, so a typo or a
      // repeated key is an error rather than a default silently kept.
      const std::string key = kv.substr(0, eq);
      const auto& fields = layer_row_fields();
      if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
        throw InputError("--spec: unknown field '" + key + "' (expected one of the layer CSV " +
                         "columns, docs/data-formats.md, or kernel, stride, padding, dilation)");
      }
      if (std::find(table.header.begin(), table.header.end(), key) != table.header.end()) {
        throw InputError("--spec: field '" + key + "' given twice");
      }
      table.header.push_back(key);
      table.rows[0].push_back(kv.substr(eq + 1));
    }
  }
  return layer_from_row(table, 0);
}

ptx::LaunchSpec launch_spec_for_options(const PtxAnalyzeOptions& o) {
  ptx::LaunchSpec spec;
  spec.grid = parse_dim3(o.grid, "--grid");
  spec.block = parse_dim3(o.block, "--block");
  spec.full = o.full;
  spec.max_warp_insts = o.max_warp_insts;
  spec.samples_per_class = o.samples;
  for (const auto& p : o.params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--param: expected INDEX=VALUE, got '" + p + "'");
    }
    const long idx = std::strtol(p.substr(0, eq).c_str(), nullptr, 10);
    if (p.substr(0, eq).find_first_not_of("0123456789") != std::string::npos || idx < 0 ||
        idx > 4096) {
      throw InputError("--param: expected a parameter index (0-based) before '=', got '" + p + "'");
    }
    spec.params[static_cast<int>(idx)] =
        parse_param_value(p.substr(eq + 1), "--param " + p.substr(0, eq));
  }
  if (!o.extrapolate.empty()) {
    const auto eq = o.extrapolate.find('=');
    const auto comma = o.extrapolate.find(',', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || comma == std::string::npos) {
      throw InputError("--extrapolate: expected INDEX=LO,HI, got '" + o.extrapolate + "'");
    }
    spec.extrapolate_param = static_cast<int>(
        parse_positive_int(o.extrapolate.substr(0, eq) == "0" ? "1" : o.extrapolate.substr(0, eq),
                           "--extrapolate index"));
    if (o.extrapolate.substr(0, eq) == "0") spec.extrapolate_param = 0;
    spec.extrapolate_lo = static_cast<std::uint64_t>(
        parse_positive_int(o.extrapolate.substr(eq + 1, comma - eq - 1), "--extrapolate LO"));
    spec.extrapolate_hi = static_cast<std::uint64_t>(
        parse_positive_int(o.extrapolate.substr(comma + 1), "--extrapolate HI"));
    if (spec.extrapolate_lo >= spec.extrapolate_hi) {
      throw InputError("--extrapolate: expected LO below HI, got '" + o.extrapolate + "'");
    }
  }
  if (!spec.full && spec.extrapolate_param && !spec.params.contains(*spec.extrapolate_param)) {
    throw InputError("--extrapolate: parameter " + std::to_string(*spec.extrapolate_param) +
                     " has no value");
  }
  return spec;
}

int run_ptx_analyze(const PtxAnalyzeOptions& o) {
  const std::string format = o.format;
  (void)output_format_from_string(format);
  check_output_not_input(o.output, {o.file});
  ptx::LaunchSpec spec = launch_spec_for_options(o);
  EmulationProgress progress(std::cerr);
  spec.progress = progress.callback();
  // The bundled kernels (models/ptx/...) are found from any directory, like --model files.
  PtxLaunchResult r;
  try {
    r = analyze_ptx_file(user_file_or_resource(o.file), o.kernel, spec, o.arch);
  } catch (const ptx::WarpBudgetExceeded& e) {
    throw InputError(budget_message(e, progress.seconds(), false, spec.full));
  }
  if (spec.extrapolate_param && !r.extrapolated) {
    // Asked for, not done: say so rather than leave "extrapolated": false to be noticed.
    const auto real = spec.params.find(*spec.extrapolate_param);
    r.warnings.push_back(
        spec.full ? std::string("--extrapolate: not used with --full")
                  : "--extrapolate: parameter " + std::to_string(*spec.extrapolate_param) + " is " +
                        (real != spec.params.end() ? std::to_string(real->second) : "?") +
                        ", not above HI (" + std::to_string(spec.extrapolate_hi) +
                        "): simulated at its real value");
  }
  write_output(o.output, render({r}, format));
  return cli::kExitOk;
}

int run_ptx_layer(const PtxLayerCommandOptions& o) {
  (void)output_format_from_string(o.format);
  if (o.spec.empty() == o.layers_csv.empty()) {
    throw InputError("ptx layer: give exactly one of --spec or --layers");
  }
  check_output_not_input(o.output, {o.layers_csv});
  std::vector<PtxLaunchResult> results;
  if (!o.spec.empty()) {
    results = analyze_layer_for_options(parse_layer_spec(o.spec), o.layer);
  } else {
    const LayerTable table = read_layers_csv(o.layers_csv);
    for (std::size_t row = 0; row < table.layers.size(); ++row) {
      // Which row of the file, then the error as the option that caused it would say it.
      const std::string where = table.table.where(row) + ": ";
      try {
        for (auto& r : analyze_layer_for_options(table.layers[row], o.layer)) {
          results.push_back(std::move(r));
        }
      } catch (const ParameterError& e) {
        throw InputError(where + cli::option_for_parameter(e.parameter()) + ": " + e.detail());
      } catch (const InputError& e) {
        throw InputError(where + e.what());
      }
    }
  }
  write_output(o.output, render(results, o.format));
  return cli::kExitOk;
}

}  // namespace cnnperf
