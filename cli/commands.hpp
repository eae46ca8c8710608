// prof's commands that run no program: --db, --db-merge, --compare (cli/db_commands.cpp) and
// --recover (cli/recover_command.cpp). Each returns prof's exit status.
#pragma once
#include "cli/options.hpp"
#include "cli/recovery.hpp"

namespace prof::cli {

// prof --db FILE: the reports again from one database.
int regenerate(const Options& o);
// prof --db-merge DIR: one db and one set of reports from every db in DIR.
int merge(const Options& o);
// prof --compare BASE NEW: exit 0 clean, 1 regressed, 2 usage or input error.
int compare(const Options& o);
// prof --recover [DIR...]: every orphaned run of this user, or the run directories named.
int recover(const Options& o);
// The options that shape a run's outputs, as the run manifest keeps them for `prof --recover`.
Manifest output_manifest(const Options& o);

}  // namespace prof::cli
