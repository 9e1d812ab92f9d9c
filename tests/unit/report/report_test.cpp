// SPDX-License-Identifier: Apache-2.0
// `cnnperf report` through the library: the SVG chart writer, kind recognition, what each
// kind's section contains, escaping, determinism, no external URL, and the error messages.
// Network predictions are real library output (analytical model, bundled GPU database);
// the plan, train, validate and layer-prediction inputs are small SYNTHETIC JSON fixtures
// written here in the shape those commands print (their numbers are made up).
#include <gtest/gtest.h>

#include <cstddef>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../input_error_of.hpp"
#include "cnnperf/common/error.hpp"
#include "cnnperf/common/io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/layer.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/report/report.hpp"
#include "cnnperf/report/svg_chart.hpp"

namespace cnnperf {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) {
    ++n;
  }
  return n;
}

NetworkPrediction predict(const std::string& net, const std::string& gpu) {
  const Network network = build_zoo_network(net, {});
  return predict_network(network, GpuDatabase::bundled().resolve(gpu), AnalyticalModel{},
                         Mode::kInference, PowerModel::bundled());
}

std::string prediction_json(const std::string& net, const std::string& gpu) {
  return to_json(predict(net, gpu)).dump(2);
}

// SYNTHETIC: the layout of `cnnperf plan --format json`, numbers made up.
const char* const kPlanJson = R"({
  "schema_version": 1, "tool_version": "0.1.0", "kind": "plan", "profile": "interactive",
  "weights": {"latency": 0.5, "energy": 0.2, "accuracy": 0.3},
  "tolerances": {"max_latency_ms": 20, "max_energy_per_image_j": null, "min_top1_percent": null},
  "power_model": "synthetic", "latency_model": "synthetic", "accuracy_source": "synthetic",
  "candidates": [
    {"rank": 1, "network": "resnet50", "gpu": "a100", "batch": 1, "precision": "fp16",
     "power_limit_w": null, "latency_ms": 2.0, "energy_j": 0.4, "energy_per_image_j": 0.4,
     "avg_power_w": 200, "top1_percent": 76.13, "feasible": true, "infeasible_reason": null,
     "terms": {"latency": 1.0, "energy": 0.5, "accuracy": 0.8}, "score": 0.84},
    {"rank": 2, "network": "vgg19", "gpu": "t4", "batch": 32, "precision": "fp32",
     "power_limit_w": 60, "latency_ms": 250, "energy_j": 17, "energy_per_image_j": 0.53,
     "avg_power_w": 68, "top1_percent": null, "feasible": false,
     "infeasible_reason": "latency_ms 250 > max_latency_ms 20",
     "terms": {"latency": 0.0, "energy": 0.25, "accuracy": null}, "score": null}],
  "warnings": ["accuracy unknown for 1 network"]})";

// SYNTHETIC: the layout of `cnnperf train --regressor ... --format json`.
const char* const kTrainJson = R"({
  "cv": [
    {"adjusted_r2": 0.9, "cv": "leave-gpu-out", "family": "conv", "gpu": "all", "mape_pct": 23.25,
     "n": 100, "r2": 0.91, "regressor": "dtree", "rmse": 0.3, "spearman": 0.95, "within_10pct": 32},
    {"adjusted_r2": 0.8, "cv": "leave-gpu-out", "family": "conv", "gpu": "p4", "mape_pct": 41.5,
     "n": 50, "r2": 0.81, "regressor": "dtree", "rmse": 0.4, "spearman": 0.9, "within_10pct": 20}],
  "cv_scheme": "leave-gpu-out", "data": ["synthetic.csv"], "features": "layer,analytical",
  "fingerprint": "0000", "folds": 5, "rows": 150, "schema_version": 1, "seed": 42,
  "skipped_rows": 0, "tool_version": "0.1.0"})";

// SYNTHETIC: the layout of `cnnperf validate --format json`.
const char* const kValidateJson = R"({
  "e2e": {"eager_overhead_source": "default", "file": "e2e.csv", "rows": 10,
          "overall": {"mape_pct": 46.4, "n": 10, "r2": 0.7},
          "per_gpu": {"titan-xp": {"mape_pct": 30.9, "n": 5, "r2": 0.77}}},
  "layers": {"files": ["s.csv"], "rows": 20,
             "overall": {"mape_pct": 10.5, "n": 20, "r2": 0.96},
             "per_family": {"conv": {"mape_pct": 12.25, "n": 20, "r2": 0.96}}},
  "model": "m.json", "model_fingerprint": "abcd", "schema_version": 1, "tool_version": "0.1.0"})";

// SYNTHETIC: `predict --layers` output when the input carried a measured latency_ms column
// (cells of the input pass through as text, predict's own columns are numbers).
const char* const kLayerPredictionsJson = R"({
  "schema_version": 1, "tool_version": "0.1.0", "kind": "layer_predictions",
  "model": "analytical", "gpu": {"name": "v100-sxm2-16gb", "display_name": "NVIDIA Tesla V100"},
  "source": "layers.csv",
  "rows": [
    {"op": "conv2d", "c_in": "64", "h_in": "56", "w_in": "56", "c_out": "64", "latency_ms": "0.2",
     "predicted_latency_ms": 0.1, "roofline_ms": 0.05, "in_distribution": true},
    {"op": "conv2d", "c_in": "128", "h_in": "28", "w_in": "28", "c_out": "128", "latency_ms": "2.0",
     "predicted_latency_ms": 3.0, "roofline_ms": 0.5, "in_distribution": false}]})";

// ---- SVG chart writer ---------------------------------------------------------------------

TEST(SvgChart, HtmlEscapeCoversAllFiveCharacters) {
  EXPECT_EQ(html_escape(R"(<a href="x">Tom & 'Jerry'</a>)"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(SvgChart, LinearTicksEndJustPastTheMaximum) {
  EXPECT_EQ(linear_ticks(0), (std::vector<double>{0, 1}));
  const auto ms = linear_ticks(0.062);
  ASSERT_GE(ms.size(), 2U);
  EXPECT_NEAR(ms[1], 0.01, 1e-12);
  EXPECT_NEAR(ms.back(), 0.07, 1e-12);
  const auto j = linear_ticks(25);
  EXPECT_NEAR(j[1], 5, 1e-12);
  EXPECT_NEAR(j.back(), 25, 1e-12);
  EXPECT_LE(linear_ticks(123456).size(), 9U);
}

TEST(SvgChart, BarChartHasOneBarPerEntryAndGrowsWithThem) {
  BarChart small;
  small.title = "t";
  small.value_label = "latency_ms (ms)";
  small.marker_label = "roofline_ms";
  for (int i = 0; i < 3; ++i) {
    small.bars.push_back({"b" + std::to_string(i), 1.0 + i, 0.5, false, {}});
  }
  BarChart big = small;
  for (int i = 3; i < 300; ++i) {
    big.bars.push_back({"b" + std::to_string(i), 1.0, std::nullopt, false, {}});
  }
  const std::string a = render_bar_chart(small);
  const std::string b = render_bar_chart(big);
  // One <g> per bar; the legend adds one rect, the bars one each.
  EXPECT_EQ(count(a, "<g>"), 3U);
  EXPECT_EQ(count(b, "<g>"), 300U);
  EXPECT_EQ(count(a, "stroke=\"#b00020\""), 3U + 1U);  // a marker per bar + the legend's
  const std::regex height("height=\"([0-9.]+)\" viewBox");
  std::smatch ma;
  std::smatch mb;
  ASSERT_TRUE(std::regex_search(a, ma, height));
  ASSERT_TRUE(std::regex_search(b, mb, height));
  EXPECT_GE(std::stod(mb[1]) - std::stod(ma[1]), 297 * 14 - 1e-9);
  EXPECT_NE(a.find("latency_ms (ms)"), std::string::npos);
}

TEST(SvgChart, LargeAxesUseSiSuffixes) {
  BarChart chart;
  chart.bars.push_back({"conv", 236027904, std::nullopt, false, {}});
  const std::string svg = render_bar_chart(chart);
  EXPECT_NE(svg.find(">250M<"), std::string::npos);
  EXPECT_NE(svg.find(">236027904<"), std::string::npos);  // the bar's own value stays exact
  EXPECT_EQ(svg.find(">250000000<"), std::string::npos);
}

TEST(SvgChart, LabelsAreEscaped) {
  BarChart chart;
  chart.title = "<script>alert(1)</script>";
  chart.bars.push_back({"a<b & c", 1, std::nullopt, false, {}});
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b &amp; c"), std::string::npos);
}

TEST(SvgChart, ScatterUsesDecadesAndSkipsNonPositivePoints) {
  ScatterChart chart;
  chart.title = "p vs m";
  chart.x_label = "measured (ms)";
  chart.y_label = "predicted (ms)";
  chart.points = {{0.05, 0.1, "a"}, {2.0, 3.0, "b"}, {0.0, 1.0, "zero"}, {-1.0, 1.0, "neg"}};
  const std::string svg = render_scatter_chart(chart);
  EXPECT_EQ(count(svg, "<circle"), 2U);
  EXPECT_NE(svg.find("2 point(s) with a value &lt;= 0"), std::string::npos);
  for (const char* decade : {">0.01<", ">0.1<", ">1<", ">10<"}) {
    EXPECT_NE(svg.find(decade), std::string::npos) << decade;
  }
  EXPECT_NE(svg.find("y = x"), std::string::npos);
}

TEST(SvgChart, StackedBarsDrawOnlyPositivePartsAndGreyMutedOnes) {
  StackedBarChart chart;
  chart.title = "score";
  chart.series = {"latency", "energy"};
  chart.bars.push_back({"ok", {0.5, 0.25}, false, {}});
  chart.bars.push_back({"bad", {0.0, 0.1}, true, "too slow"});
  const std::string svg = render_stacked_bar_chart(chart);
  EXPECT_EQ(count(svg, "fill=\"#c4c4c4\""), 1U);  // one non-zero part of the muted bar
  EXPECT_NE(svg.find(">0.75<"), std::string::npos);
  EXPECT_NE(svg.find(">too slow<"), std::string::npos);
}

// ---- kinds ------------------------------------------------------------------------------

TEST(Report, RecognisesEveryProducer) {
  EXPECT_EQ(detect_report_kind({"p", prediction_json("resnet18", "t4")}),
            ReportKind::kNetworkPrediction);
  EXPECT_EQ(detect_report_kind({"l", kLayerPredictionsJson}), ReportKind::kLayerPredictions);
  EXPECT_EQ(detect_report_kind({"plan", kPlanJson}), ReportKind::kPlan);
  EXPECT_EQ(detect_report_kind({"t", kTrainJson}), ReportKind::kTrainMetrics);
  EXPECT_EQ(detect_report_kind({"v", kValidateJson}), ReportKind::kValidateMetrics);
  EXPECT_EQ(detect_report_kind({"x", R"({"schema_version":1,"launches":[]})"}),
            ReportKind::kPtxAnalysis);
  EXPECT_EQ(detect_report_kind({"g", R"({"gpu":{"name":"t4"},"query":"t4"})"}),
            ReportKind::kGpuSpec);
  EXPECT_EQ(detect_report_kind({"n", R"({"network":"a","input":{},"layers":[],"total":{}})"}),
            ReportKind::kNetworkLayers);
  EXPECT_EQ(detect_report_kind({"u", R"({"kind":"something_new"})"}), ReportKind::kGeneric);
  EXPECT_EQ(detect_report_kind({"s", "42"}), ReportKind::kGeneric);
}

TEST(Report, NetworkPredictionHasHeaderTotalsChartsAndSlowestLayers) {
  const NetworkPrediction p = predict("resnet50", "a100");
  const std::string html = render_report({{"r50.json", to_json(p).dump()}});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  for (const char* expected :
       {"resnet50", "a100-sxm4-40gb", "NVIDIA A100", "inference", "fp32", "analytical",
        "kernel_ms (ms)", "latency_ms (ms)", "energy_j (J)", "avg_power_w (W)", "Slowest layers",
        "roofline_ms", "energy_mj (mJ)", "Warnings", "schema_version", "tool_version"}) {
    EXPECT_NE(html.find(expected), std::string::npos) << expected;
  }
  // Time by op class and bound, the roofline, and two charts of the 25 slowest layers (kernel
  // time, energy): one <g> per bar, one bar per op class with kernels plus "all kernels" and
  // the step's time outside kernels.
  EXPECT_EQ(count(html, "<svg"), 4U);
  std::set<OpClass> classes;
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    if (p.predictions[i].kernel_ms > 0) classes.insert(op_class(p.layers[i].op));
  }
  EXPECT_EQ(count(html, "<g>"), 2 * 25 + classes.size() + 2);
  // Totals are the file's own figures.
  EXPECT_NE(html.find(format_number(p.latency_ms, 6)), std::string::npos);
  // The slowest layer heads the table.
  std::size_t slowest = 0;
  for (std::size_t i = 0; i < p.predictions.size(); ++i) {
    if (p.predictions[i].kernel_ms > p.predictions[slowest].kernel_ms) {
      slowest = i;
    }
  }
  const auto table = html.find("Slowest layers");
  EXPECT_NE(html.find("<td class=\"num\">1</td><td>" + p.layers[slowest].name + "</td>", table),
            std::string::npos);
  EXPECT_EQ(html.find("Power cap"), std::string::npos);
  // Every resnet50 layer is in the analytical model's range: nothing drawn as flagged.
  EXPECT_EQ(html.find("in_distribution: false"), std::string::npos);
}

TEST(Report, PowerCapSectionWhenTheResultHasOne) {
  NetworkPrediction p = predict("resnet18", "a100");
  apply_power_limit(p, 150, PowerModel::bundled());
  const std::string html = render_report({{"capped.json", to_json(p).dump()}});
  EXPECT_NE(html.find("Power cap"), std::string::npos);
  EXPECT_NE(html.find("uncapped_latency_ms"), std::string::npos);
  EXPECT_NE(html.find("clock_ratio"), std::string::npos);
}

TEST(Report, EveryLayerOfALongNetworkIsOnTheRooflineAndTheBarsAreItsSlowest) {
  const NetworkPrediction p = predict("resnet152", "v100");
  ASSERT_GT(p.layers.size(), 400U);
  const std::string html = render_report({{"r152.json", to_json(p).dump()}});
  std::size_t placed = 0;
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const bool on_chart =
        p.layers[i].flops() > 0 && p.layers[i].bytes() > 0 && p.predictions[i].kernel_ms > 0;
    placed += on_chart ? 1 : 0;
    if (on_chart) {
      EXPECT_NE(html.find("<title>" + p.layers[i].name + " ("), std::string::npos)
          << p.layers[i].name;
    }
  }
  EXPECT_GT(placed, 400U);
  EXPECT_EQ(count(html, "<circle"), placed + 4);  // and the legend's four bounds
  EXPECT_NE(html.find("(25 of " + std::to_string(p.layers.size()) + " layers)"), std::string::npos);
}

TEST(Report, LayerPredictionsWithMeasurementsGetAScatterAndMape) {
  const std::string html = render_report({{"lp.json", kLayerPredictionsJson}});
  EXPECT_NE(html.find("Predicted vs measured"), std::string::npos);
  EXPECT_EQ(count(html, "<circle"), 2U);
  // |0.1-0.2|/0.2 = 50 %, |3-2|/2 = 50 %: MAPE 50 %.
  EXPECT_NE(html.find("MAPE over the 2 rows with a measured latency_ms &gt; 0: 50 %"),
            std::string::npos);
  EXPECT_NE(html.find("predicted_latency_ms (ms)"), std::string::npos);
  // Table: op, then measured and predicted latency before the other layer columns.
  const auto rows = html.find("<h3>Rows</h3>");
  EXPECT_LT(html.find("<th>op</th>", rows), html.find("<th>latency_ms</th>", rows));
  EXPECT_LT(html.find("<th>latency_ms</th>", rows),
            html.find("<th>predicted_latency_ms</th>", rows));
  EXPECT_LT(html.find("<th>predicted_latency_ms</th>", rows), html.find("<th>c_in</th>", rows));
  EXPECT_NE(html.find("NVIDIA Tesla V100 (v100-sxm2-16gb)"), std::string::npos);
  // Row 2 is out of the model's range: one bar in the warning colour, plus its legend entry.
  EXPECT_EQ(count(html, "fill=\"#f28e2b\""), 2U);
  EXPECT_NE(html.find("in_distribution: false"), std::string::npos);
}

TEST(Report, LayerPredictionsWithoutMeasurementsHaveNoScatter) {
  auto doc = nlohmann::json::parse(kLayerPredictionsJson);
  for (auto& row : doc["rows"]) {
    row["latency_ms"] = row["predicted_latency_ms"];
    row.erase("predicted_latency_ms");
  }
  const std::string html = render_report({{"lp.json", doc.dump()}});
  EXPECT_EQ(html.find("<circle"), std::string::npos);
  EXPECT_NE(html.find("Latency per row"), std::string::npos);
  EXPECT_EQ(count(html, "<g>"), 2U);
}

TEST(Report, PlanRanksGreysInfeasibleAndStacksWeightedTerms) {
  const std::string html = render_report({{"plan.json", kPlanJson}});
  EXPECT_NE(html.find("Ranked candidates"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"muted\">"), std::string::npos);
  EXPECT_NE(html.find("no: latency_ms 250 &gt; max_latency_ms 20"), std::string::npos);
  EXPECT_NE(html.find("latency (w=0.5)"), std::string::npos);
  // The chart sums weight x term itself (the table echoes the file's "score"): candidate 1,
  // 0.5*1 + 0.2*0.5 + 0.3*0.8 = 0.84, as three coloured segments; the infeasible candidate 2,
  // latency 0 (no segment), energy 0.2*0.25, accuracy null (no segment), one grey segment.
  const auto chart = html.find("Score breakdown");
  ASSERT_NE(chart, std::string::npos);
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_NE(svg.find(">0.84<"), std::string::npos);
  for (const char* colour : {"#4e79a7", "#f28e2b", "#59a14f"}) {
    // One legend swatch and one segment of candidate 1.
    EXPECT_EQ(count(svg, std::string("fill=\"") + colour + "\""), 2U) << colour;
  }
  EXPECT_EQ(count(svg, "fill=\"#c4c4c4\""), 1U);
  EXPECT_NE(html.find("unknown"), std::string::npos);  // top1 null
  EXPECT_NE(html.find("accuracy unknown for 1 network"), std::string::npos);
}

TEST(Report, TrainAndValidateGetMetricTablesAndMapeCharts) {
  const std::string html =
      render_report({{"train.json", kTrainJson}, {"validate.json", kValidateJson}});
  EXPECT_NE(html.find("training metrics"), std::string::npos);
  EXPECT_NE(html.find("validation metrics"), std::string::npos);
  EXPECT_NE(html.find("dtree / conv / p4"), std::string::npos);
  EXPECT_NE(html.find(">41.5<"), std::string::npos);
  EXPECT_NE(html.find("per_family: conv"), std::string::npos);
  EXPECT_NE(html.find(">12.25<"), std::string::npos);
  EXPECT_GE(count(html, "MAPE (%, lower is better)"), 4U);
  // Per-layer accuracy is shown before end-to-end.
  EXPECT_LT(html.find("Per-layer accuracy"), html.find("End-to-end accuracy"));
}

TEST(Report, PtxGetsAnInstructionMixChart) {
  const std::string json = R"({"schema_version":1,"tool_version":"0.1.0","source":"cnnperf ptx",
    "launches":[{"kernel":"k","classes":{"fp32":{"warp":75,"thread":2400},
    "int":{"warp":25,"thread":800}},"bytes":{"global_ld":2000000},"warnings":[]}]})";
  const std::string html = render_report({{"ptx.json", json}});
  EXPECT_NE(html.find("Instruction-class mix"), std::string::npos);
  EXPECT_NE(html.find(">75<"), std::string::npos);  // fp32: 75 % of warp instructions
  EXPECT_NE(html.find(">25<"), std::string::npos);
  EXPECT_NE(html.find("MB (10^6 bytes)"), std::string::npos);
}

TEST(Report, GenericJsonNeverFails) {
  for (const char* json : {"42", "\"text\"", "null", "[]", "{}", "[1,2,3]", R"([{"a":1},{"a":2}])",
                           R"({"x":{"y":{"z":[{"name":"n","v":3.5},{"name":"m","v":1}]}}})",
                           R"({"deep":[[[[1]]]],"s":"\u00e9"})"}) {
    std::string html;
    ASSERT_NO_THROW(html = render_report({{"g.json", json}})) << json;
    EXPECT_NE(html.find("</html>"), std::string::npos) << json;
  }
  const std::string html =
      render_report({{"g.json", R"({"x":{"rows":[{"name":"n","v":3.5},{"name":"m","v":1}]}})"}});
  EXPECT_NE(html.find("x.rows (2 rows)"), std::string::npos);
  EXPECT_EQ(count(html, "<g>"), 2U);  // a bar per row of the numeric field
}

// cnnperf's own result kinds with a damaged member rendered as "no rows", or showed a text
// latency in a feasible candidate; they are input errors naming the file and the member.
TEST(Report, DamagedResultKindsAreInputErrorsNamingTheMember) {
  auto error_of = [](const std::string& json) {
    return test::input_error_of([&] { (void)render_report({{"r.json", json}}); });
  };
  EXPECT_EQ(error_of(R"({"kind":"network_prediction","layers":"x"})"),
            "r.json: layers: got \"x\" (expected an array of objects)");
  EXPECT_EQ(error_of(R"({"kind":"network_prediction","total":[1]})"),
            "r.json: total: got [1] (expected an object)");
  EXPECT_EQ(error_of(R"({"kind":"layer_predictions","rows":[1,2]})"),
            "r.json: rows: got [1,2] (expected an array of objects)");
  std::string plan = kPlanJson;
  plan.replace(plan.find("\"latency_ms\": 250"), 17, "\"latency_ms\": \"abc\"");
  EXPECT_EQ(error_of(plan), "r.json: candidates[1].latency_ms: got \"abc\" (expected a number)");
  // Numeric text (a passed-through CSV cell), empty text and null stay accepted.
  EXPECT_EQ(error_of(R"({"kind":"layer_predictions","rows":[{"latency_ms":"0.5"},)"
                     R"({"latency_ms":""},{"latency_ms":null}]})"),
            "no error");
  EXPECT_EQ(error_of(R"({"kind":"plan","candidates":[]})"), "no error");
  EXPECT_EQ(error_of(kPlanJson), "no error");
}

TEST(Report, GpuSpecIsAKeyValueTableWithSources) {
  const std::string html = render_report(
      {{"gpu.json", R"({"gpu":{"name":"t4","sm_count":40,"sources":{"sm_count":"datasheet"}},
                       "query":"t4","schema_version":1})"}});
  EXPECT_NE(html.find("<th>sm_count</th><td>40</td>"), std::string::npos);
  EXPECT_NE(html.find("Sources per field"), std::string::npos);
  EXPECT_NE(html.find("<th>sm_count</th><td>datasheet</td>"), std::string::npos);
}

// ---- page-wide properties ---------------------------------------------------------------

TEST(Report, InputStringsAreEscaped) {
  const std::string json =
      R"({"kind":"network_prediction","network":"<img src=x onerror=alert(1)>","gpu":"a&b",
          "layers":[{"name":"<script>x</script>","latency_ms":1}],"warnings":["'quoted' \"w\""]})";
  const std::string html = render_report({{"<evil>.json", json}}, "T <b>");
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<evil>"), std::string::npos);
  EXPECT_EQ(html.find("T <b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(html.find("&#39;quoted&#39; &quot;w&quot;"), std::string::npos);
  EXPECT_NE(html.find("<title>T &lt;b&gt;</title>"), std::string::npos);
}

TEST(Report, SameInputsGiveTheSameBytes) {
  const std::vector<ReportInput> inputs{{"a.json", prediction_json("mobilenet_v2", "t4")},
                                        {"plan.json", kPlanJson},
                                        {"lp.json", kLayerPredictionsJson}};
  const std::string first = render_report(inputs, "x");
  EXPECT_EQ(first, render_report(inputs, "x"));
  EXPECT_NE(first, render_report(inputs, "y"));
}

TEST(Report, NoScriptAndNoExternalReference) {
  const std::string html = render_report({{"a.json", prediction_json("resnet18", "a100")},
                                          {"plan.json", kPlanJson},
                                          {"lp.json", kLayerPredictionsJson},
                                          {"t.json", kTrainJson},
                                          {"v.json", kValidateJson}});
  for (const char* banned :
       {"<script", "http:", "https:", "src=", "url(", "@import", "<link", "xmlns", "//"}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  }
  // The only links are in-page anchors to the sections.
  const std::regex href("href=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ((*it)[1].str().rfind("#input-", 0), 0U) << (*it)[1].str();
  }
}

TEST(Report, UrlsInTheInputStayPlainText) {
  // Sources may cite web pages; the page shows them as text, never as a link or resource.
  const std::string html = render_report(
      {{"n.json", R"({"source":"https://example.org/paper.pdf","rows":[{"name":"a","v":1}]})"}});
  EXPECT_NE(html.find("<td>https://example.org/paper.pdf</td>"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
}

TEST(Report, InvalidJsonNamesFileLineAndColumn) {
  try {
    (void)render_report({{"good.json", "{}"}, {"bad.json", "{\"a\": [1, 2,, 3]}"}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("bad.json: invalid JSON: parse error at line 1, column 13"),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)render_report({{"empty.json", ""}}), InputError);
}

TEST(Report, NoInputIsAParameterError) {
  try {
    (void)render_report({});
    FAIL() << "expected ParameterError";
  } catch (const ParameterError& e) {
    EXPECT_EQ(e.parameter(), "inputs");
  }
}

}  // namespace
}  // namespace cnnperf
