// Collects a run: a mover (collector/mover.hpp) moves the records out of the run directory's rings
// (the preload library's per-thread ring files) into journals on the output file system; a builder
// (collector/builder.hpp) turns the journals into one database per profiled process while the
// program runs, and completes them after it ends (collector/journal.hpp). The Collector only owns
// the two and what they share (collector/shared_state.hpp), starts them, stops them and finishes.
// Recovery after prof was killed is the same collector over the same directories (`recovering`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "collector/builder.hpp"
#include "collector/mover.hpp"
#include "collector/shared_state.hpp"

namespace prof::collector {

class Collector {
 public:
  explicit Collector(CollectorOptions options) : shared_(std::move(options)) {}
  ~Collector();

  void start();  // background moving and building
  const std::string& journal_dir() const { return shared_.options().journal_dir; }
  // How many times the mover has read the run directories (for tests).
  uint64_t directory_reads() const { return mover_.directory_reads(); }
  // Rests of the mover ended by the doorbell (or the builder) rather than by their timeout.
  uint64_t bell_wakes() const { return mover_.bell_wakes(); }
  // Rings the mover found only at the directory read it forces every second.
  uint64_t rings_found_by_forced_read() const { return mover_.rings_found_by_forced_read(); }
  // Stops draining, drains what is left, completes every database. Returns them by pid.
  // `cut_short`: processes still running, whose databases are marked incomplete.
  std::vector<CollectedProcess> finish(const std::vector<int>& cut_short = {});
  // Errors that cost data (a database that could not be written); empty when all is well.
  std::vector<std::string> errors() const { return shared_.errors(); }
  // What the user should know that cost nothing (the output directory removed and made again).
  std::vector<std::string> notes() const { return shared_.notes(); }
  // Whether a process's database could not be created or written (some of its records are lost).
  bool output_lost() const { return !mover_.unjournaled().empty() || builder_.output_lost(); }
  // Calls the program made that no ring took (counted, per process or run-wide), after finish().
  uint64_t unrecorded_calls() const { return builder_.unrecorded_calls() + unplaced_calls_; }
  // Removes the journal directory: once the reports are written, nothing is left to recover.
  void remove_journal() const;

 private:
  // Tells the mover and the builder to stop, and wakes the builder from its pause.
  void request_stop();
  // Calls of processes that had no room even for their own count: said without a process.
  void account_unplaced();
  // The journals have served once the databases are complete: removed, and a marker says so.
  void retire_journals() const;

  // Declared first: the mover and the builder hold a reference to it.
  SharedState shared_;
  Mover mover_{shared_};
  Builder builder_{shared_};
  uint64_t unplaced_calls_ = 0;  // summed by finish()
};

}  // namespace prof::collector
