// The simulated libcnpapi (sim/activity_libs/cnpapi.cpp) on libcnrt's model: what a CUPTI-style
// tool relies on. Each case runs in its own process (catch_discover_tests), so the library's
// process-wide state starts fresh.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtimes/cnrt/cnpapi_activity.hpp"
#include "runtimes/cnrt/cnrt_runtime_decls.hpp"

extern "C" {
cnpapiResult cnpapiInit();
cnpapiResult cnpapiRelease();
uint64_t cnpapiGetTimestamp();
cnpapiResult cnpapiGetResultString(cnpapiResult result, const char** str);
cnpapiResult cnpapiActivityEnable(cnpapiActivityType type);
cnpapiResult cnpapiActivityRegisterCallbacks(cnpapi_request requested, cnpapi_complete completed);
cnpapiResult cnpapiActivityGetNextRecord(void* buffer, size_t validSize, cnpapiActivity** record);
cnpapiResult cnpapiActivityFlushAll();
cnpapiResult cnpapiActivityPushExternalCorrelationId(cnpapiActivityExternalCorrelationType type,
                                                     uint64_t id);
cnpapiResult cnpapiActivityPopExternalCorrelationId(cnpapiActivityExternalCorrelationType type,
                                                    uint64_t* lastId);
}

namespace {

struct Seen {
  cnpapiActivityType type;
  uint64_t correlation_id;
  uint64_t external_id;  // EXTERNAL_CORRELATION
  uint64_t start, end;
};
std::vector<Seen> g_seen;
size_t g_buffer_bytes = 1 << 16;
int g_completed = 0;

void requested(uint64_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint64_t*>(std::malloc(g_buffer_bytes));
  *size = g_buffer_bytes;
  *max_records = 0;
}

void completed(uint64_t* buffer, size_t, size_t valid) {
  ++g_completed;
  cnpapiActivity* r = nullptr;
  while (cnpapiActivityGetNextRecord(buffer, valid, &r) == CNPAPI_SUCCESS && r != nullptr) {
    Seen s{r->type, 0, 0, 0, 0};
    if (r->type == CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION) {
      auto* x = reinterpret_cast<cnpapiActivityExternalCorrelation*>(r);
      s.correlation_id = x->correlation_id, s.external_id = x->external_id;
    } else if (r->type == CNPAPI_ACTIVITY_TYPE_MEMCPY) {
      auto* m = reinterpret_cast<cnpapiActivityMemcpy*>(r);
      s.correlation_id = m->correlation_id, s.start = m->start, s.end = m->end;
    } else if (r->type == CNPAPI_ACTIVITY_TYPE_MEMSET) {
      auto* m = reinterpret_cast<cnpapiActivityMemset*>(r);
      s.correlation_id = m->correlation_id, s.start = m->start, s.end = m->end;
    }
    g_seen.push_back(s);
  }
  CHECK(r == nullptr);  // the walk ended at the valid bytes' end
  std::free(buffer);
}

void open_tool() {
  REQUIRE(cnpapiInit() == CNPAPI_SUCCESS);
  REQUIRE(cnpapiActivityRegisterCallbacks(requested, completed) == CNPAPI_SUCCESS);
  for (auto t : {CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION, CNPAPI_ACTIVITY_TYPE_MEMCPY,
                 CNPAPI_ACTIVITY_TYPE_MEMSET})
    REQUIRE(cnpapiActivityEnable(t) == CNPAPI_SUCCESS);
}

}  // namespace

TEST_CASE("cnpapi: each op's record follows the binding of its correlation id to the pushed id",
          "[sim][cnpapi]") {
  open_tool();
  cnrtQueue_t queue = nullptr;
  void* device = nullptr;
  std::vector<char> host(4096);
  REQUIRE(cnrtQueueCreate(&queue) == cnrtSuccess);
  REQUIRE(cnrtMalloc(&device, host.size()) == cnrtSuccess);
  REQUIRE(cnpapiActivityPushExternalCorrelationId(CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM0, 41) ==
          CNPAPI_SUCCESS);
  REQUIRE(cnrtMemcpyAsync(device, host.data(), host.size(), queue, cnrtMemcpyHostToDev) ==
          cnrtSuccess);
  uint64_t last = 0;
  REQUIRE(cnpapiActivityPopExternalCorrelationId(CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM0, &last) ==
          CNPAPI_SUCCESS);
  CHECK(last == 41);
  REQUIRE(cnpapiActivityPushExternalCorrelationId(CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM0, 42) ==
          CNPAPI_SUCCESS);
  REQUIRE(cnrtMemsetAsync(device, 0, host.size(), queue) == cnrtSuccess);
  REQUIRE(cnpapiActivityPopExternalCorrelationId(CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM0,
                                                 nullptr) == CNPAPI_SUCCESS);
  // Not pushed: a record without a binding.
  REQUIRE(cnrtMemcpyAsync(host.data(), device, host.size(), queue, cnrtMemcpyDevToHost) ==
          cnrtSuccess);
  REQUIRE(cnrtQueueSync(queue) == cnrtSuccess);
  CHECK(g_completed == 0);  // records wait in the buffer until it fills or is flushed
  REQUIRE(cnpapiActivityFlushAll() == CNPAPI_SUCCESS);
  CHECK(g_completed == 1);
  REQUIRE(g_seen.size() == 5);
  CHECK(g_seen[0].type == CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION);
  CHECK(g_seen[0].external_id == 41);
  CHECK(g_seen[1].type == CNPAPI_ACTIVITY_TYPE_MEMCPY);
  CHECK(g_seen[1].correlation_id == g_seen[0].correlation_id);
  CHECK(g_seen[2].type == CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION);
  CHECK(g_seen[2].external_id == 42);
  CHECK(g_seen[3].type == CNPAPI_ACTIVITY_TYPE_MEMSET);
  CHECK(g_seen[3].correlation_id == g_seen[2].correlation_id);
  CHECK(g_seen[4].type == CNPAPI_ACTIVITY_TYPE_MEMCPY);
  for (const Seen& s : g_seen)
    if (s.type != CNPAPI_ACTIVITY_TYPE_EXTERNAL_CORRELATION)
      CHECK((s.start != 0 && s.start <= s.end));
  // Queue order on the device.
  CHECK(g_seen[1].end <= g_seen[3].start);
  CHECK(g_seen[3].end <= g_seen[4].start);
  CHECK(g_seen[4].end <= cnpapiGetTimestamp());
  REQUIRE(cnpapiActivityFlushAll() == CNPAPI_SUCCESS);
  CHECK(g_completed == 1);  // nothing new: no empty buffer handed back
  CHECK(cnpapiRelease() == CNPAPI_SUCCESS);
}

TEST_CASE("cnpapi: a full buffer is handed back and the records go on in a new one",
          "[sim][cnpapi]") {
  g_buffer_bytes = 3 * sizeof(cnpapiActivityMemcpy);  // room for three copies, not four
  open_tool();
  cnrtQueue_t queue = nullptr;
  void* device = nullptr;
  std::vector<char> host(256);
  REQUIRE(cnrtQueueCreate(&queue) == cnrtSuccess);
  REQUIRE(cnrtMalloc(&device, host.size()) == cnrtSuccess);
  for (int i = 0; i < 7; ++i)
    REQUIRE(cnrtMemcpyAsync(device, host.data(), host.size(), queue, cnrtMemcpyHostToDev) ==
            cnrtSuccess);
  REQUIRE(cnrtQueueSync(queue) == cnrtSuccess);
  CHECK(g_completed == 2);
  REQUIRE(cnpapiActivityFlushAll() == CNPAPI_SUCCESS);
  CHECK(g_completed == 3);
  CHECK(g_seen.size() == 7);
}

TEST_CASE("cnpapi: enabling needs the callbacks, a pop needs a push, results have names",
          "[sim][cnpapi]") {
  CHECK(cnpapiActivityEnable(CNPAPI_ACTIVITY_TYPE_KERNEL) == CNPAPI_ERROR_NOT_INITIALIZED);
  REQUIRE(cnpapiInit() == CNPAPI_SUCCESS);
  CHECK(cnpapiActivityEnable(CNPAPI_ACTIVITY_TYPE_KERNEL) ==
        CNPAPI_ERROR_ACTIVITY_CALLBACK_NOT_REGISTERED);
  REQUIRE(cnpapiActivityRegisterCallbacks(requested, completed) == CNPAPI_SUCCESS);
  CHECK(cnpapiActivityRegisterCallbacks(requested, completed) ==
        CNPAPI_ERROR_ACTIVITY_CALLBACK_ALREADY_REGISTERED);
  CHECK(cnpapiActivityEnable(CNPAPI_ACTIVITY_TYPE_KERNEL) == CNPAPI_SUCCESS);
  CHECK(cnpapiActivityPopExternalCorrelationId(CNPAPI_EXTERNAL_CORRELATION_TYPE_CUSTOM1, nullptr) !=
        CNPAPI_SUCCESS);
  const char* name = nullptr;
  CHECK(cnpapiGetResultString(CNPAPI_ERROR_MAX_LIMIT_REACHED, &name) == CNPAPI_SUCCESS);
  CHECK(std::string(name) == "CNPAPI_ERROR_MAX_LIMIT_REACHED");
}
