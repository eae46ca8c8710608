// The device model's core: submission (modelled times under the scheduling lock), the per-stream
// FIFO worker that executes each op and completes it at its modelled end, and prompt waiting.
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>
#include <utility>

#include "common/clock.hpp"
#include "common/quiet_thread.hpp"
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

bool settle_blocking_end(Stream* stream, Op& op) noexcept;

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void sleep_ns(uint64_t ns) noexcept {
  timespec ts{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  nanosleep(&ts, nullptr);
}

// Sleeps until kSpinWindowNs before `t`, then spins: nanosleep alone overshoots by ~50-100 us.
void wait_until(uint64_t t) noexcept {
  for (;;) {
    const uint64_t now = now_ns();
    if (now >= t) return;
    if (t - now > kSpinWindowNs) {
      sleep_ns(t - now - kSpinWindowNs);
    } else {
      cpu_relax();
    }
  }
}

// Workers sleep rather than spin until an op's modelled times: on a machine with few cores a
// spinning worker takes the CPU from the application thread that is submitting the next command,
// and the recorded (modelled) times do not depend on when the worker wakes. With 1 ns timer
// slack the wake-up is still within a few microseconds.
void sleep_until(uint64_t t) noexcept {
  for (uint64_t now = now_ns(); now < t; now = now_ns()) sleep_ns(t - now);
}

void execute(const Op& op) noexcept {
  switch (op.kind) {
    case OpKind::kCopy:
      for (size_t row = 0; row < op.height; ++row) {
        std::memmove(static_cast<char*>(op.dst) + row * op.dst_pitch_bytes,
                     static_cast<const char*>(op.src) + row * op.src_pitch_bytes, op.width_bytes);
      }
      break;
    case OpKind::kMemset:
      for (size_t row = 0; row < op.height; ++row) {
        char* dst = static_cast<char*>(op.dst) + row * op.dst_pitch_bytes;
        if (op.element_bytes == 1) {
          std::memset(dst, op.value, op.width_bytes);
        } else {  // hipMemsetD16/D32: the value's low element_bytes, repeated
          for (size_t at = 0; at + op.element_bytes <= op.width_bytes; at += op.element_bytes)
            std::memcpy(dst + at, &op.value, op.element_bytes);
        }
      }
      break;
    default: break;
  }
}

// seq_cst store then seq_cst load of waiters pairs with the waiter's increment then check
// (Dekker): either we see the waiter and notify under its mutex, or it sees the completion.
// Completions only move forward (an inline op and the worker may finish close together).
void complete(Stream* stream, uint64_t seq) noexcept {
  uint64_t seen = stream->completed.load(std::memory_order_relaxed);
  while (seen < seq &&
         !stream->completed.compare_exchange_weak(seen, seq, std::memory_order_seq_cst)) {
  }
  if (stream->waiters.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> guard(stream->done_mutex);
    stream->done_cv.notify_all();
  }
}

// The worker has passed op `seq` (modelled end `end_ns`): see Stream::passed. Waiters are told as
// complete() tells them: one waiting for the op's end may now see it by the clock.
void publish_passed(Stream* stream, uint64_t seq, uint64_t end_ns) noexcept {
  stream->passed_end_ns.store(end_ns, std::memory_order_release);
  stream->passed.store(seq, std::memory_order_seq_cst);
  if (stream->waiters.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> guard(stream->done_mutex);
    stream->done_cv.notify_all();
  }
}

uint64_t progress(const Stream* stream) noexcept {
  return std::max(stream->completed.load(std::memory_order_seq_cst),
                  stream->passed.load(std::memory_order_seq_cst));
}

// Until op `seq` of `stream` has done its host-visible work (passed or completed), whatever its
// modelled end: what an op without such work of its own needs of its dependencies.
void wait_passed(Stream* stream, uint64_t seq) noexcept {
  if (progress(stream) >= seq) return;
  stream->queue_cv.notify_one();  // the worker may be between polls: someone is waiting now
  stream->waiters.fetch_add(1, std::memory_order_seq_cst);
  {
    std::unique_lock<std::mutex> guard(stream->done_mutex);
    stream->done_cv.wait(guard, [&] { return progress(stream) >= seq; });
  }
  stream->waiters.fetch_sub(1, std::memory_order_seq_cst);
}

// One op on its stream's worker: waited for its dependencies and its modelled begin, done, and
// completed at its modelled end.
void run_op(Stream* stream, Op& op) noexcept {
  // An op the submitting thread ran itself (run_inline) precedes this one on the stream.
  while (progress(stream) + 1 < op.stream_seq) sleep_ns(1000);
  if (op.kind == OpKind::kKernel || op.kind == OpKind::kMarker) {
    // Nothing to do on the host: passed once what it depends on has done its work (another
    // stream's copy), complete by the clock at its modelled end.
    for (const Dependency& dep : op.deps) wait_passed(dep.stream, dep.seq);
    if (op.kind != OpKind::kMarker) write_truth(*stream, op);
    publish_passed(stream, op.stream_seq, op.end_ns);
    return;
  }
  // The modelled begin is already >= every dependency's modelled end; this wait only matters
  // when another worker runs late, so that the bytes are right even then.
  for (const Dependency& dep : op.deps) wait_completed(dep.stream, dep.seq, op.begin_ns);
  sleep_until(op.begin_ns);
  execute(op);
  // The modelled times are known: the truth line goes out before the final wait, so the
  // completion (and whoever waits for it) is not delayed by the write.
  write_truth(*stream, op);
  sleep_until(op.end_ns);
  complete(stream, op.stream_seq);
}

void worker_main(Stream* stream) noexcept {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  // A batch thread does not preempt the thread that woke it: the submitting application thread
  // keeps its CPU and goes on with its next command instead of waiting for the worker to sleep.
  sched_param batch{};
  sched_setscheduler(0, SCHED_BATCH, &batch);
  for (;;) {
    flush_deferred_truth();
    Op op;
    {
      std::unique_lock<std::mutex> guard(stream->queue_mutex);
      // Submitters do not wake the worker: waking a sleeping thread costs 5-35 us here (a
      // futex wake and an idle CPU's exit), which would land on every async API call. The
      // worker polls instead, backing off while idle; modelled times do not depend on when it
      // runs, and anyone who waits for completion kicks it (wait_completed).
      // A stream idle for kWorkerSleepAfterUs stops polling (a wake every millisecond per idle
      // stream was 1-2% of a CPU each, which a real device's idle stream does not take from the
      // host): it sleeps until a submit wakes it, a cost paid once per idle period. Not while a
      // truth file is written: its deferred lines are flushed by the polls.
      auto poll = std::chrono::microseconds(50);
      long idle_us = 0;
      while (stream->queue.empty()) {
        // Ops passed and not yet completed: completed at the last one's end (readers see each
        // one complete at its own end meanwhile; see Stream::passed). Ops queued during the
        // sleep end no earlier, so none is passed late.
        if (const uint64_t passed = stream->passed.load(std::memory_order_relaxed);
            passed > stream->completed.load(std::memory_order_acquire)) {
          const uint64_t end = stream->passed_end_ns.load(std::memory_order_relaxed);
          guard.unlock();
          // While a truth file is written, deferred lines still go out within a poll interval.
          for (uint64_t now = now_ns(); now < end; now = now_ns()) {
            sleep_until(truth_recorded()
                            ? std::min(end, now + static_cast<uint64_t>(kWorkerMaxPollUs) * 1000)
                            : end);
            flush_deferred_truth();
          }
          complete(stream, passed);
          guard.lock();
          continue;
        }
        if (idle_us >= kWorkerSleepAfterUs && !truth_recorded()) {
          stream->worker_asleep = true;
          stream->queue_cv.wait(guard, [&] { return !stream->queue.empty(); });
          stream->worker_asleep = false;
          break;
        }
        stream->queue_cv.wait_for(guard, poll);
        idle_us += static_cast<long>(poll.count());
        if (stream->queue.empty()) {
          guard.unlock();
          flush_deferred_truth();
          guard.lock();
        }
        poll = std::min(poll * 2, std::chrono::microseconds(kWorkerMaxPollUs));
      }
      op = std::move(stream->queue.front());
      stream->queue.pop_front();
    }
    if (op.kind == OpKind::kQuit) return;
    run_op(stream, op);
  }
}

void add_dependency(uint64_t& begin, std::vector<Dependency>& deps, Stream* on) {
  const uint64_t seq = on->submitted.load(std::memory_order_relaxed);
  if (seq == 0) return;
  begin = std::max(begin, on->tail_end_ns);
  ++on->dependents;
  if (on->completed.load(std::memory_order_acquire) < seq) deps.push_back({on, seq});
}

// A blocking copy or memset ends when its calling thread, which moves the bytes, is done: if the
// real memmove was slower than the modelled bandwidth (first-touch page faults, a big copy) or
// the thread was descheduled, that is later than modelled, and the caller cannot have seen it
// done earlier. Its end then moves to now, unless later work has already been timed after it (an
// op or marker submitted behind it, or another stream's op that took its begin from this
// stream's tail): then the model keeps its times and the call returns late.
// Returns whether the end moved; its truth line is then deferred already.
bool settle_blocking_end(Stream* stream, Op& op) noexcept {
  if (now_ns() <= op.end_ns + kBlockingSettleSlackNs) return false;
  std::lock_guard<std::mutex> guard(runtime().lock);
  if (stream->submitted.load(std::memory_order_relaxed) != op.stream_seq ||
      stream->dependents != op.dependents_seen || stream->tail_end_ns != op.end_ns) {
    return false;
  }
  (void)stream->waiters.load(std::memory_order_relaxed);  // the completion's cache line, now
  defer_truth(*stream, op, /*end_now=*/true);
  stream->tail_end_ns = op.end_ns;
  return true;
}

}  // namespace

// The worker starts with the stream, not with its first op, so no API call that enqueues work
// pays for a thread creation.
void start_worker(Stream* stream) {
  stream->worker_started = true;
  // A device's threads take none of the application's signals (common/quiet_thread.hpp).
  const BlockAsyncSignals quiet;
  std::thread(worker_main, stream).detach();  // never joined: nothing to order at exit
}

Stream* new_stream_locked(int device, bool blocking, bool is_null, uint64_t handle_value) {
  auto* stream = new Stream;  // never deleted: see handle_table.hpp
  stream->device = device;
  stream->blocking = blocking;
  stream->is_null = is_null;
  stream->handle_value = handle_value;
  runtime().devices[device].streams.push_back(stream);
  start_worker(stream);
  return stream;
}

namespace {
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_call_entry_ns = 0;
}  // namespace

__attribute__((tls_model("initial-exec"))) thread_local bool t_call_entry_pinned = false;

void note_call_entry() noexcept {
  if (!t_call_entry_pinned) t_call_entry_ns = now_ns();
}

uint64_t take_call_entry() noexcept {
  const uint64_t entry = t_call_entry_ns;
  t_call_entry_ns = 0;
  t_call_entry_pinned = false;
  return entry != 0 ? entry : now_ns();
}

CallEntry::CallEntry() noexcept : nested_(t_call_entry_pinned) {
  if (nested_) return;
  t_call_entry_ns = now_ns();
  t_call_entry_pinned = true;
}
CallEntry::~CallEntry() {
  if (nested_) return;
  t_call_entry_pinned = false;
  t_call_entry_ns = 0;
}

uint64_t submit_locked(Stream* stream, Op&& op, uint64_t duration_ns, uint64_t submit_ns,
                       Op* run_here) {
  if (submit_ns == 0) submit_ns = take_call_entry();
  uint64_t begin = std::max(submit_ns, stream->tail_end_ns);
  op.deps = std::move(stream->pending_deps);
  stream->pending_deps.clear();
  // Legacy default stream: null-stream work waits for all earlier work on the device's blocking
  // streams, and blocking-stream work waits for earlier null-stream work.
  Device& device = runtime().devices[stream->device];
  if (stream->is_null) {
    for (Stream* other : device.streams) {
      if (other != stream && other->blocking && !other->is_null)
        add_dependency(begin, op.deps, other);
    }
  } else if (stream->blocking) {
    add_dependency(begin, op.deps, device.null_stream);
  }
  op.begin_ns = begin;
  op.end_ns = begin + duration_ns;
  op.stream_seq = stream->submitted.load(std::memory_order_relaxed) + 1;
  op.op_seq = op.kind == OpKind::kMarker ? 0 : ++stream->ops;
  if (op.kind != OpKind::kMarker) activity_assign_locked(op);
  op.dependents_seen = stream->dependents;
  stream->tail_end_ns = op.end_ns;
  const uint64_t end = op.end_ns;
  // An idle stream reaches a marker at once, as a device would: no worker round trip. Idle: every
  // earlier op completed or passed and ended before the call (the marker begins at its submit
  // time, which is past). No clock read: a marker behind queued work (prof's device timing records
  // one after each launch) costs nothing here, and one whose stream ran dry during the call itself
  // goes to the worker like any other.
  const uint64_t submitted = stream->submitted.load(std::memory_order_relaxed);
  const bool idle = op.kind == OpKind::kMarker && op.deps.empty() &&
                    (stream->completed.load(std::memory_order_acquire) >= submitted ||
                     stream->passed.load(std::memory_order_acquire) >= submitted);
  if (idle && op.begin_ns == submit_ns) {
    stream->submitted.store(op.stream_seq, std::memory_order_release);
    complete(stream, op.stream_seq);
    return end;
  }
  // A blocking call runs its op on the calling thread (see run_inline).
  if (run_here != nullptr) {
    stream->submitted.store(op.stream_seq, std::memory_order_release);
    *run_here = std::move(op);
    return end;
  }
  // Count it as submitted before the worker can complete it, so hipStreamQuery never sees
  // completed > submitted.
  stream->submitted.store(op.stream_seq, std::memory_order_release);
  if (!stream->worker_started) start_worker(stream);  // a forked child's stream (fork.cpp)
  bool asleep;
  {
    std::lock_guard<std::mutex> guard(stream->queue_mutex);
    stream->queue.push_back(std::move(op));
    asleep = stream->worker_asleep;
  }
  if (asleep) stream->queue_cv.notify_one();  // idle long enough to have stopped polling
  return end;
}

// The calling thread of a blocking copy or memset executes it, after the ops before it on the
// stream and its dependencies: the caller then learns that its bytes arrived without a
// cross-thread wake-up (5-35 us on a busy host), and the call returns at the op's end.
void run_inline(Stream* stream, Op& op) noexcept {
  if (op.stream_seq > 1) wait_completed(stream, op.stream_seq - 1, op.begin_ns);
  for (const Dependency& dep : op.deps) wait_completed(dep.stream, dep.seq, op.begin_ns);
  wait_until(op.begin_ns);
  execute(op);
  wait_until(op.end_ns);
  const bool settled = settle_blocking_end(stream, op);
  complete(stream, op.stream_seq);
  // Deferred: formatting and writing the line here would delay the return that ends the call.
  if (!settled) defer_truth(*stream, op);
}

void add_wait_locked(Stream* stream, Stream* on, uint64_t seq, uint64_t time_ns) {
  stream->tail_end_ns = std::max(stream->tail_end_ns, time_ns);
  if (on != stream) stream->pending_deps.push_back({on, seq});
}

void wait_completed(Stream* stream, uint64_t seq, uint64_t expected_end_ns) noexcept {
  auto done = [&] { return complete_by(stream, seq, expected_end_ns); };
  if (done()) return;
  stream->queue_cv.notify_one();  // the worker may be between polls: someone is waiting now
  for (uint64_t now = now_ns(); !done() && now + kSpinWindowNs < expected_end_ns; now = now_ns()) {
    sleep_ns(std::min<uint64_t>(expected_end_ns - now - kSpinWindowNs, 1000000));
  }
  while (!done() && now_ns() < expected_end_ns + kWaiterSpinSlackNs) cpu_relax();
  if (done()) return;
  stream->waiters.fetch_add(1, std::memory_order_seq_cst);
  {
    std::unique_lock<std::mutex> guard(stream->done_mutex);
    // Past the expected end by now: a pass or a completion ends the wait.
    stream->done_cv.wait(guard, done);
  }
  stream->waiters.fetch_sub(1, std::memory_order_seq_cst);
}

void synchronize_device(int device) noexcept {
  struct Pending {
    Stream* stream;
    uint64_t seq;
    uint64_t end_ns;
  };
  std::vector<Pending> pending;
  {
    Runtime& rt = runtime();
    std::lock_guard<std::mutex> guard(rt.lock);
    for (int d = 0; d < static_cast<int>(rt.devices.size()); ++d) {
      if (device >= 0 && d != device) continue;
      for (Stream* s : rt.devices[d].streams) {
        pending.push_back({s, s->submitted.load(std::memory_order_relaxed), s->tail_end_ns});
      }
    }
  }
  for (const Pending& p : pending) wait_completed(p.stream, p.seq, p.end_ns);
  flush_deferred_truth();  // after a synchronize, the truth file has every completed op
}

void destroy_stream(Stream* stream) noexcept {
  Runtime& rt = runtime();
  uint64_t seq = 0;
  uint64_t end = 0;
  {
    std::lock_guard<std::mutex> guard(rt.lock);
    seq = stream->submitted.load(std::memory_order_relaxed);
    end = stream->tail_end_ns;
  }
  wait_completed(stream, seq, end);
  std::lock_guard<std::mutex> guard(rt.lock);
  if (!stream->alive) return;
  stream->alive = false;
  rt.stream_table.erase(stream);
  auto& list = rt.devices[stream->device].streams;
  list.erase(std::remove(list.begin(), list.end(), stream), list.end());
  if (stream->worker_started) {
    Op quit;
    quit.kind = OpKind::kQuit;
    {
      std::lock_guard<std::mutex> queue_guard(stream->queue_mutex);
      stream->queue.push_back(std::move(quit));
    }
    stream->queue_cv.notify_one();
  }
}

}  // namespace prof::sim
