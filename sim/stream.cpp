// Stream handles and the stream API. Handles are Stream pointers, checked against a lock-free
// table, except the null stream (0, one per device) and hipStreamPerThread (2, one per thread
// and device, a blocking stream like CUDA's per-thread default stream).
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

constexpr int kMaxPerThreadDevices = 64;

Stream* per_thread_stream() noexcept {
  thread_local Stream* streams[kMaxPerThreadDevices] = {};
  const int device = current_device();
  if (device < 0 || device >= kMaxPerThreadDevices || device >= device_count()) return nullptr;
  Stream*& s = streams[device];
  // A hipDeviceReset destroys it; the next use creates a fresh one.
  if (s == nullptr || !s->alive.load(std::memory_order_acquire)) {
    Runtime& rt = runtime();
    std::lock_guard<std::mutex> guard(rt.lock);
    s = new_stream_locked(device, true, false, reinterpret_cast<uint64_t>(hipStreamPerThread));
  }
  return s;
}

hipError_t create_stream(hipStream_t* out, unsigned int flags) {
  if (out == nullptr) return hipErrorInvalidValue;
  if ((flags & ~unsigned{hipStreamNonBlocking}) != 0) return hipErrorInvalidValue;
  if (device_count() == 0) return hipErrorNoDevice;
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Stream* s = new_stream_locked(current_device(), (flags & hipStreamNonBlocking) == 0, false, 0);
  s->handle_value = reinterpret_cast<uint64_t>(s);
  if (!rt.stream_table.insert(s)) {
    auto& list = rt.devices[s->device].streams;
    list.pop_back();
    s->alive = false;
    return hipErrorOutOfMemory;
  }
  *out = reinterpret_cast<hipStream_t>(s);
  return hipSuccess;
}

}  // namespace

Stream* resolve_stream(hipStream_t handle) noexcept {
  note_call_entry();
  if (handle == nullptr) {
    const int device = current_device();
    if (device < 0 || device >= device_count()) return nullptr;
    return runtime().devices[device].null_stream;
  }
  if (handle == hipStreamPerThread) return per_thread_stream();
  if (!runtime().stream_table.contains(handle)) return nullptr;
  return reinterpret_cast<Stream*>(handle);
}

}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipStreamCreate(hipStream_t* stream) {
  return finish(create_stream(stream, hipStreamDefault));
}

hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  return finish(create_stream(stream, flags));
}

// Priorities are accepted and ignored: the model has no scheduler that could honour them.
hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority) {
  (void)priority;
  return finish(create_stream(stream, flags));
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  // The null and per-thread streams cannot be destroyed.
  if (stream == nullptr || stream == hipStreamPerThread) return finish(hipErrorInvalidHandle);
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  destroy_stream(s);
  return finish(hipSuccess);
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  uint64_t seq = 0;
  uint64_t end = 0;
  {
    Runtime& rt = runtime();
    std::lock_guard<std::mutex> guard(rt.lock);
    if (const hipError_t ret = check_not_capturing_locked(s); ret != hipSuccess) return finish(ret);
    seq = s->submitted.load(std::memory_order_relaxed);
    end = s->tail_end_ns;
  }
  wait_completed(s, seq, end);
  flush_deferred_truth();  // after a synchronize, the truth file has every completed op
  return finish(hipSuccess);
}

// The cheap call: a table probe and two atomic loads, no lock, no syscall (a clock read while
// the stream is busy).
hipError_t hipStreamQuery(hipStream_t stream) {
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  if (s->capture_status.load(std::memory_order_acquire) != hipStreamCaptureStatusNone) {
    Runtime& rt = runtime();
    std::lock_guard<std::mutex> guard(rt.lock);
    if (const hipError_t ret = check_not_capturing_locked(s); ret != hipSuccess) return finish(ret);
  }
  const uint64_t submitted = s->submitted.load(std::memory_order_acquire);
  return finish(stream_complete_by_now(s, submitted) ? hipSuccess : hipErrorNotReady);
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  Event* e = resolve_event(event);
  if (e == nullptr) return finish(hipErrorInvalidHandle);
  if (flags != 0) return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (s->capture != nullptr || e->capture_id != 0) return finish(capture_wait_event_locked(s, e));
  std::lock_guard<std::mutex> event_guard(e->mutex);
  if (e->stream != nullptr)
    add_wait_locked(s, e->stream, e->seq, e->time_ns);  // never recorded: no-op
  return finish(hipSuccess);
}
