// SPDX-License-Identifier: Apache-2.0
// The fast model loader (LearnedModel::load) and cnnperf's own evaluation of XGBoost trees,
// checked against XGBoost itself: every prediction must be bit-identical to what XGBoost
// 1.7's predictor returns for the same booster JSON (the path cnnperf used before).
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

/// The bundled model parsed the plain way (a full nlohmann DOM; slow, so parsed once).
const nlohmann::json& bundled_doc() {
  static const nlohmann::json doc = nlohmann::json::parse(read_file(bundled_model_path()));
  return doc;
}

const LearnedModel& bundled_fast() {
  static const auto model = LearnedModel::load(bundled_model_path());
  return *model;
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

TEST(XgboostFastLoad, BundledModelPredictsLikeXgboostOnZooLayers) {
  const LearnedModel& model = bundled_fast();
  const auto& doc_families = bundled_doc().at("families");
  ASSERT_EQ(model.families().size(), doc_families.size());
  std::size_t compared = 0;
  for (std::size_t i = 0; i < model.families().size(); ++i) {
    const FamilyModel& fam = model.families()[i];
    const auto& regressor_doc = doc_families[i].at("regressor");
    ASSERT_EQ(regressor_doc.at("kind"), "xgboost");
    const FeatureMatrix x = zoo_rows(fam.family, model.feature_spec());
    ASSERT_GE(x.rows, 30U) << to_string(fam.family);  // gemm: one classifier per net
    const auto expected =
        as_regressor_output(xgboost_predict(regressor_doc.at("model").at("booster").dump(), x),
                            regressor_doc.at("params").at("log_target").get<bool>());
    const auto got = fam.regressor->predict(x);
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t r = 0; r < x.rows; ++r) {
      ASSERT_EQ(got[r], expected[r]) << to_string(fam.family) << " row " << r;
    }
    compared += x.rows;
  }
  EXPECT_GT(compared, 1000U);
}

TEST(XgboostFastLoad, BundledModelPredictsLikeXgboostOnThresholdsAndMissingValues) {
  const LearnedModel& model = bundled_fast();
  const auto& doc_families = bundled_doc().at("families");
  for (std::size_t i = 0; i < model.families().size(); ++i) {
    const FamilyModel& fam = model.families()[i];
    const auto& regressor_doc = doc_families[i].at("regressor");
    const auto& booster = regressor_doc.at("model").at("booster");
    const FeatureMatrix x =
        threshold_rows(booster, fam.feature_min.size(), 1500, 100 + i, -5.0, 40.0);
    const auto expected =
        as_regressor_output(xgboost_predict(booster.dump(), x),
                            regressor_doc.at("params").at("log_target").get<bool>());
    const auto got = fam.regressor->predict(x);
    for (std::size_t r = 0; r < x.rows; ++r) {
      ASSERT_EQ(got[r], expected[r]) << to_string(fam.family) << " row " << r;
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

// --- Trees cnnperf trains itself (SYNTHETIC data) ----------------------------------------------

std::unique_ptr<Regressor> small_xgboost(std::uint64_t seed) {
  auto d = testing::make_synthetic(800, 4, seed, testing::smooth_function);
  auto model = make_regressor(RegressorKind::kXgboost,
                              {{"n_estimators", 40}, {"max_depth", 5}, {"n_threads", 1}});
  model->fit(d.x, d.y);
  return model;
}

TEST(XgboostFastLoad, FreshlyTrainedModelPredictsLikeXgboost) {
  const auto model = small_xgboost(7);
  const auto booster = model->to_json().at("model").at("booster");
  const FeatureMatrix x = threshold_rows(booster, 4, 2000, 8, -0.2, 1.2);
  const auto expected = as_regressor_output(xgboost_predict(booster.dump(), x), false);
  const auto got = model->predict(x);
  for (std::size_t r = 0; r < x.rows; ++r) ASSERT_EQ(got[r], expected[r]) << "row " << r;
  // And after a save/load round trip through text.
  const auto loaded = Regressor::from_json(nlohmann::json::parse(model->to_json().dump()));
  EXPECT_EQ(loaded->predict(x), got);
}

/// Regressor::from_json with one edit applied to the booster object.
void expect_rejected(const std::function<void(nlohmann::json&)>& edit, const std::string& what) {
  auto doc = small_xgboost(9)->to_json();
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

// --- Files -------------------------------------------------------------------------------------

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

TEST(XgboostFastLoad, RecordedBoosterLengthsAreExactAndWrongOnesFallBackToScanning) {
  // The writer records each booster's length so a loader skips unread boosters unscanned.
  const nlohmann::json& doc = bundled_doc();
  for (const auto& f : doc.at("families")) {
    for (const char* key : {"regressor", "gpu_blind_regressor"}) {
      if (!f.contains(key)) continue;
      EXPECT_EQ(f.at("booster_bytes").at(key).get<std::size_t>(),
                f.at(key).at("model").at("booster").dump().size());
    }
  }
  // Lengths that are wrong: one byte long (lands inside the booster), or ending on the
  // '}' of its "learner" object (a bracket, but not this container's end); and a
  // pretty-printed file, where every recorded length is short. Each must load the same model.
  std::vector<std::string> variants;
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
      const auto b = bundled_fast().predict_layers(net.layers, *gpu);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].latency_ms(), b[i].latency_ms()) << "variant " << v << " layer " << i;
      }
    }
    const auto c = lean->predict_layers(net.layers, unseen);
    const auto d = bundled_fast().predict_layers(net.layers, unseen);
    for (std::size_t i = 0; i < c.size(); ++i) {
      ASSERT_EQ(c[i].latency_ms(), d[i].latency_ms()) << "variant " << v << " layer " << i;
    }
  }
}

TEST(XgboostFastLoad, ABoosterTheLoaderDoesNotNeedIsNotReadAtAll) {
  // MLPredict's conv booster (the file's first; no row without a source uses it) with a
  // bracket where a digit was, its recorded length still right: loading everything reports
  // it, loading the reference models only never touches it (no scan, no parse).
  std::string text = read_file(bundled_model_path());
  const std::string head = "\"families\":[{\"booster_bytes\":{\"regressor\":";
  const std::size_t start = text.find(head);
  ASSERT_NE(start, std::string::npos);
  const std::size_t bytes = std::stoull(text.substr(start + head.size(), 20));
  const std::size_t booster = text.find("\"booster\":", start) + std::string("\"booster\":").size();
  ASSERT_EQ(text[booster + bytes - 1], '}');
  const std::size_t next = text.find("\"booster_bytes\"", booster + bytes);
  ASSERT_LT(text.find("\"source\":\"mlpredict\"", booster + bytes), next)
      << "family 0 is MLPredict's";
  const std::size_t digit =
      text.find_first_of("0123456789", text.find("\"base_weights\":[", booster));
  text[digit] = '{';
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
  // The file's second booster: a letter where a split condition should start. It is the
  // second family's: its gpu_blind_regressor sorts before its regressor (both are named so).
  std::size_t at = text.find("\"booster\"");
  at = text.find("\"booster\"", at + 1);
  const std::size_t blind_key = text.rfind("\"gpu_blind_regressor\"", at);
  const bool blind = blind_key != std::string::npos && blind_key > text.rfind("\"regressor\"", at);
  at = text.find("\"split_conditions\":[", at) + std::string("\"split_conditions\":[").size();
  text.insert(at, "x");
  const std::string message = load_error(text);
  EXPECT_NE(message.find(std::string("families[1].") +
                         (blind ? "gpu_blind_regressor" : "regressor") + ".model.booster"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("byte " + std::to_string(at)), std::string::npos) << message;
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
