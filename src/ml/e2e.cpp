// SPDX-License-Identifier: Apache-2.0
// End-to-end rows, eager-framework overhead calibration (Nelder-Mead) and evaluation.
#include "cnnperf/ml/e2e.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/common/json_io.hpp"
#include "cnnperf/ml/interval_residuals.hpp"
#include "cnnperf/ml/runtime_fit.hpp"
#include "cnnperf/model/zoo.hpp"
#include "nelder_mead.hpp"
#include "parallel.hpp"

namespace cnnperf {

namespace {

// The network spec of a HELP row: "nb201:<cell>" for `space` nasbench201, "fbnet:<blocks>".
std::string help_network(const std::string& space, const std::string& arch,
                         const std::string& where) {
  if (space == "nasbench201") return "nb201:" + arch;
  if (space == "fbnet") return "fbnet:" + arch;
  throw InputError(where + ": field 'space': expected nasbench201 or fbnet, got '" + space + "'");
}

}  // namespace

std::vector<E2eRow> load_e2e_rows(const std::string& named) {
  const std::string path = user_file_or_resource(named);  // `datasets/...` from any directory
  const CsvTable t = read_csv(path);
  // Two layouts: pytorch-gpu-benchmark's zoo networks (`network`, `dtype`) and HELP's NAS
  // networks (`space`, `arch`; fp32; the GPU's model in `gpu_name`, HELP's key in `gpu`).
  const bool nas = t.column("space") && t.column("arch");
  const std::vector<const char*> required =
      nas ? std::vector<const char*>{"space", "arch", "gpu", "batch", "mode", "latency_ms"}
          : std::vector<const char*>{"network", "gpu", "batch", "dtype", "mode", "latency_ms"};
  for (const char* col : required) {
    if (!t.column(col)) throw InputError(path + ":1: expected a column '" + col + "'");
  }
  const char* gpu_column = nas && t.column("gpu_name") ? "gpu_name" : "gpu";
  std::vector<E2eRow> rows;
  std::map<std::string, GpuSpec> cache;
  const auto& db = GpuDatabase::bundled();
  // Rows left out are counted and said, so a file of unusable rows does not pass for a
  // smaller good one.
  std::size_t outside_zoo = 0, not_positive = 0, other_runtime = 0, channels_last = 0;
  std::string first_outside, first_not_positive;
  // Files of several runtimes and layouts (datasets/e2e_timm.csv.gz) say which rows are eager
  // PyTorch in NCHW, the setting the eager overhead terms model; files without the columns
  // are all such rows. `zoo_network`, where present, names the zoo network of the same
  // architecture and input size; `network` then keeps the source's own name.
  const bool has_runtime = t.column("runtime").has_value();
  const bool has_layout = t.column("memory_format").has_value();
  const bool has_zoo_column = t.column("zoo_network").has_value();
  const bool has_timing = t.column("timing_method").has_value();
  const auto required_number = [&](std::size_t r, const char* field) {
    const auto value = t.get_number(r, field);
    if (!value) throw InputError(t.where(r) + ": field '" + field + "': expected a number");
    return *value;
  };
  const auto required_text = [&](std::size_t r, const char* field) {
    auto value = t.get(r, field);
    if (!value) throw InputError(t.where(r) + ": field '" + field + "': expected a value");
    return std::move(*value);
  };
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    E2eRow row;
    if (nas) {
      row.network = help_network(required_text(r, "space"), required_text(r, "arch"), t.where(r));
    } else {
      if (has_runtime && t.get(r, "runtime").value_or("") != "pytorch") {
        ++other_runtime;
        continue;
      }
      if (has_layout && t.get(r, "memory_format").value_or("") != "nchw") {
        ++channels_last;
        continue;
      }
      const std::string network = required_text(r, "network");
      const std::string zoo_name = has_zoo_column ? t.get(r, "zoo_network").value_or("") : network;
      const ZooEntry* entry = zoo_name.empty() ? nullptr : find_zoo_entry(zoo_name);
      if (entry == nullptr) {
        if (outside_zoo++ == 0) first_outside = t.where(r) + ": '" + network + "'";
        continue;
      }
      row.network = entry->name;  // the zoo's spelling, as network_step_key takes it
    }
    row.gpu_name = required_text(r, gpu_column);
    auto it = cache.find(row.gpu_name);
    if (it == cache.end()) {
      const auto spec = db.find(row.gpu_name);
      if (!spec) {
        throw InputError(t.where(r) + ": field '" + gpu_column + "': unknown GPU '" + row.gpu_name +
                         "'");
      }
      it = cache.emplace(row.gpu_name, *spec).first;
    }
    row.gpu = it->second;
    row.batch = static_cast<std::int64_t>(required_number(r, "batch"));
    if (t.column("num_gpus")) {
      const auto n = t.get_number(r, "num_gpus");
      if (!n || *n < 1 || *n > kMaxDataParallelGpus || *n != std::floor(*n)) {
        throw InputError(t.where(r) + ": field 'num_gpus': expected a count of 1 to " +
                         std::to_string(kMaxDataParallelGpus));
      }
      row.num_gpus = static_cast<int>(*n);
    }
    try {
      if (t.column("dtype")) row.dtype = dtype_from_string(required_text(r, "dtype"));
      row.mode = mode_from_string(required_text(r, "mode"));
    } catch (const InputError& e) {
      throw InputError(t.where(r) + ": " + e.what());
    }
    row.latency_ms = required_number(r, "latency_ms");
    if (has_timing) {
      row.input_copy_timed = !timing_excludes_input_copy(t.get(r, "timing_method").value_or(""));
    }
    if (row.latency_ms <= 0) {
      if (not_positive++ == 0) first_not_positive = t.where(r);
      continue;
    }
    rows.push_back(std::move(row));
  }
  if (other_runtime > 0) {
    spdlog::info("{}: {} rows of runtimes other than eager pytorch left out", path, other_runtime);
  }
  if (channels_last > 0) {
    spdlog::info("{}: {} rows in a memory format other than nchw left out", path, channels_last);
  }
  if (outside_zoo > 0) {
    spdlog::warn("{}: {} rows of networks outside the zoo left out (first: {})", path, outside_zoo,
                 first_outside);
  }
  if (not_positive > 0) {
    spdlog::warn("{}: {} rows with latency_ms not positive left out (first: {})", path,
                 not_positive, first_not_positive);
  }
  return rows;
}

std::vector<E2eRow> load_e2e_rows(const std::vector<std::string>& files) {
  if (files.empty()) throw ParameterError("e2e", "expected at least one end-to-end CSV");
  const std::vector<std::string> expanded = user_file_list(files, "e2e");
  std::vector<E2eRow> rows;
  std::string first_layout_file;
  std::string first_layout;
  for (const auto& file : expanded) {
    std::vector<E2eRow> part = load_e2e_rows(file);
    if (part.empty()) continue;
    // Each file is one layout; zoo and NAS rows have overheads of their own.
    const std::string layout = e2e_network_source(part) == "zoo" ? "torchvision" : "NAS";
    if (first_layout.empty()) {
      first_layout = layout;
      first_layout_file = file;
    } else if (layout != first_layout) {
      throw InputError(file + ": " + layout + " networks after " + first_layout + " networks in " +
                       first_layout_file +
                       "; expected files of one kind (calibrate and validate them apart)");
    }
    rows.insert(rows.end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
  }
  return rows;
}

void require_single_gpu_rows(const std::vector<E2eRow>& rows, const std::string& path) {
  if (std::none_of(rows.begin(), rows.end(), [](const E2eRow& r) { return r.num_gpus == 1; })) {
    throw InputError(path + ": no single-GPU rows of zoo networks");
  }
}

bool timing_excludes_input_copy(std::string_view timing_method) {
  return timing_method.find("input-on-gpu") != std::string_view::npos;
}

std::vector<E2eTerms> e2e_terms(const std::vector<E2eRow>& rows, const LatencyModel& model) {
  // One prediction per distinct (network, GPU, batch, precision, mode), on every core: the
  // HELP file has 222k rows, each its own network on its GPU.
  using Key = std::tuple<std::string, std::string, std::int64_t, int, int>;
  std::map<Key, std::size_t> index;
  std::vector<std::size_t> first_row;  // a row of each distinct key
  std::vector<std::size_t> key_of(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const E2eRow& row = rows[r];
    const Key key{row.network, row.gpu.name, row.batch, static_cast<int>(row.dtype),
                  static_cast<int>(row.mode)};
    const auto [it, inserted] = index.emplace(key, first_row.size());
    if (inserted) first_row.push_back(r);
    key_of[r] = it->second;
  }
  std::vector<E2eTerms> distinct(first_row.size());
  const bool progress = first_row.size() >= 10000;
  std::atomic<std::size_t> done{0};
  ml_detail::parallel_for(
      first_row.size(), std::thread::hardware_concurrency(), [&](std::size_t k) {
        const E2eRow& row = rows[first_row[k]];
        NetworkOptions options;
        options.batch = row.batch;
        options.dtype = row.dtype;
        Network net = is_nas_network_spec(row.network) ? build_nas_network(row.network, options)
                                                       : build_zoo_network(row.network, options);
        // pytorch-gpu-benchmark ran PyTorch's defaults: fp32 convolutions on TF32 tensor cores
        // on the A100 (cuDNN 8.0.4); it matters on no other GPU of these rows.
        allow_tf32_convolutions(net);
        // Power does not enter the terms; the default power parameters avoid a file read.
        distinct[k] = predict_network(net, row.gpu, model, row.mode, PowerModel{}).eager;
        const std::size_t n = ++done;
        if (progress && n % 50000 == 0) {
          spdlog::info("end-to-end terms: {} of {} configurations", n, first_row.size());
        }
      });
  std::vector<E2eTerms> out;
  out.reserve(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out.push_back(distinct[key_of[r]]);
    out.back().num_gpus = rows[r].num_gpus;
    // The harness's own step: timm's input batch is made on the GPU, so nothing is copied.
    if (!rows[r].input_copy_timed) out.back().input_bytes = 0;
  }
  return out;
}

namespace {

// host ms/op, gap ms/kernel, fixed ms, training factor, heavy-op factor, per-op overlap
constexpr int kSharedParams = 6;
constexpr int kParamsPerGpu = 4;  // a GPU's own host ms/op, fixed ms, factor, kernel scale
using Vec = std::vector<double>;

// Physical bounds of two parameters. Per-op host time and a per-kernel GPU gap both explain a
// cost per op, so unbounded fits can trade one for the other: without the GPU it predicts,
// an unbounded fit chose 24 us of idle GPU per kernel and 207 host ops per training op,
// and predicted the held-out GPU worse (research/notes/accuracy-history.md). A busy stream's
// gap between dependent kernels is a few microseconds, and a training step issues a few host
// ops per forward op.
constexpr double kMaxGpuGapMs = 0.005;
constexpr double kMinTrainingHostFactor = 1.0;
constexpr double kMaxTrainingHostFactor = 10.0;
// A convolution or normalization issues at least an elementwise op's host work; HELP's NAS
// rows fit 4.9, at first the upper bound (docs/methodology.md: a bound of 8 fitted worse on
// every split).
constexpr double kMinHeavyOpFactor = 1.0;
constexpr double kMaxHeavyOpFactor = 5.0;

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
// Clamped: a fit that ends at a bound (sigmoid ~ 0 or 1 in double precision) must map back to
// a finite start for the next stage.
double logit(double p) {
  constexpr double kEps = 1e-9;
  p = std::clamp(p, kEps, 1.0 - kEps);
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
  o.heavy_op_factor = kMinHeavyOpFactor + (kMaxHeavyOpFactor - kMinHeavyOpFactor) * sigmoid(v[4]);
  o.per_op_overlap = sigmoid(v[5]);
  return o;
}

Vec to_vec(const EagerOverhead& o) {
  return {std::log(o.host_ms_per_op),
          logit(o.gpu_gap_ms_per_kernel / kMaxGpuGapMs),
          std::log(o.fixed_ms),
          logit((o.training_host_factor - kMinTrainingHostFactor) /
                (kMaxTrainingHostFactor - kMinTrainingHostFactor)),
          logit((o.heavy_op_factor - kMinHeavyOpFactor) / (kMaxHeavyOpFactor - kMinHeavyOpFactor)),
          logit(o.per_op_overlap)};
}

// Mean |log(predicted / measured)| over `subset` with one overhead for all its rows; with
// `weight` (indexed by row, averaging 1 over `subset`), the weighted mean.
double mean_abs_log_error(const EagerOverhead& o, const std::vector<E2eRow>& rows,
                          const std::vector<E2eTerms>& terms,
                          const std::vector<std::size_t>& subset,
                          const std::vector<double>* weight = nullptr) {
  // Fixed chunks summed in order: the same loss on any number of cores.
  constexpr std::size_t kChunk = 4096;
  const std::size_t chunks = (subset.size() + kChunk - 1) / kChunk;
  std::vector<double> partial(chunks, 0.0);
  ml_detail::parallel_for(chunks, std::thread::hardware_concurrency(), [&](std::size_t c) {
    double sum = 0;
    for (std::size_t k = c * kChunk; k < std::min(subset.size(), (c + 1) * kChunk); ++k) {
      const std::size_t i = subset[k];
      const double w = weight != nullptr ? (*weight)[i] : 1.0;
      sum += w * std::fabs(std::log(eager_latency_ms(terms[i], o) / rows[i].latency_ms));
    }
    partial[c] = sum;
  });
  const double sum = std::accumulate(partial.begin(), partial.end(), 0.0);
  return subset.empty() ? 0 : sum / static_cast<double>(subset.size());
}

double loss(const Vec& v, const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
            const std::vector<std::size_t>& subset, const std::vector<double>& weight) {
  return mean_abs_log_error(from_vec(v), rows, terms, subset, &weight);
}

// Row weights (indexed by row) under which every GPU of `subset` weighs the same in total:
// the shared terms stand for a GPU without rows, i.e. an unknown measuring machine, so a GPU
// measured in several runs (the RTX 2080 Ti's 328 rows against 108 of each other GPU) must
// not pull them toward its machine. Averages 1 over `subset`.
std::vector<double> equal_gpu_weights(const std::vector<E2eRow>& rows,
                                      const std::vector<std::size_t>& subset) {
  std::map<std::string, std::size_t> per_gpu;
  for (const auto i : subset) ++per_gpu[rows[i].gpu.name];
  std::vector<double> weight(rows.size(), 0.0);
  for (const auto i : subset) {
    weight[i] = static_cast<double>(subset.size()) /
                static_cast<double>(per_gpu.size() * per_gpu[rows[i].gpu.name]);
  }
  return weight;
}

// A GPU's own terms need enough of its rows (several networks, both modes and precisions) to
// separate host time from kernel time; the end-to-end GPUs have 108 or more.
constexpr std::size_t kMinRowsPerGpu = 50;
// A machine that runs the model's kernels more than 2x slower or faster than predicted points
// at a model defect that a scale should not hide.
constexpr double kMaxKernelTimeScale = 2.0;

double kernel_time_scale(double w) {
  return std::pow(kMaxKernelTimeScale, std::tanh(w));
}

// Stage two of the calibration: one GPU's own host time per op, fixed cost, training host
// factor and kernel-time scale, fitted on its rows in `subset` with the shared gap per kernel
// (bounded like the shared terms; starts from the shared fit).
GpuEagerCalibration calibrate_gpu(const EagerOverhead& shared, const std::vector<E2eRow>& rows,
                                  const std::vector<E2eTerms>& terms,
                                  const std::vector<std::size_t>& gpu_rows) {
  const auto overhead = [&](const Vec& w) {
    EagerOverhead o = shared;
    o.host_ms_per_op = std::exp(w[0]);
    o.fixed_ms = std::exp(w[1]);
    o.training_host_factor =
        kMinTrainingHostFactor + (kMaxTrainingHostFactor - kMinTrainingHostFactor) * sigmoid(w[2]);
    o.kernel_time_scale = kernel_time_scale(w[3]);
    return o;
  };
  const auto objective = [&](const Vec& w) {
    return mean_abs_log_error(overhead(w), rows, terms, gpu_rows);
  };
  const Vec s = to_vec(shared);  // {log host, gap, log fixed, logit training factor}
  const Vec start_of_shared{s[0], s[2], s[3], 0.0};
  NelderMeadResult fit;
  fit.value = std::numeric_limits<double>::infinity();
  // The other starts do not inherit the shared fixed cost: a shared fit can end at ~0 ms
  // (1e-18 with learned kernel times), from where the simplex would need many steps.
  for (const auto& start :
       std::array<Vec, 3>{start_of_shared, Vec{s[0] + 0.4, std::log(1.0), s[3] + 0.5, 0.3},
                          Vec{s[0] - 0.4, std::log(0.2), s[3] - 0.5, -0.3}}) {
    NelderMeadResult run = nelder_mead(objective, start, 0.3, 2000);
    run = nelder_mead(objective, run.x, 0.1, 2000);
    if (run.value < fit.value) fit = std::move(run);
  }
  // Never worse than the shared terms on this GPU's own rows.
  const EagerOverhead o = std::isfinite(fit.value) && fit.value <= objective(start_of_shared)
                              ? overhead(fit.x)
                              : shared;
  return {o.host_ms_per_op,
          o.fixed_ms,
          o.training_host_factor,
          o.kernel_time_scale,
          static_cast<int>(gpu_rows.size()),
          rows[gpu_rows.front()].gpu.architecture};
}

// Stage three's prior: a network's scale is its rows' geometric-mean ratio with one more row
// at ratio 1, so a network measured once moves half-way (10-fold over configurations
// preferred 1 to 0.3 and 3; research/notes/accuracy-history.md).
constexpr double kNetworkPriorRows = 1.0;
// A network that runs more than 2x off the formula points at a zoo or model defect.
constexpr double kMaxStepScale = 2.0;

// A zoo network's own scale; a NAS network's space shares one (step_scale_network).
std::string step_network(const E2eRow& row) {
  const std::string space = nas_space_of(row.network);
  return space.empty() ? row.network : space;
}

std::string step_key(const E2eRow& row) {
  return network_step_key(step_network(row), row.dtype, row.mode);
}

// Metrics of `subset`; adjusted R-squared counts the shared terms and four per GPU of the
// subset that has enough rows for its own.
Metrics metrics_for(const std::vector<E2eRow>& rows, const std::vector<double>& pred,
                    const std::vector<std::size_t>& subset) {
  std::vector<double> t, p;
  std::map<std::string, std::size_t> rows_per_gpu;
  for (const auto i : subset) {
    t.push_back(rows[i].latency_ms);
    p.push_back(pred[i]);
    ++rows_per_gpu[rows[i].gpu.name];
  }
  int params = kSharedParams;
  for (const auto& [gpu, n] : rows_per_gpu) params += n >= kMinRowsPerGpu ? kParamsPerGpu : 0;
  return compute_metrics(t, p, params);
}

DataParallelTerms data_parallel_from_vec(const Vec& v, int rows) {
  // Log space keeps every term positive; a term the data do not need ends near zero.
  return {std::exp(v[0]), std::exp(v[1]), std::exp(v[2]), std::exp(v[3]), std::exp(v[4]), rows};
}

// Stage four: the nn.DataParallel terms, fitted on multi-GPU rows with everything the
// single-GPU stages fitted held fixed (mean |log error|, Nelder-Mead from several starts).
// `shared`: terms for any GPU, their weight terms per PCIe link (each row's weight MB times
// weight_broadcast_factor of its GPU); else one machine's own, on its own link.
DataParallelTerms calibrate_data_parallel(const EagerOverhead& base,
                                          const std::vector<E2eRow>& rows,
                                          const std::vector<E2eTerms>& terms,
                                          const std::vector<std::size_t>& multi,
                                          const std::vector<Vec>& starts, bool shared) {
  // The terms add linearly to a row's step without them: precompute that step and each
  // term's multiplier, {1, MB, MB in training, ops, ops in training} x (GPUs - 1).
  struct Row {
    double base_ms;
    std::array<double, 5> x;
    double measured_ms;
  };
  EagerOverhead without = base;
  without.data_parallel = {};
  without.data_parallel_per_gpu.clear();
  std::vector<Row> prepared;
  for (const auto i : multi) {
    const E2eTerms& t = terms[i];
    const double extra = t.num_gpus - 1;
    const double mb = t.weight_bytes / 1e6 * (shared ? weight_broadcast_factor(rows[i].gpu) : 1.0);
    const double training = t.training ? 1.0 : 0.0;
    prepared.push_back(
        {eager_latency_ms(t, overhead_for(without, rows[i].gpu, step_key(rows[i]))),
         {extra, extra * mb, extra * mb * training, extra * t.ops, extra * t.ops * training},
         rows[i].latency_ms});
  }
  const auto objective = [&](const Vec& v) {
    std::array<double, 5> w{};
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = std::exp(v[k]);
    double sum = 0;
    for (const auto& r : prepared) {
      double ms = r.base_ms;
      for (std::size_t k = 0; k < w.size(); ++k) ms += r.x[k] * w[k];
      sum += std::fabs(std::log(ms / r.measured_ms));
    }
    return sum / static_cast<double>(prepared.size());
  };
  NelderMeadResult fit;
  fit.value = std::numeric_limits<double>::infinity();
  for (const auto& start : starts) {
    NelderMeadResult run = nelder_mead(objective, start, 0.7, 3000);
    run = nelder_mead(objective, run.x, 0.3, 3000);
    if (run.value < fit.value) fit = std::move(run);
  }
  DataParallelTerms out = data_parallel_from_vec(fit.x, static_cast<int>(multi.size()));
  for (const auto i : multi) out.max_num_gpus = std::max(out.max_num_gpus, terms[i].num_gpus);
  return out;
}

Vec to_vec(const DataParallelTerms& d) {
  constexpr double kFloor = 1e-6;  // a zero term maps to a finite start
  return {std::log(std::max(d.fixed_ms, kFloor)), std::log(std::max(d.ms_per_weight_mb, kFloor)),
          std::log(std::max(d.training_ms_per_weight_mb, kFloor)),
          std::log(std::max(d.host_ms_per_op, kFloor)),
          std::log(std::max(d.training_host_ms_per_op, kFloor))};
}

// The configuration k-fold of calibrate_e2e's report: fixed, so that reports compare.
constexpr int kE2eConfigFolds = 10;
constexpr std::uint64_t kE2eFoldSeed = 42;

// The metrics of ev.predicted_ms: single-GPU rows (overall, per GPU), then multi-GPU rows.
void set_metrics(E2eEvaluation& ev, const std::vector<E2eRow>& rows) {
  std::vector<std::size_t> single;
  std::vector<std::size_t> multi;
  std::map<std::string, std::vector<std::size_t>> single_by_gpu;
  std::map<std::string, std::vector<std::size_t>> multi_by_gpu;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const bool is_multi = rows[i].num_gpus > 1;
    (is_multi ? multi : single).push_back(i);
    (is_multi ? multi_by_gpu : single_by_gpu)[rows[i].gpu.name].push_back(i);
  }
  ev.overall = metrics_for(rows, ev.predicted_ms, single);
  for (const auto& [gpu, idx] : single_by_gpu) {
    ev.per_gpu[gpu] = metrics_for(rows, ev.predicted_ms, idx);
  }
  std::map<std::string, std::vector<std::size_t>> by_slice;
  for (const auto i : single) {
    const std::string space = nas_space_of(rows[i].network);
    if (space.empty()) continue;
    // HELP's unit: one device and batch, where a NAS search ranks architectures.
    by_slice[space + " batch " + std::to_string(rows[i].batch) + " on " + rows[i].gpu.name]
        .push_back(i);
  }
  for (const auto& [slice, idx] : by_slice) {
    ev.per_slice[slice] = metrics_for(rows, ev.predicted_ms, idx);
  }
  ev.data_parallel_rows = multi.size();
  if (multi.empty()) return;
  ev.data_parallel = metrics_for(rows, ev.predicted_ms, multi);
  for (const auto& [gpu, idx] : multi_by_gpu) {
    ev.data_parallel_per_gpu[gpu] = metrics_for(rows, ev.predicted_ms, idx);
  }
}

// Each group of rows (`group[i]` is row i's) predicted by an overhead calibrated on the
// other groups' rows, once for each of `policies` (one fit per group serves them all);
// metrics per GPU and overall. A GPU absent from a fit gets what the policy gives it, a
// network absent from it its family's step scale or none.
std::vector<E2eEvaluation> evaluate_leave_group_out(const std::vector<E2eRow>& rows,
                                                    const std::vector<E2eTerms>& terms,
                                                    const std::vector<std::string>& group,
                                                    const std::vector<UnseenGpuTerms>& policies) {
  std::vector<E2eEvaluation> ev(policies.size());
  for (auto& e : ev) e.predicted_ms.resize(rows.size());
  std::map<std::string, std::vector<std::size_t>> by_group;
  for (std::size_t i = 0; i < rows.size(); ++i) by_group[group[i]].push_back(i);
  for (const auto& [name, held_out] : by_group) {
    std::vector<std::size_t> train;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (group[i] != name) train.push_back(i);
    }
    EagerOverhead o = calibrate_overhead(rows, terms, train);
    for (std::size_t p = 0; p < policies.size(); ++p) {
      o.unseen_gpu_terms = policies[p];
      for (const auto i : held_out) {
        ev[p].predicted_ms[i] =
            eager_latency_ms(terms[i], overhead_for(o, rows[i].gpu, step_key(rows[i])));
      }
    }
  }
  for (auto& e : ev) set_metrics(e, rows);
  return ev;
}

E2eEvaluation evaluate_leave_group_out(const std::vector<E2eRow>& rows,
                                       const std::vector<E2eTerms>& terms,
                                       const std::vector<std::string>& group,
                                       UnseenGpuTerms policy) {
  return std::move(
      evaluate_leave_group_out(rows, terms, group, std::vector<UnseenGpuTerms>{policy}).front());
}

std::vector<std::string> gpu_groups(const std::vector<E2eRow>& rows) {
  std::vector<std::string> group;
  group.reserve(rows.size());
  for (const auto& row : rows) group.push_back(row.gpu.name);
  return group;
}

}  // namespace

EagerOverhead calibrate_overhead(const std::vector<E2eRow>& rows,
                                 const std::vector<E2eTerms>& terms,
                                 const std::vector<std::size_t>& all_rows) {
  // Stages one to three read the single-GPU rows, stage four the multi-GPU ones.
  std::vector<std::size_t> subset;
  std::vector<std::size_t> multi;
  for (const auto i : all_rows) (rows[i].num_gpus > 1 ? multi : subset).push_back(i);
  // The loss has several local minima (host time and GPU gaps trade against each other), so
  // Nelder-Mead starts from several points, each run restarted once from where it stopped,
  // and the lowest loss wins. {host ms/op, gap ms/kernel, fixed ms, training host factor,
  // heavy-op factor, per-op overlap}:
  constexpr std::array<std::array<double, 6>, 4> kStarts{{{0.012, 0.002, 0.05, 3.0, 1.5, 0.5},
                                                          {0.03, 0.001, 0.5, 4.0, 2.5, 0.2},
                                                          {0.05, 0.0001, 1.0, 5.0, 1.2, 0.8},
                                                          {0.02, 0.004, 2.0, 2.0, 3.5, 0.05}}};
  const std::vector<double> weight = equal_gpu_weights(rows, subset);
  const auto objective = [&](const Vec& v) { return loss(v, rows, terms, subset, weight); };
  NelderMeadResult fit;
  fit.value = std::numeric_limits<double>::infinity();
  for (const auto& s : kStarts) {
    EagerOverhead start;
    start.host_ms_per_op = s[0];
    start.gpu_gap_ms_per_kernel = s[1];
    start.fixed_ms = s[2];
    start.training_host_factor = s[3];
    start.heavy_op_factor = s[4];
    start.per_op_overlap = s[5];
    NelderMeadResult run = nelder_mead(objective, to_vec(start), 0.7);
    run = nelder_mead(objective, run.x, 0.3);
    if (run.value < fit.value) fit = std::move(run);
  }
  EagerOverhead out = from_vec(fit.x);
  // Without training rows (HELP's are all inference) the training factor does not enter the
  // loss and ends wherever the simplex left it: keep the default instead.
  const bool has_training =
      std::any_of(subset.begin(), subset.end(), [&](std::size_t i) { return terms[i].training; });
  if (!has_training) out.training_host_factor = EagerOverhead{}.training_host_factor;
  out.source = "calibrated on " + std::to_string(subset.size()) +
               " end-to-end rows (mean |log error|, each GPU weighed equally, " +
               format_number(fit.value, 3) + ")" +
               (has_training ? "" : "; no training rows: training_host_factor not fitted");
  // Stage two: the host time per op differs 2.8x between the measuring machines and their
  // kernels run up to ~25 % off the model (docs/accuracy.md), so a GPU with enough rows gets
  // its own terms; other GPUs (and a GPU held out) keep the shared terms above.
  std::map<std::string, std::vector<std::size_t>> by_gpu;
  for (const auto i : subset) by_gpu[rows[i].gpu.name].push_back(i);
  for (const auto& [gpu, gpu_rows] : by_gpu) {
    if (gpu_rows.size() >= kMinRowsPerGpu) {
      out.per_gpu[gpu] = calibrate_gpu(out, rows, terms, gpu_rows);
      if (!has_training) out.per_gpu[gpu].training_host_factor = out.training_host_factor;
    }
  }
  // Stage three: what is left is largely a property of the network (ops the zoo or the
  // kernel model miss, e.g. 15-30 % on some networks at one precision across all four GPUs),
  // so each network, precision and mode gets the geometric mean of its rows' ratios
  // measured / predicted, shrunk toward 1 as if one more row had ratio 1.
  std::map<std::string, std::pair<double, int>> log_ratios;
  for (const auto i : subset) {
    const double predicted = eager_latency_ms(terms[i], overhead_for_gpu(out, rows[i].gpu));
    auto& [sum, n] = log_ratios[step_key(rows[i])];
    sum += std::log(rows[i].latency_ms / predicted);
    ++n;
  }
  for (const auto& [key, s] : log_ratios) {
    const double scale = std::exp(s.first / (s.second + kNetworkPriorRows));
    out.per_network[key] = {std::clamp(scale, 1.0 / kMaxStepScale, kMaxStepScale), s.second};
  }
  // Stage three b: a network key with 50 or more rows on one GPU (HELP's search spaces; no
  // zoo network) also gets that machine's scale: the RTX 2080 Ti's machine runs FBNet blocks
  // relatively faster than NAS-Bench-201 cells than the other three do
  // (research/notes/accuracy-history.md).
  std::map<std::string, std::pair<double, int>> gpu_log_ratios;
  for (const auto i : subset) {
    const std::string key = step_key(rows[i]);
    const double predicted = eager_latency_ms(terms[i], overhead_for(out, rows[i].gpu, key));
    auto& [sum, n] = gpu_log_ratios[rows[i].gpu.name + " " + key];
    sum += std::log(rows[i].latency_ms / predicted);
    ++n;
  }
  for (const auto& [key, s] : gpu_log_ratios) {
    if (s.second < static_cast<int>(kMinRowsPerGpu)) continue;
    const double scale = std::exp(s.first / (s.second + kNetworkPriorRows));
    out.per_gpu_network[key] = {std::clamp(scale, 1.0 / kMaxStepScale, kMaxStepScale), s.second};
  }
  if (multi.empty()) return out;
  // Stage four. Per extra GPU {fixed ms, ms per MB of weights, training ms per MB, host ms per
  // op, training host ms per op}; the 2-4 GPU rows of pytorch-gpu-benchmark take about 1 to 5
  // ms, 0 to 0.1 ms/MB and 0.03 to 0.1 ms per op (docs/methodology.md).
  const std::vector<Vec> starts{to_vec(DataParallelTerms{1.0, 0.03, 0.05, 0.08, 0.04, 0}),
                                to_vec(DataParallelTerms{3.0, 0.001, 0.001, 0.05, 0.01, 0}),
                                to_vec(DataParallelTerms{0.3, 0.1, 0.1, 0.02, 0.08, 0})};
  out.data_parallel = calibrate_data_parallel(out, rows, terms, multi, starts, true);
  std::map<std::string, std::vector<std::size_t>> multi_by_gpu;
  for (const auto i : multi) multi_by_gpu[rows[i].gpu.name].push_back(i);
  for (const auto& [gpu, gpu_rows] : multi_by_gpu) {
    if (gpu_rows.size() < kMinRowsPerGpu) continue;
    out.data_parallel_per_gpu[gpu] = calibrate_data_parallel(
        out, rows, terms, gpu_rows, {to_vec(out.data_parallel), starts[0], starts[1]}, false);
  }
  return out;
}

nlohmann::json to_json(const E2eEvaluation& e) {
  const auto by_name = [](const std::map<std::string, Metrics>& metrics) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, m] : metrics) out[name] = to_json(m);
    return out;
  };
  nlohmann::json out{{"overall", to_json(e.overall)}, {"per_gpu", by_name(e.per_gpu)}};
  if (!e.per_slice.empty()) out["per_slice"] = by_name(e.per_slice);
  if (e.data_parallel_rows > 0) {
    out["data_parallel"] = {{"overall", to_json(e.data_parallel)},
                            {"per_gpu", by_name(e.data_parallel_per_gpu)}};
  }
  return out;
}

E2eEvaluation evaluate_e2e(const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
                           const EagerOverhead& overhead) {
  E2eEvaluation ev;
  ev.predicted_ms.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ev.predicted_ms[i] =
        eager_latency_ms(terms[i], overhead_for(overhead, rows[i].gpu, step_key(rows[i])));
  }
  set_metrics(ev, rows);
  return ev;
}

E2eEvaluation evaluate_e2e_leave_gpu_out(const std::vector<E2eRow>& rows,
                                         const std::vector<E2eTerms>& terms,
                                         UnseenGpuTerms policy) {
  // The held-out GPU has no per-GPU terms in its fit: it gets what `policy` gives.
  return evaluate_leave_group_out(rows, terms, gpu_groups(rows), policy);
}

E2eEvaluation evaluate_e2e_leave_network_out(const std::vector<E2eRow>& rows,
                                             const std::vector<E2eTerms>& terms,
                                             UnseenGpuTerms policy) {
  std::vector<std::string> group;
  group.reserve(rows.size());
  for (const auto& row : rows) group.push_back(step_network(row));
  return evaluate_leave_group_out(rows, terms, group, policy);
}

E2eEvaluation evaluate_e2e_config_folds(const std::vector<E2eRow>& rows,
                                        const std::vector<E2eTerms>& terms, int folds,
                                        std::uint64_t seed, UnseenGpuTerms policy) {
  if (folds < 2) {
    throw InputError("end-to-end folds: expected 2 or more, got " + std::to_string(folds));
  }
  // A configuration's repeated runs (the RTX 2080 Ti's machines) go to one fold together.
  std::vector<std::string> config;
  config.reserve(rows.size());
  for (const auto& row : rows) {
    config.push_back(network_step_key(row.network, row.dtype, row.mode) + " on " +
                     std::to_string(row.num_gpus) + "x " + row.gpu.name + " batch " +
                     std::to_string(row.batch));
  }
  std::vector<std::string> distinct = config;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::size_t> order(distinct.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::map<std::string, std::string> fold_of;
  for (std::size_t k = 0; k < order.size(); ++k) {
    fold_of[distinct[order[k]]] = std::to_string(k % static_cast<std::size_t>(folds));
  }
  std::vector<std::string> group;
  group.reserve(config.size());
  for (const auto& c : config) group.push_back(fold_of[c]);
  return evaluate_leave_group_out(rows, terms, group, policy);
}

E2eCalibration calibrate_e2e(const std::vector<std::string>& files, const LatencyModel& model,
                             bool cross_validate) {
  const auto rows = load_e2e_rows(files);
  const std::string path = join(files, " ");
  require_single_gpu_rows(rows, path);
  spdlog::info("{}: {} end-to-end rows; computing model terms", path, rows.size());
  const auto terms = e2e_terms(rows, model);
  std::vector<std::size_t> all(rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  E2eCalibration out;
  out.overhead = calibrate_overhead(rows, terms, all);
  // The logistic that keeps the fitted gap in range never reaches 0: a gap under a nanosecond
  // is its tail (a measured one is microseconds), written as 0, not as 1e-29 ms per kernel.
  constexpr double kNegligibleGapMs = 1e-6;
  if (out.overhead.gpu_gap_ms_per_kernel < kNegligibleGapMs) out.overhead.gpu_gap_ms_per_kernel = 0;
  out.overhead.source = "calibrated on " + path + " (" + std::to_string(rows.size()) +
                        " rows) with " + model.name() + " kernel times";
  if (!cross_validate) {
    out.overhead.unseen_gpu_terms = UnseenGpuTerms::kShared;
    out.report = {{"file", path},
                  {"rows", rows.size()},
                  {"in-sample", to_json(evaluate_e2e(rows, terms, out.overhead))}};
    return out;
  }
  // What a GPU without rows gets is chosen by leave-one-GPU-out, the split that asks it: the
  // shared terms where each machine is its own (the zoo rows), its generation's where one
  // machine held a generation's GPUs (HELP's; docs/accuracy.md). Ties keep the shared terms.
  const std::vector<UnseenGpuTerms> policies{UnseenGpuTerms::kShared,
                                             UnseenGpuTerms::kArchitecture};
  std::vector<E2eEvaluation> logos =
      evaluate_leave_group_out(rows, terms, gpu_groups(rows), policies);
  const std::size_t kept = logos[1].overall.mape_pct < logos[0].overall.mape_pct ? 1 : 0;
  out.overhead.unseen_gpu_terms = policies[kept];
  out.step_residuals = e2e_residuals(rows, logos[kept]);
  const UnseenGpuTerms policy = policies[kept];
  const E2eEvaluation lono = evaluate_e2e_leave_network_out(rows, terms, policy);
  const E2eEvaluation folds =
      evaluate_e2e_config_folds(rows, terms, kE2eConfigFolds, kE2eFoldSeed, policy);
  const E2eEvaluation in_sample = evaluate_e2e(rows, terms, out.overhead);
  nlohmann::json choice = nlohmann::json::object();
  for (std::size_t p = 0; p < policies.size(); ++p) {
    choice[to_string(policies[p])] = logos[p].overall.mape_pct;
  }
  out.report = {
      {"file", path},
      {"rows", rows.size()},
      {"unseen_gpu_terms", {{"kept", to_string(policy)}, {"leave_gpu_out_mape_pct", choice}}},
      {"leave-gpu-out", to_json(logos[kept])},
      {"leave-network-out", to_json(lono)},
      {"config-folds", to_json(folds)},
      {"in-sample", to_json(in_sample)}};
  return out;
}

namespace {

// Mean of log(predicted / measured) over `idx`, each row predicted with `overhead`'s terms.
double mean_log_error(const std::vector<E2eRow>& rows, const std::vector<E2eTerms>& terms,
                      const std::vector<std::size_t>& idx, const std::vector<double>& target,
                      const EagerOverhead& overhead) {
  double sum = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const std::size_t i = idx[k];
    const double predicted =
        eager_latency_ms(terms[k], overhead_for(overhead, rows[i].gpu, step_key(rows[i])));
    sum += std::log(predicted / rows[i].latency_ms) - target[k];
  }
  return idx.empty() ? 0.0 : sum / static_cast<double>(idx.size());
}

}  // namespace

TensorCoreFit fit_tensor_core_efficiency(const std::vector<E2eRow>& rows,
                                         const AnalyticalParams& base) {
  TensorCoreFit fit;
  std::map<std::string, std::vector<std::size_t>> fp16_of;  // architecture -> fp16 rows
  std::map<std::string, std::vector<std::size_t>> fp32_of;
  std::map<std::string, std::set<std::string>> gpus_of;
  std::vector<std::size_t> single;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const E2eRow& r = rows[i];
    if (r.num_gpus != 1) continue;
    single.push_back(i);
    if (r.gpu.tensor_fp16_tflops <= 0) continue;  // no tensor cores: nothing to fit
    (r.dtype == DType::kFp16 ? fp16_of : fp32_of)[r.gpu.architecture].push_back(i);
    if (r.dtype == DType::kFp16) gpus_of[r.gpu.architecture].insert(r.gpu.name);
  }
  if (fp16_of.empty()) return fit;
  const AnalyticalModel base_model(base);
  const std::vector<E2eTerms> base_terms = e2e_terms(rows, base_model);
  // The host terms a GPU without rows gets: a GPU's own terms and a network's step scale
  // would absorb the error of its precision on the rows they were fitted on.
  EagerOverhead shared = calibrate_overhead(rows, base_terms, single);
  shared.per_gpu.clear();
  shared.per_network.clear();
  shared.per_gpu_network.clear();
  shared.unseen_gpu_terms = UnseenGpuTerms::kShared;
  const auto pick = [](const std::vector<E2eRow>& all, const std::vector<std::size_t>& idx) {
    std::vector<E2eRow> out;
    out.reserve(idx.size());
    for (const auto i : idx) out.push_back(all[i]);
    return out;
  };
  const auto pick_terms = [&](const std::vector<std::size_t>& idx) {
    std::vector<E2eTerms> out;
    out.reserve(idx.size());
    for (const auto i : idx) out.push_back(base_terms[i]);
    return out;
  };
  // Solves mean log error (minus each row's target) = 0 for one efficiency over `idx`; the
  // error falls as the efficiency rises.
  constexpr double kMinEfficiency = 0.1;
  constexpr double kMaxEfficiency = 1.0;
  const auto solve = [&](const std::vector<std::size_t>& idx, const std::vector<double>& target,
                         const std::set<std::string>& architectures) {
    const std::vector<E2eRow> subset = pick(rows, idx);
    const auto error_at = [&](double efficiency) {
      AnalyticalParams p = base;
      for (const auto& a : architectures) p.tensor_core_fp16_efficiency[a] = efficiency;
      const std::vector<E2eTerms> t = e2e_terms(subset, AnalyticalModel(p));
      return mean_log_error(rows, t, idx, target, shared);
    };
    double lo = std::log(kMinEfficiency);
    double hi = std::log(kMaxEfficiency);
    if (error_at(std::exp(hi)) > 0) return kMaxEfficiency;  // too slow even at the peak
    if (error_at(std::exp(lo)) < 0) return kMinEfficiency;
    for (int it = 0; it < 30 && hi - lo > 0.01; ++it) {  // to 1 % of the efficiency
      const double mid = 0.5 * (lo + hi);
      (error_at(std::exp(mid)) > 0 ? lo : hi) = mid;
    }
    return std::exp(0.5 * (lo + hi));
  };
  // The fit over fp16 rows `idx` of `arch`, each row's target the mean fp32 error of `idx32`:
  // the host terms' and the GPUs' own error, not fp16's.
  struct ArchitectureFit {
    double efficiency = 0, target = 0, before = 0, after = 0;
  };
  const auto fit_rows = [&](const std::string& arch, const std::vector<std::size_t>& idx,
                            const std::vector<std::size_t>& idx32) {
    ArchitectureFit out;
    out.target = mean_log_error(rows, pick_terms(idx32), idx32,
                                std::vector<double>(idx32.size(), 0.0), shared);
    const std::vector<double> target(idx.size(), out.target);
    out.before = mean_log_error(rows, pick_terms(idx), idx, target, shared);
    out.efficiency = solve(idx, target, {arch});
    AnalyticalParams p = base;
    p.tensor_core_fp16_efficiency[arch] = out.efficiency;
    out.after =
        mean_log_error(rows, e2e_terms(pick(rows, idx), AnalyticalModel(p)), idx, target, shared);
    return out;
  };
  const auto of_gpu = [&](const std::vector<std::size_t>& idx, const std::string& gpu) {
    std::vector<std::size_t> out;
    std::copy_if(idx.begin(), idx.end(), std::back_inserter(out),
                 [&](std::size_t i) { return rows[i].gpu.name == gpu; });
    return out;
  };
  std::vector<std::size_t> pooled;
  std::vector<double> pooled_target;
  std::set<std::string> all_architectures;
  for (const auto& [arch, idx] : fp16_of) {
    const auto it32 = fp32_of.find(arch);
    const std::vector<std::size_t> none;
    const std::vector<std::size_t>& idx32 = it32 == fp32_of.end() ? none : it32->second;
    const ArchitectureFit f = fit_rows(arch, idx, idx32);
    fit.fp16_efficiency[arch] = f.efficiency;
    // Each GPU's own fit under the same host terms: whether an architecture's GPUs agree
    // (reported only; predictions use the architecture's value).
    nlohmann::json per_gpu = nlohmann::json::object();
    for (const std::string& gpu : gpus_of[arch]) {
      const std::vector<std::size_t> idx_gpu = of_gpu(idx, gpu);
      const ArchitectureFit g = fit_rows(arch, idx_gpu, of_gpu(idx32, gpu));
      per_gpu[gpu] = {{"fp16_efficiency", g.efficiency},
                      {"fp16_rows", idx_gpu.size()},
                      {"target_log_error", g.target},
                      {"fp16_mean_log_error_after", g.after}};
    }
    fit.report[arch] = {
        {"fp16_efficiency", f.efficiency},
        {"gpus", std::vector<std::string>(gpus_of[arch].begin(), gpus_of[arch].end())},
        {"per_gpu", per_gpu},
        {"fp16_rows", idx.size()},
        {"fp32_rows", idx32.size()},
        {"target_log_error", f.target},
        {"fp16_mean_log_error_before", f.before},
        {"fp16_mean_log_error_after", f.after}};
    pooled.insert(pooled.end(), idx.begin(), idx.end());
    pooled_target.insert(pooled_target.end(), idx.size(), f.target);
    all_architectures.insert(arch);
  }
  const double star = solve(pooled, pooled_target, all_architectures);
  fit.fp16_efficiency["*"] = star;
  fit.report["*"] = {{"fp16_efficiency", star}, {"fp16_rows", pooled.size()}};
  spdlog::info("fp16 tensor-core efficiency: {}", nlohmann::json(fit.fp16_efficiency).dump());
  return fit;
}

AnalyticalE2eCalibration calibrate_analytical_e2e(const std::vector<std::string>& files,
                                                  bool cross_validate) {
  AnalyticalE2eCalibration out;
  out.tensor_cores = fit_tensor_core_efficiency(load_e2e_rows(files), AnalyticalParams{});
  out.params.tensor_core_fp16_efficiency = out.tensor_cores.fp16_efficiency;
  out.e2e = calibrate_e2e(files, AnalyticalModel(out.params), cross_validate);
  return out;
}

namespace {

// The kernel model's terms of a parsed eager-overhead document; `path` names it in errors.
AnalyticalParams analytical_params_from(const nlohmann::json& doc, const std::string& path) {
  AnalyticalParams params;
  if (!doc.is_object() || !doc.contains("kernel_model")) return params;
  const auto& km = doc["kernel_model"];
  if (!km.is_object() || !km.contains("tensor_core_fp16_efficiency") ||
      !km["tensor_core_fp16_efficiency"].is_object()) {
    throw InputError(path + ": kernel_model.tensor_core_fp16_efficiency: expected an object");
  }
  for (const auto& [arch, value] : km["tensor_core_fp16_efficiency"].items()) {
    if (!value.is_number() || value.get<double>() <= 0 || value.get<double>() > 1) {
      throw InputError(path + ": kernel_model.tensor_core_fp16_efficiency." + arch +
                       ": expected a number in (0, 1]");
    }
    params.tensor_core_fp16_efficiency[arch] = value.get<double>();
  }
  return params;
}

EagerOverhead eager_overhead_from(const nlohmann::json& doc, const std::string& path) {
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

// models/eager_overhead.json's two readings, from one parse of the file: every default
// prediction needs both.
struct BundledEager {
  AnalyticalParams params;
  EagerOverhead overhead;
};

const BundledEager& bundled_eager() {
  static const BundledEager bundled = [] {
    const std::string path = find_resource("models/eager_overhead.json").string();
    const nlohmann::json doc = read_json_file(path);
    return BundledEager{analytical_params_from(doc, path), eager_overhead_from(doc, path)};
  }();
  return bundled;
}

}  // namespace

AnalyticalParams load_analytical_params(const std::string& path) {
  return analytical_params_from(read_json_file(path), path);
}

EagerOverhead load_eager_overhead(const std::string& path) {
  return eager_overhead_from(read_json_file(path), path);
}

const EagerOverhead& bundled_analytical_overhead() {
  return bundled_eager().overhead;
}

const EagerOverhead& bundled_nas_overhead() {
  static const EagerOverhead overhead =
      load_eager_overhead(find_resource("models/eager_overhead_nas.json").string());
  return overhead;
}

std::string e2e_network_source(const std::vector<E2eRow>& rows) {
  // A file holds one layout (load_e2e_rows), so its first row speaks for all.
  const std::string space = rows.empty() ? std::string() : nas_space_of(rows.front().network);
  return space.empty() ? "zoo" : space;
}

const AnalyticalParams& bundled_analytical_params() {
  return bundled_eager().params;
}

std::unique_ptr<AnalyticalModel> bundled_analytical_model() {
  auto model = std::make_unique<AnalyticalModel>(
      bundled_analytical_params(), bundled_analytical_overhead(), bundled_nas_overhead());
  // Read on the first prediction under that runtime: most runs use neither.
  model->set_runtime_overhead_source(bundled_runtime_overhead);
  return model;
}

}  // namespace cnnperf
