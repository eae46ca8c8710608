// The collector's mover: rings (the run directory's per-thread ring files) -> journals (the output
// file system). Its thread, the doorbell it sleeps on, the ring move lock it shares with the
// producers, and the calls' bounds it publishes for the builder (collector/shared_state.hpp).
#pragma once
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "collector/buffer_reader.hpp"
#include "collector/journal.hpp"
#include "collector/shared_state.hpp"

namespace prof::collector {

class Mover {
 public:
  explicit Mover(SharedState& shared) : shared_(shared) {}
  ~Mover();  // joins the thread, unmaps the doorbell

  // The doorbell (made before the program starts), then the mover's thread.
  void open_doorbell();
  void start();
  void join();
  // One cycle: the rings' records into their journals. Returns the records moved.
  // `final`: every ring is moved to its end (the program has exited, or prof is finishing).
  uint64_t move_once(bool final);
  // The journals are complete: closes them (the rings keep their files until prof ends).
  void close_journals();

  // How many times the mover has read the run directories (for tests).
  uint64_t directory_reads() const { return directory_reads_.load(std::memory_order_relaxed); }
  // Rests of the mover ended by the doorbell (or the builder) rather than by their timeout.
  uint64_t bell_wakes() const { return bell_wakes_.load(std::memory_order_relaxed); }
  // Rings the mover found only at the directory read it forces every second.
  uint64_t rings_found_by_forced_read() const {
    return rings_found_by_forced_read_.load(std::memory_order_relaxed);
  }
  // pid -> records the journal could not take (consumed all the same, so the producer never waits).
  std::map<int, uint64_t> unjournaled() const;
  // Calls and threads of processes that had no room even for their own count
  // (interpose/thread_buffer.cpp), summed in the doorbell; zero without one.
  struct Unplaced {
    uint64_t calls = 0, threads = 0;
  };
  Unplaced unplaced() const;

 private:
  // A ring of the run directory and the journal its records move to.
  struct Ring {
    BufferReader reader;
    std::string journal_name;  // its journal's file name (the key of the published bounds)
    std::unique_ptr<JournalWriter> journal;
    int pid = 0;
    uint64_t seen_end = 0;         // the producer's write index at the last cycle
    uint64_t seen_ns = 0;          // when the last cycle looked at it
    uint64_t seen_self_moves = 0;  // its count of self-moves at the last cycle
    uint64_t owned_since_ns = 0;   // since when the ring is left to its producer (0: it is not)
  };
  void run();
  // move_once's steps: reads the run directories when a ring may have been made since the last
  // read; moves one ring (returns the records moved; `released`: its thread has exited and every
  // record of its ring is in the journal).
  void scan_if_due(bool final);
  void scan_rings(const std::string& dir);
  bool claim_ring(Ring& ring, bool found_now = false);
  uint64_t move_ring(Ring& ring, bool final, bool& released);
  // Whether the ring is left to its producer this cycle; notes its fill for the pace and the CPUs.
  bool observe(Ring& ring, uint64_t look_ns, uint64_t begin, uint64_t end, bool final);
  // Moves records [begin, end) span by span; `journaled`: all of them are in the journal now.
  uint64_t move_spans(Ring& ring, uint64_t begin, uint64_t end, bool& journaled);
  // The ring's counters into its journal; whether its thread has exited with every record moved.
  bool update_journal(Ring& ring);
  // After each cycle: its affinity leaves out its busiest producers' CPUs.
  void keep_off_busy_cpus();
  void publish_bounds(bool final);

  SharedState& shared_;
  const CollectorOptions& options_ = shared_.options();
  std::thread thread_;
  mutable std::mutex move_mutex_;  // one cycle at a time: the thread's, or finish()'s final one
  std::map<std::string, std::unique_ptr<Ring>> rings_;  // by ring file name
  std::map<int, uint64_t> unjournaled_;                 // pid -> records the journal could not take
  bool released_last_cycle_ = false;
  // The last scan of the run directories: when it began, and the doorbell's count read before it.
  // A ring made since rang the bell (or waits for the next periodic scan).
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
  // The last cycle: records the rings gained since the cycle before, whoever moved them (a thread
  // that moves its own keeps the mover's cycles short all the same).
  uint64_t published_last_cycle_ = 0;
  // The bounds not yet published to shared_.bounds() (nullopt: the entry goes).
  std::map<std::string, std::optional<uint64_t>> pending_bounds_;
  Doorbell* doorbell_ = nullptr;  // <run dir>/doorbell, mapped (common/record.hpp)
  double fullest_ = 0;            // the last cycle: the largest share of a ring it found filled
  // and the largest share of its ring a producer filled per ms since the cycle before
  double fastest_fill_ = 0;
  // The mover keeps off the CPUs its busiest producers run on (keep_off_busy_cpus()).
  static constexpr double kBusyFillPerMs =
      0.05;  // a producer filling this share of its ring a ms is busy
  cpu_set_t
      busy_cpus_{};  // the last cycle: the CPUs of producers that filled kBusyFillPerMs or more
  cpu_set_t mover_allowed_{};  // the mover's CPUs when it started (run())
  cpu_set_t mover_cpus_{};     // and the ones it runs on now
};

}  // namespace prof::collector
