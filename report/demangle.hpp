// Kernel names as people read them. The collector may store a symbol mangled (from
// __hipRegisterFunction) or already readable (hipModuleGetFunction names): the report demangles
// whatever still looks mangled, once per distinct name, never per event.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "db/demangle.hpp"

namespace prof::report {

using prof::demangle;  // db/demangle.hpp: one definition for the collector and the report

// string_id -> readable kernel name, filled on first use: memory grows with distinct names only.
class KernelNameCache {
 public:
  const std::string& get(int64_t string_id, std::string_view stored_name);
  const std::string* find(int64_t string_id) const;  // nullptr before get or set of that id

 private:
  std::unordered_map<int64_t, std::string> names_;
};

}  // namespace prof::report
