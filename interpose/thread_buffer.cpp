#include "interpose/thread_buffer.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>

#include "common/clock.hpp"
#include "common/journal_codec.hpp"
#include "common/pwrite_all.hpp"
#include "interpose/capture.hpp"
#include "interpose/config.hpp"
#include "interpose/device_timing.hpp"
#include "interpose/process_files.hpp"

namespace prof::interpose {

__attribute__((tls_model("initial-exec"))) thread_local ThreadBuffer* t_buffer = nullptr;

namespace {

void ring_doorbell() noexcept;  // below, with the collector's other shared files

// Smallest ring tried when the run directory has no room for a full one (4 KiB of records:
// slow under load, since the producer waits for the collector more often, but recorded).
constexpr uint64_t kMinRingRecords = 64;
constexpr uint64_t kRingShareOfFree = 64;
// A new thread's ring starts with 256 records (16 KiB: four pages to allocate and map on its first
// call, about 12 us in this VM, where the whole 4 MiB took 3 ms) and takes its full size when
// the thread's 257th record needs it (grow()).
constexpr uint64_t kInitialRingRecords = 256;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif
// Whether the kernel populates a range on request (MADV_POPULATE_WRITE, Linux 5.14): pages are then
// allocated and mapped ahead of the writes, and a full file system is an error, not a SIGBUS.
// Without it a ring is allocated whole at creation, as it always was. -1 not yet known.
std::atomic<int> g_populate_works{-1};

// Calls and threads that could not be recorded (no ring fitted anywhere, or more threads alive
// at once than storage slots): counted in a page the collector reads (LostCounts,
// common/record.hpp), set up by map_lost_counters() when the process announces itself.
LostCounts* g_lost = nullptr;
bool g_lost_shared = false;  // g_lost is the doorbell's run-wide page: no exit time there

void count_unrecorded_thread() noexcept {
  if (g_lost) g_lost->threads.fetch_add(1, std::memory_order_relaxed);
}

__attribute__((tls_model("initial-exec"))) thread_local bool t_failed = false;
// The thread got no ring because every slot was held by a live thread (not a full directory).
__attribute__((tls_model("initial-exec"))) thread_local bool t_crowded = false;

std::atomic<uint64_t> g_next_thread_index{0};
std::atomic<ThreadBuffer*> g_all_buffers{nullptr};
pthread_key_t g_exit_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

void on_thread_exit(void* p) {
  if (p) ThreadBuffer::release_current(static_cast<ThreadBuffer*>(p));
}
void make_key() { pthread_key_create(&g_exit_key, on_thread_exit); }

// Placement storage: buffers are never freed (the collector may still be reading the mapping
// while the thread is gone), and operator new is avoided so a program with its own allocator
// is not called from inside a hook.
alignas(ThreadBuffer) unsigned char g_storage[4096][sizeof(ThreadBuffer)];
static_assert(sizeof(ThreadBuffer) % 64 == 0, "each buffer on cache lines of its own");
std::atomic<uint32_t> g_storage_used{0};

}  // namespace

// A ThreadBuffer whose thread has exited and whose ring is unmapped, taken over for the calling
// thread. It stays in g_all_buffers; closed_ stays set until its new ring is in place, so
// close_all() never touches it half-way.
ThreadBuffer* ThreadBuffer::reuse_released() noexcept {
  for (ThreadBuffer* b = g_all_buffers.load(std::memory_order_acquire); b; b = b->next_) {
    if (!b->reusable_.load(std::memory_order_relaxed) ||
        !b->reusable_.exchange(false, std::memory_order_acq_rel))
      continue;
    b->header_ = nullptr;
    b->map_bytes_ = 0;
    b->records_ = nullptr;
    b->mask_ = 0;
    b->write_ = 0;
    b->cached_read_ = 0;
    b->limit_ = 0;
    b->grow_at_ = UINT64_MAX;
    b->max_capacity_ = 0;
    b->stalled_read_ = UINT64_MAX;
    b->self_move_failed_ = false;
    b->local_count_ = 0;
    return b;
  }
  return nullptr;
}

ThreadBuffer* ThreadBuffer::create_current(RuntimeId runtime) noexcept {
  if (t_failed || !g_config.enabled) return nullptr;
  // The process's files before its first ring: the collector reads them once it finds a journal.
  announce_process();
  ThreadBuffer* buffer = reuse_released();
  const bool reused = buffer != nullptr;
  if (!reused) {
    uint32_t slot = g_storage_used.fetch_add(1, std::memory_order_relaxed);
    if (slot >= sizeof(g_storage) / sizeof(g_storage[0])) {
      t_failed = true;
      t_crowded = true;
      if (g_lost) g_lost->crowded_threads.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    buffer = new (g_storage[slot]) ThreadBuffer();
  }
  if (!buffer->open(g_next_thread_index.fetch_add(1, std::memory_order_relaxed), runtime)) {
    if (reused) buffer->reusable_.store(true, std::memory_order_release);
    t_failed = true;
    count_unrecorded_thread();
    return nullptr;
  }
  if (reused) {
    buffer->closed_.store(false, std::memory_order_release);  // after the ring is in place
  } else {
    buffer->next_ = g_all_buffers.load(std::memory_order_relaxed);
    while (!g_all_buffers.compare_exchange_weak(buffer->next_, buffer, std::memory_order_acq_rel)) {
    }
  }
  pthread_once(&g_key_once, make_key);
  pthread_setspecific(g_exit_key, buffer);
  t_buffer = buffer;
  ring_doorbell();  // a new ring for the mover to find
  timing_thread_started(runtime);
  // --duration alone: the window is open from the start; its timer starts with the first call.
  if (g_capture_timer_pending.load(std::memory_order_relaxed)) [[unlikely]]
    capture_arm();
  return buffer;
}

namespace {
// The largest ring up to `full` records whose file takes at most 1/kRingShareOfFree of the free
// space where it goes (kMinRingRecords at the least): a huge PROF_BUFFER_RECORDS never fills a
// disk, in /dev/shm or in the fallback on $TMPDIR or /tmp alike.
uint64_t affordable_in(const char* dir, uint64_t full) noexcept {
  uint64_t affordable = full;
  struct statvfs fs;
  if (statvfs(dir, &fs) == 0) {
    const uint64_t available = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    while (affordable / 2 >= kMinRingRecords &&
           buffer_file_bytes(affordable) > available / kRingShareOfFree)
      affordable /= 2;
  }
  return affordable;
}
}  // namespace

// Where a ring goes: the run directory (tmpfs, /dev/shm), at full size when it is affordable there
// (affordable_in); else the fallback run directory (on $TMPDIR or /tmp, when prof made one) if it
// affords a larger ring; else the run directory with a smaller ring, down to kMinRingRecords.
bool ThreadBuffer::open(uint64_t thread_index, RuntimeId runtime) noexcept {
  const uint64_t full = g_config.buffer_records;
  const uint64_t here = affordable_in(g_config.run_dir, full);
  if (here < full && g_config.run_dir_fallback[0] != '\0') {
    const uint64_t there = affordable_in(g_config.run_dir_fallback, full);
    if (there > here && open_in(g_config.run_dir_fallback, there, true, thread_index, runtime))
      return true;
  }
  return open_in(g_config.run_dir, here, true, thread_index, runtime);
}

bool ThreadBuffer::open_in(const char* dir, uint64_t capacity, bool shrink, uint64_t thread_index,
                           RuntimeId runtime) noexcept {
  const pid_t pid = getpid();
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  char path[640];
  // Named by the thread's index in the process, not its tid: the kernel reuses the tid of an
  // exited thread at once, while that thread's ring may still be waiting for the collector.
  snprintf(path, sizeof path, "%s/%d.%llu.%d.buf", dir, static_cast<int>(pid),
           static_cast<unsigned long long>(g_config.image_token), static_cast<int>(thread_index));
  // Private to the user, never through a symlink, never an existing file.
  int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  // The ring's pages are reserved before anything maps them: on tmpfs posix_fallocate either
  // allocates every page or fails with ENOSPC, so a full /dev/shm costs a smaller ring or an
  // unrecorded (and counted) thread, never a SIGBUS on the program's first write into an
  // unbacked page (ftruncate alone only makes a sparse file). A ring that does not fit is halved
  // down to kMinRingRecords.
  // With populate-on-request the file gets its full size (sparse) and only the first lap is
  // allocated; the ring grows into the rest (grow()).
  const bool growing = g_populate_works.load(std::memory_order_relaxed) != 0;
  uint64_t first = growing && capacity > kInitialRingRecords ? kInitialRingRecords : capacity;
  for (;;) {
    if (posix_fallocate(fd, 0, static_cast<off_t>(buffer_file_bytes(first))) == 0) break;
    // give back what the failed attempt allocated
    if (!shrink || first / 2 < kMinRingRecords || ftruncate(fd, 0) != 0) {
      ::close(fd);
      unlink(path);
      return false;
    }
    first /= 2;
    if (capacity > first) capacity = first;  // no room: a ring that never grows
  }
  const size_t bytes = buffer_file_bytes(capacity);
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    unlink(path);
    return false;
  }
  // Every page of the first lap is allocated and mapped now, instead of one page fault (several
  // microseconds in a VM) per 64 records on the hot path.
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | (growing ? 0 : MAP_POPULATE), fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    unlink(path);
    return false;
  }
  if (growing && madvise(map, buffer_file_bytes(first), MADV_POPULATE_WRITE) != 0) {
    // An older kernel: this ring and every later one are allocated whole, as before.
    const bool unsupported = errno == EINVAL;
    munmap(map, bytes);
    unlink(path);
    if (!unsupported) return false;
    g_populate_works.store(0, std::memory_order_relaxed);
    return open_in(dir, capacity, shrink, thread_index, runtime);
  }
  if (growing) g_populate_works.store(1, std::memory_order_relaxed);
  header_ = static_cast<BufferHeader*>(map);
  map_bytes_ = bytes;
  records_ = reinterpret_cast<Record*>(static_cast<unsigned char*>(map) + kBufferHeaderBytes);
  mask_ = first - 1;
  max_capacity_ = capacity;
  grow_at_ = first < capacity ? first : UINT64_MAX;
  set_limit();  // write_ and cached_read_ are 0: a new object, or one reuse_released() reset
  header_->version = kBufferVersion;
  header_->record_bytes = kRecordBytes;
  header_->capacity = first;
  header_->pid = static_cast<uint32_t>(pid);
  header_->tid = static_cast<uint32_t>(tid);
  header_->thread_index = thread_index;
  header_->created_ns = now_ns();
  header_->first_runtime = static_cast<uint32_t>(runtime);
  correlation_base_ = thread_index << kCorrelationThreadShift;
  // The magic goes last: the collector ignores a file until it is set.
  std::atomic_ref<uint64_t>(header_->magic).store(kBufferMagic, std::memory_order_release);
  return true;
}

namespace {
// Set once a probe finds the prof that owns the run dead; a dead prof does not come back, so no
// thread probes again. Before, every call past a full ring probed (an openat and a close each),
// which made a busy program 20-150x slower once prof was killed (issue 42).
std::atomic<bool> g_collector_dead{false};

// The collector's doorbell (common/record.hpp), mapped at the first ring: one per process (a
// forked child keeps its parent's mapping of the same file). Checked against the file by its
// inode each time (slow path only): a process that records into another run directory later (the
// collector's tests) rings that run's bell; a mapping it no longer uses is left mapped (another
// thread may be ringing it).
struct DoorbellMapping {
  // Written under g_doorbell_lock; read without it for a look at Doorbell::mover_resting (a bell
  // of an earlier run, in the collector's tests, only makes a producer ring once more than it needs
  // to).
  std::atomic<Doorbell*> bell{nullptr};
  dev_t device = 0;
  ino_t inode = 0;
};
DoorbellMapping g_doorbell;
std::atomic_flag g_doorbell_lock = ATOMIC_FLAG_INIT;

Doorbell* doorbell() noexcept {
  char path[sizeof g_config.run_dir + sizeof kDoorbellFile + 1];
  snprintf(path, sizeof path, "%s/%s", g_config.run_dir, kDoorbellFile);
  struct stat st {};
  if (stat(path, &st) != 0 || static_cast<size_t>(st.st_size) < kDoorbellBytes) return nullptr;
  // Another thread may be mapping it: threads that start together all ring here, and one that
  // gave up at once was found only by the mover's next periodic scan. So a few yields (the
  // mapping takes tens of us) before giving up; a bound, not a wait, since the holder may be
  // this very thread, interrupted by a signal whose handler made a call.
  for (int tries = 0; g_doorbell_lock.test_and_set(std::memory_order_acquire); ++tries) {
    if (tries == 64)
      return nullptr;  // not rung this time: the mover's periodic scan finds the ring
    sched_yield();
  }
  if (!g_doorbell.bell.load(std::memory_order_relaxed) || g_doorbell.device != st.st_dev ||
      g_doorbell.inode != st.st_ino) {
    const int fd = ::open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat opened {};
    void* map =
        fd >= 0 && fstat(fd, &opened) == 0 && static_cast<size_t>(opened.st_size) >= kDoorbellBytes
            ? mmap(nullptr, kDoorbellBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
            : MAP_FAILED;
    if (fd >= 0) ::close(fd);
    if (map != MAP_FAILED) {
      g_doorbell.device = opened.st_dev;
      g_doorbell.inode = opened.st_ino;
      g_doorbell.bell.store(static_cast<Doorbell*>(map), std::memory_order_relaxed);
    }
  }
  Doorbell* bell = g_doorbell.bell.load(std::memory_order_relaxed);
  g_doorbell_lock.clear(std::memory_order_release);
  return bell;
}

// Wakes the mover now instead of at the end of its pause. Slow path only: a new ring, or a ring
// that filled before the collector had made its journal.
void ring_doorbell() noexcept {
  if (g_collector_dead.load(std::memory_order_relaxed))
    return;  // no mover to wake (a stat each time)
  const int saved_errno = errno;
  if (Doorbell* bell = doorbell()) {
    bell->rung.fetch_add(1, std::memory_order_release);
    bell->wake_mover();
  }
  errno = saved_errno;
}

// move_own_records() encodes blocks of this many records into a buffer of this size, written
// with one pwrite each time it fills (about 80,000 typical calls; only the pages used are touched).
constexpr uint64_t kMoveBlockRecords = 2048;
constexpr size_t kMoveBufferBytes = size_t{1} << 20;
static_assert(journal_block_bound(kMoveBlockRecords) <= kMoveBufferBytes);
static_assert(journal_block_bound(kMoverSpanRecords) <= kMoveBufferBytes,
              "a collector's span fits");

// Whether the prof that owns the run has died (SIGKILL, OOM): it holds an exclusive lock on the
// run manifest (cli/recovery.hpp) for as long as it lives, and a prof --recover holds it while it
// reads the rings. No manifest (the collector run without the CLI): not known to be gone.
bool collector_gone() noexcept {
  if (g_collector_dead.load(std::memory_order_relaxed)) return true;
  char path[sizeof g_config.run_dir + 16];
  std::snprintf(path, sizeof path, "%s/run.conf", g_config.run_dir);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool gone = flock(fd, LOCK_SH | LOCK_NB) == 0;
  ::close(fd);  // drops the shared lock, if taken
  if (gone) g_collector_dead.store(true, std::memory_order_relaxed);
  return gone;
}
}  // namespace

bool ThreadBuffer::wait_for_space() noexcept {
  // The ring is full: the collector is behind. Waiting (never dropping silently) keeps every
  // record; only a reader that makes no progress for full_wait_ms costs records, and those are
  // counted. A reader that has not moved since the last wait ran out (prof gone, its database
  // failed hard) is not waited for again: one wait per stall, not one per call.
  if (cached_read_ == stalled_read_) return false;
  // prof removes the run directory when it ends: with no collector left, waiting would only
  // stall the program (slow path only: one access() per full ring).
  // A prof that was killed leaves the run directory behind: the program then stops recording
  // (every later record is counted as dropped, for prof --recover to report) and runs on at full
  // speed.
  if (access(g_config.run_dir, F_OK) != 0 || collector_gone()) {
    stalled_read_ = cached_read_;
    return false;
  }
  header_->full_waits.fetch_add(1, std::memory_order_relaxed);
  ring_doorbell();
  const uint64_t deadline = now_ns() + g_config.full_wait_ms * 1000000ull;
  const timespec pause{0, 50000};
  for (uint64_t spins = 1;; ++spins) {
    cached_read_ = header_->read_index.load(std::memory_order_acquire);
    if (write_ - cached_read_ <= mask_) return true;
    // The collector may offer the span it is moving by now (it held the lock between two steps).
    // (Not while it has no journal for the ring: the doorbell was rung when the wait began.)
    if (may_move_own_records() && header_->journal_end.load(std::memory_order_acquire) != 0 &&
        move_own_records(/*take_over=*/true) && write_ - cached_read_ <= mask_)
      return true;
    if (now_ns() > deadline || access(g_config.run_dir, F_OK) != 0 ||
        (spins % 200 == 0 && collector_gone())) {
      stalled_read_ = cached_read_;
      return false;
    }
    nanosleep(&pause, nullptr);
  }
}

// The first lap of the ring is over (write_ == capacity, nothing has wrapped): the rest of the
// ring's pages are allocated and mapped, and the capacity becomes the largest. A thread that
// got this far is a busy one, and growing in one step puts the whole cost at its 257th record
// instead of spreading stalls over its first 65,536. If the pages cannot be had (the file
// system is full), the largest size that can is taken, or the ring keeps its size for good. The
// collector reads the capacity after the write index, so it sees the new one before any record
// beyond the old lap (release/acquire through the header).
void ThreadBuffer::grow() noexcept {
  const uint64_t capacity = mask_ + 1;
  grow_at_ = UINT64_MAX;
  unsigned char* next_lap = reinterpret_cast<unsigned char*>(records_) + capacity * kRecordBytes;
  for (uint64_t bigger = max_capacity_; bigger > capacity; bigger /= 2) {
    if (madvise(next_lap, (bigger - capacity) * kRecordBytes, MADV_POPULATE_WRITE) != 0) continue;
    std::atomic_ref<uint64_t>(header_->capacity).store(bigger, std::memory_order_release);
    mask_ = bigger - 1;
    return;
  }
}

bool ThreadBuffer::may_move_own_records() const noexcept {
  return g_config.self_move && !self_move_failed_;
}

void ThreadBuffer::set_limit() noexcept {
  const uint64_t capacity = mask_ + 1;
  const uint64_t used = write_ - cached_read_;
  const bool at_half = may_move_own_records() && used < capacity / 2;
  uint64_t room = at_half ? capacity / 2 : capacity;
  if (at_half && used < capacity / 4)
    room = capacity / 4;  // a late mover is woken there (reserve_slow)
  limit_ = cached_read_ + room < grow_at_ ? cached_read_ + room : grow_at_;
}

// The collector's mover is half a ring behind: on a machine whose every CPU runs the program's
// threads it gets less CPU than moving takes (one thread among many, at batch priority), and a
// ring left to fill would make this thread wait for it. So the thread moves its records into the
// ring's journal itself, with the mover's own protocol (common/record.hpp, BufferHeader::mover):
// the move lock, whole encoded blocks at journal_end, then journal_end and read_index. With
// `take_over` (the ring is full) a span the collector is moving is taken from it
// (kMoverCollectorSpan) and written first, as the collector writes it: one block of those records
// at journal_end. Also once prof has been killed: the journal is where `prof --recover` reads, so
// the program goes on recording there at the cost it had with prof alive, and a full ring (a
// ring that has no journal yet) drops, counted, without a probe per call. Unseen by the program
// (errno kept; cancellation held off while the lock is held). False
// when it could not (the mover holds the lock, no journal yet, or writing it failed: then never
// again).
bool ThreadBuffer::move_own_records(bool take_over) noexcept {
  BufferHeader& h = *header_;
  if (h.journal_end.load(std::memory_order_acquire) == 0) {
    ring_doorbell();  // the collector has not made the journal yet: this ring is waiting for it
    return false;
  }
  uint32_t holder = kMoverNone;
  uint64_t collector_span = 0;
  if (!h.mover.compare_exchange_strong(holder, kMoverProducer, std::memory_order_acquire,
                                       std::memory_order_relaxed)) {
    if (!take_over || (holder & kMoverStateMask) != kMoverCollectorSpan ||
        !h.mover.compare_exchange_strong(holder, kMoverProducer, std::memory_order_acq_rel,
                                         std::memory_order_relaxed))
      return false;
    collector_span =
        holder >> kMoverSpanShift;  // the records at read_index it had encoded, or was encoding
  }
  const int saved_errno = errno;
  int cancel_state = 0;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  const uint64_t begin = h.read_index.load(std::memory_order_acquire);
  const uint64_t end = write_;
  const uint64_t journal_end = h.journal_end.load(std::memory_order_relaxed);
  bool moved = false;
  if (journal_end != 0 && end > begin && collector_span <= end - begin) {
    if (!move_buffer_) {
      void* map = mmap(nullptr, kMoveBufferBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      move_buffer_ = map == MAP_FAILED ? nullptr : static_cast<unsigned char*>(map);
    }
    const int fd = move_buffer_ ? ::open(h.journal_path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (fd >= 0) {
      uint64_t at = journal_end;
      bool ok = true;
      const auto record = [this](uint64_t index) -> const Record& {
        return records_[index & mask_];
      };
      if (collector_span) {
        const unsigned char* p = encode_journal_block(
            move_buffer_, collector_span,
            [&record, begin](uint64_t k) -> const Record& { return record(begin + k); });
        ok = pwrite_all(fd, move_buffer_, static_cast<size_t>(p - move_buffer_), at);
        at += static_cast<uint64_t>(p - move_buffer_);
      }
      for (uint64_t i = begin + collector_span; ok && i < end;) {
        uint64_t n = 0;
        unsigned char* p = encode_journal_blocks(
            move_buffer_, move_buffer_ + kMoveBufferBytes, end - i, kMoveBlockRecords,
            [&record, i](uint64_t k) -> const Record& { return record(i + k); }, n);
        i += n;
        ok = pwrite_all(fd, move_buffer_, static_cast<size_t>(p - move_buffer_), at);
        at += static_cast<uint64_t>(p - move_buffer_);
      }
      if (ok) {
        h.journal_end.store(at, std::memory_order_relaxed);
        h.read_index.store(end, std::memory_order_release);
        h.self_moves.store(h.self_moves.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
        moved = true;
      } else {
        (void)ftruncate(fd, static_cast<off_t>(
                                journal_end));  // whole blocks only; the mover goes on from there
      }
      ::close(fd);
    }
    if (!moved) self_move_failed_ = true;
  }
  h.mover.store(kMoverNone, std::memory_order_release);
  pthread_setcancelstate(cancel_state, nullptr);
  errno = saved_errno;
  cached_read_ = h.read_index.load(std::memory_order_acquire);
  return moved || end == begin;
}

Record* ThreadBuffer::reserve_slow() noexcept {
  if (write_ >= grow_at_) grow();
  cached_read_ = header_->read_index.load(std::memory_order_acquire);
  {
    const int saved_errno = errno;
    // Where this thread runs, for the mover to keep off (collector/mover.cpp, keep_off_busy_cpus).
    if (const int cpu = sched_getcpu(); cpu >= 0)
      header_->cpu.store(static_cast<uint32_t>(cpu) + 1, std::memory_order_relaxed);
    // A quarter of the ring waits for the mover: it is late (a wake-up queued behind a busy thread,
    // a long pause as the thread turned busy). Woken now, it comes before this thread reaches half
    // its ring and moves its records itself. Not counted in the bell: a mover awake anyway does
    // not read the run directories again for it.
    if (const uint64_t used = write_ - cached_read_;
        used >= (mask_ + 1) / 4 && used <= mask_ / 2 && may_move_own_records())
      if (Doorbell* bell = g_doorbell.bell.load(std::memory_order_relaxed)) bell->wake_mover();
    errno = saved_errno;
  }
  if (write_ - cached_read_ > mask_ / 2 && may_move_own_records()) {
    // Wakes a mover resting through a long pause: it takes the ring back 10 ms after this move
    // (collector/mover.cpp, kProducersOwnNs) instead of after its pause.
    if (Doorbell* bell = g_doorbell.bell.load(std::memory_order_relaxed);
        bell && bell->mover_resting.load(std::memory_order_relaxed))
      ring_doorbell();
    move_own_records(/*take_over=*/write_ - cached_read_ > mask_);
  }
  if (write_ - cached_read_ > mask_ && !wait_for_space()) {
    header_->dropped.fetch_add(1, std::memory_order_relaxed);
    set_limit();
    return nullptr;
  }
  set_limit();
  return &records_[write_ & mask_];
}

void ThreadBuffer::reset_after_fork() noexcept {
  // The parent's mappings stay mapped in the child but belong to the parent's collector
  // accounting; the child gets its own files on first use.
  t_buffer = nullptr;
  t_failed = false;
  t_crowded = false;
  g_all_buffers.store(nullptr, std::memory_order_relaxed);
  g_next_thread_index.store(0, std::memory_order_relaxed);
  g_lost = nullptr;  // the parent's counters; the child's are mapped when it announces itself
}

void ThreadBuffer::close_all() noexcept {
  for (ThreadBuffer* b = g_all_buffers.load(std::memory_order_acquire); b; b = b->next_)
    if (!b->closed_.exchange(true, std::memory_order_acq_rel))
      b->header_->closed.store(1, std::memory_order_release);
}

void ThreadBuffer::release_current(ThreadBuffer* buffer) noexcept {
  if (t_buffer == buffer) t_buffer = nullptr;
  if (buffer->closed_.exchange(true, std::memory_order_acq_rel)) return;  // close_all got it
  buffer->header_->closed.store(kRingReleased, std::memory_order_release);
  munmap(buffer->header_, buffer->map_bytes_);
  buffer->reusable_.store(true, std::memory_order_release);
}

void emit_string(ThreadBuffer& buffer, StringKind kind, uint64_t key, const char* text) noexcept {
  if (!text) text = "";
  const size_t length = strlen(text);
  Record* r = buffer.reserve();
  if (!r) return;
  memset(r, 0, sizeof *r);
  r->string.type = static_cast<uint8_t>(RecordType::kString);
  r->string.kind = static_cast<uint8_t>(kind);
  r->string.length = static_cast<uint32_t>(length);
  r->string.key = key;
  buffer.commit();
  for (size_t off = 0; off < length; off += sizeof(r->string_data.text)) {
    r = buffer.reserve();
    if (!r) return;
    r->string_data.type = static_cast<uint8_t>(RecordType::kStringData);
    size_t n =
        length - off < sizeof(r->string_data.text) ? length - off : sizeof(r->string_data.text);
    memcpy(r->string_data.text, text + off, n);
    buffer.commit();
  }
}

void note_process_exit(uint64_t time_ns) noexcept {
  if (g_lost && !g_lost_shared) g_lost->exit_ns.store(time_ns, std::memory_order_relaxed);
}

void count_unrecorded_call() noexcept {
  if (g_lost)
    (t_crowded ? g_lost->crowded_calls : g_lost->calls).fetch_add(1, std::memory_order_relaxed);
}

void count_nested_call() noexcept {
  if (g_lost) g_lost->nested_calls.fetch_add(1, std::memory_order_relaxed);
}

namespace {
bool map_lost_page_in(const char* dir) noexcept {
  if (dir[0] == '\0') return false;
  char path[640];
  snprintf(path, sizeof path, "%s/%d.%llu.lost", dir, static_cast<int>(getpid()),
           static_cast<unsigned long long>(g_config.image_token));
  int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  if (posix_fallocate(fd, 0, 4096) != 0) {
    ::close(fd);
    unlink(path);
    return false;
  }
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    unlink(path);
    return false;
  }
  g_lost = static_cast<LostCounts*>(map);
  return true;
}
}  // namespace

void map_lost_counters() noexcept {
  g_lost = nullptr;
  g_lost_shared = false;
  // Where there is no room for this page there is none for a ring either: every call would go
  // uncounted. The fallback directory, then the run-wide page the collector made beforehand.
  if (map_lost_page_in(g_config.run_dir) || map_lost_page_in(g_config.run_dir_fallback)) return;
  if (Doorbell* bell = doorbell()) {
    g_lost = &bell->unplaced;
    g_lost_shared = true;
  }
}

}  // namespace prof::interpose
