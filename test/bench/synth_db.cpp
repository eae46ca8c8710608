// Benchmark input, not a test: writes a synthetic prof database of N events (API calls, kernels
// and copies in the proportions of a typical stream-heavy HIP program) with the schema of
// db/schema.hpp, finished as the collector finishes one whose calls arrived in order
// (correlation id = sequence number, no sequence index).
//
//   synth_db OUT.db EVENTS [PID] [NAMES]
//
// Per group of 7 events: 4 API calls (two hipLaunchKernel, one hipMemcpyAsync, one
// hipStreamSynchronize every 4th group else hipGetLastError), 2 kernels and 1 copy: 57% API
// calls, 29% kernels, 14% copies. Two threads, four streams, NAMES distinct mangled kernel names
// (default 24; the report's memory per distinct name is measured with NAMES = kernels).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "db/schema.hpp"
#include "db/sqlite_db.hpp"

namespace {

constexpr int kApiLaunch = 1, kApiMemcpyAsync = 2, kApiSynchronize = 3, kApiGetLastError = 4;

// The meta rows, the runtime, kernel names, threads and streams of the synthetic run.
void write_header(prof::Database& db, prof::Statement& meta, long long pid, int64_t events,
                  int64_t names) {
  auto set_meta = [&](const char* key, const std::string& value) {
    meta.bind(1, std::string_view(key)).bind(2, std::string_view(value)).run();
  };
  set_meta("schema_version", std::to_string(prof::schema::kSchemaVersion));
  set_meta("prof_version", "bench");
  set_meta("runtime", "hip");
  set_meta("pid", std::to_string(pid));
  set_meta("host_name", "benchhost");
  set_meta("command_line", "./synthetic " + std::to_string(events));
  set_meta("start_ns", "1000000000");
  set_meta("clock", "CLOCK_MONOTONIC");
  db.exec(
      "INSERT INTO runtimes VALUES (0, 'hip', 'HIP API', 'Stream', 'Device', 'hiptrace');"
      "INSERT INTO api_names (api_id, name) VALUES (1, 'hipLaunchKernel'), (2, 'hipMemcpyAsync'),"
      " (3, 'hipStreamSynchronize'), (4, 'hipGetLastError');"
      "INSERT INTO threads VALUES (101, 0, 999999000), (102, 1, 999999500);"
      "INSERT INTO streams (stream_index, stream_handle, device) VALUES (1, 4096, 0), (2, 8192, 0),"
      " (3, 12288, 0), (4, 16384, 0);");
  prof::Statement name = db.prepare("INSERT INTO strings (string_id, value) VALUES (?1, ?2)");
  for (int64_t i = 1; i <= names; ++i)
    // _Z<length>kernel_<i>PfPKfi, as __hipRegisterFunction stores it: the report demangles each
    // name to kernel_<i>(float*, float const*, int), as it does a real program's.
    name.bind(1, i)
        .bind(2, std::string_view("_Z" + std::to_string(7 + std::to_string(i).size()) + "kernel_" +
                                  std::to_string(i) + "PfPKfi"))
        .run();
}

// EVENTS rows of calls, kernels and copies on two threads and four streams; returns the last call's
// end.
int64_t write_events(prof::Database& db, int64_t events, int64_t names) {
  prof::Statement api =
      db.prepare("INSERT INTO api_calls VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, 0, ?8, 0)");
  prof::Statement kernel =
      db.prepare("INSERT INTO kernels VALUES (?1, ?2, ?3, 0, ?4, 256, 1, 1, 256, 1, 1, 0, ?5, ?6)");
  prof::Statement copy = db.prepare("INSERT INTO copies VALUES (?1, 0, ?2, 1, 65536, ?3, ?4)");
  int64_t written = 0, sequence = 0, correlation = 0;
  int64_t t = 1000000000, device_t = 1000000000;
  for (int64_t group = 0; written < events; ++group) {
    const int thread = 101 + static_cast<int>(group % 2);
    const int stream = 1 + static_cast<int>(group % 4);
    auto call = [&](int api_id, int64_t duration, bool has_stream, int64_t bytes) {
      ++correlation;
      api.bind(1, correlation)
          .bind(2, ++sequence)
          .bind(3, api_id)
          .bind(4, thread)
          .bind(5, t)
          .bind(6, t + duration);
      if (has_stream)
        api.bind(7, stream);
      else
        api.bind_null(7);
      api.bind(8, bytes).run();
      t += duration + 150;
      ++written;
      return correlation;
    };
    for (int k = 0; k < 2 && written < events; ++k) {
      int64_t id = call(kApiLaunch, 900 + group % 7 * 40, true, 0);
      if (written >= events) break;
      device_t = std::max(device_t, t) + 500;
      int64_t length = 4000 + (group * 13 + k * 101) % 3000;
      kernel.bind(1, id)
          .bind(2, 1 + (group * 2 + k) % names)
          .bind(3, 0xdead0000 + k)
          .bind(4, stream);
      kernel.bind(5, device_t).bind(6, device_t + length).run();
      device_t += length;
      ++written;
    }
    if (written < events) {
      int64_t id = call(kApiMemcpyAsync, 1200, true, 65536);
      if (written < events) {
        copy.bind(1, id).bind(2, stream).bind(3, device_t + 200).bind(4, device_t + 5400).run();
        device_t += 5600;
        ++written;
      }
    }
    if (written < events)
      call(group % 4 == 3 ? kApiSynchronize : kApiGetLastError, group % 4 == 3 ? 9000 : 80,
           group % 4 == 3, 0);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: synth_db OUT.db EVENTS [PID] [NAMES]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int64_t events = std::atoll(argv[2]);
  const long long pid = argc > 3 ? std::atoll(argv[3]) : 4242;
  const int64_t names = argc > 4 ? std::max(1LL, std::atoll(argv[4])) : 24;
  ::unlink(path.c_str());
  try {
    prof::Database db(path, prof::Database::Mode::kCreate);
    db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
    db.exec(prof::schema::kCreateSql);
    db.exec(prof::schema::kCopyDirectionsSql);
    db.exec("BEGIN");
    prof::Statement meta = db.prepare("INSERT INTO meta (key, value) VALUES (?1, ?2)");
    write_header(db, meta, pid, events, names);
    const int64_t t = write_events(db, events, names);
    db.exec("INSERT INTO drops VALUES ('buffer_full', 0)");
    meta.bind(1, std::string_view("end_ns")).bind(2, std::string_view(std::to_string(t))).run();
    db.exec("COMMIT");
    db.exec(prof::schema::kIndexSql);
  } catch (const prof::DbError& e) {
    std::fprintf(stderr, "synth_db: %s\n", e.what());
    return 1;
  }
  return 0;
}
