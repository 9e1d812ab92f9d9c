// SPDX-License-Identifier: Apache-2.0
// Analytical LatencyModel, end-to-end assembly, and the printers of NetworkPrediction.
#include "cnnperf/predict.hpp"

#include <algorithm>

#include "cnnperf/config.hpp"
#include "cnnperf/error.hpp"

namespace cnnperf {

double layer_power_w(const LayerEstimate& e, const GpuSpec& gpu, const PowerParams& p) {
  if (e.kernels == 0) return gpu.idle_power_w;
  const double activity =
      std::clamp(std::max(p.floor_activity, p.compute_weight * e.compute_utilization +
                                                p.memory_weight * e.memory_utilization),
                 0.0, 1.0);
  return gpu.idle_power_w + (gpu.tdp_w - gpu.idle_power_w) * activity;
}

std::vector<LayerPrediction> AnalyticalModel::predict_layers(const std::vector<Layer>& layers,
                                                             const GpuSpec& gpu) const {
  std::vector<LayerPrediction> out;
  out.reserve(layers.size());
  for (const auto& layer : layers) {
    const LayerEstimate e = estimate_layer(layer, gpu, params_);
    LayerPrediction p;
    p.latency_ms = e.latency_ms;
    p.roofline_ms = e.roofline_ms;
    p.avg_power_w = layer_power_w(e, gpu, power_);
    p.energy_mj = p.avg_power_w * p.latency_ms;  // W x ms = mJ
    p.kernels = e.kernels;
    p.bound = e.bound;
    p.algorithm = e.algorithm;
    p.in_distribution = true;  // first-principles: no training range to leave
    out.push_back(p);
  }
  return out;
}

std::string to_string(Mode mode) { return mode == Mode::kTraining ? "training" : "inference"; }

Mode mode_from_string(std::string_view text) {
  const std::string lower = to_lower(text);
  if (lower == "inference" || lower == "forward") return Mode::kInference;
  if (lower == "training" || lower == "train") return Mode::kTraining;
  throw InputError("--mode: unknown mode '" + std::string(text) +
                   "' (expected inference or training)");
}

double eager_latency_ms(const EagerTerms& t, const EagerOverhead& o) {
  const double host_ms = t.ops * o.host_ms_per_op * (t.training ? o.training_host_factor : 1.0);
  const double gpu_ms = t.kernel_ms + t.kernels * o.gpu_gap_ms_per_kernel;
  const double copy_ms = o.h2d_gbs > 0 ? t.input_bytes / (o.h2d_gbs * 1e6) : 0;
  return o.fixed_ms + copy_ms + std::max(gpu_ms, host_ms);
}

double eager_latency_ms(const Network& network, const NetworkPrediction& prediction,
                        const EagerOverhead& overhead) {
  EagerTerms terms;
  terms.kernel_ms = prediction.kernel_ms;
  for (const auto& p : prediction.predictions) {
    terms.kernels += p.kernels;
    if (p.kernels > 0) ++terms.ops;
  }
  terms.input_bytes = static_cast<double>(network.batch * network.input_c * network.input_h *
                                          network.input_w) *
                      bytes_per_element(prediction.precision);
  terms.training = prediction.mode == Mode::kTraining;
  return eager_latency_ms(terms, overhead);
}

NetworkPrediction predict_network(const Network& network, const GpuSpec& gpu,
                                  const LatencyModel& model, Mode mode) {
  NetworkPrediction result;
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
  result.predictions = model.predict_layers(result.layers, gpu);
  double energy_mj = 0;
  for (const auto& p : result.predictions) {
    result.kernel_ms += p.latency_ms;
    energy_mj += p.energy_mj;
  }
  result.latency_ms = eager_latency_ms(network, result, model.eager_overhead());
  // Time outside kernels (host dispatch, copies, gaps) is spent near idle power.
  const double idle_ms = std::max(0.0, result.latency_ms - result.kernel_ms);
  energy_mj += idle_ms * gpu.idle_power_w;
  result.energy_j = energy_mj / 1e3;
  result.avg_power_w = result.latency_ms > 0 ? energy_mj / result.latency_ms : 0;
  // One summary line, not one per layer: the per-layer flag is in every output format.
  std::size_t outside = 0;
  std::string first;
  for (std::size_t i = 0; i < result.predictions.size(); ++i) {
    if (result.predictions[i].in_distribution) continue;
    if (outside++ == 0) first = result.layers[i].name;
  }
  if (outside > 0) {
    result.warnings.push_back(std::to_string(outside) + " of " +
                              std::to_string(result.layers.size()) +
                              " layers lie outside the model's training ranges (first: '" + first +
                              "'); see in_distribution");
  }
  return result;
}

namespace {

nlohmann::json layer_json(const Layer& l, const LayerPrediction& p) {
  return {{"name", l.name},
          {"op", to_string(l.op)},
          {"batch", l.batch},
          {"c_in", l.c_in},
          {"h_in", l.h_in},
          {"w_in", l.w_in},
          {"c_out", l.c_out},
          {"h_out", l.h_out()},
          {"w_out", l.w_out()},
          {"kernel_h", l.kernel_h},
          {"kernel_w", l.kernel_w},
          {"stride_h", l.stride_h},
          {"stride_w", l.stride_w},
          {"pad_h", l.pad_h},
          {"pad_w", l.pad_w},
          {"dilation_h", l.dilation_h},
          {"dilation_w", l.dilation_w},
          {"groups", l.groups},
          {"params", l.params()},
          {"flops", l.flops()},
          {"bytes", l.bytes()},
          {"latency_ms", p.latency_ms},
          {"energy_mj", p.energy_mj},
          {"avg_power_w", p.avg_power_w},
          {"roofline_ms", p.roofline_ms},
          {"bound", p.bound},
          {"kernels", p.kernels},
          {"in_distribution", p.in_distribution}};
}

std::string shape_text(const Layer& l) {
  return std::to_string(l.c_in) + "x" + std::to_string(l.h_in) + "x" + std::to_string(l.w_in) +
         " -> " + std::to_string(l.c_out) + "x" + std::to_string(l.h_out()) + "x" +
         std::to_string(l.w_out());
}

}  // namespace

nlohmann::json to_json(const NetworkPrediction& r) {
  nlohmann::json layers = nlohmann::json::array();
  std::int64_t params = 0;
  double flops = 0;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    layers.push_back(layer_json(r.layers[i], r.predictions[i]));
    params += r.layers[i].params();
    flops += r.layers[i].flops();
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
      {"mode", to_string(r.mode)},
      {"precision", to_string(r.precision)},
      {"layers", layers},
      {"total",
       {{"params", params},
        {"flops", flops},
        {"kernel_ms", r.kernel_ms},
        {"latency_ms", r.latency_ms},
        {"energy_j", r.energy_j},
        {"avg_power_w", r.avg_power_w}}},
      {"warnings", r.warnings},
  };
  if (r.power_limit_w > 0) out["power_limit_w"] = r.power_limit_w;
  return out;
}

std::string format_prediction(const NetworkPrediction& r, OutputFormat format) {
  if (format == OutputFormat::kJson) return to_json(r).dump(2) + "\n";
  if (format == OutputFormat::kCsv) {
    std::string out = csv_line({"name", "op", "batch", "c_in", "h_in", "w_in", "c_out", "h_out",
                                "w_out", "kernel_h", "kernel_w", "stride_h", "stride_w", "pad_h",
                                "pad_w", "groups", "params", "flops", "bytes", "latency_ms",
                                "energy_mj", "avg_power_w", "roofline_ms", "bound",
                                "in_distribution"}) +
                      "\n";
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
      const auto& l = r.layers[i];
      const auto& p = r.predictions[i];
      auto s = [](std::int64_t v) { return std::to_string(v); };
      out += csv_line({l.name, to_string(l.op), s(l.batch), s(l.c_in), s(l.h_in), s(l.w_in),
                       s(l.c_out), s(l.h_out()), s(l.w_out()), s(l.kernel_h), s(l.kernel_w),
                       s(l.stride_h), s(l.stride_w), s(l.pad_h), s(l.pad_w), s(l.groups),
                       s(l.params()), format_number(l.flops(), 10), format_number(l.bytes(), 10),
                       format_number(p.latency_ms, 6), format_number(p.energy_mj, 6),
                       format_number(p.avg_power_w, 5), format_number(p.roofline_ms, 6), p.bound,
                       p.in_distribution ? "true" : "false"}) +
             "\n";
    }
    return out;
  }
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const auto& l = r.layers[i];
    const auto& p = r.predictions[i];
    rows.push_back({l.name, to_string(l.op), shape_text(l), format_number(l.flops() / 1e6, 4),
                    format_number(p.latency_ms, 3), format_number(p.roofline_ms, 3),
                    format_number(p.energy_mj, 3), p.bound,
                    p.in_distribution ? "" : "out-of-range"});
  }
  std::string out = r.network + " on " + r.gpu.display_name + " (" + r.gpu.name + "), batch " +
                    std::to_string(r.batch) + ", " + to_string(r.mode) + ", " +
                    to_string(r.precision) + ", model: " + r.model + "\n";
  out += format_table({"layer", "op", "shape (CxHxW)", "MFLOPs", "latency_ms", "roofline_ms",
                       "energy_mj", "bound", "note"},
                      rows);
  out += "\nkernel_ms   " + format_number(r.kernel_ms, 4) + "  (sum of GPU kernel time)\n";
  out += "latency_ms  " + format_number(r.latency_ms, 4) +
         "  (end-to-end step in an eager framework, incl. launch overhead and input copy)\n";
  out += "energy_j    " + format_number(r.energy_j, 4) + "\n";
  out += "avg_power_w " + format_number(r.avg_power_w, 4) + "\n";
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace cnnperf
