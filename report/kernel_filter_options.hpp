// What prof's kernel filters ask of the reports (report/kernel_filter.hpp applies them), apart from
// the filtering itself so that report/report.hpp's options stay a plain struct.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace prof::report {

struct KernelFilterOptions {
  // ECMAScript regexes searched (std::regex_search) in the full demangled name; empty: none.
  // A kernel is kept when it matches the include (or there is none) and not the exclude.
  std::string include_regex, exclude_regex;
  // Only the first..last launch (1-based, inclusive) of each kernel name in each process, counted
  // among the launches the other filters (the regexes, --index-range) keep.
  std::optional<std::pair<int64_t, int64_t>> iteration_range;
  bool truncate = false;  // names cut to the function: "void ns::f<int>(float*)" -> "ns::f"
  bool mangled = false;   // names as the db stores them, not demangled
};

}  // namespace prof::report
