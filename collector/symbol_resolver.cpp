#include "collector/symbol_resolver.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace prof::collector {

SymbolResolver::ElfFile& SymbolResolver::file(const std::string& path) {
  ElfFile& f = files_[path];
  if (f.loaded) return f;
  f.loaded = true;
  if (elf_version(EV_CURRENT) == EV_NONE) return f;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return f;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf) {
    GElf_Ehdr ehdr;
    if (gelf_getehdr(elf, &ehdr)) f.is_shared = ehdr.e_type == ET_DYN;
    size_t phnum = 0;
    elf_getphdrnum(elf, &phnum);
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD) {
        f.first_load_vaddr = ph.p_vaddr & ~static_cast<uint64_t>(ph.p_align ? ph.p_align - 1 : 0);
        break;
      }
    }
    // .symtab when the file is not stripped, .dynsym otherwise.
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
        continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data || sh.sh_entsize == 0) continue;
      size_t count = sh.sh_size / sh.sh_entsize;
      for (size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym) || sym.st_value == 0) continue;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_OBJECT) continue;
        const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (name && *name) f.symbols.push_back({sym.st_value, sym.st_size, name});
      }
    }
    elf_end(elf);
  }
  close(fd);
  std::sort(f.symbols.begin(), f.symbols.end(),
            [](const Symbol& a, const Symbol& b) { return a.value < b.value; });
  return f;
}

std::optional<std::string> SymbolResolver::lookup(uint64_t address) {
  for (const Mapping& m : maps_) {
    if (address < m.start || address >= m.end) continue;
    ElfFile& f = file(m.path);
    uint64_t vaddr = address;
    if (f.is_shared) {
      // Load bias: where the file's first byte is mapped, minus its first segment's address.
      uint64_t base = UINT64_MAX;
      for (const Mapping& other : maps_)
        if (other.path == m.path && other.offset == 0) base = std::min(base, other.start);
      if (base == UINT64_MAX) return std::nullopt;
      vaddr = address - base + f.first_load_vaddr;
    }
    auto it = std::upper_bound(f.symbols.begin(), f.symbols.end(), vaddr,
                               [](uint64_t v, const Symbol& s) { return v < s.value; });
    while (it != f.symbols.begin()) {
      --it;
      if (vaddr == it->value || vaddr < it->value + it->size) return it->name;
      if (it->value + (it->size ? it->size : 1) <= vaddr) break;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace prof::collector
