// SPDX-License-Identifier: Apache-2.0
// End-to-end rows, eager-framework overhead calibration (Nelder-Mead) and evaluation.
#include "cnnperf/e2e.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "cnnperf/error.hpp"
#include "cnnperf/io.hpp"
#include "cnnperf/json_io.hpp"
#include "cnnperf/zoo.hpp"
#include "nelder_mead.hpp"

namespace cnnperf {

std::vector<E2eRow> load_e2e_rows(const std::string& path) {
  const CsvTable t = read_csv(path);
  for (const char* col : {"network", "gpu", "batch", "dtype", "mode", "latency_ms"}) {
    if (!t.column(col)) throw InputError(path + ":1: expected a column '" + col + "'");
  }
  std::vector<E2eRow> rows;
  std::map<std::string, GpuSpec> cache;
  const auto& db = GpuDatabase::bundled();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (t.get(r, "num_gpus").value_or("1") != "1") continue;
    E2eRow row;
    row.network = *t.get(r, "network");
    if (find_zoo_entry(row.network) == nullptr) continue;
    row.gpu_name = *t.get(r, "gpu");
    auto it = cache.find(row.gpu_name);
    if (it == cache.end()) {
      const auto spec = db.find(row.gpu_name);
      if (!spec) throw InputError(t.where(r) + ": field 'gpu': unknown GPU '" + row.gpu_name + "'");
      it = cache.emplace(row.gpu_name, *spec).first;
    }
    row.gpu = it->second;
    row.batch = static_cast<std::int64_t>(*t.get_number(r, "batch"));
    try {
      row.dtype = dtype_from_string(*t.get(r, "dtype"));
      row.mode = mode_from_string(*t.get(r, "mode"));
    } catch (const InputError& e) {
      throw InputError(t.where(r) + ": " + e.what());
    }
    row.latency_ms = *t.get_number(r, "latency_ms");
    if (row.latency_ms <= 0) continue;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<E2eTerms> e2e_terms(const std::vector<E2eRow>& rows, const LatencyModel& model) {
  std::map<std::tuple<std::string, std::string, std::int64_t, int, int>, E2eTerms> cache;
  std::vector<E2eTerms> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    const auto key = std::make_tuple(row.network, row.gpu.name, row.batch,
                                     static_cast<int>(row.dtype), static_cast<int>(row.mode));
    auto it = cache.find(key);
    if (it == cache.end()) {
      NetworkOptions options;
      options.batch = row.batch;
      options.dtype = row.dtype;
      Network net = build_zoo_network(row.network, options);
      // pytorch-gpu-benchmark ran PyTorch's defaults: fp32 convolutions on TF32 tensor cores
      // on the A100 (cuDNN 8.0.4); it matters on no other GPU of these rows.
      allow_tf32_convolutions(net);
      // Power does not enter the terms; the default power parameters avoid a file read.
      const NetworkPrediction p = predict_network(net, row.gpu, model, row.mode, PowerModel{});
      it = cache.emplace(key, p.eager).first;
    }
    out.push_back(it->second);
  }
  return out;
}


namespace {

constexpr int kParams = 4;
using Vec = std::vector<double>;

// Physical bounds of two parameters. Per-op host time and a per-kernel GPU gap both explain a
// cost per op, so unbounded fits can trade one for the other: without the GPU it predicts,
// a fit once chose 24 us of idle GPU per kernel and 207 host ops per training op, and
// predicted the held-out GPU worse (docs/accuracy.md). A busy stream's gap between dependent
// kernels is a few microseconds, and a training step issues a few host ops per forward op.
constexpr double kMaxGpuGapMs = 0.005;
constexpr double kMinTrainingHostFactor = 1.0;
constexpr double kMaxTrainingHostFactor = 10.0;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double logit(double p) {
  return std::log(p / (1.0 - p));
}

EagerOverhead from_vec(const Vec& v) {
  EagerOverhead o;
  // Unbounded parameters live in log space so they stay positive; bounded ones behind a
  // sigmoid so that Nelder-Mead never leaves their range.
  o.host_ms_per_op = std::exp(v[0]);
  o.gpu_gap_ms_per_kernel = kMaxGpuGapMs * sigmoid(v[1]);
  o.fixed_ms = std::exp(v[2]);
  o.training_host_factor =
      kMinTrainingHostFactor + (kMaxTrainingHostFactor - kMinTrainingHostFactor) * sigmoid(v[3]);
  return o;
}

Vec to_vec(const EagerOverhead& o) {
  return {std::log(o.host_ms_per_op), logit(o.gpu_gap_ms_per_kernel / kMaxGpuGapMs),
          std::log(o.fixed_ms),
          logit((o.training_host_factor - kMinTrainingHostFactor) /
                (kMaxTrainingHostFactor - kMinTrainingHostFactor))};
}

double loss(const Vec& v, const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
            const std::vector<std::size_t>& subset) {
  const EagerOverhead o = from_vec(v);
  double sum = 0;
  for (const auto i : subset) {
    sum += std::fabs(std::log(eager_latency_ms(terms[i], o) / rows[i].latency_ms));
  }
  return subset.empty() ? 0 : sum / static_cast<double>(subset.size());
}

Metrics metrics_for(const std::vector<E2eRow>& rows, const std::vector<double>& pred,
                    const std::vector<std::size_t>& subset) {
  std::vector<double> t, p;
  for (const auto i : subset) {
    t.push_back(rows[i].latency_ms);
    p.push_back(pred[i]);
  }
  return compute_metrics(t, p, kParams);
}

}  // namespace

EagerOverhead calibrate_overhead(const std::vector<E2eRow>& rows,
                                 const std::vector<E2eTerms>& terms,
                                 const std::vector<std::size_t>& subset) {
  // The loss has several local minima (host time and GPU gaps trade against each other), so
  // Nelder-Mead starts from several points, each run restarted once from where it stopped,
  // and the lowest loss wins. {host ms/op, gap ms/kernel, fixed ms, training host factor}:
  constexpr std::array<std::array<double, 4>, 4> kStarts{{{0.012, 0.002, 0.05, 3.0},
                                                          {0.03, 0.001, 0.5, 4.0},
                                                          {0.05, 0.0001, 1.0, 5.0},
                                                          {0.02, 0.004, 2.0, 2.0}}};
  const auto objective = [&](const Vec& v) { return loss(v, rows, terms, subset); };
  NelderMeadResult fit;
  fit.value = std::numeric_limits<double>::infinity();
  for (const auto& s : kStarts) {
    EagerOverhead start;
    start.host_ms_per_op = s[0];
    start.gpu_gap_ms_per_kernel = s[1];
    start.fixed_ms = s[2];
    start.training_host_factor = s[3];
    NelderMeadResult run = nelder_mead(objective, to_vec(start), 0.7);
    run = nelder_mead(objective, run.x, 0.3);
    if (run.value < fit.value) fit = std::move(run);
  }
  EagerOverhead out = from_vec(fit.x);
  out.source = "calibrated on " + std::to_string(subset.size()) +
               " end-to-end rows (mean |log error| " + format_number(fit.value, 3) + ")";
  return out;
}

E2eEvaluation evaluate_e2e(const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
                           const EagerOverhead& overhead) {
  E2eEvaluation ev;
  ev.predicted_ms.resize(rows.size());
  std::vector<std::size_t> all(rows.size());
  std::map<std::string, std::vector<std::size_t>> by_gpu;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ev.predicted_ms[i] = eager_latency_ms(terms[i], overhead);
    all[i] = i;
    by_gpu[rows[i].gpu.name].push_back(i);
  }
  ev.overall = metrics_for(rows, ev.predicted_ms, all);
  for (const auto& [gpu, idx] : by_gpu) ev.per_gpu[gpu] = metrics_for(rows, ev.predicted_ms, idx);
  return ev;
}

E2eEvaluation evaluate_e2e_leave_gpu_out(const std::vector<E2eRow>& rows,
                                         const std::vector<E2eTerms>& terms) {
  E2eEvaluation ev;
  ev.predicted_ms.resize(rows.size());
  std::map<std::string, std::vector<std::size_t>> by_gpu;
  for (std::size_t i = 0; i < rows.size(); ++i) by_gpu[rows[i].gpu.name].push_back(i);
  for (const auto& [gpu, held_out] : by_gpu) {
    std::vector<std::size_t> train;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].gpu.name != gpu) train.push_back(i);
    }
    const EagerOverhead o = calibrate_overhead(rows, terms, train);
    for (const auto i : held_out) ev.predicted_ms[i] = eager_latency_ms(terms[i], o);
    ev.per_gpu[gpu] = metrics_for(rows, ev.predicted_ms, held_out);
  }
  std::vector<std::size_t> all(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) all[i] = i;
  ev.overall = metrics_for(rows, ev.predicted_ms, all);
  return ev;
}

E2eCalibration calibrate_e2e(const std::string& path, const LatencyModel& model) {
  const auto rows = load_e2e_rows(path);
  if (rows.empty()) throw InputError(path + ": no single-GPU rows of zoo networks");
  spdlog::info("{}: {} end-to-end rows; computing model terms", path, rows.size());
  const auto terms = e2e_terms(rows, model);
  std::vector<std::size_t> all(rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  E2eCalibration out;
  out.overhead = calibrate_overhead(rows, terms, all);
  out.overhead.source = "calibrated on " + path + " (" + std::to_string(rows.size()) +
                        " rows) with " + model.name() + " kernel times";
  const E2eEvaluation logo = evaluate_e2e_leave_gpu_out(rows, terms);
  const E2eEvaluation in_sample = evaluate_e2e(rows, terms, out.overhead);
  auto section = [](const E2eEvaluation& e) {
    nlohmann::json per_gpu = nlohmann::json::object();
    for (const auto& [gpu, m] : e.per_gpu) per_gpu[gpu] = to_json(m);
    return nlohmann::json{{"overall", to_json(e.overall)}, {"per_gpu", per_gpu}};
  };
  out.report = {{"file", path},
                {"rows", rows.size()},
                {"leave-gpu-out", section(logo)},
                {"in-sample", section(in_sample)}};
  return out;
}

EagerOverhead load_eager_overhead(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  if (!doc.is_object() || doc.value("kind", "") != "eager_overhead") {
    throw InputError(path + ": kind: expected \"eager_overhead\"");
  }
  if (doc.value("schema_version", 0) != kEagerOverheadSchemaVersion) {
    throw InputError(path + ": schema_version: expected " +
                     std::to_string(kEagerOverheadSchemaVersion));
  }
  return eager_overhead_from_json(doc.value("eager_overhead", nlohmann::json()),
                                  path + ": eager_overhead");
}

const EagerOverhead& bundled_analytical_overhead() {
  static const EagerOverhead overhead =
      load_eager_overhead(find_resource("models/eager_overhead.json").string());
  return overhead;
}

std::unique_ptr<AnalyticalModel> bundled_analytical_model() {
  return std::make_unique<AnalyticalModel>(AnalyticalParams{}, bundled_analytical_overhead());
}

}  // namespace cnnperf
