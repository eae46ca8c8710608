// What the collector's two threads share about the run directory's files and their pace
// (collector/builder.cpp and collector/mover.cpp).
#pragma once
#include <cstdint>
#include <string>

namespace prof::collector {

// A mover or builder cycle that took at least this many records means some thread is making calls
// fast.
inline constexpr uint64_t kBusyRecords = 1024;

// "<pid>.<image>.<thread index>.<suffix>" (tid given) or "<pid>.<image>.<suffix>": the names of a
// run directory's files (.buf, .info, .maps, .lost, .capture) and of the journals (.jrnl).
bool parse_name(const std::string& name, const char* suffix, int& pid, uint64_t& image, int* tid);

}  // namespace prof::collector
