// The one hook shape, for every runtime: each runtime's hooks TU (interpose/hooks_<runtime>.cpp)
// instantiates it once per row of its table with its adapter
// (runtimes/<runtime>/<runtime>_adapter.hpp):
//   pass through when profiling (or this runtime) is off, or the runtime is calling itself;
//   record device-timing events around work-enqueuing calls;
//   read the clock, call the real function, read the clock;
//   fill one fixed-size record and publish it.
// Nothing here allocates, locks, formats or prints (see ../shared/STYLE.md).
#pragma once
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <type_traits>

#include "common/clock.hpp"
#include "interpose/capture.hpp"
#include "interpose/config.hpp"
#include "interpose/device_timing.hpp"
#include "interpose/hook_clock.hpp"
#include "interpose/hook_support.hpp"
#include "interpose/real_functions.hpp"
#include "interpose/stream_capture.hpp"

#define PROF_EXPORT __attribute__((visibility("default")))

namespace prof::interpose {

// Depth of hooked calls on this thread, all runtimes together: a runtime that calls its own
// public functions (hipMemcpyPeer -> hipMemcpy in libamdhip64 5.2) is recorded once, as the outer
// call.
extern constinit __attribute__((tls_model("initial-exec"))) thread_local int t_depth;
// The device each runtime's set-device call last selected on this thread.
extern constinit
    __attribute__((tls_model("initial-exec"))) thread_local int t_current_device[kRuntimeCount];

struct DepthGuard {
  DepthGuard() noexcept { ++t_depth; }
  ~DepthGuard() { --t_depth; }
};

[[gnu::always_inline]] inline void commit_api(ThreadBuffer* buffer, uint16_t api_id, uint8_t flags,
                                              int32_t result, uint64_t corr, uint64_t begin_ns,
                                              uint64_t end_ns, uint64_t stream, uint64_t bytes,
                                              uint64_t aux, uint64_t device) noexcept {
  Record* r = buffer->reserve();
  if (!r) return;
  ApiRecord& a = r->api;
  a.type = static_cast<uint8_t>(RecordType::kApi);
  a.flags = flags;
  a.api_id = api_id;
  a.result = result;
  a.correlation_id = corr;
  a.begin_ns = begin_ns;
  a.end_ns = end_ns;
  a.stream = stream;
  a.bytes = bytes;
  a.aux = aux;
  a.device = device;
  buffer->commit();
}

template <typename Adapter>
inline void on_set_device(int device, typename Adapter::Status ret) noexcept {
  if (ret != Adapter::kSuccess) return;
  t_current_device[static_cast<size_t>(Adapter::kRuntime)] = device;
  timing_set_current_device(Adapter::kRuntime, device);
}

struct Captured {
  uint64_t stream, bytes, aux;
};

// Capture control: the runtime's start/stop calls (HIP's hipProfilerStart/Stop), from its adapter;
// a runtime without them names an id none of its rows has.
inline constexpr ApiId kNoApi = static_cast<ApiId>(0xFFFF);
template <typename Adapter>
constexpr ApiId profiler_start_api() {
  if constexpr (requires { Adapter::kProfilerStart; })
    return Adapter::kProfilerStart;
  else
    return kNoApi;
}
template <typename Adapter>
constexpr ApiId profiler_stop_api() {
  if constexpr (requires { Adapter::kProfilerStop; })
    return Adapter::kProfilerStop;
  else
    return kNoApi;
}
// Stream capture: the runtime's begin and end calls, from its adapter
// (interpose/stream_capture.hpp).
template <typename Adapter>
constexpr ApiId capture_begin_api() {
  if constexpr (requires { Adapter::kCaptureBegin; })
    return Adapter::kCaptureBegin;
  else
    return kNoApi;
}
template <typename Adapter>
constexpr ApiId capture_end_api() {
  if constexpr (requires { Adapter::kCaptureEnd; })
    return Adapter::kCaptureEnd;
  else
    return kNoApi;
}
// Whether a call may enqueue device work (or make a stream wait): device timing then lets no op
// borrow the previous op's end event across it (timing_begin). By name, conservatively: a call of
// a device runtime is taken for one unless its name says it only asks, waits, creates, allocates
// or frees, and nothing in it says otherwise (Async, Record, Wait, Launch, ...).
consteval bool contains_any(std::string_view name, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (name.find(w) != std::string_view::npos) return true;
  return false;
}
consteval bool may_enqueue(RuntimeId runtime, HookActivity activity, std::string_view name) {
  if (!is_device_runtime(runtime)) return false;  // MPI and the marker APIs enqueue no device work
  if (activity != HookActivity::kNone) return true;
  if (contains_any(name, {"Async", "Record", "Wait", "Launch", "Signal", "Write", "Callback",
                          "HostFunc", "Memcpy", "Memset", "Prefetch", "Capture", "Graph",
                          "Notifier", "Map", "Reset", "Execute", "Invoke"}))
    return true;
  // Not Destroy: a stream destroyed and another created at its address must not look like one
  // stream.
  return !contains_any(
      name, {"Get", "Query", "Synchronize", "ElapsedTime", "PeekAt", "Create", "Malloc", "Free",
             "SetDevice", "Register", "Attribute", "Version", "Count", "Profiler"});
}

// The real call, counted in the capture state when it begins or ends a capture, and in the
// enqueue count when it may enqueue work. Every path of the hook goes through this, recorded or
// not (outside a window, untraced runtime, nested call): a capture is in the count from before
// its begin call to after the end call that ended it.
template <typename Adapter, ApiId kId, HookActivity kActivity, typename Call>
inline auto real_call(Call& call) {
  if constexpr (may_enqueue(Adapter::kRuntime, kActivity, ApiTraits<kId>::kName)) note_enqueue();
  if constexpr (kId != kNoApi && kId == capture_begin_api<Adapter>()) {
    stream_capture_begin();
    auto ret = call();
    if (ret != Adapter::kSuccess) stream_capture_begin_failed();
    return ret;
  } else if constexpr (kId != kNoApi && kId == capture_end_api<Adapter>()) {
    auto ret = call();
    if (Adapter::capture_ended(ret)) stream_capture_ended();
    return ret;
  } else {
    return call();
  }
}

// Rows whose post statement keeps state later calls need (kernel names, modules, graphs, models,
// the current device): outside a capture window they still run it, but record no call. Every
// other row outside a window is one relaxed load and the real call.
consteval bool keeps_state(std::string_view post) {
  for (std::string_view word :
       {"prof_on_register_function", "prof_on_module_get_function", "prof_on_module_load",
        "prof_on_graph_instantiate", "prof_on_model_load", "prof_on_set_device"})
    if (post.find(word) != std::string_view::npos) return true;
  return false;
}

// What a hook returns when no loaded library defines its function.
template <typename Adapter, typename Ret>
[[gnu::always_inline]] inline Ret no_library_result() noexcept {
  if constexpr (std::is_same_v<Ret, typename Adapter::Status>)
    return Adapter::kNoLibrary;
  else if constexpr (!std::is_void_v<Ret>)
    return Ret{};
  else
    return;
}

// A call that gets no record although its runtime is traced.
template <typename Adapter>
[[gnu::always_inline]] inline void count_unbuffered_call(bool wanted, const void* caller) noexcept {
  constexpr size_t kRuntime = static_cast<size_t>(Adapter::kRuntime);
  if (g_config.enabled && g_config.traced[kRuntime]) [[unlikely]] {
    if (wanted) count_unrecorded_call();  // no ring fitted: counted
    // Inside another traced call: the runtime's own call passes unseen; any other (a signal
    // handler's that interrupted the hook) is counted.
    else if (!in_runtime_library(caller))
      count_nested_call();
  }
}

// After the real call, in the order both hook paths (void or not) need: the device-timing ticket
// closed, the row's post statement, its captured values, the record (inside a capture window),
// the call left. `ok` is whether the call succeeded as device timing takes it, `result` the
// status as the record stores it.
template <typename Adapter, ApiId kId, HookActivity kActivity, typename Capture, typename Post>
[[gnu::always_inline]] inline void finish_call(ThreadBuffer* buffer, const HookContext& ctx,
                                               uint64_t corr, TimingTicket& ticket,
                                               typename Adapter::Stream stream,
                                               typename Adapter::Status status, bool ok,
                                               int32_t result, uint64_t begin_ns, uint64_t end_ns,
                                               uint64_t device, bool recording, Capture& capture,
                                               Post& post) noexcept {
  uint8_t flags = 0;
  if constexpr (kActivity != HookActivity::kNone) {
    if (ticket.owner) flags |= kFlagDeviceTiming;
    if (ticket.captured) flags |= kFlagCaptured;
    timing_end(ticket, ok, stream, corr, to_activity(kActivity), is_blocking(kActivity), begin_ns,
               end_ns);
  }
  post(ctx, status);
  const Captured c = capture(status);
  if (recording)
    commit_api(buffer, static_cast<uint16_t>(kId), flags, result, corr, begin_ns, end_ns, c.stream,
               c.bytes, c.aux, device);
  buffer->leave_call();
  hook_clock_maintain(end_ns);
}

// `call` invokes the real function; `capture` reads the row's stream, bytes and aux expressions
// after the call; `post` runs the row's extra statement. The steps it calls are always inlined:
// this is every hooked call's path, and it compiles to the same work as one function.
template <typename Adapter, ApiId kId, HookActivity kActivity, bool kKeepsState = false,
          typename Real, typename RealCall, typename Capture, typename Post>
inline auto run_hook(Real real_fn, typename Adapter::Stream stream, RealCall real_only,
                     Capture capture, Post post, const void* caller) {
  auto call = [&]() { return real_call<Adapter, kId, kActivity>(real_only); };
  using Ret = decltype(call());
  using Status = typename Adapter::Status;
  constexpr size_t kRuntime = static_cast<size_t>(Adapter::kRuntime);
  if (!real_fn) [[unlikely]]
    return no_library_result<Adapter, Ret>();
  // A call before prof's constructor ran (a library's constructor): read the configuration now.
  if (!g_config_loaded.load(std::memory_order_acquire)) [[unlikely]]
    ensure_config_loaded();
  if constexpr (kId == profiler_start_api<Adapter>())
    if (g_capture_by_api && t_depth == 0)
      capture_switch(true, CaptureCause::kProfilerApi, static_cast<uint16_t>(kId), hook_now_ns());
  // Outside a capture window: the real call, nothing else (rows that keep state go on, unrecorded).
  constexpr bool kStateful =
      kKeepsState || kId == Adapter::kDeviceReset || kId == Adapter::kFinalize;
  const bool recording = recording_now();
  if constexpr (!kStateful)
    if (!recording) return call();
  const bool wanted = t_depth == 0 && g_config.traced[kRuntime];
  ThreadBuffer* buffer = wanted ? ThreadBuffer::current(Adapter::kRuntime) : nullptr;
  if (!buffer) {
    count_unbuffered_call<Adapter>(wanted, caller);
    return call();
  }
  DepthGuard depth_guard;
  if constexpr (kId == Adapter::kDeviceReset || kId == Adapter::kFinalize)
    timing_before_device_reset();
  const uint64_t corr = buffer->next_correlation_id();
  const HookContext ctx{buffer, corr, static_cast<uint16_t>(kId)};
  TimingTicket ticket;
  if constexpr (kActivity != HookActivity::kNone)
    timing_begin(ticket, Adapter::kTiming, stream, is_blocking(kActivity),
                 !enqueues_several_ops(kId), corr);
  buffer->enter_call_starting();
  const uint64_t begin_ns = hook_now_ns();
  buffer->enter_call(begin_ns);
  const uint64_t device = static_cast<uint64_t>(t_current_device[kRuntime]);
  if constexpr (std::is_void_v<Ret>) {
    call();
    const uint64_t end_ns = std::max(hook_now_ns(), begin_ns);
    // ok: hip_impl::hipLaunchKernelGGLImpl has nothing to say it failed.
    finish_call<Adapter, kId, kActivity>(buffer, ctx, corr, ticket, stream, Adapter::kSuccess, true,
                                         0, begin_ns, end_ns, device, recording, capture, post);
  } else {
    Ret ret = call();
    const uint64_t end_ns = std::max(hook_now_ns(), begin_ns);
    if constexpr (kId == Adapter::kDeviceReset || kId == Adapter::kFinalize)
      timing_after_device_reset();
    Status status = Adapter::kSuccess;
    if constexpr (std::is_same_v<Ret, Status>) status = ret;
    finish_call<Adapter, kId, kActivity>(buffer, ctx, corr, ticket, stream, status,
                                         status == Adapter::kSuccess, static_cast<int32_t>(status),
                                         begin_ns, end_ns, device, recording, capture, post);
    // The stop call is the window's last recorded call.
    if constexpr (kId == profiler_stop_api<Adapter>())
      if (g_capture_by_api)
        capture_switch(false, CaptureCause::kProfilerApi, static_cast<uint16_t>(kId), end_ns);
    return ret;
  }
}

}  // namespace prof::interpose

// The `post` column names these; they see the hook's context and the row's Adapter.
#define prof_on_set_device(device, ret) on_set_device<Adapter>(device, ret)
#define prof_on_register_function(...) on_register_function(ctx, __VA_ARGS__)
#define prof_on_module_get_function(function, name, ret) \
  if ((ret) == Adapter::kSuccess && (function))          \
  on_module_get_function(ctx, to_u64(*(function)), name)
#define prof_on_module_load(path, ret) \
  if ((ret) == Adapter::kSuccess) on_module_load(ctx, path)
#define prof_on_launch(...) on_launch(ctx, __VA_ARGS__)
#define prof_on_host_copy(direction, dst, src) on_host_copy(ctx, direction, dst, src)
#define prof_on_graph_instantiate(exec, ret) \
  if ((ret) == Adapter::kSuccess && (exec)) on_graph_instantiate(ctx, to_u64(*(exec)))
#define prof_on_graph_launch(exec) on_graph_launch(ctx, exec)
#define prof_on_named_launch(name) on_named_launch(ctx, name)
#define prof_on_model_load(path, id, ret) \
  if ((ret) == Adapter::kSuccess && (id)) on_model_load(ctx, path, *(id))
#define prof_on_model_launch(id) on_model_launch(ctx, id)

// One exported hook from one table row. ADAPTER is the runtime's adapter type.
#define PROF_DEFINE_HOOK(ADAPTER, NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST) \
  extern "C" PROF_EXPORT RET NAME PARAMS {                                                     \
    using Adapter = ADAPTER;                                                                   \
    using Status = Adapter::Status;                                                            \
    return run_hook<Adapter, ApiId::NAME, HookActivity::ACTIVITY, keeps_state(#POST)>(         \
        real<ApiId::NAME>(), (Adapter::Stream)(STREAM),                                        \
        [&]() { return real<ApiId::NAME>() ARGS; },                                            \
        [&]([[maybe_unused]] Status ret) {                                                     \
          return Captured{to_u64(STREAM), to_u64(BYTES), to_u64(AUX)};                         \
        },                                                                                     \
        [&]([[maybe_unused]] const HookContext& ctx, [[maybe_unused]] Status ret) { POST },    \
        __builtin_return_address(0));                                                          \
  }
