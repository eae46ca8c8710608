#include "collector/run_files.hpp"

#include <cstdio>

namespace prof::collector {

bool parse_name(const std::string& name, const char* suffix, int& pid, uint64_t& image, int* tid) {
  unsigned long long token = 0;
  int p = 0, t = 0, consumed = 0;
  std::string format =
      tid ? std::string("%d.%llu.%d.") + suffix + "%n" : std::string("%d.%llu.") + suffix + "%n";
  int fields = tid ? sscanf(name.c_str(), format.c_str(), &p, &token, &t, &consumed)
                   : sscanf(name.c_str(), format.c_str(), &p, &token, &consumed);
  if (fields != (tid ? 3 : 2) || consumed != static_cast<int>(name.size())) return false;
  pid = p;
  image = token;
  if (tid) *tid = t;
  return true;
}

}  // namespace prof::collector
