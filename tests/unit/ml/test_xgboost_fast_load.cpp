// SPDX-License-Identifier: Apache-2.0
// The fast model loader (LearnedModel::load) and cnnperf's own evaluation of XGBoost trees,
// checked against XGBoost itself: every prediction must be bit-identical to what XGBoost
// 1.7's predictor returns for the same booster JSON, whether the model file holds the trees
// as tree arrays (schema_version 2) or as XGBoost's JSON (schema_version 1, still read).
#include <xgboost/c_api.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/ml/learned_model.hpp"
#include "cnnperf/ml/regressor.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "synthetic_data.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

std::string bundled_model_path() {
  return std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/models/cnnperf_default.json";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void xgb_check(int rc) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost: ") + XGBGetLastError());
}

/// The reference: XGBoost's own prediction for `x` from the booster's JSON text, exactly as
/// cnnperf's XGBoost regressor predicted before it evaluated trees itself.
std::vector<float> xgboost_predict(const std::string& booster_json, const FeatureMatrix& x) {
  BoosterHandle booster = nullptr;
  DMatrixHandle matrix = nullptr;
  std::vector<float> out;
  try {
    xgb_check(XGBoosterCreate(nullptr, 0, &booster));
    xgb_check(XGBoosterLoadModelFromBuffer(booster, booster_json.data(), booster_json.size()));
    xgb_check(XGBoosterSetParam(booster, "nthread", "1"));
    std::vector<float> data(x.values.size());
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(x.values[i]);
    xgb_check(XGDMatrixCreateFromMat(data.data(), x.rows, x.cols,
                                     std::numeric_limits<float>::quiet_NaN(), &matrix));
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    xgb_check(XGBoosterPredictFromDMatrix(
        booster, matrix,
        R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})",
        &shape, &dim, &result));
    out.assign(result, result + x.rows);
  } catch (...) {
    if (matrix != nullptr) XGDMatrixFree(matrix);
    if (booster != nullptr) XGBoosterFree(booster);
    throw;
  }
  XGDMatrixFree(matrix);
  XGBoosterFree(booster);
  return out;
}

/// What Regressor::predict makes of XGBoost's float output.
std::vector<double> as_regressor_output(const std::vector<float>& raw, bool log_target) {
  std::vector<double> out(raw.begin(), raw.end());
  if (log_target) {
    for (double& v : out) v = std::exp(v);
  }
  return out;
}

class TempFile {
 public:
  explicit TempFile(const std::string& content)
      : path_((fs::temp_directory_path() /
               ("cnnperf_fast_load_" + std::to_string(std::random_device{}()) + ".json"))
                  .string()) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { fs::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The bundled model parsed the plain way (a full nlohmann DOM, parsed once).
const nlohmann::json& bundled_doc() {
  static const nlohmann::json doc = nlohmann::json::parse(read_file(bundled_model_path()));
  return doc;
}

const LearnedModel& bundled_fast() {
  static const auto model = LearnedModel::load(bundled_model_path());
  return *model;
}

/// XGBoost's JSON model of a booster XGBoost itself trained (C API, 1 thread) on SYNTHETIC
/// rows: features uniform in [0, 1), target testing::smooth_function.
std::string trained_booster_json(std::size_t n_features, std::uint64_t seed, int rounds,
                                 int depth) {
  const auto d = testing::make_synthetic(600, n_features, seed, testing::smooth_function);
  std::vector<float> data(d.x.values.begin(), d.x.values.end());
  std::vector<float> labels(d.y.begin(), d.y.end());
  DMatrixHandle matrix = nullptr;
  BoosterHandle booster = nullptr;
  std::string out;
  try {
    xgb_check(XGDMatrixCreateFromMat(data.data(), d.x.rows, d.x.cols,
                                     std::numeric_limits<float>::quiet_NaN(), &matrix));
    xgb_check(XGDMatrixSetFloatInfo(matrix, "label", labels.data(), labels.size()));
    xgb_check(XGBoosterCreate(&matrix, 1, &booster));
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, std::string>>{{"verbosity", "0"},
                                                          {"objective", "reg:squarederror"},
                                                          {"max_depth", std::to_string(depth)},
                                                          {"subsample", "0.8"},
                                                          {"nthread", "1"},
                                                          {"seed", std::to_string(seed)}}) {
      xgb_check(XGBoosterSetParam(booster, key.c_str(), value.c_str()));
    }
    for (int i = 0; i < rounds; ++i) xgb_check(XGBoosterUpdateOneIter(booster, i, matrix));
    bst_ulong len = 0;
    const char* buf = nullptr;
    xgb_check(XGBoosterSaveModelToBuffer(booster, R"({"format": "json"})", &len, &buf));
    out.assign(buf, len);
  } catch (...) {
    if (booster != nullptr) XGBoosterFree(booster);
    if (matrix != nullptr) XGDMatrixFree(matrix);
    throw;
  }
  XGBoosterFree(booster);
  XGDMatrixFree(matrix);
  return out;
}

/// A regressor document as model files of schema_version 1 hold it: XGBoost's JSON model
/// under model.booster.
nlohmann::json old_format_regressor(const std::string& booster_json, std::size_t n_features) {
  return {{"schema_version", 1},
          {"kind", "xgboost"},
          {"params", {{"n_threads", 1}}},
          {"n_features", n_features},
          {"model",
           {{"format", "xgboost-json"},
            {"xgboost_version", "1.7.4"},
            {"booster", nlohmann::json::parse(booster_json)}}}};
}

/// The bundled model as a file of schema_version 1 would hold it, each regressor replaced by
/// an old-format one around a booster XGBoost trained on SYNTHETIC rows (the bundled file's
/// own trees are tree arrays; XGBoost's JSON of them is gone), booster_bytes recorded as the
/// old writer did. `boosters` receives each family's regressor's booster JSON.
nlohmann::json old_format_model(std::vector<std::string>* boosters = nullptr) {
  nlohmann::json doc = bundled_doc();
  doc["schema_version"] = 1;
  const std::size_t n_features = doc.at("feature_names").size();
  std::uint64_t seed = 1;
  for (auto& f : doc["families"]) {
    nlohmann::json bytes = nlohmann::json::object();
    for (const char* key : {"regressor", "gpu_blind_regressor"}) {
      if (!f.contains(key)) continue;
      const std::string booster = trained_booster_json(n_features, seed++, 12, 4);
      if (boosters != nullptr && std::string(key) == "regressor") boosters->push_back(booster);
      f[key] = old_format_regressor(booster, n_features);
      bytes[key] = f[key]["model"]["booster"].dump().size();
    }
    f["booster_bytes"] = bytes;
  }
  return doc;
}

/// Feature rows of one family: every layer of that family in a few zoo networks, each on a
/// few GPUs (real layers, computed features; no measured values involved).
FeatureMatrix zoo_rows(OpFamily family, const FeatureSpec& spec) {
  static const std::vector<Network> nets = [] {
    std::vector<Network> out;
    for (const char* name : {"resnet50", "mobilenet_v2", "vgg11", "efficientnet_b0", "densenet121",
                             "inception_v3", "shufflenet_v2_x1_0"}) {
      out.push_back(build_zoo_network(name));
    }
    NetworkOptions big;
    big.batch = 64;
    big.dtype = DType::kFp16;
    out.push_back(build_zoo_network("resnet50", big));
    return out;
  }();
  static const std::vector<GpuSpec> gpus = [] {
    std::vector<GpuSpec> out;
    for (const char* name : {"a100", "t4", "v100", "rtx3090"}) {
      out.push_back(*GpuDatabase::bundled().find(name));
    }
    return out;
  }();
  std::vector<const Layer*> layers;
  std::vector<const GpuSpec*> layer_gpus;
  for (const auto& gpu : gpus) {
    for (const auto& net : nets) {
      for (const auto& layer : net.layers) {
        if (op_family(layer.op) != family) continue;
        layers.push_back(&layer);
        layer_gpus.push_back(&gpu);
      }
    }
  }
  const std::vector<std::string> sources(layers.size(), kReferenceSource);
  return build_feature_matrix(layers, layer_gpus, sources, spec);
}

/// SYNTHETIC rows that stress every comparison of the trees: a third of the values sit
/// exactly on a split threshold of their feature (the `<` vs `<=` question), some one float
/// step below or above it, some are NaN (missing: the default child), the rest uniform in
/// [lo, hi). They are not layers; they only exercise the evaluator.
FeatureMatrix threshold_rows(const nlohmann::json& booster, std::size_t n_features,
                             std::size_t rows, std::uint64_t seed, double lo, double hi) {
  std::vector<std::vector<float>> splits(n_features);
  for (const auto& tree : booster.at("learner").at("gradient_booster").at("model").at("trees")) {
    const auto& left = tree.at("left_children");
    for (std::size_t i = 0; i < left.size(); ++i) {
      if (left[i].get<int>() == -1) continue;
      splits.at(tree.at("split_indices")[i].get<std::size_t>())
          .push_back(tree.at("split_conditions")[i].get<float>());
    }
  }
  std::mt19937_64 rng(seed);
  auto uniform = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  FeatureMatrix x(rows, n_features);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < n_features; ++c) {
      const double u = uniform();
      const auto& s = splits[c];
      if (u < 0.05) {
        x(r, c) = std::numeric_limits<double>::quiet_NaN();
      } else if (u < 0.6 && !s.empty()) {
        const float t = s[static_cast<std::size_t>(uniform() * static_cast<double>(s.size()))];
        const double v = uniform();
        const float step = v < 0.2   ? std::nextafter(t, -INFINITY)
                           : v < 0.4 ? std::nextafter(t, INFINITY)
                                     : t;
        x(r, c) = static_cast<double>(step);
      } else {
        x(r, c) = lo + (hi - lo) * uniform();
      }
    }
  }
  return x;
}

TEST(XgboostFastLoad, BundledModelIsTreeArraysUnderTenMegabytes) {
  EXPECT_LE(fs::file_size(bundled_model_path()), 10'000'000U);
  EXPECT_EQ(bundled_doc().at("schema_version"), kModelSchemaVersion);
  for (const auto& f : bundled_doc().at("families")) {
    for (const char* key : {"regressor", "gpu_blind_regressor"}) {
      if (!f.contains(key)) continue;
      EXPECT_EQ(f.at(key).at("model").at("format"), "cnnperf-trees");
      EXPECT_FALSE(f.at(key).at("model").contains("booster"));
    }
  }
}

TEST(XgboostFastLoad, OldFormatFilePredictsLikeXgboostAndConvertsUnchanged) {
  std::vector<std::string> boosters;
  const nlohmann::json old_doc = old_format_model(&boosters);
  const TempFile old_file(old_doc.dump());
  const auto old_model = LearnedModel::load(old_file.path());
  ASSERT_EQ(old_model->families().size(), boosters.size());
  // Written again, as cnnperf_convert_model does: tree arrays, the same trees.
  const nlohmann::json new_doc = old_model->to_json();
  EXPECT_EQ(new_doc.at("schema_version"), kModelSchemaVersion);
  const TempFile new_file(new_doc.dump());
  const auto new_model = LearnedModel::load(new_file.path());
  std::size_t compared = 0;
  for (std::size_t i = 0; i < boosters.size(); ++i) {
    const FamilyModel& fam = old_model->families()[i];
    const auto& regressor = new_doc["families"][i]["regressor"];
    EXPECT_EQ(regressor.at("model").at("format"), "cnnperf-trees");
    EXPECT_FALSE(new_doc["families"][i].contains("booster_bytes"));
    for (const FeatureMatrix& x :
         {zoo_rows(fam.family, old_model->feature_spec()),
          threshold_rows(nlohmann::json::parse(boosters[i]), fam.feature_min.size(), 500, 40 + i,
                         -0.5, 1.5)}) {
      const auto expected = as_regressor_output(xgboost_predict(boosters[i], x), false);
      const auto got_old = fam.regressor->predict(x);
      const auto got_new = new_model->families()[i].regressor->predict(x);
      for (std::size_t r = 0; r < x.rows; ++r) {
        ASSERT_EQ(got_old[r], expected[r]) << "family " << i << " row " << r;
        ASSERT_EQ(got_new[r], expected[r]) << "family " << i << " row " << r;
      }
      compared += x.rows;
    }
  }
  EXPECT_GT(compared, 2000U);
  // And whole networks, through every family and the gpu-blind regressors.
  for (const char* gpu_name : {"a100", "t4"}) {
    const GpuSpec gpu = *GpuDatabase::bundled().find(gpu_name);
    const Network net = build_zoo_network("resnet50");
    const auto a = old_model->predict_layers(net.layers, gpu);
    const auto b = new_model->predict_layers(net.layers, gpu);
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].latency_ms(), b[i].latency_ms()) << gpu_name << " layer " << i;
    }
  }
}

TEST(XgboostFastLoad, FastLoadEqualsPlainDomLoad) {
  const LearnedModel& fast = bundled_fast();
  const auto plain = LearnedModel::from_json(bundled_doc(), "plain");
  EXPECT_EQ(fast.feature_spec().to_string(), plain->feature_spec().to_string());
  EXPECT_EQ(fast.eager_overhead().host_ms_per_op, plain->eager_overhead().host_ms_per_op);
  EXPECT_EQ(fast.eager_overhead().source, plain->eager_overhead().source);
  for (const char* gpu_name : {"a100", "t4"}) {
    const GpuSpec gpu = *GpuDatabase::bundled().find(gpu_name);
    for (const char* net_name : {"resnet50", "mobilenet_v3_small"}) {
      const Network net = build_zoo_network(net_name);
      const auto a = fast.predict_layers(net.layers, gpu);
      const auto b = plain->predict_layers(net.layers, gpu);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].latency_ms(), b[i].latency_ms()) << net_name << " layer " << i;
        EXPECT_EQ(a[i].in_distribution, b[i].in_distribution) << net_name << " layer " << i;
      }
    }
  }
}

TEST(XgboostFastLoad, SavingAFastLoadedModelWritesTheSameRegressors) {
  const nlohmann::json saved = bundled_fast().to_json();
  const auto& original = bundled_doc().at("families");
  ASSERT_EQ(saved.at("families").size(), original.size());
  for (std::size_t i = 0; i < original.size(); ++i) {
    EXPECT_TRUE(saved["families"][i]["regressor"] == original[i]["regressor"]) << "family " << i;
  }
}

// --- Regressors on their own (SYNTHETIC data) -------------------------------------------------

TEST(XgboostFastLoad, FreshlyTrainedModelRoundTripsThroughTreeArrays) {
  auto d = testing::make_synthetic(800, 4, 7, testing::smooth_function);
  auto model = make_regressor(RegressorKind::kXgboost,
                              {{"n_estimators", 40}, {"max_depth", 5}, {"n_threads", 1}});
  model->fit(d.x, d.y);
  const nlohmann::json saved = model->to_json();
  EXPECT_EQ(saved.at("model").at("format"), "cnnperf-trees");
  EXPECT_EQ(saved.at("model").at("trees"), 40);
  const auto loaded = Regressor::from_json(nlohmann::json::parse(saved.dump()));
  const auto x = testing::make_synthetic(2000, 4, 8, testing::smooth_function, -0.2, 1.2).x;
  EXPECT_EQ(loaded->predict(x), model->predict(x));
  EXPECT_EQ(loaded->feature_importances(), model->feature_importances());
  EXPECT_EQ(loaded->to_json(), saved);  // the same trees write the same bytes
}

TEST(XgboostFastLoad, OldFormatRegressorPredictsLikeXgboost) {
  const std::string booster = trained_booster_json(4, 9, 40, 5);
  const auto model = Regressor::from_json(old_format_regressor(booster, 4));
  const FeatureMatrix x = threshold_rows(nlohmann::json::parse(booster), 4, 2000, 8, -0.2, 1.2);
  const auto expected = as_regressor_output(xgboost_predict(booster, x), false);
  const auto got = model->predict(x);
  for (std::size_t r = 0; r < x.rows; ++r) ASSERT_EQ(got[r], expected[r]) << "row " << r;
  // Its importances come from XGBoost (the old file held none here), and survive a save.
  const auto converted = Regressor::from_json(nlohmann::json::parse(model->to_json().dump()));
  EXPECT_EQ(converted->predict(x), got);
  EXPECT_EQ(converted->feature_importances(), model->feature_importances());
  EXPECT_EQ(model->feature_importances().size(), 4U);
}

/// Regressor::from_json of an old-format regressor with one edit applied to its booster.
void expect_rejected(const std::function<void(nlohmann::json&)>& edit, const std::string& what) {
  static const std::string booster = trained_booster_json(4, 9, 10, 4);
  auto doc = old_format_regressor(booster, 4);
  edit(doc["model"]["booster"]);
  try {
    (void)Regressor::from_json(doc);
    ADD_FAILURE() << "accepted " << what;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("booster"), std::string::npos) << e.what();
  }
}

TEST(XgboostFastLoad, RejectsBoostersItCannotEvaluateExactly) {
  expect_rejected([](auto& b) { b["learner"]["objective"]["name"] = "reg:logistic"; },
                  "an objective with an output transform");
  expect_rejected([](auto& b) { b["learner"]["gradient_booster"]["name"] = "dart"; }, "dart");
  const auto trees = [](nlohmann::json& b) -> nlohmann::json& {
    return b["learner"]["gradient_booster"]["model"]["trees"];
  };
  expect_rejected([&](auto& b) { trees(b)[0]["right_children"][0] = 5; },
                  "right child != left child + 1");
  expect_rejected([&](auto& b) { trees(b)[0]["split_indices"][0] = 4; },
                  "a split on a feature the model does not have");
  expect_rejected([&](auto& b) { trees(b)[0]["split_type"][0] = 1; }, "a categorical split");
  expect_rejected([&](auto& b) { trees(b)[1]["left_children"].erase(0); },
                  "node arrays of different lengths");
  expect_rejected(
      [&](auto& b) {
        auto& t = trees(b)[0];
        ASSERT_NE(t["left_children"][1], -1);  // node 1 splits: point it back at the root
        t["left_children"][1] = 0;
        t["right_children"][1] = 1;
      },
      "a cycle");
}

TEST(XgboostFastLoad, RejectsMalformedTreeArraysRegressors) {
  auto d = testing::make_synthetic(300, 4, 3, testing::smooth_function);
  auto model = make_regressor(RegressorKind::kXgboost,
                              {{"n_estimators", 5}, {"max_depth", 3}, {"n_threads", 1}});
  model->fit(d.x, d.y);
  const nlohmann::json good = model->to_json();
  const auto rejected = [&](const std::function<void(nlohmann::json&)>& edit,
                            const std::string& expected) {
    nlohmann::json doc = good;
    edit(doc);
    try {
      (void)Regressor::from_json(doc);
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  rejected([](nlohmann::json& j) { j["model"]["tree_arrays"] = 5; },
           "field 'tree_arrays': expected a string");
  rejected([](nlohmann::json& j) { j["model"].erase("tree_arrays"); },
           "model.tree_arrays: missing");
  rejected([](nlohmann::json& j) { j["model"]["tree_arrays"].get_ref<std::string&>()[6] = '!'; },
           "model.tree_arrays: byte 6: expected a base64 character");
  rejected([](nlohmann::json& j) { j["model"]["tree_arrays"] = "AAAA"; },
           "model.tree_arrays: expected tree arrays");
  rejected([](nlohmann::json& j) { j["model"].erase("feature_importances"); },
           "field 'feature_importances': expected 4 numbers");
  rejected([](nlohmann::json& j) { j["model"]["format"] = "xgboost-ubj"; },
           "model.format: expected \"cnnperf-trees\"");
  rejected(
      [](nlohmann::json& j) {
        j["n_features"] = 5U;
        j["model"]["feature_importances"].push_back(0.0);
      },
      "tree_arrays: expected 5 features (the regressor's n_features), got 4");
}

// --- Files -------------------------------------------------------------------------------------

std::string load_error(const std::string& content) {
  const TempFile file(content);
  try {
    (void)LearnedModel::load(file.path());
  } catch (const InputError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(file.path()), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "loaded a broken model file";
  return {};
}

TEST(XgboostFastLoad, OldFormatRecordedBoosterLengthsAreSkippedAndWrongOnesFallBackToScanning) {
  // The old writer recorded each booster's length so a loader skips unread boosters unscanned.
  // Lengths that are wrong: one byte long (lands inside the booster), or ending on the
  // '}' of its "learner" object (a bracket, but not this container's end); and a
  // pretty-printed file, where every recorded length is short. Each must load the same model.
  const nlohmann::json doc = old_format_model();
  const auto plain = LearnedModel::from_json(doc, "plain");
  std::vector<std::string> variants{doc.dump()};
  for (const int edit : {0, 1}) {
    nlohmann::json wrong = doc;
    for (auto& f : wrong["families"]) {
      for (const char* key : {"regressor", "gpu_blind_regressor"}) {
        if (!f.contains(key)) continue;
        const std::string booster = f[key]["model"]["booster"].dump();
        f["booster_bytes"][key] = edit == 0 ? booster.size() + 1 : booster.rfind(",\"version\":");
      }
    }
    variants.push_back(wrong.dump());
  }
  variants.push_back(doc.dump(1));
  const GpuSpec seen = *GpuDatabase::bundled().find("v100");
  const GpuSpec unseen = *GpuDatabase::bundled().find("t4");
  const Network net = build_zoo_network("resnet50");
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const TempFile file(variants[v]);
    const auto model = LearnedModel::load(file.path());
    const auto lean = LearnedModel::load(file.path(), /*reference_source_only=*/true, &unseen);
    for (const GpuSpec* gpu : {&seen, &unseen}) {
      const auto a = model->predict_layers(net.layers, *gpu);
      const auto b = plain->predict_layers(net.layers, *gpu);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].latency_ms(), b[i].latency_ms()) << "variant " << v << " layer " << i;
      }
    }
    const auto c = lean->predict_layers(net.layers, unseen);
    const auto d = plain->predict_layers(net.layers, unseen);
    for (std::size_t i = 0; i < c.size(); ++i) {
      ASSERT_EQ(c[i].latency_ms(), d[i].latency_ms()) << "variant " << v << " layer " << i;
    }
  }
}

TEST(XgboostFastLoad, ABoosterTheLoaderDoesNotNeedIsNotReadAtAll) {
  // MLPredict's conv booster (the file's first; no row without a source uses it) with a
  // character outside base64 in its tree arrays: loading everything reports it, loading the
  // reference models only never touches it (no decoding).
  std::string text = read_file(bundled_model_path());
  const std::string key = "\"tree_arrays\":\"";
  const std::size_t at = text.find(key, text.find("\"families\":[")) + key.size();
  ASSERT_LT(text.find("\"source\":\"mlpredict\"", at), text.find("\"family\":", at))
      << "family 0 is MLPredict's";
  text[at + 1000] = '!';
  const TempFile file(text);
  EXPECT_THROW((void)LearnedModel::load(file.path()), InputError);
  const auto lean = LearnedModel::load(file.path(), /*reference_source_only=*/true);
  const GpuSpec gpu = *GpuDatabase::bundled().find("a100");
  const Network net = build_zoo_network("resnet50");
  const auto a = lean->predict_layers(net.layers, gpu);
  const auto b = bundled_fast().predict_layers(net.layers, gpu);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].latency_ms(), b[i].latency_ms()) << i;
}

TEST(XgboostFastLoad, ABrokenBoosterNamesFileFamilyAndByte) {
  std::string text = read_file(bundled_model_path());
  // The file's second booster: a quote-free non-base64 character in its tree arrays. It is
  // the second family's: its gpu_blind_regressor sorts before its regressor (both are named so).
  const std::string key = "\"tree_arrays\":\"";
  std::size_t at = text.find(key);
  at = text.find(key, at + 1);
  const std::size_t blind_key = text.rfind("\"gpu_blind_regressor\"", at);
  const bool blind = blind_key != std::string::npos && blind_key > text.rfind("\"regressor\"", at);
  at += key.size() + 4000;
  text[at] = '#';
  const std::string message = load_error(text);
  EXPECT_NE(message.find(std::string("families[1].") +
                         (blind ? "gpu_blind_regressor" : "regressor") + ".model.tree_arrays"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("byte " + std::to_string(at) + ": expected a base64 character"),
            std::string::npos)
      << message;
}

TEST(XgboostFastLoad, InvalidJsonIsReportedAsBefore) {
  const std::string text = read_file(bundled_model_path());
  EXPECT_NE(load_error(text.substr(0, 5000)).find("invalid JSON: parse error"), std::string::npos);
  EXPECT_NE(load_error(text + "}").find("invalid JSON: parse error"), std::string::npos);
}

TEST(XgboostFastLoad, RepeatedKeysAreRefusedLikeInEveryJsonFile) {
  // The fast path hands a file with repeated keys to the plain parser, which refuses it (JSON
  // readers would keep one of the two silently), wherever the repeated key sits.
  const std::string text = read_file(bundled_model_path());
  const std::string empty_families = "\"families\":[],";
  const std::string before = "{" + empty_families + text.substr(1);
  std::string after = text;
  after.insert(after.find("\"metadata\":"), empty_families);
  for (const std::string* variant : {&before, static_cast<const std::string*>(&after)}) {
    const TempFile file(*variant);
    try {
      (void)LearnedModel::load(file.path());
      FAIL() << "expected InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(": families: key given twice in one object"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace cnnperf
