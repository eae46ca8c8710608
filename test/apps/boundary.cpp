// One event per launch boundary (test/e2e/test_boundary.py): prof may take the end event of a
// thread's previous op on a stream as the next op's begin, but only when nothing can have been
// enqueued on the stream in between. This program enqueues back-to-back work (where prof borrows)
// and, between two launches of the same thread on one stream, (a) a wait on another stream's long
// kernel made by the same thread and (b) a long kernel from another thread: in both the second
// launch starts when the long kernel ends, milliseconds after the first launch's end, which a
// borrowed begin would report. Exits 0.
// Usage: boundary
#include <cstdio>
#include <thread>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void short_kernel(float* out) {
  if (out) *out = 1;
}
__attribute__((noinline, used)) void long_kernel(float* out) {
  if (out) *out = 2;
}

namespace {

const void* fn(void (*f)(float*)) { return reinterpret_cast<const void*>(f); }

// The simulator's kernel takes 5 us + 0.25 ns per thread: 4 ms for the long one, longer than the
// sanitizer stage's 1 ms tolerance, so a borrowed begin fails there too.
void launch_short(hipStream_t s) {
  PROF_HIP(hipLaunchKernel(fn(short_kernel), dim3(4), dim3(64), nullptr, 0, s));
}
void launch_long(hipStream_t s) {
  PROF_HIP(hipLaunchKernel(fn(long_kernel), dim3(16384), dim3(1024), nullptr, 0, s));
}

}  // namespace

int main() {
  hipStream_t s = nullptr, other = nullptr;
  hipEvent_t done = nullptr;
  PROF_HIP(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  PROF_HIP(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
  PROF_HIP(hipEventCreateWithFlags(&done, hipEventDisableTiming));

  // Back to back: queued behind each other, and after the stream went idle.
  launch_short(s);
  launch_short(s);
  launch_short(s);
  PROF_HIP(hipStreamSynchronize(s));
  launch_short(s);

  // (a) Between two launches on the stream this thread makes it wait for a long kernel on another
  // stream (enqueued before both, so the only call in between is the untimed wait).
  launch_long(other);
  PROF_HIP(hipEventRecord(done, other));
  launch_short(s);
  PROF_HIP(hipStreamWaitEvent(s, done, 0));
  launch_short(s);
  PROF_HIP(hipDeviceSynchronize());

  // (b) Another thread enqueues a long kernel on the stream between this thread's launches.
  launch_short(s);
  std::thread([&] { launch_long(s); }).join();
  launch_short(s);
  launch_short(s);
  PROF_HIP(hipDeviceSynchronize());

  PROF_HIP(hipEventDestroy(done));
  PROF_HIP(hipStreamDestroy(other));
  PROF_HIP(hipStreamDestroy(s));
  std::printf("EXPECT api_calls=%ld kernels=11\n", samples::g_api_calls);
  std::printf("END\n");
  return 0;
}
