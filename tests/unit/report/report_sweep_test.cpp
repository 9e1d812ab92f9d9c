// SPDX-License-Identifier: Apache-2.0
// `report` of a prediction sweep (`predict` with comma lists): latency and energy against
// batch, one line per GPU, a GPU comparison at the largest batch, and the rows. The sweep is
// real library output (analytical model, bundled GPU database); the line chart's own test
// uses made-up points.
#include <gtest/gtest.h>

#include <cstddef>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "cnnperf/common/json_io.hpp"
#include "cnnperf/model/gpu_spec.hpp"
#include "cnnperf/model/zoo.hpp"
#include "cnnperf/predict/power.hpp"
#include "cnnperf/predict/predict.hpp"
#include "cnnperf/predict/sweep.hpp"
#include "cnnperf/report/report.hpp"
#include "cnnperf/report/svg_chart.hpp"

namespace cnnperf {
namespace {

// How often `what` (plain text, no regex characters) occurs in `text`.
std::size_t count(const std::string& text, const std::string& what) {
  const std::regex pattern(what);
  return static_cast<std::size_t>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), {}));
}

// resnet18 on two GPUs at three batch sizes, in the order `predict` writes a sweep.
PredictionSweep resnet18_sweep(const std::vector<std::string>& gpus) {
  PredictionSweep sweep;
  sweep.network = "resnet18";
  for (const auto& name : gpus) {
    const GpuSpec gpu = GpuDatabase::bundled().resolve(name);
    sweep.gpus.push_back(gpu);
    for (const std::int64_t batch : {1, 8, 64}) {
      NetworkOptions options;
      options.batch = batch;
      const NetworkPrediction prediction =
          predict_network(build_zoo_network("resnet18", options), gpu, AnalyticalModel{},
                          Mode::kInference, PowerModel::bundled());
      sweep.rows.push_back(sweep_row(prediction));
    }
  }
  return sweep;
}

std::string sweep_page(const PredictionSweep& sweep) {
  return render_report({{"sweep.json", json_text(to_json(sweep))}});
}

TEST(ReportSweep, IsRecognisedByItsKind) {
  EXPECT_EQ(detect_report_kind({"s.json", json_text(to_json(resnet18_sweep({"t4"})))}),
            ReportKind::kPredictionSweep);
  EXPECT_EQ(to_string(ReportKind::kPredictionSweep), "prediction sweep");
}

TEST(ReportSweep, DrawsLatencyAndEnergyAgainstBatchPerGpuAndAGpuComparison) {
  PredictionSweep sweep = resnet18_sweep({"a100", "t4"});
  sweep.rows[5].over_budget = "latency budget exceeded: made up for this test";
  const std::string html = sweep_page(sweep);
  EXPECT_NE(html.find("<h2>1. prediction sweep: resnet18, 6 rows</h2>"), std::string::npos);
  // Two line charts (latency, energy), each one line per GPU of three points.
  EXPECT_EQ(count(html, "<polyline "), 4U);
  EXPECT_NE(html.find("Predicted latency_ms against batch"), std::string::npos);
  EXPECT_NE(html.find("Predicted energy_j against batch"), std::string::npos);
  const std::string a100 = sweep.rows[0].gpu;
  const std::string t4 = sweep.rows[3].gpu;
  EXPECT_NE(html.find(">" + a100 + "</text>"), std::string::npos);  // legend entries
  EXPECT_NE(html.find(">" + t4 + "</text>"), std::string::npos);
  // The comparison: one bar per GPU at batch 64, the row over budget in the warning colour.
  const auto compare = html.find("latency_ms at batch 64 (the largest)");
  ASSERT_NE(compare, std::string::npos);
  const std::string chart = html.substr(compare, html.find("</svg>", compare) - compare);
  EXPECT_EQ(count(chart, "<g><title>"), 2U);
  EXPECT_NE(chart.find("over budget"), std::string::npos);
  EXPECT_NE(chart.find("#f28e2b"), std::string::npos);
  // The rows' table: six rows and the budget message.
  const auto rows = html.find("<h3>Rows</h3>");
  ASSERT_NE(rows, std::string::npos);
  EXPECT_EQ(count(html.substr(rows), "<tr><td"), 6U);
  EXPECT_NE(html.find("<tr><th>gpu</th><th>precision</th><th>runtime</th><th>batch</th>", rows),
            std::string::npos);
  EXPECT_EQ(html.find("<th>warnings</th>", rows), std::string::npos);
  EXPECT_NE(html.find("made up for this test"), std::string::npos);
}

// A sweep at one batch has nothing to draw against batch: the comparison and table only.
TEST(ReportSweep, OneBatchHasNoLines) {
  PredictionSweep sweep = resnet18_sweep({"a100", "t4"});
  std::vector<PredictionSweepRow> at_one;
  for (const auto& row : sweep.rows) {
    if (row.batch == 8) at_one.push_back(row);
  }
  sweep.rows = at_one;
  const std::string html = sweep_page(sweep);
  EXPECT_EQ(count(html, "<polyline "), 0U);
  EXPECT_NE(html.find("latency_ms at batch 8"), std::string::npos);
}

TEST(SvgChart, LineChartHasOneLinePerSeriesOnDecadesAndSkipsNonPositivePoints) {
  LineChart chart;
  chart.title = "made-up points";
  chart.series = {{"one", {{1, 2, "a"}, {10, 20, "b"}, {100, 300, "c"}}},
                  {"two", {{1, 5, "d"}, {10, 0, "e"}}}};
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(count(svg, "<polyline "), 2U);
  EXPECT_EQ(count(svg, "<circle "), 4U);
  EXPECT_NE(svg.find("1 point(s) not shown"), std::string::npos);
  // x from 1 to 100 (two decades: ticks at 1, 2 and 5 times a power of ten); y from 2 to 500
  // (more than two decades: ticks at the powers of ten only).
  EXPECT_NE(svg.find(">50</text>"), std::string::npos);
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">200</text>"), std::string::npos);
  EXPECT_EQ(render_line_chart(chart), svg);
}

// The legend lists every series right of the plot; with more series than the plot's height
// holds (15 px a row), the picture grows so that the last entry stays inside it.
TEST(SvgChart, LineChartGrowsToHoldALongLegend) {
  LineChart chart;
  chart.title = "made-up points, 40 series";
  for (int s = 0; s < 40; ++s) {
    chart.series.push_back({"series " + std::to_string(s), {{1, 1.0 + s, ""}, {2, 2.0 + s, ""}}});
  }
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(count(svg, "<polyline "), 40U);
  const auto height_at = svg.find("height=\"") + 8;
  const double height_px = std::stod(svg.substr(height_at, svg.find('"', height_at) - height_at));
  const auto last = svg.find(">series 39</text>");
  ASSERT_NE(last, std::string::npos);
  const auto y_at = svg.rfind("y=\"", last) + 3;
  const double last_y_px = std::stod(svg.substr(y_at, svg.find('"', y_at) - y_at));
  EXPECT_GT(last_y_px, 434.0);  // below the plot's bottom edge
  EXPECT_LT(last_y_px, height_px);
}

}  // namespace
}  // namespace cnnperf
