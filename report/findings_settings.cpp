// `--analyze-set NAME=VALUE`: the findings rules' thresholds (AnalyzeOptions), each named once in
// the table below with its unit (docs/findings.md, "Thresholds").
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "report/findings.hpp"

namespace prof::report {

namespace {

enum class Unit { kShare, kCount, kDuration, kBytes };

struct Setting {
  std::string_view name;
  Unit unit;
  double AnalyzeOptions::*share = nullptr;
  int64_t AnalyzeOptions::*number = nullptr;
};

constexpr Setting kSettings[] = {
    {"min-share", Unit::kShare, &AnalyzeOptions::min_share},
    {"sync-after-launch-min-launches", Unit::kCount, nullptr,
     &AnalyzeOptions::sync_after_launch_min_launches},
    {"idle-gap-min", Unit::kDuration, nullptr, &AnalyzeOptions::idle_gap_min_ns},
    {"launch-bound-min-kernels", Unit::kCount, nullptr, &AnalyzeOptions::launch_bound_min_kernels},
    {"alloc-churn-min-allocations", Unit::kCount, nullptr,
     &AnalyzeOptions::alloc_churn_min_allocations},
    {"small-copy-bytes", Unit::kBytes, nullptr, &AnalyzeOptions::small_copy_bytes},
    {"small-copy-min-count", Unit::kCount, nullptr, &AnalyzeOptions::small_copy_min_count},
    {"small-copy-overhead-share", Unit::kShare, &AnalyzeOptions::small_copy_overhead_share},
    {"serialized-other-share", Unit::kShare, &AnalyzeOptions::serialized_other_share},
    {"rank-imbalance-share", Unit::kShare, &AnalyzeOptions::rank_imbalance_share},
};

// A non-negative number and what follows it; nullopt when `text` does not start with one.
std::optional<std::pair<double, std::string>> number_and_unit(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.'))
    return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value < 0 || value > 1e15)
    return std::nullopt;
  return std::make_pair(value, std::string(end));
}

std::optional<double> unit_scale(Unit unit, const std::string& suffix) {
  switch (unit) {
    case Unit::kShare: return suffix == "%" ? 0.01 : suffix.empty() ? 1.0 : -1.0;
    case Unit::kCount: return suffix.empty() ? 1.0 : -1.0;
    case Unit::kDuration:
      return suffix == "ns"   ? 1.0
             : suffix == "us" ? 1e3
             : suffix == "ms" ? 1e6
             : suffix == "s"  ? 1e9
                              : -1.0;
    case Unit::kBytes:
      return suffix.empty() || suffix == "B" ? 1.0
             : suffix == "KiB"               ? 1024.0
             : suffix == "MiB"               ? 1048576.0
                                             : -1.0;
  }
  return std::nullopt;
}

const char* unit_example(Unit unit) {
  switch (unit) {
    case Unit::kShare: return "a share such as 20% or 0.2";
    case Unit::kCount: return "a whole number";
    case Unit::kDuration: return "a duration such as 500us or 2ms";
    case Unit::kBytes: return "a size such as 4096, 64KiB or 1MiB";
  }
  return "";
}

}  // namespace

std::string set_analyze_option(AnalyzeOptions& options, const std::string& assignment) {
  const size_t equals = assignment.find('=');
  const std::string name = assignment.substr(0, equals);
  const Setting* setting = nullptr;
  for (const Setting& s : kSettings)
    if (s.name == name) setting = &s;
  if (equals == std::string::npos || !setting) {
    std::string names;
    for (const Setting& s : kSettings) names += (names.empty() ? "" : ", ") + std::string(s.name);
    return "expected NAME=VALUE with NAME one of " + names;
  }
  const auto parsed = number_and_unit(assignment.substr(equals + 1));
  const std::optional<double> scale =
      parsed ? unit_scale(setting->unit, parsed->second) : std::nullopt;
  const double value = parsed && scale && *scale > 0 ? parsed->first * *scale : -1;
  const bool whole = setting->unit != Unit::kCount || value == std::floor(value);
  if (value < 0 || !whole || (setting->unit == Unit::kShare && value > 1))
    return name + ": expected " + unit_example(setting->unit);
  if (setting->share)
    options.*(setting->share) = value;
  else
    options.*(setting->number) = static_cast<int64_t>(std::llround(value));
  return "";
}

}  // namespace prof::report
