// The one interface between the preload library (producer) and the collector (consumer):
// a per-thread file, mmap'd by both, holding a header page and a ring of fixed-size records.
//
// Ordering: the producer fills a record, then publishes it with a release store of write_index;
// the collector reads write_index with acquire, consumes records up to it, then releases
// read_index. A record is never read before it is complete, and never overwritten before the
// collector has released it. Records that were published before the process died stay in the
// file (MAP_SHARED), so a killed program loses nothing it had returned from.
#pragma once
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace prof {

inline constexpr uint64_t kBufferMagic = 0x3146554250524f50ull;  // "PROFBUF1"
inline constexpr uint32_t kBufferVersion = 2;
inline constexpr size_t kRecordBytes = 64;
inline constexpr size_t kBufferHeaderBytes = 4096;

enum class RecordType : uint8_t {
  kApi = 1,         // ApiRecord: one intercepted call
  kLaunch = 2,      // LaunchRecord: geometry of the launch whose ApiRecord follows it
  kActivity = 3,    // ActivityRecord: device begin/end of a kernel, copy or memset
  kString = 4,      // StringRecord header; `length` bytes of text follow in the next records
  kStringData = 5,  // raw text continuation (64 bytes each, last one padded)
  kArgs = 6,        // ArgsRecord: named integer arguments of the call whose ApiRecord follows it
  kMarker = 7,      // MarkerRecord: a roctx/mstx mark or range end point; its text continues in
                    // kStringData records
};

// What a MarkerRecord is: one end of a range, or a mark (an instant).
enum class MarkerKind : uint8_t { kMark = 1, kPush = 2, kPop = 3, kStart = 4, kStop = 5 };
// A marker's message is copied on the application's thread, so it is bounded: at most this many
// bytes (longer ones are cut; the collector drops a UTF-8 sequence the cut split).
inline constexpr uint32_t kMarkerMessageMaxBytes = 256;
inline constexpr uint32_t kMarkerInlineBytes = 24;

enum class StringKind : uint8_t {
  // key = host function address (__hipRegisterFunction, __musaRegisterFunction), text = mangled
  // name
  kKernelSymbol = 1,
  kModuleFunction =
      2,  // key = module function (hipModuleGetFunction) or graph exec handle, text = name
  kModulePath = 3,  // key = 0, text = path of a loaded module (hipModuleLoad)
};

enum class Activity : uint8_t { kNone = 0, kKernel = 1, kCopy = 2, kMemset = 3 };

enum class CopyDirection : uint8_t {
  kHostToHost = 0,
  kHostToDevice = 1,
  kDeviceToHost = 2,
  kDeviceToDevice = 3,
  kDefault = 4,  // hipMemcpyDefault, musaMemcpyDefault: the runtime infers it from the pointers
  kPeer = 5,
  kMemset = 6,
  kUnknown = 7,
};

inline constexpr uint8_t kFlagDeviceTiming = 1;  // events were recorded around this call
inline constexpr uint8_t kFlagNested = 2;        // reserved: call made by the runtime itself
inline constexpr uint8_t kFlagCaptured =
    4;  // enqueued into a stream capture: a graph node, not run

// Correlation ids are unique per process without an atomic read-modify-write on the hot path:
// the thread's index (assigned once per thread) in the high bits, a thread-local count below.
inline constexpr int kCorrelationThreadShift = 40;

struct ApiRecord {
  uint8_t type;  // RecordType::kApi
  uint8_t flags;
  uint16_t api_id;
  int32_t result;  // the call's return value (0 for void functions)
  uint64_t correlation_id;
  uint64_t begin_ns;  // host clock (prof::now_ns) at entry
  uint64_t end_ns;    // host clock at return
  uint64_t stream;    // stream handle the call acted on (0 = default stream)
  uint64_t bytes;
  uint64_t aux;     // per-API value, see the `aux` column of the runtime's table
                    // (runtimes/<rt>/<rt>_api.def)
  uint64_t device;  // the calling thread's current device
};

struct LaunchRecord {
  uint8_t type;  // RecordType::kLaunch
  uint8_t reserved0;
  uint16_t api_id;
  uint32_t shared_mem_bytes;
  uint64_t correlation_id;
  uint64_t function;  // host function address, module function handle or graph exec handle
  uint32_t grid[3];
  uint32_t block[3];
  uint64_t reserved1[2];
};

struct ActivityRecord {
  uint8_t type;      // RecordType::kActivity
  uint8_t activity;  // Activity
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t correlation_id;   // of the API call that enqueued the work
  uint64_t device_begin_ns;  // on the host clock (converted from the device's events)
  uint64_t device_end_ns;
  uint64_t reserved2[4];
};

// Up to six integer arguments of one call, named by its runtime's description (arg_names): MPI's
// peer, tag and communicator size. Written just before the call's ApiRecord, as LaunchRecord is.
struct ArgsRecord {
  uint8_t type;   // RecordType::kArgs
  uint8_t count;  // values used
  uint16_t api_id;
  uint32_t reserved0;
  uint64_t correlation_id;
  int64_t values[6];
};

// A marker call (roctxMarkA, roctxRangePushA, ...): its kind, time and value, and the first
// kMarkerInlineBytes of its message; the rest (up to kMarkerMessageMaxBytes) follows in
// ceil((length - kMarkerInlineBytes) / 63) kStringData records.
struct MarkerRecord {
  uint8_t type;      // RecordType::kMarker
  uint8_t kind;      // MarkerKind
  uint16_t api_id;   // the marker call's row (roctx, mstx)
  uint32_t length;   // bytes of message in all
  uint64_t time_ns;  // host clock: entry of a mark/push/start, return of a pop/stop
  int64_t value;  // push: the level returned; pop: the level popped (<0 none); start: the range id;
                  // stop: the id
  uint64_t stream;  // mstx's stream argument (0 for roctx)
  uint64_t reserved0;
  char text[kMarkerInlineBytes];
};

struct StringRecord {
  uint8_t type;  // RecordType::kString
  uint8_t kind;  // StringKind
  uint16_t reserved0;
  uint32_t length;  // bytes of text in the following kStringData records
  uint64_t key;
  uint64_t reserved1[6];
};

struct StringDataRecord {
  uint8_t type;  // RecordType::kStringData
  char text[63];
};

union Record {
  uint8_t type;
  ApiRecord api;
  LaunchRecord launch;
  ActivityRecord activity;
  ArgsRecord args;
  MarkerRecord marker;
  StringRecord string;
  StringDataRecord string_data;
  unsigned char raw[kRecordBytes];
};
static_assert(sizeof(ApiRecord) == kRecordBytes);
static_assert(sizeof(LaunchRecord) == kRecordBytes);
static_assert(sizeof(ActivityRecord) == kRecordBytes);
static_assert(sizeof(StringRecord) == kRecordBytes);
static_assert(sizeof(ArgsRecord) == kRecordBytes);
static_assert(sizeof(MarkerRecord) == kRecordBytes);
static_assert(sizeof(StringDataRecord) == kRecordBytes);
static_assert(sizeof(Record) == kRecordBytes);

// The first page of every buffer file. The producer and the consumer each own one cache line
// of counters, so neither writes a line the other is polling.
struct alignas(64) BufferHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t record_bytes;
  uint64_t capacity;  // records in the ring; a power of two
  uint32_t pid;
  uint32_t tid;
  uint64_t thread_index;
  uint64_t created_ns;
  uint32_t first_runtime;  // RuntimeId of the call that created the buffer: names the process's db
  alignas(64) std::atomic<uint64_t> write_index;  // producer: records published so far
  std::atomic<uint64_t> dropped;         // producer: records it had to drop (ring full, no reader)
  std::atomic<uint64_t> full_waits;      // producer: times it waited for the reader
  std::atomic<uint64_t> timing_dropped;  // producer: device timings it could not request
  std::atomic<uint32_t>
      closed;  // producer: 1 process exiting, kRingReleased thread exited and unmapped its ring
  // producer: the begin time of the recorded call the thread is inside, 0 between calls, 1 while a
  // call starts (its begin not read yet). Its next call record can begin no earlier: the builder
  // numbers other threads' calls up to it.
  std::atomic<uint64_t> in_call_since;
  std::atomic<uint64_t> self_moves;  // producer: times it moved its own records into the journal
  // producer: 1 + the CPU it ran on when it last took its slow path (about every quarter ring of a
  // busy thread); 0 when not known. The mover keeps off the CPUs of its busiest producers.
  std::atomic<uint32_t> cpu;
  alignas(64) std::atomic<uint64_t> read_index;  // consumer: records consumed so far
  // Moving the ring into its journal. The collector's mover does it, and so does the producer
  // when the mover has fallen half a ring behind (interpose/thread_buffer.cpp, move_own_records):
  // on a machine whose every CPU is busy with the program's threads, the mover's share of the CPU
  // is less than moving takes, and a thread that moves its own records never waits for it.
  // Whoever holds `mover` (kMoverNone when free) appends whole blocks at `journal_end`, then
  // advances it and read_index, then frees `mover`.
  std::atomic<uint32_t> mover;
  // The journal's length in bytes: where the next block goes. 0 until the collector has made the
  // journal (and again if writing it failed): only the collector moves the ring then.
  std::atomic<uint64_t> journal_end;
  char journal_path[2048];  // written by the collector before it first sets journal_end
};
static_assert(sizeof(BufferHeader) <= kBufferHeaderBytes);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// BufferHeader::closed when the producer has unmapped the ring for good (its thread exited):
// once drained, the collector unmaps it and unlinks the file.
inline constexpr uint32_t kRingReleased = 2;

// What a process could not record: calls and threads that got no ring, and when it exited
// normally (0: not, or killed). Its own page, <pid>.<image>.lost in the run directory (or, when
// that is full, its fallback), or else Doorbell::unplaced.
struct LostCounts {
  std::atomic<uint64_t> calls;
  std::atomic<uint64_t> threads;
  std::atomic<uint64_t> exit_ns;
  // Traced calls made while another traced call of the same thread was in its hook: a signal
  // handler's (the ring is mid-write there, so the call passes through), or a runtime's own call
  // of an exported function. Not recorded, but counted (issue 42: 15-18 per run were missing).
  std::atomic<uint64_t> nested_calls;
  // Threads that found every one of the process's 4,096 ring slots held by a live thread, and
  // the calls they made (not in `calls`/`threads`, whose reason is a full run directory).
  std::atomic<uint64_t> crowded_threads;
  std::atomic<uint64_t> crowded_calls;
};

// A page of the run directory, made by the collector (<run dir>/doorbell), mapped by the collector
// and every recorded process.
struct Doorbell {
  // A futex the mover sleeps on between cycles. A producer rings it (adds one, wakes the mover)
  // when it makes a ring, and when its ring fills while the mover has not made the ring's journal
  // yet: a busy new thread fills its 65,536 records in about 5 ms, an idle mover sleeps up to 250
  // ms.
  std::atomic<uint32_t> rung;
  // Wakes the mover from its wait on `rung` without adding to it (a bell adds one first).
  void wake_mover() noexcept {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&rung), FUTEX_WAKE, 1, nullptr, nullptr, 0);
  }
  // 1 while the mover sleeps a backed-off pause (longer than a busy one): a producer that starts
  // moving its own records (half its ring filled) then rings too, so a thread that turns busy after
  // a quiet spell has its ring back with the mover after one move of its own, not one long pause.
  std::atomic<uint32_t> mover_resting;
  // The counts of every process that found no room for its own .lost page in the run directory or
  // its fallback (both full): summed here, in the page the collector made before the program
  // started, so that such calls are counted too, not silently missing (exit_ns unused).
  LostCounts unplaced;
};
inline constexpr char kDoorbellFile[] = "doorbell";
inline constexpr size_t kDoorbellBytes = 4096;
static_assert(sizeof(Doorbell) <= kDoorbellBytes);

// BufferHeader::mover: who is moving the ring's records into its journal.
inline constexpr uint32_t kMoverNone = 0;
inline constexpr uint32_t kMoverCollector = 1;
inline constexpr uint32_t kMoverProducer = 2;
// The collector is moving the ring's oldest `value >> kMoverSpanShift` records (a span: one
// journal block at journal_end) and may be taken over: a producer whose ring is full CASes this
// value to kMoverProducer and writes that span itself, the same bytes at the same place, then its
// own records after it. The collector writes its span only if it still holds this value once it
// has encoded it (so its bytes come from records not yet reused), takes the lock back as
// kMoverCollector before it says the span is moved, and stops if either was taken from it. A
// mover descheduled while it holds the lock then never makes a thread wait
// (docs/design-collector.md).
inline constexpr uint32_t kMoverCollectorSpan = 3;
inline constexpr uint32_t kMoverStateMask = 0xFF;
inline constexpr int kMoverSpanShift = 8;
// The collector's span, at most: one journal block (both sides encode it with
// encode_journal_block, so they write the same bytes).
inline constexpr uint64_t kMoverSpanRecords = 8192;

// Capture control (--trace-start off, --delay, --duration): every switch of recording on or off, in
// a page of the run directory each process maps at start-up (<pid>.<image>.capture), read by the
// collector when the process is done. A switch claims an entry with one fetch_add and fills it:
// no ring, so a switch made before the process has a ring (a --delay timer) needs none, and no
// I/O on the application's thread. Entries past kCaptureLogEntries are counted, not kept.
enum class CaptureCause : uint8_t { kProfilerApi = 1, kDelay = 2, kDuration = 3 };
struct CaptureSwitch {
  uint64_t time_ns;  // host clock
  uint8_t on;        // 1: recording from here on; 0: not
  uint8_t cause;     // CaptureCause
  uint16_t api_id;  // the call that switched (hipProfilerStart, roctxProfilerPause, ...); 0 for the
                    // timer
  uint32_t written;  // 1 once the entry is complete (stored with release through atomic_ref)
};
inline constexpr uint32_t kCaptureLogEntries = 1023;
struct CaptureLog {
  std::atomic<uint32_t>
      claimed;  // entries claimed (may exceed kCaptureLogEntries: the excess is lost)
  uint32_t reserved[3];
  CaptureSwitch entries[kCaptureLogEntries];
};
static_assert(sizeof(CaptureSwitch) == 16);

inline size_t buffer_file_bytes(uint64_t capacity) {
  return kBufferHeaderBytes + capacity * kRecordBytes;
}

}  // namespace prof
