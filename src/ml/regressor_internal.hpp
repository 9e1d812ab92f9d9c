// SPDX-License-Identifier: Apache-2.0
// Private helpers shared by the regressor implementations (not installed, not public).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/regressor.hpp"

namespace cnnperf::ml_detail {

/// Reads a user's params object against a schema: fills defaults, checks types and ranges,
/// and rejects unknown keys (a typo must not silently train with the default).
class ParamReader {
 public:
  ParamReader(std::string kind, const nlohmann::json& params);

  bool get_bool(const std::string& key, bool fallback);
  std::int64_t get_int(const std::string& key, std::int64_t fallback, std::int64_t min_value,
                       std::int64_t max_value);
  double get_double(const std::string& key, double fallback, double min_value, double max_value);
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices);
  /// Reads `seed` and `log_target`, the keys every kind has.
  void get_common();
  /// Throws InputError on any key not read; returns the effective params.
  nlohmann::json finish();

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;
  std::string kind_;
  nlohmann::json in_;
  nlohmann::json out_ = nlohmann::json::object();
};

/// Deterministic 64-bit mixing (splitmix64): derives independent stream seeds.
[[nodiscard]] std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream);

/// Uniform integer in [0, n) from a 64-bit generator, identical on every platform
/// (std::uniform_int_distribution is implementation-defined).
template <class Rng>
[[nodiscard]] std::uint64_t uniform_below(Rng& rng, std::uint64_t n) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t v = 0;
  do {
    v = rng();
  } while (v >= limit);
  return v % n;
}

/// Worker count: `requested` if > 0, else the hardware concurrency (at least 1).
[[nodiscard]] unsigned resolve_threads(std::int64_t requested);

/// Throws InputError "model JSON: field 'key': ..." when `doc` lacks `key`.
const nlohmann::json& require(const nlohmann::json& doc, const std::string& key);

std::unique_ptr<Regressor> make_linear(const nlohmann::json& params);
std::unique_ptr<Regressor> make_knn(const nlohmann::json& params);
std::unique_ptr<Regressor> make_decision_tree(const nlohmann::json& params);
std::unique_ptr<Regressor> make_random_forest(const nlohmann::json& params);
std::unique_ptr<Regressor> make_xgboost(const nlohmann::json& params);

/// How the fast model loader (LearnedModel::load) hands an XGBoost booster to
/// Regressor::from_json without a DOM of it: a JSON *binary* value holding the booster's
/// unparsed JSON text, put where model.booster's object was. Parsing JSON text never yields a
/// binary value, so no model file can reach this path by itself.
[[nodiscard]] nlohmann::json raw_booster_value(std::string_view booster_json);

}  // namespace cnnperf::ml_detail
