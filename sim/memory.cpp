// Allocations: real host memory (copies really copy), registered by range so that frees can be
// checked and hipMemcpyDefault can tell device from host pointers. Host ranges the application
// registers (hipHostRegister) are kept in the same map, as ROCm keeps them with its allocations:
// any address inside one is known to the pointer queries.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

constexpr size_t kAllocationAlignmentBytes = 256;
// From this size an allocation is its own anonymous mapping: the kernel hands out zeroed pages on
// first touch, so a 1 GiB hipMalloc costs a system call, not a 1 GiB memset (30 of a HeCBench
// program's 39 s were that memset), and memory the program never touches is never resident, as
// on a device. Smaller ones come from the heap and are zeroed (deterministic contents, and no
// mapping per 4-byte buffer: the kernel allows 65,530 mappings a process).
constexpr size_t kMappedFromBytes = size_t{1} << 20;

struct Allocation {
  size_t size_bytes;
  int device;
  AllocationKind kind;
  bool mapped;  // mmap'ed (munmap at free), else posix_memalign'ed (free)
};

struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> by_base;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed
  return *r;
}

size_t page_bytes() noexcept {
  static const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

void give_back(void* base, const Allocation& a) noexcept {
  if (a.kind == AllocationKind::kRegistered) return;  // the application's memory
  if (a.mapped) {
    munmap(base, (a.size_bytes + page_bytes() - 1) / page_bytes() * page_bytes());
  } else {
    std::free(base);
  }
}

// Caller holds the registry's mutex. The entry whose range holds `key`, or end().
std::map<uintptr_t, Allocation>::iterator containing(Registry& r, uintptr_t key) {
  auto it = r.by_base.upper_bound(key);
  if (it == r.by_base.begin()) return r.by_base.end();
  it = std::prev(it);
  return key - it->first < it->second.size_bytes ? it : r.by_base.end();
}

}  // namespace

hipError_t allocate(void** out, size_t size, AllocationKind kind) {
  if (out == nullptr) return hipErrorInvalidValue;
  if (device_count() == 0) return hipErrorNoDevice;
  if (size == 0) {
    *out = nullptr;
    return hipSuccess;
  }
  void* p = nullptr;
  const bool mapped = size >= kMappedFromBytes;
  if (mapped) {
    // No MAP_POPULATE: committing at once is the cost this avoids. A first touch inside a
    // worker's copy may make that op late; the model's times do not move, only its completion.
    p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return hipErrorOutOfMemory;
  } else {
    if (posix_memalign(&p, kAllocationAlignmentBytes, size) != 0) return hipErrorOutOfMemory;
    std::memset(p, 0, size);
  }
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.mutex);
    r.by_base[reinterpret_cast<uintptr_t>(p)] = {size, current_device(), kind, mapped};
  }
  *out = p;
  return hipSuccess;
}

// hipFree and hipHostFree are one function in ROCm 5.2 (hipamd's hip_memory.cpp: both return
// ihipFree(ptr)), which frees whatever allocation of the runtime's starts at `ptr`: hipFree of
// hipHostMalloc memory succeeds and frees it, and so does hipHostFree of hipMalloc memory. It
// first waits: for memory in system RAM (hipHostMalloc's fine-grained buffers) on every device's
// null stream, else on the allocation's device, so no queued copy touches freed memory. A pointer
// it did not allocate (a registered host range, an address inside an allocation, a second free)
// is hipErrorInvalidValue.
hipError_t release(void* ptr) {
  if (ptr == nullptr) return hipSuccess;
  int device = 0;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.mutex);
    auto it = r.by_base.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == r.by_base.end() || it->second.kind == AllocationKind::kRegistered) {
      return hipErrorInvalidValue;
    }
    device = it->second.kind == AllocationKind::kHost ? -1 : it->second.device;
  }
  synchronize_device(device);
  Allocation a;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.mutex);
    auto it = r.by_base.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == r.by_base.end() || it->second.kind == AllocationKind::kRegistered) {
      return hipErrorInvalidValue;  // freed meanwhile
    }
    a = it->second;
    r.by_base.erase(it);
  }
  give_back(ptr, a);
  return hipSuccess;
}

// ROCm 5.2 (ihipHostRegister) refuses only a null pointer; a zero size or a range that overlaps
// one the runtime knows would break this map's disjoint ranges, so those are refused here too
// (hipErrorInvalidValue, and hipErrorHostMemoryAlreadyRegistered as CUDA and later HIPs answer).
hipError_t register_host(void* ptr, size_t size) {
  if (ptr == nullptr || size == 0) return hipErrorInvalidValue;
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  if (base + size < base) return hipErrorInvalidValue;
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto next = r.by_base.lower_bound(base);
  const bool overlaps = (next != r.by_base.end() && next->first < base + size) ||
                        containing(r, base) != r.by_base.end();
  if (overlaps) return hipErrorHostMemoryAlreadyRegistered;
  r.by_base[base] = {size, current_device(), AllocationKind::kRegistered, false};
  return hipSuccess;
}

// ROCm 5.2 (ihipHostUnregister) first waits for every device's null stream, then unregisters the
// range holding `ptr`; a pointer in no registered range is hipErrorHostMemoryNotRegistered. (It
// also frees a hipMalloc/hipHostMalloc allocation passed here; the simulator refuses that as not
// registered, which is what the program meant to ask.)
hipError_t unregister_host(void* ptr) {
  if (ptr == nullptr) return hipErrorInvalidValue;
  synchronize_device(-1);
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = containing(r, reinterpret_cast<uintptr_t>(ptr));
  if (it == r.by_base.end() || it->second.kind != AllocationKind::kRegistered) {
    return hipErrorHostMemoryNotRegistered;
  }
  r.by_base.erase(it);
  return hipSuccess;
}

bool find_allocation(const void* ptr, AllocationInfo* out) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = containing(r, reinterpret_cast<uintptr_t>(ptr));
  if (it == r.by_base.end()) return false;
  *out = {reinterpret_cast<void*>(it->first), it->second.size_bytes, it->second.device,
          it->second.kind};
  return true;
}

int device_of_pointer(const void* ptr) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = containing(r, reinterpret_cast<uintptr_t>(ptr));
  if (it == r.by_base.end() || is_host_memory(it->second.kind)) return -1;
  return it->second.device;
}

void free_device_allocations(int device) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  for (auto it = r.by_base.begin(); it != r.by_base.end();) {
    if (it->second.device == device && !is_host_memory(it->second.kind)) {
      give_back(reinterpret_cast<void*>(it->first), it->second);
      it = r.by_base.erase(it);
    } else {
      ++it;
    }
  }
}

void lock_allocations_for_fork() noexcept { registry().mutex.lock(); }
void unlock_allocations_after_fork() noexcept { registry().mutex.unlock(); }

size_t allocated_device_bytes(int device) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  size_t bytes = 0;
  for (const auto& [base, a] : r.by_base)
    if (a.device == device && a.kind == AllocationKind::kDevice) bytes += a.size_bytes;
  return bytes;
}

}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipMalloc(void** ptr, size_t size) {
  return finish(allocate(ptr, size, AllocationKind::kDevice));
}

hipError_t hipFree(void* ptr) { return finish(release(ptr)); }

hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  (void)flags;  // coherence and mapping flags change nothing for memory that is host memory anyway
  return finish(allocate(ptr, size, AllocationKind::kHost));
}

hipError_t hipHostFree(void* ptr) { return finish(release(ptr)); }

hipError_t hipMallocManaged(void** dev_ptr, size_t size, unsigned int flags) {
  if (flags != hipMemAttachGlobal && flags != 0x02 /* hipMemAttachHost */)
    return finish(hipErrorInvalidValue);
  return finish(allocate(dev_ptr, size, AllocationKind::kManaged));
}
