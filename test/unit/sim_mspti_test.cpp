// The simulated libmspti.so (sim/activity_libs/mspti.cpp) on the simulated libascendcl.so: the
// records a tool gets are MSPTI's (runtimes/acl/mspti_activity.hpp), each op's external
// correlation binds the id pushed around its call, and a buffer is walked to its end.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtimes/acl/mspti_activity.hpp"
#include "test/unit/acl_abi_reference.h"

// MSPTI's prototypes, as a tool linking -lmspti declares them (mspti_activity.hpp holds them as
// pointer types, for prof's dlsym).
extern "C" {
msptiResult msptiActivityRegisterCallbacks(msptiBuffersCallbackRequestFunc,
                                           msptiBuffersCallbackCompleteFunc);
msptiResult msptiActivityEnable(msptiActivityKind kind);
msptiResult msptiActivityGetNextRecord(uint8_t* buffer, size_t validBufferSizeBytes,
                                       msptiActivity** record);
msptiResult msptiActivityFlushAll(uint32_t flag);
msptiResult msptiActivityPushExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t id);
msptiResult msptiActivityPopExternalCorrelationId(msptiExternalCorrelationKind kind,
                                                  uint64_t* lastId);
}

namespace {

std::vector<std::vector<uint8_t>> g_completed;

void requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 16;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}
void completed(uint8_t* buffer, size_t, size_t valid) {
  g_completed.emplace_back(buffer, buffer + valid);
  free(buffer);
}

}  // namespace

TEST_CASE("mspti: external ids pushed around ACL calls name the ops' records") {
  REQUIRE(msptiActivityRegisterCallbacks(requested, completed) == MSPTI_SUCCESS);
  for (msptiActivityKind kind :
       {MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, MSPTI_ACTIVITY_KIND_KERNEL,
        MSPTI_ACTIVITY_KIND_MEMCPY, MSPTI_ACTIVITY_KIND_MEMSET})
    REQUIRE(msptiActivityEnable(kind) == MSPTI_SUCCESS);
  REQUIRE(msptiActivityEnable(MSPTI_ACTIVITY_KIND_INVALID) == MSPTI_ERROR_INVALID_PARAMETER);

  REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
  REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  aclrtStream stream = nullptr;
  REQUIRE(aclrtCreateStream(&stream) == ACL_SUCCESS);
  void* device = nullptr;
  REQUIRE(aclrtMalloc(&device, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  static char host[1 << 20];
  aclrtFuncHandle kernel = nullptr;
  REQUIRE(aclrtBinaryGetFunction(reinterpret_cast<aclrtBinHandle>(host), "mspti_kernel", &kernel) ==
          ACL_SUCCESS);

  uint64_t last = 0;
  REQUIRE(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last) ==
          MSPTI_ERROR_QUEUE_EMPTY);
  REQUIRE(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_INVALID, 1) ==
          MSPTI_ERROR_INVALID_PARAMETER);
  REQUIRE(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 42) ==
          MSPTI_SUCCESS);
  REQUIRE(aclrtMemcpyAsync(device, 1 << 20, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, stream) ==
          ACL_SUCCESS);
  REQUIRE(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last) ==
          MSPTI_SUCCESS);
  REQUIRE(last == 42);
  REQUIRE(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 43) ==
          MSPTI_SUCCESS);
  REQUIRE(aclrtMemsetAsync(device, 1 << 20, 0, 2048, stream) == ACL_SUCCESS);
  REQUIRE(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr) ==
          MSPTI_SUCCESS);
  REQUIRE(msptiActivityPushExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 44) ==
          MSPTI_SUCCESS);
  REQUIRE(aclrtLaunchKernel(kernel, 8, host, 64, stream) == ACL_SUCCESS);
  REQUIRE(msptiActivityPopExternalCorrelationId(MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr) ==
          MSPTI_SUCCESS);
  REQUIRE(aclrtLaunchKernel(kernel, 8, host, 64, stream) ==
          ACL_SUCCESS);  // nothing pushed: no binding
  REQUIRE(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
  REQUIRE(msptiActivityFlushAll(0) == MSPTI_SUCCESS);

  std::map<uint64_t, uint64_t> external_of;  // MSPTI's correlation id -> the id pushed
  struct Op {
    msptiActivityKind kind;
    uint64_t correlation_id, start, end, bytes;
    int copy_kind;
    std::string name;
  };
  std::vector<Op> ops;
  REQUIRE(!g_completed.empty());
  for (std::vector<uint8_t>& buffer : g_completed) {
    msptiActivity* record = nullptr;
    msptiResult ret;
    size_t walked = 0;  // bytes of the records read: the buffer's, to the end
    while ((ret = msptiActivityGetNextRecord(buffer.data(), buffer.size(), &record)) ==
           MSPTI_SUCCESS) {
      CHECK(reinterpret_cast<uint8_t*>(record) == buffer.data() + walked);
      walked += record->kind == MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
                    ? sizeof(msptiActivityExternalCorrelation)
                    : sizeof(msptiActivityKernel);
      switch (record->kind) {
        case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          const auto* r = reinterpret_cast<const msptiActivityExternalCorrelation*>(record);
          CHECK(r->externalKind == MSPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
          external_of[r->correlationId] = r->externalId;
          break;
        }
        case MSPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* r = reinterpret_cast<const msptiActivityMemcpy*>(record);
          ops.push_back({r->kind, r->correlationId, r->start, r->end, r->bytes, r->copyKind, ""});
          break;
        }
        case MSPTI_ACTIVITY_KIND_MEMSET: {
          const auto* r = reinterpret_cast<const msptiActivityMemset*>(record);
          ops.push_back({r->kind, r->correlationId, r->start, r->end, r->bytes, 0, ""});
          break;
        }
        case MSPTI_ACTIVITY_KIND_KERNEL: {
          const auto* r = reinterpret_cast<const msptiActivityKernel*>(record);
          ops.push_back(
              {r->kind, r->correlationId, r->start, r->end, 0, 0, r->name ? r->name : ""});
          CHECK(r->ds.deviceId == 0);
          break;
        }
        default: FAIL("unexpected record kind " << record->kind);
      }
    }
    CHECK(ret == MSPTI_ERROR_MAX_LIMIT_REACHED);
    CHECK(walked == buffer.size());
  }
  REQUIRE(ops.size() == 4);
  CHECK(ops[0].kind == MSPTI_ACTIVITY_KIND_MEMCPY);
  CHECK(ops[0].copy_kind == MSPTI_ACTIVITY_MEMCPY_KIND_HTOD);
  CHECK(ops[0].bytes == 4096);
  CHECK(ops[1].kind == MSPTI_ACTIVITY_KIND_MEMSET);
  CHECK(ops[1].bytes == 2048);
  CHECK(ops[2].kind == MSPTI_ACTIVITY_KIND_KERNEL);
  CHECK(ops[2].name == "mspti_kernel");
  CHECK(external_of.size() == 3);
  CHECK(external_of[ops[0].correlation_id] == 42);
  CHECK(external_of[ops[1].correlation_id] == 43);
  CHECK(external_of[ops[2].correlation_id] == 44);
  CHECK(external_of.count(ops[3].correlation_id) == 0);
  for (const Op& op : ops) CHECK(op.end >= op.start);
  CHECK(ops[1].start >= ops[0].end);  // one stream: in order

  // An empty buffer is at its end at once.
  uint8_t empty[8] = {};
  msptiActivity* record = nullptr;
  CHECK(msptiActivityGetNextRecord(empty, 0, &record) == MSPTI_ERROR_MAX_LIMIT_REACHED);

  REQUIRE(aclrtFree(device) == ACL_SUCCESS);
  REQUIRE(aclrtDestroyStream(stream) == ACL_SUCCESS);
  REQUIRE(aclFinalize() == ACL_SUCCESS);
}
