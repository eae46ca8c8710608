#include "interpose/dl_hooks.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "interpose/real_functions.hpp"

// The hooks of every table row, by name (their prototypes do not matter here: only addresses).
#define PROF_API_ROW(Enum, name, row, ...) extern "C" void row();
#define PROF_API_ROW_CXX(Enum, name, row, symbol, ...) extern "C" void row() __asm__(symbol);
#include "runtimes/runtime_rows.def"
#undef PROF_API_ROW
#undef PROF_API_ROW_CXX

namespace prof::interpose {

namespace {

// In the order of kApis (runtimes/api_id.hpp): the same generated rows.
void (*const kHooks[kApiCount])() = {
#define PROF_API_ROW(Enum, name, row, ...) &row,
#include "runtimes/runtime_rows.def"
#undef PROF_API_ROW
};

// The slot of a table row by name, or kApiCount. A binary search over a sorted index built once.
struct NameIndex {
  uint16_t slots[kApiCount];
  NameIndex() {
    for (size_t i = 0; i < kApiCount; ++i) slots[i] = static_cast<uint16_t>(i);
    // Insertion sort: a few hundred names, once.
    for (size_t i = 1; i < kApiCount; ++i)
      for (size_t j = i; j > 0 && kApis[slots[j]].name < kApis[slots[j - 1]].name; --j)
        std::swap(slots[j], slots[j - 1]);
  }
  size_t find(std::string_view name) const {
    size_t lo = 0, hi = kApiCount;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (kApis[slots[mid]].name < name)
        lo = mid + 1;
      else
        hi = mid;
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

// What a found runtime function is exchanged for: prof's hook, whose real function is the one
// found.
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
__attribute__((visibility("hidden"))) void* prof_dlsym_handle(void* handle,
                                                              const char* name) noexcept {
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
#define PROF_DL_ENTRY(NAME, HANDLE_FN, REAL)    \
  __asm__(                                      \
      ".text\n"                                 \
      ".globl " #NAME                           \
      "\n"                                      \
      ".type " #NAME ",@function\n" #NAME       \
      ":\n"                                     \
      "  cmpq $0, " #REAL                       \
      "(%rip)\n"                                \
      "  jne 1f\n"                              \
      "  push %rdi\n  push %rsi\n  push %rdx\n" \
      "  call prof_dl_init\n"                   \
      "  pop %rdx\n  pop %rsi\n  pop %rdi\n"    \
      "1:\n"                                    \
      "  test %rdi, %rdi\n"                     \
      "  je 2f\n"                               \
      "  cmpq $-1, %rdi\n"                      \
      "  je 2f\n"                               \
      "  jmp " #HANDLE_FN                       \
      "\n"                                      \
      "2:\n"                                    \
      "  jmp *" #REAL                           \
      "(%rip)\n"                                \
      ".size " #NAME ", .-" #NAME "\n");
PROF_DL_ENTRY(dlsym, prof_dlsym_handle, prof_real_dlsym_fn)
PROF_DL_ENTRY(dlvsym, prof_dlvsym_handle, prof_real_dlvsym_fn)
#endif
