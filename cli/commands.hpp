// prof's commands that run no program: --db, --db-merge, --compare (cli/db_commands.cpp),
// --analyze (cli/analyze_command.cpp) and --recover (cli/recover_command.cpp). Each returns prof's
// exit status.
#pragma once
#include "cli/options.hpp"
#include "cli/recovery.hpp"

namespace prof::cli {

// prof --db FILE: the reports again from one database.
int regenerate(const Options& o);
// prof --db-merge DIR: one db and one set of reports from every db in DIR.
int merge(const Options& o);
// prof --db FILE --analyze: the findings (cli/analyze_command.cpp); exit 0, or 1 when one is above
// --analyze-fail-above.
int analyze(const Options& o);
// The findings of the database at `path` (already resolved), printed as --format says.
int analyze_file(const std::string& path, const Options& o);
// --db's file as SQLite can open it (its real path when it is a link to the user's own file); 0,
// or the exit status of the failure (already said).
int resolve_db_path(const std::string& given, std::string& path);
// prof --compare BASE NEW: exit 0 clean, 1 regressed, 2 usage or input error.
int compare(const Options& o);
// prof --recover [DIR...]: every orphaned run of this user, or the run directories named.
int recover(const Options& o);
// The options that shape a run's outputs, as the run manifest keeps them for `prof --recover`.
Manifest output_manifest(const Options& o);

}  // namespace prof::cli
