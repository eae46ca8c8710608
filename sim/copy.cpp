// Copies and memsets: validated on the calling thread, executed by the stream's worker at the
// op's modelled time. Synchronous forms run on the current device's null stream and wait.
#include <utility>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

// hipMemcpyPeer/PeerAsync call the exported hipMemcpy/hipMemcpyAsync (as the real runtime does,
// so profilers see the nested call); this flag tells that nested call to model a peer copy.
thread_local bool peer_copy_pending = false;

struct CopyShape {
  void* dst;
  const void* src;
  size_t width_bytes;
  size_t height;
  size_t dst_pitch_bytes;
  size_t src_pitch_bytes;
};

bool direction_of(hipMemcpyKind kind, const CopyShape& shape, bool peer,
                  CopyDirection* out) noexcept {
  if (peer) {
    *out = CopyDirection::kP2P;
    return true;
  }
  switch (kind) {
    case hipMemcpyHostToHost: *out = CopyDirection::kH2H; return true;
    case hipMemcpyHostToDevice: *out = CopyDirection::kH2D; return true;
    case hipMemcpyDeviceToHost: *out = CopyDirection::kD2H; return true;
    case hipMemcpyDeviceToDevice: *out = CopyDirection::kD2D; return true;
    case hipMemcpyDefault: {
      const int dst_device = device_of_pointer(shape.dst);
      const int src_device = device_of_pointer(shape.src);
      if (dst_device >= 0 && src_device >= 0) {
        *out = dst_device == src_device ? CopyDirection::kD2D : CopyDirection::kP2P;
      } else if (dst_device >= 0) {
        *out = CopyDirection::kH2D;
      } else if (src_device >= 0) {
        *out = CopyDirection::kD2H;
      } else {
        *out = CopyDirection::kH2H;
      }
      return true;
    }
  }
  return false;
}

// Real devices copy asynchronously only between the device and pinned host memory: an async
// copy from or to pageable memory is staged through the runtime's own pinned buffers and returns
// once it is done. True when `shape`'s host side is neither a pinned allocation (hipHostMalloc and
// the faces' host allocations) nor a registered range (hipHostRegister).
bool pageable_host_side(const CopyShape& shape, CopyDirection direction) noexcept {
  const void* host = direction == CopyDirection::kH2D   ? shape.src
                     : direction == CopyDirection::kD2H ? shape.dst
                                                        : nullptr;
  if (host == nullptr) return false;
  AllocationInfo info;
  return !find_allocation(host, &info) || !is_host_memory(info.kind);
}

// Queues the op or, when `sync`, runs it on this thread in its place on the stream. On a
// capturing stream an async op becomes a graph node; a synchronous one cannot be captured.
// `waits`: an async op that runs as `sync` does, unless captured (a pageable copy).
hipError_t enqueue(Stream* stream, Op&& op, uint64_t duration_ns, bool sync, bool waits = false) {
  Op here;
  {
    Runtime& rt = runtime();
    std::lock_guard<std::mutex> guard(rt.lock);
    if (stream->capture != nullptr && !sync)
      return capture_op_locked(stream, std::move(op), duration_ns);
    sync = sync || waits;
    if (const hipError_t ret = check_not_capturing_locked(stream); ret != hipSuccess) return ret;
    if (const hipError_t ret = check_legacy_capture_locked(stream); ret != hipSuccess) return ret;
    submit_locked(stream, std::move(op), duration_ns, 0, sync ? &here : nullptr);
  }
  if (sync) run_inline(stream, here);
  return hipSuccess;
}

hipError_t copy(const CopyShape& shape, hipMemcpyKind kind, hipStream_t handle, bool sync) {
  const bool peer = std::exchange(peer_copy_pending, false);
  Stream* stream = resolve_stream(handle);
  if (stream == nullptr) return handle == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle;
  CopyDirection direction;
  if (!direction_of(kind, shape, peer, &direction)) return hipErrorInvalidMemcpyDirection;
  if (shape.width_bytes == 0 || shape.height == 0) return hipSuccess;
  if (shape.dst == nullptr || shape.src == nullptr) return hipErrorInvalidValue;
  if (shape.width_bytes > shape.dst_pitch_bytes || shape.width_bytes > shape.src_pitch_bytes) {
    return hipErrorInvalidPitchValue;
  }
  Op op;
  op.kind = OpKind::kCopy;
  op.dst = shape.dst;
  op.src = shape.src;
  op.width_bytes = shape.width_bytes;
  op.height = shape.height;
  op.dst_pitch_bytes = shape.dst_pitch_bytes;
  op.src_pitch_bytes = shape.src_pitch_bytes;
  op.direction = direction;
  const uint64_t bytes = static_cast<uint64_t>(shape.width_bytes) * shape.height;
  return enqueue(stream, std::move(op), copy_duration_ns(bytes, direction), sync,
                 !sync && pageable_host_side(shape, direction));
}

hipError_t copy_1d(void* dst, const void* src, size_t bytes, hipMemcpyKind kind, hipStream_t stream,
                   bool sync) {
  return copy(CopyShape{dst, src, bytes, 1, bytes, bytes}, kind, stream, sync);
}

hipError_t memset_bytes(void* dst, int value, size_t bytes, hipStream_t handle, bool sync) {
  return memset_pattern(dst, static_cast<uint32_t>(value), 1, bytes, 1, bytes, handle, sync);
}

bool valid_device(int device) noexcept { return device >= 0 && device < device_count(); }

}  // namespace

hipError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                   size_t height, hipMemcpyKind kind, hipStream_t stream, bool sync) noexcept {
  return copy(CopyShape{dst, src, width, height, dpitch, spitch}, kind, stream, sync);
}

hipError_t memset_pattern(void* dst, uint32_t value, unsigned element_bytes, size_t width_elements,
                          size_t height, size_t pitch_bytes, hipStream_t handle,
                          bool sync) noexcept {
  Stream* stream = resolve_stream(handle);
  if (stream == nullptr) return handle == nullptr ? hipErrorNoDevice : hipErrorInvalidHandle;
  const size_t width_bytes = width_elements * element_bytes;
  if (width_bytes == 0 || height == 0) return hipSuccess;
  if (dst == nullptr) return hipErrorInvalidValue;
  if (height > 1 && pitch_bytes < width_bytes) return hipErrorInvalidPitchValue;
  Op op;
  op.kind = OpKind::kMemset;
  op.dst = dst;
  op.value = static_cast<int>(value);
  op.element_bytes = static_cast<uint8_t>(element_bytes);
  op.width_bytes = width_bytes;
  op.height = height;
  op.dst_pitch_bytes = pitch_bytes;
  return enqueue(stream, std::move(op), memset_duration_ns(uint64_t{width_bytes} * height), sync);
}
}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipMemset(void* dst, int value, size_t sizeBytes) {
  return finish(memset_bytes(dst, value, sizeBytes, nullptr, true));
}

hipError_t hipMemsetAsync(void* dst, int value, size_t sizeBytes, hipStream_t stream) {
  return finish(memset_bytes(dst, value, sizeBytes, stream, false));
}

hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind) {
  return finish(copy_1d(dst, src, sizeBytes, kind, nullptr, true));
}

hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream) {
  return finish(copy_1d(dst, src, sizeBytes, kind, stream, false));
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t sizeBytes) {
  return finish(copy_1d(dst, src, sizeBytes, hipMemcpyHostToDevice, nullptr, true));
}

hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t sizeBytes) {
  return finish(copy_1d(dst, src, sizeBytes, hipMemcpyDeviceToHost, nullptr, true));
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes) {
  return finish(copy_1d(dst, src, sizeBytes, hipMemcpyDeviceToDevice, nullptr, true));
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes, hipStream_t stream) {
  return finish(copy_1d(dst, src, sizeBytes, hipMemcpyHostToDevice, stream, false));
}

hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
  return finish(copy_1d(dst, src, sizeBytes, hipMemcpyDeviceToHost, stream, false));
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                              hipStream_t stream) {
  return finish(copy_1d(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream, false));
}

// Goes through the PLT to the exported hipMemcpy, as libamdhip64 5.2 does (see vendor-api.md):
// the library is built with semantic interposition, so this is never bound or inlined locally.
hipError_t hipMemcpyPeer(void* dst, int dstDeviceId, const void* src, int srcDeviceId,
                         size_t sizeBytes) {
  if (!valid_device(dstDeviceId) || !valid_device(srcDeviceId))
    return finish(hipErrorInvalidDevice);
  peer_copy_pending = true;
  const hipError_t ret = hipMemcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice);
  peer_copy_pending = false;
  return finish(ret);
}

hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice,
                              size_t sizeBytes, hipStream_t stream) {
  if (!valid_device(dstDeviceId) || !valid_device(srcDevice)) return finish(hipErrorInvalidDevice);
  peer_copy_pending = true;
  const hipError_t ret = hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream);
  peer_copy_pending = false;
  return finish(ret);
}

hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                       size_t height, hipMemcpyKind kind) {
  return finish(copy(CopyShape{dst, src, width, height, dpitch, spitch}, kind, nullptr, true));
}

hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                            size_t height, hipMemcpyKind kind, hipStream_t stream) {
  return finish(copy(CopyShape{dst, src, width, height, dpitch, spitch}, kind, stream, false));
}
