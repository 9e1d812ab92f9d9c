// SPDX-License-Identifier: Apache-2.0
// pytorch-compile and tensorrt overheads: rows, fit (Nelder-Mead), leave-group-out reports.
#include "cnnperf/ml/runtime_fit.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "cnnperf/common/config.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/model/zoo.hpp"
#include "nelder_mead.hpp"

namespace cnnperf {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string text_field(const CsvTable& t, std::size_t r, const char* field) {
  return t.get(r, field).value_or("");
}

void require_columns(const CsvTable& t, const std::string& path,
                     std::initializer_list<const char*> columns) {
  for (const char* c : columns) {
    if (!t.column(c)) throw InputError(path + ":1: expected a column '" + c + "'");
  }
}

double positive_number(const CsvTable& t, std::size_t r, const char* field) {
  const auto v = t.get_number(r, field);
  if (!v || !(*v > 0)) {
    throw InputError(t.where(r) + ": field '" + field + "': expected a positive number");
  }
  return *v;
}

}  // namespace

DType tensorrt_precision(const GpuSpec& gpu) {
  return gpu.tensor_int8_tops > 0 ? DType::kInt8 : DType::kFp16;
}

std::vector<RuntimeRow> load_compile_pairs(const std::string& named) {
  const std::string path = user_file_or_resource(named);
  const CsvTable t = read_csv(path);
  require_columns(t, path,
                  {"network", "zoo_network", "gpu", "batch", "mode", "runtime", "memory_format",
                   "latency_ms", "framework", "num_gpus"});
  // (timm's network, GPU, batch, framework) -> the eager and the compiled row (timm's
  // resnet34 and tv_resnet34 are both the zoo's resnet34: two pairs).
  using Key = std::tuple<std::string, std::string, std::int64_t, std::string>;
  std::map<Key, std::array<std::optional<RuntimeRow>, 2>> pairs;
  const auto& db = GpuDatabase::bundled();
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string zoo = text_field(t, r, "zoo_network");
    const std::string runtime = text_field(t, r, "runtime");
    if (zoo.empty() || text_field(t, r, "mode") != "inference" ||
        text_field(t, r, "memory_format") != "nchw" || text_field(t, r, "num_gpus") != "1" ||
        (runtime != "pytorch" && runtime != "pytorch-compile")) {
      continue;
    }
    const ZooEntry* entry = find_zoo_entry(zoo);
    if (entry == nullptr) {
      throw InputError(t.where(r) + ": field 'zoo_network': '" + zoo + "' is no zoo network");
    }
    const std::string gpu_name = text_field(t, r, "gpu");
    const auto gpu = db.find(gpu_name);
    if (!gpu) throw InputError(t.where(r) + ": field 'gpu': unknown GPU '" + gpu_name + "'");
    RuntimeRow row;
    row.network = entry->name;
    row.gpu = *gpu;
    row.batch = static_cast<std::int64_t>(positive_number(t, r, "batch"));
    row.dtype = DType::kFp16;  // timm's AMP: convolutions and GEMMs in fp16
    row.runtime = runtime == "pytorch" ? Runtime::kPytorch : Runtime::kPytorchCompile;
    row.latency_ms = positive_number(t, r, "latency_ms");
    auto& slot = pairs[{text_field(t, r, "network") + " " + gpu->name, row.network, row.batch,
                        text_field(t, r, "framework")}][row.runtime == Runtime::kPytorch ? 0 : 1];
    if (slot) {
      throw InputError(t.where(r) + ": a second " + runtime + " row of " + row.network + " on " +
                       gpu->name + " at batch " + std::to_string(row.batch) +
                       " with the same framework; expected one");
    }
    slot = std::move(row);
  }
  std::vector<RuntimeRow> out;
  std::size_t unpaired = 0;
  for (auto& [key, pair] : pairs) {
    if (!pair[0] || !pair[1]) {
      ++unpaired;
      continue;
    }
    out.push_back(std::move(*pair[0]));
    out.push_back(std::move(*pair[1]));
  }
  spdlog::info("{}: {} eager/compiled pairs of zoo networks; {} rows without a pair left out", path,
               out.size() / 2, unpaired);
  if (out.empty()) {
    throw InputError(path + ": no pair of eager and compiled inference rows of a zoo network");
  }
  return out;
}

std::vector<RuntimeRow> load_tensorrt_rows(const std::string& named) {
  const std::string path = user_file_or_resource(named);
  const CsvTable t = read_csv(path);
  require_columns(t, path,
                  {"division", "gpu", "num_gpus", "zoo_network", "scenario", "runtime",
                   "latency_ms", "samples_per_s", "system_id"});
  // GPU -> scenario -> the per-GPU values of its results.
  std::map<std::string, std::map<std::string, std::vector<double>>> values;
  std::map<std::string, GpuSpec> gpus;
  const auto& db = GpuDatabase::bundled();
  std::size_t jetson_offline = 0;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string scenario = text_field(t, r, "scenario");
    const std::string gpu_name = text_field(t, r, "gpu");
    if (text_field(t, r, "zoo_network") != "resnet50" || text_field(t, r, "division") != "closed" ||
        text_field(t, r, "runtime") != "tensorrt" || gpu_name.empty() ||
        (scenario != kSingleStreamScenario && scenario != kOfflineScenario) ||
        text_field(t, r, "system_id").find("MaxQ") != std::string::npos) {
      continue;
    }
    const auto gpu = db.find(gpu_name);
    if (!gpu) throw InputError(t.where(r) + ": field 'gpu': unknown GPU '" + gpu_name + "'");
    const double num_gpus = positive_number(t, r, "num_gpus");
    double value = 0;
    if (scenario == kSingleStreamScenario) {
      if (num_gpus != 1) continue;  // one query at a time: the other GPUs idle
      value = positive_number(t, r, "latency_ms");
    } else {
      if (gpu->segment == "jetson") {
        ++jetson_offline;
        continue;
      }
      const double per_gpu = positive_number(t, r, "samples_per_s") / num_gpus;
      value = 1e3 * static_cast<double>(kOfflinePricedBatch) / per_gpu;
    }
    gpus.emplace(gpu->name, *gpu);
    values[gpu->name][scenario].push_back(value);
  }
  std::vector<RuntimeRow> out;
  for (const auto& [name, by_scenario] : values) {
    for (const auto& [scenario, v] : by_scenario) {
      RuntimeRow row;
      row.network = "resnet50";
      row.gpu = gpus.at(name);
      row.batch = scenario == kSingleStreamScenario ? 1 : kOfflinePricedBatch;
      row.dtype = tensorrt_precision(row.gpu);
      row.runtime = Runtime::kTensorrt;
      row.latency_ms = median(v);
      row.scenario = scenario;
      row.submissions = static_cast<int>(v.size());
      out.push_back(std::move(row));
    }
  }
  spdlog::info(
      "{}: {} GPU-scenario medians of TensorRT ResNet-50 results; {} Jetson Offline "
      "results (GPU + DLA engines) left out",
      path, out.size(), jetson_offline);
  if (out.empty()) throw InputError(path + ": no closed-division TensorRT ResNet-50 result");
  return out;
}

std::vector<EagerTerms> runtime_terms(const std::vector<RuntimeRow>& rows,
                                      const LatencyModel& model) {
  std::vector<EagerTerms> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    NetworkOptions options;
    options.batch = row.batch;
    options.dtype = row.dtype;
    Network net = build_zoo_network(row.network, options);
    apply_runtime_math(net.layers, row.runtime, /*allow_tf32=*/true);
    std::vector<LayerPrediction> predictions = model.predict_network_layers(net.layers, row.gpu);
    apply_runtime_fusion(net.layers, predictions, row.runtime);
    EagerTerms terms;
    for (const auto& p : predictions) {
      terms.kernel_ms += p.kernel_ms;
      terms.kernels += p.kernels;
      terms.ops += p.kernels > 0 ? 1 : 0;
    }
    // As predict_network prices the step.
    terms.l2_resident_scale =
        l2_resident_kernel_scale(net.layers, predictions, row.gpu, model.kernel_params(),
                                 step_resident_bytes(net.layers, row.dtype, Mode::kInference));
    out.push_back(terms);
  }
  return out;
}

namespace {

constexpr double kMinScale = 0.2, kMaxScale = 5.0;
constexpr double kMaxGapMs = 0.05, kMaxFixedMs = 50.0;
constexpr double kMinHostMs = 1e-4, kMaxHostMs = 0.2;

// x: logs of (kernel_time_scale, gap + 1e-6 (ms) or + 1 (cycles), fixed + 1e-4[, host]),
// clamped to the bounds.
EagerOverhead overhead_at(const std::vector<double>& x, const RuntimeFitSpec& spec) {
  EagerOverhead o = spec.base;
  o.kernel_time_scale = std::clamp(std::exp(x[0]), kMinScale, kMaxScale);
  if (spec.gap_in_cycles) {
    o.gpu_gap_ms_per_kernel = 0;
    o.gpu_gap_cycles_per_kernel = std::clamp(std::exp(x[1]) - 1.0, 0.0, kMaxGapCycles);
  } else {
    o.gpu_gap_ms_per_kernel = std::clamp(std::exp(x[1]) - 1e-6, 0.0, kMaxGapMs);
  }
  o.fixed_ms = std::clamp(std::exp(x[2]) - 1e-4, 0.0, kMaxFixedMs);
  if (spec.fit_host_ms_per_op) {
    o.host_ms_per_op = std::clamp(std::exp(x[3]), kMinHostMs, kMaxHostMs);
  }
  return o;
}

// A row's step under `overhead` as it applies to the row's GPU: a gap in cycles becomes ms
// at its clock (overhead_for_gpu; the fitted overheads have no per-GPU terms). An MLPerf
// Offline row is a throughput: its batches run on several streams at once, so each one's
// gaps and fixed cost overlap another's kernels and the GPU's time per batch is its kernels.
double runtime_latency_ms(const RuntimeRow& row, const EagerTerms& terms,
                          const EagerOverhead& overhead) {
  if (row.scenario == kOfflineScenario) {
    return terms.kernel_ms * kernel_time_factor(terms, overhead);
  }
  if (overhead.gpu_gap_cycles_per_kernel == 0) return eager_latency_ms(terms, overhead);
  EagerOverhead on_gpu = overhead;
  on_gpu.gpu_gap_ms_per_kernel = gpu_gap_ms_per_kernel(overhead, row.gpu);
  on_gpu.gpu_gap_cycles_per_kernel = 0;
  return eager_latency_ms(terms, on_gpu);
}

}  // namespace

EagerOverhead fit_runtime_overhead(const std::vector<RuntimeRow>& rows,
                                   const std::vector<EagerTerms>& terms,
                                   const std::vector<std::size_t>& subset,
                                   const RuntimeFitSpec& spec) {
  if (subset.empty()) throw InputError("runtime overhead fit: no rows to fit on");
  const auto loss = [&](const std::vector<double>& x) {
    const EagerOverhead o = overhead_at(x, spec);
    double sum = 0;
    for (const std::size_t i : subset) {
      sum += std::abs(std::log(runtime_latency_ms(rows[i], terms[i], o) / rows[i].latency_ms));
    }
    return sum / static_cast<double>(subset.size());
  };
  // Several starts: the max() of GPU and host time makes the loss piecewise.
  NelderMeadResult best;
  best.value = std::numeric_limits<double>::infinity();
  for (const double scale : {0.6, 1.0, 1.6}) {
    for (const double gap_ms : {0.001, 0.005}) {
      for (const double fixed : {0.05, 0.5}) {
        // The same starts in cycles: at 2 GHz, 1 and 5 us.
        const double gap_start =
            spec.gap_in_cycles ? std::log(gap_ms * 2e6 + 1.0) : std::log(gap_ms + 1e-6);
        std::vector<double> start{std::log(scale), gap_start, std::log(fixed + 1e-4)};
        if (spec.fit_host_ms_per_op) start.push_back(std::log(0.01));
        NelderMeadResult r = nelder_mead(loss, start, 0.5, 800, 1e-9);
        if (r.value < best.value) best = std::move(r);
      }
    }
  }
  return overhead_at(best.x, spec);
}

std::vector<double> predict_leave_group_out(const std::vector<RuntimeRow>& rows,
                                            const std::vector<EagerTerms>& terms,
                                            const std::vector<std::string>& group_of,
                                            const RuntimeFitSpec& spec) {
  std::vector<double> out(rows.size(), 0.0);
  const std::set<std::string> groups(group_of.begin(), group_of.end());
  if (groups.size() < 2) {
    throw InputError("leave-group-out: " + std::to_string(groups.size()) +
                     " group; expected at least 2 to hold one out");
  }
  for (const auto& g : groups) {
    std::vector<std::size_t> train;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (group_of[i] != g) train.push_back(i);
    }
    const EagerOverhead o = fit_runtime_overhead(rows, terms, train, spec);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (group_of[i] == g) out[i] = runtime_latency_ms(rows[i], terms[i], o);
    }
  }
  return out;
}

namespace {

// Metrics of `predicted` against the rows in `idx`, in the scenario's own unit: an Offline
// row's throughput (samples/s), every other row's latency.
Metrics metrics_of(const std::vector<RuntimeRow>& rows, const std::vector<double>& predicted,
                   const std::vector<std::size_t>& idx) {
  std::vector<double> y, p;
  for (const std::size_t i : idx) {
    const bool throughput = rows[i].scenario == kOfflineScenario;
    const double b = static_cast<double>(rows[i].batch);
    y.push_back(throughput ? 1e3 * b / rows[i].latency_ms : rows[i].latency_ms);
    p.push_back(throughput ? 1e3 * b / predicted[i] : predicted[i]);
  }
  return compute_metrics(y, p, /*n_features=*/3);
}

// {"overall", per-slice metrics (by `slice_of`), "rows": [...]}.
nlohmann::json evaluation_json(const std::vector<RuntimeRow>& rows,
                               const std::vector<double>& predicted,
                               const std::vector<std::size_t>& idx,
                               const std::vector<std::string>& slice_of) {
  nlohmann::json out = {{"overall", to_json(metrics_of(rows, predicted, idx))}};
  std::map<std::string, std::vector<std::size_t>> slices;
  for (const std::size_t i : idx) slices[slice_of[i]].push_back(i);
  nlohmann::json per = nlohmann::json::object();
  for (const auto& [name, members] : slices) {
    per[name] = to_json(metrics_of(rows, predicted, members));
  }
  out["per_slice"] = per;
  return out;
}

std::vector<std::size_t> rows_of(const std::vector<RuntimeRow>& rows, Runtime runtime) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].runtime == runtime) idx.push_back(i);
  }
  return idx;
}

// The rows of `idx` alone (a fit and its validation see one runtime's rows).
template <typename T>
std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& idx) {
  std::vector<T> out;
  out.reserve(idx.size());
  for (const std::size_t i : idx) out.push_back(v[i]);
  return out;
}

struct RuntimeReport {
  EagerOverhead overhead;
  nlohmann::json json;
  /// Leave-one-GPU-out: each row's held-out prediction, its GPU the group and the fold.
  std::vector<IntervalResidual> held_out;
};

// Fit on every row, leave-one-GPU-out and leave-one-network-out (when there are 2 or more
// of each), in-sample; slices by GPU and scenario.
RuntimeReport fit_and_validate(const std::vector<RuntimeRow>& rows,
                               const std::vector<EagerTerms>& terms, const RuntimeFitSpec& spec) {
  std::vector<std::size_t> all(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) all[i] = i;
  std::vector<std::string> gpu_of, network_of, slice_of;
  for (const auto& r : rows) {
    gpu_of.push_back(r.gpu.name);
    network_of.push_back(r.network);
    slice_of.push_back(r.scenario.empty() ? r.gpu.name : r.scenario);
  }
  RuntimeReport out;
  out.overhead = fit_runtime_overhead(rows, terms, all, spec);
  const std::set<std::string> gpus(gpu_of.begin(), gpu_of.end());
  const std::set<std::string> networks(network_of.begin(), network_of.end());
  out.json = {{"rows", rows.size()}, {"gpus", gpus}, {"networks", networks.size()}};
  std::vector<double> in_sample;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    in_sample.push_back(runtime_latency_ms(rows[i], terms[i], out.overhead));
  }
  out.json["in-sample"] = evaluation_json(rows, in_sample, all, slice_of);
  if (gpus.size() >= 2) {
    const auto held = predict_leave_group_out(rows, terms, gpu_of, spec);
    out.json["leave-gpu-out"] = evaluation_json(rows, held, all, slice_of);
    // Each row held out, for a comparison on the same folds (bench/e2e_spreadsheet.py).
    nlohmann::json held_rows = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      held_rows.push_back({{"network", rows[i].network},
                           {"gpu", rows[i].gpu.name},
                           {"batch", rows[i].batch},
                           {"precision", to_string(rows[i].dtype)},
                           {"scenario", rows[i].scenario},
                           {"measured_ms", rows[i].latency_ms},
                           {"predicted_ms", held[i]}});
    }
    out.json["leave-gpu-out"]["held_out"] = held_rows;
    const std::vector<std::string> gpu_list(gpus.begin(), gpus.end());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto fold = std::lower_bound(gpu_list.begin(), gpu_list.end(), gpu_of[i]);
      out.held_out.push_back({kNetworkIntervalFamily, held[i], rows[i].latency_ms,
                              static_cast<int>(fold - gpu_list.begin()), gpu_of[i], ""});
    }
    if (!rows.front().scenario.empty()) {
      // Rank correlation across GPUs within each scenario: one row per GPU there.
      nlohmann::json ranks = nlohmann::json::object();
      for (const std::string scenario : {kSingleStreamScenario, kOfflineScenario}) {
        std::vector<std::size_t> idx;
        for (const std::size_t i : all) {
          if (rows[i].scenario == scenario) idx.push_back(i);
        }
        if (idx.size() >= 3) ranks[scenario] = metrics_of(rows, held, idx).spearman;
      }
      out.json["leave-gpu-out"]["spearman_across_gpus"] = ranks;
    }
  } else {
    out.json["leave-gpu-out"] = "not run: rows of " + std::to_string(gpus.size()) + " GPU";
  }
  if (networks.size() >= 2) {
    const auto held = predict_leave_group_out(rows, terms, network_of, spec);
    out.json["leave-network-out"] = evaluation_json(rows, held, all, slice_of);
  } else {
    out.json["leave-network-out"] =
        "not run: rows of " + std::to_string(networks.size()) + " network";
  }
  return out;
}

}  // namespace

RuntimeCalibration calibrate_runtime(Runtime runtime, const std::string& file,
                                     const LatencyModel& model) {
  RuntimeCalibration out;
  out.runtime = runtime;
  std::vector<IntervalResidual> held_out;
  RuntimeFitSpec spec;
  // The input is already on the GPU in both sources (timm's random batch; LoadGen's samples
  // are staged before timing); the per-step fixed term holds the rest.
  spec.base.h2d_gbs = 0;
  spec.base.training_host_factor = 1;
  spec.base.heavy_op_factor = 1;
  spec.base.per_op_overlap = 0;
  if (runtime == Runtime::kPytorchCompile) {
    const std::vector<RuntimeRow> rows = load_compile_pairs(file);
    const std::vector<EagerTerms> terms = runtime_terms(rows, model);
    // timm's rows are all at large batches where the GPU sets the step: the host time per
    // op does not enter any fitted row, so it is not fitted; the eager fit's value stays
    // (an upper bound: compiled code issues fewer and shorter calls than eager dispatch).
    spec.base.host_ms_per_op = bundled_analytical_overhead().host_ms_per_op;
    const auto compiled = rows_of(rows, Runtime::kPytorchCompile);
    const auto eager = rows_of(rows, Runtime::kPytorch);
    const auto crows = pick(rows, compiled);
    const auto cterms = pick(terms, compiled);
    RuntimeReport report = fit_and_validate(crows, cterms, spec);
    out.overhead = report.overhead;
    out.report = report.json;
    held_out = std::move(report.held_out);
    // The same fit on the paired eager rows: eager's error on the same networks, GPUs and
    // batches, beside compile's.
    RuntimeFitSpec eager_spec = spec;
    out.report["eager"] = fit_and_validate(pick(rows, eager), pick(terms, eager), eager_spec).json;
    std::size_t host_bound = 0;
    for (std::size_t i = 0; i < crows.size(); ++i) {
      host_bound += host_issue_ms(cterms[i], out.overhead) >
                            cterms[i].kernel_ms * kernel_time_factor(cterms[i], out.overhead)
                        ? 1
                        : 0;
    }
    out.report["host_ms_per_op"] = {
        {"fitted", false},
        {"value", out.overhead.host_ms_per_op},
        {"host_bound_rows", host_bound},
        {"why",
         "every compiled row is GPU-bound at its batch: the host term enters no fitted "
         "row; the eager fit's value is kept as an upper bound"}};
  } else if (runtime == Runtime::kTensorrt) {
    const std::vector<RuntimeRow> rows = load_tensorrt_rows(file);
    const std::vector<EagerTerms> terms = runtime_terms(rows, model);
    // TensorRT enqueues a whole engine at once: no per-op host issue, the per-kernel gap and
    // the per-step fixed cost are its overhead. The gap is the GPU's own, so it is counted in
    // its SM cycles: batch-1 latencies of 0.23-0.52 ms over 56 kernels are 10-13 thousand
    // cycles per kernel on every data-centre and desktop GPU here, 4-9 us (docs/methodology.md).
    spec.base.host_ms_per_op = 0;
    spec.gap_in_cycles = true;
    RuntimeReport report = fit_and_validate(rows, terms, spec);
    out.overhead = report.overhead;
    out.report = report.json;
    held_out = std::move(report.held_out);
    nlohmann::json medians = nlohmann::json::array();
    for (const auto& r : rows) {
      medians.push_back({{"gpu", r.gpu.name},
                         {"scenario", r.scenario},
                         {"precision", to_string(r.dtype)},
                         {"submissions", r.submissions},
                         {"measured_ms_at_batch", r.latency_ms},
                         {"batch", r.batch}});
    }
    out.report["medians"] = medians;
  } else {
    throw InputError(
        "runtime " + to_string(runtime) +
        ": expected pytorch-compile or tensorrt (the eager overhead has a fit of its own, "
        "calibrate_e2e)");
  }
  if (!held_out.empty()) {
    // A step of a GPU without rows spreads as the held-out GPUs' steps did; the coverage
    // scores each GPU's steps with a table fitted on the other GPUs' alone. With two GPUs
    // each fold sees one GPU and no spread between GPUs, so no table is written.
    std::set<std::string> gpus;
    for (const auto& r : held_out) gpus.insert(r.group);
    out.report["intervals"] = {{"scheme", "leave-one-GPU-out"},
                               {"residuals", held_out.size()},
                               {"gpus", gpus.size()},
                               {"coverage", to_json(cross_validated_coverage(held_out))}};
    if (gpus.size() >= kMinStepIntervalGpus) {
      out.step_intervals = IntervalTable::fit(held_out);
    } else {
      out.report["intervals"]["table"] =
          "not written: rows of " + std::to_string(gpus.size()) + " GPUs, fewer than " +
          std::to_string(kMinStepIntervalGpus) + " (each fold would fit one GPU's spread)";
      // Such a step takes the eager steps' table of the same kernel model (predict): how much
      // of these held-out steps it holds.
      const auto& eager = bundled_intervals();
      if (eager && model.name() == kAnalyticalModelName) {
        Coverage coverage;
        for (const auto& r : held_out) {
          coverage.count(eager->interval(r.family, r.predicted_ms), r.measured_ms);
        }
        out.report["intervals"]["eager_table"] = {{"file", kBundledIntervals},
                                                  {"coverage", to_json(coverage)}};
      }
    }
  }
  out.overhead.unseen_gpu_terms = UnseenGpuTerms::kShared;
  out.overhead.source = "fitted on " + file + " (" + to_string(runtime) + ", " +
                        std::to_string(out.report.value("rows", 0)) + " rows) with " +
                        model.name() + " kernel times";
  out.report["file"] = file;
  return out;
}

std::string runtime_overhead_kind(Runtime runtime) {
  return runtime == Runtime::kTensorrt ? "tensorrt_overhead" : "compile_overhead";
}

std::string bundled_runtime_overhead_path(Runtime runtime) {
  return runtime == Runtime::kTensorrt ? "models/tensorrt_overhead.json"
                                       : "models/compile_overhead.json";
}

nlohmann::json to_json(const RuntimeCalibration& c) {
  nlohmann::json out = {{"kind", runtime_overhead_kind(c.runtime)},
                        {"schema_version", kRuntimeOverheadSchemaVersion},
                        {"tool_version", CNNPERF_VERSION},
                        {"runtime", to_string(c.runtime)},
                        {"provenance", {{"file", c.report.value("file", "")}}},
                        {"overhead", to_json(c.overhead)},
                        {"report", c.report}};
  if (!c.step_intervals.empty()) out["step_intervals"] = c.step_intervals.to_json();
  return out;
}

namespace {

// A runtime-overhead file's document, its schema version checked, and its runtime (from its
// kind; `runtime` when given is the only one accepted).
std::pair<nlohmann::json, Runtime> runtime_overhead_doc(const std::string& path,
                                                        std::optional<Runtime> runtime) {
  nlohmann::json doc = read_json_file(path);
  const std::string kind = doc.is_object() ? doc.value("kind", "") : "";
  std::optional<Runtime> of_kind;
  for (const Runtime r : {Runtime::kPytorchCompile, Runtime::kTensorrt}) {
    if (kind == runtime_overhead_kind(r)) of_kind = r;
  }
  if (!of_kind || (runtime && *of_kind != *runtime)) {
    const std::string expected = runtime ? "\"" + runtime_overhead_kind(*runtime) + "\""
                                         : "\"" + runtime_overhead_kind(Runtime::kPytorchCompile) +
                                               "\" or \"" +
                                               runtime_overhead_kind(Runtime::kTensorrt) + "\"";
    throw InputError(path + ": kind: expected " + expected +
                     (kind.empty() ? "" : ", got \"" + kind + "\""));
  }
  if (doc.value("schema_version", 0) != kRuntimeOverheadSchemaVersion) {
    throw InputError(path + ": schema_version: expected " +
                     std::to_string(kRuntimeOverheadSchemaVersion));
  }
  return {std::move(doc), *of_kind};
}

RuntimeOverheadFile runtime_overhead_file(const std::string& path, std::optional<Runtime> runtime) {
  const auto [doc, of_kind] = runtime_overhead_doc(path, runtime);
  RuntimeOverheadFile out;
  out.runtime = of_kind;
  out.overhead =
      eager_overhead_from_json(doc.value("overhead", nlohmann::json()), path + ": overhead");
  if (doc.contains("step_intervals")) {
    out.step_intervals = IntervalTable::from_json(doc["step_intervals"], path + ": step_intervals");
  }
  return out;
}

}  // namespace

EagerOverhead load_runtime_overhead(const std::string& path, Runtime runtime) {
  return runtime_overhead_file(path, runtime).overhead;
}

RuntimeOverheadFile load_runtime_overhead_file(const std::string& path) {
  return runtime_overhead_file(path, std::nullopt);
}

namespace {

// What a runtime's bundled file holds; both absent when the file is not installed.
struct BundledRuntime {
  std::optional<EagerOverhead> overhead;
  std::optional<IntervalTable> step_intervals;
};

BundledRuntime load_bundled_runtime(Runtime runtime) {
  std::filesystem::path path;
  try {
    path = find_resource(bundled_runtime_overhead_path(runtime));
  } catch (const Error&) {
    return {};  // not installed: the runtime is unavailable, said where asked
  }
  RuntimeOverheadFile file = runtime_overhead_file(path.string(), runtime);
  return {std::move(file.overhead), std::move(file.step_intervals)};
}

// The runtime's bundled file, read on the first use of its runtime only; nullptr for a
// runtime without one (eager and cudnn steps take the eager file).
const BundledRuntime* bundled_runtime(Runtime runtime) {
  if (runtime == Runtime::kTensorrt) {
    static const BundledRuntime tensorrt = load_bundled_runtime(Runtime::kTensorrt);
    return &tensorrt;
  }
  if (runtime == Runtime::kPytorchCompile) {
    static const BundledRuntime compile = load_bundled_runtime(Runtime::kPytorchCompile);
    return &compile;
  }
  return nullptr;
}

}  // namespace

const IntervalTable* bundled_runtime_step_intervals(Runtime runtime) {
  const BundledRuntime* bundled = bundled_runtime(runtime);
  return bundled && bundled->step_intervals ? &*bundled->step_intervals : nullptr;
}

std::optional<EagerOverhead> bundled_runtime_overhead(Runtime runtime) {
  const BundledRuntime* bundled = bundled_runtime(runtime);
  return bundled ? bundled->overhead : std::nullopt;
}

}  // namespace cnnperf
