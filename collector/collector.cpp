#include "collector/collector.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "common/quiet_thread.hpp"

namespace prof::collector {

void Collector::request_stop() {
  shared_.request_stop();
  builder_.leave_idle_priority();
}

Collector::~Collector() {
  request_stop();
  // The builder may ring the mover's doorbell until it ends: both end before the mover unmaps it.
  mover_.join();
  builder_.join();
}

void Collector::start() {
  mover_.open_doorbell();
  // The mover is light (a memory copy per cycle) and polls often while rings are busy: batch
  // priority, so its wake-ups never preempt the program's threads (a preempted thread between a
  // copy and prof's event after it would see the copy end late).
  // The collector's threads take no asynchronous signal. One sent to prof (SIGTERM to its pid, a
  // shell's job control) must reach the main thread, which passes it on to the program and keeps it
  // blocked until it can (cli/launcher.cpp): taken by one of these threads before then, a signal
  // whose handler was not in place yet ended prof (seen in e2e:signals on a loaded machine).
  const BlockAsyncSignals block_async_signals;  // common/quiet_thread.hpp
  mover_.start();
  builder_.start();
}

std::vector<CollectedProcess> Collector::finish(const std::vector<int>& cut_short) {
  request_stop();
  mover_.join();
  builder_.join();
  mover_.move_once(/*final=*/true);
  builder_.build_rest();
  std::vector<CollectedProcess> done = builder_.finish(cut_short, mover_.unjournaled());
  account_unplaced();
  builder_.close_journals();
  mover_.close_journals();
  retire_journals();
  return done;
}

void Collector::account_unplaced() {
  // Processes that had no room even for their own count (interpose/thread_buffer.cpp): summed in
  // the doorbell, and said without a process.
  const Mover::Unplaced unplaced = mover_.unplaced();
  const CollectorOptions& options = shared_.options();
  unplaced_calls_ += unplaced.calls;
  if (unplaced.calls || unplaced.threads)
    shared_.add_error(
        std::to_string(unplaced.calls) + " calls on " + std::to_string(unplaced.threads) +
        " threads not recorded: no room for rings in " + options.run_dir +
        (options.fallback_run_dir.empty() ? "" : " or " + options.fallback_run_dir) +
        " (both full or not writable; free space there, or set TMPDIR to a file system with room)");
}

// The databases are complete: the journals have served. A marker says so, for a recovery of a
// prof killed while it wrote the reports (the <pid>.dbpath notes stay until remove_journal()).
void Collector::retire_journals() const {
  const std::string& journal_dir = shared_.options().journal_dir;
  if (DIR* dir = opendir(journal_dir.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".jrnl") == 0)
        unlink((journal_dir + "/" + name).c_str());
    }
    closedir(dir);
  }
  if (std::FILE* f = std::fopen((journal_dir + "/built").c_str(), "w")) std::fclose(f);
}

void Collector::remove_journal() const {
  const std::string& journal_dir = shared_.options().journal_dir;
  if (DIR* dir = opendir(journal_dir.c_str())) {
    while (dirent* entry = readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0)
        unlink((journal_dir + "/" + entry->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(journal_dir.c_str());
}

}  // namespace prof::collector
