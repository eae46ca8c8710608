// The merged database (`prof --db-merge`): the tables of db/schema.hpp, each with a leading
// `process_id` column, plus `processes` (one row per source db) and `process_meta` (each source's
// meta table). The report reads it one process at a time through temp views that carry the
// schema's own table names, so every query written for a single-process db runs unchanged.
// docs/formats.md ("Merged database") documents it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"

namespace prof::report {

// One source process of a report: the only one of a single db, or one row of `processes`.
struct SourceProcess {
  int64_t process_id = 0;  // processes.process_id; 0 for a single-process db
  int64_t pid = 0;
  std::string host_name;
  std::optional<int64_t> rank;  // MPI rank, when the source's meta has a numeric 'rank'
  std::string command_line;
};

// The viewer's (and the merged db's) order: ranked processes by rank, then the rest; then pid,
// host name. Ties keep their input order (the caller sorts its input by file name first).
bool process_order_less(const SourceProcess& a, const SourceProcess& b);

bool is_merged_db(Database& db);

// The merged db's processes, in process_id order; a single db's one process (from its meta).
std::vector<SourceProcess> read_processes(Database& db);

// A source's process description from its meta table.
SourceProcess process_from_meta(Database& db);

// Creates the merged schema in `db` (empty, writable).
void create_merged_schema(Database& db);

// Appends the source db attached as `source_schema` under `process_id`. Columns are copied by
// name, so an older source schema with the same columns copies as well.
void copy_process(Database& db, const std::string& source_schema, const SourceProcess& process,
                  const std::string& source_file);

// Adds the rank's measured offset to rank 0's clock (meta clock_offset_{init,finalize}_ns, their
// mean; --mpi-trace) to every time of the copied process, so ranks on different hosts share one
// timeline; records it as process meta clock_offset_applied_ns. Nothing when none was measured.
void apply_clock_offset(Database& db, const std::string& source_schema, int64_t process_id);
// Records how many processes the merged db holds (its meta); called once, after every copy_process.
void finish_merged_db(Database& db, int64_t process_count, const std::string& prof_version);

// Points the schema's table names at one process of a merged db (temp views shadow main's
// tables); select(0) on a single db does nothing.
void select_process(Database& db, int64_t process_id);

}  // namespace prof::report
