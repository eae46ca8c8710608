#include "report/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>

namespace prof::report {

std::string demangle(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
  std::string symbol(name);  // __cxa_demangle needs NUL termination
  int status = 0;
  char* text = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !text) {
    std::free(text);
    return symbol;
  }
  std::string readable(text);
  std::free(text);
  return readable;
}

const std::string& KernelNameCache::get(int64_t string_id, std::string_view stored_name) {
  auto it = names_.find(string_id);
  if (it == names_.end()) it = names_.emplace(string_id, demangle(stored_name)).first;
  return it->second;
}

}  // namespace prof::report
