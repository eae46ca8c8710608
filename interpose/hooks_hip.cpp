// The HIP hooks, one per row of hip_api.def, all of one shape:
//   pass through when profiling is off or the runtime is calling itself;
//   record device-timing events around work-enqueuing calls;
//   read the clock, call the real function, read the clock;
//   fill one fixed-size record and publish it.
// Nothing here allocates, locks, formats or prints (see ../shared/STYLE.md).
#include <cstring>
#include <type_traits>

#include "common/clock.hpp"
#include "interpose/config.hpp"
#include "interpose/device_timing.hpp"
#include "interpose/hook_support.hpp"
#include "interpose/real_functions.hpp"

#define PROF_EXPORT __attribute__((visibility("default")))

namespace prof::interpose {
namespace {

// Depth of hooked calls on this thread: a runtime that calls its own public functions
// (hipMemcpyPeer -> hipMemcpy in libamdhip64 5.2) is recorded once, as the outer call.
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

struct DepthGuard {
  DepthGuard() noexcept { ++t_depth; }
  ~DepthGuard() { --t_depth; }
};

template <typename Ret>
constexpr Ret failure_value() {
  if constexpr (std::is_same_v<Ret, hipError_t>) {
    return hipErrorNotInitialized;  // no runtime library provides the function
  } else if constexpr (!std::is_void_v<Ret>) {
    return Ret{};
  }
}

inline void commit_api(ThreadBuffer* buffer, uint16_t api_id, uint8_t flags, int32_t result, uint64_t corr,
                       uint64_t begin_ns, uint64_t end_ns, uint64_t stream, uint64_t bytes, uint64_t aux,
                       uint64_t device) noexcept {
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

__attribute__((tls_model("initial-exec"))) thread_local int t_current_device = 0;

}  // namespace

void on_set_device(int device, hipError_t ret) noexcept {
  if (ret != hipSuccess) return;
  t_current_device = device;
  timing_set_current_device(device);
}

void before_device_reset() noexcept { timing_before_device_reset(); }

}  // namespace prof::interpose

using namespace prof;
using namespace prof::interpose;

// The `post` column names these; they see the hook's context.
#define prof_on_set_device(...) on_set_device(__VA_ARGS__)
#define prof_on_register_function(...) on_register_function(ctx, __VA_ARGS__)
#define prof_on_module_get_function(...) on_module_get_function(ctx, __VA_ARGS__)
#define prof_on_module_load(...) on_module_load(ctx, __VA_ARGS__)
#define prof_on_launch(...) on_launch(ctx, __VA_ARGS__)
#define prof_on_graph_instantiate(...) on_graph_instantiate(ctx, __VA_ARGS__)
#define prof_on_graph_launch(...) on_graph_launch(ctx, __VA_ARGS__)

namespace prof::interpose {
namespace {

struct Captured {
  uint64_t stream, bytes, aux;
};

// The one hook shape. `call` invokes the real function; `capture` reads the row's stream, bytes
// and aux expressions after the call; `post` runs the row's extra statement.
template <ApiId kId, HookActivity kActivity, typename Real, typename Call, typename Capture, typename Post>
inline auto run_hook(Real real_fn, hipStream_t stream, Call call, Capture capture, Post post) {
  using Ret = decltype(call());
  if (!real_fn) [[unlikely]]
    return failure_value<Ret>();
  ThreadBuffer* buffer = t_depth == 0 ? ThreadBuffer::current(RuntimeId::kHip) : nullptr;
  if (!buffer) return call();
  DepthGuard depth_guard;
  if constexpr (kId == ApiId::hipDeviceReset) before_device_reset();
  const uint64_t corr = buffer->next_correlation_id();
  const HookContext ctx{buffer, corr, static_cast<uint16_t>(kId)};
  TimingTicket ticket;
  if constexpr (kActivity != HookActivity::kNone) timing_begin(ticket, stream);
  const uint64_t begin_ns = now_ns();
  if constexpr (std::is_void_v<Ret>) {
    call();
    const uint64_t end_ns = now_ns();
    post(ctx, hipSuccess);
    const Captured c = capture(hipSuccess);
    commit_api(buffer, static_cast<uint16_t>(kId), 0, 0, corr, begin_ns, end_ns, c.stream, c.bytes, c.aux,
               static_cast<uint64_t>(t_current_device));
  } else {
    Ret ret = call();
    const uint64_t end_ns = now_ns();
    hipError_t status = hipSuccess;
    if constexpr (std::is_same_v<Ret, hipError_t>) status = ret;
    uint8_t flags = 0;
    if constexpr (kActivity != HookActivity::kNone) {
      if (ticket.owner) flags |= kFlagDeviceTiming;
      if (ticket.captured) flags |= kFlagCaptured;
      timing_end(ticket, status == hipSuccess, stream, corr, to_activity(kActivity), is_blocking(kActivity),
                 begin_ns, end_ns);
    }
    post(ctx, status);
    const Captured c = capture(status);
    commit_api(buffer, static_cast<uint16_t>(kId), flags, static_cast<int32_t>(status), corr, begin_ns, end_ns,
               c.stream, c.bytes, c.aux, static_cast<uint64_t>(t_current_device));
    return ret;
  }
}

}  // namespace
}  // namespace prof::interpose

#define PROF_HIP_API(NAME, RET, PARAMS, ARGS, ACTIVITY, STREAM, BYTES, AUX, POST)                            \
  extern "C" PROF_EXPORT RET NAME PARAMS {                                                                    \
    return run_hook<ApiId::NAME, HookActivity::ACTIVITY>(                                                     \
        real<ApiId::NAME>(), (hipStream_t)(STREAM), [&]() { return real<ApiId::NAME>() ARGS; },               \
        [&]([[maybe_unused]] hipError_t ret) { return Captured{to_u64(STREAM), to_u64(BYTES), to_u64(AUX)}; }, \
        [&]([[maybe_unused]] const HookContext& ctx, [[maybe_unused]] hipError_t ret) { POST });              \
  }
#include "runtimes/hip/hip_api.def"
#undef PROF_HIP_API
