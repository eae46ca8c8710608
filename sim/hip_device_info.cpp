// What a program asks the simulated HIP device about itself: attributes (from the same
// gfx906-class properties hipGetDeviceProperties gives), occupancy, peer access between the
// simulated devices, memory in use, pointer and function attributes, versions and limits.
// Exported functions never call each other (a profiler would see a second call): shared bodies
// are the model's internal functions.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

constexpr int kMaxPeers = 64;
constexpr int kHipVersion = 50221153;  // HIP 5.2.21153, Debian's libamdhip64 5.2.3
constexpr size_t kDeviceMemoryBytes = size_t{16} << 30;
constexpr int kRegistersPerMultiprocessor =
    65536 * 4;  // 4 SIMDs of 64 KiB VGPRs... in 4-byte registers
constexpr int kMaxBlocksPerMultiprocessor = 32;
// A simulated kernel uses no registers or LDS of its own; occupancy is limited by threads only.
constexpr int kModelRegistersPerThread = 32;

bool valid_device(int device) noexcept { return device >= 0 && device < device_count(); }

struct PeerTable {
  std::mutex mutex;
  bool enabled[kMaxPeers][kMaxPeers] = {};
};
PeerTable& peers() {
  static auto* t = new PeerTable;  // never destroyed
  return *t;
}

bool attribute(hipDeviceAttribute_t attr, int device, int* value) noexcept {
  hipDeviceProp_t p;
  device_properties(&p, device);
  switch (attr) {
    case hipDeviceAttributeMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; return true;
    case hipDeviceAttributeMaxBlockDimX: *value = p.maxThreadsDim[0]; return true;
    case hipDeviceAttributeMaxBlockDimY: *value = p.maxThreadsDim[1]; return true;
    case hipDeviceAttributeMaxBlockDimZ: *value = p.maxThreadsDim[2]; return true;
    case hipDeviceAttributeMaxGridDimX: *value = p.maxGridSize[0]; return true;
    case hipDeviceAttributeMaxGridDimY: *value = p.maxGridSize[1]; return true;
    case hipDeviceAttributeMaxGridDimZ: *value = p.maxGridSize[2]; return true;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      return true;
    case hipDeviceAttributeSharedMemPerMultiprocessor:
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.maxSharedMemoryPerMultiProcessor);
      return true;
    case hipDeviceAttributeTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      return true;
    case hipDeviceAttributeTotalGlobalMem:
      *value = static_cast<int>(std::min<size_t>(p.totalGlobalMem, 0x7fffffff));
      return true;
    case hipDeviceAttributeWarpSize: *value = p.warpSize; return true;
    case hipDeviceAttributeMaxRegistersPerBlock: *value = p.regsPerBlock; return true;
    case hipDeviceAttributeMaxRegistersPerMultiprocessor:
      *value = kRegistersPerMultiprocessor;
      return true;
    case hipDeviceAttributeClockRate: *value = p.clockRate; return true;
    case hipDeviceAttributeClockInstructionRate: *value = p.clockInstructionRate; return true;
    case hipDeviceAttributeMemoryClockRate: *value = p.memoryClockRate; return true;
    case hipDeviceAttributeMemoryBusWidth: *value = p.memoryBusWidth; return true;
    case hipDeviceAttributeMultiprocessorCount:
    case hipDeviceAttributePhysicalMultiProcessorCount: *value = p.multiProcessorCount; return true;
    case hipDeviceAttributeL2CacheSize: *value = p.l2CacheSize; return true;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      return true;
    case hipDeviceAttributeMaxBlocksPerMultiProcessor:
      *value = kMaxBlocksPerMultiprocessor;
      return true;
    case hipDeviceAttributeComputeCapabilityMajor: *value = p.major; return true;
    case hipDeviceAttributeComputeCapabilityMinor: *value = p.minor; return true;
    case hipDeviceAttributeGcnArch: *value = p.gcnArch; return true;
    case hipDeviceAttributePciBusId: *value = p.pciBusID; return true;
    case hipDeviceAttributePciDeviceId: *value = p.pciDeviceID; return true;
    case hipDeviceAttributePciDomainID: *value = p.pciDomainID; return true;
    case hipDeviceAttributeMaxPitch:
      *value = static_cast<int>(std::min<size_t>(p.memPitch, 0x7fffffff));
      return true;
    case hipDeviceAttributeTextureAlignment:
      *value = static_cast<int>(p.textureAlignment);
      return true;
    case hipDeviceAttributeAsyncEngineCount: *value = 2; return true;
    // Capabilities with a field in hipDeviceProp_t are read from it: the two answers cannot drift
    // (managedMemory was 0 while this said 1).
    case hipDeviceAttributeConcurrentKernels: *value = p.concurrentKernels; return true;
    case hipDeviceAttributeCooperativeLaunch: *value = p.cooperativeLaunch; return true;
    case hipDeviceAttributeCooperativeMultiDeviceLaunch:
      *value = p.cooperativeMultiDeviceLaunch;
      return true;
    case hipDeviceAttributeManagedMemory: *value = p.managedMemory; return true;
    case hipDeviceAttributeConcurrentManagedAccess: *value = p.concurrentManagedAccess; return true;
    case hipDeviceAttributeCanMapHostMemory: *value = p.canMapHostMemory; return true;
    case hipDeviceAttributeEccEnabled: *value = p.ECCEnabled; return true;
    case hipDeviceAttributeComputeMode: *value = p.computeMode; return true;
    case hipDeviceAttributeIntegrated: *value = p.integrated; return true;
    case hipDeviceAttributeIsMultiGpuBoard: *value = p.isMultiGpuBoard; return true;
    case hipDeviceAttributeKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; return true;
    case hipDeviceAttributePageableMemoryAccess: *value = p.pageableMemoryAccess; return true;
    case hipDeviceAttributeUnifiedAddressing:
    case hipDeviceAttributeMemoryPoolsSupported:
    case hipDeviceAttributeHostNativeAtomicSupported:
    case hipDeviceAttributeStreamPrioritiesSupported:
    case hipDeviceAttributeImageSupport: *value = 1; return true;
  }
  return false;
}

// Blocks of `block_size` threads that fit on one multiprocessor, by threads and by LDS.
int active_blocks(int block_size, size_t dynamic_shared_bytes) noexcept {
  if (block_size <= 0 || block_size > 1024) return 0;
  hipDeviceProp_t p;
  device_properties(&p, current_device());
  int blocks = std::min(p.maxThreadsPerMultiProcessor / block_size, kMaxBlocksPerMultiprocessor);
  blocks = std::min(blocks, kRegistersPerMultiprocessor / (block_size * kModelRegistersPerThread));
  if (dynamic_shared_bytes > 0) {
    if (dynamic_shared_bytes > p.sharedMemPerBlock) return 0;
    blocks = std::min<int>(
        blocks, static_cast<int>(p.maxSharedMemoryPerMultiProcessor / dynamic_shared_bytes));
  }
  return blocks;
}

// The block size (a multiple of the wavefront) with the most resident threads; ties: the larger.
hipError_t potential_block_size(int* grid_size, int* block_size, size_t dynamic_shared_bytes,
                                int limit) noexcept {
  if (grid_size == nullptr || block_size == nullptr) return hipErrorInvalidValue;
  hipDeviceProp_t p;
  device_properties(&p, current_device());
  const int max_block = limit > 0 ? std::min(limit, p.maxThreadsPerBlock) : p.maxThreadsPerBlock;
  int best = 0, best_threads = 0;
  for (int b = p.warpSize; b <= max_block; b += p.warpSize) {
    const int threads = active_blocks(b, dynamic_shared_bytes) * b;
    if (threads >= best_threads && threads > 0) best = b, best_threads = threads;
  }
  if (best == 0) return hipErrorInvalidValue;
  *block_size = best;
  *grid_size = active_blocks(best, dynamic_shared_bytes) * p.multiProcessorCount;
  return hipSuccess;
}

hipError_t function_attributes(hipFuncAttributes* attr) noexcept {
  if (attr == nullptr) return hipErrorInvalidValue;
  std::memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->numRegs = kModelRegistersPerThread;
  attr->maxDynamicSharedSizeBytes = 64 * 1024;
  attr->binaryVersion = 90;
  attr->ptxVersion = 90;
  return hipSuccess;
}

}  // namespace
}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId) {
  if (pi == nullptr) return finish(hipErrorInvalidValue);
  if (!valid_device(deviceId)) return finish(hipErrorInvalidDevice);
  return finish(attribute(attr, deviceId, pi) ? hipSuccess : hipErrorInvalidValue);
}

hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  if (device == nullptr) return finish(hipErrorInvalidValue);
  if (!valid_device(ordinal)) return finish(hipErrorInvalidDevice);
  *device = ordinal;
  return finish(hipSuccess);
}

hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  if (name == nullptr || len <= 0) return finish(hipErrorInvalidValue);
  if (!valid_device(device)) return finish(hipErrorInvalidDevice);
  hipDeviceProp_t p;
  device_properties(&p, device);
  std::snprintf(name, static_cast<size_t>(len), "%s", p.name);
  return finish(hipSuccess);
}

hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device) {
  if (major == nullptr || minor == nullptr) return finish(hipErrorInvalidValue);
  if (!valid_device(device)) return finish(hipErrorInvalidDevice);
  hipDeviceProp_t p;
  device_properties(&p, device);
  *major = p.major;
  *minor = p.minor;
  return finish(hipSuccess);
}

hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  if (bytes == nullptr) return finish(hipErrorInvalidValue);
  if (!valid_device(device)) return finish(hipErrorInvalidDevice);
  *bytes = kDeviceMemoryBytes;
  return finish(hipSuccess);
}

hipError_t hipDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  if (pciBusId == nullptr || len <= 0) return finish(hipErrorInvalidValue);
  if (!valid_device(device)) return finish(hipErrorInvalidDevice);
  std::snprintf(pciBusId, static_cast<size_t>(len), "0000:%02x:00.0", device + 1);
  return finish(hipSuccess);
}

hipError_t hipDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) return finish(hipErrorInvalidValue);
  *driverVersion = kHipVersion;
  return finish(hipSuccess);
}

hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) return finish(hipErrorInvalidValue);
  *runtimeVersion = kHipVersion;
  return finish(hipSuccess);
}

hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  if (free == nullptr || total == nullptr) return finish(hipErrorInvalidValue);
  const size_t used = allocated_device_bytes(current_device());
  *total = kDeviceMemoryBytes;
  *free = used < kDeviceMemoryBytes ? kDeviceMemoryBytes - used : 0;
  return finish(hipSuccess);
}

// Every simulated device can reach every other (one host memory), never itself.
hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId) {
  if (canAccessPeer == nullptr) return finish(hipErrorInvalidValue);
  if (!valid_device(deviceId) || !valid_device(peerDeviceId)) return finish(hipErrorInvalidDevice);
  *canAccessPeer = deviceId != peerDeviceId ? 1 : 0;
  return finish(hipSuccess);
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags) {
  const int device = current_device();
  if (flags != 0) return finish(hipErrorInvalidValue);
  if (!valid_device(peerDeviceId)) return finish(hipErrorInvalidDevice);
  if (peerDeviceId == device) return finish(hipErrorInvalidDevice);
  PeerTable& t = peers();
  std::lock_guard<std::mutex> guard(t.mutex);
  if (t.enabled[device][peerDeviceId]) return finish(hipErrorPeerAccessAlreadyEnabled);
  t.enabled[device][peerDeviceId] = true;
  return finish(hipSuccess);
}

hipError_t hipDeviceDisablePeerAccess(int peerDeviceId) {
  const int device = current_device();
  if (!valid_device(peerDeviceId)) return finish(hipErrorInvalidDevice);
  PeerTable& t = peers();
  std::lock_guard<std::mutex> guard(t.mutex);
  if (!t.enabled[device][peerDeviceId]) return finish(hipErrorPeerAccessNotEnabled);
  t.enabled[device][peerDeviceId] = false;
  return finish(hipSuccess);
}

hipError_t hipDeviceGetP2PAttribute(int* value, hipDeviceP2PAttr attr, int srcDevice,
                                    int dstDevice) {
  if (value == nullptr) return finish(hipErrorInvalidValue);
  if (!valid_device(srcDevice) || !valid_device(dstDevice) || srcDevice == dstDevice) {
    return finish(hipErrorInvalidDevice);
  }
  switch (attr) {
    case hipDevP2PAttrPerformanceRank: *value = 0; break;
    case hipDevP2PAttrAccessSupported:
    case hipDevP2PAttrNativeAtomicSupported:
    case hipDevP2PAttrHipArrayAccessSupported: *value = 1; break;
    default: return finish(hipErrorInvalidValue);
  }
  return finish(hipSuccess);
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* f,
                                                        int blockSize, size_t dynSharedMemPerBlk) {
  if (numBlocks == nullptr || f == nullptr) return finish(hipErrorInvalidValue);
  *numBlocks = active_blocks(blockSize, dynSharedMemPerBlk);
  return finish(hipSuccess);
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* f,
                                                                 int blockSize,
                                                                 size_t dynSharedMemPerBlk,
                                                                 unsigned int flags) {
  if (numBlocks == nullptr || f == nullptr || flags > 1) return finish(hipErrorInvalidValue);
  *numBlocks = active_blocks(blockSize, dynSharedMemPerBlk);
  return finish(hipSuccess);
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, hipFunction_t f,
                                                              int blockSize,
                                                              size_t dynSharedMemPerBlk) {
  if (numBlocks == nullptr) return finish(hipErrorInvalidValue);
  if (!is_module_function(f)) return finish(hipErrorInvalidHandle);
  *numBlocks = active_blocks(blockSize, dynSharedMemPerBlk);
  return finish(hipSuccess);
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags) {
  if (numBlocks == nullptr || flags > 1) return finish(hipErrorInvalidValue);
  if (!is_module_function(f)) return finish(hipErrorInvalidHandle);
  *numBlocks = active_blocks(blockSize, dynSharedMemPerBlk);
  return finish(hipSuccess);
}

hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, const void* f,
                                             size_t dynSharedMemPerBlk, int blockSizeLimit) {
  if (f == nullptr) return finish(hipErrorInvalidValue);
  return finish(potential_block_size(gridSize, blockSize, dynSharedMemPerBlk, blockSizeLimit));
}

hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, hipFunction_t f,
                                                   size_t dynSharedMemPerBlk, int blockSizeLimit) {
  if (!is_module_function(f)) return finish(hipErrorInvalidHandle);
  return finish(potential_block_size(gridSize, blockSize, dynSharedMemPerBlk, blockSizeLimit));
}

hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* gridSize, int* blockSize,
                                                            hipFunction_t f,
                                                            size_t dynSharedMemPerBlk,
                                                            int blockSizeLimit,
                                                            unsigned int flags) {
  if (flags > 1) return finish(hipErrorInvalidValue);
  if (!is_module_function(f)) return finish(hipErrorInvalidHandle);
  return finish(potential_block_size(gridSize, blockSize, dynSharedMemPerBlk, blockSizeLimit));
}

hipError_t hipFuncGetAttributes(struct hipFuncAttributes* attr, const void* func) {
  if (func == nullptr) return finish(hipErrorInvalidDeviceFunction);
  return finish(function_attributes(attr));
}

hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib, hipFunction_t hfunc) {
  if (value == nullptr) return finish(hipErrorInvalidValue);
  if (!is_module_function(hfunc)) return finish(hipErrorInvalidHandle);
  hipFuncAttributes a;
  function_attributes(&a);
  switch (attrib) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
    default:
      if (attrib < 0 || attrib >= HIP_FUNC_ATTRIBUTE_MAX) return finish(hipErrorInvalidValue);
      *value = 0;
  }
  return finish(hipSuccess);
}

// Hints the model has no use for: accepted.
hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  (void)attr, (void)value;
  return finish(func == nullptr ? hipErrorInvalidDeviceFunction : hipSuccess);
}
hipError_t hipFuncSetCacheConfig(const void* func, hipFuncCache_t config) {
  (void)config;
  return finish(func == nullptr ? hipErrorInvalidDeviceFunction : hipSuccess);
}
hipError_t hipFuncSetSharedMemConfig(const void* func, hipSharedMemConfig config) {
  (void)config;
  return finish(func == nullptr ? hipErrorInvalidDeviceFunction : hipSuccess);
}
hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig) {
  (void)cacheConfig;
  return finish(hipSuccess);
}
hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* cacheConfig) {
  if (cacheConfig == nullptr) return finish(hipErrorInvalidValue);
  *cacheConfig = hipFuncCachePreferNone;
  return finish(hipSuccess);
}
hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config) {
  (void)config;
  return finish(hipSuccess);
}
hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig* pConfig) {
  if (pConfig == nullptr) return finish(hipErrorInvalidValue);
  *pConfig = hipSharedMemBankSizeDefault;
  return finish(hipSuccess);
}
hipError_t hipDeviceGetLimit(size_t* pValue, enum hipLimit_t limit) {
  if (pValue == nullptr) return finish(hipErrorInvalidValue);
  if (limit != hipLimitMallocHeapSize) return finish(hipErrorUnsupportedLimit);
  *pValue = size_t{8} << 20;
  return finish(hipSuccess);
}
hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 0;
  if (greatestPriority != nullptr) *greatestPriority = 0;
  return finish(hipSuccess);
}

namespace {
thread_local unsigned t_device_flags = 0;
}
hipError_t hipSetDeviceFlags(unsigned flags) {
  if (flags > 0x1f) return finish(hipErrorInvalidValue);
  t_device_flags = flags;
  return finish(hipSuccess);
}
hipError_t hipGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return finish(hipErrorInvalidValue);
  *flags = t_device_flags;
  return finish(hipSuccess);
}

hipError_t hipChooseDevice(int* device, const hipDeviceProp_t* prop) {
  if (device == nullptr || prop == nullptr) return finish(hipErrorInvalidValue);
  *device = 0;
  return finish(hipSuccess);
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
  if (attributes == nullptr || ptr == nullptr) return finish(hipErrorInvalidValue);
  AllocationInfo a;
  if (!find_allocation(ptr, &a))
    return finish(hipErrorInvalidValue);  // unregistered host memory, as 5.2
  std::memset(attributes, 0, sizeof *attributes);
  attributes->memoryType = is_host_memory(a.kind) ? hipMemoryTypeHost : hipMemoryTypeDevice;
  attributes->device = a.device;
  attributes->devicePointer = const_cast<void*>(ptr);
  attributes->hostPointer = a.kind == AllocationKind::kDevice ? nullptr : const_cast<void*>(ptr);
  attributes->isManaged = a.kind == AllocationKind::kManaged ? 1 : 0;
  return finish(hipSuccess);
}

hipError_t hipMemPtrGetInfo(void* ptr, size_t* size) {
  AllocationInfo a;
  if (ptr == nullptr || size == nullptr || !find_allocation(ptr, &a))
    return finish(hipErrorInvalidValue);
  *size = a.size_bytes;
  return finish(hipSuccess);
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t* pbase, size_t* psize, hipDeviceptr_t dptr) {
  AllocationInfo a;
  if (!find_allocation(dptr, &a)) return finish(hipErrorNotFound);
  if (pbase != nullptr) *pbase = a.base;
  if (psize != nullptr) *psize = a.size_bytes;
  return finish(hipSuccess);
}
