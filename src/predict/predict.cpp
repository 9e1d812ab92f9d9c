// SPDX-License-Identifier: Apache-2.0
// Analytical LatencyModel, end-to-end assembly, and the printers of NetworkPrediction.
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/common/json_io.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/json_get.hpp"
#include "cnnperf/model/zoo.hpp"

namespace cnnperf {

namespace {

nlohmann::json data_parallel_json(const DataParallelTerms& d) {
  return {{"fixed_ms", d.fixed_ms},
          {"ms_per_weight_mb", d.ms_per_weight_mb},
          {"training_ms_per_weight_mb", d.training_ms_per_weight_mb},
          {"host_ms_per_op", d.host_ms_per_op},
          {"training_host_ms_per_op", d.training_host_ms_per_op},
          {"rows", d.rows},
          {"max_num_gpus", d.max_num_gpus}};
}

}  // namespace

nlohmann::json to_json(const EagerOverhead& o) {
  nlohmann::json out = {{"host_ms_per_op", o.host_ms_per_op},
                        {"gpu_gap_ms_per_kernel", o.gpu_gap_ms_per_kernel},
                        {"fixed_ms", o.fixed_ms},
                        {"h2d_gbs", o.h2d_gbs},
                        {"training_host_factor", o.training_host_factor},
                        {"heavy_op_factor", o.heavy_op_factor},
                        {"per_op_overlap", o.per_op_overlap},
                        {"kernel_time_scale", o.kernel_time_scale},
                        {"unseen_gpu_terms", to_string(o.unseen_gpu_terms)},
                        {"step_scale", o.step_scale},
                        {"source", o.source}};
  if (o.gpu_gap_cycles_per_kernel != 0) {
    out["gpu_gap_cycles_per_kernel"] = o.gpu_gap_cycles_per_kernel;
  }
  if (!o.step_scale_family.empty()) out["step_scale_family"] = o.step_scale_family;
  if (!o.terms_architecture.empty()) out["terms_architecture"] = o.terms_architecture;
  if (!o.kernel_time_scale_board.empty()) {
    out["kernel_time_scale_board"] = o.kernel_time_scale_board;
  }
  if (!o.per_gpu.empty()) {
    nlohmann::json per_gpu = nlohmann::json::object();
    for (const auto& [gpu, c] : o.per_gpu) {
      per_gpu[gpu] = {{"host_ms_per_op", c.host_ms_per_op},
                      {"fixed_ms", c.fixed_ms},
                      {"training_host_factor", c.training_host_factor},
                      {"kernel_time_scale", c.kernel_time_scale},
                      {"rows", c.rows}};
      if (!c.architecture.empty()) per_gpu[gpu]["architecture"] = c.architecture;
    }
    out["per_gpu"] = per_gpu;
  }
  if (!o.per_network.empty()) {
    nlohmann::json per_network = nlohmann::json::object();
    for (const auto& [key, n] : o.per_network) {
      per_network[key] = {{"step_scale", n.step_scale}, {"rows", n.rows}};
    }
    out["per_network"] = per_network;
  }
  if (!o.per_gpu_network.empty()) {
    nlohmann::json per_gpu_network = nlohmann::json::object();
    for (const auto& [key, n] : o.per_gpu_network) {
      per_gpu_network[key] = {{"step_scale", n.step_scale}, {"rows", n.rows}};
    }
    out["per_gpu_network"] = per_gpu_network;
  }
  if (o.data_parallel.rows > 0) out["data_parallel"] = data_parallel_json(o.data_parallel);
  if (!o.data_parallel_per_gpu.empty()) {
    nlohmann::json per_gpu = nlohmann::json::object();
    for (const auto& [gpu, d] : o.data_parallel_per_gpu) per_gpu[gpu] = data_parallel_json(d);
    out["data_parallel_per_gpu"] = per_gpu;
  }
  return out;
}

namespace {

// A non-negative finite number at object[key]; `where` names the object in the error.
double json_number(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) {
    throw InputError(where + "." + key + ": missing or not a number");
  }
  const double v = object[key].get<double>();
  if (!(v >= 0) || !std::isfinite(v)) {
    throw InputError(where + "." + key + ": expected a non-negative number");
  }
  return v;
}

DataParallelTerms data_parallel_from_json(const nlohmann::json& j, const std::string& where) {
  DataParallelTerms d;
  d.fixed_ms = json_number(j, "fixed_ms", where);
  d.ms_per_weight_mb = json_number(j, "ms_per_weight_mb", where);
  d.training_ms_per_weight_mb = json_number(j, "training_ms_per_weight_mb", where);
  d.host_ms_per_op = json_number(j, "host_ms_per_op", where);
  d.training_host_ms_per_op = json_number(j, "training_host_ms_per_op", where);
  d.rows = static_cast<int>(json_number(j, "rows", where));
  // Optional: a file without it has the range unrecorded (0), and no warning is given.
  if (j.contains("max_num_gpus")) {
    d.max_num_gpus = static_cast<int>(json_number(j, "max_num_gpus", where));
  }
  return d;
}

}  // namespace

EagerOverhead eager_overhead_from_json(const nlohmann::json& j, const std::string& where) {
  auto number = [&](const char* key) { return json_number(j, key, where); };
  EagerOverhead o;
  o.host_ms_per_op = number("host_ms_per_op");
  o.gpu_gap_ms_per_kernel = number("gpu_gap_ms_per_kernel");
  // Optional: only a fit that frees the gap in cycles (tensorrt's) writes it.
  if (j.contains("gpu_gap_cycles_per_kernel")) {
    o.gpu_gap_cycles_per_kernel = number("gpu_gap_cycles_per_kernel");
    if (o.gpu_gap_cycles_per_kernel < 0) {
      throw InputError(where + ".gpu_gap_cycles_per_kernel: expected a number >= 0");
    }
  }
  o.fixed_ms = number("fixed_ms");
  o.h2d_gbs = number("h2d_gbs");
  o.training_host_factor = number("training_host_factor");
  // Optional: a file without the per-GPU calibration has neither key.
  if (j.contains("kernel_time_scale")) o.kernel_time_scale = number("kernel_time_scale");
  // Optional: a file without the per-op-kind host time counts every op the same.
  if (j.contains("heavy_op_factor")) o.heavy_op_factor = number("heavy_op_factor");
  // Optional: a file without the per-op overlap takes the max of the sums alone.
  if (j.contains("per_op_overlap")) o.per_op_overlap = number("per_op_overlap");
  // Optional: a file without unseen_gpu_terms gives a GPU without rows the shared terms.
  if (j.contains("unseen_gpu_terms")) {
    if (!j["unseen_gpu_terms"].is_string()) {
      throw InputError(where + ".unseen_gpu_terms: expected a string");
    }
    try {
      o.unseen_gpu_terms = unseen_gpu_terms_from_string(j["unseen_gpu_terms"].get<std::string>());
    } catch (const InputError& e) {
      throw InputError(where + "." + e.what());
    }
  }
  if (j.contains("per_gpu")) {
    const auto& per_gpu = j["per_gpu"];
    if (!per_gpu.is_object()) throw InputError(where + ".per_gpu: expected an object");
    for (const auto& [gpu, c] : per_gpu.items()) {
      const std::string at = where + ".per_gpu." + gpu;
      GpuEagerCalibration g;
      g.host_ms_per_op = json_number(c, "host_ms_per_op", at);
      g.fixed_ms = json_number(c, "fixed_ms", at);
      g.training_host_factor = json_number(c, "training_host_factor", at);
      g.kernel_time_scale = json_number(c, "kernel_time_scale", at);
      g.rows = static_cast<int>(json_number(c, "rows", at));
      if (g.host_ms_per_op <= 0 || g.kernel_time_scale <= 0) {
        throw InputError(at + ": expected positive host_ms_per_op and kernel_time_scale");
      }
      if (c.contains("architecture")) {
        if (!c["architecture"].is_string()) {
          throw InputError(at + ".architecture: expected a string");
        }
        g.architecture = c["architecture"].get<std::string>();
      } else if (const auto spec = GpuDatabase::bundled().find(gpu)) {
        g.architecture = spec->architecture;  // a file that does not record it
      }
      o.per_gpu.emplace(gpu, g);
    }
  }
  // Optional: a file without the per-network scales has neither key.
  if (j.contains("step_scale")) o.step_scale = number("step_scale");
  if (j.contains("step_scale_family")) {
    if (!j["step_scale_family"].is_string()) {
      throw InputError(where + ".step_scale_family: expected a string");
    }
    o.step_scale_family = j["step_scale_family"].get<std::string>();
  }
  for (const auto& [key, field] :
       {std::pair{"terms_architecture", &o.terms_architecture},
        std::pair{"kernel_time_scale_board", &o.kernel_time_scale_board}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string()) throw InputError(where + "." + key + ": expected a string");
    *field = j[key].get<std::string>();
  }
  // per_gpu_network (HELP's rows) is optional like per_network.
  for (const auto& [name, map] : {std::pair{"per_network", &o.per_network},
                                  std::pair{"per_gpu_network", &o.per_gpu_network}}) {
    if (!j.contains(name)) continue;
    const auto& scales = j[name];
    if (!scales.is_object()) throw InputError(where + "." + name + ": expected an object");
    for (const auto& [key, n] : scales.items()) {
      const std::string at = where + "." + name + "." + key;
      NetworkStepScale scale;
      scale.step_scale = json_number(n, "step_scale", at);
      scale.rows = static_cast<int>(json_number(n, "rows", at));
      if (scale.step_scale <= 0) throw InputError(at + ".step_scale: expected a positive number");
      map->emplace(key, scale);
    }
  }
  // Optional: a file without the data-parallel terms has neither key.
  if (j.contains("data_parallel")) {
    o.data_parallel = data_parallel_from_json(j["data_parallel"], where + ".data_parallel");
  }
  if (j.contains("data_parallel_per_gpu")) {
    const auto& per_gpu = j["data_parallel_per_gpu"];
    if (!per_gpu.is_object()) {
      throw InputError(where + ".data_parallel_per_gpu: expected an object");
    }
    for (const auto& [gpu, d] : per_gpu.items()) {
      o.data_parallel_per_gpu.emplace(
          gpu, data_parallel_from_json(d, where + ".data_parallel_per_gpu." + gpu));
    }
  }
  if (!j.contains("source") || !j["source"].is_string()) {
    throw InputError(where + ".source: missing or not a string");
  }
  o.source = j["source"].get<std::string>();
  return o;
}

void assign_power(std::vector<LayerPrediction>& predictions, const GpuSpec& gpu,
                  const PowerParams& params) {
  for (auto& p : predictions) {
    p.avg_power_w =
        layer_power_w(p.compute_utilization, p.memory_utilization, p.kernels, gpu, params);
    p.energy_mj = p.avg_power_w * p.kernel_ms;  // W x ms = mJ
  }
}

std::vector<LayerPrediction> AnalyticalModel::predict_layers(const std::vector<Layer>& layers,
                                                             const GpuSpec& gpu) const {
  std::vector<LayerPrediction> out;
  out.reserve(layers.size());
  for (const auto& layer : layers) {
    const LayerEstimate e = estimate_layer(layer, gpu, params_);
    LayerPrediction p;
    p.kernel_ms = e.latency_ms;
    p.roofline_ms = e.roofline_ms;
    p.compute_utilization = e.compute_utilization;
    p.memory_utilization = e.memory_utilization;
    p.kernels = e.kernels;
    p.bound = e.bound;
    p.algorithm = e.algorithm;
    p.in_distribution = true;  // first-principles: no training range to leave
    out.push_back(p);
  }
  return out;
}

std::string to_string(Mode mode) {
  return mode == Mode::kTraining ? "training" : "inference";
}

Mode mode_from_string(std::string_view text) {
  const std::string lower = to_lower(text);
  if (lower == "inference" || lower == "forward") return Mode::kInference;
  if (lower == "training" || lower == "train") return Mode::kTraining;
  throw ParameterError("mode",
                       "unknown mode '" + std::string(text) + "' (expected inference or training)");
}

double weight_broadcast_factor(const GpuSpec& gpu) {
  return gpu.nvlink_gbs > 0 ? std::min(1.0, kPcieGen3x16Gbs / gpu.nvlink_gbs) : 1.0;
}

namespace {

// A GPU without terms of its own under UnseenGpuTerms::kArchitecture: the geometric mean of
// the host time, fixed cost and kernel-time scale of its architecture's GPUs with terms (the
// mean of their training factors), written into `out`; `out` keeps the shared terms when
// there is no such GPU.
void apply_architecture_terms(const EagerOverhead& overhead, const GpuSpec& gpu,
                              EagerOverhead& out) {
  double log_host = 0;
  double log_fixed = 0;
  double log_scale = 0;
  double training = 0;
  std::string names;
  int n = 0;
  for (const auto& [name, c] : overhead.per_gpu) {
    if (c.architecture != gpu.architecture) continue;
    log_host += std::log(c.host_ms_per_op);
    log_fixed += std::log(std::max(c.fixed_ms, 1e-12));  // a fit may end at ~0 ms
    log_scale += std::log(c.kernel_time_scale);
    training += c.training_host_factor;
    names += (n == 0 ? "" : ", ") + name;
    ++n;
  }
  if (n == 0) return;
  out.host_ms_per_op = std::exp(log_host / n);
  out.fixed_ms = std::exp(log_fixed / n);
  out.kernel_time_scale = std::exp(log_scale / n);
  out.training_host_factor = training / n;
  out.terms_architecture = gpu.architecture;
  out.source += "; host_ms_per_op, fixed_ms, training_host_factor and kernel_time_scale of " +
                gpu.name + ": the mean of its architecture's (" + gpu.architecture + ") " +
                std::to_string(n) + " GPUs with end-to-end rows (" + names + ")";
}

}  // namespace

std::string to_string(UnseenGpuTerms terms) {
  return terms == UnseenGpuTerms::kArchitecture ? "architecture" : "shared";
}

UnseenGpuTerms unseen_gpu_terms_from_string(std::string_view text) {
  if (text == "shared") return UnseenGpuTerms::kShared;
  if (text == "architecture") return UnseenGpuTerms::kArchitecture;
  throw InputError("unseen_gpu_terms: expected \"shared\" or \"architecture\", got \"" +
                   std::string(text) + "\"");
}

double gpu_gap_ms_per_kernel(const EagerOverhead& overhead, const GpuSpec& gpu) {
  if (overhead.gpu_gap_cycles_per_kernel == 0) return overhead.gpu_gap_ms_per_kernel;
  return overhead.gpu_gap_ms_per_kernel +
         overhead.gpu_gap_cycles_per_kernel / gpu.boost_cycles_per_ms();
}

EagerOverhead overhead_for_gpu(const EagerOverhead& overhead, const GpuSpec& gpu) {
  EagerOverhead out = overhead;
  if (overhead.gpu_gap_cycles_per_kernel != 0) {
    out.gpu_gap_ms_per_kernel = gpu_gap_ms_per_kernel(overhead, gpu);
    out.gpu_gap_cycles_per_kernel = 0;
    out.source += "; gap between kernels on " + gpu.name + ": " +
                  format_number(overhead.gpu_gap_cycles_per_kernel, 4) + " SM cycles at " +
                  format_number(gpu.boost_clock_mhz, 4) + " MHz";
  }
  out.per_gpu.clear();
  out.data_parallel_per_gpu.clear();
  if (const auto dp = overhead.data_parallel_per_gpu.find(gpu.name);
      dp != overhead.data_parallel_per_gpu.end()) {
    out.data_parallel = dp->second;  // fitted on that machine's own link
  } else {
    // The shared terms describe PCIe; NVLink broadcasts the weights that much faster.
    const double f = weight_broadcast_factor(gpu);
    out.data_parallel.ms_per_weight_mb *= f;
    out.data_parallel.training_ms_per_weight_mb *= f;
  }
  const auto it = overhead.per_gpu.find(gpu.name);
  if (it == overhead.per_gpu.end()) {
    if (overhead.unseen_gpu_terms == UnseenGpuTerms::kArchitecture && !gpu.architecture.empty()) {
      apply_architecture_terms(overhead, gpu, out);
    }
    // Another board of a chip with terms of its own runs the same kernels: its kernel-time
    // scale applies; the host terms stay the machine-independent ones.
    std::vector<std::string> calibrated;
    for (const auto& [name, c] : overhead.per_gpu) calibrated.push_back(name);
    if (const GpuSpec* board = GpuDatabase::bundled().board_of_same_chip(gpu, calibrated)) {
      const auto& c = overhead.per_gpu.at(board->name);
      out.kernel_time_scale = c.kernel_time_scale;
      out.kernel_time_scale_board = board->name;
      out.source += "; kernel_time_scale of " + gpu.name + ": that of " + board->name +
                    ", another board of its chip, fitted on its " + std::to_string(c.rows) +
                    " end-to-end rows";
    }
    return out;
  }
  out.host_ms_per_op = it->second.host_ms_per_op;
  out.fixed_ms = it->second.fixed_ms;
  out.training_host_factor = it->second.training_host_factor;
  out.kernel_time_scale = it->second.kernel_time_scale;
  out.source += "; host_ms_per_op, fixed_ms, training_host_factor and kernel_time_scale of " +
                gpu.name + " fitted on its " + std::to_string(it->second.rows) + " end-to-end rows";
  return out;
}

std::string network_step_key(std::string_view zoo_name, DType dtype, Mode mode) {
  return std::string(zoo_name) + " " + to_string(dtype) + " " + to_string(mode);
}

FamilyStepScale family_step_scale(const EagerOverhead& overhead, const std::string& network_key) {
  FamilyStepScale out;
  const auto space = network_key.find(' ');
  if (space == std::string::npos) return out;
  const ZooEntry* entry = find_zoo_entry(std::string_view(network_key).substr(0, space));
  if (entry == nullptr) return out;
  const std::string_view setting = std::string_view(network_key).substr(space);  // precision, mode
  double log_sum = 0;
  for (const auto& [key, scale] : overhead.per_network) {
    const auto at = key.find(' ');
    if (at == std::string::npos || std::string_view(key).substr(at) != setting) continue;
    const ZooEntry* sibling = find_zoo_entry(std::string_view(key).substr(0, at));
    if (sibling == nullptr || sibling->family != entry->family) continue;
    log_sum += std::log(scale.step_scale);
    ++out.networks;
  }
  if (out.networks > 0) {
    out.family = entry->family;
    out.step_scale = std::exp(log_sum / out.networks);
  }
  return out;
}

EagerOverhead overhead_for(const EagerOverhead& overhead, const GpuSpec& gpu,
                           const std::string& network_key) {
  EagerOverhead out = overhead_for_gpu(overhead, gpu);
  out.per_network.clear();
  out.per_gpu_network.clear();
  if (network_key.empty()) return out;
  if (const auto it = overhead.per_network.find(network_key); it != overhead.per_network.end()) {
    out.step_scale = it->second.step_scale;
    out.source += "; step time of " + network_key + " x " + format_number(out.step_scale, 3) +
                  ", fitted on its " + std::to_string(it->second.rows) + " end-to-end rows";
  } else if (const FamilyStepScale f = family_step_scale(overhead, network_key); f.networks > 0) {
    out.step_scale = f.step_scale;
    out.step_scale_family = f.family;
    out.source += "; step time of " + network_key + " x " + format_number(f.step_scale, 3) +
                  ", the geometric mean of its family's (" + f.family + ") " +
                  std::to_string(f.networks) + " networks with end-to-end rows at that setting";
  }
  if (const auto it = overhead.per_gpu_network.find(gpu.name + " " + network_key);
      it != overhead.per_gpu_network.end()) {
    out.step_scale *= it->second.step_scale;
    out.source += "; on " + gpu.name + "'s machine x " + format_number(it->second.step_scale, 3) +
                  " more, fitted on its " + std::to_string(it->second.rows) + " rows";
  }
  return out;
}

double host_issue_ms(const EagerTerms& t, const EagerOverhead& o) {
  const double op_units = t.ops + (o.heavy_op_factor - 1.0) * t.heavy_ops;
  return op_units * o.host_ms_per_op * (t.training ? o.training_host_factor : 1.0);
}

double eager_latency_ms(const EagerTerms& t, const EagerOverhead& o) {
  return eager_step_parts(t, o).latency_ms();
}

EagerStepParts eager_step_parts(const EagerTerms& t, const EagerOverhead& o) {
  const double host_ms = host_issue_ms(t, o);
  const double kernel_scale = kernel_time_factor(t, o);
  const double gpu_ms = t.kernel_ms * kernel_scale + t.kernels * o.gpu_gap_ms_per_kernel;
  double core_ms = std::max(gpu_ms, host_ms);
  if (o.per_op_overlap > 0 && !t.op_costs.empty()) {
    // The calibration's hot loop: HELP's 222k rows times ~50 op kinds per loss evaluation.
    const double light_ms = o.host_ms_per_op * (t.training ? o.training_host_factor : 1.0);
    const double heavy_ms = light_ms * o.heavy_op_factor;
    double per_op_ms = 0;
    for (const EagerOpCost& c : t.op_costs) {
      const double op_gpu_ms = c.kernel_ms * kernel_scale + c.kernels * o.gpu_gap_ms_per_kernel;
      per_op_ms += c.count * std::max(c.heavy ? heavy_ms : light_ms, op_gpu_ms);
    }
    core_ms = o.per_op_overlap * per_op_ms + (1.0 - o.per_op_overlap) * core_ms;
  }
  // The global batch's input: nn.DataParallel scatters num_gpus x batch images.
  const double copy_ms = o.h2d_gbs > 0 ? t.num_gpus * t.input_bytes / (o.h2d_gbs * 1e6) : 0;
  double data_parallel_ms = 0;
  if (t.num_gpus > 1) {
    const DataParallelTerms& d = o.data_parallel;
    const double weight_mb = t.weight_bytes / 1e6;
    const double per_gpu_ms =
        d.fixed_ms + weight_mb * d.ms_per_weight_mb + t.ops * d.host_ms_per_op +
        (t.training ? weight_mb * d.training_ms_per_weight_mb + t.ops * d.training_host_ms_per_op
                    : 0.0);
    data_parallel_ms = (t.num_gpus - 1) * per_gpu_ms;
  }
  return {o.fixed_ms, copy_ms, core_ms, o.step_scale, data_parallel_ms, host_ms, gpu_ms};
}

namespace {

// Totals of one step from its layers' kernel time and energy: the eager wall time, and idle
// power for the part of it outside kernels.
struct StepTotals {
  double kernel_ms = 0;
  double latency_ms = 0;
  double energy_mj = 0;
};

// `predictions`: r's layers' at the clock in question (a power cap stretches them).
StepTotals step_totals(const std::vector<LayerPrediction>& predictions,
                       const NetworkPrediction& r) {
  double kernel_ms = 0;
  double layer_energy_mj = 0;
  for (const auto& p : predictions) {
    kernel_ms += p.kernel_ms;
    layer_energy_mj += p.energy_mj;
  }
  StepTotals t;
  t.kernel_ms = kernel_ms;
  if (r.runtime == Runtime::kCudnn) {
    // A C/C++ caller issues ahead of the GPU: the step is its kernels and the gaps between
    // them, on every GPU alike, with idle power in the gaps.
    double gaps_ms = 0;
    for (const auto& p : predictions) gaps_ms += p.overhead_ms;
    const double l2 = r.eager.l2_resident_scale;
    t.latency_ms = kernel_ms * l2 + gaps_ms;
    t.energy_mj = r.eager.num_gpus * (layer_energy_mj * l2 + gaps_ms * r.gpu.idle_power_w);
    return t;
  }
  EagerTerms terms = r.eager;
  terms.kernel_ms = kernel_ms;
  terms.op_costs = eager_op_costs(r.layers, predictions);
  t.latency_ms = eager_latency_ms(terms, r.overhead);
  // A per-GPU kernel-time scale (and a network's step scale, and L2 residency) stretches the
  // kernels at their predicted power.
  const double scale = kernel_time_factor(r.eager, r.overhead) * r.overhead.step_scale;
  // With nn.DataParallel every GPU runs the same layers on its share of the batch.
  t.energy_mj =
      r.eager.num_gpus * (layer_energy_mj * scale +
                          std::max(0.0, t.latency_ms - kernel_ms * scale) * r.gpu.idle_power_w);
  return t;
}

void set_totals(NetworkPrediction& r) {
  // Kernel time or host terms may have changed (a power cap, the user's host time per op).
  apply_runtime_overhead(r.layers, r.predictions, r.runtime, r.overhead);
  const StepTotals t = step_totals(r.predictions, r);
  r.kernel_ms = t.kernel_ms;
  r.latency_ms = t.latency_ms;
  r.energy_j = t.energy_mj / 1e3;
  r.avg_power_w = t.latency_ms > 0 ? t.energy_mj / t.latency_ms : 0;
}

}  // namespace

double step_kernel_scale_ms(double kernel_ms, Runtime runtime, const EagerOverhead& overhead,
                            double l2_resident_scale) {
  if (runtime == Runtime::kCudnn) return kernel_ms * (l2_resident_scale - 1.0);
  return kernel_ms * (l2_resident_scale * overhead.kernel_time_scale * overhead.step_scale - 1.0);
}

double step_overhead_ms(double latency_ms, double kernel_ms, double kernel_scale_ms) {
  const double overhead_ms = latency_ms - kernel_ms - kernel_scale_ms;
  // Larger negatives are kept: they would be a step below its own scaled kernels.
  const double residue_ms = 1e-9 * std::max({std::abs(latency_ms), std::abs(kernel_ms), 1e-3});
  return overhead_ms < 0 && overhead_ms > -residue_ms ? 0.0 : overhead_ms;
}

void set_power(NetworkPrediction& prediction, const PowerModel& power) {
  assign_power(prediction.predictions, prediction.gpu, power.activity_for(prediction.gpu));
  prediction.power_model = power.source;
  set_totals(prediction);
}

void set_host_ms_per_op(NetworkPrediction& prediction, double ms, const PowerModel& power) {
  // Above the bound a step's sums overflow to inf and NaN, and a budget gate cannot compare.
  if (!(ms > 0) || !(ms <= kMaxHostMsPerOp)) {
    throw ParameterError("host_ms_per_op", "expected a positive number of ms up to " +
                                               format_number(kMaxHostMsPerOp) + ", got " +
                                               format_number(ms));
  }
  // The host's issue rate is a property of the user's CPU and stack, not of the GPU
  // (docs/accuracy.md: 30-83 us per op across the measured machines).
  // The value is a mean over ops (a step's host time / its ops), so every op costs it.
  prediction.overhead.host_ms_per_op = ms;
  prediction.overhead.heavy_op_factor = 1.0;
  prediction.overhead.source += "; host_ms_per_op set by the caller";
  set_power(prediction, power);  // recomputes the totals with the new overhead
}

void set_input_on_gpu(NetworkPrediction& prediction, const PowerModel& power) {
  prediction.eager.input_bytes = 0;
  set_power(prediction, power);  // recomputes the totals without the input copy
}

void set_num_gpus(NetworkPrediction& prediction, int num_gpus, const PowerModel& power) {
  if (num_gpus < 1 || num_gpus > kMaxDataParallelGpus) {
    throw ParameterError("num_gpus", "expected 1 to " + std::to_string(kMaxDataParallelGpus) +
                                         ", got " + std::to_string(num_gpus));
  }
  if (num_gpus > 1 && prediction.overhead.data_parallel.rows == 0) {
    throw ParameterError("num_gpus",
                         "the model's eager overhead (" + prediction.overhead.source +
                             ") has no data-parallel calibration (expected one fitted on "
                             "end-to-end rows with num_gpus > 1)");
  }
  prediction.eager.num_gpus = num_gpus;
  const int fitted = prediction.overhead.data_parallel.max_num_gpus;
  if (fitted > 1 && num_gpus > fitted) {
    // DESIGN: out-of-distribution inputs are flagged. The terms are linear in the extra GPUs.
    prediction.warnings.push_back("num_gpus " + std::to_string(num_gpus) +
                                  ": the data-parallel terms were fitted on rows of at most " +
                                  std::to_string(fitted) +
                                  " GPUs; more is their linear extrapolation");
  }
  set_power(prediction, power);  // recomputes the totals with the data-parallel terms
}

EagerOverhead AnalyticalModel::eager_overhead_for(std::string_view network_source) const {
  return is_nas_source(network_source) && nas_overhead_ ? *nas_overhead_ : overhead_;
}

std::optional<EagerOverhead> AnalyticalModel::runtime_overhead(Runtime runtime) const {
  const auto it = runtime_overheads_.find(runtime);
  if (it != runtime_overheads_.end()) return it->second;
  if (runtime_overhead_source_) return runtime_overhead_source_(runtime);
  return std::nullopt;
}

void AnalyticalModel::set_runtime_overhead(Runtime runtime, EagerOverhead overhead) {
  runtime_overheads_[runtime] = std::move(overhead);
}

void AnalyticalModel::set_runtime_overhead_source(RuntimeOverheadSource source) {
  runtime_overhead_source_ = std::move(source);
}

// Ops whose eager host path is longer than an elementwise kernel's: cuDNN/cuBLAS calls with
// descriptors, batch norm's argument checks, and ShuffleNet's view-permute-contiguous-view.
bool is_heavy_host_op(Op op) {
  switch (op) {
    case Op::kConv2d:
    case Op::kLinear:
    case Op::kBatchNorm:
    case Op::kLayerNorm:
    case Op::kChannelShuffle: return true;
    default: return false;
  }
}

std::vector<EagerOpCost> eager_op_costs(const std::vector<Layer>& layers,
                                        const std::vector<LayerPrediction>& predictions) {
  std::vector<EagerOpCost> out;
  for (std::size_t i = 0; i < predictions.size() && i < layers.size(); ++i) {
    if (predictions[i].kernels == 0) continue;
    out.push_back(
        {predictions[i].kernel_ms, predictions[i].kernels, is_heavy_host_op(layers[i].op), 1});
  }
  // Merged: a NAS-Bench-201 step's ~250 ops are ~40 kinds, which keeps the calibration's loss
  // over HELP's rows fast.
  const auto key = [](const EagerOpCost& c) {
    return std::make_tuple(c.heavy, c.kernels, c.kernel_ms);
  };
  std::sort(out.begin(), out.end(),
            [&](const EagerOpCost& a, const EagerOpCost& b) { return key(a) < key(b); });
  std::vector<EagerOpCost> merged;
  for (const auto& c : out) {
    if (!merged.empty() && key(merged.back()) == key(c)) {
      ++merged.back().count;
    } else {
      merged.push_back(c);
    }
  }
  return merged;
}

void apply_runtime_overhead(const std::vector<Layer>& layers,
                            std::vector<LayerPrediction>& predictions, Runtime runtime,
                            const EagerOverhead& overhead) {
  for (std::size_t i = 0; i < predictions.size() && i < layers.size(); ++i) {
    LayerPrediction& p = predictions[i];
    if (p.kernels == 0) {
      p.overhead_ms = 0;
      continue;
    }
    const double gaps_ms = overhead.gpu_gap_ms_per_kernel * p.kernels;
    if (runtime == Runtime::kCudnn) {
      p.overhead_ms = gaps_ms;
      continue;
    }
    double host_ms =
        overhead.host_ms_per_op * (is_heavy_host_op(layers[i].op) ? overhead.heavy_op_factor : 1.0);
    if (layers[i].pass == Pass::kTraining) host_ms *= overhead.training_host_factor;
    p.overhead_ms = std::max(p.kernel_ms + gaps_ms, host_ms) - p.kernel_ms;
  }
}

namespace {

// Ops a generated pointwise kernel or a convolution's epilogue can absorb: elementwise ops and
// inference batch norm (a per-channel scale and shift).
bool fusible_op(Op op) {
  return op == Op::kBatchNorm || op_class(op) == OpClass::kPointwise;
}

std::string layer_label(const std::vector<Layer>& layers, std::size_t i) {
  return layers[i].name.empty() ? "layer " + std::to_string(i) : layers[i].name;
}

void fuse_into(const std::vector<Layer>& layers, std::vector<LayerPrediction>& predictions,
               std::size_t from, std::size_t into) {
  LayerPrediction& p = predictions[from];
  p.kernel_ms = 0;
  p.roofline_ms = 0;
  p.energy_mj = 0;
  p.overhead_ms = 0;
  p.kernels = 0;
  p.compute_utilization = 0;
  p.memory_utilization = 0;
  p.bound = "fused";
  p.fused_into = layer_label(layers, into);
}

// Runtime-independent invariants of a runtime call: training under an inference-only runtime
// and a precision the GPU has no rate for are refused.
void check_runtime_layers(const std::vector<Layer>& layers, const GpuSpec& gpu, Runtime runtime) {
  for (const auto& layer : layers) {
    if (runtime_traits(runtime).inference_only && layer.pass != Pass::kForward) {
      throw InputError("runtime " + to_string(runtime) + ": inference only; a " +
                       to_string(layer.pass) +
                       " pass is not modelled (expected mode inference, pass forward)");
    }
    const std::string lacks = precision_unsupported_reason(gpu, layer.dtype);
    if (!lacks.empty()) {
      throw InputError("precision " + to_string(layer.dtype) + ": " + lacks +
                       "; expected a GPU with that rate, or another precision");
    }
  }
}

}  // namespace

void apply_runtime_fusion(const std::vector<Layer>& layers,
                          std::vector<LayerPrediction>& predictions, Runtime runtime) {
  const Fusion fusion = runtime_traits(runtime).fusion;
  if (fusion == Fusion::kNone) return;
  const std::size_t n = std::min(layers.size(), predictions.size());
  std::size_t i = 0;
  while (i < n) {
    if (predictions[i].kernels == 0 || !fusible_op(layers[i].op)) {
      ++i;
      continue;
    }
    // The chain of fusible ops from i (views inside it pass through).
    std::vector<std::size_t> chain;
    std::size_t j = i;
    for (; j < n; ++j) {
      if (predictions[j].kernels == 0) continue;  // a view
      if (!fusible_op(layers[j].op)) break;
      chain.push_back(j);
    }
    // The producer: the op with kernels just before the chain.
    std::optional<std::size_t> producer;
    for (std::size_t k = i; k-- > 0;) {
      if (predictions[k].kernels == 0) continue;
      producer = k;
      break;
    }
    const bool into_producer =
        fusion == Fusion::kIntoProducer && producer &&
        (layers[*producer].op == Op::kConv2d || layers[*producer].op == Op::kLinear);
    if (into_producer) {
      for (const std::size_t c : chain) fuse_into(layers, predictions, c, *producer);
    } else if (chain.size() > 1) {
      const std::size_t carrier =
          *std::max_element(chain.begin(), chain.end(), [&](std::size_t a, std::size_t b) {
            return predictions[a].kernel_ms < predictions[b].kernel_ms;
          });
      for (const std::size_t c : chain) {
        if (c != carrier) fuse_into(layers, predictions, c, carrier);
      }
    }
    i = j;
  }
}

EagerOverhead runtime_overhead_for(const LatencyModel& model, Runtime runtime, const GpuSpec& gpu) {
  if (runtime == Runtime::kCudnn || runtime == Runtime::kPytorch) {
    return overhead_for_gpu(model.eager_overhead(), gpu);
  }
  auto overhead = model.runtime_overhead(runtime);
  if (!overhead) {
    throw InputError("runtime " + to_string(runtime) + ": the model (" + model.name() +
                     ") has no fitted overhead for it; expected the runtime's overhead file (" +
                     to_string(runtime) + "), fitted on its measured steps");
  }
  return overhead_for_gpu(*overhead, gpu);
}

std::vector<LayerPrediction> predict_layers_under(const std::vector<Layer>& layers,
                                                  const GpuSpec& gpu, const LatencyModel& model,
                                                  Runtime runtime, const PowerModel& power) {
  check_runtime_layers(layers, gpu, runtime);
  std::vector<LayerPrediction> predictions = model.predict_network_layers(layers, gpu);
  assign_power(predictions, gpu, power.activity_for(gpu));
  // Each row is an op run alone: nothing to fuse with.
  apply_runtime_overhead(layers, predictions, runtime, runtime_overhead_for(model, runtime, gpu));
  return predictions;
}

double step_resident_bytes(const std::vector<Layer>& layers, DType precision, Mode mode) {
  // Each is a tensor of its own, a convolution's fresh output; the inputs of convolutions are
  // not summed, since branches share them.
  const double bytes = static_cast<double>(bytes_per_element(precision));
  double weights = 0;
  double largest_layer = 0;
  double saved_inputs = 0;
  for (const auto& layer : layers) {
    weights += static_cast<double>(layer.params()) * bytes;
    largest_layer =
        std::max(largest_layer,
                 static_cast<double>(layer.input_elements() + layer.output_elements()) * bytes);
    if (layer.op == Op::kBatchNorm || layer.op == Op::kLayerNorm) {
      saved_inputs += static_cast<double>(layer.input_elements()) * bytes;
    }
  }
  return mode == Mode::kTraining ? std::max(2 * weights + largest_layer, weights + saved_inputs)
                                 : weights + largest_layer;
}

double l2_resident_kernel_scale(const std::vector<Layer>& layers,
                                const std::vector<LayerPrediction>& predictions, const GpuSpec& gpu,
                                const AnalyticalParams& params, double resident_bytes) {
  const double l2_bytes = gpu.l2_cache_mb * 1024 * 1024;
  if (!(resident_bytes > 0) || resident_bytes > l2_bytes) return 1;
  GpuSpec from_l2 = gpu;
  from_l2.memory_bandwidth_gbs *= kL2BandwidthMultiple;
  double kernel_ms = 0;
  double resident_ms = 0;
  for (std::size_t i = 0; i < layers.size() && i < predictions.size(); ++i) {
    const double ms = predictions[i].kernel_ms;  // 0 for a view or a fused op
    if (!(ms > 0)) continue;
    const double dram = estimate_layer(layers[i], gpu, params).latency_ms;
    const double l2 = estimate_layer(layers[i], from_l2, params).latency_ms;
    kernel_ms += ms;
    resident_ms += dram > 0 ? ms * std::min(1.0, l2 / dram) : ms;
  }
  return kernel_ms > 0 ? resident_ms / kernel_ms : 1;
}

std::string step_scale_network(const Network& network) {
  if (network.source == "zoo") return network.name;
  if (!network.zoo_network.empty()) return network.zoo_network;
  if (is_nas_source(network.source)) return network.source;
  return {};
}

NetworkPrediction predict_network(const Network& network, const GpuSpec& gpu,
                                  const LatencyModel& model, Mode mode, const PowerModel& power,
                                  Runtime runtime) {
  // A step of no layer would be the host overhead alone: a number that predicts nothing.
  if (network.layers.empty()) {
    throw InputError((network.source.empty() ? network.name : network.source) +
                     ": no layer to predict; expected a network with at least one layer");
  }
  NetworkPrediction result;
  result.runtime = runtime;
  result.gpu = gpu;
  result.network = network.name;
  result.network_source = network.source;
  result.model = model.name();
  result.batch = network.batch;
  result.mode = mode;
  result.layers = network.layers;
  if (!network.layers.empty()) result.precision = network.layers.front().dtype;
  for (auto& layer : result.layers) {
    layer.pass = mode == Mode::kTraining ? Pass::kTraining : Pass::kForward;
  }
  check_runtime_layers(result.layers, gpu, runtime);
  result.predictions = model.predict_network_layers(result.layers, gpu);
  apply_runtime_fusion(result.layers, result.predictions, runtime);
  for (const auto& layer : result.layers) result.tf32_convolutions += runs_tf32(layer, gpu) ? 1 : 0;
  for (std::size_t i = 0; i < result.predictions.size(); ++i) {
    const int kernels = result.predictions[i].kernels;
    result.eager.kernels += kernels;
    if (kernels == 0) continue;
    ++result.eager.ops;
    result.eager.heavy_ops += is_heavy_host_op(result.layers[i].op) ? 1 : 0;
  }
  result.eager.input_bytes =
      static_cast<double>(network.batch * network.input_c * network.input_h * network.input_w) *
      bytes_per_element(result.precision);
  result.eager.training = mode == Mode::kTraining;
  for (const auto& layer : result.layers) {
    result.eager.weight_bytes +=
        static_cast<double>(layer.params()) * bytes_per_element(result.precision);
  }
  result.min_memory_gb = step_resident_bytes(result.layers, result.precision, mode) / 1e9;
  const std::string scaled = step_scale_network(network);
  if (runtime == Runtime::kPytorchCompile || runtime == Runtime::kTensorrt) {
    result.overhead = runtime_overhead_for(model, runtime, gpu);
  } else {
    result.overhead = overhead_for(
        model.eager_overhead_for(network.source), gpu,
        scaled.empty() ? std::string() : network_step_key(scaled, result.precision, mode));
  }
  result.eager.l2_resident_scale = l2_resident_kernel_scale(
      result.layers, result.predictions, gpu, model.kernel_params(), result.min_memory_gb * 1e9);
  set_power(result, power);
  result.eager.kernel_ms = result.kernel_ms;
  result.eager.op_costs = eager_op_costs(result.layers, result.predictions);
  const double weight_copies = mode == Mode::kTraining ? 2.0 : 1.0;
  if (exceeds_gpu_memory(result.min_memory_gb, gpu.memory_gb)) {
    const double weights_gb = weight_copies * result.eager.weight_bytes / 1e9;
    // The weights do not shrink with the batch: say which part is over.
    const bool weights_alone = exceeds_gpu_memory(weights_gb, gpu.memory_gb);
    result.warnings.push_back(
        "out of memory: the step needs at least " + format_number(result.min_memory_gb, 3) +
        " GB (" +
        (mode == Mode::kTraining
             ? "weights and their gradients plus the largest layer's input and output, or "
               "weights plus the normalization inputs kept for the backward pass"
             : "weights plus the largest layer's input and output") +
        ") but " + gpu.name + " has " + format_number(gpu.memory_gb, 3) + " GB (" +
        format_number(gpu.memory_gb * kGbPerGib, 3) + " GB if GiB); " +
        (weights_alone ? "the weights alone need " + format_number(weights_gb, 3) + " GB"
                       : std::string("a smaller batch or input size may fit")));
  }
  // One summary line, not one per layer: the per-layer flag is in every output format.
  std::size_t outside = 0;
  std::string first;
  for (std::size_t i = 0; i < result.predictions.size(); ++i) {
    if (result.predictions[i].in_distribution) continue;
    if (outside++ == 0) first = result.layers[i].name;
  }
  if (outside > 0) {
    const std::string data = model.training_data();
    result.warnings.push_back(
        std::to_string(outside) + " of " + std::to_string(result.layers.size()) +
        " layers lie outside the model's training ranges (first: '" + first + "'" +
        (data.empty() ? "" : "; the ranges of " + data) + "); see in_distribution");
  }
  return result;
}

namespace {

// One layer at SM clock ratio s: compute-bound time stretches as 1/s; core dynamic energy per
// operation scales as s^exponent, memory and idle energy per unit time do not.
struct ClockedLayer {
  double latency_ms = 0;
  double energy_mj = 0;
  double stretch = 1;  // latency / uncapped latency
};

ClockedLayer clock_layer(const LayerPrediction& base, const GpuSpec& gpu, const PowerModel& power,
                         double s) {
  if (base.kernels == 0 || base.kernel_ms <= 0) return {base.kernel_ms, base.energy_mj, 1};
  const double cu = std::clamp(base.compute_utilization, 0.0, 1.0);
  const double stretch = cu / s + (1.0 - cu);
  const PowerParams& a = power.activity;
  const double core = a.compute_weight * cu;
  const double memory = a.memory_weight * std::clamp(base.memory_utilization, 0.0, 1.0);
  const double core_share = core + memory > 0 ? core / (core + memory) : 1.0;
  const double dynamic_mj = (base.avg_power_w - gpu.idle_power_w) * base.kernel_ms;
  const double voltage_clock = std::max(s, power.cap.voltage_floor_clock_ratio);
  const double scaled_dynamic_mj =
      dynamic_mj *
      (core_share * std::pow(voltage_clock, power.cap.core_energy_exponent) + 1.0 - core_share);
  const double latency_ms = base.kernel_ms * stretch;
  return {latency_ms, gpu.idle_power_w * latency_ms + scaled_dynamic_mj, stretch};
}

// Average step power (W) at clock ratio s, without building the layers (the bisection's hot loop).
double step_power_at_clock(const NetworkPrediction& base, const PowerModel& power, double s) {
  std::vector<LayerPrediction> clocked = base.predictions;
  for (auto& p : clocked) {
    const ClockedLayer c = clock_layer(p, base.gpu, power, s);
    p.kernel_ms = c.latency_ms;
    p.energy_mj = c.energy_mj;
  }
  const StepTotals t = step_totals(clocked, base);
  return t.latency_ms > 0 ? t.energy_mj / t.latency_ms : 0;
}

void rescale_to_clock(NetworkPrediction& r, const PowerModel& power, double s) {
  for (auto& p : r.predictions) {
    const ClockedLayer c = clock_layer(p, r.gpu, power, s);
    p.compute_utilization = std::clamp(p.compute_utilization, 0.0, 1.0) / s / c.stretch;
    p.memory_utilization /= c.stretch;
    p.kernel_ms = c.latency_ms;  // roofline_ms stays the boost-clock bound
    p.energy_mj = c.energy_mj;
    p.avg_power_w = c.latency_ms > 0 ? c.energy_mj / c.latency_ms : p.avg_power_w;
  }
  set_totals(r);
}

}  // namespace

void apply_power_limit(NetworkPrediction& prediction, double limit_w,
                       const PowerModel& any_gpu_power) {
  const GpuSpec& gpu = prediction.gpu;
  if (prediction.eager.num_gpus > 1) {
    // The cap model is fitted on single-GPU steps; N capped GPUs are not measured.
    throw ParameterError("power_limit_w", "a cap on a data-parallel step of " +
                                              std::to_string(prediction.eager.num_gpus) +
                                              " GPUs is not modelled (expected one GPU)");
  }
  // The clock search needs this GPU's activity and the cap response, not the file's metadata.
  PowerModel power;
  power.activity = any_gpu_power.activity_for(gpu);
  power.cap = any_gpu_power.cap;
  if (!(limit_w > gpu.idle_power_w)) {
    throw ParameterError("power_limit_w", "a cap of " + format_number(limit_w) +
                                              " W leaves nothing above the idle power of " +
                                              gpu.name + " (expected more than " +
                                              format_number(gpu.idle_power_w) + " W)");
  }
  PowerCapOutcome outcome;
  outcome.limit_w = limit_w;
  outcome.uncapped_latency_ms = prediction.latency_ms;
  outcome.uncapped_energy_j = prediction.energy_j;
  outcome.uncapped_avg_power_w = prediction.avg_power_w;
  if (prediction.avg_power_w > limit_w) {
    outcome.binding = true;
    const double floor = power.cap.min_clock_ratio;
    double clock = floor;
    if (step_power_at_clock(prediction, power, floor) > limit_w) {
      outcome.at_clock_floor = true;
    } else {
      // Average step power grows with the clock: bisect for the highest clock that fits.
      double high = 1.0;
      while (high - clock > 1e-5) {
        const double mid = 0.5 * (clock + high);
        (step_power_at_clock(prediction, power, mid) > limit_w ? high : clock) = mid;
      }
    }
    outcome.clock_ratio = clock;
    rescale_to_clock(prediction, power, clock);
    if (outcome.at_clock_floor) {
      prediction.warnings.push_back("power cap " + format_number(limit_w) +
                                    " W is below what the model draws at the "
                                    "lowest clock (" +
                                    format_number(prediction.avg_power_w, 4) +
                                    " W); predicted at that clock");
    }
  }
  if (limit_w > gpu.tdp_w) {
    // NVML refuses a limit above the board's maximum, which no board sets above its TDP by
    // much: such a cap cannot be set, and predicts the same as none.
    prediction.warnings.push_back("power cap " + format_number(limit_w) + " W is above " +
                                  gpu.name + "'s board power (" + format_number(gpu.tdp_w) +
                                  " W): a board does not accept it; predicted uncapped");
  }
  prediction.power_cap = outcome;
}

namespace {

nlohmann::json interval_bound(const std::optional<LatencyInterval>& interval, bool hi) {
  if (!interval) return nullptr;
  return hi ? interval->hi_ms : interval->lo_ms;
}

nlohmann::json layer_json(const LayerPredictionRecord& l) {
  const LayerPrediction& p = l.prediction;
  return {{"name", l.name},
          {"op", l.op},
          {"batch", l.batch},
          {"c_in", l.c_in},
          {"h_in", l.h_in},
          {"w_in", l.w_in},
          {"c_out", l.c_out},
          {"h_out", l.h_out},
          {"w_out", l.w_out},
          {"kernel_h", l.kernel_h},
          {"kernel_w", l.kernel_w},
          {"stride_h", l.stride_h},
          {"stride_w", l.stride_w},
          {"pad_h", l.pad_h},
          {"pad_w", l.pad_w},
          {"dilation_h", l.dilation_h},
          {"dilation_w", l.dilation_w},
          {"groups", l.groups},
          {"params", l.params},
          {"flops", l.flops},
          {"bytes", l.bytes},
          {"kernel_ms", p.kernel_ms},
          {"overhead_ms", p.overhead_ms},
          {"latency_ms", p.latency_ms()},
          {"latency_ms_lo", interval_bound(p.latency_interval, false)},
          {"latency_ms_hi", interval_bound(p.latency_interval, true)},
          {"energy_mj", p.energy_mj},
          {"avg_power_w", p.avg_power_w},
          {"roofline_ms", p.roofline_ms},
          {"bound", p.bound},
          {"kernels", p.kernels},
          {"fused_into", p.fused_into.empty() ? nlohmann::json() : nlohmann::json(p.fused_into)},
          {"in_distribution", p.in_distribution}};
}

std::optional<LatencyInterval> interval_from_json(const nlohmann::json& j) {
  const auto lo = j.find("latency_ms_lo");
  const auto hi = j.find("latency_ms_hi");
  if (lo == j.end() || hi == j.end() || lo->is_null() || hi->is_null()) return std::nullopt;
  return LatencyInterval{lo->get<double>(), hi->get<double>()};
}

LayerPredictionRecord layer_record_from_json(const nlohmann::json& j) {
  LayerPredictionRecord l;
  json_get_member_exact(j, "name", l.name);
  json_get_member_exact(j, "op", l.op);
  for (const auto& [key, field] :
       {std::pair{"batch", &l.batch}, std::pair{"c_in", &l.c_in}, std::pair{"h_in", &l.h_in},
        std::pair{"w_in", &l.w_in}, std::pair{"c_out", &l.c_out}, std::pair{"h_out", &l.h_out},
        std::pair{"w_out", &l.w_out}, std::pair{"kernel_h", &l.kernel_h},
        std::pair{"kernel_w", &l.kernel_w}, std::pair{"stride_h", &l.stride_h},
        std::pair{"stride_w", &l.stride_w}, std::pair{"pad_h", &l.pad_h},
        std::pair{"pad_w", &l.pad_w}, std::pair{"dilation_h", &l.dilation_h},
        std::pair{"dilation_w", &l.dilation_w}, std::pair{"groups", &l.groups},
        std::pair{"params", &l.params}}) {
    json_get_member_exact(j, key, *field);
  }
  json_get_member_exact(j, "flops", l.flops);
  json_get_member_exact(j, "bytes", l.bytes);
  LayerPrediction& p = l.prediction;
  // Files without kernel_ms carry the kernel time as latency_ms (and no overhead).
  json_get_member_exact(j, "latency_ms", p.kernel_ms);
  json_get_member_exact(j, "kernel_ms", p.kernel_ms);
  json_get_member_exact(j, "overhead_ms", p.overhead_ms);
  p.latency_interval = interval_from_json(j);
  json_get_member_exact(j, "energy_mj", p.energy_mj);
  json_get_member_exact(j, "avg_power_w", p.avg_power_w);
  json_get_member_exact(j, "roofline_ms", p.roofline_ms);
  json_get_member_exact(j, "bound", p.bound);
  json_get_member_exact(j, "kernels", p.kernels);
  const auto fused = j.find("fused_into");
  if (fused != j.end() && !fused->is_null()) p.fused_into = fused->get<std::string>();
  json_get_member_exact(j, "in_distribution", p.in_distribution);
  return l;
}

std::string shape_text(const Layer& l) {
  return std::to_string(l.c_in) + "x" + std::to_string(l.h_in) + "x" + std::to_string(l.w_in) +
         " -> " + std::to_string(l.c_out) + "x" + std::to_string(l.h_out()) + "x" +
         std::to_string(l.w_out());
}

// Sums over a network's layers that the JSON `total` and the CSV's total row report.
struct LayerSums {
  std::int64_t params = 0;
  double flops = 0;
  double bytes = 0;
  double roofline_ms = 0;
  bool in_distribution = true;  ///< every layer is
};

LayerSums layer_sums(const NetworkPrediction& r) {
  LayerSums t;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    t.params += r.layers[i].params();
    t.flops += r.layers[i].flops();
    t.bytes += r.layers[i].bytes();
    t.roofline_ms += r.predictions[i].roofline_ms;
    t.in_distribution = t.in_distribution && r.predictions[i].in_distribution;
  }
  return t;
}

}  // namespace

NetworkPredictionRecord network_prediction_record(const NetworkPrediction& r) {
  NetworkPredictionRecord out;
  out.gpu = r.gpu;
  out.network = r.network;
  out.network_source = r.network_source;
  out.model = r.model;
  out.power_model = r.power_model;
  out.batch = r.batch;
  out.num_gpus = r.eager.num_gpus;
  out.mode = r.mode;
  out.precision = r.precision;
  out.runtime = r.runtime;
  out.tf32_convolutions = r.tf32_convolutions;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const Layer& l = r.layers[i];
    out.layers.push_back({l.name,       to_string(l.op), l.batch,    l.c_in,     l.h_in,
                          l.w_in,       l.c_out,         l.h_out(),  l.w_out(),  l.kernel_h,
                          l.kernel_w,   l.stride_h,      l.stride_w, l.pad_h,    l.pad_w,
                          l.dilation_h, l.dilation_w,    l.groups,   l.params(), l.flops(),
                          l.bytes(),    r.predictions[i]});
  }
  out.kernel_ms = r.kernel_ms;
  out.latency_ms = r.latency_ms;
  out.latency_interval = r.latency_interval;
  out.energy_j = r.energy_j;
  out.avg_power_w = r.avg_power_w;
  out.min_memory_gb = r.min_memory_gb;
  out.l2_resident_scale = r.eager.l2_resident_scale;
  out.overhead = r.overhead;
  out.interval_source = r.interval_source;
  out.interval_note = r.interval_note;
  out.skipped_nodes = r.skipped_nodes;
  out.warnings = r.warnings;
  out.power_cap = r.power_cap;
  return out;
}

nlohmann::json to_json(const NetworkPrediction& r) {
  return to_json(network_prediction_record(r));
}

nlohmann::json to_json(const NetworkPredictionRecord& r) {
  nlohmann::json layers = nlohmann::json::array();
  std::int64_t params = 0;
  double flops = 0;
  for (const auto& l : r.layers) {
    layers.push_back(layer_json(l));
    params += l.params;
    flops += l.flops;
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& node : r.skipped_nodes) {
    skipped.push_back({{"name", node.name},
                       {"op_type", node.op_type},
                       {"reason", node.reason},
                       {"position", node.position}});
  }
  nlohmann::json out = {
      {"schema_version", kPredictionSchemaVersion},
      {"tool_version", CNNPERF_VERSION},
      {"kind", "network_prediction"},
      {"model", r.model},
      {"gpu", nlohmann::json(r.gpu)},
      {"network", r.network},
      {"network_source", r.network_source},
      {"batch", r.batch},
      {"num_gpus", r.num_gpus},
      {"mode", to_string(r.mode)},
      {"precision", to_string(r.precision)},
      {"runtime", to_string(r.runtime)},
      {"tf32_convolutions", r.tf32_convolutions},
      {"layers", layers},
      {"total",
       {{"params", params},
        {"flops", flops},
        {"kernel_ms", r.kernel_ms},
        {"kernel_scale_ms", r.kernel_scale_ms()},
        {"overhead_ms", r.overhead_ms()},
        {"latency_ms", r.latency_ms},
        {"latency_ms_lo", interval_bound(r.latency_interval, false)},
        {"latency_ms_hi", interval_bound(r.latency_interval, true)},
        {"energy_j", r.energy_j},
        {"avg_power_w", r.avg_power_w},
        {"min_memory_gb", r.min_memory_gb},
        {"l2_resident_scale", r.l2_resident_scale}}},
      {"eager_overhead", to_json(r.overhead)},
      {"intervals", {{"source", r.interval_source}, {"note", r.interval_note}}},
      {"skipped_nodes", skipped},
      {"warnings", r.warnings},
  };
  out["power_model"] = r.power_model;
  if (r.power_cap) {
    const auto& c = *r.power_cap;
    out["power_limit_w"] = c.limit_w;
    out["power_cap"] = {
        {"limit_w", c.limit_w},
        {"binding", c.binding},
        {"at_clock_floor", c.at_clock_floor},
        {"clock_ratio", c.clock_ratio},
        {"uncapped_latency_ms", c.uncapped_latency_ms},
        {"uncapped_energy_j", c.uncapped_energy_j},
        {"uncapped_avg_power_w", c.uncapped_avg_power_w},
        {"slowdown", c.uncapped_latency_ms > 0 ? r.latency_ms / c.uncapped_latency_ms : 1.0}};
  }
  return out;
}

NetworkPredictionRecord network_prediction_from_json(const nlohmann::json& doc) {
  NetworkPredictionRecord r;
  if (doc.contains("gpu")) {
    const nlohmann::json& gpu = doc["gpu"];
    if (gpu.is_string()) {
      r.gpu.name = gpu.get<std::string>();
    } else {
      r.gpu = gpu_spec_from_json(gpu, "gpu", false);
    }
  }
  json_get_member_exact(doc, "network", r.network);
  json_get_member_exact(doc, "network_source", r.network_source);
  json_get_member_exact(doc, "model", r.model);
  json_get_member_exact(doc, "power_model", r.power_model);
  json_get_member_exact(doc, "batch", r.batch);
  json_get_member_exact(doc, "num_gpus", r.num_gpus);
  if (doc.contains("mode")) r.mode = mode_from_string(doc["mode"].get<std::string>());
  if (doc.contains("precision")) {
    r.precision = dtype_from_string(doc["precision"].get<std::string>());
  }
  if (doc.contains("runtime")) r.runtime = runtime_from_string(doc["runtime"].get<std::string>());
  json_get_member_exact(doc, "tf32_convolutions", r.tf32_convolutions);
  if (doc.contains("layers")) {
    for (const auto& l : doc["layers"]) r.layers.push_back(layer_record_from_json(l));
  }
  if (doc.contains("total")) {
    const nlohmann::json& total = doc["total"];
    json_get_member_exact(total, "kernel_ms", r.kernel_ms);
    json_get_member_exact(total, "latency_ms", r.latency_ms);
    r.latency_interval = interval_from_json(total);
    json_get_member_exact(total, "energy_j", r.energy_j);
    json_get_member_exact(total, "avg_power_w", r.avg_power_w);
    json_get_member_exact(total, "min_memory_gb", r.min_memory_gb);
    json_get_member_exact(total, "l2_resident_scale", r.l2_resident_scale);
  }
  if (doc.contains("eager_overhead")) {
    r.overhead = eager_overhead_from_json(doc["eager_overhead"], "eager_overhead");
  }
  if (doc.contains("intervals")) {
    json_get_member_exact(doc["intervals"], "source", r.interval_source);
    json_get_member_exact(doc["intervals"], "note", r.interval_note);
  }
  if (doc.contains("skipped_nodes")) {
    for (const auto& node : doc["skipped_nodes"]) {
      SkippedNode n;
      json_get_member_exact(node, "name", n.name);
      json_get_member_exact(node, "op_type", n.op_type);
      json_get_member_exact(node, "reason", n.reason);
      json_get_member_exact(node, "position", n.position);
      r.skipped_nodes.push_back(std::move(n));
    }
  }
  json_get_member_exact(doc, "warnings", r.warnings);
  if (doc.contains("power_cap")) {
    const nlohmann::json& c = doc["power_cap"];
    PowerCapOutcome cap;
    json_get_member_exact(c, "limit_w", cap.limit_w);
    json_get_member_exact(c, "binding", cap.binding);
    json_get_member_exact(c, "at_clock_floor", cap.at_clock_floor);
    json_get_member_exact(c, "clock_ratio", cap.clock_ratio);
    json_get_member_exact(c, "uncapped_latency_ms", cap.uncapped_latency_ms);
    json_get_member_exact(c, "uncapped_energy_j", cap.uncapped_energy_j);
    json_get_member_exact(c, "uncapped_avg_power_w", cap.uncapped_avg_power_w);
    r.power_cap = cap;
  }
  return r;
}

namespace {

// "lo-hi" for a table; empty where there is no interval.
std::string interval_text(const std::optional<LatencyInterval>& interval) {
  if (!interval) return "";
  return format_number(interval->lo_ms, 3) + "-" + format_number(interval->hi_ms, 3);
}

// A CSV cell of an interval's bound: empty where there is no interval.
std::string interval_cell(const std::optional<LatencyInterval>& interval, bool hi) {
  if (!interval) return "";
  return format_number(hi ? interval->hi_ms : interval->lo_ms, 6);
}

// The CSV form: one row per layer, then the network's totals as a row named `total`.
std::string prediction_csv(const NetworkPrediction& r) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const auto& l = r.layers[i];
    const auto& p = r.predictions[i];
    auto s = [](std::int64_t v) { return std::to_string(v); };
    rows.push_back({l.name,
                    to_string(l.op),
                    s(l.batch),
                    s(l.c_in),
                    s(l.h_in),
                    s(l.w_in),
                    s(l.c_out),
                    s(l.h_out()),
                    s(l.w_out()),
                    s(l.kernel_h),
                    s(l.kernel_w),
                    s(l.stride_h),
                    s(l.stride_w),
                    s(l.pad_h),
                    s(l.pad_w),
                    s(l.pad_bottom()),
                    s(l.pad_right()),
                    s(l.dilation_h),
                    s(l.dilation_w),
                    s(l.groups),
                    l.bias ? "1" : "0",
                    to_string(l.dtype),
                    to_string(l.pass),
                    to_string(l.layout),
                    l.ceil_mode ? "1" : "0",
                    s(l.num_inputs),
                    s(l.params()),
                    format_number(l.flops(), 10),
                    format_number(l.bytes(), 10),
                    format_number(p.latency_ms(), 6),
                    interval_cell(p.latency_interval, false),
                    interval_cell(p.latency_interval, true),
                    format_number(p.energy_mj, 6),
                    format_number(p.avg_power_w, 5),
                    format_number(p.roofline_ms, 6),
                    p.bound,
                    p.in_distribution ? "true" : "false",
                    format_number(p.kernel_ms, 6),
                    "",  // kernel_scale_ms: the step's, on the total row
                    format_number(p.overhead_ms, 6),
                    to_string(r.runtime),
                    r.gpu.name,
                    r.model,
                    ""});
  }
  // The network's totals close the file as one row named `total`, so a CSV reader gets the
  // end-to-end step (`latency_ms`, launch overhead and input copy included) without the JSON.
  const LayerSums sums = layer_sums(r);
  const std::vector<std::string> header{"name",
                                        "op",
                                        "batch",
                                        "c_in",
                                        "h_in",
                                        "w_in",
                                        "c_out",
                                        "h_out",
                                        "w_out",
                                        "kernel_h",
                                        "kernel_w",
                                        "stride_h",
                                        "stride_w",
                                        "pad_h",
                                        "pad_w",
                                        "pad_h_end",
                                        "pad_w_end",
                                        "dilation_h",
                                        "dilation_w",
                                        "groups",
                                        "bias",
                                        "dtype",
                                        "pass",
                                        "layout",
                                        "ceil_mode",
                                        "num_inputs",
                                        "params",
                                        "flops",
                                        "bytes",
                                        "latency_ms",
                                        "latency_ms_lo",
                                        "latency_ms_hi",
                                        "energy_mj",
                                        "avg_power_w",
                                        "roofline_ms",
                                        "bound",
                                        "in_distribution",
                                        "kernel_ms",
                                        "kernel_scale_ms",
                                        "overhead_ms",
                                        "runtime",
                                        "gpu",
                                        "model",
                                        "skipped_nodes"};
  std::vector<std::string> total(header.size());
  auto set = [&](std::string_view column, std::string value) {
    total[static_cast<std::size_t>(std::find(header.begin(), header.end(), column) -
                                   header.begin())] = std::move(value);
  };
  set("name", "total");
  set("op", "total");
  set("batch", std::to_string(r.batch));
  set("params", std::to_string(sums.params));
  set("flops", format_number(sums.flops, 10));
  set("bytes", format_number(sums.bytes, 10));
  set("latency_ms", format_number(r.latency_ms, 6));
  set("latency_ms_lo", interval_cell(r.latency_interval, false));
  set("latency_ms_hi", interval_cell(r.latency_interval, true));
  set("energy_mj", format_number(r.energy_j * 1e3, 6));
  set("avg_power_w", format_number(r.avg_power_w, 5));
  set("roofline_ms", format_number(sums.roofline_ms, 6));
  set("in_distribution", sums.in_distribution ? "true" : "false");
  set("kernel_ms", format_number(r.kernel_ms, 6));
  set("kernel_scale_ms", format_number(r.kernel_scale_ms(), 6));
  set("overhead_ms", format_number(r.overhead_ms(), 6));
  set("runtime", to_string(r.runtime));
  set("gpu", r.gpu.name);
  set("model", r.model);
  // Nodes without a prediction, which the totals leave out (only the total row has a count).
  set("skipped_nodes", std::to_string(r.skipped_nodes.size()));
  rows.push_back(std::move(total));
  return csv_with_schema(header, rows, kPredictionSchemaVersion);
}

// The table's notes under its totals: which terms make the step, and its energy, memory
// and power cap.
std::string prediction_step_notes(const NetworkPrediction& r) {
  std::string out;
  // A direct library call's step is its kernels and gaps: none of the eager terms below apply.
  const bool cudnn = r.runtime == Runtime::kCudnn;
  const bool runtime_fit = r.runtime == Runtime::kTensorrt || r.runtime == Runtime::kPytorchCompile;
  if (!cudnn && r.overhead.kernel_time_scale != 1.0) {
    // The host terms may be the caller's host_ms_per_op; the scale always comes from the fit.
    out += "            kernel time x" + format_number(r.overhead.kernel_time_scale, 3) + " = " +
           format_number(r.kernel_ms * r.overhead.kernel_time_scale, 4) +
           (runtime_fit ? " ms: the " + to_string(r.runtime) +
                              " runtime's one scale for every GPU, fitted on its measured steps "
                              "(its overhead's source, above)\n"
            : !r.overhead.kernel_time_scale_board.empty()
                ? " ms: that of " + r.overhead.kernel_time_scale_board +
                      ", another board of this GPU's chip, fitted on its end-to-end rows; host "
                      "terms of a GPU without rows (eager_overhead.source)\n"
            : r.overhead.terms_architecture.empty()
                ? " ms: this GPU's measuring machine, fitted on its end-to-end rows with its host "
                  "terms (eager_overhead.source)\n"
                : " ms: the mean of its architecture's (" + r.overhead.terms_architecture +
                      ") GPUs with end-to-end rows, with their host terms "
                      "(eager_overhead.source)\n");
  }
  if (r.eager.l2_resident_scale < 1) {
    out += "            L2-resident x" + format_number(r.eager.l2_resident_scale, 3) +
           ": the step's " + format_number(r.min_memory_gb * 1e3, 3) + " MB of weights and " +
           "largest layer fit in the " + format_number(r.gpu.l2_cache_mb, 3) +
           " MB L2, so repeated steps read them there, not from DRAM\n";
  }
  if (r.eager.num_gpus > 1) {
    EagerTerms one_gpu = r.eager;
    one_gpu.kernel_ms = r.kernel_ms;
    one_gpu.num_gpus = 1;
    out += "            nn.DataParallel on " + std::to_string(r.eager.num_gpus) + " GPUs x batch " +
           std::to_string(r.batch) + ": +" +
           format_number(r.latency_ms - eager_latency_ms(one_gpu, r.overhead), 4) +
           " ms over one GPU (weights broadcast, every replica's ops, gradient reduce; "
           "eager_overhead.data_parallel); energy_j and avg_power_w of all " +
           std::to_string(r.eager.num_gpus) + "\n";
  }
  if (!cudnn && r.overhead.step_scale != 1.0) {
    // A NAS network's scale is its search space's (step_scale_network).
    const std::string whose = !r.overhead.step_scale_family.empty()
                                  ? "its family's (" + r.overhead.step_scale_family + " networks')"
                              : is_nas_source(r.network_source) ? r.network_source + " networks'"
                                                                : r.network + "'s";
    out += "            step x" + format_number(r.overhead.step_scale, 3) + ": " + whose +
           " measured " + to_string(r.precision) + " " + to_string(r.mode) +
           " steps against this formula (eager_overhead.source)\n";
  }
  if (r.latency_ms < r.kernel_ms) {
    // Two calibrations meet here: kernel_ms is the per-layer model's, the step is fitted to
    // measured steps of whole networks; say which terms put the step under the sum.
    const bool calibrated =
        r.runtime != Runtime::kCudnn && r.overhead.kernel_time_scale * r.overhead.step_scale < 1.0;
    const bool resident = r.eager.l2_resident_scale < 1.0;
    out += "            below kernel_ms: " +
           (calibrated ? "the end-to-end calibration (kernel-time scale x" +
                             format_number(r.overhead.kernel_time_scale, 3) + ", step x" +
                             format_number(r.overhead.step_scale, 3) +
                             ") finds measured steps faster than the per-layer kernel sum"
                       : std::string()) +
           (calibrated && resident ? "; " : "") + (resident ? "L2 residency (above)" : "") + "\n";
  }
  // Same terms as eager_latency_ms: say when the host, not the GPU, sets the step time.
  const double host_ms = host_issue_ms(r.eager, r.overhead);
  const double host_op_ms = host_ms / std::max(r.eager.ops, 1);
  const double gpu_ms = r.kernel_ms * kernel_time_factor(r.eager, r.overhead) +
                        r.eager.kernels * r.overhead.gpu_gap_ms_per_kernel;
  if (!cudnn && host_ms > gpu_ms) {
    out += "            host-bound: " + std::to_string(r.eager.ops) + " ops x " +
           format_number(host_op_ms, 3) +
           " ms to issue each (mean) = " + format_number(host_ms, 4) + " ms > " +
           format_number(gpu_ms, 4) + " ms on the GPU (host_ms_per_op sets your machine's)\n";
  }
  if (!cudnn && r.overhead.per_op_overlap > 0 && !r.eager.op_costs.empty()) {
    out += "            per-op overlap " + format_number(r.overhead.per_op_overlap, 3) +
           ": that share of the step is each op's max(host, GPU) time, summed (ops whose "
           "kernels outlast their issue delay the ops behind them)\n";
  }
  out += "energy_j    " + format_number(r.energy_j, 4) + "\n";
  out += "avg_power_w " + format_number(r.avg_power_w, 4) + "\n";
  out += "min_memory_gb " + format_number(r.min_memory_gb, 3) + "  (at least: " +
         (r.mode == Mode::kTraining
              ? "weights x2 + the largest layer's input and output, or weights + the "
                "normalization inputs kept for the backward pass; "
              : "weights + the largest layer's input and output; ") +
         (r.gpu.memory_gb > 0 ? "the GPU has " + format_number(r.gpu.memory_gb, 3) + " GB"
                              : std::string("the GPU's memory_gb is not given")) +
         ")\n";
  if (r.power_cap) {
    const auto& c = *r.power_cap;
    out += "power_cap   " + format_number(c.limit_w, 4) + " W: " +
           (c.binding
                ? "binding, SM clock at " + format_number(100 * c.clock_ratio, 3) +
                      "% of boost; uncapped latency_ms " + format_number(c.uncapped_latency_ms, 4) +
                      ", energy_j " + format_number(c.uncapped_energy_j, 4) + ", avg_power_w " +
                      format_number(c.uncapped_avg_power_w, 4)
                : std::string("not binding (uncapped avg_power_w ") +
                      format_number(c.uncapped_avg_power_w, 4) + ")") +
           "\n";
  }
  return out;
}

}  // namespace

std::string format_prediction(const NetworkPrediction& r, OutputFormat format) {
  if (format == OutputFormat::kJson) return json_text(to_json(r)) + "\n";
  if (format == OutputFormat::kCsv) return prediction_csv(r);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const auto& l = r.layers[i];
    const auto& p = r.predictions[i];
    rows.push_back({l.name, to_string(l.op), shape_text(l), format_number(l.flops() / 1e6, 4),
                    format_number(p.kernel_ms, 3), format_number(p.overhead_ms, 3),
                    interval_text(p.latency_interval), format_number(p.roofline_ms, 3),
                    format_number(p.energy_mj, 3), p.bound,
                    !p.fused_into.empty() ? "fused into " + p.fused_into
                    : p.in_distribution   ? ""
                                          : "out-of-range"});
  }
  std::string out =
      r.network + " on " + r.gpu.display_name + " (" + r.gpu.name + "), batch " +
      std::to_string(r.batch) + ", " + to_string(r.mode) + ", " + to_string(r.precision) +
      (r.tf32_convolutions > 0
           ? " (" + std::to_string(r.tf32_convolutions) +
                 " convolutions on TF32 tensor cores, the runtime's default; without TF32: "
                 "strict fp32)"
           : std::string()) +
      ", model: " + r.model + "\n";
  out += format_table({"layer", "op", "shape (CxHxW)", "MFLOPs", "kernel_ms", "overhead_ms",
                       "latency_ms 80%", "roofline_ms", "energy_mj", "bound", "note"},
                      rows);
  out += "\nkernel_ms   " + format_number(r.kernel_ms, 4) + "  (sum of GPU kernel time)\n";
  out += "latency_ms  " + format_number(r.latency_ms, 4) +
         (r.runtime == Runtime::kCudnn
              ? "  (step under the cudnn runtime: kernel time and the gaps between kernels)\n"
          : r.runtime == Runtime::kPytorch
              ? "  (step under the pytorch runtime, eager: launch overhead and input copy "
                "included)\n"
              : "  (step under the " + to_string(r.runtime) +
                    " runtime: its fused kernels, per-kernel and per-step overhead (" +
                    r.overhead.source + "))\n");
  if (r.latency_interval) {
    out += "            80 % interval " + interval_text(r.latency_interval) + " ms (" +
           r.interval_source + ")\n";
  }
  if (!r.interval_note.empty()) out += "            intervals: " + r.interval_note + "\n";
  out += prediction_step_notes(r);
  if (!r.skipped_nodes.empty()) {
    std::vector<std::string> ops;
    for (const auto& node : r.skipped_nodes) {
      if (std::find(ops.begin(), ops.end(), node.op_type) == ops.end()) ops.push_back(node.op_type);
    }
    out += "skipped     " + std::to_string(r.skipped_nodes.size()) + " ONNX node" +
           (r.skipped_nodes.size() == 1 ? "" : "s") + " without a prediction (" + join(ops, ", ") +
           ") beside " + std::to_string(r.layers.size()) +
           " predicted layers: kernel_ms and latency_ms leave them out (warnings below)\n";
  }
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace cnnperf
