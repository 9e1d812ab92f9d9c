// SPDX-License-Identifier: Apache-2.0
// Power model calibration on the real measured rows (datasets/power_zeus.csv) and the checks
// of malformed power CSVs (small synthetic files written here, saying so).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/e2e.hpp"
#include "cnnperf/ml/power_calibration.hpp"
#include "temp_file.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

std::string zeus_csv() {
  return std::string(CNNPERF_SOURCE_DIR_FOR_TESTS) + "/datasets/power_zeus.csv";
}

using testing::write_temp;

TEST(PowerRows, KeepsOnlyWorkloadsCnnperfBuildsAndCountsTheRest) {
  const PowerData data = load_power_rows(zeus_csv());
  ASSERT_FALSE(data.rows.empty());
  std::map<std::string, std::size_t> fitted;
  std::map<std::string, std::size_t> scored;
  for (const auto& r : data.rows) {
    ++(r.fitted ? fitted : scored)[r.dataset + " " + r.network];
    EXPECT_GT(r.power_limit_w, r.gpu.idle_power_w);
    EXPECT_EQ(r.epoch_images, r.dataset == "imagenet" ? 1281167.0 : 50000.0);
  }
  // ImageNet ResNet-50 calibrates; CIFAR-100 ShuffleNetV2 (input-pipeline-bound) is scored.
  EXPECT_EQ(fitted, (std::map<std::string, std::size_t>{{"imagenet resnet50", 142}}));
  EXPECT_EQ(scored, (std::map<std::string, std::size_t>{{"cifar100 shufflenetv2_cifar100", 274}}));
  std::size_t skipped = 0;
  for (const auto& [reason, n] : data.skipped) skipped += n;
  EXPECT_EQ(skipped, 247U + 267U + 99U + 127U);  // DeepSpeech2, NCF, BERT on two datasets
  // The ShuffleNetV2 rows are scored (above), so no reason to skip rows names them.
  for (const auto& [reason, n] : data.skipped) {
    EXPECT_EQ(reason.find("shufflenet"), std::string::npos) << reason;
  }
}

// Several --power files are one set of rows: the Zeus file split in two reads back the same
// rows and skipped counts, and a file named twice is read once.
TEST(PowerRows, SeveralFilesReadAsOne) {
  const auto [a, b] = testing::split_csv(zeus_csv(), 500, "cnnperf_power_part");
  const PowerData one = load_power_rows(zeus_csv());
  const PowerData two = load_power_rows(std::vector<std::string>{a.string(), b.string()});
  ASSERT_EQ(two.rows.size(), one.rows.size());
  for (std::size_t i = 0; i < one.rows.size(); ++i) {
    EXPECT_EQ(two.rows[i].gpu_name, one.rows[i].gpu_name) << i;
    EXPECT_EQ(two.rows[i].avg_power_w, one.rows[i].avg_power_w) << i;
  }
  EXPECT_EQ(two.skipped, one.skipped);
  EXPECT_EQ(two.path, a.string() + " " + b.string());
  EXPECT_EQ(load_power_rows(std::vector<std::string>{a.string(), a.string()}).rows.size(),
            load_power_rows(a.string()).rows.size());
  EXPECT_THROW((void)load_power_rows(std::vector<std::string>{}), InputError);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

TEST(PowerRows, ScoredOnlyRowsDoNotMoveTheFit) {
  const PowerData all = load_power_rows(zeus_csv());
  PowerData fitted_only = all;
  std::erase_if(fitted_only.rows, [](const PowerRow& r) { return !r.fitted; });
  const AnalyticalModel latency(AnalyticalParams{}, bundled_analytical_overhead());
  const PowerCalibrationSet with(all, latency);
  const PowerCalibrationSet without(fitted_only, latency);
  std::vector<std::size_t> every(all.rows.size());
  for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
  std::vector<std::size_t> fitted_rows(fitted_only.rows.size());
  for (std::size_t i = 0; i < fitted_rows.size(); ++i) fitted_rows[i] = i;
  EXPECT_EQ(with.fit(every).to_json(), without.fit(fitted_rows).to_json());
}

TEST(PowerRows, MalformedRowsNameFileLineAndField) {
  // Synthetic fixture: invented numbers, only the shape of the real file.
  const std::string header =
      "gpu,dataset,network,batch,optimizer,power_limit_w,time_per_epoch_s,avg_power_w\n";
  const auto bad_power = write_temp(
      "cnnperf_power_bad.csv", header + "NVIDIA Tesla V100,imagenet,resnet50,64,sgd,-5,10,100\n");
  try {
    (void)load_power_rows(bad_power.string());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":2: field 'power_limit_w'"), std::string::npos)
        << e.what();
  }
  const auto unknown_gpu = write_temp(
      "cnnperf_power_gpu.csv", header + "NVIDIA Tesla Q999,imagenet,resnet50,64,sgd,200,10,100\n");
  EXPECT_THROW((void)load_power_rows(unknown_gpu.string()), InputError);
  const auto no_column = write_temp("cnnperf_power_col.csv", "gpu,dataset\nx,y\n");
  EXPECT_THROW((void)load_power_rows(no_column.string()), InputError);
  fs::remove(bad_power);
  fs::remove(unknown_gpu);
  fs::remove(no_column);
}

class PowerCalibration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    report_ = new nlohmann::json(power_calibration_report({zeus_csv()}, "test"));
  }
  static void TearDownTestSuite() {
    delete report_;
    report_ = nullptr;
  }
  static nlohmann::json* report_;
};
nlohmann::json* PowerCalibration::report_ = nullptr;

TEST_F(PowerCalibration, LeaveOneGpuOutBeatsIgnoringTheCap) {
  const auto& logo = (*report_)["leave_gpu_out"];
  ASSERT_EQ(logo["per_gpu"].size(), 3u);
  const auto& all = logo["overall"];
  EXPECT_LT(all["slowdown_mape_pct"].get<double>(),
            all["ignore_cap_slowdown_mape_pct"].get<double>());
  EXPECT_LT(all["power_mape_pct"].get<double>(), 30.0);
  // Every GPU was fitted without its own rows.
  for (const auto& [gpu, s] : logo["per_gpu"].items()) {
    EXPECT_TRUE(s.contains("fitted_without_it")) << gpu;
  }
}

TEST_F(PowerCalibration, BundledModelIsTheFitOnAllRows) {
  // models/power_model.json must be what `cnnperf train power` writes today.
  const PowerModel fitted = PowerModel::from_json((*report_)["model"], "report.model");
  const PowerModel& bundled = PowerModel::bundled();
  EXPECT_NEAR(bundled.activity.compute_weight, fitted.activity.compute_weight, 1e-9);
  EXPECT_NEAR(bundled.activity.memory_weight, fitted.activity.memory_weight, 1e-9);
  EXPECT_NEAR(bundled.activity.floor_activity, fitted.activity.floor_activity, 1e-9);
  EXPECT_NEAR(bundled.cap.core_energy_exponent, fitted.cap.core_energy_exponent, 1e-9);
  ASSERT_EQ(bundled.activity_scale_by_gpu.size(), fitted.activity_scale_by_gpu.size());
  for (const auto& [gpu, scale] : fitted.activity_scale_by_gpu) {
    ASSERT_EQ(bundled.activity_scale_by_gpu.count(gpu), 1u) << gpu;
    EXPECT_NEAR(bundled.activity_scale_by_gpu.at(gpu), scale, 1e-9) << gpu;
  }
}

TEST_F(PowerCalibration, EachMeasuredGpuHasItsOwnScaleWhichHelpsItsUnseenBatches) {
  const PowerModel fitted = PowerModel::from_json((*report_)["model"], "report.model");
  EXPECT_EQ(fitted.activity_scale_by_gpu.size(), 3u);  // 5-8 uncapped configurations each
  // Batch sizes held out on GPUs the fit has seen (with their scales) against GPUs held out
  // (shared scale): the per-GPU scale is what the first has and the second cannot.
  const double lobo = (*report_)["leave_batch_out"]["overall"]["power_mape_pct"].get<double>();
  const double logo = (*report_)["leave_gpu_out"]["overall"]["power_mape_pct"].get<double>();
  EXPECT_LT(lobo, logo);
  EXPECT_EQ((*report_)["leave_batch_out"]["per_gpu"].size(), 3u);
}

TEST(PowerModelPerGpu, ScalesTheWeightsOfItsGpuOnlyAndRoundTrips) {
  PowerModel m;
  m.source = "test fixture (synthetic numbers)";
  m.activity_scale_by_gpu["gpu-a"] = 0.5;
  GpuSpec a;
  a.name = "gpu-a";
  GpuSpec b;
  b.name = "gpu-b";
  const PowerParams for_a = m.activity_for(a);
  EXPECT_DOUBLE_EQ(for_a.compute_weight, 0.5 * m.activity.compute_weight);
  EXPECT_DOUBLE_EQ(for_a.memory_weight, 0.5 * m.activity.memory_weight);
  EXPECT_DOUBLE_EQ(for_a.floor_activity, m.activity.floor_activity);
  EXPECT_DOUBLE_EQ(m.activity_for(b).compute_weight, m.activity.compute_weight);
  const PowerModel back = PowerModel::from_json(m.to_json(), "x");
  EXPECT_DOUBLE_EQ(back.activity_scale_by_gpu.at("gpu-a"), 0.5);
  nlohmann::json old = m.to_json();  // a file without per-GPU scales
  old.erase("activity_scale_by_gpu");
  EXPECT_TRUE(PowerModel::from_json(old, "x").activity_scale_by_gpu.empty());
  nlohmann::json bad = m.to_json();
  bad["activity_scale_by_gpu"]["gpu-a"] = -1;
  EXPECT_THROW((void)PowerModel::from_json(bad, "x"), InputError);
}

TEST_F(PowerCalibration, ScoresMatchAFreshEvaluation) {
  const PowerData data = load_power_rows(zeus_csv());
  const AnalyticalModel latency(AnalyticalParams{}, bundled_analytical_overhead());
  const PowerCalibrationSet set(data, latency);
  std::vector<std::size_t> all(data.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const PowerModel model = PowerModel::from_json((*report_)["model"], "report.model");
  const auto results = set.evaluate(model, all);
  const PowerScores s = score_power_rows(results);
  EXPECT_NEAR(s.slowdown_mape,
              (*report_)["in_sample"]["overall"]["slowdown_mape_pct"].get<double>(), 1e-9);
  std::size_t references = 0;
  for (const auto& r : results) {
    if (r.reference) {
      ++references;
      EXPECT_DOUBLE_EQ(r.measured_slowdown, 1.0);
      EXPECT_DOUBLE_EQ(r.predicted_slowdown, 1.0);
    } else {
      EXPECT_GE(r.predicted_slowdown, 1.0 - 1e-12);
    }
  }
  EXPECT_GT(references, 10u);
}

TEST(PowerScoresTest, HandComputedErrors) {
  // Two synthetic results: a reference row and one capped row.
  PowerRowResult ref;
  ref.reference = true;
  ref.predicted_power_w = 220;
  ref.measured_power_w = 200;  // 10 % off
  PowerRowResult capped;
  capped.predicted_power_w = 150;
  capped.measured_power_w = 150;
  capped.predicted_slowdown = 1.2;
  capped.measured_slowdown = 1.5;  // 20 % off; ignoring the cap: 1/3 off
  capped.predicted_energy_ratio = 0.9;
  capped.measured_energy_ratio = 0.9;
  const PowerScores s = score_power_rows({ref, capped});
  EXPECT_NEAR(s.uncapped_power_mape, 10.0, 1e-9);
  EXPECT_NEAR(s.power_mape, 5.0, 1e-9);
  EXPECT_NEAR(s.slowdown_mape, 20.0, 1e-9);
  EXPECT_NEAR(s.ignore_cap_slowdown_mape, 100.0 / 3, 1e-9);
  EXPECT_NEAR(s.energy_ratio_mape, 0.0, 1e-9);
  EXPECT_NEAR(s.slowdown_within_10, 0.0, 1e-9);
}

}  // namespace
}  // namespace cnnperf
