// glibc's dlsym and dlvsym without calling either (dl_hooks.hpp): prof exports its own.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>

#include "interpose/dl_hooks.hpp"

namespace prof::interpose {

namespace {

// Early callers (ASan's and other tools' interceptor set-up calls dlsym before any constructor
// runs, and intercepts dl_iterate_phdr itself) rule out calling anything here: the loader's
// r_debug list is read directly, and nothing is instrumented.
#define PROF_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))

PROF_NO_SANITIZE bool has_libc_name(const char* name) {
  if (name == nullptr) return false;
  // ".../libc.so.6": the last path component starts with "libc.so".
  const char* base = name;
  for (const char* p = name; *p; ++p)
    if (*p == '/') base = p + 1;
  const char want[] = "libc.so";
  for (size_t i = 0; i + 1 < sizeof want; ++i)
    if (base[i] != want[i]) return false;
  return true;
}

PROF_NO_SANITIZE bool same_name(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

PROF_NO_SANITIZE void* find_in_libc(const char* name) {
  for (const link_map* map = _r_debug.r_map; map != nullptr; map = map->l_next) {
    if (!has_libc_name(map->l_name) || map->l_ld == nullptr) continue;
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    const uint32_t* gnu_hash = nullptr;
    // The dynamic section's addresses are already relocated by the loader on glibc.
    for (const ElfW(Dyn)* dyn = map->l_ld; dyn->d_tag != DT_NULL; ++dyn) {
      if (dyn->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(dyn->d_un.d_ptr);
      if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
      if (dyn->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const uint32_t*>(dyn->d_un.d_ptr);
    }
    if (symtab == nullptr || strtab == nullptr || gnu_hash == nullptr) return nullptr;
    // The GNU hash table gives the number of symbols: the largest bucket's chain, to its end bit.
    const uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom_size = gnu_hash[2];
    const uint32_t* buckets = gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
    const uint32_t* chain = buckets + nbuckets;
    uint32_t count = 0;
    for (uint32_t b = 0; b < nbuckets; ++b) count = buckets[b] > count ? buckets[b] : count;
    if (count >= symoffset)
      while ((chain[count - symoffset] & 1) == 0) ++count;
    // The first defined function of that name (dlsym and dlvsym each have two versions at one
    // address).
    for (uint32_t i = 0; i <= count; ++i) {
      const ElfW(Sym)& sym = symtab[i];
      if (sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_FUNC) continue;
      if (same_name(strtab + sym.st_name, name))
        return reinterpret_cast<void*>(map->l_addr + sym.st_value);
    }
    return nullptr;
  }
  return nullptr;
}

PROF_NO_SANITIZE void* libc_function(const char* name) { return find_in_libc(name); }

}  // namespace

}  // namespace prof::interpose

extern "C" {
// Read by the exported entry points (dl_hooks.cpp); set on first use, which may come from another
// library's constructor before prof's own ran.
__attribute__((visibility("hidden"))) void* prof_real_dlsym_fn = nullptr;
__attribute__((visibility("hidden"))) void* prof_real_dlvsym_fn = nullptr;

__attribute__((visibility("hidden"))) PROF_NO_SANITIZE void prof_dl_init() noexcept {
  if (prof_real_dlsym_fn == nullptr) prof_real_dlsym_fn = prof::interpose::libc_function("dlsym");
  if (prof_real_dlvsym_fn == nullptr)
    prof_real_dlvsym_fn = prof::interpose::libc_function("dlvsym");
}
}

namespace prof::interpose {

void* real_dlsym(void* handle, const char* name) noexcept {
  if (prof_real_dlsym_fn == nullptr) prof_dl_init();
  return prof_real_dlsym_fn ? reinterpret_cast<DlsymFn>(prof_real_dlsym_fn)(handle, name) : nullptr;
}

void* real_dlvsym(void* handle, const char* name, const char* version) noexcept {
  if (prof_real_dlvsym_fn == nullptr) prof_dl_init();
  return prof_real_dlvsym_fn
             ? reinterpret_cast<DlvsymFn>(prof_real_dlvsym_fn)(handle, name, version)
             : nullptr;
}

}  // namespace prof::interpose
