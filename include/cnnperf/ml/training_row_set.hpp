// SPDX-License-Identifier: Apache-2.0
// Which measured rows a model was trained on, kept compactly in its file's metadata, so that
// `validate` reports rows the model has seen apart from rows it has not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/training_data.hpp"

namespace cnnperf {

/// The metadata member of a model file that holds its TrainingRowSet.
inline constexpr const char* kTrainingRowsKey = "training_rows";

/// A 64-bit hash of what makes row `row` of `data` one point for a model: the layer's canonical
/// columns (layer_csv_fields, the padding ends, ceil_mode, activation, optimizer), the GPU's
/// database name and the source. The measured latency is not part of it: a second measurement
/// of a trained-on point is a seen row.
[[nodiscard]] std::uint64_t training_row_hash(const TrainingData& data, std::size_t row);

/// A set of row hashes stored as a Golomb-Rice coded sorted list (about rice_bits + 1.6 bits
/// a row). Membership has no false negatives; an unseen row is taken for a seen one with
/// probability false_positive_rate() (2^-rice_bits).
class TrainingRowSet {
 public:
  /// The rows of `data`. rice_bits is 16 unless the coded set would pass kMaxBytes; then it
  /// shrinks, and below kMinRiceBits nothing is recorded (nullopt).
  [[nodiscard]] static std::optional<TrainingRowSet> of(const TrainingData& data);
  /// The same from hashes (duplicates allowed).
  [[nodiscard]] static std::optional<TrainingRowSet> of_hashes(std::vector<std::uint64_t> hashes);
  /// The set recorded in a model file's `metadata`; nullopt when it records none. Throws
  /// InputError naming `where` and the member when the record is malformed.
  [[nodiscard]] static std::optional<TrainingRowSet> from_metadata(const nlohmann::json& metadata,
                                                                   const std::string& where);

  /// {"hash_version", "rows", "rice_bits", "false_positive_rate", "golomb_rice_base64"}.
  [[nodiscard]] nlohmann::json to_json() const;
  [[nodiscard]] bool contains(std::uint64_t hash) const;
  /// Distinct training rows recorded.
  [[nodiscard]] std::size_t rows() const { return rows_; }
  [[nodiscard]] double false_positive_rate() const;

  static constexpr int kHashVersion = 1;
  static constexpr int kMaxRiceBits = 16;
  static constexpr int kMinRiceBits = 8;
  /// The largest coded set written (the bundled model's 318,390 rows take about 0.7 MB).
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 20;

 private:
  [[nodiscard]] std::uint64_t reduce(std::uint64_t hash) const;
  std::size_t rows_ = 0;
  int rice_bits_ = kMaxRiceBits;
  std::vector<std::uint64_t> values_;  ///< sorted, distinct reduced hashes
};

}  // namespace cnnperf
