// The simulated HIP runtime's API contract: exports, argument and handle errors, last-error
// semantics, copies that really copy, modules and hipcc's registration entry points.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtimes/hip/hip_runtime_decls.hpp"

namespace {

void kernel_stub() {}
const void* const kKernel = reinterpret_cast<const void*>(&kernel_stub);

}  // namespace

TEST_CASE("sim: every function the real library exports is exported at its version", "[sim]") {
  int missing = 0;
#define PROF_HIP_EXPORT(symbol, version, in_table)                  \
  if (dlvsym(RTLD_DEFAULT, #symbol, version) == nullptr) {          \
    UNSCOPED_INFO(#symbol << "@" << version << " is not exported"); \
    ++missing;                                                      \
  }
#include "runtimes/hip/hip_exports.def"
#undef PROF_HIP_EXPORT
  CHECK(missing == 0);
}

TEST_CASE("sim: what the model does not implement says hipErrorNotSupported", "[sim]") {
  CHECK(hipCtxSynchronize() == hipErrorNotSupported);
  CHECK(hipGetLastError() == hipErrorNotSupported);
  CHECK(hipGetLastError() == hipSuccess);
}

TEST_CASE("sim: devices and properties", "[sim]") {
  int count = 0;
  REQUIRE(hipGetDeviceCount(&count) == hipSuccess);
  CHECK(count == 2);  // PROF_SIM_DEVICES unset
  CHECK(hipInit(0) == hipSuccess);
  CHECK(hipInit(1) == hipErrorInvalidValue);
  CHECK(hipSetDevice(count) == hipErrorInvalidDevice);
  CHECK(hipSetDevice(-1) == hipErrorInvalidDevice);
  REQUIRE(hipSetDevice(1) == hipSuccess);
  int device = -1;
  REQUIRE(hipGetDevice(&device) == hipSuccess);
  CHECK(device == 1);
  REQUIRE(hipSetDevice(0) == hipSuccess);
  hipDeviceProp_t prop;
  std::memset(&prop, 0xff, sizeof prop);
  REQUIRE(hipGetDeviceProperties(&prop, 0) == hipSuccess);
  CHECK(std::string(prop.name) == "prof simulated HIP device");
  CHECK(std::string(prop.gcnArchName) == "gfx906:sim");
  CHECK(prop.totalGlobalMem == (size_t{16} << 30));
  CHECK(prop.warpSize == 64);
  CHECK(prop.maxThreadsPerBlock == 1024);
  CHECK(prop.multiProcessorCount == 60);
  CHECK(prop.pageableMemoryAccessUsesHostPageTables == 0);  // the tail is written, not left 0xff
  CHECK(hipGetDeviceProperties(nullptr, 0) == hipErrorInvalidValue);
  CHECK(hipGetDeviceProperties(&prop, 7) == hipErrorInvalidDevice);
}

// Issue 42: managedMemory was 0 while the attribute said 1. Every attribute that has a field in
// hipDeviceProp_t must give the field's value.
TEST_CASE("sim: hipGetDeviceProperties and hipDeviceGetAttribute agree", "[sim]") {
  hipDeviceProp_t p;
  REQUIRE(hipGetDeviceProperties(&p, 0) == hipSuccess);
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
      {hipDeviceAttributeCooperativeMultiDeviceLaunch, p.cooperativeMultiDeviceLaunch,
       "cooperativeMultiDeviceLaunch"},
      {hipDeviceAttributeIntegrated, p.integrated, "integrated"},
      {hipDeviceAttributeIsMultiGpuBoard, p.isMultiGpuBoard, "isMultiGpuBoard"},
      {hipDeviceAttributeKernelExecTimeout, p.kernelExecTimeoutEnabled, "kernelExecTimeoutEnabled"},
      {hipDeviceAttributeEccEnabled, p.ECCEnabled, "ECCEnabled"},
      {hipDeviceAttributeComputeMode, p.computeMode, "computeMode"},
      {hipDeviceAttributeMaxPitch, static_cast<long long>(p.memPitch), "memPitch"},
      {hipDeviceAttributeTextureAlignment, static_cast<long long>(p.textureAlignment),
       "textureAlignment"},
      {hipDeviceAttributeMaxThreadsPerBlock, p.maxThreadsPerBlock, "maxThreadsPerBlock"},
      {hipDeviceAttributeMaxBlockDimX, p.maxThreadsDim[0], "maxThreadsDim[0]"},
      {hipDeviceAttributeMaxGridDimX, p.maxGridSize[0], "maxGridSize[0]"},
      {hipDeviceAttributeMaxSharedMemoryPerBlock, static_cast<long long>(p.sharedMemPerBlock),
       "sharedMemPerBlock"},
      {hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
       static_cast<long long>(p.maxSharedMemoryPerMultiProcessor),
       "maxSharedMemoryPerMultiProcessor"},
      {hipDeviceAttributeTotalConstantMemory, static_cast<long long>(p.totalConstMem),
       "totalConstMem"},
      {hipDeviceAttributeWarpSize, p.warpSize, "warpSize"},
      {hipDeviceAttributeMaxRegistersPerBlock, p.regsPerBlock, "regsPerBlock"},
      {hipDeviceAttributeClockRate, p.clockRate, "clockRate"},
      {hipDeviceAttributeMemoryClockRate, p.memoryClockRate, "memoryClockRate"},
      {hipDeviceAttributeMemoryBusWidth, p.memoryBusWidth, "memoryBusWidth"},
      {hipDeviceAttributeMultiprocessorCount, p.multiProcessorCount, "multiProcessorCount"},
      {hipDeviceAttributeL2CacheSize, p.l2CacheSize, "l2CacheSize"},
      {hipDeviceAttributeMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor,
       "maxThreadsPerMultiProcessor"},
      {hipDeviceAttributeComputeCapabilityMajor, p.major, "major"},
      {hipDeviceAttributeComputeCapabilityMinor, p.minor, "minor"},
      {hipDeviceAttributePciBusId, p.pciBusID, "pciBusID"},
      {hipDeviceAttributePciDeviceId, p.pciDeviceID, "pciDeviceID"},
      {hipDeviceAttributePciDomainID, p.pciDomainID, "pciDomainID"},
      {hipDeviceAttributeClockInstructionRate, p.clockInstructionRate, "clockInstructionRate"},
      {hipDeviceAttributeGcnArch, p.gcnArch, "gcnArch"},
  };
  for (const auto& pair : pairs) {
    INFO(pair.name);
    int value = -1;
    REQUIRE(hipDeviceGetAttribute(&value, pair.attribute, 0) == hipSuccess);
    CHECK(value == pair.field);
  }
  CHECK(p.managedMemory == 1);
}

TEST_CASE("sim: every call sets the last error, hipGetLastError resets it", "[sim]") {
  CHECK(hipMalloc(nullptr, 16) == hipErrorInvalidValue);
  CHECK(hipPeekAtLastError() == hipErrorInvalidValue);
  CHECK(hipPeekAtLastError() == hipErrorInvalidValue);
  CHECK(hipGetLastError() == hipErrorInvalidValue);
  CHECK(hipGetLastError() == hipSuccess);
  CHECK(hipMalloc(nullptr, 16) == hipErrorInvalidValue);
  int device = 0;
  CHECK(hipGetDevice(&device) == hipSuccess);  // HIP 5.2: a success overwrites the error
  CHECK(hipGetLastError() == hipSuccess);
  CHECK(std::string(hipGetErrorName(hipErrorInvalidHandle)) == "hipErrorInvalidHandle");
  CHECK(std::string(hipGetErrorString(hipErrorNotReady)) == "hipErrorNotReady");
  CHECK(std::string(hipGetErrorName(static_cast<hipError_t>(12345))) == "hipErrorUnknown");
}

TEST_CASE("sim: copies and memsets really move the bytes", "[sim]") {
  std::vector<unsigned char> host(4096), back(4096, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 7);
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(hipMalloc(&a, host.size()) == hipSuccess);
  REQUIRE(hipMalloc(&b, host.size()) == hipSuccess);
  REQUIRE(hipMemcpy(a, host.data(), host.size(), hipMemcpyHostToDevice) == hipSuccess);
  REQUIRE(hipMemcpyDtoD(b, a, host.size()) == hipSuccess);
  REQUIRE(hipMemcpyDtoH(back.data(), b, back.size()) == hipSuccess);
  CHECK(back == host);

  hipStream_t s;
  REQUIRE(hipStreamCreate(&s) == hipSuccess);
  REQUIRE(hipMemsetAsync(a, 0x5a, 100, s) == hipSuccess);
  REQUIRE(hipMemcpyAsync(back.data(), a, back.size(), hipMemcpyDeviceToHost, s) == hipSuccess);
  REQUIRE(hipStreamSynchronize(s) == hipSuccess);
  CHECK(back[0] == 0x5a);
  CHECK(back[99] == 0x5a);
  CHECK(back[100] == host[100]);

  // 2D: 3 rows of 4 bytes out of rows of 16.
  std::vector<unsigned char> narrow(12, 0);
  REQUIRE(hipMemcpy2D(narrow.data(), 4, host.data(), 16, 4, 3, hipMemcpyHostToHost) == hipSuccess);
  CHECK(narrow[4] == host[16]);
  CHECK(narrow[11] == host[35]);

  // Peer copies go through hipMemcpy/hipMemcpyAsync like the real runtime.
  REQUIRE(hipMemcpyPeer(b, 1, host.data() + 8, 0, 64) == hipSuccess);
  REQUIRE(hipMemcpyPeerAsync(back.data(), 0, b, 1, 64, s) == hipSuccess);
  REQUIRE(hipStreamSynchronize(s) == hipSuccess);
  CHECK(std::memcmp(back.data(), host.data() + 8, 64) == 0);
  CHECK(hipMemcpyPeer(b, 5, a, 0, 64) == hipErrorInvalidDevice);

  REQUIRE(hipStreamDestroy(s) == hipSuccess);
  CHECK(hipFree(a) == hipSuccess);
  CHECK(hipFree(b) == hipSuccess);
}

TEST_CASE("sim: bad sizes, pointers and kinds", "[sim]") {
  void* p = reinterpret_cast<void*>(1);
  CHECK(hipMalloc(&p, 0) == hipSuccess);
  CHECK(p == nullptr);
  CHECK(hipFree(nullptr) == hipSuccess);
  int local = 0;
  CHECK(hipFree(&local) == hipErrorInvalidValue);
  void* host = nullptr;
  REQUIRE(hipHostMalloc(&host, 64, 0) == hipSuccess);
  CHECK(hipFree(host) == hipSuccess);  // ROCm 5.2's hipFree frees any allocation it made (issue 42)
  CHECK(hipHostFree(host) == hipErrorInvalidValue);  // double free
  void* managed = nullptr;
  REQUIRE(hipMallocManaged(&managed, 64, hipMemAttachGlobal) == hipSuccess);
  CHECK(hipFree(managed) == hipSuccess);

  char buf[64];
  CHECK(hipMemcpy(nullptr, buf, 8, hipMemcpyHostToHost) == hipErrorInvalidValue);
  CHECK(hipMemcpy(buf, nullptr, 8, hipMemcpyHostToHost) == hipErrorInvalidValue);
  CHECK(hipMemcpy(nullptr, nullptr, 0, hipMemcpyHostToHost) == hipSuccess);
  CHECK(hipMemcpy(buf, buf + 32, 8, static_cast<hipMemcpyKind>(9)) ==
        hipErrorInvalidMemcpyDirection);
  CHECK(hipMemset(nullptr, 0, 8) == hipErrorInvalidValue);
  CHECK(hipMemcpy2D(buf, 8, buf + 32, 8, 16, 2, hipMemcpyHostToHost) == hipErrorInvalidPitchValue);

  CHECK(hipLaunchKernel(nullptr, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, nullptr) ==
        hipErrorInvalidDeviceFunction);
  CHECK(hipLaunchKernel(kKernel, dim3{0, 1, 1}, dim3{1, 1, 1}, nullptr, 0, nullptr) ==
        hipErrorInvalidConfiguration);
  CHECK(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{1, 1, 0}, nullptr, 0, nullptr) ==
        hipErrorInvalidConfiguration);
  CHECK(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{1025, 1, 1}, nullptr, 0, nullptr) ==
        hipErrorInvalidConfiguration);
  CHECK(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{32, 32, 1}, nullptr, 0, nullptr) ==
        hipSuccess);
  CHECK(hipLaunchCooperativeKernel(kKernel, dim3{2, 1, 1}, dim3{64, 1, 1}, nullptr, 0,
                                   hipStreamPerThread) == hipSuccess);
  CHECK(hipStreamSynchronize(hipStreamPerThread) == hipSuccess);
  CHECK(hipDeviceSynchronize() == hipSuccess);
}

TEST_CASE("sim: destroyed streams and bogus events are invalid handles (400)", "[sim]") {
  hipStream_t s;
  REQUIRE(hipStreamCreateWithPriority(&s, 0, 0) == hipSuccess);
  CHECK(hipStreamQuery(s) == hipSuccess);
  REQUIRE(hipStreamDestroy(s) == hipSuccess);
  char buf[16];
  CHECK(hipStreamQuery(s) == hipErrorInvalidHandle);
  CHECK(hipStreamSynchronize(s) == hipErrorInvalidHandle);
  CHECK(hipStreamDestroy(s) == hipErrorInvalidHandle);
  CHECK(hipMemcpyAsync(buf, buf + 8, 8, hipMemcpyHostToHost, s) == hipErrorInvalidHandle);
  CHECK(hipMemsetAsync(buf, 0, 8, s) == hipErrorInvalidHandle);
  CHECK(hipLaunchKernel(kKernel, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, s) ==
        hipErrorInvalidHandle);
  CHECK(hipPeekAtLastError() == hipErrorInvalidHandle);
  hipStreamCaptureStatus status = hipStreamCaptureStatusActive;
  CHECK(hipStreamIsCapturing(s, &status) == hipErrorInvalidHandle);
  CHECK(hipStreamIsCapturing(nullptr, &status) == hipSuccess);
  CHECK(status == hipStreamCaptureStatusNone);
  CHECK(hipStreamIsCapturing(nullptr, nullptr) == hipErrorInvalidValue);
  CHECK(hipStreamQuery(reinterpret_cast<hipStream_t>(buf)) == hipErrorInvalidHandle);

  int not_an_event = 0;
  auto bogus = reinterpret_cast<hipEvent_t>(&not_an_event);
  hipEvent_t good;
  REQUIRE(hipEventCreateWithFlags(&good, hipEventDisableTiming) == hipSuccess);
  float ms = 0;
  CHECK(hipEventQuery(bogus) == hipErrorInvalidHandle);
  CHECK(hipEventSynchronize(bogus) == hipErrorInvalidHandle);
  CHECK(hipEventRecord(bogus, nullptr) == hipErrorInvalidHandle);
  CHECK(hipEventRecord(good, s) == hipErrorInvalidHandle);
  CHECK(hipEventElapsedTime(&ms, bogus, good) == hipErrorInvalidHandle);
  CHECK(hipEventElapsedTime(nullptr, good, good) == hipErrorInvalidValue);
  CHECK(hipStreamWaitEvent(nullptr, bogus, 0) == hipErrorInvalidHandle);
  CHECK(hipEventDestroy(bogus) == hipErrorInvalidHandle);
  CHECK(hipEventQuery(good) == hipSuccess);  // never recorded
  REQUIRE(hipEventRecord(good, nullptr) == hipSuccess);
  REQUIRE(hipEventSynchronize(good) == hipSuccess);
  CHECK(hipEventElapsedTime(&ms, good, good) == hipErrorInvalidHandle);  // hipEventDisableTiming
  REQUIRE(hipEventDestroy(good) == hipSuccess);
  CHECK(hipEventQuery(good) == hipErrorInvalidHandle);

  hipEvent_t a, b;
  REQUIRE(hipEventCreate(&a) == hipSuccess);
  REQUIRE(hipEventCreate(&b) == hipSuccess);
  CHECK(hipEventElapsedTime(&ms, a, b) == hipErrorInvalidHandle);  // never recorded
  REQUIRE(hipEventRecord(b, nullptr) == hipSuccess);
  REQUIRE(hipEventRecord(a, nullptr) == hipSuccess);
  REQUIRE(hipEventSynchronize(a) == hipSuccess);
  REQUIRE(hipEventElapsedTime(&ms, a, b) == hipSuccess);
  CHECK(ms <= 0.0f);  // stop recorded before start: negative (or zero) time
  hipEventDestroy(a);
  hipEventDestroy(b);
}

TEST_CASE("sim: hipcc registration and the call-configuration stack", "[sim]") {
  struct {
    unsigned magic;
    unsigned version;
    const void* binary;
    const void* dummy;
  } wrapper{0x48495046, 1, nullptr, nullptr};
  void** module = __hipRegisterFatBinary(&wrapper);
  REQUIRE(module != nullptr);
  CHECK(__hipRegisterFatBinary(nullptr) != nullptr);  // wrong magic still gets a handle
  __hipRegisterFunction(module, kKernel, nullptr, "_Z4stubv", 0, nullptr, nullptr, nullptr, nullptr,
                        nullptr);

  dim3 grid{}, block{};
  size_t shared = 1;
  hipStream_t stream = reinterpret_cast<hipStream_t>(1);
  CHECK(__hipPopCallConfiguration(&grid, &block, &shared, &stream) == hipErrorMissingConfiguration);
  REQUIRE(__hipPushCallConfiguration(dim3{4, 1, 1}, dim3{64, 1, 1}, 128, nullptr) == hipSuccess);
  REQUIRE(__hipPopCallConfiguration(&grid, &block, &shared, &stream) == hipSuccess);
  CHECK(grid.x == 4);
  CHECK(block.x == 64);
  CHECK(shared == 128);
  CHECK(stream == nullptr);
  CHECK(hipLaunchKernel(kKernel, grid, block, nullptr, shared, stream) == hipSuccess);
  CHECK(hipDeviceSynchronize() == hipSuccess);
  __hipUnregisterFatBinary(module);
}

TEST_CASE("sim: modules load from files or images and give stable function handles", "[sim]") {
  hipModule_t m = nullptr;
  CHECK(hipModuleLoad(&m, "/nonexistent/prof/module.co") == hipErrorFileNotFound);
  const std::string path = "/tmp/prof_sim_api_test." + std::to_string(getpid()) + ".co";
  FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fputs("not really a code object", f);
  std::fclose(f);
  REQUIRE(hipModuleLoad(&m, path.c_str()) == hipSuccess);
  std::remove(path.c_str());
  hipFunction_t f1 = nullptr, f2 = nullptr, g = nullptr;
  REQUIRE(hipModuleGetFunction(&f1, m, "vadd") == hipSuccess);
  REQUIRE(hipModuleGetFunction(&f2, m, "vadd") == hipSuccess);
  REQUIRE(hipModuleGetFunction(&g, m, "vmul") == hipSuccess);
  CHECK(f1 == f2);
  CHECK(f1 != g);
  CHECK(hipModuleGetFunction(&f1, m, nullptr) == hipErrorInvalidValue);
  CHECK(hipModuleGetFunction(&f1, reinterpret_cast<hipModule_t>(&f1), "vadd") ==
        hipErrorInvalidHandle);
  CHECK(hipModuleLaunchKernel(f2, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr) == hipSuccess);
  CHECK(hipModuleLaunchKernel(nullptr, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr) ==
        hipErrorInvalidDeviceFunction);
  REQUIRE(hipModuleUnload(m) == hipSuccess);
  CHECK(hipModuleUnload(m) == hipErrorInvalidHandle);
  CHECK(hipModuleLaunchKernel(f2, 2, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr) ==
        hipErrorInvalidHandle);

  const char image[] = "image";
  CHECK(hipModuleLoadData(&m, nullptr) == hipErrorInvalidValue);
  REQUIRE(hipModuleLoadData(&m, image) == hipSuccess);
  REQUIRE(hipModuleUnload(m) == hipSuccess);
  CHECK(hipDeviceSynchronize() == hipSuccess);
}

TEST_CASE("sim: hipDeviceReset drains the device and invalidates its handles", "[sim]") {
  REQUIRE(hipSetDevice(1) == hipSuccess);
  hipStream_t s;
  hipEvent_t e;
  void* p = nullptr;
  REQUIRE(hipStreamCreate(&s) == hipSuccess);
  REQUIRE(hipEventCreate(&e) == hipSuccess);
  REQUIRE(hipMalloc(&p, 1 << 20) == hipSuccess);
  REQUIRE(hipMemsetAsync(p, 1, 1 << 20, s) == hipSuccess);
  REQUIRE(hipEventRecord(e, s) == hipSuccess);
  REQUIRE(hipDeviceReset() == hipSuccess);
  CHECK(hipStreamQuery(s) == hipErrorInvalidHandle);
  CHECK(hipEventQuery(e) == hipErrorInvalidHandle);
  CHECK(hipFree(p) == hipErrorInvalidValue);
  CHECK(hipStreamQuery(nullptr) == hipSuccess);
  REQUIRE(hipSetDevice(0) == hipSuccess);
}
