// A stand-in for Ascend's libms_tools_ext.so (mstx markers; vendor-api.md §4): range ids from 1,
// marks and ends that do nothing a program sees. prof's simulated runtimes have no mstx library;
// this one exists so e2e:markers can run an mstx program (test/apps/mstx_sample.cpp).
#include <atomic>

#pragma GCC visibility push(default)
#include "runtimes/acl/mstx_runtime_decls.hpp"
#pragma GCC visibility pop

namespace {
std::atomic<mstxRangeId> g_last_id{0};
}  // namespace

void mstxMarkA(const char*, aclrtStream) {}
mstxRangeId mstxRangeStartA(const char*, aclrtStream) { return g_last_id.fetch_add(1) + 1; }
void mstxRangeEnd(mstxRangeId) {}
