// SPDX-License-Identifier: Apache-2.0
// One regressor per measurement source (train --sources split): which models are fitted, which
// model predicts which row, and that the split survives the model file.
// The rows are SYNTHETIC: "measured" latency = analytical estimate x a factor per source.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

constexpr double kNeusightFactor = 1.5;
constexpr double kMlpredictFactor = 4.0;

// SYNTHETIC rows: `n_neusight` and `n_mlpredict` conv rows on one GPU.
TrainingData two_source_rows(std::size_t n_neusight, std::size_t n_mlpredict) {
  const GpuSpec gpu = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  std::mt19937_64 rng(5);
  TrainingData data;
  for (std::size_t i = 0; i < n_neusight + n_mlpredict; ++i) {
    const bool neusight = i < n_neusight;
    const Layer l = testing::random_conv3x3(rng);
    testing::add_row(
        data, l, gpu, neusight ? "neusight" : "mlpredict",
        estimate_layer(l, gpu).latency_ms * (neusight ? kNeusightFactor : kMlpredictFactor));
  }
  return data;
}

using testing::all_rows;

const nlohmann::json kTreeParams = {{"log_target", true}, {"max_depth", 4}};
// The factors are exact only against the analytical estimate alone: a fitted host floor
// (host_floor_test.cpp) would bend the constant ratio the trees recover here.
constexpr bool kNoFloor = false;

TEST(SourceSplit, FitsOneModelPerSourceOnlyWhenEverySourceHasEnoughRows) {
  const TrainingData data = two_source_rows(1000, 1200);
  const FeatureSpec spec = FeatureSpec::parse("default");
  const auto split =
      fit_family_models(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree,
                        kTreeParams, spec, SourceSplit::kSplit, kNoFloor);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].source, "mlpredict");  // by source name
  EXPECT_EQ(split[0].rows, 1200u);
  EXPECT_EQ(split[1].source, "neusight");
  EXPECT_EQ(split[1].rows, 1000u);

  const auto joint =
      fit_family_models(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree,
                        kTreeParams, spec, SourceSplit::kJoint);
  ASSERT_EQ(joint.size(), 1u);
  EXPECT_EQ(joint[0].source, "");

  const TrainingData small = two_source_rows(kMinRowsPerSourceModel - 1, 1200);
  const auto few =
      fit_family_models(small, all_rows(small), OpFamily::kConv, RegressorKind::kDecisionTree,
                        kTreeParams, spec, SourceSplit::kSplit, kNoFloor);
  ASSERT_EQ(few.size(), 1u) << "a source below the minimum keeps the family joint";
  EXPECT_EQ(few[0].source, "");
  EXPECT_THROW((void)source_split_from_string("both"), InputError);
  EXPECT_EQ(source_split_from_string("Joint"), SourceSplit::kJoint);
}

TEST(SourceSplit, TheSplitRuleNeedsTwoNamedSourcesOfEnoughRows) {
  // The one rule fit_family_models and the unseen-GPU check's folds both apply.
  const std::size_t n = kMinRowsPerSourceModel;
  EXPECT_TRUE(fits_per_source({{"mlpredict", n}, {"neusight", n}}, SourceSplit::kSplit));
  EXPECT_FALSE(fits_per_source({{"mlpredict", n}, {"neusight", n}}, SourceSplit::kJoint));
  EXPECT_FALSE(fits_per_source({{"mlpredict", n}, {"neusight", n - 1}}, SourceSplit::kSplit));
  EXPECT_FALSE(fits_per_source({{"", n}, {"neusight", n}}, SourceSplit::kSplit));
  EXPECT_FALSE(fits_per_source({{"neusight", 5 * n}}, SourceSplit::kSplit));
  EXPECT_FALSE(fits_per_source({}, SourceSplit::kSplit));
}

TEST(SourceSplit, EachRowIsPredictedByItsSourcesModelAndTheFileKeepsTheSplit) {
  const TrainingData data = two_source_rows(1000, 1200);
  const FeatureSpec spec = FeatureSpec::parse("default");
  auto models =
      fit_family_models(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree,
                        kTreeParams, spec, SourceSplit::kSplit, kNoFloor);
  for (auto& m : models) m.fallback_spans = testing::kNoFallback;
  const LearnedModel model(spec, std::move(models), EagerOverhead{}, nlohmann::json::object());
  const GpuSpec& gpu = data.gpus.front();
  std::mt19937_64 rng(99);
  std::vector<Layer> layers;
  for (int i = 0; i < 20; ++i) layers.push_back(testing::random_conv3x3(rng));
  const auto ratio = [&](const std::vector<LayerPrediction>& p, std::size_t i) {
    return p[i].latency_ms() / estimate_layer(layers[i], gpu).latency_ms;
  };
  const std::vector<std::string> as_ml(layers.size(), "mlpredict");
  const std::vector<std::string> unknown(layers.size(), "some-other-tool");
  const auto ml = model.predict_layers_as(layers, gpu, as_ml);
  const auto plain = model.predict_layers(layers, gpu);  // the reference source, NeuSight
  const auto other = model.predict_layers_as(layers, gpu, unknown);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_NEAR(ratio(ml, i), kMlpredictFactor, 1e-6) << i;
    EXPECT_NEAR(ratio(plain, i), kNeusightFactor, 1e-6) << i;
    EXPECT_NEAR(ratio(other, i), kNeusightFactor, 1e-6) << "unknown source: reference";
  }

  const auto back = LearnedModel::from_json(model.to_json(), "round trip");
  ASSERT_EQ(back->families().size(), 2u);
  EXPECT_EQ(back->families()[0].source, "mlpredict");
  EXPECT_EQ(back->families()[1].source, "neusight");
  const auto ml_back = back->predict_layers_as(layers, gpu, as_ml);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(ml_back[i].latency_ms(), ml[i].latency_ms());
  }
  // A model file without a "source" key holds one joint model per family.
  nlohmann::json old = model.to_json();
  for (auto& f : old["families"]) f.erase("source");
  EXPECT_EQ(LearnedModel::from_json(old, "old file")->families()[0].source, "");
}

TEST(SourceSplit, CrossValidationFitsEachFoldTheSameWay) {
  const TrainingData data = two_source_rows(1000, 1200);
  const FeatureSpec spec = FeatureSpec::parse("default");
  for (const auto split : {SourceSplit::kSplit, SourceSplit::kJoint}) {
    const CvResult cv =
        cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree, kTreeParams,
                              spec, CvScheme::kKfold, 3, 42, split, kNoFloor, testing::kNoFallback);
    ASSERT_EQ(cv.predicted_ms.size(), data.layers.size());
    // Each source's factor is a constant the trees can learn, split or joint (source
    // one-hot), so every out-of-fold row is predicted to within rounding.
    EXPECT_LT(cv.per_source.at("neusight").mape_pct, 1e-6) << to_string(split);
    EXPECT_LT(cv.per_source.at("mlpredict").mape_pct, 1e-6) << to_string(split);
  }
}

TEST(SourceSplit, ASourcesOwnParametersReachOnlyItsModelAndItsFolds) {
  const TrainingData data = two_source_rows(1000, 1200);
  const FeatureSpec spec = FeatureSpec::parse("default");
  FamilyParams params(kTreeParams);
  params.by_source["mlpredict"] = {{"max_depth", 1}};
  EXPECT_EQ(params.for_source("mlpredict")["max_depth"], 1);
  EXPECT_EQ(params.for_source("mlpredict")["log_target"], true) << "other keys stay the base's";
  EXPECT_EQ(params.for_source("neusight"), kTreeParams);

  const auto split =
      fit_family_models(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree, params,
                        spec, SourceSplit::kSplit, kNoFloor);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].source, "mlpredict");
  EXPECT_EQ(split[0].regressor->params()["max_depth"], 1);
  EXPECT_EQ(split[1].regressor->params()["max_depth"], 4);
  const auto joint =
      fit_family_models(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree, params,
                        spec, SourceSplit::kJoint, kNoFloor);
  ASSERT_EQ(joint.size(), 1u);
  EXPECT_EQ(joint[0].regressor->params()["max_depth"], 4) << "a mix of sources takes the base";
  // Rows of one source take its parameters even without a split to make.
  const TrainingData ml_only = rows_of_source(data, "mlpredict");
  const auto alone =
      fit_family_models(ml_only, all_rows(ml_only), OpFamily::kConv, RegressorKind::kDecisionTree,
                        params, spec, SourceSplit::kSplit, kNoFloor);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].regressor->params()["max_depth"], 1);

  // Cross-validation fits each fold's source models with their own parameters: a section
  // the regressor rejects fails exactly when its source has rows (each fold's training rows
  // hold 1000+ of each source, so the folds are split too).
  const TrainingData more = two_source_rows(1600, 1600);
  FamilyParams rejected(kTreeParams);
  rejected.by_source["some-other-tool"] = {{"no_such_key", 1}};
  EXPECT_NO_THROW((void)cross_validate_family(more, OpFamily::kConv, RegressorKind::kDecisionTree,
                                              rejected, spec, CvScheme::kKfold, 3, 42,
                                              SourceSplit::kSplit, kNoFloor));
  rejected.by_source["mlpredict"] = {{"no_such_key", 1}};
  EXPECT_THROW(
      (void)cross_validate_family(more, OpFamily::kConv, RegressorKind::kDecisionTree, rejected,
                                  spec, CvScheme::kKfold, 3, 42, SourceSplit::kSplit, kNoFloor),
      InputError);
}

TEST(SourceSplit, LeaveGpuOutPredictsReferenceRowsTheSameWithoutTheOtherSources) {
  // SYNTHETIC rows: NeuSight on two GPUs, MLPredict on one of them and a third, each with
  // a factor over the estimate that varies with c_in. train's unseen-GPU check relies on this:
  // with every fold split by source, the reference rows alone give the same out-of-fold
  // predictions, floors and check.
  const auto& db = GpuDatabase::bundled();
  const GpuSpec v100 = *db.find("v100-sxm2-16gb");
  const GpuSpec a100 = *db.find("a100-pcie-40gb");
  const GpuSpec p100 = *db.find("p100-pcie-16gb");
  std::mt19937_64 rng(8);
  TrainingData data;
  const auto add = [&](const GpuSpec& gpu, const char* source, double factor) {
    for (int i = 0; i < 1100; ++i) {
      const Layer l = testing::random_conv3x3(rng);
      testing::add_row(data, l, gpu, source,
                       estimate_layer(l, gpu).latency_ms * factor *
                               (1.0 + 0.2 * std::log(static_cast<double>(l.c_in))) +
                           0.01);
    }
  };
  add(v100, "neusight", 1.5);
  add(a100, "neusight", 1.3);
  add(v100, "mlpredict", 4.0);
  add(p100, "mlpredict", 3.0);
  const FeatureSpec spec = FeatureSpec::parse("default");
  const CvResult whole = cross_validate_family(data, OpFamily::kConv, RegressorKind::kDecisionTree,
                                               kTreeParams, spec, CvScheme::kLeaveGpuOut, 5, 42);
  const TrainingData reference = rows_of_source(data, kReferenceSource);
  const CvResult alone =
      cross_validate_family(reference, OpFamily::kConv, RegressorKind::kDecisionTree, kTreeParams,
                            spec, CvScheme::kLeaveGpuOut, 5, 42);
  std::vector<double> whole_reference;
  for (std::size_t i = 0; i < whole.rows.size(); ++i) {
    if (data.sources[whole.rows[i]] == kReferenceSource) {
      whole_reference.push_back(whole.predicted_ms[i]);
    }
  }
  ASSERT_EQ(whole_reference.size(), 2200u);
  ASSERT_EQ(alone.predicted_ms.size(), 2200u);
  for (std::size_t i = 0; i < whole_reference.size(); ++i) {
    ASSERT_DOUBLE_EQ(alone.predicted_ms[i], whole_reference[i]) << i;
  }
  const UnseenGpuCheck a = unseen_gpu_check(data, whole, true);
  const UnseenGpuCheck b = unseen_gpu_check(reference, alone, true);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_DOUBLE_EQ(a.learned_mape_pct, b.learned_mape_pct);
  EXPECT_DOUBLE_EQ(a.analytical_mape_pct, b.analytical_mape_pct);
  EXPECT_GT(a.analytical_mape_pct, 1.0) << "the check compares something";
}

TEST(UnseenGpu, TheCheckComparesBothModelsOnReferenceRowsAndTheFlagFallsBackOnlyThere) {
  const TrainingData data = two_source_rows(1000, 1200);
  const FeatureSpec spec = FeatureSpec::parse("default");
  // A fake leave-one-GPU-out result: the "learned" predictions are 2x the truth on every row.
  CvResult logo;
  logo.family = OpFamily::kConv;
  logo.rows = all_rows(data);
  for (const auto r : logo.rows) logo.predicted_ms.push_back(2.0 * data.latency_ms[r]);
  const UnseenGpuCheck check = unseen_gpu_check(data, logo, kNoFloor);
  EXPECT_EQ(check.rows, 1000u);  // the reference source's (NeuSight) rows only
  EXPECT_NEAR(check.learned_mape_pct, 100.0, 1e-9);
  // The synthetic NeuSight rows are 1.5x the analytical estimate: analytical APE 1/3.
  EXPECT_NEAR(check.analytical_mape_pct, 100.0 / 3.0, 1e-6);
  EXPECT_TRUE(check.prefer_analytical());

  auto models =
      fit_family_models(data, all_rows(data), OpFamily::kConv, RegressorKind::kDecisionTree,
                        kTreeParams, spec, SourceSplit::kSplit, kNoFloor);
  for (auto& m : models) {
    m.analytical_for_unseen_gpus = m.source == kReferenceSource;
    m.fallback_spans = testing::kNoFallback;
  }
  const LearnedModel model(spec, std::move(models), EagerOverhead{}, nlohmann::json::object());
  std::mt19937_64 rng(3);
  const std::vector<Layer> layers = {testing::random_conv3x3(rng), testing::random_conv3x3(rng)};
  const GpuSpec seen = data.gpus.front();
  const GpuSpec unseen = *GpuDatabase::bundled().find("rtx-2080-ti");
  const auto on_seen = model.predict_layers(layers, seen);
  const auto on_unseen = model.predict_layers(layers, unseen);
  const auto ml_unseen =
      model.predict_layers_as(layers, unseen, std::vector<std::string>(2, "mlpredict"));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_NEAR(on_seen[i].latency_ms() / estimate_layer(layers[i], seen).latency_ms,
                kNeusightFactor, 1e-6);
    EXPECT_DOUBLE_EQ(on_unseen[i].latency_ms(), estimate_layer(layers[i], unseen).latency_ms);
    EXPECT_FALSE(on_unseen[i].in_distribution);
    // Another source's model is not flagged: it stays learned on the unseen GPU.
    EXPECT_GT(ml_unseen[i].latency_ms(), 2.0 * on_unseen[i].latency_ms());
  }
  // validate's path (rows with their own source) falls back the same way.
  TrainingData rows_on_unseen;
  for (const auto& l : layers) testing::add_row(rows_on_unseen, l, unseen, kReferenceSource, 1.0);
  std::vector<const FamilyModel*> views;
  for (const auto& m : model.families()) views.push_back(&m);
  const auto validated = predict_rows(views, rows_on_unseen, {0, 1}, spec);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_DOUBLE_EQ(validated[i], on_unseen[i].latency_ms());
  }
  const auto back = LearnedModel::from_json(model.to_json(), "round trip");
  EXPECT_FALSE(back->families()[0].analytical_for_unseen_gpus);  // mlpredict
  EXPECT_TRUE(back->families()[1].analytical_for_unseen_gpus);   // neusight
  nlohmann::json bad = model.to_json();
  bad["families"][1]["unseen_gpu"] = "maybe";
  EXPECT_THROW((void)LearnedModel::from_json(bad, "bad"), InputError);
}

TEST(SourceSplit, LoadingOnlyTheReferenceModelsPredictsNetworksTheSame) {
  const std::string path =
      std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/cnnperf_default.json";
  const auto full = LearnedModel::load(path);
  const auto lean = LearnedModel::load(path, /*reference_source_only=*/true);
  EXPECT_LT(lean->families().size(), full->families().size());
  for (const auto& f : lean->families()) {
    EXPECT_TRUE(f.source.empty() || f.source == kReferenceSource) << f.source;
  }
  const GpuSpec gpu = *GpuDatabase::bundled().find("a100-pcie-40gb");
  for (const char* name : {"resnet50", "mobilenet_v2", "vgg16"}) {
    NetworkOptions options;
    options.batch = 8;
    const Network net = build_zoo_network(name, options);
    const auto a = full->predict_layers(net.layers, gpu);
    const auto b = lean->predict_layers(net.layers, gpu);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_DOUBLE_EQ(a[i].latency_ms(), b[i].latency_ms()) << name << " layer " << i;
      EXPECT_EQ(a[i].in_distribution, b[i].in_distribution) << name << " layer " << i;
    }
  }
}

}  // namespace
}  // namespace cnnperf
