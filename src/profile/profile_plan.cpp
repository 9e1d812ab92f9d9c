// SPDX-License-Identifier: Apache-2.0
// What a profile run measures: sweeps expanded into layers, layers times layouts and algorithm
// requests, with duplicates folded and unrunnable layers pre-judged.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "cnnperf/common/io.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "cnnperf/profile/profile.hpp"

namespace cnnperf {
namespace {

constexpr std::size_t kMaxSweepLayers = 100000;

// Fields a sweep may set; shortcuts set both the _h and _w field.
const std::vector<std::string>& sweep_fields() {
  static const std::vector<std::string> fields{
      "batch",    "c_in",   "h_in",  "w_in",       "c_out",      "kernel_h", "kernel_w", "stride_h",
      "stride_w", "pad_h",  "pad_w", "dilation_h", "dilation_w", "groups",   "bias",     "dtype",
      "kernel",   "stride", "pad",   "padding",    "dilation",   "hw"};
  return fields;
}

long parse_sweep_int(const std::string& text, const std::string& where) {
  try {
    std::size_t used = 0;
    const long value = std::stol(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw InputError(where + ": expected an integer, got '" + text + "'");
}

// The Layer fields a sweep field sets (a shortcut sets two), to find two axes that overlap.
std::vector<std::string> swept_members(const std::string& field) {
  if (field == "kernel" || field == "stride" || field == "dilation") {
    return {field + "_h", field + "_w"};
  }
  if (field == "pad" || field == "padding") return {"pad_h", "pad_w"};
  if (field == "hw") return {"h_in", "w_in"};
  return {field};
}

void set_field(Layer& layer, const std::string& field, const std::string& value,
               const std::string& where) {
  if (field == "dtype") {
    layer.dtype = dtype_from_string(value);
    return;
  }
  const std::int64_t v = parse_sweep_int(value, where);
  // A value no layer can have is the user's typo, not a problem to report per job.
  const bool padding = field.rfind("pad", 0) == 0;
  if (field == "bias" ? (v != 0 && v != 1) : (padding ? v < 0 : v <= 0)) {
    throw InputError(where + ": " + field + " " + value + ": expected " +
                     (field == "bias" ? "0 or 1"
                      : padding       ? "a non-negative integer"
                                      : "a positive integer"));
  }
  if (v > kMaxLayerDim) {  // cuDNN's sizes are 32-bit: no layer has this either
    throw InputError(where + ": " + field + " " + value + ": expected at most " +
                     std::to_string(kMaxLayerDim) + " (cuDNN's 32-bit sizes)");
  }
  if (field == "bias") {
    layer.bias = v != 0;
    return;
  }
  for (const std::string& member : swept_members(field)) {
    for (const LayerIntField& f : kLayerIntFields) {
      if (member == f.name) layer.*(f.member) = v;
    }
  }
}

// Pre-judges a layer: cuDNN forward convolution only, and a well-formed problem.
Status precheck(const Layer& layer, const std::string& where) {
  if (layer.op != Op::kConv2d) {
    return {Outcome::kNotRun,
            "op '" + to_string(layer.op) + "' is not profiled (cuDNN forward convolution only)"};
  }
  if (layer.pass != Pass::kForward) {
    return {Outcome::kNotSupported,
            "pass '" + to_string(layer.pass) + "' is not profiled yet (forward only)"};
  }
  if (layer.pad_bottom() != layer.pad_h || layer.pad_right() != layer.pad_w) {
    return {Outcome::kNotSupported,
            "asymmetric padding (pad_h_end/pad_w_end): cuDNN pads both sides alike"};
  }
  try {
    layer.validate(where);
  } catch (const InputError& e) {
    return {Outcome::kInvalidProblem, e.what()};
  }
  return {};
}

}  // namespace

namespace {

SweepAxis parse_sweep_axis_or_throw(std::string_view spec) {
  const std::string where = "'" + std::string(spec) + "'";
  const std::size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    throw InputError(where + ": expected FIELD=VALUES, e.g. c_in=64:256:64 or kernel=1,3");
  }
  SweepAxis axis;
  axis.field = to_lower(trim(spec.substr(0, eq)));
  const auto& fields = sweep_fields();
  if (std::find(fields.begin(), fields.end(), axis.field) == fields.end()) {
    throw InputError(where + ": unknown field '" + axis.field +
                     "' (expected one of: " + join(fields, ", ") + ")");
  }
  for (const std::string& item : split(spec.substr(eq + 1), ',')) {
    if (item.empty()) throw InputError(where + ": empty value in the list");
    if (item.find(':') == std::string::npos || axis.field == "dtype") {
      axis.values.push_back(item);
      continue;
    }
    // start:end[:step], end inclusive (as the CUTLASS profiler's ranges).
    const auto parts = split(item, ':');
    if (parts.size() > 3) throw InputError(where + ": expected start:end:step, got '" + item + "'");
    const long start = parse_sweep_int(parts[0], where);
    const long end = parse_sweep_int(parts[1], where);
    const long step = parts.size() == 3 ? parse_sweep_int(parts[2], where) : 1;
    if (step <= 0) throw InputError(where + ": step must be positive, got " + parts[2]);
    if (end < start) {
      throw InputError(where + ": range end " + parts[1] + " is below its start " + parts[0]);
    }
    if ((end - start) / step + 1 > static_cast<long>(kMaxSweepLayers)) {
      throw InputError(where + ": range '" + item + "' has more than " +
                       std::to_string(kMaxSweepLayers) + " values");
    }
    for (long v = start; v <= end; v += step) axis.values.push_back(std::to_string(v));
  }
  // Validate every value once here so errors name the spec, not a layer.
  Layer probe;
  for (const auto& value : axis.values) set_field(probe, axis.field, value, where);
  return axis;
}

}  // namespace

SweepAxis parse_sweep_axis(std::string_view spec) {
  try {
    return parse_sweep_axis_or_throw(spec);
  } catch (const ParameterError&) {
    throw;
  } catch (const InputError& e) {
    throw ParameterError("sweep", e.what());
  }
}

std::vector<Layer> expand_sweep(const std::vector<std::string>& specs, std::int64_t batch) {
  std::vector<SweepAxis> axes;
  std::size_t total = 1;
  std::map<std::string, std::string> swept;  // Layer field -> the sweep axis that sets it
  for (const auto& spec : specs) {
    axes.push_back(parse_sweep_axis(spec));
    // Two axes on one field would each overwrite the other: the last one alone was swept.
    for (const auto& member : swept_members(axes.back().field)) {
      const auto [it, fresh] = swept.emplace(member, spec);
      if (!fresh) {
        throw ParameterError("sweep", "'" + spec + "': " + member + " is already swept by '" +
                                          it->second + "'; give all its values in one axis (" +
                                          axes.back().field + "=A,B,...)");
      }
    }
    total *= axes.back().values.size();
    if (total > kMaxSweepLayers) {
      throw ParameterError("sweep", "the product of all axes exceeds " +
                                        std::to_string(kMaxSweepLayers) + " layers");
    }
  }
  // `batch` is the sweep's default: beside a swept batch it would be silently overwritten.
  if (const auto it = swept.find("batch"); batch != 1 && it != swept.end()) {
    throw ParameterError("batch",
                         "the sweep sets batch itself ('" + it->second + "'); give one of the two");
  }
  Layer base;
  base.op = Op::kConv2d;
  base.batch = batch;
  std::vector<Layer> layers{base};
  for (const auto& axis : axes) {
    std::vector<Layer> next;
    next.reserve(layers.size() * axis.values.size());
    for (const Layer& layer : layers) {
      for (const auto& value : axis.values) {
        Layer l = layer;
        set_field(l, axis.field, value, "sweep " + axis.field);
        next.push_back(l);
      }
    }
    layers = std::move(next);
  }
  return layers;
}

std::vector<Layout> parse_layouts(std::string_view text) {
  std::vector<Layout> layouts;
  for (const auto& item : split(text, ',')) {
    const Layout layout = layout_from_option(item, "layout");
    if (std::find(layouts.begin(), layouts.end(), layout) == layouts.end()) {
      layouts.push_back(layout);
    }
  }
  return layouts;
}

std::vector<ProfileJob> plan_jobs(const std::vector<SourcedLayer>& layers,
                                  const std::vector<Layout>& layouts, const AlgoRequest& request,
                                  bool keep_duplicates) {
  std::vector<std::string> algo_names;
  switch (request.kind) {
    case AlgoRequest::Kind::kHeuristic: algo_names = {"heuristic"}; break;
    case AlgoRequest::Kind::kAll:
      for (ConvAlgo a : all_conv_algos()) algo_names.push_back(to_string(a));
      break;
    case AlgoRequest::Kind::kNamed:
      for (ConvAlgo a : request.named) algo_names.push_back(to_string(a));
      break;
  }
  std::vector<ProfileJob> jobs;
  std::unordered_map<std::string, std::size_t> index_of_key;
  for (const SourcedLayer& sourced : layers) {
    const Status status = precheck(sourced.layer, sourced.source);
    for (Layout layout : layouts) {
      for (const auto& algo : algo_names) {
        ProfileJob job;
        job.layer = sourced.layer;
        job.layer.layout = layout;
        job.algo_request = algo;
        job.source = sourced.source;
        job.precheck = status;
        const std::string key = job.key();
        if (!keep_duplicates) {
          auto it = index_of_key.find(key);
          if (it != index_of_key.end()) {
            ++jobs[it->second].duplicates;
            continue;
          }
          index_of_key.emplace(key, jobs.size());
        }
        job.id = jobs.size();
        jobs.push_back(std::move(job));
      }
    }
  }
  return jobs;
}

}  // namespace cnnperf
