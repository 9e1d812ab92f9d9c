// SPDX-License-Identifier: Apache-2.0
// The gpu-blind regressor: the unseen-GPU candidate fitted with the gpu feature group held at
// 0. Its features, when predict uses it, the check's three-way choice, and the model file.
// The rows are SYNTHETIC: "measured" latency = analytical estimate x a known ratio.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/cross_validation.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"
#include "temp_file.hpp"
#include "training_rows.hpp"

namespace cnnperf {
namespace {

GpuSpec gpu(const char* name) {
  return *GpuDatabase::bundled().find(name);
}

// SYNTHETIC: `n` conv rows on each of two GPUs, measured = analytical x `ratio`.
TrainingData scaled_rows(double ratio, std::size_t n = 200) {
  std::mt19937_64 rng(5);
  TrainingData data;
  for (const char* name : {"v100-sxm2-16gb", "p100-pcie-16gb"}) {
    for (std::size_t i = 0; i < n; ++i) {
      const Layer l = testing::random_conv3x3(rng);
      testing::add_row(data, l, gpu(name), kReferenceSource,
                       estimate_layer(l, gpu(name)).latency_ms * ratio);
    }
  }
  return data;
}

// A neusight conv model whose own regressor learned ratio 2 and whose gpu-blind one ratio 3
// (no host floor, so predictions are analytical x ratio exactly).
std::unique_ptr<LearnedModel> two_ratio_model(RegressorKind kind, const nlohmann::json& params) {
  const FeatureSpec spec = FeatureSpec::parse("default");
  const TrainingData two = scaled_rows(2.0);
  const TrainingData three = scaled_rows(3.0);
  std::vector<FamilyModel> fams;
  fams.push_back(fit_family(two, testing::all_rows(two), OpFamily::kConv, kind, params, spec,
                            /*host_floor=*/false));
  fams.back().source = kReferenceSource;
  fams.back().fallback_spans = testing::kNoFallback;
  fams.back().gpu_blind_regressor =
      fit_family(three, testing::all_rows(three), OpFamily::kConv, kind, params,
                 gpu_blind_spec(spec), /*host_floor=*/false)
          .regressor;
  return std::make_unique<LearnedModel>(spec, std::move(fams), EagerOverhead{},
                                        nlohmann::json::object());
}

const nlohmann::json kTree = {{"log_target", true}, {"max_depth", 3}};

std::vector<Layer> some_convs() {
  std::mt19937_64 rng(17);
  return {testing::random_conv3x3(rng), testing::random_conv3x3(rng)};
}

TEST(GpuBlind, HoldsTheGpuColumnsAtZeroAndLeavesTheOthers) {
  const FeatureSpec spec = FeatureSpec::parse("default");
  const FeatureSpec blind = gpu_blind_spec(spec);
  EXPECT_EQ(blind.to_string(), spec.to_string()) << "not a group of its own";
  const auto names = feature_names(spec);
  const auto groups = feature_groups(spec);
  std::mt19937_64 rng(3);
  const Layer l = testing::random_conv3x3(rng);
  const auto full = feature_row(l, gpu("v100-sxm2-16gb"), kReferenceSource, spec);
  const auto held = feature_row(l, gpu("v100-sxm2-16gb"), kReferenceSource, blind);
  ASSERT_EQ(held.size(), full.size());
  ASSERT_EQ(names.size(), full.size());
  int gpu_columns = 0;
  for (std::size_t c = 0; c < names.size(); ++c) {
    const bool is_gpu = groups[c] == "gpu";
    if (is_gpu) {
      ++gpu_columns;
      EXPECT_EQ(held[c], 0.0) << names[c];
    } else {
      EXPECT_EQ(held[c], full[c]) << names[c];
    }
  }
  EXPECT_EQ(gpu_columns, 9);
  EXPECT_NE(full, held);
  // The prediction path derives the gpu-blind matrix from the full one.
  const FeatureMatrix x(1, full.size(), full);
  EXPECT_EQ(gpu_blind_matrix(x, spec).values, held);
}

TEST(GpuBlind, TheCheckPicksTheMostAccurateOfThree) {
  UnseenGpuCheck c;
  c.rows = 10;
  c.learned_mape_pct = 20;
  c.analytical_mape_pct = 30;
  EXPECT_EQ(c.choice(), "learned") << "not cross-validated: no candidate";
  c.gpu_blind_mape_pct = 19;
  EXPECT_EQ(c.choice(), "gpu-blind");
  EXPECT_FALSE(c.prefer_analytical());
  c.analytical_mape_pct = 18;
  EXPECT_EQ(c.choice(), "analytical");
  EXPECT_TRUE(c.prefer_analytical());
  c.gpu_blind_mape_pct = 18;
  EXPECT_EQ(c.choice(), "analytical") << "a tie keeps the earlier";
  c.rows = 0;
  EXPECT_EQ(c.choice(), "learned") << "no rows, no decision";
}

TEST(GpuBlind, PredictsOnlyRowsOfGpusOutsideTheTrainingData) {
  const auto model = two_ratio_model(RegressorKind::kDecisionTree, kTree);
  const auto layers = some_convs();
  const auto seen = model->predict_layers(layers, gpu("v100-sxm2-16gb"));
  const auto unseen = model->predict_layers(layers, gpu("rtx-2080-ti"));
  const auto inside_network = model->predict_network_layers(layers, gpu("rtx-2080-ti"));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_NEAR(seen[i].kernel_ms, 2 * estimate_layer(layers[i], gpu("v100-sxm2-16gb")).latency_ms,
                1e-9);
    const double analytical = estimate_layer(layers[i], gpu("rtx-2080-ti")).latency_ms;
    EXPECT_NEAR(unseen[i].kernel_ms, 3 * analytical, 1e-9);
    EXPECT_NEAR(inside_network[i].kernel_ms, 3 * analytical, 1e-9);
    EXPECT_FALSE(unseen[i].in_distribution) << "a GPU outside the training data";
  }
  // validate's path: rows of their own GPU, the unseen one through the blind regressor.
  TrainingData rows = scaled_rows(1.0, 2);
  testing::add_row(rows, layers[0], gpu("rtx-2080-ti"), kReferenceSource, 1.0);
  const auto p =
      predict_rows(model->families()[0], rows, testing::all_rows(rows), model->feature_spec());
  EXPECT_NEAR(p[0], 2 * estimate_layer(rows.layers[0], rows.gpus[0]).latency_ms, 1e-9);
  EXPECT_NEAR(p.back(), 3 * estimate_layer(layers[0], gpu("rtx-2080-ti")).latency_ms, 1e-9);
}

TEST(GpuBlind, AnotherBoardOfASeenChipTakesTheSeenOnesFeaturesNotTheBlindRegressor) {
  const auto model = two_ratio_model(RegressorKind::kDecisionTree, kTree);
  const FamilyModel& fam = model->families()[0];
  // The V100-PCIe is the trained V100-SXM2's chip with its SM count, so is the P100-SXM2 the
  // trained P100-PCIe's. The H100s differ in SM count, the RTX 2080 Ti in family; a trained
  // GPU needs none.
  const GpuSpec* sibling = seen_sibling(fam, gpu("v100-pcie-16gb"));
  ASSERT_NE(sibling, nullptr);
  EXPECT_EQ(sibling->name, "v100-sxm2-16gb");
  EXPECT_EQ(seen_sibling(fam, gpu("rtx-2080-ti")), nullptr);
  EXPECT_EQ(seen_sibling(fam, gpu("v100-sxm2-16gb")), nullptr);
  EXPECT_NE(seen_sibling(fam, gpu("p100-sxm2-16gb")), nullptr);
  FamilyModel h100;
  h100.gpus = {"h100-pcie-80gb"};
  EXPECT_EQ(seen_sibling(h100, gpu("h100-sxm5-80gb")), nullptr) << "132 SMs, not 114";
  GpuSpec custom = gpu("v100-pcie-16gb");
  custom.family.clear();  // a spec file without a family
  EXPECT_EQ(seen_sibling(fam, custom), nullptr);
  EXPECT_FALSE(gpu_blind_for(fam, gpu("v100-pcie-16gb"), kReferenceSource));
  EXPECT_TRUE(gpu_blind_for(fam, gpu("rtx-2080-ti"), kReferenceSource));

  // Its ratio is the seen board's (2, not the blind 3), over its own analytical estimate.
  const auto layers = some_convs();
  const auto on_sibling = model->predict_layers(layers, gpu("v100-pcie-16gb"));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const double analytical = estimate_layer(layers[i], gpu("v100-pcie-16gb")).latency_ms;
    EXPECT_NE(analytical, estimate_layer(layers[i], gpu("v100-sxm2-16gb")).latency_ms);
    EXPECT_NEAR(on_sibling[i].kernel_ms, 2 * analytical, 1e-9);
    EXPECT_FALSE(on_sibling[i].in_distribution) << "still a GPU outside the training data";
  }
  // validate's and cross-validation's path gives the same.
  TrainingData rows = scaled_rows(1.0, 2);
  testing::add_row(rows, layers[0], gpu("v100-pcie-16gb"), kReferenceSource, 1.0);
  const auto p = predict_rows(fam, rows, testing::all_rows(rows), model->feature_spec());
  EXPECT_NEAR(p.back(), on_sibling[0].kernel_ms, 1e-9);
}

TEST(GpuBlind, TheModelFileKeepsItOnBothLoadPaths) {
  // XGBoost, so that LearnedModel::load takes its fast path for both boosters.
  const nlohmann::json params = {{"log_target", true}, {"n_estimators", 20}, {"max_depth", 3}};
  const auto model = two_ratio_model(RegressorKind::kXgboost, params);
  model->set_fallback_spans(kFallbackSpans);  // as a loaded model predicts
  const nlohmann::json doc = model->to_json();
  ASSERT_EQ(doc["families"][0]["unseen_gpu"], "gpu-blind");
  const auto path = testing::write_temp("cnnperf_gpu_blind_model.json", doc.dump());
  const auto layers = some_convs();
  const auto expected = model->predict_layers(layers, gpu("rtx-2080-ti"));
  const auto seen_pred = model->predict_layers(layers, gpu("v100-sxm2-16gb"));
  for (const bool reference_only : {false, true}) {
    const auto back = LearnedModel::load(path.string(), reference_only);
    ASSERT_NE(back->families()[0].gpu_blind_regressor, nullptr);
    const auto got = back->predict_layers(layers, gpu("rtx-2080-ti"));
    const auto got_seen = back->predict_layers(layers, gpu("v100-sxm2-16gb"));
    for (std::size_t i = 0; i < layers.size(); ++i) {
      EXPECT_DOUBLE_EQ(got[i].kernel_ms, expected[i].kernel_ms) << reference_only;
      EXPECT_DOUBLE_EQ(got_seen[i].kernel_ms, seen_pred[i].kernel_ms) << reference_only;
    }
    EXPECT_NE(got[0].kernel_ms, got_seen[0].kernel_ms);
  }
  // Loaded for one GPU, only the booster it uses is read; the predictions are the same, and
  // the other GPU's rows are an Error, not a crash.
  for (const char* name : {"rtx-2080-ti", "v100-sxm2-16gb", "v100-pcie-32gb"}) {
    const GpuSpec only = gpu(name);
    const auto one = LearnedModel::load(path.string(), true, &only);
    const auto& f = one->families()[0];
    const bool seen = std::string(name) != "rtx-2080-ti";  // or a sibling of a seen one
    if (std::string(name) == "v100-pcie-32gb") {
      ASSERT_NE(f.regressor, nullptr);
      EXPECT_EQ(f.gpu_blind_regressor, nullptr);
      EXPECT_DOUBLE_EQ(one->predict_layers(layers, only)[0].kernel_ms,
                       model->predict_layers(layers, only)[0].kernel_ms);
      continue;
    }
    EXPECT_EQ(f.regressor != nullptr, seen) << name;
    EXPECT_EQ(f.gpu_blind_regressor != nullptr, !seen) << name;
    const auto got = one->predict_layers(layers, only);
    EXPECT_DOUBLE_EQ(got[0].kernel_ms, (seen ? seen_pred : expected)[0].kernel_ms) << name;
    EXPECT_THROW((void)one->predict_layers(layers, gpu(seen ? "rtx-2080-ti" : "v100-sxm2-16gb")),
                 Error)
        << name;
    EXPECT_THROW((void)one->to_json(), Error) << "not a whole model: " << name;
  }
  const auto plain = LearnedModel::from_json(doc, "m.json");
  EXPECT_DOUBLE_EQ(plain->predict_layers(layers, gpu("rtx-2080-ti"))[0].kernel_ms,
                   expected[0].kernel_ms);
  std::filesystem::remove(path);
}

TEST(GpuBlind, AFileWhoseModeAndRegressorDisagreeIsAnInputError) {
  const auto doc = two_ratio_model(RegressorKind::kDecisionTree, kTree)->to_json();
  const auto expect_error = [](const nlohmann::json& bad, const std::string& field) {
    try {
      (void)LearnedModel::from_json(bad, "m.json");
      ADD_FAILURE() << "expected InputError naming " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("m.json: families[0]." + field), std::string::npos)
          << e.what();
    }
  };
  nlohmann::json bad = doc;
  bad["families"][0].erase("gpu_blind_regressor");
  expect_error(bad, "gpu_blind_regressor");
  bad = doc;
  bad["families"][0]["unseen_gpu"] = "learned";
  expect_error(bad, "gpu_blind_regressor");
  bad["families"][0].erase("unseen_gpu");  // a file without it reads as "learned"
  expect_error(bad, "gpu_blind_regressor");
  bad = doc;
  bad["families"][0]["unseen_gpu"] = "blind";
  expect_error(bad, "unseen_gpu");
}

// The range check reads one bound per feature: a short feature_min was read past its end.
TEST(LearnedModelFile, BoundsOfAnotherLengthThanTheFeaturesAreAnInputError) {
  const auto doc = two_ratio_model(RegressorKind::kDecisionTree, kTree)->to_json();
  const std::size_t n = doc["feature_names"].size();
  ASSERT_EQ(doc["families"][0]["feature_min"].size(), n);
  for (const char* key : {"feature_min", "feature_max"}) {
    for (const std::size_t length : {std::size_t{3}, n + 1}) {
      nlohmann::json bad = doc;
      auto& bounds = bad["families"][0][key];
      while (bounds.size() > length) bounds.erase(bounds.size() - 1);
      while (bounds.size() < length) bounds.push_back(0.0);
      try {
        (void)LearnedModel::from_json(bad, "m.json");
        ADD_FAILURE() << key << " of " << length << " values was accepted";
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("m.json: families[0]." + std::string(key) +
                                             ": expected " + std::to_string(n) + " values"),
                  std::string::npos)
            << e.what();
      }
    }
  }
  EXPECT_NO_THROW((void)LearnedModel::from_json(doc, "m.json"));
}

// A model file's errors name the file, the field and what was expected.
TEST(LearnedModelFile, ErrorsNameTheFieldAndWhatWasExpected) {
  const auto doc = two_ratio_model(RegressorKind::kDecisionTree, kTree)->to_json();
  const auto error_of = [](const nlohmann::json& bad) {
    try {
      (void)LearnedModel::from_json(bad, "m.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json bad = doc;
  bad["families"][0]["family"] = "bogus";
  EXPECT_EQ(error_of(bad).rfind("m.json: families[0].family: unknown op family 'bogus'", 0), 0U)
      << error_of(bad);
  bad = doc;
  bad["families"][0]["rows"] = "12";
  EXPECT_EQ(error_of(bad), "m.json: families[0].rows: expected an integer, got string");
  bad = doc;
  bad["families"][0]["gpus"] = 3;
  EXPECT_EQ(error_of(bad), "m.json: families[0].gpus: expected an array of strings, got number");
  bad = doc;
  bad["families"][0]["tensor_core_rows"] = "none";
  EXPECT_EQ(error_of(bad), "m.json: families[0].tensor_core_rows: expected an integer, got string");
  bad = doc;
  bad["families"][0]["tensor_core_rows"] = doc["families"][0]["rows"].get<std::size_t>() + 1;
  EXPECT_EQ(error_of(bad).rfind("m.json: families[0].tensor_core_rows: expected at most rows", 0),
            0U)
      << error_of(bad);
}

}  // namespace
}  // namespace cnnperf
