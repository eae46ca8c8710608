#include "report/demangle.hpp"

namespace prof::report {

const std::string& KernelNameCache::get(int64_t string_id, std::string_view stored_name) {
  auto it = names_.find(string_id);
  if (it == names_.end()) it = names_.emplace(string_id, demangle(stored_name)).first;
  return it->second;
}

const std::string* KernelNameCache::find(int64_t string_id) const {
  auto it = names_.find(string_id);
  return it == names_.end() ? nullptr : &it->second;
}

}  // namespace prof::report
