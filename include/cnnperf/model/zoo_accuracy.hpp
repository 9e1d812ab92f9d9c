// SPDX-License-Identifier: Apache-2.0
// Published ImageNet-1k top-1 accuracy of the zoo networks, each figure with the weights it
// belongs to and where it was read (models/zoo_accuracy.json). `cnnperf plan` scores with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cnnperf {

inline constexpr int kZooAccuracySchemaVersion = 1;

/// One published figure.
struct PublishedAccuracy {
  std::string network;      ///< zoo name, e.g. "resnet50"
  double top1_percent = 0;  ///< top-1 accuracy, percent
  std::string dataset;      ///< e.g. "ImageNet-1k val"
  std::string weights;      ///< the trained weights the figure belongs to
  std::string source;       ///< where the figure was read
  std::string url;          ///< link to the source
};

/// The table of published figures. A network without an entry has no known accuracy.
class AccuracyTable {
 public:
  /// Loads a table file; throws InputError naming the file and field.
  [[nodiscard]] static AccuracyTable load(const std::string& path);
  /// Parses a table; `where` prefixes error messages.
  [[nodiscard]] static AccuracyTable from_json(const nlohmann::json& doc, const std::string& where);
  /// models/zoo_accuracy.json, loaded once; throws Error when it cannot be found.
  [[nodiscard]] static const AccuracyTable& bundled();

  /// The entry of a network (case-insensitive, '-' read as '_'), or nullptr.
  [[nodiscard]] const PublishedAccuracy* find(std::string_view network) const;
  [[nodiscard]] const std::vector<PublishedAccuracy>& all() const { return entries_; }
  /// Path the table was loaded from ("" when parsed from memory).
  [[nodiscard]] const std::string& source_path() const { return source_path_; }

 private:
  std::vector<PublishedAccuracy> entries_;
  std::string source_path_;
};

}  // namespace cnnperf
