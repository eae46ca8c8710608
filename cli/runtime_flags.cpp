#include "cli/runtime_flags.hpp"

#include <CLI/CLI.hpp>
#include <cstring>

namespace prof::cli {
namespace {

// The first runtime with runtime r's flag: the one whose Options entry the flag sets.
size_t flag_owner(size_t r) {
  for (size_t first = 0; first < r; ++first)
    if (std::strcmp(kRuntimes[first].trace_flag, kRuntimes[r].trace_flag) == 0) return first;
  return r;
}

}  // namespace

void add_runtime_flags(CLI::App& app, Options& o) {
  for (size_t r = 0; r < kRuntimeCount; ++r)
    if (flag_owner(r) == r)
      app.add_flag(std::string("--") + kRuntimes[r].trace_flag, o.runtime_trace[r],
                   kRuntimes[r].trace_help)
          ->group("Tracing");
}

std::string selected_runtimes(const Options& o) {
  bool any_device = false;
  for (size_t r = 0; r < kRuntimeCount; ++r)
    any_device |= kRuntimes[r].kind == RuntimeKind::kDevice && o.runtime_trace[flag_owner(r)];
  std::string names;
  for (size_t r = 0; r < kRuntimeCount; ++r)
    if (o.runtime_trace[flag_owner(r)] ||
        (!any_device && kRuntimes[r].kind == RuntimeKind::kDevice))
      names += (names.empty() ? "" : ",") + std::string(kRuntimes[r].name);
  return names;
}

}  // namespace prof::cli
