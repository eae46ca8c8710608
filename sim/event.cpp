// Events: a record is a zero-duration marker on a stream; the event's device time is the
// marker's modelled time and it is complete once the stream's worker has passed the marker.
// Destroyed events are recycled (like any allocator would), so a stale handle stays invalid
// only until a new event reuses its address.
#include <algorithm>

#include "sim/runtime.hpp"

namespace prof::sim {

Event* resolve_event(hipEvent_t handle) noexcept {
  if (handle == nullptr || !runtime().event_table.contains(handle)) return nullptr;
  return reinterpret_cast<Event*>(handle);
}

void record_event_locked(Event* event, Stream* stream, uint64_t submit_ns) {
  Op marker;
  marker.kind = OpKind::kMarker;
  const uint64_t time_ns = submit_locked(stream, std::move(marker), 0, submit_ns);
  std::lock_guard<std::mutex> guard(event->mutex);
  event->stream = stream;
  event->seq = stream->submitted.load(std::memory_order_relaxed);
  event->time_ns = time_ns;
  event->capture_id = 0;
  event->captured_node = nullptr;
}

void destroy_device_events(int device) noexcept {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  auto doomed = std::stable_partition(rt.events.begin(), rt.events.end(),
                                      [device](const Event* e) { return e->device != device; });
  for (auto it = doomed; it != rt.events.end(); ++it) {
    rt.event_table.erase(*it);
    rt.free_events.push_back(*it);
  }
  rt.events.erase(doomed, rt.events.end());
  for (size_t i = 0; i < rt.events.size(); ++i) rt.events[i]->live_index = i;
}

}  // namespace prof::sim

using namespace prof::sim;

namespace {

constexpr unsigned kKnownEventFlags =
    hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;

struct EventState {
  bool captured;  // last recorded into a capture: not a point on any stream
  bool recorded;
  bool complete;
  uint64_t time_ns;
  unsigned flags;
};

EventState state_of(Event* e) noexcept {
  std::lock_guard<std::mutex> guard(e->mutex);
  if (e->captured_node != nullptr) return {true, false, false, 0, e->flags};
  if (e->stream == nullptr) return {false, false, true, 0, e->flags};
  const bool complete = complete_by(e->stream, e->seq, e->time_ns);
  return {false, true, complete, e->time_ns, e->flags};
}

}  // namespace

hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  if (event == nullptr || (flags & ~kKnownEventFlags) != 0) return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Event* e = nullptr;
  if (!rt.free_events.empty()) {
    e = rt.free_events.back();
    rt.free_events.pop_back();
  } else {
    e = new Event;  // recycled, never deleted: lock-free readers may still look at it
  }
  {
    std::lock_guard<std::mutex> event_guard(e->mutex);
    e->flags = flags;
    e->device = current_device();
    e->stream = nullptr;
    e->seq = 0;
    e->time_ns = 0;
  }
  if (!rt.event_table.insert(e)) {
    rt.free_events.push_back(e);
    return finish(hipErrorOutOfMemory);
  }
  e->live_index = rt.events.size();
  rt.events.push_back(e);
  *event = reinterpret_cast<hipEvent_t>(e);
  return finish(hipSuccess);
}

hipError_t hipEventCreate(hipEvent_t* event) {
  return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventDestroy(hipEvent_t event) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (event == nullptr || !rt.event_table.contains(event)) return finish(hipErrorInvalidHandle);
  auto* e = reinterpret_cast<Event*>(event);
  rt.event_table.erase(e);
  // O(1) under the scheduling lock, which every launch takes: a search of the live list was a
  // harvester's 10,000 destroys after a burst of launches, each holding the lock for microseconds.
  Event* last = rt.events.back();
  rt.events[e->live_index] = last;
  last->live_index = e->live_index;
  rt.events.pop_back();
  rt.free_events.push_back(e);
  return finish(hipSuccess);
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  Event* e = resolve_event(event);
  if (e == nullptr) return finish(hipErrorInvalidHandle);
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (s->capture != nullptr) return finish(capture_event_record_locked(e, s));
  if (const hipError_t ret = check_legacy_capture_locked(s); ret != hipSuccess) return finish(ret);
  record_event_locked(e, s);
  return finish(hipSuccess);
}

// An event never recorded counts as complete (HIP returns hipSuccess for it).
hipError_t hipEventQuery(hipEvent_t event) {
  Event* e = resolve_event(event);
  if (e == nullptr) return finish(hipErrorInvalidHandle);
  const EventState state = state_of(e);
  if (state.captured) return finish(hipErrorCapturedEvent);
  return finish(state.complete ? hipSuccess : hipErrorNotReady);
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  Event* e = resolve_event(event);
  if (e == nullptr) return finish(hipErrorInvalidHandle);
  Stream* stream = nullptr;
  uint64_t seq = 0;
  uint64_t time_ns = 0;
  {
    std::lock_guard<std::mutex> guard(e->mutex);
    if (e->captured_node != nullptr) return finish(hipErrorCapturedEvent);
    stream = e->stream;
    seq = e->seq;
    time_ns = e->time_ns;
  }
  if (stream != nullptr) wait_completed(stream, seq, time_ns);
  return finish(hipSuccess);
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (ms == nullptr) return finish(hipErrorInvalidValue);
  Event* a = resolve_event(start);
  Event* b = resolve_event(stop);
  if (a == nullptr || b == nullptr) return finish(hipErrorInvalidHandle);
  const EventState sa = state_of(a);
  const EventState sb = state_of(b);
  if (sa.captured || sb.captured) return finish(hipErrorCapturedEvent);
  if (((sa.flags | sb.flags) & hipEventDisableTiming) != 0) return finish(hipErrorInvalidHandle);
  if (!sa.recorded || !sb.recorded) return finish(hipErrorInvalidHandle);
  if (!sa.complete || !sb.complete) return finish(hipErrorNotReady);
  const auto diff_ns = static_cast<int64_t>(sb.time_ns - sa.time_ns);
  *ms = static_cast<float>(static_cast<double>(diff_ns) / 1e6);
  return finish(hipSuccess);
}
