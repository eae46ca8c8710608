// What prof does once the program has ended: an interrupt no longer kills the finish at once, and
// the reports of every process are written, each under its own name.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "collector/collector.hpp"

namespace prof::cli {

// Once the program has ended, prof writes the databases and reports: an interrupt (Ctrl-C, kill)
// then says what is going on, and only a second one abandons the finish, leaving the run to
// `prof --recover`.
void guard_the_finish();

// The file named by --summary-output, opened once (no symlink followed, no FIFO waited on, no
// file clobbered without --force): nullptr with `why` set to one line naming the file and the
// problem.
std::FILE* summary_file(const Options& o, std::string* why = nullptr);

// The reports of a finished run (or a recovered one): the launched process first, then its
// children, each under its own name and in its own place when -d or -o is a pattern (its db moves
// there: cli/output_place.hpp), then one summary over all. Returns the program's status, or
// kExitCannotWrite when an output is lost.
int write_outputs(const Options& o, std::vector<collector::CollectedProcess> dbs, int launched_pid,
                  bool output_lost, int exit_status);

}  // namespace prof::cli
