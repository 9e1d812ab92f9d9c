// SPDX-License-Identifier: Apache-2.0
// The network prediction's performance charts (time by op class and bound, roofline) and the XY
// chart under them. Predictions are real library output (analytical model, bundled GPU
// database); the XY chart's points are SYNTHETIC coordinates chosen so positions check by hand.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <map>
#include <string>

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

NetworkPrediction predict(const std::string& net, const std::string& gpu, DType dtype) {
  NetworkOptions options;
  options.dtype = dtype;
  Network network = build_zoo_network(net, options);
  apply_runtime_math(network.layers, Runtime::kPytorch, true);
  return predict_network(network, GpuDatabase::bundled().resolve(gpu), AnalyticalModel{},
                         Mode::kInference, PowerModel::bundled());
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// The index in the charts' bound series (compute, memory, overhead, other) of a layer's bound.
std::size_t bound_index(const std::string& bound) {
  if (bound == "compute") return 0;
  if (bound == "memory") return 1;
  if (bound == "overhead") return 2;
  return 3;
}

TEST(ReportCharts, TimeByOpClassSumsEachClassKernelTimeByBound) {
  const NetworkPrediction p = predict("resnet50", "a100", DType::kFp32);
  const std::string html = render_report({{"r50.json", to_json(p).dump()}});
  std::map<std::string, std::array<double, 4>> by_class;
  std::array<double, 4> all{};
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const double ms = p.predictions[i].kernel_ms;
    if (!(ms > 0)) continue;
    by_class[to_string(op_class(p.layers[i].op))][bound_index(p.predictions[i].bound)] += ms;
    all[bound_index(p.predictions[i].bound)] += ms;
  }
  // A bar's tooltip names each part with its series.
  const auto tooltip = [](const std::string& label, const std::array<double, 4>& parts,
                          double outside) {
    return "<title>" + label + ": compute-bound " + format_number(parts[0], 4) + " memory-bound " +
           format_number(parts[1], 4) + " overhead-bound (launch) " + format_number(parts[2], 4) +
           " other " + format_number(parts[3], 4) + " outside kernels (host, runtime) " +
           format_number(outside, 4);
  };
  EXPECT_NE(html.find(tooltip("all kernels", all, 0)), std::string::npos);
  EXPECT_NE(html.find(format_number(p.kernel_ms, 4) + "</text>"), std::string::npos);
  ASSERT_GE(by_class.size(), 4U);
  for (const auto& [cls, parts] : by_class) {
    EXPECT_NE(html.find(tooltip(cls, parts, 0)), std::string::npos) << cls;
  }
  // The step's time outside kernels (ResNet-50 at batch 1 is host-bound).
  ASSERT_GT(p.latency_ms, p.kernel_ms);
  EXPECT_NE(html.find(tooltip("step outside kernels", {}, p.latency_ms - p.kernel_ms)),
            std::string::npos);
}

TEST(ReportCharts, RooflineHasEachLayerAndTheRoofsOfThePrecision) {
  const NetworkPrediction p = predict("resnet50", "a100", DType::kFp32);
  const std::string html = render_report({{"r50.json", to_json(p).dump()}});
  // A100 SXM4 40GB's entry: 1555 GB/s, 19.5 TFLOP/s fp32, TF32 at half its 312 FP16 tensor rate.
  EXPECT_NE(html.find("<title>DRAM 1555 GB/s</title></polyline>"), std::string::npos);
  EXPECT_NE(html.find("<title>fp32 CUDA cores 19.5 TFLOP/s</title></polyline>"), std::string::npos);
  ASSERT_GT(p.tf32_convolutions, 0);
  EXPECT_NE(html.find("<title>TF32 tensor cores 156 TFLOP/s</title></polyline>"),
            std::string::npos);
  // The slowest layer at flops / bytes and flops / kernel time.
  std::size_t slowest = 0;
  for (std::size_t i = 0; i < p.predictions.size(); ++i) {
    if (p.predictions[i].kernel_ms > p.predictions[slowest].kernel_ms) slowest = i;
  }
  const Layer& l = p.layers[slowest];
  const double ms = p.predictions[slowest].kernel_ms;
  EXPECT_NE(html.find("<title>" + l.name + " (conv2d, " + p.predictions[slowest].bound +
                      "): " + format_number(l.flops() / l.bytes(), 4) + " flops/byte, " +
                      format_number(l.flops() / (ms * 1e-3) / 1e9, 4) + " GFLOP/s, " +
                      format_number(ms, 4) + " ms</title>"),
            std::string::npos);

  const NetworkPrediction half = predict("resnet50", "a100", DType::kFp16);
  const std::string fp16 = render_report({{"r50h.json", to_json(half).dump()}});
  EXPECT_NE(fp16.find("<title>fp16 tensor cores 312 TFLOP/s</title></polyline>"),
            std::string::npos);
  EXPECT_NE(fp16.find("<title>fp16 CUDA cores 78 TFLOP/s</title></polyline>"), std::string::npos);
  EXPECT_EQ(fp16.find("TF32 tensor cores"), std::string::npos);
}

TEST(ReportCharts, XyChartPlacesPointsOnDecadesAndDrawsLinesAndShades) {
  XyChart chart;
  chart.title = "t";
  chart.series = {"a", "b"};
  chart.points = {{1, 10, "low", 0, std::nullopt},
                  {100, 1000, "high", 1, std::nullopt},
                  {0, 5, "not on a log axis", 0, std::nullopt}};
  chart.lines = {{"roof <1>", {{1, 10}, {10, 100}}, true, "#b00020"}};
  const std::string svg = render_xy_chart(chart);
  // x decades 1..100 over 520 px from x = 64; y decades 10..1000 over 340 px down to y = 384.
  EXPECT_NE(svg.find("cx=\"64.0\" cy=\"384.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("cx=\"584.0\" cy=\"44.0\""), std::string::npos);
  EXPECT_NE(svg.find("1 point(s) not shown"), std::string::npos);
  EXPECT_NE(svg.find("<polyline points=\"64.0,384.0 324.0,214.0\""), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray=\"5 3\""), std::string::npos);
  EXPECT_NE(svg.find("roof &lt;1&gt;"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"" + series_color(1) + "\" fill-opacity"), std::string::npos);
  for (const char* tick : {">1<", ">10<", ">100<", ">1k<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  // Within two decades the ends and ticks are 1, 2 or 5 times a power of ten.
  XyChart narrow;
  narrow.points = {{5, 1, "p", 0, std::nullopt}, {40, 3, "q", 0, std::nullopt}};
  const std::string narrow_svg = render_xy_chart(narrow);
  EXPECT_NE(narrow_svg.find("cx=\"64.0\" cy=\"384.0\""), std::string::npos) << narrow_svg;
  for (const char* tick : {">5<", ">10<", ">20<", ">50<", ">1<", ">2<"}) {
    EXPECT_NE(narrow_svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(narrow_svg.find(">100<"), std::string::npos);
  // A shade scale colours points from light (low) to dark (high) instead of their series.
  chart.shade_label = "top1_percent";
  chart.shade_low = 70;
  chart.shade_high = 80;
  chart.points[0].shade = 70;
  chart.points[1].shade = 80;
  const std::string shaded = render_xy_chart(chart);
  EXPECT_EQ(count(shaded, "fill=\"#fde725\""), 2U);  // the low point and the legend's first step
  EXPECT_EQ(count(shaded, "fill=\"#440154\""), 2U);
  EXPECT_NE(shaded.find(">top1_percent<"), std::string::npos);
  EXPECT_EQ(render_xy_chart(chart), shaded);
}

// SYNTHETIC: the layout of `plan --format json`, numbers made up so the front is known: b is
// faster than a but uses more energy, c is dominated by a, d is infeasible, e has no accuracy.
const char* const kPlanJson = R"({"kind": "plan", "weights": {"latency": 1},
  "candidates": [
    {"rank": 1, "network": "a", "gpu": "t4", "batch": 1, "precision": "fp32", "latency_ms": 10,
     "energy_j": 1, "energy_per_image_j": 1, "top1_percent": 76, "feasible": true,
     "terms": {"latency": 1}, "score": 1},
    {"rank": 2, "network": "b", "gpu": "t4", "batch": 1, "precision": "fp32", "latency_ms": 5,
     "energy_j": 2, "energy_per_image_j": 2, "top1_percent": 70, "feasible": true,
     "terms": {"latency": 1}, "score": 1},
    {"rank": 3, "network": "c", "gpu": "t4", "batch": 1, "precision": "fp32", "latency_ms": 20,
     "energy_j": 3, "energy_per_image_j": 3, "top1_percent": 80, "feasible": true,
     "terms": {"latency": 1}, "score": 1},
    {"rank": 4, "network": "d", "gpu": "t4", "batch": 1, "precision": "fp32", "latency_ms": 1,
     "energy_j": 0.1, "energy_per_image_j": 0.1, "top1_percent": 75, "feasible": false,
     "infeasible_reason": "over the energy tolerance", "terms": {"latency": 0}, "score": 0},
    {"rank": 5, "network": "e", "gpu": "t4", "batch": 1, "precision": "fp32", "latency_ms": 40,
     "energy_j": 4, "energy_per_image_j": 4, "top1_percent": null, "feasible": true,
     "terms": {"latency": 1}, "score": 1}]})";

TEST(ReportCharts, PlanHasALatencyEnergyScatterWithItsParetoFront) {
  const std::string html = render_report({{"plan.json", kPlanJson}});
  const auto chart = html.find("Latency and energy per image of each candidate");
  ASSERT_NE(chart, std::string::npos);
  // The front joins b then a (fastest first); c and e are dominated, d is infeasible.
  const auto line = html.find("<polyline points=\"", chart);
  ASSERT_NE(line, std::string::npos);
  const auto points_end = html.find('"', line + 18);
  const std::string points = html.substr(line + 18, points_end - line - 18);
  EXPECT_EQ(count(points, ","), 2U) << points;
  EXPECT_NE(html.find("<title>Pareto front (feasible)</title></polyline>", line),
            std::string::npos);
  // Accuracy as colour: lowest (b, 70) light, highest (c, 80) dark; e unknown: white; d grey.
  const auto circle_of = [&](const std::string& tip) {
    const auto at = html.find("<title>" + tip);
    const auto start = html.rfind("<circle", at);
    return at == std::string::npos ? std::string() : html.substr(start, at - start);
  };
  EXPECT_NE(circle_of("#2 b @ t4 b1 fp32: 5 ms, 2 J/image, top1 70 %").find("#fde725"),
            std::string::npos);
  EXPECT_NE(circle_of("#3 c @ t4 b1 fp32: 20 ms, 3 J/image, top1 80 %").find("#440154"),
            std::string::npos);
  EXPECT_NE(circle_of("#5 e @ t4 b1 fp32: 40 ms, 4 J/image, top1 unknown").find("#ffffff"),
            std::string::npos);
  EXPECT_NE(circle_of("#4 d @ t4 b1 fp32: 1 ms, 0.1 J/image, top1 75 % (infeasible: over the "
                      "energy tolerance)")
                .find("#c4c4c4"),
            std::string::npos);
  EXPECT_EQ(render_report({{"plan.json", kPlanJson}}), html);
}

}  // namespace
}  // namespace cnnperf
