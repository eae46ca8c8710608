// One phase per findings rule (e2e:findings, issue 40), in order, each inside a roctx range named
// after its rule, so that a run with --hiptx-trace places every finding's calls in its phase:
//
//   sync-copy          12 x (blocking hipMemcpy 512 KiB up, 512 KiB down), pinned host memory
//   pageable-copy      16 x hipMemcpyAsync 256 KiB up from a std::vector (not pinned), one sync
//   small-copies       4000 x hipMemcpyAsync 4 KiB up (pinned), one sync: 2.3 us each on the
//                      simulated device, of which the 2 us fixed cost is overhead
//   alloc-churn        16 x (hipMalloc 256 KiB, hipMemsetAsync, hipFree): the same size each time
//   launch-bound       200 kernels of 5 us, launched 20 us of host work apart, one sync
//   serialized-stream  8 chunks x (upload 512 KiB, 8 ms kernel, download 512 KiB), all on one
//                      stream while no other stream has work: nothing overlaps that could
//   sync-after-launch  a 200 us kernel, then 15 x (200 us kernel, hipStreamSynchronize,
//                      300 us host work)
//   device-idle        a 1 ms kernel, 40 ms of host computation (no calls), a 1 ms kernel
//   api-errors         5 calls the runtime rejects (unknown stream, freeing inside an allocation,
//                      device 99)
//
// Each phase ends with hipDeviceSynchronize inside its range, so no work bleeds into the next.
// The order keeps each pattern apart from the others: launch-bound is the first phase with
// kernels and the 8 ms kernels of serialized-stream follow it, longer than the time from the last
// short launch to theirs (unless the host stalls that long: a rule should end a run of short
// kernels at a host wait anyway); the unwaited first kernel of sync-after-launch keeps the waited
// last kernel of the phase before out of its run of waited launches; sync-after-launch and
// device-idle together have 18 kernels, under launch-bound's 20. Kernels run on `compute`, the
// copies of the copy phases on `copy` (or the null stream, the blocking ones), serialized-stream's
// alone on `serial`: no stream but `serial` has both copies and kernels.
//
// Prints `PHASE <rule> <begin_ns> <end_ns>` per phase (CLOCK_MONOTONIC, prof's clock: inside the
// phase's roctx range), `PID`, `EXPECT ...` (what each phase did) and `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/findings_hip
//     build/bin/prof --sim --hiptx-trace build/test-bin/findings_hip
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "findings_common.h"
#include "runtimes/hip/hip_runtime_decls.hpp"
#include "runtimes/roctx/roctx_runtime_decls.hpp"

// Kernel stand-ins (named from the ELF); different bodies so no two are folded into one.
extern "C" __attribute__((noinline, used)) void tiny_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void serial_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop\n nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void prologue_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop\n nop\n nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void step_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop\n nop\n nop\n nop" ::: "memory");
}
extern "C" __attribute__((noinline, used)) void idle_kernel(char* x) {
  (void)x;
  __asm__ volatile("nop\n nop\n nop\n nop\n nop" ::: "memory");
}

namespace {

#define CHECK(call) check((call), #call, __LINE__)

void check(hipError_t result, const char* what, int line) {
  if (result != hipSuccess) {
    std::printf("FAILED line %d: %s: %d\n", line, what, static_cast<int>(result));
    std::exit(1);
  }
}

constexpr size_t kBlockingBytes = kFindingsBlockingBytes;
constexpr int kPageableCopies = 16;
constexpr size_t kPageableBytes = 256 << 10;
constexpr int kSmallCopies = 4000;
constexpr size_t kSmallBytes = 4 << 10;
constexpr int kChurnRounds = 16;
constexpr size_t kChurnBytes = 256 << 10;
constexpr int kTinyKernels = 200;
constexpr long long kTinyLaunchGapNs = 20000;
constexpr int kSerialChunks = 8;
constexpr size_t kSerialChunkBytes = 512 << 10;
constexpr long long kSerialKernelNs = 8000000;
// Under 1 MiB: the simulator allocates such a buffer from the heap and zeroes it in the call. A
// larger one is mapped on first touch, and a stream worker faulting its pages in completes copies
// late (their modelled times stay): a phase's synchronize would leave the device idle meanwhile.
constexpr size_t kBufferBytes = 512 << 10;
constexpr int kMaxPhases = 16;

struct Program {
  hipStream_t compute = nullptr;
  hipStream_t copy = nullptr;
  hipStream_t serial = nullptr;
  char* pinned_in = nullptr;
  char* pinned_out = nullptr;
  char* device_a = nullptr;
  char* device_b = nullptr;
  std::vector<char> pageable = std::vector<char>(kPageableBytes * kPageableCopies, 1);
  int errors = 0;
  double host_result = 0.0;
};

struct Phase {
  const char* name;
  long long begin_ns;
  long long end_ns;
};

Phase g_phases[kMaxPhases];
int g_phase_count = 0;

// A kernel of `ns` on the simulated device: 256-thread blocks, enough of them.
void launch(void (*kernel)(char*), long long ns, char* data, hipStream_t stream) {
  const unsigned long long threads = findings_threads_for_ns(ns);
  const dim3 block{256, 1, 1};
  const dim3 grid{static_cast<unsigned>((threads + 255) / 256), 1, 1};
  void* args[] = {&data};
  CHECK(hipLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, 0, stream));
}

void run_phase(const char* name, void (*phase)(Program&), Program& program) {
  roctxRangePushA(name);
  const long long begin = findings_now_ns();
  phase(program);
  CHECK(hipDeviceSynchronize());
  const long long end = findings_now_ns();
  roctxRangePop();
  if (g_phase_count < kMaxPhases) g_phases[g_phase_count++] = {name, begin, end};
}

void sync_copy(Program& p) {
  for (int i = 0; i < kFindingsBlockingRounds; ++i) {
    CHECK(hipMemcpy(p.device_a, p.pinned_in, kBlockingBytes, hipMemcpyHostToDevice));
    CHECK(hipMemcpy(p.pinned_out, p.device_a, kBlockingBytes, hipMemcpyDeviceToHost));
  }
}

void pageable_copy(Program& p) {
  for (int i = 0; i < kPageableCopies; ++i)
    CHECK(hipMemcpyAsync(p.device_b + (i % 2) * kPageableBytes,
                         p.pageable.data() + i * kPageableBytes, kPageableBytes,
                         hipMemcpyHostToDevice, p.copy));
  CHECK(hipStreamSynchronize(p.copy));
}

void small_copies(Program& p) {
  for (int i = 0; i < kSmallCopies; ++i) {
    const size_t offset = (i % 128) * kSmallBytes;
    CHECK(hipMemcpyAsync(p.device_a + offset, p.pinned_in + offset, kSmallBytes,
                         hipMemcpyHostToDevice, p.copy));
  }
  CHECK(hipStreamSynchronize(p.copy));
}

void alloc_churn(Program& p) {
  for (int i = 0; i < kChurnRounds; ++i) {
    void* scratch = nullptr;
    CHECK(hipMalloc(&scratch, kChurnBytes));
    CHECK(hipMemsetAsync(scratch, 0, kChurnBytes, p.copy));
    CHECK(hipFree(scratch));
  }
}

void launch_bound(Program& p) {
  for (int i = 0; i < kTinyKernels; ++i) {
    // grid 1 x 64 threads: 5016 ns on the device, a quarter of the host work between launches.
    void* args[] = {&p.device_a};
    CHECK(hipLaunchKernel(reinterpret_cast<const void*>(&tiny_kernel), dim3{1, 1, 1},
                          dim3{64, 1, 1}, args, 0, p.compute));
    p.host_result += findings_host_compute(kTinyLaunchGapNs);
  }
  CHECK(hipStreamSynchronize(p.compute));
}

void serialized_stream(Program& p) {
  // Each chunk through the same buffers, in stream order.
  for (int c = 0; c < kSerialChunks; ++c) {
    CHECK(hipMemcpyAsync(p.device_a, p.pinned_in, kSerialChunkBytes, hipMemcpyHostToDevice,
                         p.serial));
    launch(serial_kernel, kSerialKernelNs, p.device_a, p.serial);
    CHECK(hipMemcpyAsync(p.pinned_out, p.device_b, kSerialChunkBytes, hipMemcpyDeviceToHost,
                         p.serial));
  }
  CHECK(hipStreamSynchronize(p.serial));
}

void sync_after_launch(Program& p) {
  launch(prologue_kernel, kFindingsWaitedKernelNs, p.device_a, p.compute);
  for (int i = 0; i < kFindingsWaitedLaunches; ++i) {
    launch(step_kernel, kFindingsWaitedKernelNs, p.device_a, p.compute);
    CHECK(hipStreamSynchronize(p.compute));
    p.host_result += findings_host_compute(kFindingsWaitedHostNs);
  }
}

void device_idle(Program& p) {
  launch(idle_kernel, kFindingsIdleKernelNs, p.device_a, p.compute);
  p.host_result += findings_host_compute(FINDINGS_IDLE_HOST_NS);
  launch(idle_kernel, kFindingsIdleKernelNs, p.device_b, p.compute);
  CHECK(hipStreamSynchronize(p.compute));
}

void expect_failure(Program& p, hipError_t result, const char* what) {
  if (result == hipSuccess) {
    std::printf("FAILED: %s succeeded\n", what);
    std::exit(1);
  }
  ++p.errors;
}

void api_errors(Program& p) {
  // A host address the runtime never handed out as a stream: hipErrorInvalidHandle.
  const auto unknown = reinterpret_cast<hipStream_t>(&p);
  expect_failure(p, hipStreamSynchronize(unknown), "hipStreamSynchronize(unknown)");
  expect_failure(p, hipStreamSynchronize(unknown), "hipStreamSynchronize(unknown)");
  expect_failure(
      p, hipMemcpyAsync(p.device_a, p.pinned_in, kSmallBytes, hipMemcpyHostToDevice, unknown),
      "hipMemcpyAsync(unknown stream)");
  // An address inside an allocation: hipErrorInvalidValue; device 99: hipErrorInvalidDevice.
  expect_failure(p, hipFree(p.device_a + 16), "hipFree(inside an allocation)");
  expect_failure(p, hipSetDevice(99), "hipSetDevice(99)");
}

}  // namespace

int main() {
  Program p;
  CHECK(hipSetDevice(0));
  CHECK(hipStreamCreateWithFlags(&p.compute, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&p.copy, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&p.serial, hipStreamNonBlocking));
  CHECK(hipHostMalloc(reinterpret_cast<void**>(&p.pinned_in), kBufferBytes, hipHostMallocDefault));
  CHECK(hipHostMalloc(reinterpret_cast<void**>(&p.pinned_out), kBufferBytes, hipHostMallocDefault));
  CHECK(hipMalloc(reinterpret_cast<void**>(&p.device_a), kBufferBytes));
  CHECK(hipMalloc(reinterpret_cast<void**>(&p.device_b), kBufferBytes));

  run_phase("sync-copy", sync_copy, p);
  run_phase("pageable-copy", pageable_copy, p);
  run_phase("small-copies", small_copies, p);
  run_phase("alloc-churn", alloc_churn, p);
  run_phase("launch-bound", launch_bound, p);
  run_phase("serialized-stream", serialized_stream, p);
  run_phase("sync-after-launch", sync_after_launch, p);
  run_phase("device-idle", device_idle, p);
  run_phase("api-errors", api_errors, p);

  CHECK(hipFree(p.device_a));
  CHECK(hipFree(p.device_b));
  CHECK(hipHostFree(p.pinned_in));
  CHECK(hipHostFree(p.pinned_out));
  CHECK(hipStreamDestroy(p.compute));
  CHECK(hipStreamDestroy(p.copy));
  CHECK(hipStreamDestroy(p.serial));

  for (int i = 0; i < g_phase_count; ++i)
    findings_print_phase(g_phases[i].name, g_phases[i].begin_ns, g_phases[i].end_ns);
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf(
      "EXPECT blocking_copies=%d pageable_copies=%d small_copies=%d churn_allocs=%d "
      "tiny_kernels=%d serial_chunks=%d waited_launches=%d idle_host_ns=%lld errors=%d\n",
      2 * kFindingsBlockingRounds, kPageableCopies, kSmallCopies, kChurnRounds, kTinyKernels,
      kSerialChunks, kFindingsWaitedLaunches, FINDINGS_IDLE_HOST_NS, p.errors);
  std::printf("END\n");
  return p.host_result > 0.0 ? 0 : 1;
}
