#include "report/runtime_labels.hpp"

#include <algorithm>
#include <cstdio>

#include "runtimes/runtimes.hpp"

namespace prof::report {

std::vector<RuntimeLabels> read_runtimes(Database& db) {
  std::vector<RuntimeLabels> runtimes;
  Statement st = db.prepare(
      "SELECT runtime_id, name, api_title, stream_label, device_label, api_csv_stem FROM runtimes "
      "ORDER BY runtime_id");
  while (st.step())
    runtimes.push_back({st.column_int(0), std::string(st.column_text(1)),
                        std::string(st.column_text(2)), std::string(st.column_text(3)),
                        std::string(st.column_text(4)), std::string(st.column_text(5))});
  return runtimes;
}

void add_runtimes(std::vector<RuntimeLabels>& into, const std::vector<RuntimeLabels>& more) {
  for (const RuntimeLabels& r : more)
    if (std::none_of(into.begin(), into.end(),
                     [&](const RuntimeLabels& x) { return x.runtime_id == r.runtime_id; }))
      into.push_back(r);
  std::sort(into.begin(), into.end(), [](const RuntimeLabels& a, const RuntimeLabels& b) {
    return a.runtime_id < b.runtime_id;
  });
}

TimelineLabels timeline_labels(const std::vector<RuntimeLabels>& runtimes) {
  if (runtimes.empty()) return {};
  auto join = [&](std::string RuntimeLabels::*field) {
    std::vector<std::string> seen;
    // A runtime without devices (MPI) has empty labels and names no lane.
    for (const RuntimeLabels& r : runtimes)
      if (!(r.*field).empty() && std::find(seen.begin(), seen.end(), r.*field) == seen.end())
        seen.push_back(r.*field);
    std::string text;
    for (const std::string& s : seen) text += (text.empty() ? "" : "/") + s;
    return text;
  };
  TimelineLabels labels{join(&RuntimeLabels::stream_label), join(&RuntimeLabels::device_label)};
  if (labels.stream.empty()) labels.stream = TimelineLabels{}.stream;
  if (labels.device.empty()) labels.device = TimelineLabels{}.device;
  return labels;
}

int64_t schema_version(Database& db, const std::string& schema) {
  Statement st = db.prepare("SELECT value FROM " + schema + ".meta WHERE key = 'schema_version'");
  long long version = 1;
  if (st.step() && std::sscanf(std::string(st.column_text(0)).c_str(), "%lld", &version) == 1)
    return version;
  return 1;
}

void present_as_current(Database& db, const std::string& schema, const std::string& prefix) {
  // schema and prefix are prof's own identifiers ("main", "source"), never data.
  const RuntimeDescription& hip = *kRuntimeDescriptions[static_cast<size_t>(RuntimeId::kHip)];
  db.exec("DROP TABLE IF EXISTS temp." + prefix + "runtimes; DROP VIEW IF EXISTS temp." + prefix +
          "api_names; DROP VIEW IF EXISTS temp." + prefix + "streams;");
  db.exec("CREATE TEMP TABLE " + prefix +
          "runtimes (runtime_id INTEGER PRIMARY KEY, name TEXT NOT NULL, api_title TEXT NOT NULL,"
          " stream_label TEXT NOT NULL, device_label TEXT NOT NULL, api_csv_stem TEXT NOT NULL);"
          "CREATE TEMP VIEW " +
          prefix + "api_names AS SELECT api_id, name, " + std::to_string(static_cast<int>(hip.id)) +
          " AS runtime_id FROM " + schema + ".api_names;" + "CREATE TEMP VIEW " + prefix +
          "streams AS SELECT stream_index, stream_handle, device, " +
          std::to_string(static_cast<int>(hip.id)) + " AS runtime_id FROM " + schema + ".streams;");
  Statement insert =
      db.prepare("INSERT INTO temp." + prefix +
                 "runtimes (runtime_id, name, api_title, stream_label, device_label, api_csv_stem)"
                 " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  insert.bind(1, static_cast<int64_t>(hip.id))
      .bind(2, hip.name)
      .bind(3, hip.api_title)
      .bind(4, hip.stream_label);
  insert.bind(5, hip.device_label).bind(6, hip.api_csv_stem).run();
}

}  // namespace prof::report
