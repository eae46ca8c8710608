// Internal interface of the simulated HIP runtime (prof::sim). One global scheduling lock orders
// every queue of every device: submit times are read under it, so the modelled times of all
// streams are one consistent, deterministic function of the submit order.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "common/clock.hpp"
#include "runtimes/hip/hip_abi.hpp"
#include "sim/handle_table.hpp"
#include "sim/model.hpp"

// Every exported definition must match the API table; the definitions inherit default visibility
// from these declarations while everything else in the library stays hidden.
#pragma GCC visibility push(default)
#include "runtimes/hip/hip_runtime_decls.hpp"
#pragma GCC visibility pop

namespace prof::sim {

struct Stream;

// Later work may not execute before `stream` has completed its op number `seq`.
struct Dependency {
  Stream* stream;
  uint64_t seq;
};

enum class OpKind : uint8_t { kKernel, kCopy, kMemset, kMarker, kQuit };

struct Op {
  OpKind kind = OpKind::kMarker;
  uint64_t stream_seq = 0;       // n-th op of any kind on the stream, from 1
  uint64_t op_seq = 0;           // n-th kernel/copy/memset on the stream, from 1 (0 for markers)
  uint64_t begin_ns = 0;         // modelled
  uint64_t end_ns = 0;           // modelled
  uint64_t dependents_seen = 0;  // stream->dependents at submission
  std::vector<Dependency> deps;
  // copies (a plain copy is one row: height 1) and memsets
  void* dst = nullptr;
  const void* src = nullptr;
  size_t width_bytes = 0;
  size_t height = 1;
  size_t dst_pitch_bytes = 0;
  size_t src_pitch_bytes = 0;
  int value = 0;
  uint8_t element_bytes = 1;  // memsets: 1, 2 (hipMemsetD16) or 4 (hipMemsetD32)
  CopyDirection direction = CopyDirection::kH2H;
  // kernels
  dim3 grid{0, 0, 0};
  dim3 block{0, 0, 0};
  uint64_t shared_mem_bytes = 0;
  uint64_t function = 0;
  const char* name = nullptr;  // interned, never freed
  // The correlation id the activity interface gave it (activity.cpp), 0 when no tool asked.
  uint64_t activity_id = 0;
};

struct Capture;
struct GraphNode;

struct Stream {
  int device = 0;
  bool blocking = true;  // takes part in legacy null-stream ordering
  bool is_null = false;
  uint64_t handle_value = 0;  // what the application passes: pointer, 0 (null) or 2 (per-thread)

  // Guarded by the scheduling lock.
  uint64_t tail_end_ns = 0;  // modelled end of the last op (or of the last waited event)
  uint64_t ops = 0;          // kernels/copies/memsets submitted
  uint64_t dependents = 0;   // times another stream's op took its begin from this stream's tail
  std::vector<Dependency> pending_deps;  // from hipStreamWaitEvent, attached to the next op
  std::atomic<bool> alive{true};         // written under the scheduling lock
  bool worker_started = false;

  // Written by submitters under the scheduling lock; read lock-free by hipStreamQuery.
  std::atomic<uint64_t> submitted{0};
  std::atomic<uint64_t> completed{0};  // by the worker, and by a thread that ran an op inline
  // The worker's progress through ops with no host-visible work (kernels, markers): every op up
  // to `passed`, and everything they depend on, has done all it will do but reach its modelled
  // end. Such an op is complete once the clock passes its end, whoever looks (complete_by): the
  // worker does not sleep until each kernel's end, only until the last one's when the queue is
  // empty (a burst of launches cost a wake-up per kernel, most of a CPU). `passed_end_ns` is op
  // `passed`'s end, stored before it.
  std::atomic<uint64_t> passed{0};
  std::atomic<uint64_t> passed_end_ns{0};

  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::deque<Op> queue;
  bool worker_asleep =
      false;  // guarded by queue_mutex: the worker stopped polling, a submit wakes it

  std::mutex done_mutex;
  std::condition_variable done_cv;
  std::atomic<int> waiters{0};

  // Stream capture (graph.cpp). `capture` and `capture_tail` are guarded by the scheduling lock;
  // capture_status (a hipStreamCaptureStatus) is written under it and read lock-free.
  Capture* capture = nullptr;
  std::vector<GraphNode*> capture_tail;  // what the next captured node depends on
  std::atomic<int> capture_status{0};
};

struct Event {
  unsigned flags = 0;
  int device = 0;
  size_t live_index =
      0;             // its place in Runtime::events while live (guarded by the scheduling lock)
  std::mutex mutex;  // guards the record below against a concurrent re-record
  Stream* stream = nullptr;  // null: never recorded
  uint64_t seq = 0;
  uint64_t time_ns = 0;
  // Last recorded into a capture (a hipGraphNodeTypeEventRecord node): the capture's id and node.
  uint64_t capture_id = 0;
  GraphNode* captured_node = nullptr;
};

struct Device {
  Stream* null_stream = nullptr;
  std::vector<Stream*>
      streams;  // live streams incl. the null stream; guarded by the scheduling lock
};

// A captured or built graph: nodes in capture order, which is a topological order.
struct Graph;
struct GraphNode {
  hipGraphNodeType type = hipGraphNodeTypeEmpty;
  Op op;  // kernel, copy or memset, times unset
  uint64_t duration_ns = 0;
  Event* event = nullptr;  // event-record nodes
  std::vector<GraphNode*> deps;
};

struct Graph {
  std::vector<GraphNode*> nodes;  // owned
};

// An instantiated graph: its nodes' work, in order.
struct GraphExec {
  std::vector<GraphNode> nodes;
};

struct Capture {
  uint64_t id = 0;
  hipStreamCaptureMode mode = hipStreamCaptureModeGlobal;
  Stream* origin = nullptr;
  Graph* graph = nullptr;
  bool invalidated = false;
  std::vector<Stream*> streams;  // origin first, then streams joined by hipStreamWaitEvent
};

struct Runtime {
  std::mutex lock;  // the scheduling lock
  std::vector<Device> devices;
  HandleTable stream_table{16};
  HandleTable event_table{20};
  std::vector<Event*> free_events;  // recycled after hipEventDestroy, guarded by `lock`
  std::vector<Event*>
      events;  // live events, in no order (destroy swaps the last in), guarded by `lock`
  // Capture and graph registries, guarded by `lock`.
  uint64_t next_capture_id = 1;
  std::vector<Capture*> captures;  // active
  std::vector<Graph*> graphs;
  std::vector<GraphExec*> execs;
};

// The runtime singleton, created on first use and never destroyed (safe at exit).
Runtime& runtime();
int device_count() noexcept;
int& current_device() noexcept;

// Every HIP call ends with `return finish(ret)`: HIP 5.2 sets the thread's last error on every
// return.
hipError_t finish(hipError_t ret) noexcept;

// The device sees a command at the moment the call that enqueues it was made: the runtime's own
// host-side work before the op is queued (validation, locks, and on a cold path the cache misses
// of its first execution, a microsecond or two) is not device time, so it does not move the op's
// submit time. resolve_stream notes the call's entry on the calling thread; the next
// submit_locked on that thread with no explicit submit time takes it (once), later ones read the
// clock. Submit times stay ordered per stream: an op begins at max(submit, the stream's tail).
void note_call_entry() noexcept;
uint64_t take_call_entry() noexcept;
// A face whose own work before reaching the model takes time (ACL's operator lookup, a module
// launch's function lookup) holds one of these for the whole call: the op's submit time is the
// face's entry, not the model's. Nested (ACL's face calling hipModuleLaunchKernel), the outermost
// entry counts.
struct CallEntry {
  CallEntry() noexcept;
  ~CallEntry();
  CallEntry(const CallEntry&) = delete;
  CallEntry& operator=(const CallEntry&) = delete;

 private:
  bool nested_;
};

// Resolves an application stream handle for the current thread. Null on an invalid handle.
// Takes the scheduling lock only to create a per-thread stream the first time.
Stream* resolve_stream(hipStream_t handle) noexcept;

// Caller holds the scheduling lock. Creates a stream (not yet registered as an app handle).
Stream* new_stream_locked(int device, bool blocking, bool is_null, uint64_t handle_value);
// Caller holds the scheduling lock. Enqueues a marker on `stream` and points `event` at it.
void record_event_locked(Event* event, Stream* stream, uint64_t submit_ns = 0);
// Null unless `handle` is a live event.
Event* resolve_event(hipEvent_t handle) noexcept;
// Caller holds the scheduling lock. Fills seq/time fields and dependencies and queues the op;
// returns its modelled end (for markers: its device time). `submit_ns` 0 means now; a caller that
// queues several ops as one (a launch with its start/stop events) passes one submit time for all.
// When `run_here` is given (a blocking copy or memset), the op is not queued but moved to
// *run_here for the caller to execute with run_inline() after releasing the lock: the blocking
// call then returns right at the op's end.
uint64_t submit_locked(Stream* stream, Op&& op, uint64_t duration_ns, uint64_t submit_ns = 0,
                       Op* run_here = nullptr);
void run_inline(Stream* stream, Op& op) noexcept;
// A kernel whose call returns when it has run, executed like a blocking copy (launch.cpp).
hipError_t launch_blocking(const void* function, dim3 grid, dim3 block,
                           hipStream_t stream) noexcept;
void start_worker(Stream* stream);
// Caller holds the scheduling lock. Adds a dependency (time and completion) for later work.
void add_wait_locked(Stream* stream, Stream* on, uint64_t seq, uint64_t time_ns);

// Whether op `seq` of `stream`, whose modelled end is at or before `end_ns`, is complete now.
// seq_cst (a plain load on x86): a waiter's check after counting itself in `waiters` is the other
// half of complete()'s and publish_passed()'s store-then-load of it.
inline bool complete_by(const Stream* stream, uint64_t seq, uint64_t end_ns) noexcept {
  if (stream->completed.load(std::memory_order_seq_cst) >= seq) return true;
  return stream->passed.load(std::memory_order_seq_cst) >= seq && now_ns() >= end_ns;
}
// Whether every op submitted so far on `stream` is complete now (`submitted` read by the caller).
inline bool stream_complete_by_now(const Stream* stream, uint64_t submitted) noexcept {
  if (stream->completed.load(std::memory_order_acquire) >= submitted) return true;
  // passed_end_ns is op `passed`'s end or a later op's: never earlier than op `submitted`'s.
  return stream->passed.load(std::memory_order_acquire) >= submitted &&
         now_ns() >= stream->passed_end_ns.load(std::memory_order_acquire);
}

// Blocks until `stream` completed op `seq` (expected at `expected_end_ns`, which is never before
// the op's modelled end).
void wait_completed(Stream* stream, uint64_t seq, uint64_t expected_end_ns) noexcept;
// Blocks until every op now submitted on `device` (all devices if -1) has completed.
void synchronize_device(int device) noexcept;
// Caller does not hold the lock. Waits for the stream's work, unregisters it, ends its worker.
void destroy_stream(Stream* stream) noexcept;
// Destroys every event created on `device`.
void destroy_device_events(int device) noexcept;
// Frees every allocation made on `device`.
void free_device_allocations(int device) noexcept;

// Stream capture (graph.cpp); callers hold the scheduling lock.
// hipErrorStreamCaptureImplicit when `stream` is a null stream and a blocking stream of its device
// is capturing (legacy ordering would make the capture depend on outside work); such captures
// are invalidated. hipSuccess otherwise.
hipError_t check_legacy_capture_locked(Stream* stream);
// For a capturing stream: adds the op as a node after the stream's capture tail, or fails when
// the capture was invalidated. Never called for a stream that is not capturing.
hipError_t capture_op_locked(Stream* stream, Op&& op, uint64_t duration_ns);
hipError_t capture_event_record_locked(Event* event, Stream* stream);
// hipStreamWaitEvent on a capturing stream, or with an event recorded in a capture.
hipError_t capture_wait_event_locked(Stream* stream, Event* event);
// For a call that cannot be captured (a synchronize, a query, a blocking copy): on a capturing
// stream, invalidates the capture and returns hipErrorStreamCaptureUnsupported.
hipError_t check_not_capturing_locked(Stream* stream);
// hipSuccess, or hipErrorStreamCaptureUnsupported after invalidating every capture on `device`
// (-1: all) that is not in relaxed mode: a device-wide synchronize during capture.
hipError_t check_device_sync_capture_locked(int device);

// Allocations (memory.cpp): real host memory registered by range, and the host ranges the
// application registered (hipHostRegister: its own memory, never freed by the runtime).
enum class AllocationKind : uint8_t { kDevice, kHost, kManaged, kRegistered };
constexpr bool is_host_memory(AllocationKind kind) noexcept {
  return kind == AllocationKind::kHost || kind == AllocationKind::kRegistered;
}
struct AllocationInfo {
  void* base;
  size_t size_bytes;
  int device;
  AllocationKind kind;
};
hipError_t allocate(void** out, size_t size, AllocationKind kind);
// hipFree and hipHostFree alike (ROCm 5.2): waits for the device's work, then frees any
// allocation of the runtime's that starts at `ptr`.
hipError_t release(void* ptr);
// hipHostRegister / hipHostUnregister: the range is known to every pointer query until it is
// unregistered.
hipError_t register_host(void* ptr, size_t size);
hipError_t unregister_host(void* ptr);
// The allocation or registered range holding `ptr` (any address inside it).
bool find_allocation(const void* ptr, AllocationInfo* out) noexcept;
// Copies and memsets (copy.cpp), as the exported calls validate and queue them. A plain copy is
// one row; a memset writes `height` rows of `width_elements` elements of `element_bytes` each.
hipError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                   size_t height, hipMemcpyKind kind, hipStream_t stream, bool sync) noexcept;
hipError_t memset_pattern(void* dst, uint32_t value, unsigned element_bytes, size_t width_elements,
                          size_t height, size_t pitch_bytes, hipStream_t stream,
                          bool sync) noexcept;
// A kernel launch as hipExtLaunchKernel makes it (launch.cpp); events may be null.
hipError_t launch(uint64_t function, dim3 grid, dim3 block, uint64_t shared_mem_bytes,
                  hipStream_t stream, hipEvent_t start_event, hipEvent_t stop_event) noexcept;
// A module from a code object in memory (hipModuleLoadData[Ex], hiprtc's output): never parsed.
hipError_t load_module_image(hipModule_t* module, const void* image) noexcept;
// True for a live handle from hipModuleGetFunction (module.cpp).
bool is_module_function(hipFunction_t f) noexcept;
// The simulated device's properties (device.cpp).
void device_properties(hipDeviceProp_t* prop, int device) noexcept;
// Memory registry: the device a pointer belongs to, or -1 for memory the runtime did not allocate
// as device memory (host memory, hipHostMalloc, registered ranges).
int device_of_pointer(const void* ptr) noexcept;
// Bytes of device memory (hipMalloc, not host or managed) now allocated on `device`.
size_t allocated_device_bytes(int device) noexcept;

// fork (fork.cpp): registered once the runtime exists. The runtime's locks are taken before a
// fork and released after it on both sides; the child's streams get new workers.
void install_fork_handlers() noexcept;
void lock_allocations_for_fork() noexcept;
void unlock_allocations_after_fork() noexcept;
// The truth file's flush lock (`outer`) is taken before the scheduling lock, its line locks after.
void lock_truth_for_fork(bool outer) noexcept;
// In the child the parent's deferred lines are dropped: the parent writes them.
void unlock_truth_after_fork(bool child) noexcept;

// Name registered for a host function address or module function handle, or null.
const char* function_name(uint64_t function) noexcept;

// The activity interface (activity.cpp): a tool's per-op device times, as a real runtime reports
// them from the device's own timestamps. HIP's (hipInitActivityCallback) is one subscriber; a
// face's profiling library (sim/activity_libs/: libcnpapi, libmspti, libmupti) subscribes through
// prof_sim_activity_subscribe, which its face library exports under that sim-private name.
// Caller holds the scheduling lock: gives a kernel, copy or memset a correlation id if a
// subscriber wants its kind, and tells each such subscriber on the calling thread.
void activity_assign_locked(Op& op) noexcept;
// The op's device times are final: reports them to the subscribers (called where its truth line is
// made).
void activity_report(const Stream& stream, const Op& op) noexcept;

// Appends the op's line to the truth file when PROF_SIM_TRUTH is set.
void write_truth(const Stream& stream, const Op& op) noexcept;
// Keeps the op's line in memory (no formatting, no syscall) for flush_deferred_truth: a blocking
// call's line is known only when its bytes have arrived, and writing it then would delay the
// return that ends the call. With `end_now` the op's end is read from the clock as the last step.
void defer_truth(const Stream& stream, Op& op, bool end_now = false) noexcept;
// Writes the deferred lines. Called by every stream worker between ops, by the synchronize calls
// and at exit.
void flush_deferred_truth() noexcept;
// Opens PROF_SIM_TRUTH's file when the runtime starts (its first API call), not at the first op:
// that op is often a blocking copy, whose line is deferred on the calling thread between its
// modelled end and its return, and an open(O_CREAT) there (0.8 ms in CI on a disk busy writing
// back) made the call return that much after its end.
void open_truth_file() noexcept;
// Whether PROF_SIM_TRUTH names a truth file: its deferred lines need a worker that keeps polling.
bool truth_recorded() noexcept;

}  // namespace prof::sim
