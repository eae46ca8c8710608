// The simulated device's activity interface: per-op device times for a profiler, as a real device
// reports them from its own timestamps, whatever the host threads are doing. The model's times
// are the device's, so a tool reading these reports gets the truth file's times exactly, on any
// load.
//
// Subscribers (at most 4 per face library): HIP's own interface, as ROCm 5.2's libamdhip64 offers
// it to roctracer (hipInitActivityCallback, hipEnableActivityCallback, hipGetCmdName; records as
// runtimes/hip/hip_activity.hpp), and the profiling libraries of the other faces
// (sim/activity_libs/), which subscribe through prof_sim_activity_subscribe
// (sim/activity_subscriber.h).
//
// The contract, as this model implements it (for HIP the id callback's timing is this model's
// reading of ROCclr 5.2, not checked against a real device): when a subscriber wants an op's kind,
// each kernel, copy and memset gets a new correlation id as it is enqueued, and the subscriber is
// told on the thread whose API call enqueued it, inside that call. It gets the op's report once
// its times are final: for a kernel when the stream's worker reaches it (its modelled times are
// known then, possibly before its end), for an async copy or memset when the worker has moved its
// bytes, for a blocking one on the calling thread before its call returns. Ops of a graph launch
// are reported one by one.
#include <atomic>

#include "runtimes/hip/hip_activity.hpp"
#include "sim/activity_subscriber.h"
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

struct Slot {
  std::atomic<bool> used{false};
  std::atomic<uint32_t> kinds{0};
  void (*on_enqueue)(uint64_t, uint32_t, void*) = nullptr;
  void (*on_done)(const prof_sim_op_report*, void*) = nullptr;
  void* arg = nullptr;
};
constexpr int kSlots = 4;
Slot g_slots[kSlots];               // constant-initialised: usable from the first call
std::atomic<uint32_t> g_wanted{0};  // the union of the slots' kinds
std::atomic<uint64_t> g_next_id{1};

uint32_t kind_of(const Op& op) noexcept {
  return op.kind == OpKind::kKernel ? PROF_SIM_OP_KERNEL
         : op.kind == OpKind::kCopy ? PROF_SIM_OP_COPY
                                    : PROF_SIM_OP_MEMSET;
}

void recompute_wanted() noexcept {
  uint32_t wanted = 0;
  for (const Slot& slot : g_slots)
    if (slot.used.load(std::memory_order_acquire))
      wanted |= slot.kinds.load(std::memory_order_relaxed);
  g_wanted.store(wanted, std::memory_order_release);
}

int subscribe(const prof_sim_activity_subscriber* s) noexcept {
  if (s == nullptr || s->on_done == nullptr) return -1;
  for (Slot& slot : g_slots) {  // the same subscriber again: new kinds (0: unsubscribed)
    if (slot.used.load(std::memory_order_acquire) && slot.on_done == s->on_done &&
        slot.arg == s->arg) {
      slot.kinds.store(s->kinds, std::memory_order_release);
      recompute_wanted();
      return 0;
    }
  }
  for (Slot& slot : g_slots) {
    if (slot.used.load(std::memory_order_acquire)) continue;
    slot.on_enqueue = s->on_enqueue;
    slot.on_done = s->on_done;
    slot.arg = s->arg;
    slot.kinds.store(s->kinds, std::memory_order_relaxed);
    slot.used.store(true, std::memory_order_release);
    recompute_wanted();
    return 0;
  }
  return -1;
}

// HIP's interface, one subscriber: the record is HIP's activity_record_t.
struct HipTap {
  std::atomic<hip_activity_id_callback_t> id_callback{nullptr};
  std::atomic<hip_activity_op_callback_t> op_callback{nullptr};
  std::atomic<void*> arg{nullptr};
  std::atomic<uint32_t> enabled{0};  // bit per HipVdiOpId
};
HipTap g_hip;

uint32_t hip_command_kind(const prof_sim_op_report& r) noexcept {
  if (r.kind == PROF_SIM_OP_KERNEL) return kHipVdiCommandKernel;
  if (r.kind == PROF_SIM_OP_MEMSET) return kHipVdiFillMemory;
  switch (r.direction) {
    case PROF_SIM_COPY_D2H: return kHipVdiMemcpyDeviceToHost;
    case PROF_SIM_COPY_H2D: return kHipHipVdiMemcpyHostToDevice;
    default: return kHipVdiMemcpyDeviceToDevice;
  }
}

void hip_on_enqueue(uint64_t id, uint32_t, void*) {
  if (auto id_callback = g_hip.id_callback.load(std::memory_order_acquire)) id_callback(id);
}

void hip_on_done(const prof_sim_op_report* r, void*) {
  auto op_callback = g_hip.op_callback.load(std::memory_order_acquire);
  if (op_callback == nullptr) return;
  hip_activity_record_t record{};
  record.domain = kActivityDomainHipOps;
  record.kind = hip_command_kind(*r);
  record.op = r->kind == PROF_SIM_OP_KERNEL ? kHipVdiOpIdDispatch : kHipVdiOpIdCopy;
  record.correlation_id = r->correlation_id;
  record.begin_ns = r->begin_ns;
  record.end_ns = r->end_ns;
  record.device_id = r->device;
  record.queue_id = r->stream;
  if (r->kind == PROF_SIM_OP_KERNEL)
    record.kernel_name = r->name;
  else
    record.bytes = r->bytes;
  op_callback(record.op, &record, g_hip.arg.load(std::memory_order_relaxed));
}

void hip_resubscribe() noexcept {
  const uint32_t ops = g_hip.enabled.load(std::memory_order_acquire);
  prof_sim_activity_subscriber s{};
  if (ops & (1u << kHipVdiOpIdDispatch)) s.kinds |= 1u << PROF_SIM_OP_KERNEL;
  if (ops & (1u << kHipVdiOpIdCopy))
    s.kinds |= (1u << PROF_SIM_OP_COPY) | (1u << PROF_SIM_OP_MEMSET);
  s.on_enqueue = hip_on_enqueue;
  s.on_done = hip_on_done;
  (void)subscribe(&s);
}

}  // namespace

void activity_assign_locked(Op& op) noexcept {
  const uint32_t wanted = g_wanted.load(std::memory_order_acquire);
  const uint32_t kind = kind_of(op);
  if ((wanted & (1u << kind)) == 0) return;
  op.activity_id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  for (Slot& slot : g_slots)
    if (slot.used.load(std::memory_order_acquire) &&
        (slot.kinds.load(std::memory_order_relaxed) & (1u << kind)) && slot.on_enqueue != nullptr)
      slot.on_enqueue(op.activity_id, kind, slot.arg);
}

void activity_report(const Stream& stream, const Op& op) noexcept {
  if (op.activity_id == 0) return;
  prof_sim_op_report r{};
  r.correlation_id = op.activity_id;
  r.kind = kind_of(op);
  r.direction = static_cast<uint32_t>(op.direction);
  r.device = stream.device;
  r.stream = stream.handle_value;
  r.begin_ns = op.begin_ns;
  r.end_ns = op.end_ns;
  r.bytes = op.kind == OpKind::kKernel ? 0 : static_cast<uint64_t>(op.width_bytes) * op.height;
  r.name = op.name;
  r.grid[0] = op.grid.x, r.grid[1] = op.grid.y, r.grid[2] = op.grid.z;
  r.block[0] = op.block.x, r.block[1] = op.block.y, r.block[2] = op.block.z;
  for (Slot& slot : g_slots)
    if (slot.used.load(std::memory_order_acquire) &&
        (slot.kinds.load(std::memory_order_relaxed) & (1u << r.kind)))
      slot.on_done(&r, slot.arg);
}

}  // namespace prof::sim

static_assert(static_cast<uint32_t>(prof::sim::CopyDirection::kH2D) == PROF_SIM_COPY_H2D &&
                  static_cast<uint32_t>(prof::sim::CopyDirection::kD2H) == PROF_SIM_COPY_D2H &&
                  static_cast<uint32_t>(prof::sim::CopyDirection::kD2D) == PROF_SIM_COPY_D2D &&
                  static_cast<uint32_t>(prof::sim::CopyDirection::kH2H) == PROF_SIM_COPY_H2H &&
                  static_cast<uint32_t>(prof::sim::CopyDirection::kP2P) == PROF_SIM_COPY_P2P,
              "the report's directions are the model's");

// Sim-private (sim/activity_subscriber.h): exported by every face library under this name.
extern "C" __attribute__((visibility("default"))) int prof_sim_activity_subscribe(
    const prof_sim_activity_subscriber* subscriber) {
  return prof::sim::subscribe(subscriber);
}

using prof::sim::g_hip;

// ROCclr 5.2: stores the tool's callbacks (no runtime state, no last error).
void hipInitActivityCallback(void* id_callback, void* op_callback, void* arg) {
  g_hip.arg.store(arg, std::memory_order_relaxed);
  g_hip.id_callback.store(reinterpret_cast<hip_activity_id_callback_t>(id_callback),
                          std::memory_order_release);
  g_hip.op_callback.store(reinterpret_cast<hip_activity_op_callback_t>(op_callback),
                          std::memory_order_release);
}

// True when `op` is one this runtime reports (a HipVdiOpId).
bool hipEnableActivityCallback(unsigned op, bool enable) {
  if (op >= kHipVdiOpIdNumber) return false;
  if (enable)
    g_hip.enabled.fetch_or(1u << op, std::memory_order_acq_rel);
  else
    g_hip.enabled.fetch_and(~(1u << op), std::memory_order_acq_rel);
  prof::sim::hip_resubscribe();
  return true;
}

// ROCclr's getOclCommandKindString for the kinds this model reports.
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
