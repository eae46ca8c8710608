// The --<runtime>-trace options, one per distinct flag of runtimes/runtime_list.def, and the
// PROF_RUNTIMES list they select.
#pragma once
#include <string>

#include "cli/options.hpp"

namespace CLI {
class App;
}

namespace prof::cli {

// Adds each runtime's flag with its help to the "Tracing" group, in RuntimeId order.
void add_runtime_flags(CLI::App& app, Options& o);
// The comma list of runtime names to record: the selected ones, or with no device runtime's flag
// given, every device runtime (plus MPI and markers only when their flags say so).
std::string selected_runtimes(const Options& o);

}  // namespace prof::cli
