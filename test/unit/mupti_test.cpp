// MUPTI as prof reads it (interpose/adapters/musa_adapter.hpp): on the simulated libmupti.so over
// libmusart.so.5, each op enqueued while prof's id is pushed reaches activity_deliver under that
// id with its device times; and prof's walk of a buffer skips what it cannot trust (a kind it did
// not enable, an external kind it did not push, implausible times, a record past the buffer's end).
#include <catch2/catch.hpp>

#include <cstring>
#include <mutex>
#include <vector>

#include "interpose/adapters/musa_adapter.hpp"
#include "runtimes/musa/musa_runtime_decls.hpp"

// The simulated libmupti.so's walk, which the buffer test hands prof in place of a real one.
extern "C" int muptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size,
                                          prof::mupti::Activity** record);

namespace {

struct Delivered {
  uint64_t id, begin_ns, end_ns;
};
std::mutex g_mutex;
std::vector<Delivered> g_delivered;

std::vector<Delivered> take_delivered() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<Delivered> out;
  out.swap(g_delivered);
  return out;
}

__attribute__((noinline)) void test_kernel() { __asm__ volatile("" ::: "memory"); }

}  // namespace

// device_timing.cpp's, for this test: what the adapter hands on.
namespace prof::interpose {
void activity_deliver(RuntimeId runtime, uint64_t id, uint64_t begin_ns, uint64_t end_ns) noexcept {
  if (runtime != RuntimeId::kMusa) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_delivered.push_back({id, begin_ns, end_ns});
}
void activity_note_id(uint64_t) noexcept {}
}  // namespace prof::interpose

namespace mt = prof::interpose::musa_timing;
namespace mupti = prof::mupti;

TEST_CASE("mupti: ops enqueued while prof's id is pushed come back under it, with device times",
          "[mupti]") {
  int devices = 0;
  REQUIRE(musaGetDeviceCount(&devices) == musaSuccess);  // the runtime is loaded and initialised
  REQUIRE(mt::activity_open());
  take_delivered();
  musaStream_t s = nullptr;
  REQUIRE(musaStreamCreateWithFlags(&s, musaStreamNonBlocking) == musaSuccess);
  void* dev = nullptr;
  REQUIRE(musaMalloc(&dev, 1 << 20) == musaSuccess);
  std::vector<char> host(1 << 20);

  mt::activity_push(41);
  REQUIRE(musaMemsetAsync(dev, 0, 1 << 20, s) == musaSuccess);
  mt::activity_pop();
  mt::activity_push(42);
  REQUIRE(musaMemcpyAsync(host.data(), dev, 1 << 20, musaMemcpyDeviceToHost, s) == musaSuccess);
  mt::activity_pop();
  mt::activity_push(43);
  REQUIRE(musaLaunchKernel(reinterpret_cast<const void*>(&test_kernel), dim3{4, 1, 1},
                           dim3{64, 1, 1}, nullptr, 0, s) == musaSuccess);
  mt::activity_pop();
  // Nothing pushed: the op has no binding, so nothing is delivered for it.
  REQUIRE(musaMemsetAsync(dev, 1, 1 << 20, s) == musaSuccess);
  REQUIRE(musaStreamSynchronize(s) == musaSuccess);
  mt::activity_flush();

  std::vector<Delivered> got = take_delivered();
  REQUIRE(got.size() == 3);
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].id == 41 + i);  // one stream: reported in order
    CHECK(got[i].begin_ns > 0);
    CHECK(got[i].begin_ns <= got[i].end_ns);
    if (i > 0) CHECK(got[i - 1].end_ns <= got[i].begin_ns);
  }
  REQUIRE(musaFree(dev) == musaSuccess);
  REQUIRE(musaStreamDestroy(s) == musaSuccess);
}

namespace {

// A buffer of records laid out as the header says, walked with the simulated library's
// muptiActivityGetNextRecord (as prof walks real ones).
struct Buffer {
  alignas(8) uint8_t bytes[1024] = {};
  size_t valid = 0;
  template <typename T>
  T& add() {
    T* r = reinterpret_cast<T*>(bytes + valid);
    valid += sizeof(T);
    return *r;
  }
};

void binding(Buffer& b, uint32_t correlation_id, uint64_t external_id,
             uint32_t kind = mupti::kExternalCorrelationKindCustom0) {
  auto& r = b.add<mupti::ActivityExternalCorrelation>();
  r.kind = mupti::kActivityKindExternalCorrelation;
  r.externalKind = kind;
  r.externalId = external_id;
  r.correlationId = correlation_id;
}

void memset_record(Buffer& b, uint32_t correlation_id, uint64_t start, uint64_t end) {
  auto& r = b.add<mupti::ActivityMemset3>();
  r.kind = mupti::kActivityKindMemset;
  r.correlationId = correlation_id;
  r.start = start;
  r.end = end;
}

void complete(Buffer& b, size_t valid) {
  // The callback keeps the buffer for reuse: hand it a copy it may keep.
  auto* copy = static_cast<uint8_t*>(std::aligned_alloc(64, sizeof b.bytes));
  std::memcpy(copy, b.bytes, sizeof b.bytes);
  mt::mupti_buffer_completed(nullptr, 0, copy, sizeof b.bytes, valid);
}

}  // namespace

TEST_CASE("mupti: prof uses a record only when its kind, external kind and times are plausible",
          "[mupti]") {
  mt::g_mupti.next_record = muptiActivityGetNextRecord;
  take_delivered();
  Buffer b;
  memset_record(b, 900, 1000, 2000);  // before its binding: waits for it
  binding(b, 900, 7);
  binding(b, 901, 8, mupti::kExternalCorrelationKindCustom1);  // not prof's external kind
  memset_record(b, 901, 1000, 2000);
  binding(b, 902, 9);
  memset_record(b, 902, 3000, 2000);  // ends before it begins
  binding(b, 903, 10);
  memset_record(b, 903, 0, 2000);  // no start: in flight
  complete(b, b.valid);
  std::vector<Delivered> got = take_delivered();
  REQUIRE(got.size() == 1);
  CHECK(got[0].id == 7);
  CHECK(got[0].begin_ns == 1000);
  CHECK(got[0].end_ns == 2000);

  // A record cut by the buffer's valid end is not read; one of a kind not enabled stops the walk.
  Buffer c;
  binding(c, 904, 11);
  memset_record(c, 904, 5000, 6000);
  complete(c, c.valid - 8);
  Buffer d;
  binding(d, 905, 12);
  d.add<mupti::ActivityExternalCorrelation>().kind =
      77;  // unknown to the walk: its size is not known
  memset_record(d, 905, 5000, 6000);
  complete(d, d.valid);
  CHECK(take_delivered().empty());
}
