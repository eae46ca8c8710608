// The ACL values prof's declarations (acl_abi_ours.cpp) and the reference header (acl_abi_test.cpp)
// must agree on.
#pragma once
#include <cstdint>

namespace prof::test::acl {
struct Values {
  int64_t kinds[8];
  int64_t status[4];
  int64_t codes[2];
  int64_t flags[2];
};
extern const Values kOurs;
}  // namespace prof::test::acl
