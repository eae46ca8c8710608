// Where one process's outputs go when -d and -o are patterns (cli/path_pattern.hpp). While the
// program runs, its databases are written in -d's literal part (the whole components before the
// first %, made and checked before anything runs, as a plain -d is); once each process's values
// are known (its db's meta: pid, ppid, host_name, rank), its db moves to the expanded directory
// and its reports are written there.
#pragma once
#include <string>

#include "cli/options.hpp"
#include "cli/path_pattern.hpp"

namespace prof::cli {

struct OutputPlace {
  std::string dir;   // made, canonical
  std::string name;  // -o's base name expanded; empty without -o
};

// The values of the process whose database is `db_path` (its meta; `pid` and this host's name
// when the db cannot say). %rank% is 0 for a process outside an MPI or Slurm job.
PatternValues process_pattern_values(const std::string& db_path, int pid);

// o.output_dir (made) and o.output_subdir, o.output_name expanded with `values`; the directory is
// made when missing. False with `message` (one line naming -d or -o) when it cannot be.
bool place_outputs(const Options& o, const PatternValues& values, OutputPlace& place,
                   std::string& message);

// Moves the database `db_path` into `dir` (under a free name unless `force`), unless it is there
// already. Returns its path; on failure its old one, with `message` saying why.
std::string move_db_into(const std::string& db_path, const std::string& dir, bool force,
                         std::string& message);

}  // namespace prof::cli
