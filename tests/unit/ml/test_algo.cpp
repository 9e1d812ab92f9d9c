// SPDX-License-Identifier: Apache-2.0
// cuDNN algorithm classes, the one-vs-rest classifier, its no-leak fold probabilities, the
// `quant` feature group and the algorithm study. All data here are SYNTHETIC fixtures (closed-
// form labels and latencies), not measurements; only the kernel names in the class tests are
// copied from datasets/layers_neusight.csv.gz to pin the rules on real text.
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "algo.hpp"
#include "algo_study_report.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/ml/features.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/predict/analytical.hpp"
#include "synthetic_data.hpp"

namespace cnnperf {
namespace {

namespace fs = std::filesystem;

int index_of(const std::string& name) {
  const auto& c = conv_algo_classes();
  return static_cast<int>(std::find(c.begin(), c.end(), name) - c.begin());
}

TEST(ConvAlgoClass, FollowsTheRulesOfEvalAnalytical) {
  EXPECT_EQ(conv_algo_class(""), -1);
  EXPECT_EQ(conv_algo_class("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, "
                            "false, false, true>(int, int)"),
            index_of("implicit gemm"));
  EXPECT_EQ(conv_algo_class("void cudnn::winograd_nonfused::winogradforwarddata4x4<float, "
                            "float>(x);ampere_sgemm_128x128_nn;void cudnn::winograd_nonfused::"
                            "winogradforwardoutput4x4<float, float>(y)"),
            index_of("winograd (non-fused)"));
  EXPECT_EQ(conv_algo_class("void cudnn::winograd::generateWinogradTilesKernel<0, float, "
                            "float>(x);maxwell_scudnn_winograd_128x128_ldg1_ldg4_tile148n_nt"),
            index_of("winograd"));
  EXPECT_EQ(conv_algo_class("void fft2d_r2c_32x32<float, false, 0u, false>(x);void "
                            "fft2d_c2r_32x32<float, false, false, 0u, false, false>(y)"),
            index_of("fft"));
  EXPECT_EQ(conv_algo_class("void im2col4d_kernel<float, int>(x);maxwell_sgemm_128x64_nn"),
            index_of("explicit gemm (im2col)"));
  EXPECT_EQ(conv_algo_class("ampere_sgemm_128x128_nn"), index_of("other"));
}

// SYNTHETIC: class = which third of [0, 1) feature 0 falls in; feature 1 is noise.
testing::SyntheticData three_bands(std::size_t rows, std::uint64_t seed) {
  return testing::make_synthetic(rows, 2, seed, [](const double* x) {
    return x[0] < 1.0 / 3 ? 0.0 : (x[0] < 2.0 / 3 ? 1.0 : 2.0);
  });
}

std::vector<int> as_labels(const std::vector<double>& y) {
  std::vector<int> out;
  for (const double v : y) out.push_back(static_cast<int>(v));
  return out;
}

TEST(AlgoClassifier, LearnsSyntheticBandsAndNormalisesProbabilities) {
  const auto train = three_bands(600, 1);
  const auto test = three_bands(300, 2);
  AlgoClassifier clf(RegressorKind::kRandomForest, {{"n_trees", 20}, {"seed", 3}}, 4);
  clf.fit(train.x, as_labels(train.y));
  const auto predicted = clf.predict(test.x);
  int right = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    right += predicted[i] == static_cast<int>(test.y[i]) ? 1 : 0;
  }
  EXPECT_GT(right, 285) << "accuracy " << right << "/300";
  const auto p = clf.predict_proba(test.x);
  ASSERT_EQ(p.size(), 300u * 4);
  for (std::size_t r = 0; r < 300; ++r) {
    double sum = 0;
    for (std::size_t c = 0; c < 4; ++c) {
      EXPECT_GE(p[r * 4 + c], 0.0);
      sum += p[r * 4 + c];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_EQ(p[r * 4 + 3], 0.0);  // class 3 never appears in training
  }
}

TEST(AlgoClassifier, RejectsBadLabelsAndPredictBeforeFit) {
  const auto train = three_bands(20, 1);
  AlgoClassifier clf(RegressorKind::kDecisionTree, {}, 3);
  EXPECT_THROW((void)clf.predict(train.x), Error);
  std::vector<int> labels(20, 5);
  EXPECT_THROW(clf.fit(train.x, labels), InputError);
  labels.assign(19, 0);
  EXPECT_THROW(clf.fit(train.x, labels), InputError);
  labels.assign(20, -1);
  EXPECT_THROW(clf.fit(train.x, labels), InputError);
  EXPECT_THROW(AlgoClassifier(RegressorKind::kDecisionTree, {}, 1), InputError);
}

TEST(AlgoFoldProbabilities, NeverReadsTheLabelsOfTheTestRows) {
  const auto data = three_bands(240, 7);
  std::vector<int> labels = as_labels(data.y);
  std::vector<std::uint64_t> groups;
  for (std::size_t i = 0; i < 240; ++i) groups.push_back(i / 2);  // pairs share a "shape"
  std::vector<std::size_t> train, test;
  for (std::size_t i = 0; i < 240; ++i) (i % 5 == 0 ? test : train).push_back(i);
  const nlohmann::json params = {{"n_trees", 10}, {"seed", 1}};
  const auto before = algo_fold_probabilities(data.x, labels, groups, train, test,
                                              RegressorKind::kRandomForest, params, 3, 11);
  // Scramble every test label: nothing the fold computes may change.
  for (const auto i : test) labels[i] = (labels[i] + 1) % 3;
  const auto after = algo_fold_probabilities(data.x, labels, groups, train, test,
                                             RegressorKind::kRandomForest, params, 3, 11);
  EXPECT_EQ(before.test, after.test);
  EXPECT_EQ(before.train, after.train);
  // Sanity: the labels do matter when they are training labels.
  for (const auto i : train) labels[i] = (labels[i] + 1) % 3;
  const auto trained_on_other = algo_fold_probabilities(
      data.x, labels, groups, train, test, RegressorKind::kRandomForest, params, 3, 11);
  EXPECT_NE(before.test, trained_on_other.test);
}

TEST(AlgoFoldProbabilities, TrainingRowsGetOutOfFoldProbabilities) {
  const auto data = three_bands(240, 8);
  std::vector<int> labels = as_labels(data.y);
  std::vector<std::uint64_t> groups;
  for (std::size_t i = 0; i < 240; ++i) groups.push_back(i);
  std::vector<std::size_t> train, test{0, 1};
  for (std::size_t i = 2; i < 240; ++i) train.push_back(i);
  const nlohmann::json params = {{"max_depth", 12}};
  const auto base = algo_fold_probabilities(data.x, labels, groups, train, test,
                                            RegressorKind::kDecisionTree, params, 3, 5);
  // Flip one training row's label: with inner folds its own probability cannot move (its
  // inner classifier never saw it); in-sample (0 inner folds) a deep tree memorises it.
  const std::size_t row = 10;  // train index 8
  std::vector<int> flipped = labels;
  flipped[row] = (labels[row] + 1) % 3;
  const auto oof = algo_fold_probabilities(data.x, flipped, groups, train, test,
                                           RegressorKind::kDecisionTree, params, 3, 5);
  const std::size_t t = 8;
  for (std::size_t c = 0; c < conv_algo_classes().size(); ++c) {
    const std::size_t k = conv_algo_classes().size();
    EXPECT_EQ(base.train[t * k + c], oof.train[t * k + c]);
  }
  const auto in_base = algo_fold_probabilities(data.x, labels, groups, train, test,
                                               RegressorKind::kDecisionTree, params, 0, 5);
  const auto in_flip = algo_fold_probabilities(data.x, flipped, groups, train, test,
                                               RegressorKind::kDecisionTree, params, 0, 5);
  const std::size_t k = conv_algo_classes().size();
  EXPECT_NE(
      std::vector<double>(in_base.train.begin() + t * k, in_base.train.begin() + (t + 1) * k),
      std::vector<double>(in_flip.train.begin() + t * k, in_flip.train.begin() + (t + 1) * k));
}

TEST(QuantFeatures, ParseNamesAndValues) {
  const FeatureSpec plus = FeatureSpec::parse("+quant");
  EXPECT_TRUE(plus.quant);
  EXPECT_TRUE(plus.layer && plus.analytical && plus.gpu && plus.source);
  EXPECT_FALSE(FeatureSpec::parse("default").quant);
  EXPECT_TRUE(FeatureSpec::parse("all").quant);
  EXPECT_EQ(FeatureSpec::parse("layer,quant").to_string(), "layer,quant");
  EXPECT_EQ(FeatureSpec::parse(plus.to_string()).quant, true);
  try {
    (void)FeatureSpec::parse("+nope");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("quant"), std::string::npos);
  }
  // quant columns come last, so older models keep their column order.
  const auto names = feature_names(plus);
  const auto base = feature_names(FeatureSpec{});
  ASSERT_EQ(names.size(), base.size() + 7);
  EXPECT_TRUE(std::equal(base.begin(), base.end(), names.begin()));
  EXPECT_EQ(names[base.size()], "c_out_mod64");
  EXPECT_EQ(names.back(), "waves_frac");

  FeatureSpec only{false, false, false, false, false, false, false};
  only.quant = true;
  Layer l;
  l.batch = 2;
  l.c_in = 37;
  l.c_out = 200;
  l.h_in = l.w_in = 7;
  l.kernel_h = l.kernel_w = 3;
  l.pad_h = l.pad_w = 1;
  const GpuSpec gpu = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  const auto row = feature_row(l, gpu, "neusight", only);
  ASSERT_EQ(row.size(), 7u);
  EXPECT_EQ(row[0], 200 % 64);
  EXPECT_EQ(row[1], 200 % 128);
  EXPECT_EQ(row[2], 37 % 8);
  EXPECT_EQ(row[3], 98 % 32);  // N*P*Q = 2*7*7
  EXPECT_EQ(row[4], 98 % 64);
  EXPECT_EQ(row[5], 98 % 128);
  const double waves = estimate_layer(l, gpu).waves;
  EXPECT_DOUBLE_EQ(row[6], waves - std::floor(waves));
}

// SYNTHETIC training set: conv shapes on one GPU whose "measured" latency is the analytical
// estimate times 3 when the shape's (made-up) algorithm is 1, else times 1. Knowing the class
// explains everything, so the oracle must be far better than the baseline.
TrainingData synthetic_conv_rows(std::vector<int>& labels, int n_rows = 160) {
  const GpuSpec gpu = *GpuDatabase::bundled().find("v100-sxm2-16gb");
  std::mt19937_64 rng(17);
  TrainingData data;
  for (int i = 0; i < n_rows; ++i) {
    const Layer l = testing::random_conv3x3(rng);
    const int label = static_cast<int>(rng() % 2);  // unrelated to the shape: only an oracle knows
    data.layers.push_back(l);
    data.gpus.push_back(gpu);
    data.gpu_names.push_back(gpu.name);
    data.sources.emplace_back("neusight");
    data.latency_ms.push_back(estimate_layer(l, gpu).latency_ms * (label == 1 ? 3.0 : 1.0));
    labels.push_back(label);
  }
  return data;
}

TEST(AlgoStudy, OracleBeatsBaselineWhenTheClassExplainsTheLatency) {
  std::vector<int> labels;
  const TrainingData data = synthetic_conv_rows(labels);
  AlgoStudyOptions options;
  options.regressor = RegressorKind::kRandomForest;
  options.params = {{"log_target", true}, {"n_trees", 20}, {"seed", 1}};
  options.folds = 3;
  options.inner_folds = 2;
  options.variants = {"baseline", "oracle", "algo"};
  const AlgoStudyResult r = run_algo_study(data, labels, options);
  ASSERT_EQ(r.variants.size(), 3u);
  EXPECT_EQ(r.rows, 160u);
  const double baseline = r.variants[0].overall.mape_pct;
  const double oracle = r.variants[1].overall.mape_pct;
  EXPECT_LT(oracle, 5.0);
  EXPECT_GT(baseline, 20.0);
  // The class is random per shape, so a shape-only classifier is near chance.
  EXPECT_GT(r.classifier_accuracy, 20.0);
  EXPECT_LT(r.classifier_accuracy, 80.0);
  EXPECT_EQ(r.classifier_accuracy_per_gpu.size(), 1u);
  std::size_t per_class_rows = 0;
  for (const auto& [cls, m] : r.variants[0].per_class) per_class_rows += m.n;
  EXPECT_EQ(per_class_rows, 160u);

  options.variants = {"bogus"};
  EXPECT_THROW((void)run_algo_study(data, labels, options), InputError);
  labels.pop_back();
  options.variants = {"baseline"};
  EXPECT_THROW((void)run_algo_study(data, labels, options), InputError);
}

TEST(AlgoStudy, OraclePerModeFitsOneRegressorPerMeasuredClass) {
  // Enough rows that each class has >= 200 training rows per fold: within a class the
  // synthetic ratio is constant, so the per-class regressors are exact where the global one
  // cannot be.
  std::vector<int> labels;
  const TrainingData data = synthetic_conv_rows(labels, 700);
  AlgoStudyOptions options;
  options.regressor = RegressorKind::kRandomForest;
  options.params = {{"log_target", true}, {"n_trees", 10}, {"seed", 1}};
  options.folds = 3;
  options.variants = {"baseline", "oracle-per-mode"};
  const AlgoStudyResult r = run_algo_study(data, labels, options);
  ASSERT_EQ(r.variants.size(), 2u);
  EXPECT_GT(r.variants[0].overall.mape_pct, 20.0);
  EXPECT_LT(r.variants[1].overall.mape_pct, 1.0);
  EXPECT_LT(r.classifier_accuracy, 0.0);  // no variant needed the classifier
}

TEST(AlgoStudy, GroupShapeFoldsKeepAShapeInOneFold) {
  std::vector<int> labels;
  TrainingData data = synthetic_conv_rows(labels);
  // Duplicate every shape on a second GPU: the copies must land in the same fold.
  const GpuSpec p100 = *GpuDatabase::bundled().find("p100-pcie-16gb");
  const std::size_t n = data.layers.size();
  for (std::size_t i = 0; i < n; ++i) {
    data.layers.push_back(data.layers[i]);
    data.gpus.push_back(p100);
  }
  std::vector<std::size_t> rows(2 * n);
  std::iota(rows.begin(), rows.end(), 0);
  const auto folds = group_shape_folds(data, rows, 5, 42);
  std::set<int> used;
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(folds[i], folds[i + n]);
    used.insert(folds[i]);
  }
  EXPECT_EQ(used.size(), 5u);
  EXPECT_EQ(folds, group_shape_folds(data, rows, 5, 42));
}

TEST(AlgoStudy, ReportReadsKernelNamesRowByRow) {
  // SYNTHETIC CSV: four shapes x two made-up kernel sequences; one row without a target is
  // skipped by the loader, which the label reader must skip too.
  const fs::path dir =
      fs::temp_directory_path() / ("cnnperf_algo_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string csv =
      "op,batch,c_in,h_in,w_in,c_out,kernel_h,kernel_w,stride_h,stride_w,pad_h,pad_w,latency_ms,"
      "gpu,source,kernel_sequence\n";
  csv += "conv2d,8,64,14,14,64,3,3,1,1,1,1,,v100-sxm2-16gb,neusight,fft2d_r2c\n";
  for (int i = 0; i < 60; ++i) {
    const int c = 16 + 8 * i;
    const bool wino = i % 2 == 0;
    csv += "conv2d,8," + std::to_string(c) + ",14,14,64,3,3,1,1,1,1," +
           std::to_string(wino ? 0.05 + 0.001 * i : 0.2 + 0.002 * i) + ",v100-sxm2-16gb,neusight," +
           (wino ? "winograd_nonfused::data;sgemm" : "implicit_convolve_sgemm") + "\n";
  }
  const std::string file = (dir / "synthetic.csv").string();
  write_output(file, csv);
  AlgoStudyReportOptions opts;
  opts.data = {file};
  opts.regressor = "dtree";
  opts.folds = 3;
  opts.variants = "baseline,oracle";
  opts.classifier = "dtree";
  opts.inner_folds = 0;
  const auto report = algo_study_report(opts);
  EXPECT_EQ(report["kind"], "algo_study");
  const auto& study = report["algo_study"]["dtree"];
  EXPECT_EQ(study["rows"], 60);
  EXPECT_EQ(study["class_counts"]["winograd (non-fused)"], 30);
  EXPECT_EQ(study["class_counts"]["implicit gemm"], 30);
  ASSERT_EQ(study["variants"].size(), 2u);
  EXPECT_FALSE(study.contains("classifier_accuracy_pct"));  // neither variant needs it
  EXPECT_NE(render_algo_study(report, OutputFormat::kTable).find("oracle"), std::string::npos);

  opts.classifier = "svm";
  EXPECT_THROW((void)algo_study_report(opts), ParameterError);
  opts.classifier = "dtree";
  opts.variants = "baseline,bogus";
  EXPECT_THROW((void)algo_study_report(opts), ParameterError);
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace cnnperf
