#include "interpose/device_timing.hpp"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <ctime>
#include <deque>
#include <new>
#include <unordered_map>
#include <vector>

#include "common/clock.hpp"
#include "common/quiet_thread.hpp"
#include "interpose/abrupt_end.hpp"
#include "interpose/config.hpp"
#include "interpose/spsc_ring.hpp"
#include "interpose/stream_capture.hpp"
#include "interpose/thread_buffer.hpp"

namespace prof::interpose {

struct PendingOp {
  PooledEvent begin;
  PooledEvent end;
  void* stream;  // work on one stream completes in order: the harvester asks only its oldest op
  // The begin is the end event of the thread's previous op on this stream (one event per launch
  // boundary, see timing_begin): the harvester takes that op's converted end time, kept in its
  // stream tail, instead of reading the event again.
  bool begin_borrowed;
  uint64_t predecessor_id;  // the correlation id of that previous op
  uint64_t correlation_id;
  uint64_t submit_ns;
  uint64_t api_end_ns;
  ThreadTiming* owner;
  Activity activity;
  bool blocking;
  // The runtime reports this op's device times (activity_deliver) under this id: no events.
  bool by_activity;
  uint64_t runtime_id;
  // Timed by events, and its ops carry prof's id (a call that enqueues several, on a runtime that
  // reports by external correlation): their reports, when they came, give its span instead.
  bool span;
};

// One per application thread that enqueues device work. The thread pushes pending ops and pops
// recycled events; the harvester does the opposite. Never freed: the harvester may hold a pointer.
struct ThreadTiming {
  // App thread -> harvester. Grows past 4096 ops, to 64K, while the harvester is held off the CPU
  // (a burst of launches on a busy machine): a full ring there dropped 10-40% of a 20,000-launch
  // burst's device times in half the runs (test/e2e/test_idle.py).
  SpscChain<PendingOp, 4096, 16> pending;
  SpscRing<PooledEvent, 8192> free;  // harvester -> app thread (the harvester is its only producer)
  ThreadTiming* next = nullptr;
  // The thread's own pool, a stack (thread-private): events come back from `free` in the order the
  // harvester returned them and leave from the top, so the events in use are the few most
  // recently harvested ones, still in cache (the runtime's event objects and handle table too),
  // and a surplus stays untouched. Events a failed call took go back here as well: `free` has one
  // producer, the harvester.
  static constexpr uint32_t kSpareCapacity = 2048;
  uint32_t spare_count = 0;
  // Raw bytes, not PooledEvent[N], as in SpscRing: constructing 2048 events would write 12 pages
  // when a thread first times work; the few slots in use are touched as they are used.
  alignas(PooledEvent) unsigned char spare_bytes[kSpareCapacity * sizeof(PooledEvent)];
  PooledEvent* spare() noexcept { return reinterpret_cast<PooledEvent*>(spare_bytes); }
  // When the pool runs dry the thread asks the harvester to stock it (and creates the events it
  // needs now itself): dry_count counts the requests, stock_key says for what, (epoch << 16) |
  // (runtime << 8) | (device + 1). Written by the thread (relaxed), read by the harvester.
  alignas(64) std::atomic<uint64_t> stock_key{0};
  std::atomic<uint32_t> dry_count{0};
  uint32_t dry_seen = 0;  // harvester only: the last request it stocked
  uint32_t stocked = 0;   // harvester only: events it created for this thread in stocked_epoch
  uint32_t stocked_epoch = 0;
  // Thread-private: the thread's last timed op, whose end event the next op on the same stream
  // may take as its begin (timing_begin says when).
  bool lend_valid = false;
  void* lend_stream = nullptr;
  PooledEvent lend_end;
  uint64_t lend_id = 0;
  uint64_t lend_enqueues = 0;
};

__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_enqueues = 0;
__attribute__((tls_model("initial-exec"))) thread_local bool t_enqueuer = false;
std::atomic<int> g_enqueue_threads{0};

namespace {

constexpr uint64_t kReanchorNs =
    100'000'000;  // keep float ms elapsed times short: <= 8 ns rounding
constexpr int kMaxDevices = 64;
// Events the harvester adds to a thread's pool each time the thread found it dry (128 launches
// or copies in flight), and at most in all per thread: beyond that, a thread that outruns the
// harvester makes its own events, as it did before the harvester stocked.
constexpr uint32_t kStockEvents = 256;
constexpr uint32_t kStockLimit = 4096;

__attribute__((tls_model("initial-exec"))) thread_local ThreadTiming* t_timing = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local int t_device[kRuntimeCount] = {};

const TimingAdapter& adapter_of(RuntimeId runtime) {
  return *kTimingAdapters[static_cast<size_t>(runtime)];
}

std::atomic<ThreadTiming*> g_threads{nullptr};
std::atomic<uint32_t> g_epoch{1};
std::atomic<bool> g_disabled{false};
pthread_once_t g_start_once = PTHREAD_ONCE_INIT;
pthread_t g_harvester;
std::atomic<bool> g_harvester_running{false};
std::atomic<bool> g_stop{false};
std::atomic<uint32_t> g_flush_request{0};
std::atomic<uint32_t> g_flush_done{0};
// The process is ending without its exit handlers (a fatal signal, _exit:
// interpose/abrupt_end.cpp): a dying thread asks the harvester for one more round and waits,
// bounded, for it to be done.
std::atomic<uint32_t> g_end_request{0};
std::atomic<uint32_t> g_end_done{0};
pid_t g_harvester_pid =
    0;  // the process whose harvester runs: not a vfork child sharing its memory
// A device the application has chosen (set-device) or timed work on: the harvester calibrates it
// as soon as it sees the request, usually while the application is still setting up.
std::atomic<bool> g_calibration_wanted[kRuntimeCount][64];

sem_t g_wake;  // posted by requests; the harvester's idle wait
// Idle this long (nothing in flight, nothing new), the harvester stops polling every 2 ms and
// waits up to kDeepIdleWaitNs; the first timed op a thread pushes then wakes it (timing_end).
constexpr uint64_t kDeepIdleAfterNs = 50'000'000;
constexpr long kDeepIdleWaitNs = 500'000'000;
std::atomic<bool> g_harvester_asleep{false};

// Per-op device times reported by the runtime itself (TimingAdapter::activity_open), per runtime:
// not asked yet; asked, and the first timed call with events tells whether reports come (probe);
// on; or events only (no such interface, or it gave no ids).
enum ActivityState : uint8_t { kActivityUnknown, kActivityProbe, kActivityOn, kActivityOff };
std::atomic<uint8_t> g_activity[kRuntimeCount];
// The first id the runtime gave an op during this thread's current timed call (activity_note_id).
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_activity_id = 0;
struct DeviceTime {
  uint64_t runtime_id;
  uint64_t begin_ns;
  uint64_t end_ns;
  RuntimeId runtime;
};
// From the runtime's threads to the harvester; a full ring loses reports, and their ops are
// counted as timing drops when the harvester stops.
MpscRing<DeviceTime, 65536> g_device_times;

// Whether this runtime's per-op reports are used: asks the runtime the first time.
uint8_t activity_state(const TimingAdapter& rt) noexcept {
  std::atomic<uint8_t>& state = g_activity[static_cast<size_t>(rt.runtime)];
  uint8_t now = state.load(std::memory_order_acquire);
  if (now != kActivityUnknown) return now;
  if (!g_config.device_activity || rt.activity_open == nullptr) {
    state.store(kActivityOff, std::memory_order_release);
    return kActivityOff;
  }
  if (!state.compare_exchange_strong(now, kActivityProbe, std::memory_order_acq_rel)) return now;
  // An id-callback runtime proves its reports on the first call (settle_probe); one that reports
  // by external correlation says nothing on the calling thread: its subscription is taken as is.
  if (rt.activity_open()) {
    if (rt.activity_push == nullptr) return kActivityProbe;
    state.store(kActivityOn, std::memory_order_release);
    return kActivityOn;
  }
  state.store(kActivityOff, std::memory_order_release);
  return kActivityOff;
}

// A timed call made with events while the runtime's reports are on probation: one that enqueued
// an op and got an id turns them on; 16 that succeeded without one (the runtime does not give
// ids as prof reads its interface) turn them off for good.
std::atomic<uint32_t> g_probe_misses[kRuntimeCount];
void settle_probe(RuntimeId runtime, bool got_id) noexcept {
  std::atomic<uint8_t>& state = g_activity[static_cast<size_t>(runtime)];
  if (got_id)
    state.store(kActivityOn, std::memory_order_release);
  else if (g_probe_misses[static_cast<size_t>(runtime)].fetch_add(1, std::memory_order_relaxed) +
               1 >=
           16)
    state.store(kActivityOff, std::memory_order_release);
}

void wake_harvester() noexcept {
  if (g_harvester_asleep.exchange(false, std::memory_order_relaxed)) sem_post(&g_wake);
}

struct Anchor {
  void* event = nullptr;
  void* stream = nullptr;
  uint64_t host_ns = 0;
  uint32_t epoch = 0;
  bool moved = false;  // the harvester re-anchored to an op's end event, which it now owns
};

// Per runtime and device, the first anchor: set by the first application thread that times work
// on the device, read by the harvester. Guarded for writing by g_calibration_mutex (rare path).
std::atomic<Anchor*> g_calibrations[kRuntimeCount][kMaxDevices];
pthread_mutex_t g_calibration_mutex = PTHREAD_MUTEX_INITIALIZER;

// Host time of the anchor: an event recorded on an idle private stream of the device is stamped
// when the record is submitted; of several tries the one with the narrowest submit window wins
// and its midpoint is the estimate. Runs on prof's harvester thread, never on the application's:
// the first timed call on a device only records its events, and the harvester calibrates the
// device (on its own thread's current device and its own stream) before it converts them. An
// anchor taken after the events it converts is as good as one taken before: elapsed times are
// signed. So the application's first iterations pay no calibration (about a millisecond of
// synchronous round trips) and their own timings are what they would be without prof.
bool calibrate_device(const TimingAdapter& rt, int device, uint32_t epoch) noexcept {
  if (rt.set_device(device) != rt.success) return false;
  void* mem =
      mmap(nullptr, sizeof(Anchor), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return false;
  auto* a = new (mem) Anchor();
  if (rt.stream_create(&a->stream) != rt.success) return false;
  void* trial = nullptr;
  if (rt.event_create(&trial) != rt.success) return false;
  uint64_t best_window = UINT64_MAX;
  for (int i = 0; i < 9; ++i) {
    uint64_t t0 = now_ns();
    if (rt.event_record(trial, a->stream) != rt.success) break;
    uint64_t t1 = now_ns();
    if (rt.event_synchronize(trial) != rt.success) break;
    if (t1 - t0 < best_window) {
      best_window = t1 - t0;
      a->host_ns = t0 + (t1 - t0) / 2;
      std::swap(a->event, trial);
      if (!trial && rt.event_create(&trial) != rt.success) break;
    }
  }
  if (trial) rt.event_destroy(trial);
  if (!a->event) return false;
  a->epoch = epoch;
  g_calibrations[static_cast<size_t>(rt.runtime)][device].store(a, std::memory_order_release);
  return true;
}

// Harvester thread only. The calibration for (runtime, device) in this epoch, made now if missing.
const Anchor* calibration(const TimingAdapter& rt, int device, uint32_t epoch) noexcept {
  if (epoch != g_epoch.load(std::memory_order_acquire)) return nullptr;  // events of a reset device
  std::atomic<Anchor*>& slot = g_calibrations[static_cast<size_t>(rt.runtime)][device];
  const Anchor* a = slot.load(std::memory_order_acquire);
  if (a && a->epoch == epoch) return a;
  pthread_mutex_lock(&g_calibration_mutex);
  a = slot.load(std::memory_order_acquire);
  if (!(a && a->epoch == epoch) && calibrate_device(rt, device, epoch))
    a = slot.load(std::memory_order_acquire);
  pthread_mutex_unlock(&g_calibration_mutex);
  return a && a->epoch == epoch ? a : nullptr;
}

void harvester_start();

ThreadTiming* thread_timing() noexcept {
  if (t_timing) [[likely]]
    return t_timing;
  void* mem = mmap(nullptr, sizeof(ThreadTiming), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  auto* tt = new (mem)
      ThreadTiming;  // default-initialised: the mapping is zeroed, nothing is written twice
  tt->next = g_threads.load(std::memory_order_relaxed);
  while (!g_threads.compare_exchange_weak(tt->next, tt, std::memory_order_acq_rel)) {
  }
  t_timing = tt;
  return tt;
}

constexpr uint64_t stock_key(uint32_t epoch, RuntimeId runtime, int device) {
  return uint64_t{epoch} << 16 | uint64_t{static_cast<uint8_t>(runtime)} << 8 |
         static_cast<uint64_t>(device + 1);
}

bool fits(const PooledEvent& e, uint32_t epoch, RuntimeId runtime, int device) {
  return e.epoch == epoch && e.device == device && e.runtime == runtime;
}

// Application thread. Of the top few events, the first of this kind: an event of another device
// or runtime stays for when the thread switches back (a thread that alternates devices would
// otherwise destroy and recreate its pool at every switch); one of an earlier epoch died in a
// device reset and is forgotten.
bool take_event(ThreadTiming* tt, const TimingAdapter& rt, uint32_t epoch, int device,
                PooledEvent& out) noexcept {
  while (tt->spare_count < ThreadTiming::kSpareCapacity &&
         tt->free.pop(tt->spare()[tt->spare_count]))
    ++tt->spare_count;
  constexpr uint32_t kLook = 8;
  uint32_t looked = 0;
  for (uint32_t i = tt->spare_count; i > 0 && looked < kLook; --i) {
    PooledEvent& e = tt->spare()[i - 1];
    if (e.epoch != epoch) {
      e = tt->spare()[--tt->spare_count];  // the top fills the hole
      continue;
    }
    ++looked;
    if (fits(e, epoch, rt.runtime, device)) {
      out = e;
      e = tt->spare()[--tt->spare_count];
      return true;
    }
  }
  // A full pool of the other kind (the thread left that device for good) shrinks by one per miss.
  if (tt->spare_count == ThreadTiming::kSpareCapacity && looked == kLook) {
    const PooledEvent& victim = tt->spare()[--tt->spare_count];
    adapter_of(victim.runtime).event_destroy(victim.event);
  }
  // The pool is dry: ask the harvester to stock it for this kind, and make this one here.
  const uint64_t key = stock_key(epoch, rt.runtime, device);
  if (tt->stock_key.load(std::memory_order_relaxed) != key)
    tt->stock_key.store(key, std::memory_order_relaxed);
  tt->dry_count.store(tt->dry_count.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  if (rt.event_create(&out.event) != rt.success) return false;
  out.device = device;
  out.epoch = epoch;
  out.runtime = rt.runtime;
  return true;
}

// Application thread: an event taken and not used (or used by a call that failed).
void give_back_own(ThreadTiming* tt, const PooledEvent& e) noexcept {
  if (e.epoch != g_epoch.load(std::memory_order_acquire)) return;  // died with a device reset
  if (tt->spare_count < ThreadTiming::kSpareCapacity)
    tt->spare()[tt->spare_count++] = e;
  else
    adapter_of(e.runtime).event_destroy(e.event);
}

// Harvester thread: an event whose op is harvested goes back to its thread's pool.
void give_back(ThreadTiming* tt, const PooledEvent& e) noexcept {
  if (e.epoch != g_epoch.load(std::memory_order_acquire)) return;  // died with a device reset
  if (!tt->free.push(e)) adapter_of(e.runtime).event_destroy(e.event);
}

// ---- harvester ------------------------------------------------------------------------------

class Harvester {
 public:
  void run() {
    timespec idle{0, 200000};
    uint64_t idle_since = now_ns();
    while (!g_stop.load(std::memory_order_acquire)) {
      // Read before the round: the ops pushed before the request are collected and asked in it.
      const uint32_t end_request = g_end_request.load(std::memory_order_acquire);
      const bool collected = collect_pending();
      bool progressed = take_reports();
      progressed = poll(false) || progressed;
      if (end_request != g_end_done.load(std::memory_order_relaxed)) {
        g_end_done.store(end_request, std::memory_order_release);
        continue;  // the end may wait on more rounds (timing_harvest_before_end)
      }
      uint32_t request = g_flush_request.load(std::memory_order_acquire);
      if (request != g_flush_done.load(std::memory_order_relaxed)) {
        flush_and_retire();
        g_flush_done.store(request, std::memory_order_release);
        continue;
      }
      calibrate_wanted();
      stock_pools();
      idle.tv_nsec = progressed ? 100000 : (idle.tv_nsec < 2000000 ? idle.tv_nsec * 2 : 2000000);
      // A program that has stopped timing work (a server between requests, a script's pause)
      // does not have prof wake in it 500 times a second: after kDeepIdleAfterNs with nothing in
      // flight the wait is long, and a thread that pushes an op ends it. Asleep is said before
      // the rings are looked at once more, so an op pushed before that look is seen, and one
      // pushed after it finds the flag set (a push racing the flag waits at most the long wait).
      const uint64_t now = now_ns();
      long wait_ns = idle.tv_nsec;
      if (collected || progressed || busy()) {
        idle_since = now;
      } else if (now - idle_since >= kDeepIdleAfterNs) {
        g_harvester_asleep.store(true, std::memory_order_seq_cst);
        if (collect_pending()) {
          g_harvester_asleep.store(false, std::memory_order_relaxed);
          continue;
        }
        wait_ns = kDeepIdleWaitNs;
      }
      timespec until{};
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += wait_ns;
      while (until.tv_nsec >= 1000000000) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000;
      }
      sem_timedwait(&g_wake, &until);
      g_harvester_asleep.store(false, std::memory_order_relaxed);
    }
    // Exit: whatever completes within the grace period is still harvested.
    const uint64_t deadline = now_ns() + 200'000'000;
    do {
      collect_pending();
      take_reports();
      poll(false);
      if (!busy()) break;
      timespec pause{0, 200000};
      nanosleep(&pause, nullptr);
    } while (now_ns() < deadline);
    count_unreported();
  }

 private:
  void calibrate_wanted() {
    const uint32_t epoch = g_epoch.load(std::memory_order_acquire);
    for (size_t r = 0; r < kRuntimeCount; ++r)
      for (int d = 0; d < kMaxDevices; ++d)
        if (g_calibration_wanted[r][d].load(std::memory_order_relaxed))
          calibration(*kTimingAdapters[r], d, epoch);
  }

  // Adds kStockEvents events to the pool of every thread that found its pool dry since the last
  // look, of the kind it asked for: created here, on prof's thread, so that its next launches do
  // not create them.
  void stock_pools() {
    const uint32_t epoch = g_epoch.load(std::memory_order_acquire);
    for (ThreadTiming* tt = g_threads.load(std::memory_order_acquire); tt; tt = tt->next) {
      const uint32_t dry = tt->dry_count.load(std::memory_order_acquire);
      if (dry == tt->dry_seen) continue;
      tt->dry_seen = dry;
      const uint64_t key = tt->stock_key.load(std::memory_order_relaxed);
      if (key >> 16 != epoch) continue;  // asked before a device reset, whose events died
      if (tt->stocked_epoch != epoch) tt->stocked = 0, tt->stocked_epoch = epoch;
      if (tt->stocked >= kStockLimit) continue;
      const auto runtime = static_cast<RuntimeId>((key >> 8) & 0xFF);
      const int device = static_cast<int>(key & 0xFF) - 1;
      if (static_cast<size_t>(runtime) >= kRuntimeCount || device < 0 || device >= kMaxDevices)
        continue;
      const TimingAdapter& rt = adapter_of(runtime);
      // Events belong to the creating thread's current device.
      if (rt.set_device(device) != rt.success) continue;
      for (uint32_t i = 0; i < kStockEvents; ++i, ++tt->stocked) {
        PooledEvent e;
        if (rt.event_create(&e.event) != rt.success) break;
        e.device = device;
        e.epoch = epoch;
        e.runtime = runtime;
        if (!tt->free.push(e)) {
          rt.event_destroy(e.event);
          break;
        }
      }
    }
  }

  // Whether any op was collected.
  bool collect_pending() {
    bool collected = false;
    for (ThreadTiming* tt = g_threads.load(std::memory_order_acquire); tt; tt = tt->next) {
      PendingOp op;
      while (tt->pending.pop(op)) {
        collected = true;
        if (op.by_activity) {
          await_report(op);
          continue;
        }
        queue_of(op).ops.push_back(op);
        ++inflight_;
      }
    }
    return collected;
  }

  // Returns whether any op completed. Work on a stream completes in the order it was enqueued, so
  // each stream's ops wait in their own queue and only its oldest is asked: a round costs one
  // query per busy stream, not a pass over every op in flight (20,000 after a burst of launches,
  // every 100 us: the harvester's poll took more CPU than the launching thread). Ops of one
  // thread reach their queue in the thread's order, so an op whose begin is borrowed is finished
  // after the op it borrowed from.
  bool poll(bool wait) {
    bool progressed = false;
    for (StreamOps& q : queues_) {
      while (!q.ops.empty()) {
        const PendingOp& op = q.ops.front();
        const TimingAdapter& rt = adapter_of(op.end.runtime);
        const int status = wait ? rt.event_synchronize(op.end.event) : rt.event_query(op.end.event);
        if (status == rt.not_ready) break;
        progressed = true;
        const PendingOp done = op;
        q.ops.pop_front();
        --inflight_;
        finish(done, status == rt.success);
      }
    }
    return progressed;
  }

  // Ops timed by the runtime's own reports meet their report here, whichever comes first: a
  // report may arrive before its op is collected (the runtime's worker ran first), an op before
  // its report (the op is still on the device).
  static uint64_t report_key(RuntimeId runtime, uint64_t runtime_id) {
    return (static_cast<uint64_t>(runtime) << 56) ^ runtime_id;
  }

  void await_report(const PendingOp& op) {
    const uint64_t key = report_key(op.end.runtime, op.runtime_id);
    if (auto it = early_reports_.find(key); it != early_reports_.end()) {
      emit_reported(op, it->second);
      early_reports_.erase(it);
      return;
    }
    if (awaiting_.emplace(key, op).second)
      ++awaiting_per_runtime_[static_cast<size_t>(op.end.runtime)];
  }

  // Returns whether any op got its times.
  bool take_reports() {
    bool matched = false;
    // Runtimes that hold their records until flushed are asked while their ops wait.
    if (!awaiting_.empty())
      for (size_t r = 0; r < kRuntimeCount; ++r)
        if (awaiting_per_runtime_[r] != 0 && kTimingAdapters[r]->activity_flush != nullptr)
          kTimingAdapters[r]->activity_flush();
    DeviceTime t;
    while (g_device_times.pop(t)) {
      const uint64_t key = report_key(t.runtime, t.runtime_id);
      if (auto it = awaiting_.find(key); it != awaiting_.end()) {
        emit_reported(it->second, t);
        --awaiting_per_runtime_[static_cast<size_t>(t.runtime)];
        awaiting_.erase(it);
        matched = true;
        continue;
      }
      // A report for an op prof did not time (outside a capture window, a call of an untraced
      // runtime's thread, a graph node), or for an op not collected yet: kept a while.
      // Several reports under one id are the ops of one call (emit_span): kept as their span.
      const auto [it, added] = early_reports_.emplace(key, t);
      if (added) {
        early_order_.push_back(key);
      } else {
        it->second.begin_ns = std::min(it->second.begin_ns, t.begin_ns);
        it->second.end_ns = std::max(it->second.end_ns, t.end_ns);
      }
      while (early_order_.size() > kEarlyReports) {
        early_reports_.erase(early_order_.front());
        early_order_.pop_front();
      }
    }
    return matched;
  }

  // An op of several whose end event completed: all of them are done, so the runtime has their
  // reports (asked to flush them first); each was kept under prof's id, widened to cover them all
  // (take_reports). None: the events time it.
  bool emit_span(const PendingOp& op) {
    const TimingAdapter& rt = adapter_of(op.end.runtime);
    if (rt.activity_flush != nullptr) rt.activity_flush();
    take_reports();
    const auto it = early_reports_.find(report_key(op.end.runtime, op.correlation_id));
    if (it == early_reports_.end()) return false;
    emit_reported(op, it->second);
    early_reports_.erase(it);
    return true;
  }

  void emit_reported(const PendingOp& op, const DeviceTime& t) {
    write_activity(op, t.begin_ns, t.end_ns < t.begin_ns ? t.begin_ns : t.end_ns);
  }

  // The op's device times, as an activity record in the harvester's ring for the op's runtime.
  static void write_activity(const PendingOp& op, uint64_t begin_ns, uint64_t end_ns) {
    ThreadBuffer* buffer = ThreadBuffer::current(op.end.runtime);
    if (!buffer) return;
    Record* r = buffer->reserve();
    if (!r) return;
    memset(r, 0, sizeof *r);
    r->activity.type = static_cast<uint8_t>(RecordType::kActivity);
    r->activity.activity = static_cast<uint8_t>(op.activity);
    r->activity.correlation_id = op.correlation_id;
    r->activity.device_begin_ns = begin_ns;
    r->activity.device_end_ns = end_ns;
    buffer->commit();
  }

  // Ops whose report never came (the ring was full, the process ends with work on the device).
  void count_unreported() {
    for (const auto& [key, op] : awaiting_)
      if (ThreadBuffer* b = ThreadBuffer::current(op.end.runtime)) b->count_timing_drop();
    awaiting_.clear();
    for (size_t& n : awaiting_per_runtime_) n = 0;
  }

  bool busy() const { return inflight_ != 0 || !awaiting_.empty(); }

  // The ops in flight on one stream of one runtime, oldest first.
  struct StreamOps {
    RuntimeId runtime{};
    void* stream = nullptr;
    std::deque<PendingOp> ops;
  };

  StreamOps& queue_of(const PendingOp& op) {
    const RuntimeId runtime = op.end.runtime;
    if (last_queue_ < queues_.size() && queues_[last_queue_].stream == op.stream &&
        queues_[last_queue_].runtime == runtime)
      return queues_[last_queue_];
    size_t empty = queues_.size();
    for (size_t i = 0; i < queues_.size(); ++i) {
      if (queues_[i].stream == op.stream && queues_[i].runtime == runtime)
        return queues_[last_queue_ = i];
      if (empty == queues_.size() && queues_[i].ops.empty()) empty = i;
    }
    // A new stream takes the place of one with nothing in flight (streams come and go).
    if (empty == queues_.size()) queues_.emplace_back();
    queues_[empty].runtime = runtime;
    queues_[empty].stream = op.stream;
    return queues_[last_queue_ = empty];
  }

  // The last finished op of each (thread, stream): its end event stays out of the pool while the
  // thread's next op on the stream may have taken it as its begin, and its converted end time
  // is that op's begin.
  struct Tail {
    ThreadTiming* owner = nullptr;  // nullptr: a free slot
    void* stream = nullptr;
    PooledEvent end;  // end.event nullptr: the event is not the pool's (an anchor now)
    uint64_t id = 0;
    uint64_t end_ns = 0;
    bool known = false;  // end_ns was converted
  };
  static constexpr size_t kTails = 64;

  Tail* tail_of(ThreadTiming* owner, void* stream) {
    for (Tail& t : tails_)
      if (t.owner == owner && t.stream == stream) return &t;
    Tail* slot = nullptr;
    for (Tail& t : tails_)
      if (!t.owner) {
        slot = &t;
        break;
      }
    if (!slot) {  // full: the oldest gives its event back; an op that borrowed it gets no time
      slot = &tails_[next_evicted_++ % kTails];
      if (slot->end.event) give_back(slot->owner, slot->end);
    }
    *slot = Tail{};
    slot->owner = owner;
    slot->stream = stream;
    return slot;
  }

  void finish(const PendingOp& op, bool completed) {
    Tail* tail = tail_of(op.owner, op.stream);
    uint64_t end_ns = 0;
    bool known = false;
    if (completed) {
      uint64_t borrowed_begin_ns = 0;
      const bool have_begin = !op.begin_borrowed || (tail->known && tail->id == op.predecessor_id);
      if (op.begin_borrowed) borrowed_begin_ns = tail->end_ns;
      known = to_host(op.end, end_ns);
      if (op.span && emit_span(op)) {
      } else if (known && have_begin)
        emit(op, op.begin_borrowed, borrowed_begin_ns, end_ns);
      else if (ThreadBuffer* b = ThreadBuffer::current(op.end.runtime))
        b->count_timing_drop();
    }
    // The previous tail's event goes back now (it was this op's begin if borrowed); this op's
    // end event becomes the tail unless it became the anchor.
    if (tail->end.event) give_back(op.owner, tail->end);
    if (!op.begin_borrowed) give_back(op.owner, op.begin);
    tail->end = op.end;
    if (reanchored_) tail->end.event = nullptr;
    reanchored_ = false;
    tail->id = op.correlation_id;
    tail->end_ns = end_ns;
    tail->known = known;
  }

  void flush_and_retire() {
    collect_pending();
    take_reports();
    poll(true);
    for (Tail& t : tails_) t = Tail{};  // their events die with the device
    for (size_t r = 0; r < kRuntimeCount; ++r) {
      const TimingAdapter& rt = *kTimingAdapters[r];
      for (int d = 0; d < kMaxDevices; ++d) {
        Anchor& a = anchors_[r][d];
        if (a.event && a.moved) rt.event_destroy(a.event);
        a = Anchor{};
        if (Anchor* c = g_calibrations[r][d].exchange(nullptr, std::memory_order_acq_rel)) {
          if (c->event) rt.event_destroy(c->event);
          if (c->stream) rt.stream_destroy(c->stream);
          // Not freed: an application thread may have read the pointer just before the exchange.
        }
      }
    }
    g_epoch.fetch_add(1, std::memory_order_acq_rel);
  }

  bool to_host(const PooledEvent& e, uint64_t& host_ns) {
    if (e.device < 0 || e.device >= kMaxDevices) return false;
    const size_t runtime = static_cast<size_t>(e.runtime);
    Anchor& a = anchors_[runtime][e.device];
    if (!a.event || a.epoch != e.epoch) {
      // Start from the device's calibration, made on this thread the first time it is needed.
      const Anchor* published = calibration(adapter_of(e.runtime), e.device, e.epoch);
      if (!published) return false;
      a = *published;  // a copy: the calibration keeps owning its event (moved == false)
    }
    const TimingAdapter& rt = adapter_of(e.runtime);
    float ms = 0;
    if (rt.event_elapsed_ms(&ms, a.event, e.event) != rt.success) return false;
    host_ns = static_cast<uint64_t>(static_cast<int64_t>(a.host_ns) +
                                    std::llround(static_cast<double>(ms) * 1e6));
    return true;
  }

  // `end_ns`: the end event's host time; the begin's is `borrowed_begin_ns` or read from the event.
  void emit(const PendingOp& op, bool borrowed, uint64_t borrowed_begin_ns, uint64_t end_ns) {
    uint64_t begin_ns = borrowed_begin_ns;
    if (!borrowed && !to_host(op.begin, begin_ns)) return;
    // Work cannot start before it was submitted; a blocking call's work is done when it returns.
    if (begin_ns < op.submit_ns) begin_ns = op.submit_ns;
    if (op.blocking && end_ns > op.api_end_ns) end_ns = op.api_end_ns;
    if (end_ns < begin_ns) end_ns = begin_ns;
    maybe_reanchor(op, end_ns);
    write_activity(op, begin_ns, end_ns);
  }

  // float milliseconds lose precision far from the anchor: move the anchor forward to a
  // completed event whose host time is known.
  void maybe_reanchor(const PendingOp& op, uint64_t end_host_ns) {
    Anchor& a = anchors_[static_cast<size_t>(op.end.runtime)][op.end.device];
    if (op.blocking || end_host_ns < a.host_ns + kReanchorNs || op.end.epoch != a.epoch) return;
    if (a.event && a.moved) adapter_of(op.end.runtime).event_destroy(a.event);
    a.event = op.end.event;
    a.host_ns = end_host_ns;
    a.moved = true;
    reanchored_ = true;  // the event now belongs to the anchor, not the pool
  }

  static constexpr size_t kEarlyReports = 65536;
  std::unordered_map<uint64_t, PendingOp> awaiting_;
  size_t awaiting_per_runtime_[kRuntimeCount] = {};
  std::unordered_map<uint64_t, DeviceTime> early_reports_;
  std::deque<uint64_t> early_order_;
  std::vector<StreamOps> queues_;
  size_t last_queue_ = 0;  // the queue the last op went to: a thread's burst goes to one stream
  size_t inflight_ = 0;    // ops in all queues
  Tail tails_[kTails];
  size_t next_evicted_ = 0;
  Anchor anchors_[kRuntimeCount][kMaxDevices];
  bool reanchored_ = false;
};

void* harvester_main(void*) {
  // Background work: a batch thread never preempts the application's threads when it wakes.
  sched_param batch{};
  sched_setscheduler(0, SCHED_BATCH, &batch);
  // Never destroyed: exit handlers run while this thread may still be harvesting, so the
  // harvester must not be a static with a destructor (or own memory freed at exit).
  alignas(Harvester) static unsigned char storage[sizeof(Harvester)];
  auto* harvester = new (storage) Harvester();
  harvester->run();
  return nullptr;
}

// Cheap after the first time: one relaxed load.
void want_calibration(RuntimeId runtime, int device) noexcept {
  if (device < 0 || device >= kMaxDevices) return;
  std::atomic<bool>& wanted = g_calibration_wanted[static_cast<size_t>(runtime)][device];
  if (wanted.load(std::memory_order_relaxed) || wanted.exchange(true, std::memory_order_relaxed))
    return;
  sem_post(&g_wake);
}

void harvester_start() {
  sem_init(&g_wake, 0, 0);
  const BlockAsyncSignals
      quiet;  // the application's signals are not ours (common/quiet_thread.hpp)
  g_harvester_pid = getpid();
  if (pthread_create(&g_harvester, nullptr, harvester_main, nullptr) == 0) {
    g_harvester_running.store(true, std::memory_order_release);
    install_end_handlers();  // from now on there are device times to save at an abrupt end
  } else {
    g_disabled.store(true, std::memory_order_relaxed);
  }
}

}  // namespace

void timing_set_current_device(RuntimeId runtime, int device) noexcept {
  t_device[static_cast<size_t>(runtime)] = device;
  if (g_harvester_running.load(std::memory_order_relaxed)) want_calibration(runtime, device);
}

void timing_thread_started(RuntimeId runtime) noexcept {
  if (!g_config.device_timing) return;
  (void)stream_capture_tracked(adapter_of(runtime));
  // The harvester, at the process's first device-runtime call: not at load, where every process
  // of a launcher script would get a thread (and a program that must be single-threaded, as
  // unshare(CLONE_NEWUSER) requires, failed under prof). Not in a forked child (no device timing
  // there).
  if (is_device_runtime(runtime) && !g_disabled.load(std::memory_order_relaxed))
    pthread_once(&g_start_once, harvester_start);
}

void timing_begin(TimingTicket& ticket, const TimingAdapter& rt, void* stream, bool blocking,
                  bool one_op, uint64_t correlation_id) noexcept {
  if (!g_config.device_timing || g_disabled.load(std::memory_order_relaxed)) return;
  // Started by the first device-runtime call of a thread (timing_thread_started), or here: this
  // thread's first call was another runtime's (MPI_Init before any HIP call).
  if (!g_harvester_running.load(std::memory_order_relaxed)) [[unlikely]]
    pthread_once(&g_start_once, harvester_start);
  ThreadTiming* tt = thread_timing();
  if (!tt) return;
  // Never inject work into a stream that is being captured: it would become part of the graph.
  // The runtime is asked only while a capture may be active (interpose/stream_capture.hpp).
  const bool capture_possible = stream_capture_possible(rt);
  if (capture_possible) {
    tt->lend_valid = false;
    bool capturing = false;
    if (rt.stream_is_capturing(stream, &capturing) != rt.success) return;
    if (capturing) {
      ticket.captured = true;
      return;
    }
  }
  // The runtime reports the op's device times itself: nothing is injected, nothing calibrated.
  if (one_op && rt.activity_open != nullptr) {
    const uint8_t state = activity_state(rt);
    t_activity_id = 0;
    if (state == kActivityOn) {
      tt->lend_valid = false;
      ticket.by_activity = true;
      ticket.end.runtime = rt.runtime;
      ticket.owner = tt;
      if (rt.activity_push != nullptr) rt.activity_push(correlation_id);
      return;
    }
    ticket.probe = state == kActivityProbe;
  }
  // A call that enqueues several ops is bracketed by events, and where the runtime reports by
  // external correlation its ops carry prof's id too: the harvester takes their reports' span
  // when they came (Harvester::emit_span), so a busy host does not make it late.
  const bool span = !one_op && rt.activity_push != nullptr && activity_state(rt) == kActivityOn;
  const int device = t_device[static_cast<size_t>(rt.runtime)];
  if (device < 0 || device >= kMaxDevices) return;
  want_calibration(rt.runtime, device);
  const uint32_t epoch = g_epoch.load(std::memory_order_acquire);
  // One event per launch boundary: the end event of this thread's previous op serves as this
  // op's begin when nothing else can have been enqueued on the stream in between. The device
  // starts this op when the stream has passed that event or when the op is submitted, whichever
  // is later (the harvester clamps to the submit time, as it does a begin event of its own:
  // recorded just before the call, that one says no more). "Nothing in between" is known only
  // when this thread made no call since that could enqueue device work (t_enqueues) and no other
  // thread ever did (g_enqueue_threads, checked again after the call in timing_end).
  if (tt->lend_valid && !blocking && rt.every_export_hooked && !capture_possible &&
      tt->lend_stream == stream && tt->lend_enqueues == t_enqueues &&
      fits(tt->lend_end, epoch, rt.runtime, device) &&
      g_enqueue_threads.load(std::memory_order_relaxed) == 1) {
    if (!take_event(tt, rt, epoch, device, ticket.end)) return;
    ticket.begin = tt->lend_end;
    ticket.begin_borrowed = true;
    ticket.predecessor_id = tt->lend_id;
    ticket.owner = tt;
    if (span) rt.activity_push(correlation_id);
    ticket.span = span;
    return;
  }
  tt->lend_valid = false;
  if (!take_event(tt, rt, epoch, device, ticket.begin)) return;
  if (!take_event(tt, rt, epoch, device, ticket.end)) {
    give_back_own(tt, ticket.begin);
    return;
  }
  if (rt.event_record(ticket.begin.event, stream) != rt.success) {
    give_back_own(tt, ticket.begin);
    give_back_own(tt, ticket.end);
    return;
  }
  ticket.owner = tt;
  if (span) rt.activity_push(correlation_id);
  ticket.span = span;
}

namespace {

// The steps of timing_end, always inlined: it runs after every timed call, and compiles to the same
// work as one function.

// The first call after the runtime took prof's subscription was timed with events too: if the
// runtime gave its op an id, the report times it and the events go back unused.
[[gnu::always_inline]] inline void settle_probe_call(ThreadTiming* tt, const TimingAdapter& rt,
                                                     TimingTicket& ticket) noexcept {
  const bool reported = t_activity_id != 0;
  settle_probe(rt.runtime, reported);
  if (reported) {
    if (!ticket.begin_borrowed) give_back_own(tt, ticket.begin);
    give_back_own(tt, ticket.end);
    ticket.by_activity = true;
  }
}

// Whether the harvester has the op; a full ring loses its device times, counted.
[[gnu::always_inline]] inline bool push_pending(ThreadTiming* tt, RuntimeId runtime,
                                                const PendingOp& op) noexcept {
  if (!tt->pending.push(op)) {
    if (ThreadBuffer* b = ThreadBuffer::current(runtime)) b->count_timing_drop();
    return false;
  }
  if (g_harvester_asleep.load(std::memory_order_relaxed)) [[unlikely]]
    wake_harvester();
  return true;
}

// A call whose op the runtime reports itself: the op goes to the harvester to meet its report.
[[gnu::always_inline]] inline void end_reported_call(ThreadTiming* tt, const TimingAdapter& rt,
                                                     bool call_succeeded, void* stream,
                                                     uint64_t correlation_id, Activity activity,
                                                     bool blocking, uint64_t submit_ns,
                                                     uint64_t api_end_ns) noexcept {
  // A runtime that reports by external correlation: the op, if any, carries prof's id; whether
  // the call enqueued one is known only from a report (an op left without one is counted as a
  // timing drop when the harvester stops).
  if (rt.activity_push != nullptr) {
    rt.activity_pop();
    t_activity_id = correlation_id;
  }
  // No id: the call enqueued nothing the runtime reports (it failed, or had no work to do).
  if (!call_succeeded || t_activity_id == 0) return;
  PendingOp op{};
  op.end.runtime = rt.runtime;
  op.stream = stream;
  op.correlation_id = correlation_id;
  op.submit_ns = submit_ns;
  op.api_end_ns = api_end_ns;
  op.owner = tt;
  op.activity = activity;
  op.blocking = blocking;
  op.by_activity = true;
  op.runtime_id = t_activity_id;
  push_pending(tt, rt.runtime, op);
}

}  // namespace

void timing_end(TimingTicket& ticket, bool call_succeeded, void* stream, uint64_t correlation_id,
                Activity activity, bool blocking, uint64_t submit_ns,
                uint64_t api_end_ns) noexcept {
  ThreadTiming* tt = ticket.owner;
  if (!tt) return;
  const TimingAdapter& rt = adapter_of(ticket.end.runtime);
  tt->lend_valid = false;
  if (ticket.span) rt.activity_pop();
  if (ticket.probe && call_succeeded) settle_probe_call(tt, rt, ticket);
  if (ticket.by_activity) {
    end_reported_call(tt, rt, call_succeeded, stream, correlation_id, activity, blocking, submit_ns,
                      api_end_ns);
    return;
  }
  // A borrowed begin is the harvester's (the previous op's tail), never given back from here.
  // Only after success: a failed call leaves its error as the last error, untouched by prof.
  if (!call_succeeded) {
    give_back_own(tt, ticket.end);
    // The begin event is recorded but harmless; it returns to the pool once the harvester is
    // not using it, which it never is: recycle it now.
    if (!ticket.begin_borrowed) give_back_own(tt, ticket.begin);
    return;
  }
  // Another thread's first enqueue may have landed between the borrowed event and this call.
  const bool begin_lost =
      ticket.begin_borrowed && g_enqueue_threads.load(std::memory_order_relaxed) != 1;
  if (begin_lost || rt.event_record(ticket.end.event, stream) != rt.success) {
    if (begin_lost)
      if (ThreadBuffer* b = ThreadBuffer::current(rt.runtime)) b->count_timing_drop();
    give_back_own(tt, ticket.end);
    if (!ticket.begin_borrowed) give_back_own(tt, ticket.begin);
    return;
  }
  PendingOp op{ticket.begin,
               ticket.end,
               stream,
               ticket.begin_borrowed,
               ticket.predecessor_id,
               correlation_id,
               submit_ns,
               api_end_ns,
               tt,
               activity,
               blocking,
               false,
               0,
               ticket.span};
  if (!push_pending(tt, rt.runtime, op)) {
    if (!ticket.begin_borrowed) give_back_own(tt, ticket.begin);
    give_back_own(tt, ticket.end);
    return;
  }
  // Pushed: the harvester keeps this end event as its stream's tail until the thread's next op
  // on the stream is finished, so the next op may borrow it.
  tt->lend_valid = !blocking;
  tt->lend_stream = stream;
  tt->lend_end = ticket.end;
  tt->lend_id = correlation_id;
  tt->lend_enqueues = t_enqueues;
}

void activity_note_id(uint64_t runtime_id) noexcept {
  if (t_activity_id == 0) t_activity_id = runtime_id;
}

void activity_deliver(RuntimeId runtime, uint64_t runtime_id, uint64_t begin_ns,
                      uint64_t end_ns) noexcept {
  if (g_disabled.load(std::memory_order_relaxed) || runtime_id == 0) return;
  (void)g_device_times.push(DeviceTime{runtime_id, begin_ns, end_ns, runtime});
}

void note_enqueuer() noexcept {
  t_enqueuer = true;
  g_enqueue_threads.fetch_add(1, std::memory_order_relaxed);
}

void timing_before_device_reset() noexcept {
  if (!g_harvester_running.load(std::memory_order_acquire)) {
    g_epoch.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  uint32_t request = g_flush_request.fetch_add(1, std::memory_order_acq_rel) + 1;
  sem_post(&g_wake);  // now, not after a deep-idle wait
  const uint64_t deadline = now_ns() + 5'000'000'000ull;
  while (g_flush_done.load(std::memory_order_acquire) < request && now_ns() < deadline) {
    timespec pause{0, 100000};
    nanosleep(&pause, nullptr);
  }
}

void timing_after_device_reset() noexcept {
  // Events the harvester stocked between its flush and the reset died in it: a new epoch retires
  // them.
  g_epoch.fetch_add(1, std::memory_order_acq_rel);
}

void timing_shutdown() noexcept {
  if (!g_harvester_running.exchange(false, std::memory_order_acq_rel)) return;
  g_stop.store(true, std::memory_order_release);
  sem_post(&g_wake);
  pthread_join(g_harvester, nullptr);
}

// Async-signal-safe: atomics, sem_post, clock_gettime, nanosleep. The harvester does the work on
// its own thread; a harvester that cannot (the dying thread holds a lock it needs) is waited for
// kEndWaitNs at most. Two rounds: an op whose end event was recorded as the program's last
// blocking call returned may be stamped by the device a moment after the first round asked it.
void timing_harvest_before_end() noexcept {
  if (!g_harvester_running.load(std::memory_order_acquire) || getpid() != g_harvester_pid) return;
  if (pthread_equal(pthread_self(), g_harvester)) return;  // the harvester itself faulted
  constexpr uint64_t kEndWaitNs = 500'000'000;
  const uint64_t deadline = now_ns() + kEndWaitNs;
  for (int round = 0; round < 2; ++round) {
    const uint32_t request = g_end_request.fetch_add(1, std::memory_order_acq_rel) + 1;
    sem_post(&g_wake);
    while (g_end_done.load(std::memory_order_acquire) - request > UINT32_MAX / 2) {
      if (now_ns() >= deadline) return;
      timespec pause{0, 50000};
      nanosleep(&pause, nullptr);
    }
  }
}

void timing_after_fork_child() noexcept {
  // The harvester did not survive fork, and a forked child cannot use the parent's device
  // context on real hardware: the child's calls are recorded, without device timing.
  g_disabled.store(true, std::memory_order_relaxed);
  g_harvester_running.store(false, std::memory_order_relaxed);
  t_timing = nullptr;
  g_threads.store(nullptr, std::memory_order_relaxed);
}

}  // namespace prof::interpose
