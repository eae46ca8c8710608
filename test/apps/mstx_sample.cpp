// mstx markers around ACL work (e2e:markers): a range on a stream around a copy, a mark with a
// comma and UTF-8, a range begun and never ended. Links the simulated ACL runtime and the stand-in
// libms_tools_ext.so (test/apps/ms_tools_ext_shim.cpp). Prints `PID`, `STREAM <handle>` and `END`.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtimes/acl/acl_runtime_decls.hpp"
#include "runtimes/acl/mstx_runtime_decls.hpp"

int main() {
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  int failures = 0;
  aclrtStream stream = nullptr;
  void* device = nullptr;
  std::vector<char> host(4096, 1);
  failures += aclInit(nullptr) != ACL_SUCCESS;
  failures += aclrtSetDevice(0) != ACL_SUCCESS;
  failures += aclrtCreateStream(&stream) != ACL_SUCCESS;
  failures += aclrtMalloc(&device, host.size(), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS;
  const mstxRangeId copy = mstxRangeStartA("upload, step 1", stream);
  failures += aclrtMemcpyAsync(device, host.size(), host.data(), host.size(),
                               ACL_MEMCPY_HOST_TO_DEVICE, stream) != ACL_SUCCESS;
  failures += aclrtSynchronizeStream(stream) != ACL_SUCCESS;
  mstxRangeEnd(copy);
  mstxMarkA("done, ✓", nullptr);
  failures += aclrtFree(device) != ACL_SUCCESS;
  failures += aclrtDestroyStream(stream) != ACL_SUCCESS;
  mstxRangeStartA("never ended", nullptr);
  std::printf("STREAM %llu\n",
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(stream)));
  std::printf("END\n");
  return failures == 0 ? 0 : 1;
}
