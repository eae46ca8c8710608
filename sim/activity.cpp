// The simulated device's activity interface: per-op device times for a profiler, as ROCm 5.2's
// libamdhip64 offers them to roctracer (hipInitActivityCallback, hipEnableActivityCallback,
// hipGetCmdName; records as runtimes/hip/hip_activity.hpp). A real device stamps each command's
// begin and end itself, whatever the host threads are doing; here the model's times are the
// device's, so a tool reading these records gets the truth file's times exactly, on any load.
//
// The contract, as this model implements it (the id callback's timing is its reading of
// ROCclr 5.2, not checked against a real device): when a tool has enabled an op's kind, each
// kernel, copy and memset gets a new correlation id as it is enqueued, and the id callback is
// called with it on the thread whose API call enqueued it, inside that call. The op callback is
// called once per op with its record when its times are final: for a kernel when the stream's
// worker reaches it (its modelled times are known then, possibly before its end), for an async
// copy or memset when the worker has moved its bytes, for a blocking one on the calling thread
// before its call returns. Ops of a graph launch are reported one by one.
#include <atomic>

#include "runtimes/hip/hip_activity.hpp"
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

struct Tap {
  std::atomic<hip_activity_id_callback_t> id_callback{nullptr};
  std::atomic<hip_activity_op_callback_t> op_callback{nullptr};
  std::atomic<void*> arg{nullptr};
  std::atomic<uint32_t> enabled{0};  // bit per HipVdiOpId
  std::atomic<uint64_t> next_id{1};
};

Tap g_tap;  // constant-initialised: usable from the first call, before any constructor

uint32_t op_id_of(const Op& op) noexcept {
  return op.kind == OpKind::kKernel ? kHipVdiOpIdDispatch : kHipVdiOpIdCopy;
}

uint32_t command_kind_of(const Op& op) noexcept {
  if (op.kind == OpKind::kKernel) return kHipVdiCommandKernel;
  if (op.kind == OpKind::kMemset) return kHipVdiFillMemory;
  const bool rect = op.height > 1;
  switch (op.direction) {
    case CopyDirection::kD2H: return rect ? kHipVidMemcpyDeviceToHostRect : kHipVdiMemcpyDeviceToHost;
    case CopyDirection::kH2D: return rect ? kHipVdiMemcpyHostToDeviceRect : kHipHipVdiMemcpyHostToDevice;
    default: return rect ? kHipVdiMemcpyDeviceToDeviceRect : kHipVdiMemcpyDeviceToDevice;
  }
}

}  // namespace

void activity_assign_locked(Op& op) noexcept {
  const uint32_t enabled = g_tap.enabled.load(std::memory_order_acquire);
  if (enabled == 0 || (enabled & (1u << op_id_of(op))) == 0) return;
  op.activity_id = g_tap.next_id.fetch_add(1, std::memory_order_relaxed);
  if (auto id_callback = g_tap.id_callback.load(std::memory_order_acquire)) id_callback(op.activity_id);
}

void activity_report(const Stream& stream, const Op& op) noexcept {
  if (op.activity_id == 0) return;
  auto op_callback = g_tap.op_callback.load(std::memory_order_acquire);
  if (op_callback == nullptr) return;
  hip_activity_record_t record{};
  record.domain = kActivityDomainHipOps;
  record.kind = command_kind_of(op);
  record.op = op_id_of(op);
  record.correlation_id = op.activity_id;
  record.begin_ns = op.begin_ns;
  record.end_ns = op.end_ns;
  record.device_id = stream.device;
  record.queue_id = stream.handle_value;
  if (op.kind == OpKind::kKernel) record.kernel_name = op.name;
  else record.bytes = op.width_bytes * op.height;
  op_callback(record.op, &record, g_tap.arg.load(std::memory_order_relaxed));
}

}  // namespace prof::sim

using prof::sim::g_tap;

// ROCclr 5.2: stores the tool's callbacks (no runtime state, no last error).
void hipInitActivityCallback(void* id_callback, void* op_callback, void* arg) {
  g_tap.arg.store(arg, std::memory_order_relaxed);
  g_tap.id_callback.store(reinterpret_cast<hip_activity_id_callback_t>(id_callback), std::memory_order_release);
  g_tap.op_callback.store(reinterpret_cast<hip_activity_op_callback_t>(op_callback), std::memory_order_release);
}

// True when `op` is one this runtime reports (a HipVdiOpId).
bool hipEnableActivityCallback(unsigned op, bool enable) {
  if (op >= kHipVdiOpIdNumber) return false;
  if (enable) g_tap.enabled.fetch_or(1u << op, std::memory_order_acq_rel);
  else g_tap.enabled.fetch_and(~(1u << op), std::memory_order_acq_rel);
  return true;
}

const char* hipGetCmdName(unsigned op) {
  switch (op) {
    case kHipVdiCommandKernel: return "KernelExecution";
    case kHipVdiCommandTask: return "Task";
    case kHipVdiMemcpyDeviceToHost: return "CopyDeviceToHost";
    case kHipHipVdiMemcpyHostToDevice: return "CopyHostToDevice";
    case kHipVdiMemcpyDeviceToDevice: return "CopyDeviceToDevice";
    case kHipVidMemcpyDeviceToHostRect: return "CopyDeviceToHost2D";
    case kHipVdiMemcpyHostToDeviceRect: return "CopyHostToDevice2D";
    case kHipVdiMemcpyDeviceToDeviceRect: return "CopyDeviceToDevice2D";
    case kHipVdiFillMemory: return "FillBuffer";
    default: return "Unknown command kind";
  }
}
