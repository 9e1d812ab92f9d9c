// SPDX-License-Identifier: Apache-2.0
// TrainingRowSet: the coded set of a model's training rows round-trips through its JSON, has
// no false negatives, about its stated false-positive rate, and a corrupt record is bad input.
// The hashes here are SYNTHETIC (a seeded generator), not rows of any dataset.
#include "cnnperf/ml/training_row_set.hpp"

#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cnnperf/common/error.hpp"

namespace cnnperf {
namespace {

std::vector<std::uint64_t> random_hashes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = rng();
  return out;
}

TEST(TrainingRowSet, RoundTripsWithoutFalseNegativesAndFewFalsePositives) {
  const auto hashes = random_hashes(20000, 1);
  const auto set = TrainingRowSet::of_hashes(hashes);
  ASSERT_TRUE(set.has_value());
  const nlohmann::json metadata = {{kTrainingRowsKey, set->to_json()}};
  // About rice_bits + 2 bits a row: 20,000 rows in well under 64 KB of base64.
  EXPECT_LT(metadata[kTrainingRowsKey]["golomb_rice_base64"].get<std::string>().size(), 64000u);
  const auto back = TrainingRowSet::from_metadata(metadata, "m.json: metadata");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->rows(), 20000u);
  EXPECT_DOUBLE_EQ(back->false_positive_rate(), 1.0 / 65536);
  for (const auto h : hashes) ASSERT_TRUE(back->contains(h));
  std::size_t false_positives = 0;
  for (const auto h : random_hashes(200000, 2)) false_positives += back->contains(h) ? 1 : 0;
  // Expected 200,000 / 65,536 = 3.05.
  EXPECT_LT(false_positives, 20u);
}

TEST(TrainingRowSet, IsBoundedInSize) {
  // Past kMaxBytes at kMinRiceBits nothing is recorded; below, fewer bits a row are kept.
  const std::size_t too_many = TrainingRowSet::kMaxBytes * 8 / (TrainingRowSet::kMinRiceBits + 1);
  EXPECT_FALSE(TrainingRowSet::of_hashes(random_hashes(too_many, 3)).has_value());
  const auto large = TrainingRowSet::of_hashes(random_hashes(600000, 4));
  ASSERT_TRUE(large.has_value());
  EXPECT_GT(large->false_positive_rate(), 1.0 / 65536);
  const auto text = large->to_json()["golomb_rice_base64"].get<std::string>();
  EXPECT_LE(text.size() / 4 * 3, TrainingRowSet::kMaxBytes);
}

TEST(TrainingRowSet, AModelWithoutARecordHasNone) {
  EXPECT_FALSE(TrainingRowSet::from_metadata(nlohmann::json::object(), "m").has_value());
}

TEST(TrainingRowSet, ACorruptRecordIsBadInputNamingTheMember) {
  const auto set = TrainingRowSet::of_hashes(random_hashes(1000, 5));
  ASSERT_TRUE(set.has_value());
  const nlohmann::json good = set->to_json();
  const auto error_of = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json record = good;
    edit(record);
    try {
      (void)TrainingRowSet::from_metadata({{kTrainingRowsKey, record}}, "m.json: metadata");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of([](auto& r) { r["rice_bits"] = "16"; }),
            "m.json: metadata.training_rows.rice_bits: expected an integer in [8, 16]");
  EXPECT_EQ(error_of([](auto& r) { r["golomb_rice_base64"] = "@@@@"; }),
            "m.json: metadata.training_rows.golomb_rice_base64: expected a base64 string");
  // Fewer bits than the values need.
  EXPECT_NE(error_of([](auto& r) { r["golomb_rice_base64"] = "AAAA"; }).find("the set is corrupt"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& r) { r["values"] = 1001; }).find("values: expected an integer"),
            std::string::npos);
}

}  // namespace
}  // namespace cnnperf
