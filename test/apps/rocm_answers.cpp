// The simulated HIP runtime answers as ROCm 5.2 does (issue 42, "The simulated device answers
// like ROCm"): each mode reproduces, in small, a HeCBench program that met a wrong answer.
// test/e2e/test_rocm_answers.py runs every mode plainly on the simulator and under prof.
// Usage: rocm_answers MODE
//   register  hipHostGetDevicePointer on hipHostRegister'ed and hipHostMalloc'ed memory, at its
//             base and inside it; registering twice, unregistering twice
//   props     hipGetDeviceProperties against hipDeviceGetAttribute, field by field
//   free_host hipFree of hipHostMalloc memory and hipHostFree of hipMalloc memory (ROCm 5.2 frees
//             both), a double free, a free of memory HIP did not allocate
//   lazy      resident memory after a 1 GiB hipMalloc (a device allocates lazily: no 1 GiB memset)
//   channel   hipCreateChannelDesc's descriptor
//   fork      the parent makes a stream and queues work, forks three children (one exits at once,
//             one uses the parent's stream, one makes its own), waits for them
// Every HIP call prints `RESULT <pid> <name> <hipError_t or ->` in call order (the e2e test finds
// the same calls, in the same order, with the same results in prof's db); the answers the test
// checks are `ANSWER <key> <value>` lines. Then `EXPECT api_calls=N` (the parent's calls) and END.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hip_calls.hpp"

namespace {

// An int, not a hipError_t: HIP's header marks hipError_t nodiscard, and most results here are
// only printed.
int note(const char* call, hipError_t result) {
  const char* paren = std::strchr(call, '(');
  std::printf("RESULT %d %.*s %d\n", static_cast<int>(getpid()), static_cast<int>(paren - call),
              call, static_cast<int>(result));
  return static_cast<int>(result);
}
// Calls a HIP function, counts it, prints its result and returns it.
#define ANSWERED(call) note(#call, PROF_HIP_RESULT(call))

void answer(const char* key, long long value) { std::printf("ANSWER %s %lld\n", key, value); }

int mode_register() {
  constexpr size_t kBytes = size_t{1} << 20;
  auto* buffer = static_cast<char*>(std::aligned_alloc(4096, kBytes));
  void* device = nullptr;
  answer("get_before_register", ANSWERED(hipHostGetDevicePointer(&device, buffer, 0)));
  answer("register", ANSWERED(hipHostRegister(buffer, kBytes, 0)));
  answer("get_base", ANSWERED(hipHostGetDevicePointer(&device, buffer, 0)));
  answer("get_base_same", device == buffer);
  device = nullptr;
  answer("get_inside", ANSWERED(hipHostGetDevicePointer(&device, buffer + 4096 + 5, 0)));
  answer("get_inside_same", device == buffer + 4096 + 5);
  hipPointerAttribute_t attributes;
  std::memset(&attributes, 0xff, sizeof attributes);
  answer("pointer_attributes", ANSWERED(hipPointerGetAttributes(&attributes, buffer + 10)));
  answer("pointer_attributes_host", attributes.memoryType == hipMemoryTypeHost);
  // The device pointer works as one: a copy through it reaches the registered bytes.
  std::memset(buffer + 4096 + 5, 0x5a, 64);
  void* on_device = nullptr;
  answer("malloc", ANSWERED(hipMalloc(&on_device, 64)));
  answer("copy_from_device_pointer",
         ANSWERED(hipMemcpy(on_device, device, 64, hipMemcpyDeviceToDevice)));
  unsigned char back[64] = {};
  answer("copy_back", ANSWERED(hipMemcpy(back, on_device, 64, hipMemcpyDeviceToHost)));
  answer("copied_bytes_right", back[0] == 0x5a && back[63] == 0x5a);
  answer("register_again", ANSWERED(hipHostRegister(buffer + 100, 16, 0)));
  answer("unregister", ANSWERED(hipHostUnregister(buffer)));
  answer("unregister_again", ANSWERED(hipHostUnregister(buffer)));
  answer("get_after_unregister", ANSWERED(hipHostGetDevicePointer(&device, buffer, 0)));
  char* pinned = nullptr;
  answer("host_malloc", ANSWERED(hipHostMalloc(reinterpret_cast<void**>(&pinned), 4096, 0)));
  device = nullptr;
  answer("get_host_malloc_inside", ANSWERED(hipHostGetDevicePointer(&device, pinned + 8, 0)));
  answer("get_host_malloc_inside_same", device == pinned + 8);
  answer("unregister_host_malloc", ANSWERED(hipHostUnregister(pinned)));
  answer("host_free", ANSWERED(hipHostFree(pinned)));
  answer("free", ANSWERED(hipFree(on_device)));
  std::free(buffer);
  return 0;
}

int mode_props() {
  hipDeviceProp_t p;
  std::memset(&p, 0xff, sizeof p);
  ANSWERED(hipGetDeviceProperties(&p, 0));
  const struct {
    hipDeviceAttribute_t attribute;
    long long field;
    const char* name;
  } pairs[] = {
      {hipDeviceAttributeManagedMemory, p.managedMemory, "managedMemory"},
      {hipDeviceAttributeConcurrentManagedAccess, p.concurrentManagedAccess,
       "concurrentManagedAccess"},
      {hipDeviceAttributePageableMemoryAccess, p.pageableMemoryAccess, "pageableMemoryAccess"},
      {hipDeviceAttributeCanMapHostMemory, p.canMapHostMemory, "canMapHostMemory"},
      {hipDeviceAttributeConcurrentKernels, p.concurrentKernels, "concurrentKernels"},
      {hipDeviceAttributeCooperativeLaunch, p.cooperativeLaunch, "cooperativeLaunch"},
      {hipDeviceAttributeIntegrated, p.integrated, "integrated"},
      {hipDeviceAttributeKernelExecTimeout, p.kernelExecTimeoutEnabled, "kernelExecTimeoutEnabled"},
      {hipDeviceAttributeEccEnabled, p.ECCEnabled, "ECCEnabled"},
      {hipDeviceAttributeMaxPitch, static_cast<long long>(p.memPitch), "memPitch"},
      {hipDeviceAttributeTextureAlignment, static_cast<long long>(p.textureAlignment),
       "textureAlignment"},
      {hipDeviceAttributeMultiprocessorCount, p.multiProcessorCount, "multiProcessorCount"},
      {hipDeviceAttributeWarpSize, p.warpSize, "warpSize"},
  };
  int mismatches = 0;
  for (const auto& pair : pairs) {
    int value = -1;
    ANSWERED(hipDeviceGetAttribute(&value, pair.attribute, 0));
    if (value != pair.field) {
      ++mismatches;
      std::printf("MISMATCH %s prop=%lld attribute=%d\n", pair.name, pair.field, value);
    }
  }
  answer("managed_memory_prop", p.managedMemory);
  answer("mismatches", mismatches);
  return 0;
}

int mode_free_host() {
  void* pinned = nullptr;
  answer("host_malloc", ANSWERED(hipHostMalloc(&pinned, 4096, 0)));
  answer("free_of_host_malloc", ANSWERED(hipFree(pinned)));
  answer("host_free_after_free", ANSWERED(hipHostFree(pinned)));
  void* device = nullptr;
  answer("malloc", ANSWERED(hipMalloc(&device, 4096)));
  answer("host_free_of_malloc", ANSWERED(hipHostFree(device)));
  int local = 0;
  answer("free_of_stack", ANSWERED(hipFree(&local)));
  return 0;
}

long resident_kib() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, status) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
  }
  std::fclose(status);
  return kib;
}

int mode_lazy() {
  constexpr size_t kBytes = size_t{1} << 30;
  ANSWERED(hipSetDevice(0));  // the runtime's start-up is not the allocation's
  const long before = resident_kib();
  char* device = nullptr;
  const auto start = std::chrono::steady_clock::now();  // wall-clock: message (the timing line)
  answer("malloc", ANSWERED(hipMalloc(reinterpret_cast<void**>(&device), kBytes)));
  const auto took = std::chrono::steady_clock::now() - start;  // wall-clock: message
  const long after = resident_kib();
  answer("resident_growth_kib", after - before);
  // Fresh device memory reads as zeros wherever it was never written; a write lands.
  answer("memset", ANSWERED(hipMemset(device + (kBytes / 2), 0x11, 4096)));
  unsigned char back[2][64];
  std::memset(back, 0xff, sizeof back);
  answer("copy_untouched",
         ANSWERED(hipMemcpy(back[0], device + kBytes - 64, 64, hipMemcpyDeviceToHost)));
  answer("copy_written",
         ANSWERED(hipMemcpy(back[1], device + (kBytes / 2), 64, hipMemcpyDeviceToHost)));
  bool zeros = true, written = true;
  for (int i = 0; i < 64; ++i) {
    zeros = zeros && back[0][i] == 0;
    written = written && back[1][i] == 0x11;
  }
  answer("untouched_reads_zero", zeros);
  answer("written_reads_back", written);
  answer("free", ANSWERED(hipFree(device)));
  std::printf("timing: hipMalloc of 1 GiB took %.3f ms\n",
              std::chrono::duration<double, std::milli>(took).count());
  return 0;
}

int mode_channel() {
  const hipChannelFormatDesc d =
      PROF_HIP_RESULT(hipCreateChannelDesc(8, 16, 32, 0, hipChannelFormatKindFloat));
  std::printf("RESULT %d hipCreateChannelDesc -\n", static_cast<int>(getpid()));
  answer("x", d.x);
  answer("y", d.y);
  answer("z", d.z);
  answer("w", d.w);
  answer("f", static_cast<int>(d.f));
  return 0;
}

// A child that hangs (the bug this reproduces) must not outlive the test: it dies by SIGALRM
// after this many seconds, which the parent reports as its status. A hang guard, not a bound.
unsigned child_guard_s() {
  const char* text = std::getenv("ROCM_ANSWERS_CHILD_GUARD_S");
  return text != nullptr ? static_cast<unsigned>(std::atoi(text)) : 120;
}

// What a child does; returns its exit status.
int child_work(int which, hipStream_t parent_stream, unsigned char* device, size_t bytes) {
  if (which == 0) return 0;  // exits at once: the runtime's and the profiler's exit paths
  if (which == 1) {          // the parent's stream
    ANSWERED(hipMemsetAsync(device, 7, bytes, parent_stream));
    ANSWERED(hipStreamSynchronize(parent_stream));
    unsigned char back[16] = {};
    ANSWERED(hipMemcpy(back, device, sizeof back, hipMemcpyDeviceToHost));
    return back[0] == 7 && back[15] == 7 ? 0 : 2;
  }
  hipStream_t own = nullptr;  // a stream of its own
  if (ANSWERED(hipStreamCreate(&own)) != hipSuccess) return 3;
  unsigned char values[16];
  std::memset(values, 9, sizeof values);
  ANSWERED(hipMemcpyAsync(device, values, sizeof values, hipMemcpyHostToDevice, own));
  ANSWERED(hipDeviceSynchronize());
  unsigned char back[16] = {};
  ANSWERED(hipMemcpy(back, device, sizeof back, hipMemcpyDeviceToHost));
  ANSWERED(hipStreamDestroy(own));
  return back[0] == 9 ? 0 : 4;
}

int mode_fork() {
  constexpr size_t kBytes = size_t{4} << 20;
  ANSWERED(hipInit(0));
  hipStream_t stream = nullptr;
  ANSWERED(hipStreamCreate(&stream));
  unsigned char* device = nullptr;
  ANSWERED(hipMalloc(reinterpret_cast<void**>(&device), kBytes));
  // Work in flight at the fork: the stream's worker is busy, the locks are in use.
  for (int i = 0; i < 64; ++i) ANSWERED(hipMemsetAsync(device, i, kBytes, stream));
  pid_t children[3];
  for (int which = 0; which < 3; ++which) {
    std::fflush(stdout);  // else each child would print the parent's buffered lines again
    children[which] = fork();
    if (children[which] == 0) {
      alarm(child_guard_s());
      const int status = child_work(which, stream, device, kBytes);
      std::printf("CHILD %d PID %d api_calls=%ld\n", which, static_cast<int>(getpid()),
                  samples::g_api_calls);
      std::fflush(stdout);
      std::exit(status);  // exit, not _exit: atexit handlers run in the child
    }
  }
  ANSWERED(hipStreamSynchronize(stream));
  for (int which = 0; which < 3; ++which) {
    int status = 0;
    waitpid(children[which], &status, 0);
    const std::string key = "child_" + std::to_string(which);
    answer((key + "_exit").c_str(), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    answer((key + "_signal").c_str(), WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }
  unsigned char back = 0xff;
  ANSWERED(hipMemcpy(&back, device, 1, hipMemcpyDeviceToHost));
  answer("parent_last_memset_value", back);  // the children's writes were to their own copies
  ANSWERED(hipFree(device));
  ANSWERED(hipStreamDestroy(stream));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  std::printf("PID %d\n", static_cast<int>(getpid()));
  int status = 64;
  if (mode == "register") status = mode_register();
  if (mode == "props") status = mode_props();
  if (mode == "free_host") status = mode_free_host();
  if (mode == "lazy") status = mode_lazy();
  if (mode == "channel") status = mode_channel();
  if (mode == "fork") status = mode_fork();
  if (status == 64)
    std::fprintf(stderr, "usage: rocm_answers register|props|free_host|lazy|channel|fork\n");
  std::printf("EXPECT api_calls=%ld\nEND\n", samples::g_api_calls);
  return status;
}
