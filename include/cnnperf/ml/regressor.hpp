// SPDX-License-Identifier: Apache-2.0
// The regression engine: five regressors behind one interface, generic over a numeric
// feature matrix. Models serialise to versioned JSON and round-trip exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnnperf {

/// A dense, row-major matrix of numeric features (one row per sample). Owns its values.
struct FeatureMatrix {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<double> values;      ///< rows*cols values, row-major
  std::vector<std::string> names;  ///< optional column names (empty, or `cols` entries)

  FeatureMatrix() = default;
  /// A rows x cols matrix filled with zeros.
  FeatureMatrix(std::size_t n_rows, std::size_t n_cols);
  /// Takes `data` (row-major, size rows*cols); throws InputError on a size mismatch.
  FeatureMatrix(std::size_t n_rows, std::size_t n_cols, std::vector<double> data,
                std::vector<std::string> column_names = {});

  [[nodiscard]] double operator()(std::size_t r, std::size_t c) const {
    return values[r * cols + c];
  }
  [[nodiscard]] double& operator()(std::size_t r, std::size_t c) { return values[r * cols + c]; }
  /// Pointer to the first value of row `r` (valid while the matrix lives).
  [[nodiscard]] const double* row(std::size_t r) const { return values.data() + r * cols; }
  /// A new matrix holding the given rows, in the given order (names are kept).
  [[nodiscard]] FeatureMatrix select_rows(std::span<const std::size_t> row_indices) const;
};

/// The regressor families cnnperf offers.
enum class RegressorKind { kLinear, kKnn, kDecisionTree, kRandomForest, kXgboost };

/// "linear", "knn", "dtree", "rf", "xgboost".
[[nodiscard]] std::string to_string(RegressorKind kind);
/// Inverse of to_string (case-insensitive); throws InputError listing the valid names.
[[nodiscard]] RegressorKind regressor_kind_from_string(std::string_view name);
/// All kinds, in the order above.
[[nodiscard]] std::vector<RegressorKind> all_regressor_kinds();

/// Version of the model JSON written by Regressor::to_json.
inline constexpr int kRegressorSchemaVersion = 1;

/// A trainable regressor. Every implementation is deterministic for a given `seed` parameter
/// and independent of the thread count (tests/unit/ml checks 1-5 threads), and supports the common
/// parameter `log_target` (fit log(y), predict exp of the model output; targets must then be
/// strictly positive).
///
/// Not thread-safe for concurrent fit(); predict() on a fitted model may be called from
/// several threads at once.
class Regressor {
 public:
  virtual ~Regressor() = default;
  Regressor(const Regressor&) = delete;
  Regressor& operator=(const Regressor&) = delete;

  [[nodiscard]] virtual RegressorKind kind() const = 0;

  /// Trains on `x` (rows = samples) and `y` (one target per row). `weights` is empty or one
  /// non-negative weight per row. Throws InputError on mismatched sizes, non-finite values,
  /// or non-positive targets with log_target.
  void fit(const FeatureMatrix& x, std::span<const double> y, std::span<const double> weights = {});

  /// Predicts one value per row of `x`. Throws Error when not fitted, InputError when the
  /// column count (or the column names, when both sides have them) differ from training.
  [[nodiscard]] std::vector<double> predict(const FeatureMatrix& x) const;

  /// The full model as JSON: schema_version, kind, params, n_features, feature_names and the
  /// kind-specific "model". Doubles round-trip exactly through nlohmann::json.
  [[nodiscard]] nlohmann::json to_json() const;
  /// Rebuilds a model written by to_json(); throws InputError on a malformed document or an
  /// unsupported schema_version.
  [[nodiscard]] static std::unique_ptr<Regressor> from_json(const nlohmann::json& doc);

  /// The effective parameters (defaults filled in).
  [[nodiscard]] const nlohmann::json& params() const { return params_; }
  [[nodiscard]] bool fitted() const { return fitted_; }
  [[nodiscard]] std::size_t n_features() const { return n_features_; }
  [[nodiscard]] const std::vector<std::string>& feature_names() const { return feature_names_; }
  /// Relative importance per feature (sums to 1), or empty when the kind has none.
  [[nodiscard]] virtual std::vector<double> feature_importances() const { return {}; }

 protected:
  /// `params` has already been validated by the subclass constructor (defaults filled in).
  explicit Regressor(nlohmann::json params);

  /// Trains on transformed targets (log(y) when log_target). Sizes are already checked.
  virtual void fit_impl(const FeatureMatrix& x, std::span<const double> y,
                        std::span<const double> weights) = 0;
  /// Raw model output per row (in log space when log_target).
  [[nodiscard]] virtual std::vector<double> predict_impl(const FeatureMatrix& x) const = 0;
  /// Kind-specific model state.
  [[nodiscard]] virtual nlohmann::json model_to_json() const = 0;
  /// Restores kind-specific state written by model_to_json().
  virtual void model_from_json(const nlohmann::json& model) = 0;

  nlohmann::json params_;

 private:
  bool fitted_ = false;
  bool log_target_ = false;
  std::size_t n_features_ = 0;
  std::vector<std::string> feature_names_;
};

/// Creates an untrained regressor. `params` may be null/empty (all defaults) or an object;
/// unknown keys or bad values throw InputError naming the key. Common keys: `log_target`
/// (bool, false), `seed` (integer, 42). Per kind:
/// - linear: `l2` (ridge penalty on standardised features, 0)
/// - knn: `k` (5), `weights` ("uniform" | "distance"), `n_threads` (0 = hardware)
/// - dtree: `max_depth` (0 = unlimited), `min_samples_split` (2), `min_samples_leaf` (1),
///   `max_features` (1.0: fraction if <= 1, count if > 1)
/// - rf: the dtree keys plus `n_trees` (100), `bootstrap` (true), `max_samples` (1.0),
///   `n_threads` (0 = hardware); `max_features` defaults to 1/3
/// - xgboost: `n_estimators` (300), `learning_rate` (0.1), `max_depth` (6),
///   `min_child_weight` (1), `subsample` (1), `colsample_bytree` (1), `reg_lambda` (1),
///   `reg_alpha` (0), `gamma` (0), `tree_method` ("hist"), `max_bin` (256), `n_threads` (0)
[[nodiscard]] std::unique_ptr<Regressor> make_regressor(RegressorKind kind,
                                                        const nlohmann::json& params = {});

}  // namespace cnnperf
