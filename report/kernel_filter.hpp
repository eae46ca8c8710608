// Which kernels the reports show, and under what name (prof --kernel-include-regex,
// --kernel-exclude-regex, --kernel-iteration-range, --truncate-kernels, --mangled-kernels, as
// rocprofv3 has them). Applied when reports are written: the db keeps every kernel. A name is
// matched once, when the process's KernelNames are read (report/kernel_names.hpp); each launch
// then costs a slot lookup and a counter.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/event_pass.hpp"
#include "report/kernel_filter_options.hpp"

namespace prof::report {

class KernelNames;  // report/kernel_names.hpp

// "void ns::f<int>(float*, int)" -> "ns::f": the name without its return type, parameter list and
// template arguments (rocprof -T). A name that is no signature ("my_kernel") is returned as is.
std::string truncate_kernel_name(std::string_view name);

// The options, compiled once for a report. Throws ReportError naming the option and what is wrong
// with its regex, or an empty iteration range.
class KernelMatcher {
 public:
  explicit KernelMatcher(const KernelFilterOptions& options);
  // Whether any launch may be left out (else the pass needs no selection at all).
  bool filters() const { return include_ || exclude_ || options_.iteration_range; }
  // Whether the regexes keep kernels of this (demangled, untruncated) name.
  bool keeps_name(std::string_view demangled) const;
  // The name the reports write for a name the db stores as `stored` (`demangled` when demangled).
  std::string display_name(std::string_view stored, const std::string& demangled) const;
  const KernelFilterOptions& options() const { return options_; }

 private:
  KernelFilterOptions options_;
  std::optional<std::regex> include_, exclude_;
};

// A stage of the pass in front of `next`: calls and copies go through, a kernel only when the
// matcher keeps it. Launches are counted per name slot in the order the pass gives them
// (correlation id order), so one stage serves one process's one pass.
class KernelSelection final : public EventConsumer {
 public:
  KernelSelection(const KernelNames& names, const KernelMatcher& matcher,
                  std::vector<EventConsumer*> next);
  void api(const ApiRow& r) override;
  void kernel(const KernelRow& r) override;
  void copy(const CopyRow& r) override;

 private:
  bool keep(const KernelRow& r);
  bool in_range(int64_t& launches) const;

  const KernelNames& names_;
  const KernelMatcher& matcher_;
  std::vector<EventConsumer*> next_;
  std::vector<int64_t> launches_by_slot_;
  // Kernels the strings table does not name ("unknown kernel ..."): few, matched once each.
  std::map<std::string, std::pair<bool, int64_t>, std::less<>> unnamed_;  // name -> kept, launches
};

}  // namespace prof::report
