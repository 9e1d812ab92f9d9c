// SPDX-License-Identifier: Apache-2.0
// Which cuDNN algorithm ran a convolution, a classifier that predicts it from shape and GPU
// features, and the study that measures whether knowing it helps the learned latency model
// (research/notes/accuracy-details.md, "Does knowing cuDNN's algorithm help?").
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/ml/regressor.hpp"

namespace cnnperf {

/// Algorithm classes of a measured convolution, in label order (label = index).
/// Same rules as tools/eval_analytical.py kernel_family(), so the tables agree.
[[nodiscard]] const std::vector<std::string>& conv_algo_classes();

/// Label (index into conv_algo_classes()) of the kernels a convolution ran, from NeuSight's
/// `kernel_sequence` (or `main_kernel`) text; -1 when the text is empty.
[[nodiscard]] int conv_algo_class(std::string_view kernel_sequence);

/// Algorithm label per row of `data` (-1 where the file records no kernels), read again from
/// the same files with the same row filter as load_training_data. Throws InputError when the
/// rows do not line up (e.g. data was loaded with max_rows).
[[nodiscard]] std::vector<int> load_conv_algo_labels(const TrainingData& data);

/// Multi-class probability classifier built from one regressor per class fitted on the
/// 0/1 indicator of that class (one-vs-rest; a regression tree on an indicator estimates the
/// class frequency in its leaf). Probabilities are clipped to [0, 1] and normalised per row.
class AlgoClassifier {
 public:
  /// `params` are the regressor's (log_target is forced off: targets are 0/1).
  AlgoClassifier(RegressorKind kind, nlohmann::json params, int n_classes);

  /// Labels in [0, n_classes); rows labelled -1 are ignored. A class absent from the
  /// training rows gets probability 0. Throws InputError on size mismatches or no labelled row.
  void fit(const FeatureMatrix& x, std::span<const int> labels);
  /// rows x n_classes probabilities, row-major. Throws Error when not fitted.
  [[nodiscard]] std::vector<double> predict_proba(const FeatureMatrix& x) const;
  /// Most probable class per row (ties: lowest label).
  [[nodiscard]] std::vector<int> predict(const FeatureMatrix& x) const;
  [[nodiscard]] int n_classes() const { return n_classes_; }

 private:
  RegressorKind kind_;
  nlohmann::json params_;
  int n_classes_;
  bool fitted_ = false;
  std::vector<std::unique_ptr<Regressor>> per_class_;  ///< null for classes absent in training
};

/// Options of the algorithm study.
// The implicit move is noexcept through nlohmann::json's own; clang-tidy 14 flags it anyway.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct AlgoStudyOptions {
  RegressorKind regressor = RegressorKind::kXgboost;
  nlohmann::json params;  ///< empty: default_params(regressor)
  RegressorKind classifier = RegressorKind::kRandomForest;
  nlohmann::json classifier_params;  ///< empty: 60 trees, min leaf 2
  int folds = 5;
  /// Inner group-shape folds that give the regressor's training rows out-of-fold class
  /// probabilities (as the test rows get); 0 = in-sample probabilities.
  int inner_folds = 3;
  std::uint64_t seed = 42;
  std::vector<std::string> variants;  ///< empty: all of algo_study_variants()
};

/// baseline, quant, oracle, algo, algo+quant, per-mode (a regressor per predicted class),
/// oracle-per-mode (the same, routed by the measured class).
[[nodiscard]] const std::vector<std::string>& algo_study_variants();

/// Group-shape folds of conv rows as cross_validate_family draws them (same seed, same
/// groups), so the study's baseline equals group-shape cross-validation. Index i is the fold of
/// rows[i].
[[nodiscard]] std::vector<int> group_shape_folds(const TrainingData& data,
                                                 const std::vector<std::size_t>& rows, int folds,
                                                 std::uint64_t seed);

/// Class probabilities of one outer fold. `train` (rows of `train_rows` x k) are out-of-fold
/// over `inner_folds` group folds of the training rows (in-sample when 0), `test` come from a
/// classifier fitted on all training rows. Labels of `test_rows` are never read: a fold's
/// classifier cannot see its test rows.
struct AlgoFoldProbabilities {
  std::vector<double> train;
  std::vector<double> test;
};
[[nodiscard]] AlgoFoldProbabilities algo_fold_probabilities(
    const FeatureMatrix& x, std::span<const int> labels, std::span<const std::uint64_t> groups,
    std::span<const std::size_t> train_rows, std::span<const std::size_t> test_rows,
    RegressorKind classifier, const nlohmann::json& classifier_params, int inner_folds,
    std::uint64_t seed);

/// Result of one variant: out-of-fold metrics overall and per GPU.
struct AlgoStudyVariant {
  std::string name;
  Metrics overall;
  std::map<std::string, Metrics> per_gpu;
  std::map<std::string, Metrics> per_class;  ///< by measured algorithm class
  double seconds = 0;
};

struct AlgoStudyResult {
  std::size_t rows = 0;
  std::map<std::string, std::size_t> class_counts;
  std::vector<AlgoStudyVariant> variants;
  /// Out-of-fold accuracy of the classifier (test rows of each outer fold), overall and
  /// per GPU; present when a variant needed the classifier.
  double classifier_accuracy = -1;
  std::map<std::string, double> classifier_accuracy_per_gpu;
  std::map<std::string, std::size_t> rows_per_gpu;
};

/// Runs the study on the conv rows of `data` with labels from load_conv_algo_labels.
/// Every variant uses the same folds; the classifier of a fold is fitted on that fold's
/// training rows only. Throws InputError on unknown variants or mismatched labels.
[[nodiscard]] AlgoStudyResult run_algo_study(const TrainingData& data,
                                             const std::vector<int>& labels,
                                             const AlgoStudyOptions& options);

[[nodiscard]] nlohmann::json to_json(const AlgoStudyResult& result);

}  // namespace cnnperf
