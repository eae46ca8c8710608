// The kernel filters on the command line (--kernel-include-regex, --kernel-exclude-regex,
// --kernel-iteration-range, --truncate-kernels, --mangled-kernels, rocprofv3's names), as the
// report takes them (report/kernel_filter_options.hpp) and as a run's manifest keeps them for
// prof --recover.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "cli/options.hpp"
#include "cli/recovery.hpp"
#include "report/kernel_filter_options.hpp"

namespace CLI {
class App;
}

namespace prof::cli {

// Adds the options, in the "Filters" group. A regex that does not compile or a range that is not
// one fails the parse: one line naming the option, before anything runs or is written.
void add_filter_options(CLI::App& app, Options& o);

// --kernel-iteration-range: "A:B", or rocprofv3's "[A-B]" / "A-B"; 1 <= A <= B.
std::optional<std::pair<int64_t, int64_t>> parse_iteration_range(const std::string& text);
// "" when `pattern` is an ECMAScript regex, else the regex library's reason.
std::string regex_error(const std::string& pattern);

report::KernelFilterOptions kernel_filter_options(const Options& o);

// The filters into a run's manifest, and back from it; a value that is not valid (an edited
// manifest) is left out, as if never given.
void add_filter_manifest(const Options& o, Manifest& manifest);
void filters_from_manifest(const OrphanedRun& run, Options& o);

}  // namespace prof::cli
