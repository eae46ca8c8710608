// The prof database schema: the one place it is declared. docs/schema.md explains every column.
// All times are nanoseconds of the host's CLOCK_MONOTONIC (see clock.hpp); device times have
// already been converted to that clock. Bump kSchemaVersion on any change and keep readers able to
// read every older version.
#pragma once
#include <string_view>

namespace prof::schema {

// 2: the runtimes table, api_names.runtime_id and streams.runtime_id (several runtimes per
// database). 3: the api_args table (named integer arguments of a call: MPI's peer, tag, comm_size).
// 4: the markers table (roctx/mstx marks and ranges, --hiptx-trace) and capture_windows
// (--trace-start
//    off, --delay, --duration).
// 5: api_calls.correlation_id numbered by the collector in arrival order (1, 2, ...), which is call
//    order: sequence = correlation_id and no api_calls_sequence index, unless some call arrived out
//    of order (then sequence is renumbered and indexed, as before). Readers: report/report_db.hpp
//    calls_numbered_by_id().
// 6: the kernel_symbols table (the mangled symbol of each kernel name the collector demangled, for
//    --mangled-kernels); older databases have none and show their names as stored.
inline constexpr int kSchemaVersion = 6;

inline constexpr std::string_view kCreateSql = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE runtimes (
  runtime_id   INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  api_title    TEXT NOT NULL,
  stream_label TEXT NOT NULL,
  device_label TEXT NOT NULL,
  api_csv_stem TEXT NOT NULL
);
CREATE TABLE api_names (
  api_id     INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  runtime_id INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE strings (
  string_id INTEGER PRIMARY KEY,
  value     TEXT NOT NULL UNIQUE
);
CREATE TABLE copy_directions (
  direction INTEGER PRIMARY KEY,
  name      TEXT NOT NULL
);
CREATE TABLE threads (
  thread_id    INTEGER PRIMARY KEY,
  thread_index INTEGER NOT NULL,
  created_ns   INTEGER NOT NULL
);
CREATE TABLE streams (
  stream_index  INTEGER PRIMARY KEY,
  stream_handle INTEGER NOT NULL,
  device        INTEGER NOT NULL,
  runtime_id    INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE api_calls (
  correlation_id INTEGER PRIMARY KEY,
  sequence       INTEGER,
  api_id         INTEGER NOT NULL,
  thread_id      INTEGER NOT NULL,
  begin_ns       INTEGER NOT NULL,
  end_ns         INTEGER NOT NULL,
  result         INTEGER NOT NULL,
  stream_index   INTEGER,
  device         INTEGER NOT NULL,
  bytes          INTEGER NOT NULL,
  aux            INTEGER NOT NULL
);
CREATE TABLE kernels (
  correlation_id   INTEGER PRIMARY KEY,
  name_id          INTEGER,
  function_address INTEGER NOT NULL,
  device           INTEGER NOT NULL,
  stream_index     INTEGER NOT NULL,
  grid_x           INTEGER NOT NULL,
  grid_y           INTEGER NOT NULL,
  grid_z           INTEGER NOT NULL,
  block_x          INTEGER NOT NULL,
  block_y          INTEGER NOT NULL,
  block_z          INTEGER NOT NULL,
  shared_mem_bytes INTEGER NOT NULL,
  device_begin_ns  INTEGER,
  device_end_ns    INTEGER
);
CREATE TABLE copies (
  correlation_id  INTEGER PRIMARY KEY,
  device          INTEGER NOT NULL,
  stream_index    INTEGER NOT NULL,
  direction       INTEGER NOT NULL,
  bytes           INTEGER NOT NULL,
  device_begin_ns INTEGER,
  device_end_ns   INTEGER
);
CREATE TABLE drops (
  cause TEXT PRIMARY KEY,
  count INTEGER NOT NULL
);
CREATE TABLE api_args (
  correlation_id INTEGER NOT NULL,
  name           TEXT NOT NULL,
  value          INTEGER NOT NULL,
  PRIMARY KEY (correlation_id, name)
);
CREATE TABLE markers (
  marker_id     INTEGER PRIMARY KEY,
  kind          TEXT NOT NULL,
  message       TEXT NOT NULL,
  source        TEXT NOT NULL,
  thread_id     INTEGER NOT NULL,
  begin_ns      INTEGER NOT NULL,
  end_ns        INTEGER,
  level         INTEGER,
  range_id      INTEGER,
  end_thread_id INTEGER,
  open_at_exit  INTEGER NOT NULL DEFAULT 0,
  stream_handle INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE capture_windows (
  window_index INTEGER PRIMARY KEY,
  begin_ns     INTEGER NOT NULL,
  end_ns       INTEGER NOT NULL,
  started_by   TEXT NOT NULL,
  stopped_by   TEXT NOT NULL
);
CREATE TABLE kernel_symbols (
  string_id INTEGER PRIMARY KEY,
  symbol    TEXT NOT NULL
);
)sql";

// Filled once, when the database is created.
inline constexpr std::string_view kCopyDirectionsSql = R"sql(
INSERT INTO copy_directions (direction, name) VALUES
  (0, 'H2H'), (1, 'H2D'), (2, 'D2H'), (3, 'D2D'), (4, 'Default'), (5, 'P2P'), (6, 'Memset'), (7, 'Unknown');
)sql";

// Written when the run ends: sequence numbers follow call order (begin time, then thread, then
// the thread's own order), 1, 2, 3, ...
inline constexpr std::string_view kAssignSequenceSql = R"sql(
UPDATE api_calls SET sequence = ordered.seq FROM (
  SELECT correlation_id, ROW_NUMBER() OVER (ORDER BY begin_ns, thread_id, correlation_id) AS seq FROM api_calls
) AS ordered WHERE api_calls.correlation_id = ordered.correlation_id;
)sql";

// Only when finalize() renumbered the calls (some arrived out of call order). Otherwise each
// call's correlation id is its sequence number, and call order is api_calls' rowid order.
inline constexpr std::string_view kSequenceIndexSql = R"sql(
CREATE INDEX IF NOT EXISTS api_calls_sequence ON api_calls (sequence);
)sql";

inline constexpr std::string_view kIndexSql = R"sql(
CREATE INDEX IF NOT EXISTS markers_thread ON markers (thread_id, begin_ns);
)sql";

}  // namespace prof::schema
