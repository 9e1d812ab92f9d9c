// SPDX-License-Identifier: Apache-2.0
// The 80 % intervals: quantiles, cells per family and regime, held-out coverage, the file
// form. Every residual here is SYNTHETIC (a known distribution of log ratios), not a
// measurement.
#include "cnnperf/ml/intervals.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "cnnperf/common/error.hpp"
#include "cnnperf/ml/features.hpp"

namespace cnnperf {
namespace {

// SYNTHETIC: `n` residuals of `family` at `predicted_ms`, log(measured / predicted) uniform in
// [lo, hi), spread over `folds` folds.
std::vector<IntervalResidual> synthetic_residuals(const std::string& family, double predicted_ms,
                                                  std::size_t n, double lo, double hi, int folds,
                                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<IntervalResidual> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    out.push_back({family, predicted_ms, predicted_ms * std::exp(lo + (hi - lo) * u),
                   static_cast<int>(i % static_cast<std::size_t>(folds)), "", ""});
  }
  return out;
}

TEST(Intervals, QuantileInterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2, 5}, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.1), 1.4);  // R type 7: 1 + 0.4 x (2 - 1)
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.9), 7.0);
  EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
}

TEST(Intervals, RegimesAreDecadesOfThePredictedTime) {
  EXPECT_EQ(time_regime(0.005), "<0.01ms");
  EXPECT_EQ(time_regime(0.01), "0.01-0.1ms");
  EXPECT_EQ(time_regime(0.5), "0.1-1ms");
  EXPECT_EQ(time_regime(3), "1-10ms");
  EXPECT_EQ(time_regime(30), "10-100ms");
  EXPECT_EQ(time_regime(300), ">=100ms");
}

// SYNTHETIC: one machine with most of the rows, three more with offsets of their own. Pooled,
// the first machine's rows set the quantiles and a held-out machine like the others falls
// outside; grouped, every machine's offset weighs the same.
TEST(Intervals, GroupedResidualsWeighEveryGroupsOffsetTheSame) {
  const auto of_group = [](double offset, std::size_t n, const std::string& group, int fold,
                           std::uint64_t seed) {
    auto rows = synthetic_residuals("network", 20.0, n, offset - 0.05, offset + 0.05, 1, seed);
    for (auto& r : rows) {
      r.fold = fold;
      r.group = group;
    }
    return rows;
  };
  auto residuals = of_group(0.0, 2000, "big", 0, 1);
  int fold = 1;
  for (const double offset : {0.3, 0.35, 0.4}) {
    const auto more = of_group(offset, 50, "small-" + std::to_string(fold), fold, 10 + fold);
    residuals.insert(residuals.end(), more.begin(), more.end());
    ++fold;
  }
  const IntervalCell grouped = IntervalTable::fit(residuals).families().at("network").all;
  EXPECT_EQ(grouped.rows, 2150U);
  EXPECT_GT(grouped.log_hi, 0.3);  // three of the four machines' offsets are 0.3 or more
  // Every row is in one regime, so its cell is the family's.
  const auto& regimes = IntervalTable::fit(residuals).families().at("network").regimes;
  ASSERT_EQ(regimes.size(), 1U);
  EXPECT_DOUBLE_EQ(regimes.at("10-100ms").log_hi, grouped.log_hi);
  EXPECT_EQ(regimes.at("10-100ms").rows, 2150U);
  auto pooled_rows = residuals;
  for (auto& r : pooled_rows) r.group.clear();
  const IntervalCell pooled = IntervalTable::fit(pooled_rows).families().at("network").all;
  EXPECT_LT(pooled.log_hi, 0.1);  // 150 of 2,150 rows: beyond the 90th percentile
  // Held out by machine, the small machines' rows fall inside the others' grouped intervals,
  // never inside the pooled ones.
  const CoverageReport coverage = cross_validated_coverage(residuals);
  const CoverageReport pooled_coverage = cross_validated_coverage(pooled_rows);
  EXPECT_EQ(coverage.overall.rows, 2150U);
  EXPECT_GE(coverage.overall.inside, pooled_coverage.overall.inside + 100);
  ASSERT_EQ(coverage.per_regime.size(), 1U);  // per family and regime
  EXPECT_EQ(coverage.per_regime.at("network 10-100ms").inside, coverage.overall.inside);
  ASSERT_EQ(coverage.per_group.size(), 4U);  // and per machine
  EXPECT_EQ(coverage.per_group.at("big").rows, 2000U);
  EXPECT_EQ(coverage.per_group.at("small-2").rows, 50U);
  EXPECT_TRUE(pooled_coverage.per_group.empty());
  // One row without a group fits the rows as they are, pooled.
  auto one_ungrouped = residuals;
  one_ungrouped.back().group.clear();
  EXPECT_LT(IntervalTable::fit(one_ungrouped).families().at("network").all.log_hi, 0.1);
}

// SYNTHETIC: four machines whose small ops (0.05 ms) sit at offsets 0, 0.2, 0.4, 0.6 in log and
// whose large ones (5 ms) all sit at 0; a fifth regime has one machine only. A regime's cell
// takes the machines' offsets there, not their offsets over the family.
TEST(Intervals, GroupedResidualsGetACellPerRegimeFromTheGroupsOwnOffsetsThere) {
  std::vector<IntervalResidual> residuals;
  for (int m = 0; m < 4; ++m) {
    const double offset = 0.2 * m;
    auto small = synthetic_residuals("gemm", 0.05, 100, offset - 0.01, offset + 0.01, 1, 30 + m);
    auto large = synthetic_residuals("gemm", 5.0, 100, -0.01, 0.01, 1, 40 + m);
    small.insert(small.end(), large.begin(), large.end());
    for (auto& r : small) {
      r.fold = m;
      r.group = "machine-" + std::to_string(m);
    }
    residuals.insert(residuals.end(), small.begin(), small.end());
  }
  auto lone = synthetic_residuals("gemm", 500.0, 60, -0.01, 0.01, 1, 50);
  for (auto& r : lone) r.group = "machine-0";
  residuals.insert(residuals.end(), lone.begin(), lone.end());
  const IntervalTable table = IntervalTable::fit(residuals);
  const auto& gemm = table.families().at("gemm");
  ASSERT_EQ(gemm.regimes.size(), 2U);  // the 500 ms rows are one machine's: no cell of their own
  EXPECT_EQ(table.cell("gemm", 500.0), &gemm.all);
  const IntervalCell& small = gemm.regimes.at("0.01-0.1ms");
  const IntervalCell& large = gemm.regimes.at("1-10ms");
  EXPECT_EQ(small.rows, 400U);
  EXPECT_EQ(large.rows, 400U);
  // The small ops' offsets spread over 0-0.6 (mean 0.3): a new machine's reaches past both ends.
  EXPECT_LT(small.log_lo, 0.05);
  EXPECT_GT(small.log_hi, 0.55);
  // The large ops' offsets agree: the cell is their own spread, not the small ops' offsets.
  EXPECT_GT(large.log_lo, -0.02);
  EXPECT_LT(large.log_hi, 0.02);
}

// SYNTHETIC: three machines whose rows sit at offsets -0.1, 0 and +0.1 in log. A fourth
// machine's offset is a draw from what three let us estimate: the interval reaches beyond the
// three offsets seen (the 90th percentile of mean + s * sqrt(1 + 1/3) * t with 2 degrees of
// freedom: 0.1 * 1.155 * 1.886 = 0.218, the rows' own spread of +-0.01 on top).
TEST(Intervals, AFewMachinesOffsetsPredictANewOnesWiderThanTheirOwnSpread) {
  std::vector<IntervalResidual> residuals;
  int fold = 0;
  for (const double offset : {-0.1, 0.0, 0.1}) {
    auto rows =
        synthetic_residuals("network", 20.0, 100, offset - 0.01, offset + 0.01, 1, 7 + fold);
    for (auto& r : rows) {
      r.fold = fold;
      r.group = "machine-" + std::to_string(fold);
    }
    residuals.insert(residuals.end(), rows.begin(), rows.end());
    ++fold;
  }
  const IntervalCell cell = IntervalTable::fit(residuals).families().at("network").all;
  EXPECT_GT(cell.log_hi, 0.18);
  EXPECT_LT(cell.log_hi, 0.26);
  EXPECT_LT(cell.log_lo, -0.18);
  EXPECT_GT(cell.log_lo, -0.26);
}

// SYNTHETIC: two harnesses' gemm rows at 0.5 ms, three machines each: harness "tight"'s
// machines sit at offsets -0.02, 0, 0.02 in log, harness "wide"'s at -0.5, 0, 0.5; a third,
// "lone", has one machine. A new machine of a known harness gets that harness's band.
TEST(Intervals, EachSourceWithMachinesEnoughGetsItsOwnCells) {
  std::vector<IntervalResidual> residuals;
  int seed = 60;
  const auto add = [&](const std::string& source, const std::string& machine, double offset) {
    auto rows = synthetic_residuals("gemm", 0.5, 100, offset - 0.01, offset + 0.01, 1, ++seed);
    for (auto& r : rows) {
      r.source = source;
      r.group = source + "/" + machine;
    }
    residuals.insert(residuals.end(), rows.begin(), rows.end());
  };
  for (const double offset : {-0.02, 0.0, 0.02}) add("tight", std::to_string(offset), offset);
  for (const double offset : {-0.5, 0.0, 0.5}) add("wide", std::to_string(offset), offset);
  add("lone", "one", 0.0);
  const IntervalTable table = IntervalTable::fit(residuals);
  ASSERT_EQ(table.sources().at("gemm").size(), 2U);  // "lone" has one machine: no cells of its own
  EXPECT_EQ(table.sources().at("gemm").at("tight").all.rows, 300U);
  const auto tight = table.interval("gemm", 0.5, "tight");
  const auto wide = table.interval("gemm", 0.5, "wide");
  const auto pooled = table.interval("gemm", 0.5);
  ASSERT_TRUE(tight && wide && pooled);
  EXPECT_LT(std::log(tight->hi_ms / 0.5), 0.1);
  EXPECT_GT(std::log(wide->hi_ms / 0.5), 0.5);
  // A source without cells of its own, or none named, takes the family's (every machine's).
  EXPECT_EQ(table.cell("gemm", 0.5, "lone"), &table.families().at("gemm").regimes.at("0.1-1ms"));
  EXPECT_EQ(table.cell("gemm", 0.5, "unknown"), table.cell("gemm", 0.5));
  EXPECT_EQ(table.cell("gemm", 0.5, "tight"),
            &table.sources().at("gemm").at("tight").regimes.at("0.1-1ms"));
  EXPECT_GT(pooled->hi_ms, tight->hi_ms);
  EXPECT_LT(pooled->hi_ms, wide->hi_ms);
  // The cells of each source survive the file form; a bad one names its field.
  const IntervalTable back = IntervalTable::from_json(table.to_json(), "t");
  ASSERT_TRUE(back.interval("gemm", 0.5, "tight").has_value());
  EXPECT_DOUBLE_EQ(back.interval("gemm", 0.5, "tight")->hi_ms, tight->hi_ms);
  nlohmann::json bad = table.to_json();
  bad["gemm"]["sources"]["wide"]["all"]["log_lo"] = "wide";
  try {
    (void)IntervalTable::from_json(bad, "t");
    ADD_FAILURE() << "a bad source cell was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.gemm.sources.wide.all.log_lo"), std::string::npos)
        << e.what();
  }
  // predict gives a layer without a source the reference harness's cells.
  auto with_reference = residuals;
  for (auto& r : with_reference) {
    if (r.source == "tight") r.source = kReferenceSource;
  }
  Layer linear;
  linear.op = Op::kLinear;
  std::vector<LayerPrediction> predictions(1);
  predictions[0].kernel_ms = 0.5;
  attach_layer_intervals({linear}, predictions, IntervalTable::fit(with_reference));
  ASSERT_TRUE(predictions[0].latency_interval.has_value());
  EXPECT_DOUBLE_EQ(predictions[0].latency_interval->hi_ms, tight->hi_ms);
  // One source alone: its cells are the family's, not kept twice.
  std::vector<IntervalResidual> one_source(residuals.begin(), residuals.begin() + 300);
  EXPECT_TRUE(IntervalTable::fit(one_source).sources().empty());
}

TEST(Intervals, ARegimeWithEnoughRowsHasItsOwnCellAndASmallOneTakesItsFamilys) {
  // SYNTHETIC: 200 conv rows at 0.5 ms within +-0.1 in log, 20 at 5 ms within +-1.
  auto residuals = synthetic_residuals("conv", 0.5, 200, -0.1, 0.1, 5, 1);
  const auto wide = synthetic_residuals("conv", 5.0, 20, -1.0, 1.0, 5, 2);
  residuals.insert(residuals.end(), wide.begin(), wide.end());
  const IntervalTable table = IntervalTable::fit(residuals);
  const auto& conv = table.families().at("conv");
  EXPECT_EQ(conv.all.rows, 220U);
  ASSERT_EQ(conv.regimes.size(), 1U);  // 20 rows < kMinIntervalCellRows: merged
  EXPECT_EQ(conv.regimes.at("0.1-1ms").rows, 200U);
  const auto narrow = table.interval("conv", 0.5);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_NEAR(narrow->lo_ms, 0.5 * std::exp(-0.08), 0.01);
  EXPECT_NEAR(narrow->hi_ms, 0.5 * std::exp(0.08), 0.01);
  // The 5 ms prediction takes the family's quantiles, wider than the 0.5 ms cell's.
  const auto merged = table.interval("conv", 5.0);
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(table.cell("conv", 5.0), &conv.all);
  EXPECT_LT(merged->lo_ms, 5.0 * std::exp(-0.08));
  EXPECT_GT(merged->hi_ms, 5.0 * std::exp(0.08));
}

TEST(Intervals, AFamilyWithoutResidualsHasNoInterval) {
  const IntervalTable table =
      IntervalTable::fit(synthetic_residuals("conv", 0.5, 100, -0.2, 0.2, 5, 3));
  EXPECT_FALSE(table.interval("gemm", 0.5).has_value());
  EXPECT_FALSE(table.interval("conv", 0.0).has_value());
  EXPECT_FALSE(table.interval("conv", std::nan("")).has_value());
}

TEST(Intervals, HeldOutCoverageOfWellSpecifiedResidualsIsNearEightyPercent) {
  // SYNTHETIC: every fold from the same distribution, so quantiles fitted on the other folds
  // cover about 80 % of the held-out one.
  const auto residuals = synthetic_residuals("conv", 0.5, 5000, -0.5, 0.5, 5, 4);
  const CoverageReport report = cross_validated_coverage(residuals);
  EXPECT_EQ(report.overall.rows, 5000U);
  EXPECT_EQ(report.overall.no_interval, 0U);
  EXPECT_NEAR(report.overall.share(), 0.8, 0.03);
  EXPECT_NEAR(report.per_family.at("conv").share(), 0.8, 0.03);
}

TEST(Intervals, CoverageNeverFitsTheQuantilesOnTheHeldOutFold) {
  // SYNTHETIC: fold 0 is shifted far from the others. Fitted with its own rows it would be
  // covered; held out, its quantiles come from folds 1-4 and miss it entirely.
  auto residuals = synthetic_residuals("conv", 0.5, 400, -0.1, 0.1, 4, 5);
  for (auto& r : residuals) r.fold += 1;                                       // folds 1..4
  const auto shifted = synthetic_residuals("conv", 0.5, 100, 2.0, 2.2, 1, 6);  // fold 0
  residuals.insert(residuals.end(), shifted.begin(), shifted.end());
  const CoverageReport report = cross_validated_coverage(residuals);
  std::vector<IntervalResidual> fold0(residuals.end() - 100, residuals.end());
  const IntervalTable others =
      IntervalTable::fit(std::vector<IntervalResidual>(residuals.begin(), residuals.end() - 100));
  for (const auto& r : fold0) {
    const auto interval = others.interval("conv", r.predicted_ms);
    ASSERT_TRUE(interval.has_value());
    EXPECT_GT(r.measured_ms, interval->hi_ms);
  }
  // Folds 1-4 each see fold 0 in their training quantiles (which widens them) but fold 0
  // itself is never inside: at most 400 of 500.
  EXPECT_LE(report.overall.inside, 400U);
}

TEST(Intervals, AHeldOutFamilyMissingFromTheOtherFoldsIsCountedAsNoInterval) {
  // SYNTHETIC: gemm rows only in fold 0 (as when leave-source-out holds out the only source
  // of a family).
  auto residuals = synthetic_residuals("conv", 0.5, 100, -0.1, 0.1, 2, 7);
  auto gemm = synthetic_residuals("gemm", 0.5, 30, -0.1, 0.1, 1, 8);
  residuals.insert(residuals.end(), gemm.begin(), gemm.end());
  const CoverageReport report = cross_validated_coverage(residuals);
  EXPECT_EQ(report.per_family.at("gemm").rows, 30U);
  EXPECT_EQ(report.per_family.at("gemm").no_interval, 30U);
  EXPECT_TRUE(std::isnan(report.per_family.at("gemm").share()));
}

TEST(Intervals, TheTableRoundTripsThroughJsonAndBadCellsNameTheField) {
  const IntervalTable table =
      IntervalTable::fit(synthetic_residuals("pointwise", 0.05, 120, -0.3, 0.4, 3, 9));
  const IntervalTable back = IntervalTable::from_json(table.to_json(), "t");
  const auto a = table.interval("pointwise", 0.05);
  const auto b = back.interval("pointwise", 0.05);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(a->lo_ms, b->lo_ms);
  EXPECT_DOUBLE_EQ(a->hi_ms, b->hi_ms);
  nlohmann::json bad = table.to_json();
  bad["pointwise"]["all"]["log_hi"] = "wide";
  try {
    (void)IntervalTable::from_json(bad, "f.json: families");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json: families.pointwise.all.log_hi"),
              std::string::npos)
        << e.what();
  }
  bad = table.to_json();
  bad["pointwise"]["regimes"]["huge"] = bad["pointwise"]["all"];
  EXPECT_THROW((void)IntervalTable::from_json(bad, "f"), InputError);
  EXPECT_THROW((void)interval_table_from_file_json({{"kind", "other"}}, "f"), InputError);
}

TEST(Intervals, NetworkIntervalsCoverLayersAndTheStepButNotACappedOne) {
  // SYNTHETIC table: conv and network residuals.
  auto residuals = synthetic_residuals("conv", 0.5, 100, -0.2, 0.2, 2, 10);
  const auto net = synthetic_residuals(kNetworkIntervalFamily, 20, 100, -0.1, 0.3, 2, 11);
  residuals.insert(residuals.end(), net.begin(), net.end());
  const IntervalTable table = IntervalTable::fit(residuals);
  NetworkPrediction p;
  Layer conv;
  conv.op = Op::kConv2d;
  Layer linear;
  linear.op = Op::kLinear;
  p.layers = {conv, linear};
  p.predictions.resize(2);
  p.predictions[0].kernel_ms = 0.4;
  p.predictions[0].overhead_ms = 0.1;
  p.predictions[1].kernel_ms = 0.2;
  p.latency_ms = 20;
  attach_network_intervals(p, table, "synthetic");
  ASSERT_TRUE(p.predictions[0].latency_interval.has_value());
  EXPECT_LE(p.predictions[0].latency_interval->lo_ms, 0.5);
  EXPECT_GE(p.predictions[0].latency_interval->hi_ms, 0.5);
  EXPECT_FALSE(p.predictions[1].latency_interval.has_value());  // no gemm residuals
  ASSERT_TRUE(p.latency_interval.has_value());
  EXPECT_LE(p.latency_interval->lo_ms, 20.0);
  EXPECT_GE(p.latency_interval->hi_ms, 20.0);
  EXPECT_NE(p.interval_note.find("1 layers have none"), std::string::npos) << p.interval_note;
  p.power_cap = PowerCapOutcome{};
  attach_network_intervals(p, table, "synthetic");
  EXPECT_FALSE(p.latency_interval.has_value());
  EXPECT_FALSE(p.predictions[0].latency_interval.has_value());
}

TEST(Intervals, LayersOnAnUnseenGpuTakeTheSecondTableAndTheOthersTheFirst) {
  // SYNTHETIC tables: conv residuals within +-0.1 in log (seen GPUs) and within +-0.6 (the
  // held-out GPUs').
  const IntervalTable seen =
      IntervalTable::fit(synthetic_residuals("conv", 0.5, 200, -0.1, 0.1, 4, 12));
  const IntervalTable unseen =
      IntervalTable::fit(synthetic_residuals("conv", 0.5, 200, -0.6, 0.6, 4, 13));
  Layer conv;
  conv.op = Op::kConv2d;
  NetworkPrediction p;
  p.layers = {conv, conv, conv, conv};
  p.predictions.resize(4);
  for (auto& q : p.predictions) q.kernel_ms = 0.5;
  // The last two layers have no flag (a short list marks nothing past its end); the last one
  // lies outside the model's training data, so it extrapolates as an unseen GPU's rows do.
  p.predictions[3].in_distribution = false;
  attach_network_intervals(p, seen, "synthetic", {&unseen, {true, false}});
  const auto wide = unseen.interval("conv", 0.5, kReferenceSource);
  const auto narrow = seen.interval("conv", 0.5, kReferenceSource);
  ASSERT_TRUE(wide && narrow);
  ASSERT_LT(wide->lo_ms, narrow->lo_ms);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& expected = i == 0 || i == 3 ? wide : narrow;
    ASSERT_TRUE(p.predictions[i].latency_interval.has_value()) << i;
    EXPECT_DOUBLE_EQ(p.predictions[i].latency_interval->lo_ms, expected->lo_ms) << i;
    EXPECT_DOUBLE_EQ(p.predictions[i].latency_interval->hi_ms, expected->hi_ms) << i;
  }
  // No second table: neither the flags nor in_distribution change anything.
  std::vector<LayerPrediction> plain(2);
  plain[0].kernel_ms = plain[1].kernel_ms = 0.5;
  plain[1].in_distribution = false;
  attach_layer_intervals({conv, conv}, plain, seen, {nullptr, {true, false}});
  for (const auto& q : plain) {
    ASSERT_TRUE(q.latency_interval.has_value());
    EXPECT_DOUBLE_EQ(q.latency_interval->lo_ms, narrow->lo_ms);
  }
}

TEST(Intervals, TheUnseenGpuTableIsReadWhereASectionHasOneAndBadOnesNameTheField) {
  const IntervalTable table =
      IntervalTable::fit(synthetic_residuals("gemm", 0.2, 120, -0.3, 0.2, 3, 14));
  nlohmann::json section = interval_table_file_json("learned", table, {}, {});
  EXPECT_FALSE(unseen_gpu_table_from_file_json(section, "m.json: metadata.intervals"));
  section[kUnseenGpuIntervalsKey] = {{"families", table.to_json()}};
  const auto back = unseen_gpu_table_from_file_json(section, "m.json: metadata.intervals");
  ASSERT_TRUE(back.has_value());
  const auto a = table.interval("gemm", 0.2);
  const auto b = back->interval("gemm", 0.2);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(a->lo_ms, b->lo_ms);
  EXPECT_DOUBLE_EQ(a->hi_ms, b->hi_ms);
  section[kUnseenGpuIntervalsKey] = {{"scheme", "leave-gpu-out"}};
  try {
    (void)unseen_gpu_table_from_file_json(section, "m.json: metadata.intervals");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: metadata.intervals.unseen_gpu"),
              std::string::npos)
        << e.what();
  }
  section[kUnseenGpuIntervalsKey] = {{"families", {{"gemm", {{"all", "wide"}}}}}};
  EXPECT_THROW((void)unseen_gpu_table_from_file_json(section, "m"), InputError);
}

}  // namespace
}  // namespace cnnperf
