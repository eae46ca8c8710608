// The simulator's own code and data are made resident when the library loads. A device starts a
// copy when the runtime hands it over, not when the simulator's code for that call has been paged
// in: without this, the first call of each kind paid a few microseconds of page faults inside the
// simulated runtime before its op was submitted, and the modelled device began that much late
// (docs/sim.md, "Timing"). About 40 pages per face, touched once.
#include <link.h>

#include <cstdint>

namespace prof::sim {
namespace {

// Reads raw pages, globals' redzones included: not for AddressSanitizer to check.
__attribute__((no_sanitize("address"))) int touch_own_segments(dl_phdr_info* info, size_t,
                                                               void* self) {
  const auto here = reinterpret_cast<uintptr_t>(self);
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum && !mine; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    mine = ph.p_type == PT_LOAD && here >= begin && here < begin + ph.p_memsz;
  }
  if (!mine) return 0;
  constexpr uintptr_t kPage = 4096;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_R) == 0) continue;
    const uintptr_t begin = (info->dlpi_addr + ph.p_vaddr) & ~(kPage - 1);
    const uintptr_t end = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    for (uintptr_t page = begin; page < end; page += kPage)
      (void)*reinterpret_cast<const volatile char*>(page);
  }
  return 1;
}

__attribute__((constructor)) void make_resident() {
  dl_iterate_phdr(touch_own_segments, reinterpret_cast<void*>(&make_resident));
}

}  // namespace
}  // namespace prof::sim
