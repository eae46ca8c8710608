// Kernel names as people read them: the demangled form of an Itanium C++ ABI symbol ("_Z..."), or
// the name unchanged when it is not one or does not demangle. The collector demangles each name
// once when it interns it; the report applies the same function to names a database still holds
// mangled. Never called on the profiled program's threads.
#pragma once
#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace prof {

inline std::string demangle(std::string_view name) {
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

}  // namespace prof
