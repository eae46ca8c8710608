// -d and -o as patterns, as nsys and rocprofv3 take them: one command line names each process's
// outputs apart (`mpirun -np 4 prof -d 'runs/%hostname%' -o 'rank%rank%' ./app`).
//
//   %pid%       the profiled process's pid        %ppid%      its parent's pid
//   %hostname%  the host it ran on                %rank%      its MPI or Slurm rank, 0 outside a
//   job %env{VAR}%  VAR's value; VAR unset is an error %q{VAR}%    VAR's value, empty when VAR is
//   unset (nsys's %q{VAR})
//   %%          a literal %
//
// Anything else after a % (an unknown word, a % never closed) is an error: a typo must not become
// a directory named after it.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace prof::cli {

struct PatternValues {
  // nullopt: no single value (--db-merge reads many processes); a pattern naming it is an error.
  std::optional<int> pid;
  std::optional<int> ppid;
  std::optional<int> rank;
  std::string hostname;
  // The environment %env{}% and %q{}% read: nullptr for an unset variable. getenv unless replaced.
  std::function<const char*(const std::string&)> env;
};

struct PatternExpansion {
  std::string text;
  std::string error;  // empty when `text` is the expansion; else why not, without the option's name
  bool ok() const { return error.empty(); }
};

PatternExpansion expand_path_pattern(std::string_view pattern, const PatternValues& values);

// Whether `pattern` holds %pid%: each process then has its own outputs without a _<pid> suffix.
bool pattern_names_pid(std::string_view pattern);

// The leading whole path components of `pattern` that hold no %: they are the same for every
// process ("runs/%hostname%/x" -> "runs", "out_%pid%" -> "", "/a/b" -> "/a/b"). The rest of
// the pattern goes to `rest` ("%hostname%/x").
std::string literal_prefix(const std::string& pattern, std::string& rest);

}  // namespace prof::cli
