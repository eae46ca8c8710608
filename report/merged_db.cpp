#include "report/merged_db.hpp"

#include <charconv>
#include <cstdio>

#include "db/schema.hpp"
#include "report/runtime_labels.hpp"

namespace prof::report {

namespace {

struct TableShape {
  std::string name;
  std::vector<std::string> columns;  // in schema order
  std::string create_sql;            // the merged table
};

// The merged tables are derived from kCreateSql (the one place the schema is declared): same
// columns and types, process_id first and in the primary key. WITHOUT ROWID keeps each row once,
// in primary-key order, which is the order copy_process appends them in.
const std::vector<TableShape>& table_shapes() {
  static const std::vector<TableShape> shapes = [] {
    Database schema(":memory:", Database::Mode::kCreate);
    schema.exec(schema::kCreateSql);
    std::vector<TableShape> result;
    Statement tables =
        schema.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid");
    while (tables.step()) {
      TableShape shape;
      shape.name = std::string(tables.column_text(0));
      std::string merged_name = shape.name == "meta" ? "process_meta" : shape.name;
      std::string columns = "process_id INTEGER NOT NULL", key = "process_id";
      Statement info = schema.prepare(
          "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid");
      info.bind(1, std::string_view(shape.name));
      while (info.step()) {
        std::string column(info.column_text(0));
        shape.columns.push_back(column);
        columns += ", " + column + " " + std::string(info.column_text(1)) +
                   (info.column_int(2) ? " NOT NULL" : "");
        if (info.column_int(3)) key += ", " + column;
      }
      shape.create_sql = "CREATE TABLE " + merged_name + " (" + columns + ", PRIMARY KEY (" + key +
                         ")) WITHOUT ROWID;\n";
      result.push_back(std::move(shape));
    }
    return result;
  }();
  return shapes;
}

std::string column_list(const TableShape& shape) {
  std::string list;
  for (const std::string& column : shape.columns) list += (list.empty() ? "" : ", ") + column;
  return list;
}

}  // namespace

bool process_order_less(const SourceProcess& a, const SourceProcess& b) {
  if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
  if (a.rank != b.rank) return *a.rank < *b.rank;
  if (a.pid != b.pid) return a.pid < b.pid;
  return a.host_name < b.host_name;
}

bool is_merged_db(Database& db) { return db.table_exists("processes"); }

SourceProcess process_from_meta(Database& db) {
  SourceProcess process;
  Statement st = db.prepare(
      "SELECT key, value FROM meta WHERE key IN ('pid', 'host_name', 'rank', 'command_line')");
  while (st.step()) {
    std::string_view key = st.column_text(0), value = st.column_text(1);
    int64_t number = 0;
    bool numeric =
        !value.empty() && std::from_chars(value.data(), value.data() + value.size(), number).ptr ==
                              value.data() + value.size();
    if (key == "pid" && numeric) process.pid = number;
    if (key == "rank" && numeric) process.rank = number;
    if (key == "host_name") process.host_name = std::string(value);
    if (key == "command_line") process.command_line = std::string(value);
  }
  return process;
}

std::vector<SourceProcess> read_processes(Database& db) {
  if (!is_merged_db(db)) return {process_from_meta(db)};
  std::vector<SourceProcess> processes;
  Statement st = db.prepare(
      "SELECT process_id, pid, host_name, rank, command_line FROM processes ORDER BY process_id");
  while (st.step()) {
    SourceProcess process;
    process.process_id = st.column_int(0);
    process.pid = st.column_int(1);
    process.host_name = std::string(st.column_text(2));
    if (!st.column_is_null(3)) process.rank = st.column_int(3);
    process.command_line = std::string(st.column_text(4));
    processes.push_back(std::move(process));
  }
  return processes;
}

void create_merged_schema(Database& db) {
  std::string sql =
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
      "CREATE TABLE processes (process_id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, host_name "
      "TEXT NOT NULL,"
      " rank INTEGER, command_line TEXT NOT NULL, source_file TEXT NOT NULL);\n";
  for (const TableShape& shape : table_shapes()) sql += shape.create_sql;
  db.exec(sql);
}

void copy_process(Database& db, const std::string& source_schema, const SourceProcess& process,
                  const std::string& source_file) {
  // A version-1 source has no runtimes table and no api_names.runtime_id: read it through views.
  const bool v1 = schema_version(db, source_schema) < 2;
  if (v1) present_as_current(db, source_schema, source_schema + "_v1_");
  Statement insert = db.prepare(
      "INSERT INTO main.processes (process_id, pid, host_name, rank, command_line, source_file)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  insert.bind(1, process.process_id)
      .bind(2, process.pid)
      .bind(3, std::string_view(process.host_name));
  if (process.rank)
    insert.bind(4, *process.rank);
  else
    insert.bind_null(4);
  insert.bind(5, std::string_view(process.command_line)).bind(6, std::string_view(source_file));
  insert.run();
  auto source_table = [&](const std::string& table) {
    if (v1 && (table == "runtimes" || table == "api_names" || table == "streams"))
      return "temp." + source_schema + "_v1_" + table;
    return source_schema + "." + table;
  };
  for (const TableShape& shape : table_shapes()) {
    std::string columns = column_list(shape);
    std::string merged_name = shape.name == "meta" ? "process_meta" : shape.name;
    if (!v1 || (shape.name != "runtimes" && shape.name != "api_names" && shape.name != "streams")) {
      // A table newer than the source (api_args before schema 3) has no rows to copy.
      Statement exists = db.prepare("SELECT 1 FROM " + source_schema +
                                    ".sqlite_master WHERE type = 'table' AND name = ?1");
      exists.bind(1, std::string_view(shape.name));
      if (!exists.step()) continue;
    }
    // Sorted by the source's primary key, so each row lands at the end of the merged b-tree.
    Statement copy =
        db.prepare("INSERT INTO main." + merged_name + " (process_id, " + columns +
                   ") SELECT ?1, " + columns + " FROM " + source_table(shape.name) + " ORDER BY 2");
    copy.bind(1, process.process_id);
    copy.run();
  }
  apply_clock_offset(db, source_schema, process.process_id);
}

void apply_clock_offset(Database& db, const std::string& source_schema, int64_t process_id) {
  // Measured at MPI_Init and MPI_Finalize (interpose/mpi_clock.cpp): the mean of what there is.
  Statement st =
      db.prepare("SELECT value FROM " + source_schema +
                 ".meta WHERE key IN ('clock_offset_init_ns', 'clock_offset_finalize_ns')");
  int64_t sum = 0, count = 0;
  while (st.step()) {
    long long value = 0;
    if (std::sscanf(std::string(st.column_text(0)).c_str(), "%lld", &value) == 1) {
      sum += value;
      ++count;
    }
  }
  const int64_t offset = count ? sum / count : 0;
  if (offset == 0) return;
  // Every time the process recorded, in every table that holds one, moves by the offset.
  struct Shifted {
    const char* table;
    const char* columns[2];  // the second may be absent (nullptr)
  };
  static const Shifted kShifted[] = {{"api_calls", {"begin_ns", "end_ns"}},
                                     {"kernels", {"device_begin_ns", "device_end_ns"}},
                                     {"copies", {"device_begin_ns", "device_end_ns"}},
                                     {"threads", {"created_ns"}},
                                     {"markers", {"begin_ns", "end_ns"}},
                                     {"capture_windows", {"begin_ns", "end_ns"}}};
  const std::string id = std::to_string(process_id), by = std::to_string(offset);
  std::string sql;
  for (const Shifted& shifted : kShifted) {
    sql += std::string("UPDATE main.") + shifted.table + " SET ";
    const char* separator = "";
    for (const char* column : shifted.columns) {
      if (!column) continue;
      sql += std::string(separator) + column + " = " + column + " + " + by;
      separator = ", ";
    }
    sql += " WHERE process_id = " + id + ";";
  }
  sql += "UPDATE main.process_meta SET value = CAST(CAST(value AS INTEGER) + " + by +
         " AS TEXT) WHERE process_id = " + id + " AND key IN ('start_ns', 'end_ns');";
  sql += "INSERT OR REPLACE INTO main.process_meta (process_id, key, value) VALUES (" + id +
         ", 'clock_offset_applied_ns', '" + by + "');";
  db.exec(sql);
}

void finish_merged_db(Database& db, int64_t process_count, const std::string& prof_version) {
  Statement st = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)");
  st.bind(1, std::string_view("schema_version"))
      .bind(2, std::string_view(std::to_string(schema::kSchemaVersion)));
  st.run();
  st.bind(1, std::string_view("prof_version")).bind(2, std::string_view(prof_version));
  st.run();
  st.bind(1, std::string_view("merged_processes"))
      .bind(2, std::string_view(std::to_string(process_count)));
  st.run();
  db.exec("CREATE INDEX api_calls_sequence ON api_calls (process_id, sequence);");
}

void select_process(Database& db, int64_t process_id) {
  if (process_id == 0) return;
  // process_id is our own integer, not data: views cannot take bound parameters.
  std::string id = std::to_string(process_id), sql;
  for (const TableShape& shape : table_shapes()) {
    std::string merged_name = shape.name == "meta" ? "process_meta" : shape.name;
    if (!db.table_exists(merged_name)) continue;  // a merged db of an older schema (no api_args)
    sql += "DROP VIEW IF EXISTS temp." + shape.name + ";\nCREATE TEMP VIEW " + shape.name +
           " AS SELECT " + column_list(shape) + " FROM main." + merged_name +
           " WHERE process_id = " + id + ";\n";
  }
  db.exec(sql);
}

}  // namespace prof::report
