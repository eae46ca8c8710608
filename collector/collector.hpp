// Collects a run: a mover thread moves the records out of the run directory's rings (the preload
// library's per-thread ring files) into journals on the output file system; a builder thread
// turns the journals into one database per profiled process while the program runs, and finish()
// completes them after it ends (collector/journal.hpp). Recovery after prof was killed is the same
// collector over the same directories (`recovering`).
#pragma once
#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collector/buffer_reader.hpp"
#include "collector/db_writer.hpp"
#include "collector/journal.hpp"

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

// <stem><ext>, or <stem>.2<ext>, <stem>.3<ext>, ...: the first name no file holds (any name when
// `replace_existing`).
std::string free_name(const std::string& stem, const std::string& ext, bool replace_existing);

struct CollectedProcess {
  int pid;
  std::string db_path;
};

class Collector {
 public:
  explicit Collector(CollectorOptions options);
  ~Collector();

  void start();  // background moving and building
  const std::string& journal_dir() const { return options_.journal_dir; }
  // How many times the mover has read the run directories (for tests).
  uint64_t directory_reads() const { return directory_reads_.load(std::memory_order_relaxed); }
  // Rests of the mover ended by the doorbell (or the builder) rather than by their timeout.
  uint64_t bell_wakes() const { return bell_wakes_.load(std::memory_order_relaxed); }
  // Rings the mover found only at the directory read it forces every second.
  uint64_t rings_found_by_forced_read() const { return rings_found_by_forced_read_.load(std::memory_order_relaxed); }
  // Stops draining, drains what is left, completes every database. Returns them by pid.
  // `cut_short`: processes still running, whose databases are marked incomplete.
  std::vector<CollectedProcess> finish(const std::vector<int>& cut_short = {});
  // Errors that cost data (a database that could not be written); empty when all is well.
  std::vector<std::string> errors() const;
  // What the user should know that cost nothing (the output directory removed and made again).
  std::vector<std::string> notes() const;
  // Whether a process's database could not be created or written (some of its records are lost).
  bool output_lost() const;
  // Calls the program made that no ring took (counted, per process or run-wide), after finish().
  uint64_t unrecorded_calls() const { return unrecorded_calls_; }
  // Removes the journal directory: once the reports are written, nothing is left to recover.
  void remove_journal() const;

 private:
  // A ring of the run directory and the journal its records move to (the mover's side).
  struct Ring {
    BufferReader reader;
    std::string journal_name;  // its journal's file name (the key of next_call_bounds_)
    std::unique_ptr<JournalWriter> journal;
    int pid = 0;
    uint64_t seen_end = 0;          // the producer's write index at the last cycle
    uint64_t seen_ns = 0;           // when the last cycle looked at it
    uint64_t seen_self_moves = 0;   // its count of self-moves at the last cycle
    uint64_t owned_since_ns = 0;    // since when the ring is left to its producer (0: it is not)
  };
  bool claim_ring(Ring& ring, bool found_now = false);
  // A journal being built into its process's database (the builder's side).
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
      return begin_ns != o.begin_ns ? begin_ns < o.begin_ns : tid != o.tid ? tid < o.tid : correlation < o.correlation;
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

  // The mover: rings -> journals. Returns the records moved.
  // `final`: every ring is moved to its end (the program has exited, or prof is finishing).
  uint64_t move_once(bool final);
  // collector/mover.cpp: the doorbell (made before the program starts), the mover's thread.
  void open_doorbell();
  void run_mover();
  void scan_rings(const std::string& dir);
  // The builder: journals -> databases. Returns the records built.
  uint64_t build_once(bool final);
  // From the live builder, every kWakeCheckCalls calls it builds: wakes the mover if its pause
  // has run out (mover.cpp, "The builder wakes the mover").
  void wake_mover_if_due();
  static constexpr uint32_t kWakeCheckCalls = 256;
  // After each of the mover's cycles: its affinity leaves out its busiest producers' CPUs.
  void keep_off_busy_cpus();
  void publish_bounds(bool final);
  static std::optional<CallKey> next_call(const Source& source);
  static uint64_t call_horizon(const Source& source);
  void scan_journals();
  // What a process could not record, summed over its <pid>.<image>.lost pages (LostCounts).
  struct LostTally {
    uint64_t calls = 0, threads = 0;                  // no ring fitted in the run directories
    uint64_t crowded_calls = 0, crowded_threads = 0;  // every ring slot held by a live thread
    uint64_t nested_calls = 0;                        // inside another traced call's hook
    uint64_t exit_ns = 0;
  };
  LostTally lost_calls(int pid) const;
  // The error line for a process's unrecorded calls and threads, or "" when there are none.
  static std::string unrecorded_message(const std::string& who, const LostTally& lost);
  // lost_calls, with its calls added to unrecorded_calls_ and its line to the errors.
  LostTally account_lost(int pid);
  Process* process(int pid, uint32_t first_runtime);
  // Builds `source`'s records up to its next `calls` calls (and what precedes the one after);
  // returns the calls built.
  uint64_t drain(Source& source, Process& proc, uint64_t calls);
  void load_info(int pid, uint64_t image, Process& proc);
  void fail_process(Process& proc, const std::exception& e);
  void note_db_path(int pid, const std::string& path) const;
  void add_error(std::string error);
  // Makes the output and journal directories again when they were removed during the run.
  void keep_output_dir();
  // Tells the mover and the builder to stop, and wakes the builder from its pause.
  void request_stop();

  CollectorOptions options_;
  std::map<std::string, std::unique_ptr<Ring>> rings_;  // by ring file name (mover thread)
  std::map<int, uint64_t> unjournaled_;                  // pid -> records the journal could not take
  bool released_last_cycle_ = false;  // (mover thread)
  // The mover's last scan of the run directories: when it began, and the doorbell's count read
  // before it. A ring made since rang the bell (or waits for the next periodic scan).
  uint64_t last_scan_ns_ = 0;
  uint32_t scanned_bell_ = 0;
  // The last time the mover read the run directories (mover.cpp, "not read again"): when it began
  // (monotonic and real time), the directories' modification times just before, and whether it
  // left a ring for the next read (its header not complete yet, or its move lock held).
  uint64_t last_read_ns_ = 0;
  int64_t last_read_realtime_ns_ = 0;
  int64_t read_mtimes_[2] = {0, 0};
  bool ring_left_for_next_read_ = false;
  std::atomic<uint64_t> directory_reads_{0};
  std::atomic<uint64_t> bell_wakes_{0};
  std::atomic<uint64_t> rings_found_by_forced_read_{0};
  // The mover's last cycle: records the rings gained since the cycle before, whoever moved them
  // (a thread that moves its own keeps the mover's cycles short all the same).
  uint64_t published_last_cycle_ = 0;
  mutable std::mutex move_mutex_;
  // By journal file name: the earliest begin the thread's calls not yet in its journal can have,
  // as the mover last saw its ring (the begin of the call it was inside, else the time of the
  // look less kInCallMarginNs); gone once the thread has exited (its journal's header says so).
  // The builder numbers calls up to these while the program runs.
  std::map<std::string, uint64_t> next_call_bounds_;
  // The same for a thread whose ring the mover has not found yet: the start of its last scan
  // (less kInCallMarginNs), since a ring it did not find, and its calls, came after it.
  uint64_t unseen_rings_bound_ = 0;
  mutable std::mutex bounds_mutex_;
  // The mover's bounds not yet published to the two above (nullopt: the entry goes); mover only.
  std::map<std::string, std::optional<uint64_t>> pending_bounds_;
  std::map<std::string, std::unique_ptr<Source>> sources_;  // by journal file name (builder thread)
  std::map<int, Process> processes_;
  mutable std::mutex build_mutex_;
  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
  mutable std::mutex error_mutex_;
  std::mutex output_dir_mutex_;
  std::atomic<bool> output_dir_remade_{false};
  std::thread mover_, builder_;
  Doorbell* doorbell_ = nullptr;
  uint64_t unrecorded_calls_ = 0;  // summed by finish()  // <run dir>/doorbell, mapped (common/record.hpp)
  double fullest_ = 0;            // the mover's last cycle: the largest share of a ring it found filled
  // The mover keeps off the CPUs its busiest producers run on (keep_off_busy_cpus()).
  static constexpr double kBusyFillPerMs = 0.05;  // a producer filling this share of its ring a ms is busy
  cpu_set_t busy_cpus_{};     // the last cycle: the CPUs of producers that filled kBusyFillPerMs or more
  cpu_set_t mover_allowed_{}; // the mover's CPUs when it started (run_mover())
  cpu_set_t mover_cpus_{};    // and the ones it runs on now
  double fastest_fill_ = 0;       // and the largest share of its ring a producer filled per ms since the cycle before
  // When the mover's pause ends (UINT64_MAX: it is not pausing): wake_mover_if_due().
  std::atomic<uint64_t> mover_wake_at_ns_{UINT64_MAX};
  std::atomic<bool> stop_{false};
  std::mutex stop_mutex_;  // with stop_cv_: the builder's pause, ended by request_stop()
  std::condition_variable stop_cv_;
  bool pause_before_commit_ = false;  // PROF_TEST_PAUSE=build (the fault suite only)
};

}  // namespace prof::collector
