// The producer side of common/record.hpp: each thread that makes a call owns one ring file.
// Hot path: reserve() and commit() touch only this thread's memory, plus one acquire load of the
// reader's index when the ring looks full. No locks, no syscalls, no allocation.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/record.hpp"
#include "runtimes/api_id.hpp"

namespace prof::interpose {

class ThreadBuffer;

// initial-exec: the preload library is loaded at start-up, so its TLS can live in the static
// block and every access is one %fs-relative load instead of a __tls_get_addr call.
extern constinit __attribute__((tls_model("initial-exec"))) thread_local ThreadBuffer* t_buffer;

// Aligned to a cache line: the buffers are placed side by side (thread_buffer.cpp), and each
// thread writes its own on every call (write_, the correlation count); two threads' buffers on one
// line made every call on one CPU miss on the line the other CPU had just written.
class alignas(64) ThreadBuffer {
 public:
  // The calling thread's buffer, created on first use; nullptr when profiling is off or the
  // buffer could not be created (the call is then passed through unrecorded, and counted).
  // Inline: after the first call this is one TLS load in the hook.
  // `runtime`: the runtime of the call asking (recorded in the header if this creates the buffer).
  static ThreadBuffer* current(RuntimeId runtime) noexcept {
    if (t_buffer) [[likely]]
      return t_buffer;
    return create_current(runtime);
  }
  // After fork(): the child starts with no buffers and fresh thread indices.
  static void reset_after_fork() noexcept;
  // Marks every buffer of this process closed (normal exit).
  static void close_all() noexcept;
  // The calling thread is exiting: its ring is marked closed and unmapped (the collector
  // unlinks the file once it has drained it). A later call on this thread (another library's
  // TLS destructor) gets a new ring.
  static void release_current(ThreadBuffer* buffer) noexcept;

  // A slot for one record, or nullptr if the ring stayed full past the configured wait
  // (then the record is dropped and counted in the header).
  Record* reserve() noexcept {
    if (write_ >= limit_) [[unlikely]]
      return reserve_slow();
    return &records_[write_ & mask_];
  }
  // Publishes the record obtained from the last reserve(): release pairs with the collector's
  // acquire.
  void commit() noexcept {
    ++write_;
    header_->write_index.store(write_, std::memory_order_release);
  }
  uint64_t next_correlation_id() noexcept { return correlation_base_ | ++local_count_; }
  // Around a recorded call (its begin read, its record committed): stores to the line commit()
  // writes anyway. First, before the begin is read, "a call with a begin not yet known" (1: no
  // earlier than the thread's last record), so a thread descheduled between reading its begin
  // and saying so never lets the builder number past that begin; then the begin.
  void enter_call_starting() noexcept {
    header_->in_call_since.store(1, std::memory_order_relaxed);
  }
  void enter_call(uint64_t begin_ns) noexcept {
    header_->in_call_since.store(begin_ns, std::memory_order_relaxed);
  }
  void leave_call() noexcept { header_->in_call_since.store(0, std::memory_order_release); }
  void count_timing_drop() noexcept {
    header_->timing_dropped.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  ThreadBuffer() = default;
  static ThreadBuffer* create_current(RuntimeId runtime) noexcept;
  Record* reserve_slow() noexcept;
  bool open(uint64_t thread_index, RuntimeId runtime) noexcept;
  bool open_in(const char* dir, uint64_t capacity, bool shrink, uint64_t thread_index,
               RuntimeId runtime) noexcept;
  static ThreadBuffer* reuse_released() noexcept;
  bool wait_for_space() noexcept;
  void grow() noexcept;
  bool move_own_records(bool take_over) noexcept;
  // Whether this thread moves its own records at all (PROF_SELF_MOVE, and no failed write yet).
  bool may_move_own_records() const noexcept;
  // The slow path runs when the ring looks full or has reached the size at which it grows, and
  // when it looks half full while this thread may move its own records (move_own_records).
  void set_limit() noexcept;

  BufferHeader* header_ = nullptr;
  size_t map_bytes_ = 0;
  // Set by whichever of release_current() and close_all() gets to the ring first: only
  // release_current() unmaps, so close_all() never writes into a ring already unmapped.
  std::atomic<bool> closed_{false};
  // Set once release_current() has unmapped the ring: a new thread may take this object over
  // (storage is bounded by the threads alive at once, not the threads ever created).
  std::atomic<bool> reusable_{false};
  Record* records_ = nullptr;
  uint64_t mask_ = 0;
  uint64_t write_ = 0;
  uint64_t cached_read_ = 0;
  uint64_t limit_ = 0;  // reserve() takes the slow path from this write index on (set_limit)
  // A ring starts small and takes its full size (max_capacity_) when its first lap ends (write_
  // reaches its capacity before any wrap, so every published record keeps its slot): a thread of
  // a few calls costs a few pages and a first call of microseconds. UINT64_MAX: grows no more.
  uint64_t grow_at_ = UINT64_MAX;
  uint64_t max_capacity_ = 0;
  uint64_t stalled_read_ = UINT64_MAX;  // reader index when a wait last ran out
  bool self_move_failed_ =
      false;  // the journal could not be written from here: the collector's alone
  unsigned char* move_buffer_ =
      nullptr;  // move_own_records()'s blocks (mapped at its first move, kept)
  uint64_t correlation_base_ = 0;
  uint64_t local_count_ = 0;
  ThreadBuffer* next_ = nullptr;  // list of all buffers of the process, for close_all()
};

// A traced call that had no ring (none fitted anywhere): counted for the collector.
void count_unrecorded_call() noexcept;
// A traced call inside another traced call's hook on the same thread (LostCounts::nested_calls).
void count_nested_call() noexcept;
// The process is exiting (atexit): its end, where ranges it left open are closed.
void note_process_exit(uint64_t time_ns) noexcept;
// Sets up this process's count of unrecorded calls and threads (<pid>.<image>.lost in the run
// directory); when the process first records (announce_process, process_files.hpp).
void map_lost_counters() noexcept;

// Writes a string (kernel name, module path) as one StringRecord plus text continuation records.
void emit_string(ThreadBuffer& buffer, StringKind kind, uint64_t key, const char* text) noexcept;

}  // namespace prof::interpose
