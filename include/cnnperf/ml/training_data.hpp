// SPDX-License-Identifier: Apache-2.0
// Measured per-layer rows (the datasets/ layer CSVs) as train and validate read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cnnperf/ml/features.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"

namespace cnnperf {

/// Measured per-layer rows (datasets/ schema): a layer, its GPU, source and latency.
struct TrainingData {
  std::vector<Layer> layers;
  std::vector<std::string> gpu_names;  ///< as written in the file
  std::vector<GpuSpec> gpus;           ///< resolved database entries
  std::vector<std::string> sources;    ///< `source` column ("" when absent)
  std::vector<double> latency_ms;      ///< measured target
  std::vector<std::string> files;
  std::string fingerprint;       ///< FNV-1a of the files' contents, hex
  std::size_t skipped_rows = 0;  ///< rows without a usable target or exact shape
};

/// Reads layer CSVs with `latency_ms` and `gpu` columns. Rows whose padding is asymmetric
/// (`symmetric_pad_exact` == 0) are skipped and counted unless the file has `pad_h_end`
/// (then the layer is exact). `max_rows` > 0 keeps a seeded
/// uniform sample. Unknown GPU names are InputError naming file:line. Each file is found as
/// user_file_or_resource finds it (bundled `datasets/...` from any directory).
[[nodiscard]] TrainingData load_training_data(const std::vector<std::string>& files,
                                              std::size_t max_rows = 0, std::uint64_t seed = 42);

/// Row indices of one op family.
[[nodiscard]] std::vector<std::size_t> family_rows(const TrainingData& data, OpFamily family);

/// The rows of `data` measured by `source`, as data of their own (same files, fingerprint
/// and skipped count).
[[nodiscard]] TrainingData rows_of_source(const TrainingData& data, const std::string& source);

}  // namespace cnnperf
