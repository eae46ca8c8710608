// The memory view: from the sizes and pointers the hooks record for allocation calls (each
// runtime's description lists them: runtimes/runtime_description.hpp, MemoryCall), the memory in
// use over time per device and kind, its peak, and allocation statistics. Reads api_calls in end
// order; memory is the live allocations only, never the calls. docs/formats.md, "Memory".
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/text_sink.hpp"

namespace prof::report {

enum class MemoryKind { kDevice, kManaged, kHost };
const char* memory_kind_name(MemoryKind kind);  // "device", "managed", "host (pinned)"

// One series: device memory of device N, managed memory of device N, or pinned host memory (device
// -1).
struct MemorySeries {
  MemoryKind kind = MemoryKind::kDevice;
  int64_t device = -1;
  int64_t peak_bytes = 0;
  int64_t peak_ns = 0;
  int64_t final_bytes = 0;  // still allocated when the process ended (never freed)
  int64_t allocations = 0, frees = 0;
};

// Per allocation or release function.
struct AllocationStats {
  std::string runtime, name, role;  // role: "alloc device", "alloc host", "alloc managed", "free"
  int64_t calls = 0, failed = 0, bytes = 0, largest = 0;
};

struct MemoryReport {
  std::vector<MemorySeries> series;          // by kind, then device
  std::vector<AllocationStats> allocations;  // by runtime, then name
  bool empty() const { return allocations.empty(); }
};

// Each change of a series' bytes in use, in time order: (series, time, bytes now).
using MemoryChange = std::function<void(const MemorySeries& series, int64_t at_ns, int64_t bytes)>;

// The (selected process's) memory view; `on_change` sees every change as it happens.
MemoryReport read_memory(Database& db, const MemoryChange& on_change = {});
// Several processes' reports as one: series of one kind and device add their peaks (an upper
// bound of the combined peak) and final bytes; statistics of one function add up.
MemoryReport merge_memory_reports(std::vector<MemoryReport> reports);

// <base>.memory_stats.csv: a row per allocation function, then a row per series (peak).
void write_memory_csv(const MemoryReport& report, TextSink& out);

}  // namespace prof::report
