// The simulated device's timing model, checked against its own ground truth (PROF_SIM_TRUTH):
// ordering per stream, exact durations, cross-stream dependencies, legacy null-stream ordering,
// asynchrony and prompt completion.
#include <catch2/catch.hpp>
#include <cstdio>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "runtimes/hip/hip_runtime_decls.hpp"
#include "sim/model.hpp"
#include "test/unit/sim_test_support.hpp"

namespace {

using prof::sim_test::make_stream;

using prof::sim::CopyDirection;

// Every op of this test binary goes to one truth file, chosen before the runtime's first use.
const std::string kTruthPath = [] {
  std::string path = "/tmp/prof_sim_timing_test." + std::to_string(getpid()) + ".jsonl";
  std::remove(path.c_str());
  setenv("PROF_SIM_TRUTH", path.c_str(), 1);
  return path;
}();
// The tests leave nothing in /tmp: destroyed after the simulator's own exit flush (registered
// later, so run earlier).
struct RemoveTruthAtExit {
  ~RemoveTruthAtExit() { std::remove(kTruthPath.c_str()); }
} g_remove_truth_at_exit;

constexpr size_t kBigBytes = size_t{64} << 20;  // 5.6 ms at 12 GB/s: long enough to observe

// Cross-stream checks block on a long kernel rather than a big copy: a kernel costs the host no
// CPU, so the test's own submissions are not delayed on a loaded 2-core machine.
constexpr dim3 kLongGrid{80000, 1, 1};  // x 1024 threads: 5 us + 20.48 ms
constexpr dim3 kLongBlock{1024, 1, 1};

void kernel_stub() {}
const void* const kKernel = reinterpret_cast<const void*>(&kernel_stub);

struct TruthLine {
  std::string text;
  uint64_t number(const std::string& key) const {
    const size_t at = text.find("\"" + key + "\":");
    REQUIRE(at != std::string::npos);
    return std::strtoull(text.c_str() + at + key.size() + 3, nullptr, 10);
  }
  std::string string(const std::string& key) const {
    const size_t at = text.find("\"" + key + "\":");
    REQUIRE(at != std::string::npos);
    const size_t begin = at + key.size() + 3;
    if (text.compare(begin, 4, "null") == 0) return "null";
    return text.substr(begin + 1, text.find('"', begin + 1) - begin - 1);
  }
  uint64_t duration_ns() const { return number("end_ns") - number("begin_ns"); }
};

// The stream's lines in stream order (the file is not: a blocking copy's line is written after
// its call returned, possibly after lines of later async work).
std::vector<TruthLine> truth_for(hipStream_t stream) {
  std::vector<TruthLine> lines;
  std::ifstream in(kTruthPath);
  const std::string key = "\"stream\":" + std::to_string(reinterpret_cast<uint64_t>(stream)) + ",";
  for (std::string line; std::getline(in, line);) {
    if (line.find(key) != std::string::npos) lines.push_back({line});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const TruthLine& a, const TruthLine& b) {
    return a.number("stream_seq") < b.number("stream_seq");
  });
  return lines;
}

// Pinned host memory: an async copy of pageable memory returns only once it is done (sim/copy.cpp).
struct PinnedHost {
  char* bytes = nullptr;
  PinnedHost() {
    REQUIRE(hipHostMalloc(reinterpret_cast<void**>(&bytes), kBigBytes, 0) == hipSuccess);
    std::memset(bytes, 7, kBigBytes);
  }
  ~PinnedHost() { hipHostFree(bytes); }
  char* data() const { return bytes; }
};

struct Buffers {
  PinnedHost host;
  void* device = nullptr;
  Buffers() { REQUIRE(hipMalloc(&device, kBigBytes) == hipSuccess); }
  ~Buffers() { hipFree(device); }
};

}  // namespace

TEST_CASE("sim: ops on one stream are ordered and take exactly their modelled durations", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  Buffers b;
  hipEvent_t start, stop;
  REQUIRE(hipEventCreate(&start) == hipSuccess);
  REQUIRE(hipEventCreate(&stop) == hipSuccess);
  REQUIRE(hipMemcpyAsync(b.device, b.host.data(), 4096, hipMemcpyHostToDevice, s) == hipSuccess);
  REQUIRE(hipExtLaunchKernel(kKernel, dim3{8, 2, 1}, dim3{64, 1, 1}, nullptr, 0, s, start, stop,
                             0) == hipSuccess);
  REQUIRE(hipMemsetAsync(b.device, 0, 8000, s) == hipSuccess);
  REQUIRE(hipStreamSynchronize(s) == hipSuccess);

  const auto lines = truth_for(s);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].string("kind") == "copy");
  CHECK(lines[0].duration_ns() ==
        prof::sim::kCopyLaunchNs + 4096 / prof::sim::kHostDeviceBytesPerNs);
  CHECK(lines[0].duration_ns() == prof::sim::copy_duration_ns(4096, CopyDirection::kH2D));
  CHECK(lines[1].string("kind") == "kernel");
  CHECK(lines[1].duration_ns() == 5000 + 8 * 2 * 64 / 4);
  CHECK(lines[2].string("kind") == "memset");
  CHECK(lines[2].duration_ns() == 1000 + 8000 / 800);
  for (size_t i = 1; i < lines.size(); ++i)
    CHECK(lines[i].number("begin_ns") >= lines[i - 1].number("end_ns"));

  float ms = -1;
  REQUIRE(hipEventElapsedTime(&ms, start, stop) == hipSuccess);
  CHECK(std::abs(double(ms) * 1e6 - double(lines[1].duration_ns())) < 1.0);
  hipEventDestroy(start);
  hipEventDestroy(stop);
  hipStreamDestroy(s);
}

TEST_CASE("sim: async copies return before the device finishes", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  Buffers b;
  REQUIRE(hipMemcpyAsync(b.device, b.host.data(), kBigBytes, hipMemcpyHostToDevice, s) ==
          hipSuccess);
  CHECK(hipStreamQuery(s) == hipErrorNotReady);
  REQUIRE(hipStreamSynchronize(s) == hipSuccess);
  CHECK(hipStreamQuery(s) == hipSuccess);
  const auto lines = truth_for(s);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].duration_ns() == prof::sim::copy_duration_ns(kBigBytes, CopyDirection::kH2D));
  hipStreamDestroy(s);
}

TEST_CASE("sim: async copies of pageable memory return once the device is done", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  Buffers b;
  std::vector<char> pageable(kBigBytes, 3);
  REQUIRE(hipMemcpyAsync(b.device, pageable.data(), kBigBytes, hipMemcpyHostToDevice, s) ==
          hipSuccess);
  CHECK(hipStreamQuery(s) == hipSuccess);
  REQUIRE(hipMemcpyAsync(pageable.data(), b.device, kBigBytes, hipMemcpyDeviceToHost, s) ==
          hipSuccess);
  CHECK(hipStreamQuery(s) == hipSuccess);
  // Registered, the same memory is copied asynchronously; unregistered, it is pageable again.
  REQUIRE(hipHostRegister(pageable.data(), kBigBytes, 0) == hipSuccess);
  REQUIRE(hipMemcpyAsync(b.device, pageable.data(), kBigBytes, hipMemcpyHostToDevice, s) ==
          hipSuccess);
  CHECK(hipStreamQuery(s) == hipErrorNotReady);
  REQUIRE(hipHostUnregister(pageable.data()) == hipSuccess);  // waits for the device
  REQUIRE(hipMemcpyAsync(b.device, pageable.data(), kBigBytes, hipMemcpyHostToDevice, s) ==
          hipSuccess);
  CHECK(hipStreamQuery(s) == hipSuccess);
  hipStreamDestroy(s);
}

// A kernel executes nothing, so its worker is never late and completion is exactly on time
// (a big copy's real memmove, page faults included, may outlast its modelled duration).
TEST_CASE("sim: blocking calls return promptly after the modelled completion", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  const dim3 grid{40000, 1, 1};  // 40000 x 1024 threads: 5 us + 10.24 ms
  const dim3 block{1024, 1, 1};
  REQUIRE(hipLaunchKernel(kKernel, grid, block, nullptr, 0, s) == hipSuccess);
  CHECK(hipStreamQuery(s) == hipErrorNotReady);
  REQUIRE(hipStreamSynchronize(s) == hipSuccess);
  const uint64_t returned_ns = prof::now_ns();  // wall-clock: ordering (and printed)
  const auto lines = truth_for(s);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].duration_ns() == 5000 + 40000ull * 1024 / 4);
  CHECK(returned_ns >= lines[0].number("end_ns"));
  // How late after the kernel's end it returned is a few us when idle and whatever the scheduler
  // makes it on a busy host: printed, not bounded (docs/guarantees.md, "The tests").
  std::printf("synchronize returned %.3f ms after the kernel's end\n",  // wall-clock: message
              static_cast<double>(returned_ns - lines[0].number("end_ns")) / 1e6);
  hipStreamDestroy(s);
}

// The worker does not wait out each kernel (it has nothing to execute for one): a kernel queued
// behind others is complete exactly when the clock passes its own modelled end, not when the
// worker next wakes or when the queue has drained.
TEST_CASE("sim: queued kernels complete one by one, each at its own modelled end", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  constexpr int kKernels = 3;
  hipEvent_t after[kKernels];
  for (hipEvent_t& e : after) REQUIRE(hipEventCreate(&e) == hipSuccess);
  const dim3 grid{160000, 1, 1};  // x 1024 threads: 5 us + 40.96 ms, a margin for a loaded host
  for (hipEvent_t& e : after) {
    REQUIRE(hipLaunchKernel(kKernel, grid, kLongBlock, nullptr, 0, s) == hipSuccess);
    REQUIRE(hipEventRecord(e, s) == hipSuccess);
  }
  CHECK(hipEventQuery(after[0]) == hipErrorNotReady);
  uint64_t returned_ns[kKernels];
  for (int i = 0; i < kKernels; ++i) {
    REQUIRE(hipEventSynchronize(after[i]) == hipSuccess);
    returned_ns[i] = prof::now_ns();
    CHECK(hipEventQuery(after[i]) == hipSuccess);
    if (i + 1 < kKernels) {
      CHECK(hipEventQuery(after[i + 1]) == hipErrorNotReady);
      CHECK(hipStreamQuery(s) == hipErrorNotReady);
    }
  }
  CHECK(hipStreamQuery(s) == hipSuccess);
  const auto lines = truth_for(s);
  REQUIRE(lines.size() == kKernels);
  for (int i = 0; i < kKernels; ++i) {
    CHECK(returned_ns[i] >= lines[i].number("end_ns"));
    // Before the next kernel's end, 41 ms later: each wait ended on its own kernel.
    if (i + 1 < kKernels) CHECK(returned_ns[i] < lines[i + 1].number("end_ns"));
  }
  for (int i = 1; i < kKernels; ++i) {
    float ms = -1;
    REQUIRE(hipEventElapsedTime(&ms, after[i - 1], after[i]) == hipSuccess);
    CHECK(std::abs(double(ms) * 1e6 - double(lines[i].duration_ns())) < 1.0);
  }
  for (hipEvent_t e : after) hipEventDestroy(e);
  hipStreamDestroy(s);
}

TEST_CASE("sim: hipStreamWaitEvent orders work across streams in device time", "[sim]") {
  hipStream_t a = make_stream(hipStreamNonBlocking);
  hipStream_t b = make_stream(hipStreamNonBlocking);
  hipEvent_t ev;
  REQUIRE(hipEventCreate(&ev) == hipSuccess);
  REQUIRE(hipLaunchKernel(kKernel, kLongGrid, kLongBlock, nullptr, 0, a) == hipSuccess);
  REQUIRE(hipEventRecord(ev, a) == hipSuccess);
  CHECK(hipEventQuery(ev) == hipErrorNotReady);
  REQUIRE(hipStreamWaitEvent(b, ev, 0) == hipSuccess);
  REQUIRE(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, b) == hipSuccess);
  REQUIRE(hipStreamSynchronize(b) == hipSuccess);
  CHECK(hipEventQuery(ev) == hipSuccess);
  const auto copy = truth_for(a);
  const auto kernel = truth_for(b);
  REQUIRE(copy.size() == 1);
  REQUIRE(kernel.size() == 1);
  // The kernel was submitted long before the first one's end, so it starts exactly at the event.
  CHECK(kernel[0].number("begin_ns") == copy[0].number("end_ns"));
  hipEventDestroy(ev);
  hipStreamDestroy(a);
  hipStreamDestroy(b);
}

TEST_CASE("sim: the null stream follows legacy ordering with blocking streams only", "[sim]") {
  hipStream_t blocking = make_stream(hipStreamDefault);
  hipStream_t later = make_stream(hipStreamDefault);
  hipStream_t free_running = make_stream(hipStreamNonBlocking);
  REQUIRE(hipLaunchKernel(kKernel, kLongGrid, kLongBlock, nullptr, 0, blocking) == hipSuccess);
  REQUIRE(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{32, 1, 1}, nullptr, 0, nullptr) ==
          hipSuccess);
  REQUIRE(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{32, 1, 1}, nullptr, 0, later) == hipSuccess);
  REQUIRE(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{32, 1, 1}, nullptr, 0, free_running) ==
          hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  const auto copy = truth_for(blocking);
  const auto null_kernel = truth_for(nullptr);
  const auto later_kernel = truth_for(later);
  const auto free_kernel = truth_for(free_running);
  REQUIRE(copy.size() == 1);
  REQUIRE(null_kernel.size() >= 1);
  REQUIRE(later_kernel.size() == 1);
  REQUIRE(free_kernel.size() == 1);
  CHECK(null_kernel.back().number("begin_ns") == copy[0].number("end_ns"));
  CHECK(later_kernel[0].number("begin_ns") == null_kernel.back().number("end_ns"));
  CHECK(free_kernel[0].number("begin_ns") < copy[0].number("end_ns"));
  hipStreamDestroy(blocking);
  hipStreamDestroy(later);
  hipStreamDestroy(free_running);
}

TEST_CASE("sim: two non-blocking streams overlap in device time", "[sim]") {
  hipStream_t a = make_stream(hipStreamNonBlocking);
  hipStream_t b = make_stream(hipStreamNonBlocking);
  Buffers buf;
  std::vector<char> back(kBigBytes);
  REQUIRE(hipLaunchKernel(kKernel, kLongGrid, kLongBlock, nullptr, 0, a) == hipSuccess);
  REQUIRE(hipMemcpyAsync(back.data(), buf.device, 1024, hipMemcpyDeviceToHost, b) == hipSuccess);
  REQUIRE(hipStreamSynchronize(a) == hipSuccess);
  REQUIRE(hipStreamSynchronize(b) == hipSuccess);
  const auto la = truth_for(a);
  const auto lb = truth_for(b);
  REQUIRE(la.size() == 1);
  REQUIRE(lb.size() == 1);
  CHECK(lb[0].number("begin_ns") < la[0].number("end_ns"));
  CHECK(lb[0].number("end_ns") > la[0].number("begin_ns"));
  CHECK(lb[0].string("direction") == "D2H");
  hipStreamDestroy(a);
  hipStreamDestroy(b);
}

TEST_CASE("sim: truth lines carry sequence numbers, geometry, bytes and names", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  Buffers buf;
  static char registered_stub;
  void** module = __hipRegisterFatBinary(nullptr);
  __hipRegisterFunction(module, &registered_stub, nullptr, "_Z6scaleddPf", 0, nullptr, nullptr,
                        nullptr, nullptr, nullptr);
  hipEvent_t ev;
  REQUIRE(hipEventCreate(&ev) == hipSuccess);
  REQUIRE(hipEventRecord(ev, s) == hipSuccess);  // stream_seq 1, a marker: no line
  REQUIRE(hipMemcpyAsync(buf.device, buf.host.data(), 100, hipMemcpyDefault, s) == hipSuccess);
  REQUIRE(hipLaunchKernel(&registered_stub, dim3{3, 2, 1}, dim3{4, 4, 2}, nullptr, 256, s) ==
          hipSuccess);
  REQUIRE(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, s) == hipSuccess);
  REQUIRE(hipStreamSynchronize(s) == hipSuccess);
  const auto lines = truth_for(s);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].number("stream_seq") == 2);
  CHECK(lines[0].number("op_seq") == 1);
  CHECK(lines[0].number("bytes") == 100);
  CHECK(lines[0].string("direction") == "H2D");  // hipMemcpyDefault, inferred from the registry
  CHECK(lines[1].number("stream_seq") == 3);
  CHECK(lines[1].number("op_seq") == 2);
  CHECK(lines[1].text.find("\"grid\":[3,2,1],\"block\":[4,4,2],\"shared_mem_bytes\":256") !=
        std::string::npos);
  CHECK(lines[1].number("function") == reinterpret_cast<uint64_t>(&registered_stub));
  CHECK(lines[1].string("name") == "_Z6scaleddPf");
  CHECK(lines[2].string("name") == "null");
  CHECK(lines[2].number("device") == 0);
  hipEventDestroy(ev);
  hipStreamDestroy(s);
}

// D2D is modelled at 400 GB/s, far faster than a real 64 MiB memmove on any host: the blocking
// copy is late, so it ends when its bytes arrived and its truth line says so.
TEST_CASE("sim: a blocking copy slower than modelled ends when its bytes arrived", "[sim]") {
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(hipMalloc(&a, kBigBytes) == hipSuccess);
  REQUIRE(hipMalloc(&b, kBigBytes) == hipSuccess);
  REQUIRE(hipMemset(a, 5, kBigBytes) == hipSuccess);
  const uint64_t called_ns = prof::now_ns();
  REQUIRE(hipMemcpy(b, a, kBigBytes, hipMemcpyDeviceToDevice) == hipSuccess);
  const uint64_t returned_ns = prof::now_ns();
  CHECK(static_cast<unsigned char*>(b)[kBigBytes - 1] == 5);
  REQUIRE(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, nullptr) ==
          hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);  // also writes the deferred blocking lines
  const auto lines = truth_for(nullptr);
  REQUIRE(lines.size() >= 3);
  const TruthLine& copy = lines[lines.size() - 2];
  const TruthLine& kernel = lines.back();
  CHECK(copy.string("kind") == "copy");
  CHECK(copy.string("direction") == "D2D");
  CHECK(copy.number("begin_ns") >= called_ns);
  CHECK(copy.duration_ns() > prof::sim::copy_duration_ns(kBigBytes, CopyDirection::kD2D));
  CHECK(copy.number("end_ns") <= returned_ns);  // the call returned after its copy ended
  CHECK(kernel.number("begin_ns") >= copy.number("end_ns"));  // later work follows the real end
  // The calling thread ran the copy; a worker ran the kernel.
  CHECK(copy.text.find("\"on_caller\":true}") != std::string::npos);
  CHECK(kernel.text.find("\"on_caller\":false}") != std::string::npos);
  hipFree(a);
  hipFree(b);
}
