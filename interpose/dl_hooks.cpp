#include "interpose/dl_hooks.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "interpose/real_functions.hpp"

// The hooks of every table row, by name (their prototypes do not matter here: only addresses).
#define PROF_DECLARE_HOOK(name, ...) extern "C" void name();
#define PROF_HIP_API PROF_DECLARE_HOOK
#define PROF_MUSA_API PROF_DECLARE_HOOK
#define PROF_CNRT_API PROF_DECLARE_HOOK
#define PROF_ACL_API PROF_DECLARE_HOOK
#define PROF_MPI_API PROF_DECLARE_HOOK
#define PROF_HIP_API_CXX(name, symbol, ...) extern "C" void name() __asm__(symbol);
#define PROF_ROCTX_API PROF_DECLARE_HOOK
#define PROF_MSTX_API PROF_DECLARE_HOOK
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API_CXX
#include "runtimes/musa/musa_api.def"
#include "runtimes/cnrt/cnrt_api.def"
#include "runtimes/acl/acl_api.def"
#include "runtimes/mpi/mpi_api.def"
#include "runtimes/roctx/roctx_api.def"
#include "runtimes/acl/mstx_api.def"
#undef PROF_HIP_API
#undef PROF_MUSA_API
#undef PROF_CNRT_API
#undef PROF_ACL_API
#undef PROF_MPI_API
#undef PROF_ROCTX_API
#undef PROF_MSTX_API

namespace prof::interpose {

namespace {


// In the order of kApis (runtimes/api_id.hpp): the same .def files in the same order.
void (*const kHooks[kApiCount])() = {
#define PROF_HOOK_ADDRESS(name, ...) &name,
#define PROF_HIP_API PROF_HOOK_ADDRESS
#define PROF_MUSA_API PROF_HOOK_ADDRESS
#define PROF_CNRT_API PROF_HOOK_ADDRESS
#define PROF_ACL_API PROF_HOOK_ADDRESS
#define PROF_MPI_API PROF_HOOK_ADDRESS
#define PROF_ROCTX_API PROF_HOOK_ADDRESS
#define PROF_MSTX_API PROF_HOOK_ADDRESS
#include "runtimes/hip/hip_api.def"
#include "runtimes/musa/musa_api.def"
#include "runtimes/cnrt/cnrt_api.def"
#include "runtimes/acl/acl_api.def"
#include "runtimes/mpi/mpi_api.def"
#include "runtimes/roctx/roctx_api.def"
#include "runtimes/acl/mstx_api.def"
#undef PROF_HIP_API
#undef PROF_MUSA_API
#undef PROF_CNRT_API
#undef PROF_ACL_API
#undef PROF_MPI_API
#undef PROF_ROCTX_API
#undef PROF_MSTX_API
};

// The slot of a table row by name, or kApiCount. A binary search over a sorted index built once.
struct NameIndex {
  uint16_t slots[kApiCount];
  NameIndex() {
    for (size_t i = 0; i < kApiCount; ++i) slots[i] = static_cast<uint16_t>(i);
    // Insertion sort: a few hundred names, once.
    for (size_t i = 1; i < kApiCount; ++i)
      for (size_t j = i; j > 0 && kApis[slots[j]].name < kApis[slots[j - 1]].name; --j) std::swap(slots[j], slots[j - 1]);
  }
  size_t find(std::string_view name) const {
    size_t lo = 0, hi = kApiCount;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (kApis[slots[mid]].name < name) lo = mid + 1;
      else hi = mid;
    }
    return lo < kApiCount && kApis[slots[lo]].name == name ? slots[lo] : kApiCount;
  }
};

const NameIndex& name_index() {
  static const NameIndex index;
  return index;
}

void* exchange(const char* name, void* found) noexcept;

bool is_prof(const void* address) {
  static const void* self = [] {
    Dl_info info;
    return dladdr(reinterpret_cast<const void*>(&exchange), &info) != 0 ? info.dli_fbase : nullptr;
  }();
  Dl_info info;
  return dladdr(address, &info) != 0 && info.dli_fbase == self;
}

// What a found runtime function is exchanged for: prof's hook, whose real function is the one found.
void* exchange(const char* name, void* found) noexcept {
  if (found == nullptr || name == nullptr) return found;
  const size_t slot = name_index().find(name);
  if (slot == kApiCount || is_prof(found)) return found;
  g_real[slot].store(found, std::memory_order_relaxed);
  return reinterpret_cast<void*>(kHooks[slot]);
}

}  // namespace

}  // namespace prof::interpose

extern "C" {
// dlsym/dlvsym on a library handle: the real lookup, then the exchange.
__attribute__((visibility("hidden"))) void* prof_dlsym_handle(void* handle, const char* name) noexcept {
  auto real = reinterpret_cast<prof::interpose::DlsymFn>(prof_real_dlsym_fn);
  return prof::interpose::exchange(name, real(handle, name));
}
__attribute__((visibility("hidden"))) void* prof_dlvsym_handle(void* handle, const char* name,
                                                               const char* version) noexcept {
  auto real = reinterpret_cast<prof::interpose::DlvsymFn>(prof_real_dlvsym_fn);
  return prof::interpose::exchange(name, real(handle, name, version));
}
}

// The exported entry points, in assembly so the special handles (RTLD_DEFAULT and RTLD_NEXT, which
// glibc resolves relative to the caller's object, found from the return address) reach glibc by a
// tail jump with the caller's return address intact: dlsym(RTLD_NEXT, ...) from any library keeps
// meaning "after that library". Library handles go through prof_dl*_handle, where the caller does
// not matter to glibc's lookup.
#if defined(__x86_64__)
#define PROF_DL_ENTRY(NAME, HANDLE_FN, REAL)                                  \
  __asm__(".text\n"                                                           \
          ".globl " #NAME "\n"                                                \
          ".type " #NAME ",@function\n" #NAME ":\n"                           \
          "  cmpq $0, " #REAL "(%rip)\n"                                      \
          "  jne 1f\n"                                                        \
          "  push %rdi\n  push %rsi\n  push %rdx\n"                           \
          "  call prof_dl_init\n"                                             \
          "  pop %rdx\n  pop %rsi\n  pop %rdi\n"                              \
          "1:\n"                                                              \
          "  test %rdi, %rdi\n"                                               \
          "  je 2f\n"                                                         \
          "  cmpq $-1, %rdi\n"                                                \
          "  je 2f\n"                                                         \
          "  jmp " #HANDLE_FN "\n"                                            \
          "2:\n"                                                              \
          "  jmp *" #REAL "(%rip)\n"                                          \
          ".size " #NAME ", .-" #NAME "\n");
PROF_DL_ENTRY(dlsym, prof_dlsym_handle, prof_real_dlsym_fn)
PROF_DL_ENTRY(dlvsym, prof_dlvsym_handle, prof_real_dlvsym_fn)
#endif

