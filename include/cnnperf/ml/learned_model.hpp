// SPDX-License-Identifier: Apache-2.0
// Learned latency models: per-family fitting and the LatencyModel that uses them. Sources:
// learned_model.cpp (fitting, prediction), model_file.cpp (to_json, from_json) and
// model_file_loader.cpp (load).
#pragma once

#include <array>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/features.hpp"
#include "cnnperf/ml/metrics.hpp"
#include "cnnperf/ml/regressor.hpp"
#include "cnnperf/ml/training_data.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "cnnperf/predict/predict.hpp"

namespace cnnperf {

/// The learned model file's version: 2 stores XGBoost regressors as tree arrays; 1 (still
/// read) held XGBoost's own JSON model.
inline constexpr int kModelSchemaVersion = 2;
inline constexpr int kOldestModelSchemaVersion = 1;

/// Outside a family's training ranges the learned log ratio fades toward the analytical
/// estimate: a row keeps exp(-distance / kFallbackSpans) of it (learned_share), the distance
/// counted in training spans (distance_outside). One span is the unit of the ranges
/// themselves; kGpuDistanceWeight is what was chosen by cross-validation.
inline constexpr double kFallbackSpans = 1.0;

/// Multiples of a layer's tensors' traffic time (traffic_ms: bytes at one byte per SM cycle)
/// that a harness spends beyond the layer's own kernels: a framework's layout transposes, bias
/// and activation kernels, in a training step its gradient and update kernels. They grow with
/// the tensors, not per call, so a floor cannot hold them.
struct TrafficMultiples {
  double input = 0;   ///< x input bytes / (SMs x boost clock)
  double output = 0;  ///< x output bytes / (SMs x boost clock)
  double weight = 0;  ///< x weight bytes / (SMs x boost clock)
};

/// What traffic_ms divides by, as model files name it (`harness_traffic[].basis`).
inline constexpr const char* kTrafficBasis = "sm_clock";

/// The terms of the harnesses that measured a family's rows: what each adds to the kernels it
/// times, a property of the measuring machine and framework rather than of the GPU. Never part
/// of a kernel time (kKernelTimeSource has none).
struct HarnessTerms {
  /// Host floor in ms per (source, GPU name): what the measurement adds to a kernel at the
  /// smallest work (PyTorch's dispatch inside NeuSight's CUDA events, TensorFlow's session).
  /// Fitted on the family's smallest rows (fit_host_floors).
  std::map<std::pair<std::string, std::string>, double> floor_ms;
  /// Traffic multiples per (source, pass name), for sources whose harness runs kernels besides
  /// the layer's (harness_runs_extra_kernels); fit_harness_terms. One set per source and
  /// pass, shared by its GPUs: multiples per GPU would also absorb the kernel model's error on
  /// each GPU, which is not the harness's (research/harness_traffic_study.py).
  std::map<std::pair<std::string, std::string>, TrafficMultiples> traffic;

  /// The floor of a (source, GPU) pair: 0 for kKernelTimeSource (kernel time has no harness);
  /// its own, else the geometric mean of the source's GPUs (a GPU without measurements is on
  /// an unknown machine: the typical one), else of all, else 0.
  [[nodiscard]] double floor_for(const std::string& source, const std::string& gpu) const;
  /// What `source`'s harness adds to `layer`'s kernels on `gpu`, in ms: its floor plus its
  /// traffic (the source's multiples for the layer's pass times traffic_ms; 0 without them).
  [[nodiscard]] double ms_for(const std::string& source, const Layer& layer,
                              const GpuSpec& gpu) const;
  /// Adds `other`'s entries for keys this one lacks.
  void insert(const HarnessTerms& other);
};

/// Whether rows of `source` time kernels besides the layer's own (a framework graph around
/// it), so that its harness has traffic terms: not the reference source (one PyTorch op
/// timed alone: the layer's kernels and a floor) and not kernel time.
[[nodiscard]] bool harness_runs_extra_kernels(const std::string& source);

/// A layer's input, output and weight bytes at one byte per SM per cycle of `gpu`'s boost
/// clock, in ms: the time TrafficMultiples multiply. The SMs' rate, not the DRAM bandwidth:
/// held out by GPU, it explains MLPredict's extra kernels on Kepler, Maxwell, Pascal and Volta
/// alike, where the bandwidth left Kepler's at half speed (research/harness_traffic_study.py).
[[nodiscard]] std::array<double, 3> traffic_ms(const Layer& layer, const GpuSpec& gpu);

/// The fitted regressor of one op family (and, when the sources are split, one measurement
/// source) plus what it needs at prediction time.
struct FamilyModel {
  OpFamily family = OpFamily::kConv;
  std::string source;  ///< the measurement source it was trained on; "" = every source
  std::unique_ptr<Regressor> regressor;
  std::vector<double> feature_min;  ///< training range per feature
  std::vector<double> feature_max;
  std::vector<std::string> gpus;  ///< GPUs seen in training
  std::size_t rows = 0;
  /// Training rows whose main kernels the analytical model runs on tensor cores
  /// (runs_on_tensor_cores). 0: the regressor never saw a tensor-core kernel, so a layer that
  /// runs on them keeps the analytical estimate (untrained_math). Unset in files that do not
  /// record it: every layer gets the regressor.
  std::optional<std::size_t> tensor_core_rows;
  /// Rows of the reference source on a GPU outside `gpus` (and without a seen_sibling in
  /// them) get the analytical estimate: set by the
  /// unseen-GPU check (unseen_gpu_check) when, leave-one-GPU-out, the analytical model was the more
  /// accurate of the two on this family's reference-source rows.
  bool analytical_for_unseen_gpus = false;
  /// Rows of the reference source on a GPU outside `gpus` (and without a seen_sibling in
  /// them) get this regressor instead of
  /// `regressor` when non-null: fitted on the same rows and target with the gpu feature group
  /// held at 0 (FeatureSpec::gpu_held_constant), set by the unseen-GPU check when,
  /// leave-one-GPU-out, it was the most accurate of the three. Exclusive with
  /// analytical_for_unseen_gpus.
  std::unique_ptr<Regressor> gpu_blind_regressor;
  /// The measuring harness's terms (HarnessTerms); the regressor's baseline is analytical +
  /// harness_ms. Empty in files without them (no harness).
  HarnessTerms harness;
  /// harness.floor_for(source, gpu), in ms.
  [[nodiscard]] double floor_ms(const std::string& source, const std::string& gpu) const {
    return harness.floor_for(source, gpu);
  }
  /// harness.ms_for(source, layer, gpu), in ms.
  [[nodiscard]] double harness_ms(const std::string& source, const Layer& layer,
                                  const GpuSpec& gpu) const {
    return harness.ms_for(source, layer, gpu);
  }
  /// Training spans over which the learned log ratio fades to the analytical estimate outside
  /// the training ranges (learned_share); infinity keeps the ratio everywhere. Not stored in
  /// model files: a property of prediction.
  double fallback_spans = kFallbackSpans;
  /// Whether a prediction is the largest over the layer's batch chain (batch_chain): doubling
  /// the batch never lowers it. Not stored in model files; off only to read the regressors'
  /// own values.
  bool batch_monotone = true;
};

/// The bundled learned model file (found with find_resource): `validate`'s default per layer.
inline constexpr const char* kBundledLearnedModel = "models/cnnperf_default.json";

/// A learned model: per family, log(measured / analytical) is regressed on the features;
/// prediction = analytical x exp(regressor), never below the roofline bound.
class LearnedModel final : public LatencyModel {
 public:
  LearnedModel(FeatureSpec spec, std::vector<FamilyModel> families, EagerOverhead overhead,
               nlohmann::json metadata);
  /// Loads a model file (a relative path that does not exist is looked up among the bundled
  /// files, user_file_or_resource); throws InputError naming the file and the field. With
  /// `reference_source_only`, only the model each op family uses for rows without a source
  /// (predict_layers, e.g. a network's prediction) is kept and parsed: those predictions are the
  /// same, and a file with a model per source loads in about half the time.
  /// With `reference_source_only` and `only_gpu`, also of each family only the regressor
  /// rows on that GPU use (the gpu-blind one for a GPU the family was not trained on and has
  /// no seen_sibling of, the other otherwise): such a model predicts for that GPU only
  /// (another throws Error).
  [[nodiscard]] static std::unique_ptr<LearnedModel> load(const std::string& path,
                                                          bool reference_source_only = false,
                                                          const GpuSpec* only_gpu = nullptr);
  [[nodiscard]] static std::unique_ptr<LearnedModel> from_json(const nlohmann::json& doc,
                                                               const std::string& source);
  [[nodiscard]] nlohmann::json to_json() const;

  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] std::vector<LayerPrediction> predict_layers(const std::vector<Layer>& layers,
                                                            const GpuSpec& gpu) const override;
  [[nodiscard]] std::vector<LayerPrediction> predict_layers_as(
      const std::vector<Layer>& layers, const GpuSpec& gpu,
      const std::vector<std::string>& sources) const override;
  /// predict_layers with the host floor dropped: exp(regressor) x analytical, never below the
  /// roofline (the floor is the harness's; inside a network the eager overhead has it).
  [[nodiscard]] std::vector<LayerPrediction> predict_network_layers(
      const std::vector<Layer>& layers, const GpuSpec& gpu) const override;
  [[nodiscard]] EagerOverhead eager_overhead() const override { return overhead_; }
  /// The reference source's rows (kernel time is predicted as that harness measured it).
  [[nodiscard]] std::string training_data() const override;
  /// The bundled runtime overheads (bundled_runtime_overhead): fitted on whole steps with the
  /// analytical model's kernel times, which a learned model's replace.
  [[nodiscard]] std::optional<EagerOverhead> runtime_overhead(Runtime runtime) const override;
  void set_eager_overhead(EagerOverhead overhead) { overhead_ = std::move(overhead); }
  /// The analytical model's fitted terms (the fp16 tensor-core efficiencies per architecture)
  /// for the layers that keep the analytical estimate (untrained_math, bf16, int8), so that they
  /// get the default model's kernel time. The regressors' own baseline keeps the defaults they
  /// were fitted on. Default: AnalyticalParams{}; load() sets bundled_analytical_params().
  void set_kernel_params(AnalyticalParams params) { kernel_params_ = std::move(params); }
  [[nodiscard]] const AnalyticalParams& kernel_params() const override { return kernel_params_; }
  void set_name(std::string name) { name_ = std::move(name); }
  /// Sets every family's FamilyModel::fallback_spans.
  void set_fallback_spans(double spans);
  /// Sets every family's FamilyModel::batch_monotone.
  void set_batch_monotone(bool on);
  [[nodiscard]] const FeatureSpec& feature_spec() const { return spec_; }
  [[nodiscard]] nlohmann::json& metadata() { return metadata_; }
  [[nodiscard]] const nlohmann::json& metadata() const { return metadata_; }
  /// Per layer, whether the model its op family gives rows without a source (the reference
  /// source's) was fitted without rows of `gpu` by name: a board of a seen chip counts as
  /// unseen, as the leave-one-GPU-out that sizes the unseen-GPU intervals held boards out one
  /// by one. False for a layer of a family the model has no model of.
  [[nodiscard]] std::vector<bool> unseen_gpu_layers(const std::vector<Layer>& layers,
                                                    const GpuSpec& gpu) const;
  /// The same for one op family and a GPU database name.
  [[nodiscard]] bool unseen_gpu(OpFamily family, const std::string& gpu_name) const;
  /// The fitted family models (validate predicts rows with their own source through them).
  [[nodiscard]] const std::vector<FamilyModel>& families() const { return families_; }

 private:
  [[nodiscard]] std::vector<LayerPrediction> predict(const std::vector<Layer>& layers,
                                                     const GpuSpec& gpu,
                                                     const std::vector<std::string>& sources,
                                                     bool with_floor) const;

  FeatureSpec spec_;
  std::vector<FamilyModel> families_;
  EagerOverhead overhead_;
  AnalyticalParams kernel_params_;
  nlohmann::json metadata_;
  std::string name_ = "learned";
  std::string only_gpu_;  ///< set by load(..., only_gpu): predictions for other GPUs throw
};

/// Rows fit_host_floors reads per (source, GPU): the fastest 1 / kFloorRowShare of them, at
/// least kFloorMinRows (or all of a smaller pair).
inline constexpr std::size_t kFloorRowShare = 100;
inline constexpr std::size_t kFloorMinRows = 10;
/// Host floors of `rows` per (source, GPU name), in ms: the median of max(0, measured -
/// analytical) over each pair's fastest measured rows.
[[nodiscard]] std::map<std::pair<std::string, std::string>, double> fit_host_floors(
    const TrainingData& data, const std::vector<std::size_t>& rows);
/// Rows fit_harness_terms needs of a (source, pass) to fit its traffic multiples.
inline constexpr std::size_t kTrafficMinRows = 100;
/// Rounds of fit_harness_terms that read the floors again beyond the fitted traffic.
inline constexpr int kHarnessFitRounds = 3;
/// Floors and traffic of `rows`: the host floors (fit_host_floors), then per (source, pass) of
/// sources with extra kernels the traffic multiples, non-negative least squares of measured -
/// analytical - floor on traffic_ms with each row weighted by 1 / measured (relative error),
/// then kHarnessFitRounds rounds of both, each floor read beyond the traffic.
[[nodiscard]] HarnessTerms fit_harness_terms(const TrainingData& data,
                                             const std::vector<std::size_t>& rows);

/// One family's regressor hyper-parameters: `base` for each of its models, with the keys of
/// `by_source[s]` replacing base's in the model of source s (a model of one source's rows,
/// split or not; a joint model of several sources takes `base`). Built from a bare JSON object,
/// it is that object for every source.
struct FamilyParams {
  nlohmann::json base = nlohmann::json::object();
  std::map<std::string, nlohmann::json> by_source;

  FamilyParams() = default;
  FamilyParams(nlohmann::json params)  // NOLINT(google-explicit-constructor): one set for all
      : base(std::move(params)) {}
  /// `base` with by_source[source]'s keys replacing its own.
  [[nodiscard]] nlohmann::json for_source(const std::string& source) const;
};

/// Fits one family on the given rows (target: log ratio to analytical + host floor; with
/// `host_floor` false, the floor is 0).
[[nodiscard]] FamilyModel fit_family(const TrainingData& data, const std::vector<std::size_t>& rows,
                                     OpFamily family, RegressorKind kind,
                                     const nlohmann::json& params, const FeatureSpec& spec,
                                     bool host_floor = true);

/// How a family's rows of several measurement sources are fitted.
enum class SourceSplit {
  kJoint,  ///< one regressor, the source a one-hot feature
  kSplit,  ///< one regressor per source when every source has kMinRowsPerSourceModel rows
};
[[nodiscard]] SourceSplit source_split_from_string(std::string_view text);
[[nodiscard]] std::string to_string(SourceSplit split);
inline constexpr std::size_t kMinRowsPerSourceModel = 1000;
/// Whether fit_family_models fits one regressor per source on rows with these counts (by
/// source name): `split` is kSplit and there are two or more sources, each named and with
/// kMinRowsPerSourceModel rows.
[[nodiscard]] bool fits_per_source(const std::map<std::string, std::size_t>& rows_per_source,
                                   SourceSplit split);

/// Fits a family: one model, or one per source (`split`); each model's `source` says which.
[[nodiscard]] std::vector<FamilyModel> fit_family_models(const TrainingData& data,
                                                         const std::vector<std::size_t>& rows,
                                                         OpFamily family, RegressorKind kind,
                                                         const FamilyParams& params,
                                                         const FeatureSpec& spec, SourceSplit split,
                                                         bool host_floor = true);

/// The model of `models` (one family's) that predicts rows of `source`: the one trained on
/// that source, else the one trained on every source, else the reference source's, else the
/// first. Null when `models` is empty.
[[nodiscard]] const FamilyModel* model_for_source(const std::vector<const FamilyModel*>& models,
                                                  const std::string& source);

/// The GPU `model` was trained on that stands in for `gpu` when `gpu` itself was not: another
/// board of its chip among the model's GPUs (GpuDatabase::board_of_same_chip of the bundled
/// database, e.g. an A100-PCIe for an A100-SXM4). It runs a shape with the same cuDNN kernels
/// and wave and tile steps, which the regressor learned on it; the analytical baseline still
/// takes `gpu`'s own clocks and bandwidth. Null when `gpu` was trained on or has no sibling.
[[nodiscard]] const GpuSpec* seen_sibling(const FamilyModel& model, const GpuSpec& gpu);

/// Whether `model` gives a row of `source` on `gpu` the analytical estimate instead of its
/// own (FamilyModel::analytical_for_unseen_gpus, a reference-source row, `gpu` not trained on
/// and without a seen_sibling).
[[nodiscard]] bool analytical_for(const FamilyModel& model, const GpuSpec& gpu,
                                  const std::string& source);

/// Whether `layer` runs on tensor cores on `gpu` (runs_on_tensor_cores) and `model` records
/// that none of its training rows did (FamilyModel::tensor_core_rows 0): a math unit it never
/// saw, so the layer keeps the analytical estimate (with its harness floor).
[[nodiscard]] bool untrained_math(const FamilyModel& model, const Layer& layer, const GpuSpec& gpu);

/// Whether `model` gives a row of `source` on `gpu` its gpu_blind_regressor (set, a
/// reference-source row, `gpu` not trained on and without a seen_sibling).
[[nodiscard]] bool gpu_blind_for(const FamilyModel& model, const GpuSpec& gpu,
                                 const std::string& source);

/// A GPU-spec feature's distance counts this much of a layer feature's: the nine GPU features
/// move together, and a GPU beside the trained ones is what they are for. Chosen by
/// leave-one-GPU-out over 0, 0.05, 0.1, 0.2, 0.3 and 1 (research/notes/accuracy-details.md,
/// "Fallback"), not on any test set.
inline constexpr double kGpuDistanceWeight = 0.05;

/// Per column of `spec`'s features, what its distance counts in distance_outside: 1, or
/// kGpuDistanceWeight for the gpu group.
[[nodiscard]] std::vector<double> distance_weights(const FeatureSpec& spec);

/// How far row `r` of `x` (features of `model`'s spec, the row's own GPU) lies outside
/// `model`'s training ranges: summed over features (times `weights`, from distance_weights),
/// the distance beyond [feature_min, feature_max] divided by that range's width (at least 1,
/// so a constant or one-hot feature counts in its own units). 0 inside the box.
[[nodiscard]] double distance_outside(const FamilyModel& model, const FeatureMatrix& x,
                                      std::size_t r, const std::vector<double>& weights);

/// The share of its learned log ratio a row at `distance` (distance_outside) keeps:
/// exp(-distance / spans), 1 inside the training ranges, falling smoothly to 0 (the analytical
/// estimate) far outside them.
[[nodiscard]] double learned_share(double distance, double spans = kFallbackSpans);

/// `spec` with the gpu group held at 0: the features of a gpu_blind_regressor.
[[nodiscard]] FeatureSpec gpu_blind_spec(FeatureSpec spec);

/// `x` (built with `spec`) as gpu_blind_spec(spec) would have built it: its `gpu` columns at 0.
[[nodiscard]] FeatureMatrix gpu_blind_matrix(FeatureMatrix x, const FeatureSpec& spec);

/// The smaller batches a layer of `batch` is also predicted at: batch / 2, batch / 4, ..., 1
/// (integer halving). A learned kernel time is the largest over the layer and its chain, so
/// doubling a batch never lowers it (the regressors alone do not guarantee that).
[[nodiscard]] std::vector<std::int64_t> batch_chain(std::int64_t batch);

/// Predicted latency (ms) of rows with a fitted family model (source = the rows' own), each
/// the largest over its batch chain (batch_chain). Rows the model holds back on tensor cores
/// (untrained_math, analytical_for) are estimated with `held_back_params`, as
/// LearnedModel::predict does with its kernel params (pass LearnedModel::kernel_params() to
/// score a loaded model as predict runs it).
[[nodiscard]] std::vector<double> predict_rows(const FamilyModel& model, const TrainingData& data,
                                               const std::vector<std::size_t>& rows,
                                               const FeatureSpec& spec,
                                               const AnalyticalParams& held_back_params = {});
/// Same with one family's models, each row by the model for its own source.
[[nodiscard]] std::vector<double> predict_rows(const std::vector<const FamilyModel*>& models,
                                               const TrainingData& data,
                                               const std::vector<std::size_t>& rows,
                                               const FeatureSpec& spec,
                                               const AnalyticalParams& held_back_params = {});

/// The feature matrix of `rows` of `data` (each row with its own GPU and source), as the
/// family models are fitted on it.
[[nodiscard]] FeatureMatrix feature_matrix_of_rows(const TrainingData& data,
                                                   const std::vector<std::size_t>& rows,
                                                   const FeatureSpec& spec);

/// Default hyper-parameters per regressor kind used by `train` (log_target on).
[[nodiscard]] nlohmann::json default_params(RegressorKind kind);

}  // namespace cnnperf
