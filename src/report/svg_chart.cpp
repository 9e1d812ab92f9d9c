// SPDX-License-Identifier: Apache-2.0
// Inline-SVG charts for `cnnperf report`. Coordinates are printed with one decimal through
// snprintf so the same data always gives the same bytes; no JavaScript, no external fonts.
#include "cnnperf/report/svg_chart.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cnnperf/common/io.hpp"

namespace cnnperf {

namespace {

constexpr double kWidthPx = 900;
constexpr double kRowPx = 14;  // one bar per row; 10 px bar + 4 px gap
constexpr double kBarPx = 10;
constexpr double kValueMarginPx = 80;  // room right of the longest bar for its value text
constexpr double kCharPx = 6.2;        // average glyph width of 10 px sans-serif
constexpr std::size_t kMaxLabelChars = 40;
constexpr const char* kMutedColor = "#c4c4c4";
constexpr const char* kMarkerColor = "#b00020";
constexpr const char* kFlagColor = "#f28e2b";
constexpr std::array<const char*, 7> kPalette{"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                              "#76b7b2", "#edc948", "#b07aa1"};

std::string px(double v) {
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.1f", v);
  return buffer.data();
}

double finite_or_zero(double v) {
  return std::isfinite(v) ? v : 0.0;
}

/// Labels longer than the label column are cut (the full text stays in the tooltip).
std::string short_label(const std::string& label) {
  if (label.size() <= kMaxLabelChars) {
    return label;
  }
  return label.substr(0, kMaxLabelChars - 3) + "...";
}

double label_width(const std::vector<std::string>& labels) {
  std::size_t longest = 4;
  for (const auto& l : labels) {
    longest = std::max(longest, short_label(l).size());
  }
  return std::clamp(static_cast<double>(longest) * kCharPx + 12, 60.0, 280.0);
}

std::string svg_open(double width, double height, const std::string& title) {
  // No xmlns: inline SVG in HTML5 needs none, and the page must not name any URL.
  return "<svg class=\"chart\" width=\"" + px(width) + "\" height=\"" + px(height) +
         "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
         "\" font-family=\"sans-serif\" font-size=\"10\" role=\"img\" aria-label=\"" +
         html_escape(title) + "\">\n<title>" + html_escape(title) + "</title>\n";
}

std::string text(double x, double y, const std::string& content, const std::string& anchor = "",
                 const std::string& extra = "") {
  std::string out = "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\"";
  if (!anchor.empty()) {
    out += " text-anchor=\"" + anchor + "\"";
  }
  if (!extra.empty()) {
    out += " " + extra;
  }
  return out + ">" + html_escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& stroke,
                 const std::string& extra = "") {
  std::string out = "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) +
                    "\" y2=\"" + px(y2) + "\" stroke=\"" + stroke + "\"";
  if (!extra.empty()) {
    out += " " + extra;
  }
  return out + "/>\n";
}

std::string rect(double x, double y, double w, double h, const std::string& fill) {
  return "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(std::max(0.0, w)) +
         "\" height=\"" + px(h) + "\" fill=\"" + fill + "\"/>\n";
}

/// Shared frame of the horizontal bar charts: title, legend row, grid, top and bottom axes.
struct HorizontalFrame {
  double x0 = 0;  // left edge of the plot area
  double plot_w = 0;
  double top = 0;     // y of the first row
  double height = 0;  // total SVG height
  double scale = 1;   // px per value unit
  std::vector<double> ticks;
};

HorizontalFrame horizontal_frame(const std::vector<std::string>& labels, double max_value,
                                 std::size_t rows, bool legend) {
  HorizontalFrame f;
  f.x0 = label_width(labels);
  f.plot_w = kWidthPx - f.x0 - kValueMarginPx;
  f.top = legend ? 60 : 44;
  f.height = f.top + static_cast<double>(rows) * kRowPx + 44;
  f.ticks = linear_ticks(max_value);
  f.scale = f.plot_w / f.ticks.back();
  return f;
}

/// Tick text; large axes get SI suffixes (250M rather than 250000000) so ticks do not collide.
std::string tick_text(double v, double axis_max) {
  constexpr std::array<std::pair<double, const char*>, 4> kSi{
      {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  if (axis_max >= 1e5) {
    for (const auto& [scale, suffix] : kSi) {
      if (axis_max >= scale) {
        return v == 0 ? "0" : format_number(v / scale, 4) + suffix;
      }
    }
  }
  return format_number(v, 4);
}

std::string horizontal_axes(const HorizontalFrame& f, std::size_t rows,
                            const std::string& value_label) {
  std::string out;
  const double bottom = f.top + static_cast<double>(rows) * kRowPx;
  for (const double t : f.ticks) {
    const double x = f.x0 + t * f.scale;
    out += line(x, f.top - 4, x, bottom, "#e3e3e3");
    out += text(x, f.top - 7, tick_text(t, f.ticks.back()), "middle", "fill=\"#555\"");
    out += text(x, bottom + 12, tick_text(t, f.ticks.back()), "middle", "fill=\"#555\"");
  }
  out += line(f.x0, f.top - 4, f.x0, bottom, "#888");
  out += text(f.x0 + f.plot_w / 2, bottom + 28, value_label, "middle", "font-size=\"11\"");
  return out;
}

// The x axis' label under the plot (centred at x_mid, the plot ending at plot_bottom) and the
// y axis' label turned along the left edge (centred at y_mid).
std::string axis_labels(double x_mid, double plot_bottom, double y_mid, const std::string& x_label,
                        const std::string& y_label) {
  return text(x_mid, plot_bottom + 32, x_label, "middle", "font-size=\"11\"") +
         "<text transform=\"translate(14," + px(y_mid) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"11\">" + html_escape(y_label) +
         "</text>\n";
}

std::string title_text(const std::string& title) {
  return text(4, 16, title, "", "font-size=\"13\" font-weight=\"bold\"");
}

}  // namespace

std::string html_escape(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (const char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> linear_ticks(double max_value) {
  if (!(max_value > 0) || !std::isfinite(max_value)) {
    return {0.0, 1.0};
  }
  // The smallest 1-2-5 step that needs at most 8 intervals: the axis ends close to the data.
  const double raw = max_value / 8;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-12)) {
      step = m * power;
      break;
    }
  }
  std::vector<double> ticks;
  // Stop at the first tick at or beyond the maximum, so the longest bar fits the axis.
  for (int i = 0;; ++i) {
    const double t = step * i;
    ticks.push_back(t);
    if (t >= max_value * (1 - 1e-12)) {
      break;
    }
  }
  return ticks;
}

std::string render_bar_chart(const BarChart& chart) {
  std::vector<std::string> labels;
  double max_value = 0;
  bool any_marker = false;
  bool any_flagged = false;
  for (const Bar& b : chart.bars) {
    labels.push_back(b.label);
    any_flagged = any_flagged || b.flagged;
    max_value = std::max(max_value, finite_or_zero(b.value));
    if (b.marker) {
      any_marker = true;
      max_value = std::max(max_value, finite_or_zero(*b.marker));
    }
  }
  const bool marker_legend = any_marker && !chart.marker_label.empty();
  const bool flag_legend = any_flagged && !chart.flag_label.empty();
  const bool legend = marker_legend || flag_legend;
  const HorizontalFrame f = horizontal_frame(labels, max_value, chart.bars.size(), legend);
  std::string out = svg_open(kWidthPx, f.height, chart.title) + title_text(chart.title);
  if (legend) {
    double x = f.x0;
    auto advance = [&](const std::string& label) {
      x += 16 + static_cast<double>(label.size()) * kCharPx + 18;
    };
    out += rect(x, 30, 12, 8, kPalette[0]);
    out += text(x + 16, 38, chart.value_label);
    advance(chart.value_label);
    if (marker_legend) {
      out += line(x + 6, 28, x + 6, 40, kMarkerColor, "stroke-width=\"2\"");
      out += text(x + 16, 38, chart.marker_label);
      advance(chart.marker_label);
    }
    if (flag_legend) {
      out += rect(x, 30, 12, 8, kFlagColor);
      out += text(x + 16, 38, chart.flag_label);
    }
  }
  out += horizontal_axes(f, chart.bars.size(), chart.value_label);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const double y = f.top + static_cast<double>(i) * kRowPx;
    const double v = std::max(0.0, finite_or_zero(b.value));
    std::string tip = b.label + ": " + format_number(b.value, 4);
    if (b.marker) {
      tip += " (" + chart.marker_label + " " + format_number(*b.marker, 4) + ")";
    }
    if (!b.note.empty()) {
      tip += " - " + b.note;
    }
    out += "<g><title>" + html_escape(tip) + "</title>\n";
    out += text(f.x0 - 4, y + kBarPx, short_label(b.label), "end", b.muted ? "fill=\"#999\"" : "");
    const char* fill = b.muted ? kMutedColor : (b.flagged ? kFlagColor : kPalette[0]);
    out += rect(f.x0, y + 1, v * f.scale, kBarPx, fill);
    if (b.marker && std::isfinite(*b.marker)) {
      const double x = f.x0 + std::max(0.0, *b.marker) * f.scale;
      out += line(x, y, x, y + kBarPx + 2, kMarkerColor, "stroke-width=\"2\"");
    }
    out += text(f.x0 + v * f.scale + 4, y + kBarPx, format_number(b.value, 4), "", "fill=\"#333\"");
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string render_stacked_bar_chart(const StackedBarChart& chart) {
  std::vector<std::string> labels;
  double max_value = 0;
  for (const StackedBar& b : chart.bars) {
    labels.push_back(b.label);
    double sum = 0;
    for (const double p : b.parts) {
      sum += std::max(0.0, finite_or_zero(p));
    }
    max_value = std::max(max_value, sum);
  }
  const HorizontalFrame f = horizontal_frame(labels, max_value, chart.bars.size(), true);
  std::string out = svg_open(kWidthPx, f.height, chart.title) + title_text(chart.title);
  double legend_x = f.x0;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    out += rect(legend_x, 30, 12, 8, kPalette[s % kPalette.size()]);
    out += text(legend_x + 16, 38, chart.series[s]);
    legend_x += 16 + static_cast<double>(chart.series[s].size()) * kCharPx + 18;
  }
  out += horizontal_axes(f, chart.bars.size(), chart.value_label);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const StackedBar& b = chart.bars[i];
    const double y = f.top + static_cast<double>(i) * kRowPx;
    double sum = 0;
    std::string tip = b.label + ":";
    for (std::size_t s = 0; s < b.parts.size(); ++s) {
      tip += " " + (s < chart.series.size() ? chart.series[s] : std::to_string(s)) + " " +
             format_number(b.parts[s], 4);
    }
    if (!b.note.empty()) {
      tip += " - " + b.note;
    }
    out += "<g><title>" + html_escape(tip) + "</title>\n";
    out += text(f.x0 - 4, y + kBarPx, short_label(b.label), "end", b.muted ? "fill=\"#999\"" : "");
    for (std::size_t s = 0; s < b.parts.size(); ++s) {
      const double v = std::max(0.0, finite_or_zero(b.parts[s]));
      if (v <= 0) {
        continue;
      }
      out += rect(f.x0 + sum * f.scale, y + 1, v * f.scale, kBarPx,
                  b.muted ? kMutedColor : kPalette[s % kPalette.size()]);
      sum += v;
    }
    // A muted bar's sum is not a score (e.g. infeasible candidates have none): show why.
    const std::string end_text = b.muted && !b.note.empty() ? b.note : format_number(sum, 4);
    out += text(f.x0 + sum * f.scale + 4, y + kBarPx, end_text, "",
                b.muted ? "fill=\"#777\"" : "fill=\"#333\"");
    out += "</g>\n";
  }
  return out + "</svg>\n";
}

std::string render_scatter_chart(const ScatterChart& chart) {
  constexpr double kPlotPx = 380;
  constexpr double kLeftPx = 70;
  constexpr double kTopPx = 44;
  std::vector<const ScatterPoint*> placed;
  double lo = 0;
  double hi = 0;
  for (const ScatterPoint& p : chart.points) {
    if (!(p.x > 0) || !(p.y > 0) || !std::isfinite(p.x) || !std::isfinite(p.y)) {
      continue;
    }
    const double a = std::min(p.x, p.y);
    const double b = std::max(p.x, p.y);
    lo = placed.empty() ? a : std::min(lo, a);
    hi = placed.empty() ? b : std::max(hi, b);
    placed.push_back(&p);
  }
  // Both axes share one decade range so y = x is the diagonal of the square.
  int lo_exp = placed.empty() ? -1 : static_cast<int>(std::floor(std::log10(lo)));
  int hi_exp = placed.empty() ? 1 : static_cast<int>(std::ceil(std::log10(hi)));
  if (hi_exp <= lo_exp) {
    hi_exp = lo_exp + 1;
  }
  const double span = hi_exp - lo_exp;
  auto to_x = [&](double v) { return kLeftPx + (std::log10(v) - lo_exp) / span * kPlotPx; };
  auto to_y = [&](double v) {
    return kTopPx + kPlotPx - (std::log10(v) - lo_exp) / span * kPlotPx;
  };
  const double width = kLeftPx + kPlotPx + 30;
  const double height = kTopPx + kPlotPx + 50;
  std::string out = svg_open(width, height, chart.title) + title_text(chart.title);
  const std::size_t skipped = chart.points.size() - placed.size();
  if (skipped > 0) {
    out += text(4, 32, std::to_string(skipped) + " point(s) with a value <= 0 not shown (log axes)",
                "", "fill=\"#777\"");
  }
  for (int e = lo_exp; e <= hi_exp; ++e) {
    const double v = std::pow(10.0, e);
    const std::string label = format_number(v, 1);
    out += line(to_x(v), kTopPx, to_x(v), kTopPx + kPlotPx, "#e3e3e3");
    out += line(kLeftPx, to_y(v), kLeftPx + kPlotPx, to_y(v), "#e3e3e3");
    out += text(to_x(v), kTopPx + kPlotPx + 13, label, "middle", "fill=\"#555\"");
    out += text(kLeftPx - 4, to_y(v) + 3, label, "end", "fill=\"#555\"");
  }
  out += "<rect x=\"" + px(kLeftPx) + "\" y=\"" + px(kTopPx) + "\" width=\"" + px(kPlotPx) +
         "\" height=\"" + px(kPlotPx) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  if (chart.diagonal) {
    const double a = std::pow(10.0, lo_exp);
    const double b = std::pow(10.0, hi_exp);
    out += line(to_x(a), to_y(a), to_x(b), to_y(b), "#999", "stroke-dasharray=\"4 3\"");
    out += text(to_x(b) - 4, to_y(b) + 12, "y = x", "end", "fill=\"#777\"");
  }
  for (const ScatterPoint* p : placed) {
    out += "<circle cx=\"" + px(to_x(p->x)) + "\" cy=\"" + px(to_y(p->y)) + "\" r=\"3\" fill=\"" +
           kPalette[0] + "\" fill-opacity=\"0.6\"><title>" +
           html_escape(p->label + ": " + format_number(p->x, 4) + ", " + format_number(p->y, 4)) +
           "</title></circle>\n";
  }
  out += axis_labels(kLeftPx + kPlotPx / 2, kTopPx + kPlotPx, kTopPx + kPlotPx / 2, chart.x_label,
                     chart.y_label);
  return out + "</svg>\n";
}

std::string series_color(std::size_t index) {
  return kPalette[index % kPalette.size()];
}

namespace {

// One axis of an XY chart: its range (in log10 units on a log axis) and its ticks.
struct XyAxis {
  bool log = true;
  double lo = 0;
  double hi = 1;
  std::vector<double> ticks;  // data values

  [[nodiscard]] double unit(double v) const {  // 0 at lo, 1 at hi
    const double t = log ? std::log10(v) : v;
    return (t - lo) / (hi - lo);
  }
};

XyAxis xy_axis(bool log, const std::vector<double>& values) {
  XyAxis a;
  a.log = log;
  double lo = 0;
  double hi = 0;
  bool any = false;
  for (const double v : values) {
    if (!std::isfinite(v) || (log && !(v > 0))) continue;
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  if (log) {
    // Ends and ticks at 1, 2 and 5 times a power of ten: data within a decade or two (a plan's
    // latencies) spread over the plot; over more decades, ticks at the powers of ten only.
    const auto steps_from = [](double e) {
      return std::array<double, 3>{std::pow(10.0, e), 2 * std::pow(10.0, e), 5 * std::pow(10.0, e)};
    };
    const double lo_e = any ? std::floor(std::log10(lo)) : 0;
    const double hi_e = any ? std::ceil(std::log10(hi)) : 1;
    std::vector<double> marks;
    for (double e = lo_e; e <= hi_e + 0.5; ++e) {
      for (const double m : steps_from(e)) marks.push_back(m);
    }
    double first = marks.front();
    double last = marks.back();
    for (const double m : marks) {
      if (any && m <= lo * (1 + 1e-12)) first = m;
    }
    for (auto it = marks.rbegin(); it != marks.rend(); ++it) {
      if (any && *it >= hi * (1 - 1e-12)) last = *it;
    }
    if (!(last > first)) last = first * 10;
    a.lo = std::log10(first);
    a.hi = std::log10(last);
    const bool fine = a.hi - a.lo <= 2 + 1e-9;
    for (const double m : marks) {
      const bool decade = std::fabs(std::log10(m) - std::round(std::log10(m))) < 1e-9;
      if (m >= first * (1 - 1e-12) && m <= last * (1 + 1e-12) && (fine || decade)) {
        a.ticks.push_back(m);
      }
    }
    return a;
  }
  a.lo = any ? std::min(0.0, lo) : 0;
  a.ticks = linear_ticks(any ? hi : 1);
  a.hi = a.ticks.back() > a.lo ? a.ticks.back() : a.lo + 1;
  return a;
}

// A tick of a log axis: SI suffixes from 1k up (1T rather than 1e12), plain below.
std::string log_tick_text(double v) {
  constexpr std::array<std::pair<double, const char*>, 5> kSi{
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, suffix] : kSi) {
    if (v >= scale * (1 - 1e-9)) return format_number(v / scale, 4) + suffix;
  }
  return format_number(v, 4);
}

// The shade scale from light yellow to dark purple (viridis' ends), t in [0, 1].
std::string shade_color(double t) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  constexpr std::array<double, 3> kLight{253, 231, 37};
  constexpr std::array<double, 3> kDark{68, 1, 84};
  std::array<int, 3> c{};
  for (std::size_t k = 0; k < 3; ++k) {
    c[k] = static_cast<int>(std::lround(kLight[k] + (kDark[k] - kLight[k]) * t));
  }
  std::array<char, 8> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "#%02x%02x%02x", c[0], c[1], c[2]);
  return buffer.data();
}

}  // namespace

std::string render_xy_chart(const XyChart& chart) {
  constexpr double kLeftPx = 64;
  constexpr double kTopPx = 44;
  constexpr double kPlotWPx = 520;
  constexpr double kPlotHPx = 340;
  constexpr double kLegendPx = 250;  // right of the plot
  const auto placeable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!chart.log_x || x > 0) &&
           (!chart.log_y || y > 0);
  };
  // The ranges cover what is drawn: a point left out does not stretch the other axis.
  std::vector<double> xs;
  std::vector<double> ys;
  const auto cover = [&](double x, double y) {
    if (!placeable(x, y)) return;
    xs.push_back(x);
    ys.push_back(y);
  };
  for (const XyPoint& p : chart.points) cover(p.x, p.y);
  for (const XyLine& l : chart.lines) {
    for (const auto& [x, y] : l.points) cover(x, y);
  }
  const XyAxis ax = xy_axis(chart.log_x, xs);
  const XyAxis ay = xy_axis(chart.log_y, ys);
  const auto to_x = [&](double v) { return kLeftPx + ax.unit(v) * kPlotWPx; };
  const auto to_y = [&](double v) { return kTopPx + kPlotHPx - ay.unit(v) * kPlotHPx; };
  // The legend (15 px a row, the shade scale 91 px) may run below the plot: the picture grows.
  const double legend_rows_px =
      (chart.shade_label.empty() ? 15.0 * static_cast<double>(chart.series.size()) : 91.0) +
      15.0 * static_cast<double>(chart.lines.size());
  const double height_px = std::max(kTopPx + kPlotHPx + 50, kTopPx + 6 + legend_rows_px + 10);
  std::string out =
      svg_open(kLeftPx + kPlotWPx + kLegendPx, height_px, chart.title) + title_text(chart.title);
  std::size_t skipped = 0;
  for (const XyPoint& p : chart.points) skipped += placeable(p.x, p.y) ? 0 : 1;
  if (skipped > 0) {
    out += text(4, 32, std::to_string(skipped) + " point(s) not shown (a value <= 0 on a log axis)",
                "", "fill=\"#777\"");
  }
  const auto tick_label = [](const XyAxis& a, double v) {
    return a.log ? log_tick_text(v) : tick_text(v, a.ticks.back());
  };
  for (const double v : ax.ticks) {
    out += line(to_x(v), kTopPx, to_x(v), kTopPx + kPlotHPx, "#e3e3e3");
    out += text(to_x(v), kTopPx + kPlotHPx + 13, tick_label(ax, v), "middle", "fill=\"#555\"");
  }
  for (const double v : ay.ticks) {
    out += line(kLeftPx, to_y(v), kLeftPx + kPlotWPx, to_y(v), "#e3e3e3");
    out += text(kLeftPx - 4, to_y(v) + 3, tick_label(ay, v), "end", "fill=\"#555\"");
  }
  out += "<rect x=\"" + px(kLeftPx) + "\" y=\"" + px(kTopPx) + "\" width=\"" + px(kPlotWPx) +
         "\" height=\"" + px(kPlotHPx) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  const auto dash = [](bool dashed) {
    return std::string("stroke-width=\"1.5\"") + (dashed ? " stroke-dasharray=\"5 3\"" : "");
  };
  for (const XyLine& l : chart.lines) {
    std::string points;
    for (const auto& [x, y] : l.points) {
      if (!placeable(x, y)) continue;
      points += (points.empty() ? "" : " ") + px(to_x(x)) + "," + px(to_y(y));
    }
    if (points.empty()) continue;
    out += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"" + l.color + "\" " +
           dash(l.dashed) + "><title>" + html_escape(l.label) + "</title></polyline>\n";
  }
  const bool shaded = !chart.shade_label.empty();
  const double shade_span = chart.shade_high - chart.shade_low;
  for (const XyPoint& p : chart.points) {
    if (!placeable(p.x, p.y)) continue;
    // In a shaded chart a point without a shade (unknown) is white.
    std::string fill = series_color(p.series);
    if (p.muted) {
      fill = kMutedColor;
    } else if (shaded) {
      fill = p.shade
                 ? shade_color(shade_span != 0 ? (*p.shade - chart.shade_low) / shade_span : 1.0)
                 : "#ffffff";
    }
    out += "<circle cx=\"" + px(to_x(p.x)) + "\" cy=\"" + px(to_y(p.y)) + "\" r=\"3.5\" fill=\"" +
           fill + "\" fill-opacity=\"0.8\" stroke=\"#333\" stroke-width=\"0.4\"><title>" +
           html_escape(p.label) + "</title></circle>\n";
  }
  // Legend right of the plot: the point series (or the shade scale), then the lines.
  const double lx = kLeftPx + kPlotWPx + 14;
  double ly = kTopPx + 6;
  if (shaded) {
    out += text(lx, ly, short_label(chart.shade_label), "", "font-weight=\"bold\"");
    ly += 6;
    constexpr int kSteps = 5;
    for (int k = 0; k < kSteps; ++k) {
      const double t = static_cast<double>(k) / (kSteps - 1);
      out += rect(lx, ly, 12, 10, shade_color(t));
      out += text(lx + 16, ly + 9, format_number(chart.shade_low + t * shade_span, 4));
      ly += 13;
    }
    ly += 10;
  } else {
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      out += "<circle cx=\"" + px(lx + 5) + "\" cy=\"" + px(ly - 3) + "\" r=\"3.5\" fill=\"" +
             series_color(s) + "\"/>\n";
      out += text(lx + 14, ly, short_label(chart.series[s]));
      ly += 15;
    }
  }
  for (const XyLine& l : chart.lines) {
    out += line(lx, ly - 3, lx + 10, ly - 3, l.color, dash(l.dashed));
    out += text(lx + 14, ly, short_label(l.label));
    ly += 15;
  }
  out += axis_labels(kLeftPx + kPlotWPx / 2, kTopPx + kPlotHPx, kTopPx + kPlotHPx / 2,
                     chart.x_label, chart.y_label);
  return out + "</svg>\n";
}

// A line chart is an XY chart on log axes whose lines carry the legend: each series is one
// line and its points, in the series' colour.
std::string render_line_chart(const LineChart& chart) {
  XyChart xy;
  xy.title = chart.title;
  xy.x_label = chart.x_label;
  xy.y_label = chart.y_label;
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const LineSeries& series = chart.series[s];
    XyLine line;
    line.label = series.name;
    line.color = series_color(s);
    for (const ScatterPoint& p : series.points) {
      line.points.emplace_back(p.x, p.y);
      xy.points.push_back({p.x, p.y,
                           series.name + ", " + p.label + ": " + format_number(p.x, 4) + ", " +
                               format_number(p.y, 4),
                           s, std::nullopt, false});
    }
    xy.lines.push_back(std::move(line));
  }
  return render_xy_chart(xy);
}

}  // namespace cnnperf
