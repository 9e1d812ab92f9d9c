// SPDX-License-Identifier: Apache-2.0
// Private helpers shared by the regressor implementations (not installed, not public).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/regressor.hpp"

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

/// A model file's element that is missing or of the wrong kind. `path` is relative to the
/// regressor object ("model.tree.threshold[1]"), so that the model-file loader can name it
/// from the file's root ("m.json: families[0].regressor.model.tree.threshold[1]").
class FieldError : public InputError {
 public:
  FieldError(std::string path, std::string detail, const std::string& message = {})
      : InputError(message.empty() ? path + ": " + detail : message),
        path_(std::move(path)),
        detail_(std::move(detail)) {}
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const std::string& detail() const noexcept { return detail_; }

 private:
  std::string path_;
  std::string detail_;
};

/// "at.key" ("key" when `at` is empty).
[[nodiscard]] std::string member_path(const std::string& at, const std::string& key);
/// Member `key` of the object `doc`, which sits at `at` (a path as FieldError's); throws
/// FieldError "at.key: missing" when `doc` is no object or lacks `key`.
const nlohmann::json& require(const nlohmann::json& doc, const std::string& key,
                              const std::string& at = "model");
/// Member `key` of `doc` as a number / an array of numbers / an array of integers that fit
/// int32; FieldError naming the member (or the element: "at.key[3]") otherwise.
[[nodiscard]] double number_member(const nlohmann::json& doc, const std::string& key,
                                   const std::string& at = "model");
[[nodiscard]] std::vector<double> number_array(const nlohmann::json& doc, const std::string& key,
                                               const std::string& at = "model");
[[nodiscard]] std::vector<std::int32_t> int32_array(const nlohmann::json& doc,
                                                    const std::string& key,
                                                    const std::string& at = "model");

std::unique_ptr<Regressor> make_linear(const nlohmann::json& params);
std::unique_ptr<Regressor> make_knn(const nlohmann::json& params);
std::unique_ptr<Regressor> make_decision_tree(const nlohmann::json& params);
std::unique_ptr<Regressor> make_random_forest(const nlohmann::json& params);
std::unique_ptr<Regressor> make_xgboost(const nlohmann::json& params);

/// The fast model loader (LearnedModel::load) keeps each XGBoost booster - nearly all of a
/// model file - out of the nlohmann DOM: it puts pending_booster_value() where model.tree_arrays
/// (the base64 tree arrays) or, in files of schema_version 1, model.booster (XGBoost's JSON model)
/// was, lets Regressor::from_json restore the rest, then hands the value's text to
/// attach_booster_text, which reads the trees straight from the file's bytes. The marker is a
/// JSON binary value, which parsing JSON text never yields, so no file can forge it.
[[nodiscard]] nlohmann::json pending_booster_value();
[[nodiscard]] bool is_pending_booster(const nlohmann::json& value);
/// Gives an XGBoost regressor restored from a pending marker its booster: the contents of the
/// `tree_arrays` string, or XGBoost's JSON object, as a view into the file's bytes (needed only
/// during the call). `where` and `offset` (of the text in its file) name the place in error
/// messages. Returns false, doing nothing, when `regressor` is not an XGBoost one; throws
/// InputError on a malformed booster.
bool attach_booster_text(Regressor& regressor, std::string_view text, const std::string& where,
                         std::size_t offset);

}  // namespace cnnperf::ml_detail
