// glibc's dlsym and dlvsym without calling either (dl_hooks.hpp): prof exports its own.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

#include "interpose/dl_hooks.hpp"

namespace prof::interpose {

namespace {

// A symbol of libc's dynamic symbol table, read from memory (libc is mapped whole): its GNU hash
// table gives the number of symbols, and the first defined symbol of that name is taken (dlsym
// and dlvsym each have two versions at one address).
struct LibcLookup {
  const char* name;
  void* found = nullptr;
};

int find_in_libc(dl_phdr_info* info, size_t, void* data) {
  auto* lookup = static_cast<LibcLookup*>(data);
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "/libc.so") == nullptr) return 0;
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dyn == nullptr) return 0;
  const ElfW(Sym)* symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* gnu_hash = nullptr;
  // The dynamic section's addresses are already relocated by the loader on glibc.
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
    if (dyn->d_tag == DT_GNU_HASH) gnu_hash = reinterpret_cast<const uint32_t*>(dyn->d_un.d_ptr);
  }
  if (symtab == nullptr || strtab == nullptr || gnu_hash == nullptr) return 0;
  const uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom_size = gnu_hash[2];
  const uint32_t* buckets = gnu_hash + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
  const uint32_t* chain = buckets + nbuckets;
  uint32_t count = 0;
  for (uint32_t b = 0; b < nbuckets; ++b) count = buckets[b] > count ? buckets[b] : count;
  if (count >= symoffset)
    while ((chain[count - symoffset] & 1) == 0) ++count;
  for (uint32_t i = 0; i <= count; ++i) {
    const ElfW(Sym)& sym = symtab[i];
    if (sym.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(sym.st_info) != STT_FUNC) continue;
    if (std::strcmp(strtab + sym.st_name, lookup->name) == 0) {
      lookup->found = reinterpret_cast<void*>(info->dlpi_addr + sym.st_value);
      return 1;
    }
  }
  return 0;
}

void* libc_function(const char* name) {
  LibcLookup lookup{name};
  dl_iterate_phdr(find_in_libc, &lookup);
  return lookup.found;
}

}  // namespace

}  // namespace prof::interpose

extern "C" {
// Read by the exported entry points (dl_hooks.cpp); set on first use, which may come from another
// library's constructor before prof's own ran.
__attribute__((visibility("hidden"))) void* prof_real_dlsym_fn = nullptr;
__attribute__((visibility("hidden"))) void* prof_real_dlvsym_fn = nullptr;

__attribute__((visibility("hidden"))) void prof_dl_init() noexcept {
  if (prof_real_dlsym_fn == nullptr) prof_real_dlsym_fn = prof::interpose::libc_function("dlsym");
  if (prof_real_dlvsym_fn == nullptr) prof_real_dlvsym_fn = prof::interpose::libc_function("dlvsym");
}
}

namespace prof::interpose {

void* real_dlsym(void* handle, const char* name) noexcept {
  if (prof_real_dlsym_fn == nullptr) prof_dl_init();
  return prof_real_dlsym_fn ? reinterpret_cast<DlsymFn>(prof_real_dlsym_fn)(handle, name) : nullptr;
}

void* real_dlvsym(void* handle, const char* name, const char* version) noexcept {
  if (prof_real_dlvsym_fn == nullptr) prof_dl_init();
  return prof_real_dlvsym_fn ? reinterpret_cast<DlvsymFn>(prof_real_dlvsym_fn)(handle, name, version) : nullptr;
}

}  // namespace prof::interpose
