// libFuzzer: arbitrary bytes as a database file given to the report (--db). The reader must
// refuse what it cannot use with a ReportError and never crash, hang or read out of bounds.
#include <cstdint>
#include <fstream>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = prof::fuzz::scratch_dir() + "/input.db";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  prof::fuzz::run_report(path, size % 2 == 0);
  return 0;
}
