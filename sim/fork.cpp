// A process that forks while the simulated runtime runs (issue 42: a program that forked three
// children hung, with or without prof). fork() copies only the calling thread: the stream workers
// are not in the child, and any lock a worker or another thread held at that moment stays held
// there forever. So the handlers below take the runtime's locks before the fork (no other thread
// is inside them when the address space is copied) and release them on both sides; the child
// then drops the parent's queued work and gives its streams new workers on their next submit.
//
// ROCm's child cannot use the parent's device context at all (its /dev/kfd state belongs to the
// parent's address space); the simulator lets the child go on with fresh workers instead, which
// keeps a program that forks helpers, or calls HIP in a child, alive, and hangs nothing.
#include <pthread.h>

#include <new>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

// Lock order, as the threads that take these locks nest them: the truth file's flush lock,
// the scheduling lock, each stream's queue lock (submit takes it under the scheduling lock), the
// truth file's line locks (a blocking copy defers its line under the scheduling lock), the
// allocation registry (never held with another).
void before_fork() noexcept {
  lock_truth_for_fork(/*outer=*/true);
  Runtime& rt = runtime();
  rt.lock.lock();
  for (Device& d : rt.devices) {
    for (Stream* s : d.streams) s->queue_mutex.lock();
  }
  lock_truth_for_fork(/*outer=*/false);
  lock_allocations_for_fork();
}

void after_fork_in_parent() noexcept {
  unlock_allocations_after_fork();
  unlock_truth_after_fork(/*child=*/false);
  Runtime& rt = runtime();
  for (Device& d : rt.devices) {
    for (Stream* s : d.streams) s->queue_mutex.unlock();
  }
  rt.lock.unlock();
}

// The child's only thread. The parent's queued and running work stays the parent's (it runs
// there, and its truth lines are the parent's): here it counts as complete, so a synchronize in
// the child returns instead of waiting for a worker that does not exist. Condition variables and
// locks that other threads may have been waiting on or holding are made new: a waiter that
// vanished with its thread would keep glibc's condition variable waiting for it.
void after_fork_in_child() noexcept {
  unlock_allocations_after_fork();
  unlock_truth_after_fork(/*child=*/true);
  Runtime& rt = runtime();
  for (Device& d : rt.devices) {
    for (Stream* s : d.streams) {
      s->queue.clear();
      const uint64_t submitted = s->submitted.load(std::memory_order_relaxed);
      s->passed_end_ns.store(s->tail_end_ns, std::memory_order_relaxed);
      s->passed.store(submitted, std::memory_order_relaxed);
      s->completed.store(submitted, std::memory_order_relaxed);
      s->waiters.store(0, std::memory_order_relaxed);
      s->worker_asleep = false;
      s->worker_started = false;  // submit_locked starts one when work arrives
      new (&s->queue_cv) std::condition_variable;
      new (&s->done_cv) std::condition_variable;
      new (&s->done_mutex) std::mutex;
      s->queue_mutex.unlock();
    }
  }
  for (Event* e : rt.events) new (&e->mutex) std::mutex;
  rt.lock.unlock();
}

}  // namespace

void install_fork_handlers() noexcept {
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

}  // namespace prof::sim
