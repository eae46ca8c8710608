// The marker hook shape (roctx, mstx: runtimes/roctx/roctx_api.def explains the columns). A marker
// is not a call with a duration but a named point or range end: the hook reads the clock, calls
// the real function, and publishes one MarkerRecord carrying the message (copied, at most
// kMarkerMessageMaxBytes, in the record and its continuations) and the returned level or id.
// No locks, allocation or formatting; ranges are matched by the collector, not here.
#pragma once
#include <type_traits>

#include "common/clock.hpp"
#include "interpose/capture.hpp"
#include "interpose/config.hpp"
#include "interpose/hook_shape.hpp"

namespace prof::interpose {

// What a marker row does (the `marker` column): the MarkerKind kinds, and the two capture controls.
enum class MarkerHook : uint8_t { kMark, kPush, kPop, kStart, kStop, kPause, kResume };

constexpr MarkerKind to_marker_kind(MarkerHook h) {
  switch (h) {
    case MarkerHook::kPush: return MarkerKind::kPush;
    case MarkerHook::kPop: return MarkerKind::kPop;
    case MarkerHook::kStart: return MarkerKind::kStart;
    case MarkerHook::kStop: return MarkerKind::kStop;
    default: return MarkerKind::kMark;
  }
}

// Publishes one MarkerRecord and the continuation records of its message.
void emit_marker(ThreadBuffer& buffer, MarkerKind kind, uint16_t api_id, uint64_t time_ns,
                 int64_t value, uint64_t stream, const char* message) noexcept;

// kRuntime gates the row (PROF_RUNTIMES: roctx, mstx); kOwner is the device runtime whose program
// this is (HIP for roctx, ACL for mstx): a ring created by a marker names the db after it.
template <RuntimeId kRuntime, RuntimeId kOwner, ApiId kId, MarkerHook kHook, typename Real,
          typename Call, typename Value>
inline auto run_marker_hook(Real real_fn, const char* message, uint64_t stream, Call call,
                            Value value) {
  using Ret = decltype(call());
  if (!real_fn) [[unlikely]] {
    if constexpr (!std::is_void_v<Ret>)
      return Ret{};
    else
      return;
  }
  if constexpr (kHook == MarkerHook::kPause || kHook == MarkerHook::kResume) {
    // Capture control (--trace-start off): the program's own pause/resume switch recording.
    if (g_capture_by_api && t_depth == 0)
      capture_switch(kHook == MarkerHook::kResume, CaptureCause::kProfilerApi,
                     static_cast<uint16_t>(kId), hook_now_ns());
    return call();
  } else {
    if (!recording_now()) return call();
    const bool wanted = t_depth == 0 && g_config.traced[static_cast<size_t>(kRuntime)];
    ThreadBuffer* buffer = wanted ? ThreadBuffer::current(kOwner) : nullptr;
    if (!buffer) {
      if (wanted && g_config.enabled) [[unlikely]]
        count_unrecorded_call();
      return call();
    }
    DepthGuard depth_guard;
    const uint64_t time_ns = hook_now_ns();
    if constexpr (std::is_void_v<Ret>) {
      call();
      emit_marker(*buffer, to_marker_kind(kHook), static_cast<uint16_t>(kId), time_ns, value(0),
                  stream, message);
      hook_clock_maintain(time_ns);
    } else {
      Ret ret = call();
      emit_marker(*buffer, to_marker_kind(kHook), static_cast<uint16_t>(kId), time_ns, value(ret),
                  stream, message);
      hook_clock_maintain(time_ns);
      return ret;
    }
  }
}

}  // namespace prof::interpose

// One exported marker hook from one row of a marker table.
#define PROF_DEFINE_MARKER_HOOK(RUNTIME, OWNER, NAME, RET, PARAMS, ARGS, STREAM, MARKER, MESSAGE,  \
                                VALUE)                                                             \
  extern "C" PROF_EXPORT RET NAME PARAMS {                                                         \
    return run_marker_hook<RuntimeId::RUNTIME, RuntimeId::OWNER, ApiId::NAME, MarkerHook::MARKER>( \
        real<ApiId::NAME>(), static_cast<const char*>(MESSAGE), to_u64(STREAM),                    \
        [&]() { return real<ApiId::NAME>() ARGS; },                                                \
        [&]([[maybe_unused]] auto ret) { return static_cast<int64_t>(VALUE); });                   \
  }
