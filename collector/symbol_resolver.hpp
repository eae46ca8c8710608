// Kernel names for launch addresses that were never registered (programs that pass a host
// function to hipLaunchKernel without hipcc's registration): the address is looked up in the
// ELF symbol tables of the files mapped at that address, read with libelf. Names are demangled
// here, once per name, in the prof process.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/process_info.hpp"
#include "db/demangle.hpp"

namespace prof::collector {

class SymbolResolver {
 public:
  explicit SymbolResolver(std::vector<Mapping> maps) : maps_(std::move(maps)) {}
  // The (mangled) name of the function or object containing `address`, if any file has one.
  std::optional<std::string> lookup(uint64_t address);

 private:
  struct Symbol {
    uint64_t value, size;
    std::string name;
  };
  struct ElfFile {
    bool loaded = false;
    bool is_shared = false;  // ET_DYN: symbol values are relative to the load address
    uint64_t first_load_vaddr = 0;
    std::vector<Symbol> symbols;  // sorted by value
  };
  ElfFile& file(const std::string& path);

  std::vector<Mapping> maps_;
  std::map<std::string, ElfFile> files_;
};

}  // namespace prof::collector
