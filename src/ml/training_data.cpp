// SPDX-License-Identifier: Apache-2.0
// Measured per-layer rows: loading, sampling and selecting them.
#include "cnnperf/ml/training_data.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string_view>
#include <unordered_map>

#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/model/layer_io.hpp"
#include "regressor_internal.hpp"

namespace cnnperf {

namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 1469598103934665603ULL) {
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = digits[v & 15];
    v >>= 4;
  }
  return out;
}

// Rows `keep` of `data` (in that order) with its files, fingerprint and skipped count.
TrainingData subset(const TrainingData& data, const std::vector<std::size_t>& keep) {
  TrainingData out;
  for (const auto i : keep) {
    out.layers.push_back(data.layers[i]);
    out.gpu_names.push_back(data.gpu_names[i]);
    out.gpus.push_back(data.gpus[i]);
    out.sources.push_back(data.sources[i]);
    out.latency_ms.push_back(data.latency_ms[i]);
  }
  out.files = data.files;
  out.fingerprint = data.fingerprint;
  out.skipped_rows = data.skipped_rows;
  return out;
}

}  // namespace

// A measured layer time beyond this (about 11.6 days) is a unit or parsing mistake.
constexpr double kMaxMeasuredLatencyMs = 1e9;

TrainingData load_training_data(const std::vector<std::string>& files, std::size_t max_rows,
                                std::uint64_t seed) {
  if (files.empty()) throw ParameterError("data", "expected at least one dataset file");
  TrainingData data;
  std::uint64_t hash = 1469598103934665603ULL;
  std::unordered_map<std::string, GpuSpec> gpu_cache;
  const GpuDatabase& db = GpuDatabase::bundled();
  // The examples' `datasets/...` names (and their wildcards) work from any directory, like
  // bundled model files.
  const std::vector<std::string> expanded = user_file_list(files, "data");
  for (const auto& file : expanded) {
    const std::string text = read_text_file(file);
    hash = fnv1a(text, hash);
    const LayerTable table = parse_layers_csv(text, file);
    if (!table.table.column("latency_ms") || !table.table.column("gpu")) {
      throw InputError(file + ":1: expected columns 'latency_ms' and 'gpu' (a measured dataset)");
    }
    spdlog::info("{}: {} rows", file, table.layers.size());
    // With pad_h_end/pad_w_end the reader models asymmetric (TensorFlow SAME) padding exactly.
    const bool has_pad_end = table.table.column("pad_h_end").has_value();
    std::size_t skipped = 0;
    std::string first_skip;
    for (std::size_t row = 0; row < table.layers.size(); ++row) {
      const auto exact = table.table.get(row, "symmetric_pad_exact");
      const auto target = table.table.get_number(row, "latency_ms");
      if (target && *target > kMaxMeasuredLatencyMs) {
        throw InputError(
            table.table.where(row) + ": field 'latency_ms': expected a measured time of at most " +
            format_number(kMaxMeasuredLatencyMs) + " ms, got " + format_number(*target));
      }
      // A measured time at or below 0 is a corrupt row, not a missing one.
      if (target && !(*target > 0)) {
        throw InputError(table.table.where(row) +
                         ": field 'latency_ms': expected a measured time above 0 ms, got " +
                         format_number(*target));
      }
      const bool asymmetric = exact && *exact == "0" && !has_pad_end;
      if (asymmetric || !target) {
        if (skipped++ == 0) {
          first_skip = table.table.where(row) +
                       (asymmetric ? ": asymmetric padding without pad_h_end/pad_w_end"
                                   : ": latency_ms empty");
        }
        continue;
      }
      const std::string gpu_name = table.table.get(row, "gpu").value_or("");
      auto it = gpu_cache.find(gpu_name);
      if (it == gpu_cache.end()) {
        const auto spec = db.find(gpu_name);
        if (!spec) {
          throw InputError(table.table.where(row) + ": field 'gpu': unknown GPU '" + gpu_name +
                           "' (expected a name or alias of the GPU database)");
        }
        it = gpu_cache.emplace(gpu_name, *spec).first;
      }
      data.layers.push_back(table.layers[row]);
      data.sources.push_back(table.table.get(row, "source").value_or(""));
      // `cnnperf profile` runs fp32 convolutions with cuDNN's default math, which lets them use
      // TF32 where the GPU has it: its rows are predicted as such, as predict does by default.
      Layer& layer = data.layers.back();
      layer.allow_tf32 = data.sources.back() == kKernelTimeSource && layer.op == Op::kConv2d &&
                         layer.dtype == DType::kFp32;
      data.gpu_names.push_back(gpu_name);
      data.gpus.push_back(it->second);
      data.latency_ms.push_back(*target);
    }
    if (skipped > 0) {
      // Said, not silent: a file of bad rows must not look like a smaller good one.
      spdlog::warn("{}: {} of {} rows left out (first: {})", file, skipped, table.layers.size(),
                   first_skip);
    }
    data.skipped_rows += skipped;
    data.files.push_back(file);
  }
  data.fingerprint = hex(hash);
  if (max_rows > 0 && data.layers.size() > max_rows) {
    std::vector<std::size_t> keep(data.layers.size());
    std::iota(keep.begin(), keep.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(keep.begin(), keep.end(), rng);
    keep.resize(max_rows);
    std::sort(keep.begin(), keep.end());
    data = subset(data, keep);
  }
  return data;
}

std::vector<std::size_t> family_rows(const TrainingData& data, OpFamily family) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < data.layers.size(); ++i) {
    if (op_family(data.layers[i].op) == family) rows.push_back(i);
  }
  return rows;
}

TrainingData rows_of_source(const TrainingData& data, const std::string& source) {
  std::vector<std::size_t> keep;
  for (std::size_t r = 0; r < data.layers.size(); ++r) {
    if (data.sources[r] == source) keep.push_back(r);
  }
  return subset(data, keep);
}

}  // namespace cnnperf
