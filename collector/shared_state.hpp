// What the collector's mover (collector/mover.hpp) and builder (collector/builder.hpp) share, and
// nothing else: the options, the stop request, the errors and notes, the output directory both
// keep, the calls' bounds the mover publishes for the builder, and the mover's wake-up the builder
// rings. Each piece says which thread writes it and which lock guards it.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/record.hpp"

namespace prof::collector {

struct CollectorOptions {
  std::string run_dir;
  std::string fallback_run_dir;  // rings that did not fit in run_dir (may be empty)
  std::string output_dir;
  std::string prof_version;
  int drain_interval_ms = 250;  // the mover's longest pause, reached when its rings are quiet
  // meta run_id of every database: the processes of one prof invocation (or one MPI job) share it.
  std::string run_id;
  // Non-empty with capture control (--trace-start off, --delay, --duration): said in meta
  // capture_control, and the processes' windows go to capture_windows.
  std::string capture_control;
  // false: a database name taken by an earlier run (same pid: a container, a pid namespace) gets a
  // free one, <rt>-prof-<pid>.2.db, .3, ...; true (prof --force): an earlier prof db is replaced.
  bool replace_existing = false;
  // Where the journals go; empty: <output_dir>/.<run directory's name>.
  std::string journal_dir;
  // prof --recover: the rings and journals of a prof that was killed. Databases it had begun are
  // rebuilt from the journals, at the same paths.
  bool recovering = false;
  int build_interval_ms = 250;
};

// The mover's bounds on the calls not yet in the journals; the builder numbers calls up to them
// while the program runs (mover.cpp, publish_bounds; builder.cpp, build_horizon).
class CallBounds {
 public:
  struct Snapshot {
    // By journal file name: the earliest begin the thread's calls not yet in its journal can have,
    // as the mover last saw its ring (the begin of the call it was inside, else the time of the
    // look less the mover's in-call margin); gone once the thread has exited (its journal's header
    // says so).
    std::map<std::string, uint64_t> by_journal;
    // The same for a thread whose ring the mover has not found yet: the start of its last scan
    // (less the margin), since a ring it did not find, and its calls, came after it.
    uint64_t unseen_rings = 0;
  };
  // The mover: `pending` (nullopt: the entry goes) and the unseen rings' bound, applied and
  // `pending` cleared. `wait` false: when the builder holds the lock, nothing is applied and false
  // is returned (`pending` is offered again next cycle).
  bool publish(std::map<std::string, std::optional<uint64_t>>& pending, uint64_t unseen_rings,
               bool wait);
  // The builder: a copy, taken before it reads the journals.
  Snapshot snapshot() const;

 private:
  mutable std::mutex mutex_;
  Snapshot bounds_;
};

// The builder wakes the mover whose pause has run out (shared_state.cpp, wake_if_due, says why).
class MoverWake {
 public:
  // The mover, before either thread starts (nullptr: no doorbell, no waking).
  void set_doorbell(Doorbell* doorbell) { doorbell_ = doorbell; }
  // The mover: its pause ends at `ns` (UINT64_MAX: it is not pausing).
  void resting_until(uint64_t ns) { wake_at_ns_.store(ns, std::memory_order_relaxed); }
  // The builder, every kWakeCheckCalls calls it builds and after each commit.
  void wake_if_due();
  static constexpr uint32_t kWakeCheckCalls = 256;

 private:
  Doorbell* doorbell_ = nullptr;
  std::atomic<uint64_t> wake_at_ns_{UINT64_MAX};
};

class SharedState {
 public:
  explicit SharedState(CollectorOptions options);

  const CollectorOptions& options() const { return options_; }

  // Set by the owner when the program has exited (or prof is ending); both threads end their loop.
  void request_stop();
  bool stop_requested() const { return stop_.load(std::memory_order_acquire); }
  // Runs `step` under the stop lock unless stop is requested: a step that request_stop() must
  // either see done or never see (the builder's move to idle priority).
  template <class Step>
  void unless_stopped(Step step) {
    std::lock_guard lock(stop_mutex_);
    if (!stop_requested()) step();
  }
  // The builder's pause: `ms`, or until request_stop().
  void pause(int ms);

  void add_error(std::string error);
  void add_note(std::string note);
  std::vector<std::string> errors() const;
  std::vector<std::string> notes() const;

  // Makes the output and journal directories again when they were removed during the run.
  void keep_output_dir();
  bool output_dir_remade() const { return output_dir_remade_.load(std::memory_order_acquire); }

  CallBounds& bounds() { return bounds_; }
  MoverWake& mover_wake() { return mover_wake_; }

 private:
  CollectorOptions options_;
  std::atomic<bool> stop_{false};
  std::mutex stop_mutex_;  // with stop_cv_: the builder's pause, ended by request_stop()
  std::condition_variable stop_cv_;
  mutable std::mutex error_mutex_;
  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
  std::mutex output_dir_mutex_;
  std::atomic<bool> output_dir_remade_{false};
  CallBounds bounds_;
  MoverWake mover_wake_;
};

}  // namespace prof::collector
