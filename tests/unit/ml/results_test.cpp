// SPDX-License-Identifier: Apache-2.0
// The typed train and validate results: each writes its kind and schema version, a field
// absent from the struct is absent from the JSON, and from_json reads back what to_json wrote.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "cnnperf/ml/results.hpp"

namespace cnnperf {
namespace {

Metrics some_metrics() {
  Metrics m;
  m.n = 12;
  m.mape_pct = 7.5;
  m.r2 = std::numeric_limits<double>::quiet_NaN();  // written as null
  m.adjusted_r2 = 0.5;
  m.within_10pct = 50;
  m.spearman = 0.25;
  m.rmse = 0.125;
  return m;
}

TEST(TrainResult, CarriesKindAndRoundTrips) {
  TrainResult r;
  r.header = {kTrainResultSchemaVersion, "0.1.0", {"a.csv"}, "ff", 5, 42};
  r.rows = 12;
  r.features = "default";
  r.sources = "split";
  r.cv_scheme = "kfold";
  r.cv.push_back({some_metrics(), "knn", "conv", "kfold", "all", std::nullopt, 1.5, std::nullopt,
                  std::nullopt});
  r.cv.push_back(
      {some_metrics(), "knn", "conv", "kfold", "all", "mlpredict", std::nullopt, 7, std::nullopt});
  TrainCvRow skipped;
  skipped.regressor = "knn";
  skipped.family = "pointwise";
  skipped.cv = "leave-source-out";
  skipped.gpu = "all";
  skipped.not_applicable = "one source";
  r.cv.push_back(skipped);
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("kind"), "train_metrics");
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_FALSE(j.contains("unseen_gpu_check"));
  EXPECT_FALSE(j.contains("unused_params_sections"));
  EXPECT_FALSE(j.contains("model"));
  EXPECT_FALSE(j.contains("e2e"));
  EXPECT_TRUE(j["cv"][0]["r2"].is_null());
  EXPECT_FALSE(j["cv"][0].contains("source"));
  EXPECT_FALSE(j["cv"][1].contains("train_s"));
  EXPECT_EQ(j["cv"][1]["unseen_gpu_rows"], 7);
  EXPECT_FALSE(j["cv"][0].contains("unseen_gpu_rows"));
  // A family the scheme does not apply to: its reason and n, no metric at all.
  EXPECT_EQ(j["cv"][2], nlohmann::json({{"n", 0},
                                        {"regressor", "knn"},
                                        {"family", "pointwise"},
                                        {"cv", "leave-source-out"},
                                        {"gpu", "all"},
                                        {"not_applicable", "one source"}}));
  EXPECT_FALSE(j.contains("intervals"));

  r.unseen_gpu_check = std::vector<TrainUnseenGpuRow>{
      {"conv", "knn", "mlpredict", 12, 9.0, std::nullopt, 11.0, "learned"}};
  r.model = TrainedModelRef{"m.json", {{"conv", "knn"}}};
  r.e2e = {{"file", "e2e.csv"}};
  r.intervals = {{"overall", {{"rows", 3}}}};
  r.unused_params_sections = {"conv/x"};
  const nlohmann::json full = r;
  EXPECT_TRUE(full["unseen_gpu_check"][0]["gpu_blind_mape_pct"].is_null());
  const TrainResult back = full.get<TrainResult>();
  EXPECT_TRUE(std::isnan(back.cv[0].metrics.r2));
  EXPECT_EQ(nlohmann::json(back), full);
}

TEST(ValidateResult, CarriesKindAndRoundTrips) {
  ValidateResult r;
  r.tool_version = "0.1.0";
  r.power = {{"rows", 3}};
  const nlohmann::json power_only = r;
  EXPECT_EQ(power_only, nlohmann::json({{"schema_version", 1},
                                        {"tool_version", "0.1.0"},
                                        {"kind", "validation_metrics"},
                                        {"power", {{"rows", 3}}}}));
  r.model = "m.json";
  r.model_fingerprint = "ff";
  r.layers = ValidateLayerScores{{"a.csv"},
                                 "ff",
                                 12,
                                 0,
                                 1,
                                 "own",
                                 some_metrics(),
                                 {{"t4", some_metrics()}},
                                 {{"conv", some_metrics()}}};
  ValidateE2eScores e2e;
  e2e.file = "e2e.csv";
  e2e.latency_model = "m.json";
  e2e.rows = 4;
  e2e.eager_overhead_source = "model";
  e2e.evaluation = {{"overall", {{"n", 4}}}, {"per_gpu", nlohmann::json::object()}};
  e2e.unmodelled_multi_gpu_rows = 2;
  r.e2e = e2e;
  const nlohmann::json j = r;
  EXPECT_EQ(j["e2e"]["overall"]["n"], 4);  // the evaluation sits inside the section
  EXPECT_EQ(nlohmann::json(j.get<ValidateResult>()), j);
}

TEST(TrainResults, FeatureExportAndAlgoStudyRoundTrip) {
  const TrainDataHeader header{kTrainResultSchemaVersion, "0.1.0", {"a.csv"}, "ff", 5, 42};
  const FeatureExportResult f{header, "default", {"x", "y"}, true, "kfold", {{"conv", 3}}, "f.csv"};
  const nlohmann::json fj = f;
  EXPECT_EQ(fj.at("kind"), "feature_export");
  EXPECT_EQ(nlohmann::json(fj.get<FeatureExportResult>()), fj);
  AlgoStudyReport a{header, "group-shape", "rf", 3};
  a.algo_study["knn"] = {{"variants", nlohmann::json::array()}};
  const nlohmann::json aj = a;
  EXPECT_EQ(aj.at("kind"), "algo_study");
  EXPECT_EQ(nlohmann::json(aj.get<AlgoStudyReport>()), aj);
}

}  // namespace
}  // namespace cnnperf
