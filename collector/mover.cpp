// The collector's mover: rings (the run directory) -> journals (the output directory). Its
// thread, the doorbell it sleeps on, and the ring move lock it shares with the producers
// (docs/design-collector.md, "Journal, database, recovery").
#include "collector/mover.hpp"

#include <dirent.h>
#include <cerrno>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <spdlog/spdlog.h>

#include "collector/process_info.hpp"
#include "collector/run_files.hpp"
#include "common/clock.hpp"
#include "common/journal_codec.hpp"

namespace prof::collector {

namespace {
// A thread seen between calls may have begun one just before the mover looked, its "starting"
// store not yet visible (the hook stores it before reading its clock: a thread descheduled
// there is seen as starting): its next call is taken to begin no earlier than this long before
// the look. The same margin for rings the last scan did not find. A call that still comes
// earlier is numbered by finalize()'s renumbering pass instead (slower, as correct).
constexpr uint64_t kInCallMarginNs = 10'000'000;
// The mover appends a ring's records kMoverSpanRecords at a time (one block, about 25 KB of a
// busy thread's calls), taking the ring's move lock for each span (common/record.hpp,
// BufferHeader::mover).
static_assert(kMoverSpanRecords <= kJournalBlockRecords, "a span is one block");

enum class SpanMove { kMoved, kTakenOver };

// Of records [from, to), how many lie before the ring wraps (the rest start at slot 0).
uint64_t before_wrap(const BufferReader& reader, uint64_t from, uint64_t to) {
  return std::min(to - from, reader.capacity() - (from & (reader.capacity() - 1)));
}

// Out of every cache once moved. The producer writes the same slots again a lap later (4 MiB
// later, a few ms at full speed); the lines this thread read stayed in its caches, and the
// producer's write then had to take each one back from them. A thread making calls flat out was
// 10-35% slower in about one run of six, where a ring that holds the whole run (no slot written
// twice) was in one of fifty. Flushed, a line comes from memory, as a fresh one does: 345 runs
// alternated with the build before, 29 such slow runs against 55 (docs/performance.md, "Methods
// kept").
#if defined(__x86_64__)
__attribute__((target("clflushopt"))) void flush_lines(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t k = 0; k < bytes; k += 64) __builtin_ia32_clflushopt(c + k);
}
const bool kHaveClflushopt = [] {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23)) != 0;
}();
#endif
// Records [from, to) of the ring, after the mover has moved them and let go of the ring's lock
// (the producer takes a span over only while it is offered: a flush inside the lock, unoffered,
// made a thread wait on a full ring once in 10 s). A slot the producer is already writing again
// (a ring nearly full) is only fetched back: a flush never loses a write.
void flush_moved(const BufferReader& reader, uint64_t from, uint64_t to) {
#if defined(__x86_64__)
  if (!kHaveClflushopt || to <= from) return;
  const uint64_t first = before_wrap(reader, from, to);
  flush_lines(&reader.record(from), first * sizeof(Record));
  flush_lines(&reader.record(from + first), (to - from - first) * sizeof(Record));
#else
  (void)reader, (void)from, (void)to;
#endif
}

// Moves records [from, to) of a ring whose move lock the collector holds (kMoverCollector) into
// its journal at `shared_end`, the journal's end the ring's producer also appends at (0: the
// producer does not move records; the journal's own end then). While the producer may move, the
// span is offered to it (kMoverCollectorSpan): on a machine whose CPUs the program's threads hold,
// the mover can be taken off the CPU anywhere, also here, and a thread whose ring fills meanwhile
// writes the span itself instead of waiting. kTakenOver: it did, and holds the lock now.
// Otherwise the lock is the collector's again (kMoverCollector) and the span is released.
SpanMove move_span(BufferHeader& h, BufferReader& reader, JournalWriter& journal, uint64_t from,
                   uint64_t to, uint64_t shared_end) {
  const uint64_t first = before_wrap(reader, from, to);
  const uint32_t offered =
      kMoverCollectorSpan | static_cast<uint32_t>((to - from) << kMoverSpanShift);
  if (shared_end) h.mover.store(offered, std::memory_order_release);
  const auto take_back = [&] {
    uint32_t expected = offered;
    return !shared_end ||
           h.mover.compare_exchange_strong(expected, kMoverCollector, std::memory_order_acq_rel);
  };
  uint64_t new_end = 0;
  try {
    journal.encode(&reader.record(from), first, &reader.record(from + first), to - from - first);
    // The bytes are the span's only if its slots were not reused while they were read: a producer
    // reuses them only after taking the span over (seqlock-style: the reads, a fence, the check).
    std::atomic_thread_fence(std::memory_order_acquire);
    if (shared_end && h.mover.load(std::memory_order_relaxed) != offered)
      return SpanMove::kTakenOver;
    // Taken over while writing, the producer writes the same bytes here: a failed write is cut
    // only once the span is the collector's again.
    new_end = journal.write_encoded_at(shared_end ? shared_end : journal.end_offset(), !shared_end);
  } catch (...) {
    if (!take_back()) return SpanMove::kTakenOver;  // the producer has the span now
    if (shared_end) journal.cut_at(shared_end);
    throw;
  }
  if (!take_back()) return SpanMove::kTakenOver;  // it wrote the same bytes and says they are moved
  if (shared_end) h.journal_end.store(new_end, std::memory_order_relaxed);
  reader.release(to);
  return SpanMove::kMoved;
}

// A ring whose producer moved its own records is left to it (see move_once) for this long from
// the move the mover first saw. 10 ms: on a crowded machine the thread moves again within it and
// keeps the ring; where one late cycle (a wake-up queued 3-4 ms behind the program's thread on
// its CPU) made a lone thread move, the mover takes the ring back within 10 ms. With 1 s, a
// thread making calls flat out moved two thirds of its records itself, at 55 ns a call instead
// of 49 (docs/performance.md, "Methods kept").
constexpr uint64_t kProducersOwnNs = 10'000'000;
// The run directories are read at least this often, whatever the doorbell says: a producer gives
// up ringing it when another thread of its process holds it long (mapping it, or interrupted by a
// signal); such a thread fills its 65,536 records in 3 ms or more, and its ring needs a journal
// before that, or it waits (one wait in 10 s of 8 threads with 20 ms here, before producers
// yielded to the mapping thread instead of giving up at once).
constexpr uint64_t kRescanNs = 2'000'000;
// A run directory whose modification time has not moved since a read is not read again: a ring
// file made since would have moved it. The time is the kernel's coarse clock (a tick of up to 10
// ms), so a read counts only once the directory's time is this far behind the read's start (a
// file made in the same tick as the last change before it leaves the time as it was); and every
// directory is read at least every kReadAtLeastNs whatever its time says. (Read on every idle
// cycle, the 240 files a Python launched through pyenv leaves there doubled prof's CPU while the
// program slept: 16.8 against 8.2 ms a second, docs/bench-data/performance-history.md section 9.)
constexpr int64_t kDirTimeSettledNs = 50'000'000;
constexpr uint64_t kReadAtLeastNs = 1'000'000'000;

int64_t realtime_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// The directory's modification time in ns; INT64_MIN if it cannot be read.
int64_t dir_mtime_ns(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return INT64_MIN;
  return int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
}
}  // namespace

Mover::~Mover() {
  join();
  if (doorbell_) munmap(doorbell_, kDoorbellBytes);
}

void Mover::open_doorbell() {
  // Made by start() before the mover starts. A producer that finds no doorbell file never rings
  // it, and the mover then sees new rings within its pause, as it would without one.
  const std::string bell = options_.run_dir + "/" + kDoorbellFile;
  const int fd = ::open(bell.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    if (posix_fallocate(fd, 0, kDoorbellBytes) == 0) {
      void* map = mmap(nullptr, kDoorbellBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) doorbell_ = static_cast<Doorbell*>(map);
    }
    ::close(fd);
  }
  shared_.mover_wake().set_doorbell(doorbell_);
}

void Mover::start() {
  thread_ = std::thread([this] { run(); });
}

void Mover::join() {
  if (thread_.joinable()) thread_.join();
}

std::map<int, uint64_t> Mover::unjournaled() const {
  std::lock_guard lock(move_mutex_);
  return unjournaled_;
}

Mover::Unplaced Mover::unplaced() const {
  Unplaced counts;
  if (doorbell_) {
    counts.calls = doorbell_->unplaced.calls.load(std::memory_order_acquire);
    counts.threads = doorbell_->unplaced.threads.load(std::memory_order_acquire);
  }
  return counts;
}

void Mover::close_journals() {
  std::lock_guard lock(move_mutex_);
  for (auto& [name, ring] : rings_) ring->journal.reset();
}

// The mover keeps off the CPUs of the threads that fill their rings fastest. Its pause is a
// timed wait; the timer wakes it on the CPU it slept on, and when that is the CPU of a thread
// making calls flat out, the batch-priority mover waits out the thread's time slice there at every
// cycle (0.5-1.5 ms late, seen with perf sched): the thread reaches half its ring first and moves
// its records itself, for the rest of the run (1 M calls: 30 moves of its own, 5 ns a call more).
// The scheduler does not move it away: with the idle-priority builder busy on the other CPU the
// cache domain looks busy and no idle CPU is looked for. So the mover's CPUs are those it was
// given minus the ones such threads last ran on (BufferHeader::cpu), and all of them when that
// leaves none (threads on every CPU).
void Mover::keep_off_busy_cpus() {
  if (CPU_COUNT(&mover_allowed_) < 2) return;
  cpu_set_t wanted;
  CPU_AND(&wanted, &mover_allowed_, &busy_cpus_);
  CPU_XOR(&wanted, &mover_allowed_, &wanted);  // the allowed CPUs no busy producer ran on
  if (CPU_COUNT(&wanted) == 0) wanted = mover_allowed_;
  if (CPU_EQUAL(&wanted, &mover_cpus_)) return;
  if (sched_setaffinity(0, sizeof wanted, &wanted) == 0) mover_cpus_ = wanted;
}

void Mover::run() {
  sched_param batch{};
  sched_setscheduler(0, SCHED_BATCH, &batch);
  if (sched_getaffinity(0, sizeof mover_allowed_, &mover_allowed_) != 0) CPU_ZERO(&mover_allowed_);
  mover_cpus_ = mover_allowed_;
  // Busy rings are moved every millisecond (a thread making calls flat out fills a 65536-record
  // ring in about 5 ms); quiet ones back off to drain_interval_ms (250 ms), so an idle run costs
  // next to nothing: each wake-up of this VM's threads costs about 100 us of CPU, and at 20 ms the
  // wake-ups alone were 5 ms of CPU a second. A ring that turns busy meanwhile rings the doorbell
  // (Doorbell::mover_resting).
  auto pause = std::chrono::microseconds(1000);
  const auto longest = std::chrono::microseconds(int64_t{1000} * options_.drain_interval_ms);
  uint64_t cycles = 0, moved_total = 0;
  while (!shared_.stop_requested()) {
    ++cycles;
    const size_t rings_before = rings_.size();
    // Read before the cycle: a ring made during it rings a bell this wait does not sleep through.
    const uint32_t rung = doorbell_ ? doorbell_->rung.load(std::memory_order_acquire) : 0;
    const uint64_t moved = move_once(/*final=*/false);
    moved_total += moved;
    keep_off_busy_cpus();
    // Threads coming and going (rings opened or released) count as busy too: a released ring
    // is 4 MiB of /dev/shm until the mover unlinks it.
    // Busy by what the threads published, not by what this cycle moved: a thread that moved its own
    // records left this cycle little to move, and a mover that then backed off made the thread
    // move its records for as long as it ran (at 1 thread 55 ns a call instead of 49).
    const bool busy = moved >= kBusyRecords || published_last_cycle_ >= kBusyRecords ||
                      rings_.size() != rings_before || released_last_cycle_;
    // A ring found an eighth full (a thread making millions of calls a second), or a new one
    // (which may be): the next cycle comes sooner, so that on a machine with a CPU to spare the
    // mover stays ahead of the thread instead of the thread reaching half its ring and moving
    // its records itself.
    const bool new_rings = rings_.size() > rings_before;
    // Within those bounds, the pause is the time the fastest-filling ring takes to fill an eighth
    // at its last cycle's rate: a mover that went by the fill it found alone swung between 200 us
    // and 1 ms (an eighth found, then not) and came too late after the long pauses.
    auto busy_pause = std::chrono::microseconds(fullest_ >= 0.125 || new_rings ? 200 : 1000);
    if (fastest_fill_ > 0)
      busy_pause =
          std::clamp(std::chrono::microseconds(static_cast<int64_t>(125.0 / fastest_fill_)),
                     std::chrono::microseconds(200), busy_pause);
    pause = busy ? busy_pause : std::min(pause * 2, longest);
    if (doorbell_) {
      const int64_t ns = std::chrono::nanoseconds(pause).count();
      const timespec wait{static_cast<time_t>(ns / 1'000'000'000),
                          static_cast<long>(ns % 1'000'000'000)};
      doorbell_->mover_resting.store(pause > std::chrono::microseconds(1000) ? 1 : 0,
                                     std::memory_order_relaxed);
      shared_.mover_wake().resting_until(now_ns() + static_cast<uint64_t>(ns));
      const long woke = syscall(SYS_futex, reinterpret_cast<uint32_t*>(&doorbell_->rung),
                                FUTEX_WAIT, rung, &wait, nullptr, 0);
      // 0: woken (the bell, or the builder when the pause was due); EAGAIN: rung before the wait.
      if (woke == 0 || errno == EAGAIN) bell_wakes_.fetch_add(1, std::memory_order_relaxed);
      shared_.mover_wake().resting_until(UINT64_MAX);
      doorbell_->mover_resting.store(0, std::memory_order_relaxed);
    } else {
      std::this_thread::sleep_for(pause);
    }
  }
  // What moving cost the mover while the program ran (the threads' own moves are their self_moves).
  timespec cpu{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  spdlog::debug("mover: {} cycles, {} records moved, {:.1f} ms of CPU", cycles, moved_total,
                static_cast<double>(cpu.tv_sec) * 1e3 + static_cast<double>(cpu.tv_nsec) / 1e6);
}

void Mover::scan_rings(const std::string& run_dir) {
  DIR* dir = opendir(run_dir.c_str());
  if (!dir) return;
  while (dirent* entry = readdir(dir)) {
    const std::string_view entry_name = entry->d_name;
    if (!entry_name.ends_with(".buf")) continue;  // a process's other files (.info, .maps, ...)
    std::string name(entry_name);
    if (rings_.count(name)) continue;
    int pid = 0, tid = 0;
    uint64_t image = 0;
    if (!parse_name(name, "buf", pid, image, &tid)) continue;
    auto ring = std::make_unique<Ring>();
    if (!ring->reader.open(run_dir + "/" + name)) {  // header not complete yet
      ring_left_for_next_read_ = true;
      continue;
    }
    ring->pid = pid;
    ring->journal_name = name.substr(0, name.size() - 3) + "jrnl";
    // Recovery: the program may still run, its threads moving their own records into the journal
    // the killed prof made; the journal is taken up between two of their moves.
    if (!claim_ring(*ring, /*found_now=*/true)) {  // next scan
      ring_left_for_next_read_ = true;
      continue;
    }
    BufferHeader& shared = ring->reader.shared_header();
    const std::string journal_path = options_.journal_dir + "/" + ring->journal_name;
    try {
      ring->reader.sync();
      shared_.keep_output_dir();  // a new journal needs its directory, even if someone removed it
      ring->journal = std::make_unique<JournalWriter>(journal_path, ring->reader.header(),
                                                      ring->reader.begin());
      // Recovery: records the killed prof wrote but had not released yet are in the journal
      // already.
      const uint64_t have = ring->journal->next_index();
      if (have > ring->reader.begin()) ring->reader.release(std::min(have, ring->reader.end()));
      // From now on the producer may move its own records too (unless the path does not fit).
      if (journal_path.size() < sizeof shared.journal_path) {
        std::memcpy(shared.journal_path, journal_path.c_str(), journal_path.size() + 1);
        shared.journal_end.store(ring->journal->end_offset(), std::memory_order_release);
      } else {
        shared.journal_end.store(0, std::memory_order_release);
      }
    } catch (const std::exception& e) {
      shared_.add_error(e.what());
      ring->journal.reset();
      shared.journal_end.store(0, std::memory_order_release);
    }
    shared.mover.store(kMoverNone, std::memory_order_release);
    rings_.emplace(name, std::move(ring));
  }
  closedir(dir);
}

// Takes the ring's move lock for the collector: free, or held by a producer that can no longer
// free it (its thread has exited, or its process has died, perhaps half-way through a block: what
// follows the journal's end is cut off), or (`found_now`) by a killed prof's collector.
bool Mover::claim_ring(Ring& ring, bool found_now) {
  BufferHeader& h = ring.reader.shared_header();
  uint32_t holder = kMoverNone;
  if (h.mover.compare_exchange_strong(holder, kMoverCollector, std::memory_order_acquire))
    return true;
  // A ring this collector has just found, held by a collector: the prof before it, killed while
  // moving (recovery). Whole blocks it wrote are counted when the journal is reopened.
  if (found_now && (holder == kMoverCollector || (holder & kMoverStateMask) == kMoverCollectorSpan))
    return h.mover.compare_exchange_strong(holder, kMoverCollector, std::memory_order_acquire);
  if (holder != kMoverProducer) return false;
  if (h.closed.load(std::memory_order_acquire) != kRingReleased && process_alive(ring.pid))
    return false;
  if (!h.mover.compare_exchange_strong(holder, kMoverCollector, std::memory_order_acquire))
    return false;
  if (const uint64_t end = h.journal_end.load(std::memory_order_relaxed); end && ring.journal) {
    try {
      ring.journal->cut_at(end);
    } catch (...) {
      h.mover.store(kMoverNone, std::memory_order_release);
      throw;
    }
  }
  return true;
}

uint64_t Mover::move_once(bool final) {
  std::lock_guard lock(move_mutex_);
  released_last_cycle_ = false;
  published_last_cycle_ = 0;
  scan_if_due(final);
  uint64_t moved = 0;
  fullest_ = 0;
  fastest_fill_ = 0;
  CPU_ZERO(&busy_cpus_);
  for (auto it = rings_.begin(); it != rings_.end();) {
    bool released = false;
    moved += move_ring(*it->second, final, released);
    if (released) {
      unlink(it->second->reader.path().c_str());
      it = rings_.erase(it);
      released_last_cycle_ = true;
    } else {
      ++it;
    }
  }
  publish_bounds(final);
  return moved;
}

void Mover::scan_if_due(bool final) {
  // A ring this scan does not find was made after it began, and so was every call of its thread.
  // The directories are read only when a ring may have been made since the last scan: a producer
  // rings the doorbell after it makes its ring, so the bell's count, read before the scan, moves.
  // (Reading them every cycle was a sixth of the mover's time at 8 threads: opendir, getdents,
  // close per directory, up to 2000 times a second.) A producer that could not ring it (another
  // thread of its process held the bell's lock through 64 yields) is found by the scan every
  // kRescanNs, which reads a directory only if its modification time says it has changed.
  const uint64_t scan_ns = now_ns();
  const uint32_t bell = doorbell_ ? doorbell_->rung.load(std::memory_order_acquire) : 0;
  if (final || !doorbell_ || last_scan_ns_ == 0 || bell != scanned_bell_ ||
      scan_ns - last_scan_ns_ >= kRescanNs) {
    // Unread only when neither directory has changed since a read that began well after its
    // last change: then every ring there is one this collector has found.
    const bool rang = bell != scanned_bell_;
    scanned_bell_ = bell;
    last_scan_ns_ = scan_ns;
    const std::string* dirs[2] = {&options_.run_dir, options_.fallback_run_dir.empty()
                                                         ? nullptr
                                                         : &options_.fallback_run_dir};
    const int64_t read_start = realtime_ns();
    int64_t mtimes[2] = {INT64_MIN, INT64_MIN};
    bool unchanged = !final && !rang && !ring_left_for_next_read_ && last_read_ns_ != 0 &&
                     scan_ns - last_read_ns_ < kReadAtLeastNs;
    for (int d = 0; d < 2; ++d) {
      if (!dirs[d]) continue;
      mtimes[d] = dir_mtime_ns(*dirs[d]);  // before the read: a change during it is seen next time
      unchanged = unchanged && mtimes[d] != INT64_MIN && mtimes[d] == read_mtimes_[d] &&
                  mtimes[d] <= last_read_realtime_ns_ - kDirTimeSettledNs;
    }
    if (!unchanged) {
      // Read only because a second passed since the last read (nothing said the directory changed).
      bool forced = !final && !rang && !ring_left_for_next_read_ && last_read_ns_ != 0;
      for (int d = 0; d < 2; ++d)
        forced = forced && (!dirs[d] || (mtimes[d] != INT64_MIN && mtimes[d] == read_mtimes_[d] &&
                                         mtimes[d] <= last_read_realtime_ns_ - kDirTimeSettledNs));
      const size_t rings_before_read = rings_.size();
      ring_left_for_next_read_ = false;
      directory_reads_.fetch_add(1, std::memory_order_relaxed);
      last_read_ns_ = scan_ns;
      last_read_realtime_ns_ = read_start;
      for (int d = 0; d < 2; ++d) {
        read_mtimes_[d] = mtimes[d];
        if (dirs[d]) scan_rings(*dirs[d]);
      }
      if (forced && rings_.size() > rings_before_read)
        rings_found_by_forced_read_.fetch_add(rings_.size() - rings_before_read,
                                              std::memory_order_relaxed);
    }
  }
}

uint64_t Mover::move_ring(Ring& ring, bool final, bool& released) {
  BufferReader& reader = ring.reader;
  BufferHeader& h = reader.shared_header();
  // Before the records: a call the thread leaves after this look is in them (its record is
  // published before the store that says it left).
  const uint64_t look_ns = now_ns();
  const uint64_t in_call = h.in_call_since.load(std::memory_order_acquire);
  reader.sync();  // what the producer moved itself
  const uint64_t begin = reader.begin(), end = reader.end();
  bool journaled = true;  // every record published before the look is in the journal now
  const bool producers_own = observe(ring, look_ns, begin, end, final);
  uint64_t moved = 0;
  if (producers_own && end > begin)
    journaled = false;
  else if (end > begin)
    moved = move_spans(ring, begin, end, journaled);
  released = update_journal(ring);
  // An exited thread's entry goes (its journal says it has exited): the map follows the
  // threads alive, not every thread ever made.
  // (A ring without a journal brings the builder nothing: no bound.)
  // (A bound not renewed stays true: a call not in the journal now was not in it then.)
  if (released || !ring.journal)
    pending_bounds_[ring.journal_name] = std::nullopt;
  else if (journaled)
    pending_bounds_[ring.journal_name] =
        in_call ? in_call : look_ns - std::min(look_ns, kInCallMarginNs);
  return moved;
}

bool Mover::observe(Ring& ring, uint64_t look_ns, uint64_t begin, uint64_t end, bool final) {
  BufferReader& reader = ring.reader;
  BufferHeader& h = reader.shared_header();
  // A thread that moved its own records (it got half a ring ahead of the mover: on a machine
  // whose CPUs the program's threads hold, the mover gets less CPU than moving takes) keeps its
  // ring for kProducersOwnNs, and for another period each time it moves again after the mover
  // took the ring back: the mover, held off the CPU, does not compete with it for the lock. The
  // mover then takes the ring back for a cycle at least; one that has a CPU to spare keeps ahead
  // of the thread from there. A thread that exits gives its ring back at once.
  const uint64_t self_moves = h.self_moves.load(std::memory_order_relaxed);
  if (self_moves != ring.seen_self_moves) {
    ring.seen_self_moves = self_moves;
    if (ring.owned_since_ns == 0) ring.owned_since_ns = look_ns;
  }
  published_last_cycle_ += end - ring.seen_end;
  const bool producers_own = !final && ring.owned_since_ns != 0 &&
                             look_ns - ring.owned_since_ns < kProducersOwnNs &&
                             h.closed.load(std::memory_order_acquire) == 0;
  if (!producers_own) ring.owned_since_ns = 0;
  {
    const double capacity = static_cast<double>(reader.capacity());
    const double fill = ring.seen_ns != 0 && look_ns > ring.seen_ns
                            ? static_cast<double>(end - ring.seen_end) / capacity * 1e6 /
                                  static_cast<double>(look_ns - ring.seen_ns)
                            : 0;
    if (!producers_own) {
      fullest_ = std::max(fullest_, static_cast<double>(end - begin) / capacity);
      fastest_fill_ = std::max(fastest_fill_, fill);
    }
    if (const uint32_t cpu = h.cpu.load(std::memory_order_relaxed);
        fill >= kBusyFillPerMs && cpu != 0 && cpu <= CPU_SETSIZE)
      CPU_SET(cpu - 1, &busy_cpus_);
  }
  ring.seen_ns = look_ns;
  ring.seen_end = end;
  return producers_own;
}

uint64_t Mover::move_spans(Ring& ring, uint64_t begin, uint64_t end, bool& journaled) {
  BufferReader& reader = ring.reader;
  BufferHeader& h = reader.shared_header();
  uint64_t moved = 0;
  bool claimed = false;
  try {
    if (!ring.journal) throw std::runtime_error("");
    // A span at a time, each under the move lock on its own (and offered to the producer).
    for (uint64_t from = begin; from < end;) {
      const uint64_t to = std::min(end, from + kMoverSpanRecords);
      claimed = claim_ring(ring);
      if (!claimed || h.read_index.load(std::memory_order_acquire) != from) {
        journaled = false;  // the producer is moving them, or has: the next cycle takes the rest
        break;
      }
      if (move_span(h, reader, *ring.journal, from, to,
                    h.journal_end.load(std::memory_order_relaxed)) == SpanMove::kTakenOver) {
        claimed = false;  // the producer holds the lock and moves the span and what follows
        journaled = false;
        break;
      }
      moved += to - from;
      h.mover.store(kMoverNone, std::memory_order_release);
      flush_moved(reader, from, to);
      claimed = false;
      from = to;
    }
  } catch (const std::exception& e) {
    // A producer must never wait on a reader that stopped reading: consumed all the same, counted.
    if (ring.journal && *e.what()) shared_.add_error(e.what());
    ring.journal.reset();
    h.journal_end.store(0, std::memory_order_relaxed);  // nor move into a journal that failed
    reader.sync();
    if (end > reader.begin()) {
      unjournaled_[ring.pid] += end - reader.begin();
      moved += end - reader.begin();
      reader.release(end);
    }
  }
  if (claimed) h.mover.store(kMoverNone, std::memory_order_release);
  return moved;
}

bool Mover::update_journal(Ring& ring) {
  BufferReader& reader = ring.reader;
  BufferHeader& h = reader.shared_header();
  // A ring whose thread exited (the producer unmapped it: no record can follow) and whose
  // records are all in the journal is released: unmapped here and its file unlinked, so memory
  // and run-directory space follow the threads alive, not the threads ever created. Its
  // counters stay in the journal's header.
  const bool released =
      h.closed.load(std::memory_order_acquire) == kRingReleased && reader.begin() == reader.end();
  if (ring.journal) {
    try {
      ring.journal->update_counters(h);
    } catch (const std::exception&) {
    }
  }
  if (released && ring.journal) {
    try {
      ring.journal->mark_thread_exited();  // the builder's sign that this thread holds nothing
    } catch (const std::exception&) {
    }
  }
  return released;
}

// The cycle's bounds go to the builder together with the unseen rings' bound (only now are the
// bounds of every ring this scan found in place). The builder runs at idle priority and copies the
// map under the bounds' lock (CallBounds): preempted there beside busy processes, it held the lock
// for seconds, and a mover that waited on it left new threads without a journal, their rings full.
// So while the program runs the mover does not wait: it keeps the cycle's bounds and offers them
// again next cycle (a bound not renewed stays true, so a late one only builds less, never wrongly).
void Mover::publish_bounds(bool final) {
  shared_.bounds().publish(
      pending_bounds_, last_scan_ns_ - std::min(last_scan_ns_, kInCallMarginNs), /*wait=*/final);
}

}  // namespace prof::collector
