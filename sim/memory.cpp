// Allocations: real host memory (copies really copy), registered by range so that frees can be
// checked and hipMemcpyDefault can tell device from host pointers.
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

constexpr size_t kAllocationAlignmentBytes = 256;

struct Allocation {
  size_t size_bytes;
  int device;
  AllocationKind kind;
};

struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> by_base;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed
  return *r;
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
  if (posix_memalign(&p, kAllocationAlignmentBytes, size) != 0) return hipErrorOutOfMemory;
  // Commit the pages now, as a device allocation would: a first-touch page fault inside a
  // worker's copy would make it late, and its faults hold the mmap lock that thread creation
  // (a new stream's worker) needs.
  std::memset(p, 0, size);
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.mutex);
    r.by_base[reinterpret_cast<uintptr_t>(p)] = {size, current_device(), kind};
  }
  *out = p;
  return hipSuccess;
}

// Like HIP, a free first waits for the device's work, so no queued copy touches freed memory.
hipError_t release(void* ptr, bool host) {
  if (ptr == nullptr) return hipSuccess;
  int device = 0;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.mutex);
    auto it = r.by_base.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == r.by_base.end() || (it->second.kind == AllocationKind::kHost) != host) return hipErrorInvalidValue;
    device = it->second.device;
  }
  synchronize_device(device);
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> guard(r.mutex);
    if (r.by_base.erase(reinterpret_cast<uintptr_t>(ptr)) == 0) return hipErrorInvalidValue;  // freed meanwhile
  }
  std::free(ptr);
  return hipSuccess;
}

bool find_allocation(const void* ptr, AllocationInfo* out) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  const auto key = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.by_base.upper_bound(key);
  if (it == r.by_base.begin()) return false;
  it = std::prev(it);
  if (key - it->first >= it->second.size_bytes) return false;
  *out = {reinterpret_cast<void*>(it->first), it->second.size_bytes, it->second.device, it->second.kind};
  return true;
}

int device_of_pointer(const void* ptr) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  const auto key = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.by_base.upper_bound(key);
  if (it == r.by_base.begin()) return -1;
  it = std::prev(it);
  if (key - it->first >= it->second.size_bytes || it->second.kind == AllocationKind::kHost) return -1;
  return it->second.device;
}

void free_device_allocations(int device) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  for (auto it = r.by_base.begin(); it != r.by_base.end();) {
    if (it->second.device == device && it->second.kind != AllocationKind::kHost) {
      std::free(reinterpret_cast<void*>(it->first));
      it = r.by_base.erase(it);
    } else {
      ++it;
    }
  }
}

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

hipError_t hipMalloc(void** ptr, size_t size) { return finish(allocate(ptr, size, AllocationKind::kDevice)); }

hipError_t hipFree(void* ptr) { return finish(release(ptr, false)); }

hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  (void)flags;  // coherence and mapping flags change nothing for memory that is host memory anyway
  return finish(allocate(ptr, size, AllocationKind::kHost));
}

hipError_t hipHostFree(void* ptr) { return finish(release(ptr, true)); }

hipError_t hipMallocManaged(void** dev_ptr, size_t size, unsigned int flags) {
  if (flags != hipMemAttachGlobal && flags != 0x02 /* hipMemAttachHost */) return finish(hipErrorInvalidValue);
  return finish(allocate(dev_ptr, size, AllocationKind::kManaged));
}
