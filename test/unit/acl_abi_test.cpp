// Holds prof's ACL table against acl_abi_reference.h, a header written from
// ../shared/reference/vendor-api.md §4 (no real acl headers are installed): each row of acl_api.def
// is redeclared here as extern "C" next to the reference's declaration, so a parameter list that
// differs (destMax and count swapped or merged in aclrtMemcpy, a query without its out-parameter)
// does not compile; the values the hooks and the simulated NPU rely on are compared at run time.
#include "test/unit/acl_abi_reference.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <type_traits>

#include "test/unit/acl_abi_values.hpp"

extern "C" {
#define PROF_ACL_API(name, ret, params, ...) ret name params;
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API
}

#define PROF_ACL_API(name, ret, params, ...) \
  static_assert(std::is_same_v<decltype(&name), ret(*) params>, #name);
#include "runtimes/acl/acl_api.def"
#undef PROF_ACL_API

TEST_CASE(
    "acl_abi: copy kinds 0..7, query statuses, not-complete codes and event flags equal the "
    "reference's") {
  using prof::test::acl::kOurs;
  const int64_t kinds[8] = {ACL_MEMCPY_HOST_TO_HOST,
                            ACL_MEMCPY_HOST_TO_DEVICE,
                            ACL_MEMCPY_DEVICE_TO_HOST,
                            ACL_MEMCPY_DEVICE_TO_DEVICE,
                            ACL_MEMCPY_DEFAULT,
                            ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
                            ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
                            ACL_MEMCPY_INTER_DEVICE_TO_DEVICE};
  for (int i = 0; i < 8; ++i) {
    CHECK(kOurs.kinds[i] == kinds[i]);
    CHECK(kOurs.kinds[i] == i);
  }
  CHECK(kOurs.status[0] == ACL_STREAM_STATUS_COMPLETE);
  CHECK(kOurs.status[1] == ACL_STREAM_STATUS_NOT_READY);
  CHECK(kOurs.status[2] == ACL_EVENT_RECORDED_STATUS_NOT_READY);
  CHECK(kOurs.status[3] == ACL_EVENT_RECORDED_STATUS_COMPLETE);
  CHECK(kOurs.codes[0] == ACL_ERROR_RT_STREAM_NOT_COMPLETE);
  CHECK(kOurs.codes[1] == ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  CHECK(kOurs.codes[1] == 507006);
  CHECK(kOurs.flags[0] == ACL_EVENT_TIME_LINE);
  CHECK(kOurs.flags[1] == ACL_EVENT_IPC);
}
