// The collector's builder: journals -> one SQLite database per profiled process. Its thread builds
// while the program runs (at idle priority), and finish() completes the databases after it ends.
// What it shares with the mover is in collector/shared_state.hpp.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collector/db_writer.hpp"
#include "collector/journal.hpp"
#include "collector/shared_state.hpp"

namespace prof::collector {

// <stem><ext>, or <stem>.2<ext>, <stem>.3<ext>, ...: the first name no file holds (any name when
// `replace_existing`).
std::string free_name(const std::string& stem, const std::string& ext, bool replace_existing);

struct CollectedProcess {
  int pid;
  std::string db_path;
};

class Builder {
 public:
  explicit Builder(SharedState& shared) : shared_(shared) {}
  ~Builder() { join(); }

  void start();
  // From request_stop(): the builder's idle priority has done its job (builder.cpp says why).
  void leave_idle_priority();
  void join();
  // One cycle: journals -> databases. Returns the records built.
  uint64_t build_once(bool final);
  // After the thread has ended and the mover's final cycle: every journal built to its end.
  void build_rest();
  // Completes every database. `cut_short`: processes still running, whose databases are marked
  // incomplete; `unjournaled`: records the mover could not journal, by pid (Mover::unjournaled).
  std::vector<CollectedProcess> finish(const std::vector<int>& cut_short,
                                       const std::map<int, uint64_t>& unjournaled);
  // The databases are complete: the journals have served.
  void close_journals();
  // Whether a process's database could not be created or written.
  bool output_lost() const;
  // Calls the program made that no ring took (counted per process), after finish().
  uint64_t unrecorded_calls() const { return unrecorded_calls_; }

 private:
  // A journal being built into its process's database.
  struct Source {
    JournalReader reader;
    std::string name;  // the journal's file name
    int pid = 0;
    uint64_t image = 0;
    uint64_t correlation_base = 0;
    LaunchRecord pending_launch{};
    bool has_pending_launch = false;
    uint64_t last_call_begin = 0;  // begin of the last call built
    uint64_t grew_ns = 0;          // when the builder last saw the journal grow
    bool reported_broken = false;
  };
  // The order of calls in a process (and of their sequence numbers): begin, thread, correlation.
  struct CallKey {
    uint64_t begin_ns;
    uint32_t tid;
    uint64_t correlation;
    bool operator<(const CallKey& o) const {
      return begin_ns != o.begin_ns ? begin_ns < o.begin_ns
             : tid != o.tid         ? tid < o.tid
                                    : correlation < o.correlation;
    }
  };
  struct Process {
    std::unique_ptr<DbWriter> writer;
    std::map<uint64_t, uint64_t> image_ordinals;  // image token -> ordinal (exec keeps the pid)
    std::string maps_path;
    std::string db_path;
    bool info_loaded = false;
    bool failed = false;
    // Once its database fails, a process's records are still consumed and counted here.
    uint64_t records_not_written = 0;
    uint64_t batch_records = 0;  // consumed into the open transaction: lost if it fails
  };
  // What a process could not record, summed over its <pid>.<image>.lost pages (LostCounts).
  struct LostTally {
    uint64_t calls = 0, threads = 0;                  // no ring fitted in the run directories
    uint64_t crowded_calls = 0, crowded_threads = 0;  // every ring slot held by a live thread
    uint64_t nested_calls = 0;                        // inside another traced call's hook
    uint64_t exit_ns = 0;
  };
  using SourcesByProcess = std::map<int, std::vector<Source*>>;

  void run();
  // build_once's steps (builder.cpp).
  void keep_output_files();
  void scan_journals();
  SourcesByProcess refresh_sources(bool final, uint64_t now, uint64_t& built);
  uint64_t build_horizon(int pid, const std::vector<Source*>& sources,
                         const CallBounds::Snapshot& bounds, bool final, uint64_t now) const;
  void merge_calls(Process& proc, const std::vector<Source*>& sources, uint64_t horizon, bool final,
                   uint32_t& since_wake_check);
  void pause_if_testing_faults();
  void commit_batches(bool final);
  static std::optional<CallKey> next_call(const Source& source);
  static uint64_t call_horizon(const Source& source);
  Process* process(int pid, uint32_t first_runtime);
  // Builds `source`'s records up to its next `calls` calls (and what precedes the one after);
  // returns the calls built.
  uint64_t drain(Source& source, Process& proc, uint64_t calls);
  void load_info(int pid, uint64_t image, Process& proc);
  void fail_process(Process& proc, const std::exception& e);
  void note_db_path(int pid, const std::string& path) const;

  // finish()'s steps (builder_finish.cpp).
  DropCounts drops_of(int pid, const std::vector<int>& cut_short, const LostTally& lost);
  void finish_database(int pid, Process& proc, const DropCounts& drops, uint64_t exit_ns,
                       uint64_t end_ns, std::vector<CollectedProcess>& done);
  void account_processes_without_db();
  LostTally lost_calls(int pid) const;
  // The error line for a process's unrecorded calls and threads, or "" when there are none.
  static std::string unrecorded_message(const std::string& who, const LostTally& lost);
  // lost_calls, with its calls added to unrecorded_calls_ and its line to the errors.
  LostTally account_lost(int pid);

  SharedState& shared_;
  const CollectorOptions& options_ = shared_.options();
  std::thread thread_;
  mutable std::mutex build_mutex_;  // one cycle at a time: the thread's, or finish()'s
  std::map<std::string, std::unique_ptr<Source>> sources_;  // by journal file name
  std::map<int, Process> processes_;
  uint64_t unrecorded_calls_ = 0;     // summed by finish()
  bool pause_before_commit_ = false;  // PROF_TEST_PAUSE=build (the fault suite only)
};

}  // namespace prof::collector
