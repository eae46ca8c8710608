// Test driver for report/host_memory: prints what read_host_copies finds in one process's db, one
// line per copy call in call order, in the form test/apps/host_copies prints what it did:
//
//   host_memory_tool DB   ->   COPY <runtime> <H2D|D2H> <host pointer> <bytes> <pinned|pageable>
//
// A copy of another direction prints its direction's number.
#include <cstdio>
#include <exception>
#include <string>

#include "db/sqlite_db.hpp"
#include "report/host_memory.hpp"
#include "runtimes/runtimes.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: host_memory_tool DB\n");
    return 2;
  }
  try {
    prof::Database db(argv[1], prof::Database::Mode::kReadOnly);
    for (const prof::report::HostCopy& c : prof::report::read_host_copies(db)) {
      const prof::ApiInfo* api = prof::find_api(static_cast<uint16_t>(c.api_id));
      const std::string runtime =
          api ? std::string(prof::kRuntimeNames[static_cast<size_t>(api->runtime)]) : "?";
      const std::string direction = c.direction == 1   ? "H2D"
                                    : c.direction == 2 ? "D2H"
                                                       : std::to_string(c.direction);
      std::printf("COPY %s %s %llu %lld %s\n", runtime.c_str(), direction.c_str(),
                  static_cast<unsigned long long>(c.host_ptr), static_cast<long long>(c.bytes),
                  c.pinned ? "pinned" : "pageable");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "host_memory_tool: %s\n", e.what());
    return 3;
  }
  return 0;
}
