// The HTML report's charts, as inline SVG (no script, no external file): horizontal bars and the
// memory-in-use step curve. Labels are escaped here; callers pass raw names.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/memory_curve.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

struct HtmlBar {
  std::string label;       // shown shortened; the full text is the bar's tooltip
  int64_t value = 0;       // >= 0
  std::string value_text;  // shown after the bar ("1.234 ms, 45.00%")
};

// A row per bar: its label above a bar as long as value / scale of the chart's width (scale 0:
// the largest value). `chart` names it for tests and styles (data-chart).
void write_bar_chart(TextSink& out, std::string_view chart, const std::vector<HtmlBar>& bars,
                     int64_t scale = 0);

// Bytes in use over [begin_ns, end_ns] as a step curve from 0, the peak marked.
void write_memory_chart(TextSink& out, std::string_view label,
                        const std::vector<CurvePoint>& points, int64_t begin_ns, int64_t end_ns);

}  // namespace prof::report
