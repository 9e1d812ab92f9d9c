// SPDX-License-Identifier: Apache-2.0
// A small inline-SVG chart writer for `cnnperf report`: horizontal bars, stacked bars, a
// log-log scatter, log-log lines and an XY chart with lines (roofline, Pareto front). Output is
// deterministic (fixed number formatting, no ids from counters or clocks) so reports can be
// compared byte for byte, and every text is XML-escaped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cnnperf {

/// Escapes &, <, >, " and ' for HTML/XML text and attribute values.
[[nodiscard]] std::string html_escape(std::string_view text);

/// One bar of a horizontal bar chart.
struct Bar {
  std::string label;             ///< category text (shown left of the bar, escaped)
  double value = 0;              ///< bar length, in the chart's value unit
  std::optional<double> marker;  ///< optional tick drawn across the bar (e.g. roofline_ms)
  bool muted = false;            ///< drawn grey (e.g. an infeasible candidate)
  std::string note;              ///< extra text in the bar's tooltip
  bool flagged = false;          ///< drawn in the warning colour (e.g. out-of-range input)
};

/// A horizontal bar chart; height grows with the number of bars so every bar stays readable.
struct BarChart {
  std::string title;
  std::string value_label;   ///< axis label with unit, e.g. "latency_ms (ms)"
  std::string marker_label;  ///< legend text for markers; "" = no legend entry
  std::string flag_label;    ///< legend text for flagged bars; "" = no legend entry
  std::vector<Bar> bars;
};

/// One bar of a stacked horizontal bar chart: one part per series, drawn left to right.
struct StackedBar {
  std::string label;
  std::vector<double> parts;  ///< same order as StackedBarChart::series; <= 0 parts skipped
  bool muted = false;
  std::string note;
};

struct StackedBarChart {
  std::string title;
  std::string value_label;
  std::vector<std::string> series;  ///< legend names of the parts
  std::vector<StackedBar> bars;
};

/// One point of a scatter chart.
struct ScatterPoint {
  double x = 0;
  double y = 0;
  std::string label;  ///< tooltip text
};

/// A scatter chart with log10 axes on both sides; points with x <= 0 or y <= 0 cannot be
/// placed and are counted in a note under the title instead.
struct ScatterChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool diagonal = true;  ///< draw y = x (predicted vs measured)
  std::vector<ScatterPoint> points;
};

/// One series of a line chart: its points joined in the order given (sort them by x).
struct LineSeries {
  std::string name;                  ///< legend text
  std::vector<ScatterPoint> points;  ///< each with its tooltip label
};

/// Lines with their points on log10 axes (batch 1 to 256 against latency_ms), drawn as an
/// XyChart: one line and colour per series, the legend right of the plot; points with a value
/// <= 0 cannot be placed and are counted in a note.
struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<LineSeries> series;
};

/// One point of an XY chart.
struct XyPoint {
  double x = 0;
  double y = 0;
  std::string label;       ///< tooltip text
  std::size_t series = 0;  ///< colour: index into XyChart::series (palette order)
  /// Colour from XyChart::shade_low (light) to shade_high (dark) instead of the series';
  /// e.g. a candidate's accuracy.
  std::optional<double> shade;
  bool muted = false;  ///< drawn grey (e.g. an infeasible candidate)
};

/// A polyline of an XY chart (a roof, a Pareto front), drawn under the points.
struct XyLine {
  std::string label;  ///< legend text and tooltip
  std::vector<std::pair<double, double>> points;
  bool dashed = false;
  std::string color = "#333";
};

/// An XY chart with log10 or linear axes; both ranges cover every point and line vertex.
/// On a log axis, points and vertices <= 0 cannot be placed and are counted in a note.
struct XyChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = true;
  bool log_y = true;
  std::vector<std::string> series;  ///< legend names of the point colours
  std::vector<XyPoint> points;
  std::vector<XyLine> lines;
  std::string shade_label;  ///< legend of the shade scale; "" = points have no shade
  double shade_low = 0;     ///< shade at the light end of the scale
  double shade_high = 1;    ///< shade at the dark end
};

[[nodiscard]] std::string render_bar_chart(const BarChart& chart);
[[nodiscard]] std::string render_stacked_bar_chart(const StackedBarChart& chart);
[[nodiscard]] std::string render_scatter_chart(const ScatterChart& chart);
[[nodiscard]] std::string render_line_chart(const LineChart& chart);
[[nodiscard]] std::string render_xy_chart(const XyChart& chart);

/// The palette's colour of series `index` (wrapping): what render_xy_chart and the stacked bars
/// draw it in, for a legend or a line drawn in a series' colour.
[[nodiscard]] std::string series_color(std::size_t index);

/// "Nice" linear axis ticks from 0 to at least `max_value` (1, 2 or 5 times a power of ten
/// per step); {0, 1} when max_value <= 0.
[[nodiscard]] std::vector<double> linear_ticks(double max_value);

}  // namespace cnnperf
