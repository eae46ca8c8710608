// Copies between the device and host memory of every kind, on HIP and MUSA: pinned allocations
// (hipHostMalloc, musaMallocHost), a registered range (hipHostRegister), the same range after
// hipHostUnregister, and pageable memory (malloc). prof should record each copy's host pointer and
// report.host_memory should tell pinned from pageable. Prints `PID`, one
// `COPY <runtime> <direction> <host pointer> <bytes> <pinned|pageable>` line per copy it makes (in
// call order), then `END`.
//
//     LD_LIBRARY_PATH=build/lib/prof/sim build/test-bin/host_copies
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "runtimes/hip/hip_runtime_decls.hpp"
#include "runtimes/musa/musa_runtime_decls.hpp"

namespace {

constexpr size_t kBytes = 1 << 16;
bool g_ok = true;

void check(int status, const char* what) {
  if (status != 0) std::printf("FAILED %s: %d\n", what, status);
  g_ok &= status == 0;
}
#define CALL(expr) check(static_cast<int>(expr), #expr)

void note(const char* runtime, const char* direction, const void* host, bool pinned) {
  std::printf("COPY %s %s %llu %zu %s\n", runtime, direction,
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(host)), kBytes,
              pinned ? "pinned" : "pageable");
}

void hip_copies(void* device, void* pinned, void* pageable, void* registered) {
  hipStream_t stream = nullptr;
  CALL(hipStreamCreate(&stream));
  CALL(hipMemcpyAsync(device, pinned, kBytes, hipMemcpyHostToDevice, stream));
  note("hip", "H2D", pinned, true);
  CALL(hipMemcpyAsync(device, pageable, kBytes, hipMemcpyHostToDevice, stream));
  note("hip", "H2D", pageable, false);
  CALL(hipMemcpyDtoHAsync(pinned, device, kBytes, stream));
  note("hip", "D2H", pinned, true);
  CALL(hipMemcpyDtoHAsync(pageable, device, kBytes, stream));
  note("hip", "D2H", pageable, false);
  CALL(hipHostRegister(registered, kBytes, 0));
  // Inside the registered range, not at its start.
  char* inside = static_cast<char*>(registered) + 64;
  CALL(hipMemcpyAsync(device, inside, kBytes - 64 * 2, hipMemcpyHostToDevice, stream));
  std::printf("COPY hip H2D %llu %zu pinned\n",
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(inside)), kBytes - 128);
  CALL(hipStreamSynchronize(stream));
  CALL(hipHostUnregister(registered));
  CALL(hipMemcpyAsync(registered, device, kBytes, hipMemcpyDeviceToHost, stream));
  note("hip", "D2H", registered, false);
  CALL(hipMemcpy(pageable, device, kBytes, hipMemcpyDeviceToHost));
  note("hip", "D2H", pageable, false);
  CALL(hipStreamSynchronize(stream));
  CALL(hipStreamDestroy(stream));
}

void musa_copies(void* device, void* pageable) {
  void* pinned = nullptr;
  musaStream_t stream = nullptr;
  CALL(musaMallocHost(&pinned, kBytes));
  CALL(musaStreamCreate(&stream));
  CALL(musaMemcpyAsync(device, pinned, kBytes, musaMemcpyHostToDevice, stream));
  note("musa", "H2D", pinned, true);
  CALL(musaMemcpyAsync(pageable, device, kBytes, musaMemcpyDeviceToHost, stream));
  note("musa", "D2H", pageable, false);
  CALL(musaStreamSynchronize(stream));
  CALL(musaFreeHost(pinned));
  // A blocking copy of pageable memory: recorded the same way.
  CALL(musaMemcpy(device, pageable, kBytes, musaMemcpyHostToDevice));
  note("musa", "H2D", pageable, false);
  CALL(musaStreamDestroy(stream));
}

}  // namespace

int main() {
  void *hip_device = nullptr, *musa_device = nullptr, *pinned = nullptr;
  void* pageable = std::calloc(1, kBytes);
  void* registered = std::calloc(1, kBytes);
  CALL(hipSetDevice(0));
  CALL(hipMalloc(&hip_device, kBytes));
  CALL(hipHostMalloc(&pinned, kBytes, 0));
  hip_copies(hip_device, pinned, pageable, registered);
  CALL(hipHostFree(pinned));
  CALL(hipFree(hip_device));
  CALL(musaSetDevice(0));
  CALL(musaMalloc(&musa_device, kBytes));
  musa_copies(musa_device, pageable);
  CALL(musaFree(musa_device));
  std::free(pageable);
  std::free(registered);
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("END\n");
  return g_ok ? 0 : 1;
}
