// `prof --db-merge DIR`: every prof database in a directory merged into one database
// (report/merged_db.hpp) and one set of reports over all their processes.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace prof::report {

struct MergeOptions {
  std::string input_dir;
  bool recursive = false;    // also look in subdirectories (never through symlinked ones)
  std::string prof_version;  // written to the merged db's meta
  // true: a db that cannot be merged (corrupt, truncated, not readable) is skipped and named in
  // the result's warnings; false (--strict): it fails the merge.
  bool skip_bad = true;
};

// The prof databases in `dir` (any regular file whose meta says it is a single-process prof db;
// merged dbs, other SQLite files and non-SQLite files are skipped), sorted by path. Throws
// ReportMissingInput when `dir` does not exist, ReportError when a prof db there is damaged.
// With `skipped`, a damaged db is listed there ("<path>: <why>") instead of throwing.
std::vector<std::string> find_prof_dbs(const std::string& dir, bool recursive,
                                       std::vector<std::string>* skipped = nullptr);

// Writes <base>.db (the merged database) and the reports of write_reports over it, all or
// nothing. Sources are ordered by rank, pid and host (then path), so the result does not depend
// on file names or directory order. Throws like write_reports; ReportMissingInput when `dir`
// holds no prof database.
ReportResult merge_reports(const MergeOptions& merge, const ReportOptions& opt,
                           std::FILE* summary_out);

}  // namespace prof::report
