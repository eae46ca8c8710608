#include "cli/filter_options.hpp"

#include <CLI/CLI.hpp>
#include <regex>

namespace prof::cli {

namespace {

CLI::Validator regex_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string why = regex_error(text);
        return why.empty() ? "" : "'" + text + "' is not a regex: " + why;
      },
      "");  // the option's type_name says REGEX
}

CLI::Validator iteration_range_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return parse_iteration_range(text)
                   ? ""
                   : "expected A:B (or [A-B]) with 1 <= A <= B, not '" + text + "'";
      },
      "");
}

}  // namespace

void add_filter_options(CLI::App& app, Options& o) {
  app.add_option("--kernel-include-regex", o.kernel_include_regex,
                 "Only kernels whose demangled name contains a match of this ECMAScript regex in "
                 "the kernel CSVs, "
                 "timelines, HTML and summaries (API calls stay; the db keeps everything)")
      ->check(regex_check())
      ->group("Filters")
      ->type_name("REGEX");
  app.add_option("--kernel-exclude-regex", o.kernel_exclude_regex,
                 "Leave out kernels whose demangled name contains a match of this regex (wins over "
                 "the include)")
      ->check(regex_check())
      ->group("Filters")
      ->type_name("REGEX");
  app.add_option(
         "--kernel-iteration-range", o.kernel_iteration_range,
         "Only the A-th to B-th launch (1-based, inclusive) of each kernel name in each process")
      ->check(iteration_range_check())
      ->group("Filters")
      ->type_name("A:B");
  app.add_flag("-T,--truncate-kernels", o.truncate_kernels,
               "Kernel names without return type, template arguments and parameters: "
               "'void ns::f<int>(float*)' is 'ns::f'")
      ->group("Filters");
  app.add_flag("-M,--mangled-kernels", o.mangled_kernels,
               "Kernel names as the db stores them: mangled where the db kept the mangled symbol")
      ->group("Filters");
}

std::optional<std::pair<int64_t, int64_t>> parse_iteration_range(const std::string& text) {
  static const std::regex pattern(R"(^\[?([0-9]{1,18})[:-]([0-9]{1,18})\]?$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern) || (text.front() == '[') != (text.back() == ']'))
    return std::nullopt;
  const int64_t first = std::stoll(m[1].str()), last = std::stoll(m[2].str());
  if (first < 1 || first > last) return std::nullopt;
  return std::pair{first, last};
}

std::string regex_error(const std::string& pattern) {
  try {
    std::regex compiled(pattern, std::regex::ECMAScript);
    return "";
  } catch (const std::regex_error& e) {
    return e.what();
  }
}

report::KernelFilterOptions kernel_filter_options(const Options& o) {
  report::KernelFilterOptions k;
  k.include_regex = o.kernel_include_regex;
  k.exclude_regex = o.kernel_exclude_regex;
  if (!o.kernel_iteration_range.empty())
    k.iteration_range = parse_iteration_range(o.kernel_iteration_range);
  k.truncate = o.truncate_kernels;
  k.mangled = o.mangled_kernels;
  return k;
}

void add_filter_manifest(const Options& o, Manifest& manifest) {
  manifest["kernel_include_regex"] = o.kernel_include_regex;
  manifest["kernel_exclude_regex"] = o.kernel_exclude_regex;
  manifest["kernel_iteration_range"] = o.kernel_iteration_range;
  manifest["truncate_kernels"] = o.truncate_kernels ? "1" : "0";
  manifest["mangled_kernels"] = o.mangled_kernels ? "1" : "0";
}

void filters_from_manifest(const OrphanedRun& run, Options& o) {
  if (const std::string re = run.get("kernel_include_regex"); regex_error(re).empty())
    o.kernel_include_regex = re;
  if (const std::string re = run.get("kernel_exclude_regex"); regex_error(re).empty())
    o.kernel_exclude_regex = re;
  if (const std::string range = run.get("kernel_iteration_range"); parse_iteration_range(range))
    o.kernel_iteration_range = range;
  o.truncate_kernels = run.get("truncate_kernels") == "1";
  o.mangled_kernels = run.get("mangled_kernels") == "1";
}

}  // namespace prof::cli
