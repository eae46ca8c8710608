// The runtimes a database holds and their words, read from its `runtimes` table: the report names
// no runtime itself. A version-1 database (HIP only, before the table existed) is presented as a
// version-2 one by present_as_current().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"

namespace prof::report {

struct RuntimeLabels {
  int64_t runtime_id = 0;
  std::string name;          // "hip"
  std::string api_title;     // "HIP API"
  std::string stream_label;  // "Stream"
  std::string device_label;  // "Device"
  std::string api_csv_stem;  // "hiptrace"
};

// The (selected process's) runtimes, by runtime_id.
std::vector<RuntimeLabels> read_runtimes(Database& db);
// Runtimes of several processes, each once, by runtime_id.
void add_runtimes(std::vector<RuntimeLabels>& into, const std::vector<RuntimeLabels>& more);

// The words a timeline uses for device lanes: the runtimes' labels, distinct ones joined with '/'
// ("Stream", or "Stream/Queue" in a process that used two kinds of runtime).
struct TimelineLabels {
  std::string stream = "Stream";
  std::string device = "Device";
};
TimelineLabels timeline_labels(const std::vector<RuntimeLabels>& runtimes);

// The schema version in `schema`.meta (1 when the key is missing or unreadable).
int64_t schema_version(Database& db, const std::string& schema = "main");
// Makes a version-1 database in `schema` readable as version 2 through temp objects named
// <prefix>runtimes, <prefix>api_names and <prefix>streams (prefix "" shadows main's own tables): a
// version-1 database is a HIP process's, written before the runtimes table existed.
void present_as_current(Database& db, const std::string& schema, const std::string& prefix);

}  // namespace prof::report
