// The simulated libmspti.so: Huawei MSPTI's activity interface (runtimes/acl/mspti_activity.hpp)
// over the simulated libascendcl.so's per-op reports (sim/activity_subscriber.h). A tool registers
// its buffer callbacks, enables kinds, pushes its own ids around its calls; it gets KERNEL, MEMCPY
// and MEMSET records with the model's device times (the truth file's, to the ns) and one
// EXTERNAL_CORRELATION record per op enqueued while an id was pushed on the enqueuing thread.
//
// Differences from the real library, on purpose or for want of facts:
// - Real MSPTI must be LD_PRELOADed (its constructor hooks the CANN runtime before the program
//   uses it). This one is an ordinary library: it finds libascendcl.so's
//   prof_sim_activity_subscribe when a kind is first enabled, so it works whether it is preloaded
//   or dlopened later, as long as libascendcl.so is loaded by then (else msptiActivityEnable fails
//   with MSPTI_ERROR_INNER).
// - Real MSPTI fills and hands back buffers on threads of its own. Here the reporting threads only
//   queue a copy of each record; the records go into the tool's buffers, and the buffers back to
//   the tool, on msptiActivityFlushAll's thread, or on the thread that queues the 4096th record
//   when nobody flushes. Records keep their order across buffers here; a tool must not rely on
//   that with the real one.
// - msptiActivityGetNextRecord keeps its position per thread between calls and forgets it when it
//   reports the end (MSPTI_ERROR_MAX_LIMIT_REACHED), as the public MSPTI implementation does: a
//   tool must walk each buffer to the end, one buffer at a time per thread.
// - Kernel records' `type` is "AI_CORE" for every kernel; memcpy and memset records say isAsync 0
//   (the model's report does not say which call enqueued the op); streamId is the low 32 bits of
//   the stream's handle value; a peer copy is MSPTI_ACTIVITY_MEMCPY_KIND_DTOD (MSPTI has no peer
//   kind).
#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "runtimes/acl/mspti_activity.hpp"
#include "sim/activity_subscriber.h"

#define PROF_MSPTI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kExternalKinds = MSPTI_EXTERNAL_CORRELATION_KIND_SIZE;
constexpr int kStackDepth = 32;

// Per thread and external-correlation kind, the ids pushed and not yet popped.
struct ExternalStacks {
  uint64_t ids[kExternalKinds][kStackDepth];
  int depth[kExternalKinds];
};
thread_local ExternalStacks t_external{};
thread_local size_t t_next_record_pos = 0;

std::atomic<msptiBuffersCallbackRequestFunc> g_request{nullptr};
std::atomic<msptiBuffersCallbackCompleteFunc> g_complete{nullptr};
std::atomic<uint32_t> g_enabled{0};  // bit per msptiActivityKind

// Records as they happen, in order: an op's external correlation on the application's thread
// inside the runtime's call (under its model lock), its own record when its times are final (on a
// stream worker, or on the calling thread of a blocking call, between the op's end and the call's
// return). Both only copy the record here, into storage kept with its capacity (no allocation);
// the flush (or a writer finding kPendingLimit records) moves them into the tool's buffers, as
// the real library's own thread does.
struct Pending {
  size_t bytes;
  alignas(8) uint8_t data[56];
};
constexpr size_t kPendingLimit = 4096;
std::mutex g_pending_mutex;
std::vector<Pending>* g_pending = [] {
  auto* v = new std::vector<Pending>;
  v->reserve(kPendingLimit);
  return v;
}();
std::unordered_set<std::string>* g_names =
    new std::unordered_set<std::string>;  // kernel names, interned

// The buffer being filled, and everything that writes into buffers or hands them back: order is
// g_write -> g_pending_mutex; the tool's callbacks run under g_write and must not call the runtime
// (prof's never do).
std::mutex g_write;
struct Buffer {
  uint8_t* data = nullptr;
  size_t size = 0;
  size_t valid = 0;
};
Buffer g_buffer;
std::vector<Pending>* g_draining = [] {  // under g_write: the pending records being written
  auto* v = new std::vector<Pending>;
  v->reserve(kPendingLimit);
  return v;
}();
std::atomic<uint64_t> g_dropped{0};  // records with no buffer to go to

std::mutex g_subscribe_mutex;
bool g_subscribed = false;
prof_sim_activity_subscribe_t g_subscribe = nullptr;

size_t record_size(uint32_t kind) {
  switch (kind) {
    case MSPTI_ACTIVITY_KIND_KERNEL: return sizeof(msptiActivityKernel);
    case MSPTI_ACTIVITY_KIND_API: return sizeof(msptiActivityApi);
    case MSPTI_ACTIVITY_KIND_MEMSET: return sizeof(msptiActivityMemset);
    case MSPTI_ACTIVITY_KIND_MEMCPY: return sizeof(msptiActivityMemcpy);
    case MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return sizeof(msptiActivityExternalCorrelation);
    default: return 0;
  }
}

bool enabled(msptiActivityKind kind) {
  return (g_enabled.load(std::memory_order_acquire) >> kind) & 1u;
}

// Under g_write.
void complete_locked() {
  if (g_buffer.data == nullptr) return;
  const Buffer done = g_buffer;
  g_buffer = Buffer{};
  if (auto complete = g_complete.load(std::memory_order_acquire))
    complete(done.data, done.size, done.valid);
}

// Under g_write. The record goes into the current buffer, or into a new one when it does not fit.
void write_locked(const void* record, size_t bytes) {
  if (g_buffer.data != nullptr && g_buffer.size - g_buffer.valid < bytes) complete_locked();
  if (g_buffer.data == nullptr) {
    auto request = g_request.load(std::memory_order_acquire);
    uint8_t* data = nullptr;
    size_t size = 0, max_records = 0;
    if (request != nullptr) request(&data, &size, &max_records);
    if (data == nullptr || size < bytes) {
      g_dropped.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    g_buffer = Buffer{data, size, 0};
  }
  std::memcpy(g_buffer.data + g_buffer.valid, record, bytes);
  g_buffer.valid += bytes;
}

// Under g_write.
void drain_pending_locked() {
  {
    std::lock_guard<std::mutex> guard(g_pending_mutex);
    g_draining->swap(*g_pending);
  }
  for (const Pending& r : *g_draining) write_locked(r.data, r.bytes);
  g_draining->clear();
}

// The report's name lives for the call: the record's, for good. Under g_pending_mutex; the last
// name's pointer is remembered, so a kernel launched again costs no lookup.
const char* interned_locked(const char* name) {
  static const char* last_given = nullptr;
  static const char* last_interned = nullptr;
  if (name == nullptr) return nullptr;
  if (name != last_given || std::strcmp(name, last_interned) != 0) {
    last_given = name;
    last_interned = g_names->emplace(name).first->c_str();
  }
  return last_interned;
}

// Returns whether the pending records have reached kPendingLimit (the caller drains them).
template <typename Record>
bool add_pending(Record& r) {
  static_assert(sizeof(Record) <= sizeof(Pending::data));
  std::lock_guard<std::mutex> guard(g_pending_mutex);
  if constexpr (std::is_same_v<Record, msptiActivityKernel>) r.name = interned_locked(r.name);
  Pending& p = g_pending->emplace_back();
  p.bytes = sizeof r;
  std::memcpy(p.data, &r, sizeof r);
  return g_pending->size() >= kPendingLimit;
}

void drain_pending() {
  std::lock_guard<std::mutex> write(g_write);
  drain_pending_locked();
}

// The application's thread, inside the runtime's call, under its model lock: kept to a copy.
void on_enqueue(uint64_t correlation_id, uint32_t, void*) {
  if (!enabled(MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) return;
  const ExternalStacks& s = t_external;
  for (int kind = MSPTI_EXTERNAL_CORRELATION_KIND_UNKNOWN; kind < kExternalKinds; ++kind) {
    if (s.depth[kind] == 0) continue;
    msptiActivityExternalCorrelation r{};
    r.kind = MSPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    r.externalKind = static_cast<msptiExternalCorrelationKind>(kind);
    r.externalId = s.ids[kind][s.depth[kind] - 1];
    r.correlationId = correlation_id;
    (void)add_pending(r);  // drained by the op's own record, at the latest
  }
}

msptiActivityMemcpyKind copy_kind(uint32_t direction) {
  switch (direction) {
    case PROF_SIM_COPY_H2D: return MSPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    case PROF_SIM_COPY_D2H: return MSPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    case PROF_SIM_COPY_D2D:
    case PROF_SIM_COPY_P2P: return MSPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    case PROF_SIM_COPY_H2H: return MSPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    default: return MSPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
  }
}

// Once per op, with its final device times: a copy into the pending records.
// The fields a copy's and a memset's records share, from the model's report.
template <typename Record>
void transfer_fields(Record& m, const prof_sim_op_report* r) {
  m.bytes = r->bytes;
  m.start = r->begin_ns;
  m.end = r->end_ns;
  m.deviceId = static_cast<uint32_t>(r->device);
  m.streamId = static_cast<uint32_t>(r->stream);
  m.correlationId = r->correlation_id;
}

void on_done(const prof_sim_op_report* r, void*) {
  const auto device = static_cast<uint32_t>(r->device);
  const auto stream = static_cast<uint32_t>(r->stream);
  bool full = false;
  if (r->kind == PROF_SIM_OP_KERNEL) {
    if (!enabled(MSPTI_ACTIVITY_KIND_KERNEL)) return;
    msptiActivityKernel k{};
    k.kind = MSPTI_ACTIVITY_KIND_KERNEL;
    k.start = r->begin_ns;
    k.end = r->end_ns;
    k.ds.deviceId = device;
    k.ds.streamId = stream;
    k.correlationId = r->correlation_id;
    k.type = "AI_CORE";
    k.name = r->name;  // interned by add_pending
    full = add_pending(k);
  } else if (r->kind == PROF_SIM_OP_COPY) {
    if (!enabled(MSPTI_ACTIVITY_KIND_MEMCPY)) return;
    msptiActivityMemcpy c{};
    c.kind = MSPTI_ACTIVITY_KIND_MEMCPY;
    c.copyKind = copy_kind(r->direction);
    transfer_fields(c, r);
    full = add_pending(c);
  } else if (r->kind == PROF_SIM_OP_MEMSET) {
    if (!enabled(MSPTI_ACTIVITY_KIND_MEMSET)) return;
    msptiActivityMemset m{};
    m.kind = MSPTI_ACTIVITY_KIND_MEMSET;
    transfer_fields(m, r);
    full = add_pending(m);
  }
  if (full) drain_pending();  // nobody flushes: the buffers take them now
}

uint32_t wanted_op_kinds() {
  uint32_t kinds = 0;
  if (enabled(MSPTI_ACTIVITY_KIND_KERNEL)) kinds |= 1u << PROF_SIM_OP_KERNEL;
  if (enabled(MSPTI_ACTIVITY_KIND_MEMCPY)) kinds |= 1u << PROF_SIM_OP_COPY;
  if (enabled(MSPTI_ACTIVITY_KIND_MEMSET)) kinds |= 1u << PROF_SIM_OP_MEMSET;
  return kinds;
}

// Tells the face which op kinds to report (none: unsubscribed). The face must be loaded already:
// RTLD_NOLOAD never loads a runtime the program has not.
msptiResult resubscribe() {
  std::lock_guard<std::mutex> guard(g_subscribe_mutex);
  if (g_subscribe == nullptr) {
    void* face = dlopen("libascendcl.so", RTLD_NOLOAD | RTLD_NOW);
    if (face == nullptr) return MSPTI_ERROR_INNER;
    g_subscribe =
        reinterpret_cast<prof_sim_activity_subscribe_t>(dlsym(face, "prof_sim_activity_subscribe"));
    // The handle stays open: the face is in use and must not go while it calls back here.
    if (g_subscribe == nullptr) return MSPTI_ERROR_INNER;
  }
  prof_sim_activity_subscriber s{};
  s.kinds = wanted_op_kinds();
  s.on_enqueue = on_enqueue;
  s.on_done = on_done;
  if (s.kinds == 0 && !g_subscribed) return MSPTI_SUCCESS;
  if (g_subscribe(&s) != 0) return MSPTI_ERROR_MAX_LIMIT_REACHED;
  g_subscribed = s.kinds != 0;
  return MSPTI_SUCCESS;
}

bool valid_kind(msptiActivityKind kind) {
  return kind > MSPTI_ACTIVITY_KIND_INVALID && kind < MSPTI_ACTIVITY_KIND_COUNT;
}

}  // namespace

PROF_MSPTI_EXPORT msptiResult
msptiActivityRegisterCallbacks(msptiBuffersCallbackRequestFunc funcBufferRequested,
                               msptiBuffersCallbackCompleteFunc funcBufferCompleted) {
  if (funcBufferRequested == nullptr || funcBufferCompleted == nullptr)
    return MSPTI_ERROR_INVALID_PARAMETER;
  g_request.store(funcBufferRequested, std::memory_order_release);
  g_complete.store(funcBufferCompleted, std::memory_order_release);
  return MSPTI_SUCCESS;
}

// The op kinds subscribe this library to the face; API, marker and the other kinds are accepted
// and never reported (the model has no such records).
PROF_MSPTI_EXPORT msptiResult msptiActivityEnable(msptiActivityKind kind) {
  if (!valid_kind(kind)) return MSPTI_ERROR_INVALID_PARAMETER;
  const uint32_t before = g_enabled.fetch_or(1u << kind, std::memory_order_acq_rel);
  const msptiResult ret = resubscribe();
  if (ret != MSPTI_SUCCESS && (before & (1u << kind)) == 0)
    g_enabled.fetch_and(~(1u << kind), std::memory_order_acq_rel);
  return ret;
}

PROF_MSPTI_EXPORT msptiResult msptiActivityDisable(msptiActivityKind kind) {
  if (!valid_kind(kind)) return MSPTI_ERROR_INVALID_PARAMETER;
  g_enabled.fetch_and(~(1u << kind), std::memory_order_acq_rel);
  return resubscribe();
}

PROF_MSPTI_EXPORT msptiResult msptiActivityEnableMarkerDomain(const char* name) {
  return name == nullptr ? MSPTI_ERROR_INVALID_PARAMETER : MSPTI_SUCCESS;
}
PROF_MSPTI_EXPORT msptiResult msptiActivityDisableMarkerDomain(const char* name) {
  return name == nullptr ? MSPTI_ERROR_INVALID_PARAMETER : MSPTI_SUCCESS;
}

PROF_MSPTI_EXPORT msptiResult msptiActivityGetNextRecord(uint8_t* buffer,
                                                         size_t validBufferSizeBytes,
                                                         msptiActivity** record) {
  if (buffer == nullptr || record == nullptr) return MSPTI_ERROR_INVALID_PARAMETER;
  if (t_next_record_pos >= validBufferSizeBytes) {
    t_next_record_pos = 0;
    return MSPTI_ERROR_MAX_LIMIT_REACHED;
  }
  msptiActivityKind kind;
  std::memcpy(&kind, buffer + t_next_record_pos, sizeof kind);
  const size_t bytes = record_size(kind);
  if (bytes == 0 || validBufferSizeBytes - t_next_record_pos < bytes) return MSPTI_ERROR_INNER;
  *record = reinterpret_cast<msptiActivity*>(buffer + t_next_record_pos);
  t_next_record_pos += bytes;
  return MSPTI_SUCCESS;
}

// Hands every record written so far back to the tool (flag: reserved).
PROF_MSPTI_EXPORT msptiResult msptiActivityFlushAll(uint32_t) {
  std::lock_guard<std::mutex> write(g_write);
  drain_pending_locked();
  if (g_buffer.valid != 0) complete_locked();
  return MSPTI_SUCCESS;
}

// Buffers here are handed back when full or flushed: a period is accepted and not kept.
PROF_MSPTI_EXPORT msptiResult msptiActivityFlushPeriod(uint32_t) { return MSPTI_SUCCESS; }

PROF_MSPTI_EXPORT msptiResult
msptiActivityPushExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t id) {
  if (kind <= MSPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= MSPTI_EXTERNAL_CORRELATION_KIND_SIZE)
    return MSPTI_ERROR_INVALID_PARAMETER;
  ExternalStacks& s = t_external;
  if (s.depth[kind] == kStackDepth) return MSPTI_ERROR_MAX_LIMIT_REACHED;
  s.ids[kind][s.depth[kind]++] = id;
  return MSPTI_SUCCESS;
}

PROF_MSPTI_EXPORT msptiResult
msptiActivityPopExternalCorrelationId(msptiExternalCorrelationKind kind, uint64_t* lastId) {
  if (kind <= MSPTI_EXTERNAL_CORRELATION_KIND_INVALID ||
      kind >= MSPTI_EXTERNAL_CORRELATION_KIND_SIZE)
    return MSPTI_ERROR_INVALID_PARAMETER;
  ExternalStacks& s = t_external;
  if (s.depth[kind] == 0) return MSPTI_ERROR_QUEUE_EMPTY;
  const uint64_t id = s.ids[kind][--s.depth[kind]];
  if (lastId != nullptr) *lastId = id;
  return MSPTI_SUCCESS;
}

// The exports have the prototypes prof resolves them as.
static_assert(
    std::is_same_v<decltype(&msptiActivityRegisterCallbacks), msptiActivityRegisterCallbacks_t> &&
        std::is_same_v<decltype(&msptiActivityEnable), msptiActivityEnable_t> &&
        std::is_same_v<decltype(&msptiActivityDisable), msptiActivityDisable_t> &&
        std::is_same_v<decltype(&msptiActivityGetNextRecord), msptiActivityGetNextRecord_t> &&
        std::is_same_v<decltype(&msptiActivityFlushAll), msptiActivityFlushAll_t> &&
        std::is_same_v<decltype(&msptiActivityFlushPeriod), msptiActivityFlushPeriod_t> &&
        std::is_same_v<decltype(&msptiActivityPushExternalCorrelationId),
                       msptiActivityPushExternalCorrelationId_t> &&
        std::is_same_v<decltype(&msptiActivityPopExternalCorrelationId),
                       msptiActivityPopExternalCorrelationId_t>,
    "the simulated exports match mspti_activity.hpp's prototypes");
