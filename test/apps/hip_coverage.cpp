// Calls beyond the basics, as real programs make them (issue 12, e2e:hip_coverage): device
// attributes and properties, occupancy, memory info, pointer attributes, peer access and a peer
// copy, a device global written and read through its symbol, stream-ordered allocation,
// hipMemcpyWithStream, 32-bit memsets, a runtime-compiled kernel (hiprtc) loaded as a module and
// launched with hipModuleLaunchKernel. It prints only what does not depend on timing, counts every
// HIP call, and ends with `EXPECT api_calls=N kernels=N copies=N` (copies counts copies and
// memsets) and `END`. Needs two simulated devices (the default).
#include <hip/hiprtc.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "hip_calls.hpp"

// A device global as hipcc registers one: the host shadow's address names it.
float g_scale_shadow[64];
static char g_scale_name[] = "g_scale";

namespace {
long g_kernels = 0, g_copies = 0;

struct FatbinWrapper {
  unsigned magic, version;
  const void* binary;
  const void* dummy;
};
const FatbinWrapper kFatbin = {0x48495046u, 1, nullptr, nullptr};

const char kSource[] =
    "extern \"C\" __global__ void saxpy(float a, float* x, float* y, int n) {}\n";
}  // namespace

extern "C" void** __hipRegisterFatBinary(const void* data);
extern "C" void __hipRegisterVar(void** modules, void* var, char* hostVar, char* deviceVar, int ext,
                                 size_t size, int constant, int global);

int main() {
  std::printf("PID %d\n", static_cast<int>(getpid()));
  void** module_handle = (++samples::g_api_calls, __hipRegisterFatBinary(&kFatbin));
  (++samples::g_api_calls, __hipRegisterVar(module_handle, g_scale_shadow, g_scale_name,
                                            g_scale_name, 0, sizeof g_scale_shadow, 0, 0));

  int devices = 0, attribute = 0, blocks = 0;
  PROF_HIP(hipGetDeviceCount(&devices));
  PROF_HIP(hipDeviceGetAttribute(&attribute, hipDeviceAttributeMaxThreadsPerBlock, 0));
  std::printf("devices %d, max threads per block %d\n", devices, attribute);
  hipDeviceProp_t prop{};
  PROF_HIP(hipGetDeviceProperties(&prop, 0));
  std::printf("multiprocessors %d, warp %d\n", prop.multiProcessorCount, prop.warpSize);
  size_t free_bytes = 0, total_bytes = 0;
  PROF_HIP(hipMemGetInfo(&free_bytes, &total_bytes));
  std::printf("memory info ok: %d\n", free_bytes <= total_bytes && total_bytes > 0);

  // Runtime compilation: hiprtc's code object, loaded as a module, its kernel found by name.
  hiprtcProgram program = nullptr;
  PROF_HIP(static_cast<hipError_t>(
      hiprtcCreateProgram(&program, kSource, "saxpy.cu", 0, nullptr, nullptr)));
  PROF_HIP(static_cast<hipError_t>(hiprtcCompileProgram(program, 0, nullptr)));
  size_t code_size = 0;
  PROF_HIP(static_cast<hipError_t>(hiprtcGetCodeSize(program, &code_size)));
  std::vector<char> code(code_size);
  PROF_HIP(static_cast<hipError_t>(hiprtcGetCode(program, code.data())));
  PROF_HIP(static_cast<hipError_t>(hiprtcDestroyProgram(&program)));
  hipModule_t module = nullptr;
  hipFunction_t saxpy = nullptr;
  PROF_HIP(hipModuleLoadData(&module, code.data()));
  PROF_HIP(hipModuleGetFunction(&saxpy, module, "saxpy"));
  PROF_HIP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 256, 0));
  std::printf("occupancy ok: %d\n", blocks > 0);

  const int n = 1 << 16;
  const size_t bytes = n * sizeof(float);
  hipStream_t stream = nullptr;
  PROF_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  float *x = nullptr, *y = nullptr;
  PROF_HIP(hipMallocAsync(reinterpret_cast<void**>(&x), bytes, stream));
  PROF_HIP(hipMallocAsync(reinterpret_cast<void**>(&y), bytes, stream));
  hipPointerAttribute_t attributes{};
  PROF_HIP(hipPointerGetAttributes(&attributes, x));
  std::printf("pointer on device %d\n", attributes.device);
  std::vector<float> host(n, 1.0f);
  PROF_HIP(hipMemcpyWithStream(x, host.data(), bytes, hipMemcpyHostToDevice, stream));
  ++g_copies;
  PROF_HIP(hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(y), 0x3f800000u, n, stream));
  ++g_copies;
  float a = 2.0f;
  int count = n;
  void* args[] = {&a, &x, &y, &count};
  PROF_HIP(hipModuleLaunchKernel(saxpy, n / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  ++g_kernels;
  // The device global: written, then read back.
  std::vector<float> scale(64, 0.5f), back(64, 0.0f);
  PROF_HIP(hipMemcpyToSymbol(static_cast<const void*>(g_scale_shadow), scale.data(),
                             sizeof g_scale_shadow, 0, hipMemcpyHostToDevice));
  PROF_HIP(hipMemcpyFromSymbol(back.data(), static_cast<const void*>(g_scale_shadow),
                               sizeof g_scale_shadow, 0, hipMemcpyDeviceToHost));
  g_copies += 2;
  std::printf("symbol round trip %d\n",
              std::memcmp(scale.data(), back.data(), sizeof g_scale_shadow) == 0);

  // Peer access and a peer copy to device 1.
  int can_access = 0;
  PROF_HIP(hipDeviceCanAccessPeer(&can_access, 0, 1));
  std::printf("peer access %d\n", can_access);
  PROF_HIP(hipDeviceEnablePeerAccess(1, 0));
  float* on_1 = nullptr;
  PROF_HIP(hipSetDevice(1));
  PROF_HIP(hipMalloc(reinterpret_cast<void**>(&on_1), bytes));
  PROF_HIP(hipSetDevice(0));
  PROF_HIP(hipMemcpyPeerAsync(on_1, 1, y, 0, bytes, stream));
  ++g_copies;
  PROF_HIP(hipFreeAsync(x, stream));
  PROF_HIP(hipFreeAsync(y, stream));
  PROF_HIP(hipStreamSynchronize(stream));
  PROF_HIP(hipFree(on_1));
  PROF_HIP(hipModuleUnload(module));
  PROF_HIP(hipStreamDestroy(stream));
  std::printf("EXPECT api_calls=%ld kernels=%ld copies=%ld\n", samples::g_api_calls, g_kernels,
              g_copies);
  std::printf("END\n");
  return 0;
}
