// prof's own ACL values, for acl_abi_test.cpp to compare with the reference header's.
#include <cstdint>

#include "runtimes/acl/acl_abi.hpp"
#include "test/unit/acl_abi_values.hpp"

namespace prof::test::acl {
const Values kOurs = {
    {ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST,
     ACL_MEMCPY_DEVICE_TO_DEVICE, ACL_MEMCPY_DEFAULT, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
     ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE},
    {ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_NOT_READY, ACL_EVENT_RECORDED_STATUS_NOT_READY,
     ACL_EVENT_RECORDED_STATUS_COMPLETE},
    {ACL_ERROR_RT_STREAM_NOT_COMPLETE, ACL_ERROR_RT_EVENT_NOT_COMPLETE},
    {ACL_EVENT_TIME_LINE, ACL_EVENT_IPC}};
}  // namespace prof::test::acl
