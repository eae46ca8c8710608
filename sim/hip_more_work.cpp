// The rest of the HIP work the model runs: stream-ordered and pitched allocations, the copies and
// memsets of HIP's other shapes (with a stream, per-thread, 16/32-bit patterns, 2D/3D, symbols),
// the other launch paths, device globals (__hipRegisterVar), texture and surface objects as
// handles, and hiprtc "compiling" into a code object the module loader accepts. Each translates
// its arguments and calls the model's internal functions (runtime.hpp), never another export.
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

uint64_t address(const void* p) noexcept { return reinterpret_cast<uint64_t>(p); }

// ---- device globals: the host shadow's address and the name both find the device copy ----
struct DeviceVar {
  void* device_ptr;
  size_t size_bytes;
};
struct VarRegistry {
  std::mutex mutex;
  std::map<const void*, DeviceVar> by_shadow;
  std::map<std::string, DeviceVar> by_name;
};
VarRegistry& vars() {
  static auto* r = new VarRegistry;  // never destroyed
  return *r;
}
bool find_var(const void* symbol, DeviceVar* out) noexcept {
  VarRegistry& r = vars();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = r.by_shadow.find(symbol);
  if (it == r.by_shadow.end()) return false;
  *out = it->second;
  return true;
}

hipError_t to_symbol(const void* symbol, const void* src, size_t bytes, size_t offset,
                     hipMemcpyKind kind, hipStream_t stream, bool sync) noexcept {
  DeviceVar v;
  if (symbol == nullptr || !find_var(symbol, &v)) return hipErrorInvalidSymbol;
  if (offset > v.size_bytes || bytes > v.size_bytes - offset) return hipErrorInvalidValue;
  char* dst = static_cast<char*>(v.device_ptr) + offset;
  return copy_2d(dst, bytes, src, bytes, bytes, 1, kind, stream, sync);
}
hipError_t from_symbol(void* dst, const void* symbol, size_t bytes, size_t offset,
                       hipMemcpyKind kind, hipStream_t stream, bool sync) noexcept {
  DeviceVar v;
  if (symbol == nullptr || !find_var(symbol, &v)) return hipErrorInvalidSymbol;
  if (offset > v.size_bytes || bytes > v.size_bytes - offset) return hipErrorInvalidValue;
  const char* src = static_cast<const char*>(v.device_ptr) + offset;
  return copy_2d(dst, bytes, src, bytes, bytes, 1, kind, stream, sync);
}

// ---- handles for objects the model keeps no state for (textures, surfaces, pools) ----
struct HandleSet {
  std::mutex mutex;
  std::set<const void*> live;
};
HandleSet& handles() {
  static auto* h = new HandleSet;  // never destroyed
  return *h;
}
template <typename Handle>
hipError_t new_handle(Handle* out) noexcept {
  if (out == nullptr) return hipErrorInvalidValue;
  auto* object = new char;  // a unique address, freed by its destroy call
  HandleSet& h = handles();
  std::lock_guard<std::mutex> guard(h.mutex);
  h.live.insert(object);
  *out = reinterpret_cast<Handle>(object);
  return hipSuccess;
}
hipError_t delete_handle(const void* handle) noexcept {
  HandleSet& h = handles();
  std::lock_guard<std::mutex> guard(h.mutex);
  if (h.live.erase(handle) == 0) return hipErrorInvalidValue;
  delete static_cast<const char*>(handle);
  return hipSuccess;
}

// hipConfigureCall's configurations, per thread, popped by hipLaunchByPtr.
struct Configuration {
  dim3 grid, block;
  size_t shared_mem_bytes;
  hipStream_t stream;
};
thread_local std::vector<Configuration> t_configurations;

// hiprtc: a program is its source; its code object is a small image the module loader accepts.
constexpr char kCodeObjectMagic[] = "PROF-SIM-CODE-OBJECT\n";
struct Program {
  std::string source, name, code;
};

}  // namespace
}  // namespace prof::sim

using namespace prof::sim;

// ---- allocations ----
hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipStream_t stream) {
  // Allocated at once: a valid point in stream order.
  if (resolve_stream(stream) == nullptr)
    return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  return finish(allocate(dev_ptr, size, AllocationKind::kDevice));
}
hipError_t hipMallocFromPoolAsync(void** dev_ptr, size_t size, hipMemPool_t mem_pool,
                                  hipStream_t stream) {
  if (mem_pool == nullptr) return finish(hipErrorInvalidValue);
  if (resolve_stream(stream) == nullptr)
    return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  return finish(allocate(dev_ptr, size, AllocationKind::kDevice));
}
hipError_t hipFreeAsync(void* dev_ptr, hipStream_t stream) {
  // The device's queued work finishes first (the caller waits: a simplification).
  if (resolve_stream(stream) == nullptr)
    return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  return finish(release(dev_ptr));
}
hipError_t hipExtMallocWithFlags(void** ptr, size_t sizeBytes, unsigned int flags) {
  (void)flags;
  return finish(allocate(ptr, sizeBytes, AllocationKind::kDevice));
}
hipError_t hipMallocHost(void** ptr, size_t size) {
  return finish(allocate(ptr, size, AllocationKind::kHost));
}
hipError_t hipMemAllocHost(void** ptr, size_t size) {
  return finish(allocate(ptr, size, AllocationKind::kHost));
}
hipError_t hipHostAlloc(void** ptr, size_t size, unsigned int flags) {
  (void)flags;
  return finish(allocate(ptr, size, AllocationKind::kHost));
}
hipError_t hipFreeHost(void* ptr) { return finish(release(ptr)); }

namespace {
constexpr size_t kPitchAlignmentBytes = 256;
size_t pitch_of(size_t width) {
  return (width + kPitchAlignmentBytes - 1) / kPitchAlignmentBytes * kPitchAlignmentBytes;
}
}  // namespace

hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (ptr == nullptr || pitch == nullptr) return finish(hipErrorInvalidValue);
  *pitch = pitch_of(width);
  return finish(allocate(ptr, *pitch * height, AllocationKind::kDevice));
}
hipError_t hipMemAllocPitch(hipDeviceptr_t* dptr, size_t* pitch, size_t widthInBytes, size_t height,
                            unsigned int elementSizeBytes) {
  if (dptr == nullptr || pitch == nullptr) return finish(hipErrorInvalidValue);
  if (elementSizeBytes != 4 && elementSizeBytes != 8 && elementSizeBytes != 16)
    return finish(hipErrorInvalidValue);
  *pitch = pitch_of(widthInBytes);
  return finish(allocate(dptr, *pitch * height, AllocationKind::kDevice));
}
hipError_t hipMalloc3D(hipPitchedPtr* pitchedDevPtr, hipExtent extent) {
  if (pitchedDevPtr == nullptr) return finish(hipErrorInvalidValue);
  const size_t pitch = pitch_of(extent.width);
  void* p = nullptr;
  const hipError_t ret =
      allocate(&p, pitch * extent.height * extent.depth, AllocationKind::kDevice);
  if (ret == hipSuccess) *pitchedDevPtr = hipPitchedPtr{p, pitch, extent.width, extent.height};
  return finish(ret);
}
// ROCm 5.2 answers for any memory it knows (hipHostMalloc, hipHostRegister, hipMalloc too), at any
// address inside it, with the device's address of that byte, and ignores `flags`; memory it does
// not know is hipErrorInvalidValue. Host memory is mapped for the device at the same address.
hipError_t hipHostGetDevicePointer(void** devPtr, void* hstPtr, unsigned int flags) {
  (void)flags;
  AllocationInfo a;
  if (devPtr == nullptr || !find_allocation(hstPtr, &a)) return finish(hipErrorInvalidValue);
  *devPtr = hstPtr;  // one address space
  return finish(hipSuccess);
}
hipError_t hipHostGetFlags(unsigned int* flagsPtr, void* hostPtr) {
  AllocationInfo a;
  if (flagsPtr == nullptr || !find_allocation(hostPtr, &a) || !is_host_memory(a.kind)) {
    return finish(hipErrorInvalidValue);
  }
  *flagsPtr = 0;
  return finish(hipSuccess);
}
// Pinning changes nothing here (host memory is the device's memory), but the range is recorded:
// hipHostGetDevicePointer and hipPointerGetAttributes must know it, as ROCm's do.
hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags) {
  (void)flags;  // ROCm 5.2 does not check them either
  return finish(register_host(hostPtr, sizeBytes));
}
hipError_t hipHostUnregister(void* hostPtr) { return finish(unregister_host(hostPtr)); }
hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device, hipStream_t stream) {
  (void)count, (void)device;
  if (resolve_stream(stream) == nullptr)
    return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  return finish(dev_ptr == nullptr ? hipErrorInvalidValue : hipSuccess);
}
hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice, int device) {
  (void)count, (void)advice, (void)device;
  return finish(dev_ptr == nullptr ? hipErrorInvalidValue : hipSuccess);
}
hipError_t hipStreamAttachMemAsync(hipStream_t stream, void* dev_ptr, size_t length,
                                   unsigned int flags) {
  (void)length, (void)flags;
  if (resolve_stream(stream) == nullptr)
    return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  return finish(dev_ptr == nullptr ? hipErrorInvalidValue : hipSuccess);
}
hipError_t hipMemPoolCreate(hipMemPool_t* mem_pool, const hipMemPoolProps* pool_props) {
  if (pool_props == nullptr) return finish(hipErrorInvalidValue);
  return finish(new_handle(mem_pool));
}
hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool) { return finish(delete_handle(mem_pool)); }
hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t* mem_pool, int device) {
  static hipMemPool_t pools[64];
  static std::mutex mutex;
  if (mem_pool == nullptr) return finish(hipErrorInvalidValue);
  if (device < 0 || device >= device_count()) return finish(hipErrorInvalidDevice);
  std::lock_guard<std::mutex> guard(mutex);
  if (pools[device] == nullptr) new_handle(&pools[device]);
  *mem_pool = pools[device];
  return finish(hipSuccess);
}
hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold) {
  (void)min_bytes_to_hold;
  return finish(mem_pool == nullptr ? hipErrorInvalidValue : hipSuccess);
}

// ---- copies and memsets ----
hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                               hipStream_t stream) {
  return finish(copy_2d(dst, sizeBytes, src, sizeBytes, sizeBytes, 1, kind, stream, true));
}
hipError_t hipMemcpy_spt(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind) {
  return finish(
      copy_2d(dst, sizeBytes, src, sizeBytes, sizeBytes, 1, kind, hipStreamPerThread, true));
}
hipError_t hipMemcpyAsync_spt(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                              hipStream_t stream) {
  return finish(copy_2d(dst, sizeBytes, src, sizeBytes, sizeBytes, 1, kind,
                        stream ? stream : hipStreamPerThread, false));
}
hipError_t hipMemcpy2D_spt(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                           size_t height, hipMemcpyKind kind) {
  return finish(copy_2d(dst, dpitch, src, spitch, width, height, kind, hipStreamPerThread, true));
}
hipError_t hipMemcpyParam2D(const hip_Memcpy2D* pCopy);
namespace {
hipError_t param_2d(const hip_Memcpy2D* p, hipStream_t stream, bool sync) noexcept {
  if (p == nullptr || p->srcMemoryType == hipMemoryTypeArray ||
      p->dstMemoryType == hipMemoryTypeArray) {
    return p == nullptr ? hipErrorInvalidValue : hipErrorNotSupported;  // arrays are not modelled
  }
  const char* src =
      static_cast<const char*>(p->srcMemoryType == hipMemoryTypeHost ? p->srcHost : p->srcDevice);
  char* dst = static_cast<char*>(p->dstMemoryType == hipMemoryTypeHost ? p->dstHost : p->dstDevice);
  if (src == nullptr || dst == nullptr) return hipErrorInvalidValue;
  src += p->srcY * p->srcPitch + p->srcXInBytes;
  dst += p->dstY * p->dstPitch + p->dstXInBytes;
  return copy_2d(dst, p->dstPitch ? p->dstPitch : p->WidthInBytes, src,
                 p->srcPitch ? p->srcPitch : p->WidthInBytes, p->WidthInBytes, p->Height,
                 hipMemcpyDefault, stream, sync);
}
// A 3D copy between linear allocations whose slices are contiguous rows (ysize == extent.height)
// is one 2D copy of height * depth rows.
hipError_t copy_3d(const hipMemcpy3DParms* p, hipStream_t stream, bool sync) noexcept {
  if (p == nullptr) return hipErrorInvalidValue;
  if (p->srcArray != nullptr || p->dstArray != nullptr) return hipErrorNotSupported;
  const hipExtent e = p->extent;
  if (p->srcPtr.ysize != e.height && e.depth > 1) return hipErrorNotSupported;
  if (p->dstPtr.ysize != e.height && e.depth > 1) return hipErrorNotSupported;
  const char* src = static_cast<const char*>(p->srcPtr.ptr) +
                    (p->srcPos.z * p->srcPtr.ysize + p->srcPos.y) * p->srcPtr.pitch + p->srcPos.x;
  char* dst = static_cast<char*>(p->dstPtr.ptr) +
              (p->dstPos.z * p->dstPtr.ysize + p->dstPos.y) * p->dstPtr.pitch + p->dstPos.x;
  return copy_2d(dst, p->dstPtr.pitch, src, p->srcPtr.pitch, e.width,
                 e.height * (e.depth ? e.depth : 1), p->kind, stream, sync);
}
hipError_t memset_3d(hipPitchedPtr p, int value, hipExtent e, hipStream_t stream,
                     bool sync) noexcept {
  if (p.ysize != e.height && e.depth > 1) return hipErrorNotSupported;
  return memset_pattern(p.ptr, static_cast<uint32_t>(value), 1, e.width,
                        e.height * (e.depth ? e.depth : 1), p.pitch, stream, sync);
}
}  // namespace
hipError_t hipMemcpyParam2D(const hip_Memcpy2D* pCopy) {
  return finish(param_2d(pCopy, nullptr, true));
}
hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D* pCopy, hipStream_t stream) {
  return finish(param_2d(pCopy, stream, false));
}
hipError_t hipMemcpy3D(const struct hipMemcpy3DParms* p) {
  return finish(copy_3d(p, nullptr, true));
}
hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms* p) {
  return finish(copy_3d(p, hipStreamPerThread, true));
}
hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms* p, hipStream_t stream) {
  return finish(copy_3d(p, stream, false));
}
hipError_t hipMemset_spt(void* dst, int value, size_t sizeBytes) {
  return finish(memset_pattern(dst, static_cast<uint32_t>(value), 1, sizeBytes, 1, sizeBytes,
                               hipStreamPerThread, true));
}
hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count) {
  return finish(memset_pattern(dest, value, 1, count, 1, count, nullptr, true));
}
hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                            hipStream_t stream) {
  return finish(memset_pattern(dest, value, 1, count, 1, count, stream, false));
}
hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count) {
  return finish(memset_pattern(dest, value, 2, count, 1, count * 2, nullptr, true));
}
hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count,
                             hipStream_t stream) {
  return finish(memset_pattern(dest, value, 2, count, 1, count * 2, stream, false));
}
hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count) {
  return finish(
      memset_pattern(dest, static_cast<uint32_t>(value), 4, count, 1, count * 4, nullptr, true));
}
hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream) {
  return finish(
      memset_pattern(dst, static_cast<uint32_t>(value), 4, count, 1, count * 4, stream, false));
}
hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  return finish(
      memset_pattern(dst, static_cast<uint32_t>(value), 1, width, height, pitch, nullptr, true));
}
hipError_t hipMemset2D_spt(void* dst, size_t pitch, int value, size_t width, size_t height) {
  return finish(memset_pattern(dst, static_cast<uint32_t>(value), 1, width, height, pitch,
                               hipStreamPerThread, true));
}
hipError_t hipMemset2DAsync(void* dst, size_t pitch, int value, size_t width, size_t height,
                            hipStream_t stream) {
  return finish(
      memset_pattern(dst, static_cast<uint32_t>(value), 1, width, height, pitch, stream, false));
}
hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent) {
  return finish(memset_3d(pitchedDevPtr, value, extent, nullptr, true));
}
hipError_t hipMemset3D_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent) {
  return finish(memset_3d(pitchedDevPtr, value, extent, hipStreamPerThread, true));
}
hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                            hipStream_t stream) {
  return finish(memset_3d(pitchedDevPtr, value, extent, stream, false));
}

// ---- device globals ----
void __hipRegisterVar(void** modules, void* var, char* hostVar, char* deviceVar, int ext,
                      size_t size, int constant, int global) {
  (void)modules, (void)hostVar, (void)ext, (void)constant, (void)global;
  if (var == nullptr || size == 0) return;
  void* device_ptr = nullptr;
  if (allocate(&device_ptr, size, AllocationKind::kDevice) != hipSuccess) return;
  std::memcpy(device_ptr, var, size);  // the shadow holds the initial value
  VarRegistry& r = vars();
  std::lock_guard<std::mutex> guard(r.mutex);
  r.by_shadow[var] = {device_ptr, size};
  if (deviceVar != nullptr) r.by_name[deviceVar] = {device_ptr, size};
}
void __hipRegisterManagedVar(void* hipModule, void** pointer, void* init_value, const char* name,
                             size_t size, unsigned align) {
  (void)hipModule, (void)align;
  if (pointer == nullptr || size == 0) return;
  void* p = nullptr;
  if (allocate(&p, size, AllocationKind::kManaged) != hipSuccess) return;
  if (init_value != nullptr) std::memcpy(p, init_value, size);
  *pointer = p;
  VarRegistry& r = vars();
  std::lock_guard<std::mutex> guard(r.mutex);
  r.by_shadow[pointer] = {p, size};
  if (name != nullptr) r.by_name[name] = {p, size};
}
// Textures and surfaces read by device code: nothing to keep, as kernels do not run.
void __hipRegisterTexture(void** modules, void* var, char* hostVar, char* deviceVar, int type,
                          int norm, int ext) {
  (void)modules, (void)var, (void)hostVar, (void)deviceVar, (void)type, (void)norm, (void)ext;
}
void __hipRegisterSurface(void** modules, void* var, char* hostVar, char* deviceVar, int type,
                          int ext) {
  (void)modules, (void)var, (void)hostVar, (void)deviceVar, (void)type, (void)ext;
}
hipError_t hipGetSymbolAddress(void** devPtr, const void* symbol) {
  DeviceVar v;
  if (devPtr == nullptr) return finish(hipErrorInvalidValue);
  if (!find_var(symbol, &v)) return finish(hipErrorInvalidSymbol);
  *devPtr = v.device_ptr;
  return finish(hipSuccess);
}
hipError_t hipGetSymbolSize(size_t* size, const void* symbol) {
  DeviceVar v;
  if (size == nullptr) return finish(hipErrorInvalidValue);
  if (!find_var(symbol, &v)) return finish(hipErrorInvalidSymbol);
  *size = v.size_bytes;
  return finish(hipSuccess);
}
// Globals of a loaded code object are not parsed out of it: those the program registered are
// found by name, others are hipErrorNotFound.
hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t hmod,
                              const char* name) {
  if (hmod == nullptr || name == nullptr) return finish(hipErrorInvalidValue);
  VarRegistry& r = vars();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = r.by_name.find(name);
  if (it == r.by_name.end()) return finish(hipErrorNotFound);
  if (dptr != nullptr) *dptr = it->second.device_ptr;
  if (bytes != nullptr) *bytes = it->second.size_bytes;
  return finish(hipSuccess);
}
hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t sizeBytes, size_t offset,
                             hipMemcpyKind kind) {
  return finish(to_symbol(symbol, src, sizeBytes, offset, kind, nullptr, true));
}
hipError_t hipMemcpyToSymbol_spt(const void* symbol, const void* src, size_t sizeBytes,
                                 size_t offset, hipMemcpyKind kind) {
  return finish(to_symbol(symbol, src, sizeBytes, offset, kind, hipStreamPerThread, true));
}
hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t sizeBytes,
                                  size_t offset, hipMemcpyKind kind, hipStream_t stream) {
  return finish(to_symbol(symbol, src, sizeBytes, offset, kind, stream, false));
}
hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t sizeBytes, size_t offset,
                               hipMemcpyKind kind) {
  return finish(from_symbol(dst, symbol, sizeBytes, offset, kind, nullptr, true));
}
hipError_t hipMemcpyFromSymbol_spt(void* dst, const void* symbol, size_t sizeBytes, size_t offset,
                                   hipMemcpyKind kind) {
  return finish(from_symbol(dst, symbol, sizeBytes, offset, kind, hipStreamPerThread, true));
}
hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t sizeBytes, size_t offset,
                                    hipMemcpyKind kind, hipStream_t stream) {
  return finish(from_symbol(dst, symbol, sizeBytes, offset, kind, stream, false));
}

// ---- launches ----
hipError_t hipLaunchKernel_spt(const void* function_address, dim3 numBlocks, dim3 dimBlocks,
                               void** args, size_t sharedMemBytes, hipStream_t stream) {
  (void)args;
  return finish(launch(address(function_address), numBlocks, dimBlocks, sharedMemBytes,
                       stream ? stream : hipStreamPerThread, nullptr, nullptr));
}
hipError_t hipLaunchCooperativeKernel_spt(const void* f, dim3 gridDim, dim3 blockDim,
                                          void** kernelParams, uint32_t sharedMemBytes,
                                          hipStream_t hStream) {
  (void)kernelParams;
  return finish(launch(address(f), gridDim, blockDim, sharedMemBytes,
                       hStream ? hStream : hipStreamPerThread, nullptr, nullptr));
}
namespace {
hipError_t module_launch_threads(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                 uint32_t lx, uint32_t ly, uint32_t lz, size_t shared,
                                 hipStream_t stream, hipEvent_t start, hipEvent_t stop) {
  const CallEntry entry;  // the submit time is the call's entry, before the function lookup
  if (f == nullptr) return hipErrorInvalidDeviceFunction;
  if (!is_module_function(f)) return hipErrorInvalidHandle;
  if (lx == 0 || ly == 0 || lz == 0) return hipErrorInvalidConfiguration;
  return launch(address(f), dim3{gx / lx, gy / ly, gz / lz}, dim3{lx, ly, lz}, shared, stream,
                start, stop);
}
}  // namespace
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void** kernelParams, void** extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent, uint32_t flags) {
  (void)kernelParams, (void)extra, (void)flags;
  return finish(module_launch_threads(f, globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ,
                                      localWorkSizeX, localWorkSizeY, localWorkSizeZ,
                                      sharedMemBytes, hStream, startEvent, stopEvent));
}
hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void** kernelParams, void** extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent) {
  (void)kernelParams, (void)extra;
  return finish(module_launch_threads(f, globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ,
                                      localWorkSizeX, localWorkSizeY, localWorkSizeZ,
                                      sharedMemBytes, hStream, startEvent, stopEvent));
}
void hipLaunchKernelGGLImpl(uintptr_t function_address, const dim3& numBlocks,
                            const dim3& dimBlocks, uint32_t sharedMemBytes, hipStream_t stream,
                            void** kernarg) {
  (void)kernarg;
  finish(launch(function_address, numBlocks, dimBlocks, sharedMemBytes, stream, nullptr, nullptr));
}
hipError_t hipConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem, hipStream_t stream) {
  t_configurations.push_back({gridDim, blockDim, sharedMem, stream});
  return finish(hipSuccess);
}
hipError_t hipSetupArgument(const void* arg, size_t size, size_t offset) {
  (void)size, (void)offset;
  return finish(arg == nullptr || t_configurations.empty() ? hipErrorInvalidValue : hipSuccess);
}
hipError_t hipLaunchByPtr(const void* func) {
  if (t_configurations.empty()) return finish(hipErrorMissingConfiguration);
  const Configuration c = t_configurations.back();
  t_configurations.pop_back();
  return finish(
      launch(address(func), c.grid, c.block, c.shared_mem_bytes, c.stream, nullptr, nullptr));
}
namespace {
hipError_t multi_launch(const hipLaunchParams* list, int n) noexcept {
  if (list == nullptr || n <= 0 || n > device_count()) return hipErrorInvalidValue;
  for (int i = 0; i < n; ++i) {
    const hipError_t ret = launch(address(list[i].func), list[i].gridDim, list[i].blockDim,
                                  list[i].sharedMem, list[i].stream, nullptr, nullptr);
    if (ret != hipSuccess) return ret;
  }
  return hipSuccess;
}
}  // namespace
hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams* launchParamsList, int numDevices,
                                                 unsigned int flags) {
  (void)flags;
  return finish(multi_launch(launchParamsList, numDevices));
}
hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams* launchParamsList, int numDevices,
                                              unsigned int flags) {
  (void)flags;
  return finish(multi_launch(launchParamsList, numDevices));
}

// ---- texture and surface objects: handles ----
// A plain constructor in ROCm 5.2 (hip_texture.cpp): no validation, the last error untouched.
hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f) {
  return hipChannelFormatDesc{x, y, z, w, f};
}
hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject, const hipResourceDesc* pResDesc,
                                  const hipTextureDesc* pTexDesc,
                                  const struct hipResourceViewDesc* pResViewDesc) {
  (void)pResViewDesc;
  if (pResDesc == nullptr || pTexDesc == nullptr) return finish(hipErrorInvalidValue);
  return finish(new_handle(pTexObject));
}
hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject) {
  return finish(textureObject == nullptr ? hipSuccess : delete_handle(textureObject));
}
hipError_t hipTexObjectCreate(hipTextureObject_t* pTexObject, const HIP_RESOURCE_DESC* pResDesc,
                              const HIP_TEXTURE_DESC* pTexDesc,
                              const HIP_RESOURCE_VIEW_DESC* pResViewDesc) {
  (void)pResViewDesc;
  if (pResDesc == nullptr || pTexDesc == nullptr) return finish(hipErrorInvalidValue);
  return finish(new_handle(pTexObject));
}
hipError_t hipTexObjectDestroy(hipTextureObject_t texObject) {
  return finish(texObject == nullptr ? hipSuccess : delete_handle(texObject));
}
hipError_t hipCreateSurfaceObject(hipSurfaceObject_t* pSurfObject,
                                  const hipResourceDesc* pResDesc) {
  if (pResDesc == nullptr) return finish(hipErrorInvalidValue);
  return finish(new_handle(pSurfObject));
}
hipError_t hipDestroySurfaceObject(hipSurfaceObject_t surfaceObject) {
  return finish(surfaceObject == nullptr ? hipSuccess : delete_handle(surfaceObject));
}

// ---- hiprtc ----
hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name,
                                 int numHeaders, const char** headers, const char** includeNames) {
  (void)headers, (void)includeNames;
  if (prog == nullptr || src == nullptr || numHeaders < 0) return HIPRTC_ERROR_INVALID_INPUT;
  *prog = reinterpret_cast<hiprtcProgram>(new Program{src, name ? name : "default_program", {}});
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char** options) {
  (void)options;
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (numOptions < 0) return HIPRTC_ERROR_INVALID_INPUT;
  auto* p = reinterpret_cast<Program*>(prog);
  p->code = std::string(kCodeObjectMagic) + p->name + "\n" + p->source;
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (codeSizeRet == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  *codeSizeRet = reinterpret_cast<Program*>(prog)->code.size();
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (code == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  const std::string& c = reinterpret_cast<Program*>(prog)->code;
  std::memcpy(code, c.data(), c.size());
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (logSizeRet == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  *logSizeRet = 1;  // the empty log's terminator
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (log == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  log[0] = '\0';
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  delete reinterpret_cast<Program*>(*prog);
  *prog = nullptr;
  return HIPRTC_SUCCESS;
}
hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char* name_expression) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  return name_expression == nullptr ? HIPRTC_ERROR_INVALID_INPUT : HIPRTC_SUCCESS;
}
// Kernels are found by name in a simulated code object, so an expression is its own lowered name.
hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char* name_expression,
                                  const char** lowered_name) {
  if (prog == nullptr) return HIPRTC_ERROR_INVALID_PROGRAM;
  if (name_expression == nullptr || lowered_name == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  *lowered_name = name_expression;
  return HIPRTC_SUCCESS;
}
const char* hiprtcGetErrorString(hiprtcResult result) {
  switch (result) {
    case HIPRTC_SUCCESS: return "HIPRTC_SUCCESS";
    case HIPRTC_ERROR_INVALID_INPUT: return "HIPRTC_ERROR_INVALID_INPUT";
    case HIPRTC_ERROR_INVALID_PROGRAM: return "HIPRTC_ERROR_INVALID_PROGRAM";
    case HIPRTC_ERROR_COMPILATION: return "HIPRTC_ERROR_COMPILATION";
    default: return "HIPRTC_ERROR_INTERNAL_ERROR";
  }
}
hiprtcResult hiprtcVersion(int* major, int* minor) {
  if (major == nullptr || minor == nullptr) return HIPRTC_ERROR_INVALID_INPUT;
  *major = 5;
  *minor = 2;
  return HIPRTC_SUCCESS;
}

// ---- modules and streams ----
hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image, unsigned int numOptions,
                               hipJitOption* options, void** optionValues) {
  (void)numOptions, (void)options, (void)optionValues;
  return finish(load_module_image(module, image));
}
int hipGetStreamDeviceId(hipStream_t stream) {
  Stream* s = resolve_stream(stream);
  return s == nullptr ? -1 : s->device;
}
hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags) {
  Stream* s = resolve_stream(stream);
  if (flags == nullptr) return finish(hipErrorInvalidValue);
  if (s == nullptr) return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  *flags = s->blocking ? hipStreamDefault : hipStreamNonBlocking;
  return finish(hipSuccess);
}
hipError_t hipStreamGetPriority(hipStream_t stream, int* priority) {
  if (priority == nullptr) return finish(hipErrorInvalidValue);
  if (resolve_stream(stream) == nullptr)
    return finish(stream == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle);
  *priority = 0;
  return finish(hipSuccess);
}
