#include "report/kernel_filter.hpp"

#include <cstdio>

#include "report/kernel_names.hpp"
#include "report/report_error.hpp"

namespace prof::report {

namespace {

// Where the bracket that `text[end - 1]` closes opens (scanning back, nested pairs skipped), or
// npos when it never does.
size_t opening_of(std::string_view text, size_t end, char open, char close) {
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (text[i] == close) ++depth;
    if (text[i] == open && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::string_view trim_right(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::regex compiled(const char* option, const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ReportError(std::string(option) + " '" + pattern + "': not a regex (" + e.what() + ")");
  }
}

}  // namespace

std::string truncate_kernel_name(std::string_view name) {
  std::string_view text = trim_right(name);
  if (!text.empty() && text.back() == ')') {
    const size_t open = opening_of(text, text.size(), '(', ')');
    if (open != std::string_view::npos && open > 0) text = trim_right(text.substr(0, open));
  }
  if (!text.empty() && text.back() == '>') {
    const size_t open = opening_of(text, text.size(), '<', '>');
    if (open != std::string_view::npos && open > 0) text = trim_right(text.substr(0, open));
  }
  // The return type ends at the last space outside brackets ("void", "std::pair<int, int>").
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (c == ' ' && depth == 0) start = i + 1;
  }
  text = text.substr(start);
  return text.empty() ? std::string(name) : std::string(text);
}

KernelMatcher::KernelMatcher(const KernelFilterOptions& options) : options_(options) {
  if (!options_.include_regex.empty())
    include_ = compiled("--kernel-include-regex", options_.include_regex);
  if (!options_.exclude_regex.empty())
    exclude_ = compiled("--kernel-exclude-regex", options_.exclude_regex);
  if (const auto& range = options_.iteration_range;
      range && (range->first < 1 || range->first > range->second))
    throw ReportError("--kernel-iteration-range " + std::to_string(range->first) + ":" +
                      std::to_string(range->second) + ": expected A:B with 1 <= A <= B");
}

bool KernelMatcher::keeps_name(std::string_view demangled) const {
  const auto searched = [demangled](const std::regex& re) {
    return std::regex_search(demangled.begin(), demangled.end(), re);
  };
  if (include_ && !searched(*include_)) return false;
  return !(exclude_ && searched(*exclude_));
}

std::string KernelMatcher::display_name(std::string_view stored,
                                        const std::string& demangled) const {
  // A mangled name is shown whole: cut, it would be neither the symbol nor readable.
  if (options_.mangled) return std::string(stored);
  return options_.truncate ? truncate_kernel_name(demangled) : demangled;
}

KernelSelection::KernelSelection(const KernelNames& names, const KernelMatcher& matcher,
                                 std::vector<EventConsumer*> next)
    : names_(names), matcher_(matcher), next_(std::move(next)), launches_by_slot_(names.size()) {}

void KernelSelection::api(const ApiRow& r) {
  for (EventConsumer* c : next_) c->api(r);
}

void KernelSelection::copy(const CopyRow& r) {
  for (EventConsumer* c : next_) c->copy(r);
}

void KernelSelection::kernel(const KernelRow& r) {
  if (keep(r))
    for (EventConsumer* c : next_) c->kernel(r);
}

bool KernelSelection::in_range(int64_t& launches) const {
  const auto& range = matcher_.options().iteration_range;
  ++launches;
  return !range || (launches >= range->first && launches <= range->second);
}

bool KernelSelection::keep(const KernelRow& r) {
  if (const auto slot = r.name_id ? names_.slot(*r.name_id) : std::nullopt) {
    if (!names_.kept_at_slot(*slot)) return false;
    return in_range(launches_by_slot_[*slot]);
  }
  // The same text the reports write for such a kernel (report/stats.cpp, trace_csv.cpp).
  char text[64];
  if (r.name_id)
    std::snprintf(text, sizeof text, "unknown kernel %lld", static_cast<long long>(*r.name_id));
  else
    std::snprintf(text, sizeof text, "unknown kernel at 0x%llx",
                  static_cast<unsigned long long>(r.function_address));
  auto it = unnamed_.find(std::string_view(text));
  if (it == unnamed_.end())
    it = unnamed_.emplace(text, std::pair{matcher_.keeps_name(text), int64_t{0}}).first;
  return it->second.first && in_range(it->second.second);
}

}  // namespace prof::report
