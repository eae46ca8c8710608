// Host memory of host<->device copies: for each copy call of one process's db, whether its host
// side was pinned (page-locked) when the call began. Real devices copy asynchronously only from
// and to pinned memory; an async copy from pageable memory is staged and returns only once the
// copy is done, so the finding "async copy of pageable memory" reads this.
//
// Pinned memory is what the descriptions (runtimes/runtime_description.hpp) say pins it: a
// pinned allocation (MemoryCall kAllocHost, freed by the same runtime's kFree of its pointer) or
// a registered range (PinCall kRegister, ended by kUnregister of its start). The host pointer is
// the call's api_args `host_ptr` (recorded for H2D and D2H copies only; docs/schema.md).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "db/sqlite_db.hpp"

namespace prof::report {

struct HostCopy {
  int64_t correlation_id = 0;
  std::optional<int64_t> sequence;  // call order (null in a db whose calls were never numbered)
  int64_t api_id = 0;
  int64_t direction = 0;  // CopyDirection (common/record.hpp): 1 H2D or 2 D2H
  int64_t bytes = 0;
  uint64_t host_ptr = 0;
  int64_t begin_ns = 0, end_ns = 0;                       // the call, host clock
  std::optional<int64_t> device_begin_ns, device_end_ns;  // the copy on the device, if timed
  // [host_ptr, host_ptr + bytes) lies inside one pinned allocation or registered range that was
  // live when the call began: allocated or registered by a call that had returned, and not yet
  // freed or unregistered by a call that had begun. Ranges of any runtime count (the memory is
  // page-locked whoever locked it).
  bool pinned = false;
};

// Every successful copy call with a recorded host pointer, in call order (begin time). Empty for
// a db without api_args (schema < 3) or recorded before prof kept host pointers.
std::vector<HostCopy> read_host_copies(Database& db);

}  // namespace prof::report
