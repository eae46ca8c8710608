#include "collector/shared_state.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "common/clock.hpp"

namespace prof::collector {

SharedState::SharedState(CollectorOptions options) : options_(std::move(options)) {
  if (options_.journal_dir.empty()) {
    const std::string& run = options_.run_dir;
    options_.journal_dir = options_.output_dir + "/." + run.substr(run.rfind('/') + 1);
  }
  if (mkdir(options_.journal_dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error(options_.journal_dir + ": cannot create the journal directory (" +
                             std::strerror(errno) + ")");
}

void SharedState::request_stop() {
  {
    std::lock_guard lock(stop_mutex_);
    stop_.store(true, std::memory_order_release);
  }
  stop_cv_.notify_all();
}

void SharedState::pause(int ms) {
  // request_stop() ends the pause: a quiet run's builder wakes 4 times a second, not every 10 ms
  // to see whether it should stop.
  std::unique_lock lock(stop_mutex_);
  stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_requested(); });
}

void SharedState::add_error(std::string error) {
  std::lock_guard lock(error_mutex_);
  errors_.push_back(std::move(error));
}

void SharedState::add_note(std::string note) {
  std::lock_guard lock(error_mutex_);
  notes_.push_back(std::move(note));
}

std::vector<std::string> SharedState::errors() const {
  std::lock_guard lock(error_mutex_);
  return errors_;
}

std::vector<std::string> SharedState::notes() const {
  std::lock_guard lock(error_mutex_);
  return notes_;
}

// The output directory removed while the program runs (`rm -rf` of -d): made again, with the
// journal directory in it, so new journals, SQLite's rollback journals and the reports have their
// place; the journals and databases already open go on through their open files (a database is
// written back under its name when it is finished: DbWriter::finalize). Before, every call was
// lost and prof said "attempt to write a readonly database" (issue 42). One stat per cycle.
void SharedState::keep_output_dir() {
  struct stat st;
  if (::stat(options_.journal_dir.c_str(), &st) == 0) return;
  std::lock_guard lock(output_dir_mutex_);
  if (::stat(options_.journal_dir.c_str(), &st) == 0) return;
  bool made = false;
  for (size_t at = 1; at != std::string::npos;) {  // mkdir -p of the output directory
    at = options_.output_dir.find('/', at + 1);
    const std::string prefix = options_.output_dir.substr(0, at);
    if (::mkdir(prefix.c_str(), 0777) == 0) made = true;
  }
  if (::mkdir(options_.journal_dir.c_str(), 0700) != 0 && errno != EEXIST) return;
  output_dir_remade_.store(true, std::memory_order_release);
  if (made)
    add_note("the output directory " + options_.output_dir +
             " was removed while the program ran; prof made it again and wrote everything there");
}

// `wait` is false while the program runs: the idle-priority builder can hold this lock for seconds
// (Mover::publish_bounds says why the mover must not wait for it then).
bool CallBounds::publish(std::map<std::string, std::optional<uint64_t>>& pending,
                         uint64_t unseen_rings, bool wait) {
  std::unique_lock lock(mutex_, std::defer_lock);
  if (wait)
    lock.lock();
  else if (!lock.try_lock())
    return false;
  for (auto& [name, bound] : pending) {
    if (bound)
      bounds_.by_journal[name] = *bound;
    else
      bounds_.by_journal.erase(name);
  }
  pending.clear();
  bounds_.unseen_rings = unseen_rings;
  return true;
}

CallBounds::Snapshot CallBounds::snapshot() const {
  std::lock_guard lock(mutex_);
  return bounds_;
}

// The builder wakes the mover. The mover's pause is a futex wait with a timeout; the timer wakes
// it on the CPU it last ran on, and where that CPU is the program thread's and the other one runs
// the idle-priority builder, the scheduler leaves it there (seen with perf sched; likely the
// builder's load making the cache domain look busy, so that no idle CPU is looked for) and the
// batch-priority mover waits out the thread's time slice (0.5 ms here) at every cycle. A thread
// making calls flat out then reaches half its ring before the mover comes, and moves its records
// itself. Woken by the builder instead, the mover goes to the builder's CPU and runs as soon as the
// idle-priority builder can be preempted. Where no builder runs, the other CPU is idle and the
// timer's wake-up finds it.
void MoverWake::wake_if_due() {
  const uint64_t due = wake_at_ns_.load(std::memory_order_relaxed);
  if (due == UINT64_MAX || !doorbell_ || now_ns() < due) return;
  wake_at_ns_.store(UINT64_MAX, std::memory_order_relaxed);
  doorbell_->wake_mover();
}

}  // namespace prof::collector
