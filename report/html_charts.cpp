#include "report/html_charts.hpp"

#include <algorithm>
#include <cstdio>

#include "report/html_escape.hpp"
#include "report/summary.hpp"
#include "report/time_format.hpp"

namespace prof::report {

namespace {

constexpr int kChartWidth = 760;
constexpr int kBarMaxWidth = 600;  // room after the longest bar for its value text
constexpr int kBarRowHeight = 30;
constexpr size_t kBarLabelWidth = 110;  // display columns; a longer label ends in "..."

std::string fixed1(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

void write_bar_chart(TextSink& out, std::string_view chart, const std::vector<HtmlBar>& bars,
                     int64_t scale) {
  if (bars.empty()) return;
  if (scale <= 0)
    for (const HtmlBar& bar : bars) scale = std::max(scale, bar.value);
  const int height = static_cast<int>(bars.size()) * kBarRowHeight;
  std::string svg = "<svg class=\"bars\" data-chart=\"" + html_escaped(chart) + "\" width=\"" +
                    std::to_string(kChartWidth) + "\" height=\"" + std::to_string(height) +
                    "\" viewBox=\"0 0 " + std::to_string(kChartWidth) + " " +
                    std::to_string(height) + "\" role=\"img\">\n";
  out.write(svg);
  int y = 0;
  for (const HtmlBar& bar : bars) {
    double fraction = scale > 0 ? static_cast<double>(std::max<int64_t>(bar.value, 0)) /
                                      static_cast<double>(scale)
                                : 0;
    double width = std::min(1.0, fraction) * kBarMaxWidth;
    if (bar.value > 0) width = std::max(width, 1.0);  // never invisible
    std::string row =
        "<g><title>" + html_escaped(bar.label) + ": " + html_escaped(bar.value_text) +
        "</title><text x=\"0\" y=\"" + std::to_string(y + 12) + "\">" +
        html_escaped(bar.label, kBarLabelWidth) + "</text><rect class=\"bar\" x=\"0\" y=\"" +
        std::to_string(y + 16) + "\" width=\"" + fixed1(width) +
        "\" height=\"10\"/><text class=\"value\" x=\"" + fixed1(width + 6) + "\" y=\"" +
        std::to_string(y + 25) + "\">" + html_escaped(bar.value_text) + "</text></g>\n";
    out.write(row);
    y += kBarRowHeight;
  }
  out.write("</svg>\n");
}

void write_memory_chart(TextSink& out, std::string_view label,
                        const std::vector<CurvePoint>& points, int64_t begin_ns, int64_t end_ns) {
  constexpr int kLeft = 80, kTop = 10, kPlotWidth = 660, kPlotHeight = 150;
  if (!points.empty()) end_ns = std::max(end_ns, points.back().at_ns);
  if (!points.empty()) begin_ns = std::min(begin_ns, points.front().at_ns);
  const int64_t span = std::max<int64_t>(end_ns - begin_ns, 1);
  int64_t peak = 0;
  const CurvePoint* peak_point = nullptr;
  for (const CurvePoint& p : points)
    if (p.bytes > peak) {
      peak = p.bytes;
      peak_point = &p;
    }
  auto x = [&](int64_t t) {
    return fixed1(kLeft +
                  static_cast<double>(t - begin_ns) / static_cast<double>(span) * kPlotWidth);
  };
  auto y = [&](int64_t bytes) {
    double fraction = peak > 0 ? static_cast<double>(bytes) / static_cast<double>(peak) : 0;
    return fixed1(kTop + kPlotHeight - std::clamp(fraction, 0.0, 1.0) * kPlotHeight);
  };
  const int bottom = kTop + kPlotHeight;
  std::string svg = "<svg class=\"memory\" data-series=\"" + html_escaped(label) + "\" width=\"" +
                    std::to_string(kChartWidth) + "\" height=\"190\" viewBox=\"0 0 " +
                    std::to_string(kChartWidth) + " 190\" role=\"img\"><title>" +
                    html_escaped(label) + "</title>\n";
  svg += "<line class=\"axis\" x1=\"" + std::to_string(kLeft) + "\" y1=\"" +
         std::to_string(bottom) + "\" x2=\"" + std::to_string(kLeft + kPlotWidth) + "\" y2=\"" +
         std::to_string(bottom) + "\"/>";
  svg += "<line class=\"axis\" x1=\"" + std::to_string(kLeft) + "\" y1=\"" + std::to_string(kTop) +
         "\" x2=\"" + std::to_string(kLeft) + "\" y2=\"" + std::to_string(bottom) + "\"/>\n";
  svg += "<text class=\"tick\" x=\"" + std::to_string(kLeft - 6) + "\" y=\"" +
         std::to_string(kTop + 10) + "\" text-anchor=\"end\">" + html_escaped(human_bytes(peak)) +
         "</text>";
  svg += "<text class=\"tick\" x=\"" + std::to_string(kLeft - 6) + "\" y=\"" +
         std::to_string(bottom) + "\" text-anchor=\"end\">0 B</text>";
  svg += "<text class=\"tick\" x=\"" + std::to_string(kLeft) + "\" y=\"" +
         std::to_string(bottom + 18) + "\">0</text>";
  svg += "<text class=\"tick\" x=\"" + std::to_string(kLeft + kPlotWidth) + "\" y=\"" +
         std::to_string(bottom + 18) + "\" text-anchor=\"end\">" +
         html_escaped(human_duration(end_ns - begin_ns)) + "</text>\n";
  out.write(svg);
  // A step curve: the bytes in use hold until the next change.
  std::string d = "M" + x(begin_ns) + " " + y(0);
  for (const CurvePoint& p : points) d += "H" + x(p.at_ns) + "V" + y(p.bytes);
  d += "H" + x(end_ns);
  out.write("<path class=\"curve\" d=\"" + d + "\"/>\n");
  if (peak_point)
    out.write("<circle class=\"peak\" cx=\"" + x(peak_point->at_ns) + "\" cy=\"" + y(peak) +
              "\" r=\"3.5\"><title>peak " + html_escaped(human_bytes(peak)) + " at " +
              html_escaped(human_duration(peak_point->at_ns - begin_ns)) + "</title></circle>\n");
  out.write("</svg>\n");
}

}  // namespace prof::report
