#include "collector/collector.hpp"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/quiet_thread.hpp"
#include "runtimes/runtimes.hpp"
#include "collector/process_info.hpp"
#include "collector/run_files.hpp"

namespace prof::collector {

namespace {
// A thread whose journal grew within this long may still bring calls: the builder waits for it
// (a journal whose ring the mover does not watch, as in recovery of a run whose rings are gone).
constexpr uint64_t kActiveThreadNs = 1'000'000'000;
}  // namespace

// <stem><ext>, or the first of <stem>.2<ext>, <stem>.3<ext>, ... that no file (or symlink) holds:
// no run replaces an earlier run's database unless asked to.
std::string free_name(const std::string& stem, const std::string& ext, bool replace_existing) {
  struct stat st;
  std::string path = stem + ext;
  if (replace_existing) return path;
  for (int n = 2; lstat(path.c_str(), &st) == 0; ++n) path = stem + "." + std::to_string(n) + ext;
  return path;
}

bool parse_name(const std::string& name, const char* suffix, int& pid, uint64_t& image, int* tid) {
  unsigned long long token = 0;
  int p = 0, t = 0, consumed = 0;
  std::string format = tid ? std::string("%d.%llu.%d.") + suffix + "%n" : std::string("%d.%llu.") + suffix + "%n";
  int fields = tid ? sscanf(name.c_str(), format.c_str(), &p, &token, &t, &consumed)
                   : sscanf(name.c_str(), format.c_str(), &p, &token, &consumed);
  if (fields != (tid ? 3 : 2) || consumed != static_cast<int>(name.size())) return false;
  pid = p;
  image = token;
  if (tid) *tid = t;
  return true;
}

namespace {

// Drops the bytes of a UTF-8 sequence that `text` ends in the middle of.
void trim_partial_utf8(std::string& text) {
  size_t lead = text.size();
  int back = 0;
  while (lead > 0 && back < 4 && (static_cast<unsigned char>(text[lead - 1]) & 0xC0) == 0x80) {
    --lead;
    ++back;
  }
  if (lead == 0) return;
  const unsigned char c = static_cast<unsigned char>(text[lead - 1]);
  const int need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (need > back) text.resize(lead - 1);
}

// Every switch of capture control the process logged (<pid>.<image>.capture of each image).
std::vector<CaptureSwitch> read_capture_switches(const std::string& run_dir, int pid) {
  std::vector<CaptureSwitch> switches;
  DIR* dir = opendir(run_dir.c_str());
  if (!dir) return switches;
  while (dirent* entry = readdir(dir)) {
    int p = 0;
    uint64_t image = 0;
    if (!parse_name(entry->d_name, "capture", p, image, nullptr) || p != pid) continue;
    std::ifstream in(run_dir + "/" + entry->d_name, std::ios::binary);
    std::vector<char> bytes(sizeof(CaptureLog));
    if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) continue;
    uint32_t claimed = 0;
    std::memcpy(&claimed, bytes.data(), sizeof claimed);
    const size_t offset = offsetof(CaptureLog, entries);
    for (uint32_t k = 0; k < std::min(claimed, kCaptureLogEntries); ++k) {
      const char* at = bytes.data() + offset + k * sizeof(CaptureSwitch);
      CaptureSwitch s;
      std::memcpy(&s.time_ns, at, sizeof s.time_ns);
      s.on = static_cast<uint8_t>(at[8]);
      s.cause = static_cast<uint8_t>(at[9]);
      std::memcpy(&s.api_id, at + 10, sizeof s.api_id);
      uint32_t written = 0;
      std::memcpy(&written, at + 12, sizeof written);
      if (written == 1) switches.push_back(s);
    }
  }
  closedir(dir);
  return switches;
}

}  // namespace

Collector::Collector(CollectorOptions options) : options_(std::move(options)) {
  if (options_.journal_dir.empty()) {
    const std::string& run = options_.run_dir;
    options_.journal_dir = options_.output_dir + "/." + run.substr(run.rfind('/') + 1);
  }
  if (mkdir(options_.journal_dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error(options_.journal_dir + ": cannot create the journal directory (" +
                             std::strerror(errno) + ")");
}

// The output directory removed while the program runs (`rm -rf` of -d): made again, with the
// journal directory in it, so new journals, SQLite's rollback journals and the reports have their
// place; the journals and databases already open go on through their open files (a database is
// written back under its name when it is finished: DbWriter::finalize). Before, every call was
// lost and prof said "attempt to write a readonly database" (issue 42). One stat per cycle.
void Collector::keep_output_dir() {
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
  if (made) {
    std::lock_guard notes(error_mutex_);
    notes_.push_back("the output directory " + options_.output_dir +
                     " was removed while the program ran; prof made it again and wrote everything there");
  }
}

std::vector<std::string> Collector::notes() const {
  std::lock_guard lock(error_mutex_);
  return notes_;
}

void Collector::request_stop() {
  {
    std::lock_guard lock(stop_mutex_);
    stop_.store(true, std::memory_order_release);
  }
  stop_cv_.notify_all();
  // The program has exited (or prof is ending): the builder's idle priority has done its job. A
  // builder still in a cycle holds build_mutex_, and finish() waits for it: at idle priority beside
  // busy processes it ran about 0.1% of a CPU, and a cycle of a second's work took minutes
  // (e2e:rings beside 4 busy loops: 9 s to 250 s for the same run).
  if (builder_.joinable()) {
    sched_param normal{};
    pthread_setschedparam(builder_.native_handle(), SCHED_OTHER, &normal);
  }
}

Collector::~Collector() {
  request_stop();
  if (mover_.joinable()) mover_.join();
  if (builder_.joinable()) builder_.join();
  if (doorbell_) munmap(doorbell_, kDoorbellBytes);
}

void Collector::start() {
  open_doorbell();
  // The mover is light (a memory copy per cycle) and polls often while rings are busy: batch
  // priority, so its wake-ups never preempt the program's threads (a preempted thread between a
  // copy and prof's event after it would see the copy end late).
  // The collector's threads take no asynchronous signal. One sent to prof (SIGTERM to its pid, a
  // shell's job control) must reach the main thread, which passes it on to the program and keeps it
  // blocked until it can (cli/launcher.cpp): taken by one of these threads before then, a signal
  // whose handler was not in place yet ended prof (seen in e2e:signals on a loaded machine).
  const BlockAsyncSignals block_async_signals;  // common/quiet_thread.hpp
  mover_ = std::thread([this] { run_mover(); });
  builder_ = std::thread([this] {
    // The database is built on CPU the program leaves idle: it never competes with the program's
    // threads (a backlog is finished after the program exits, at full speed).
    // (Not once stop is requested: request_stop() has given it normal priority, or is about to.)
    {
      std::lock_guard lock(stop_mutex_);
      sched_param idle{};
      if (!stop_.load(std::memory_order_acquire)) sched_setscheduler(0, SCHED_IDLE, &idle);
    }
    // While journals grow it builds every 10 ms, without a pause when it has a backlog (every
    // record built before the program exits is one the finish does not wait for); a quiet run
    // backs off to build_interval_ms.
    int pause_ms = 10;
    while (!stop_.load(std::memory_order_acquire)) {
      const uint64_t built = build_once(/*final=*/false);
      if (built >= kBusyRecords) continue;
      pause_ms = built > 0 ? 10 : std::min(pause_ms * 2, std::max(options_.build_interval_ms, 10));
      // finish() ends the pause (request_stop): a quiet run's builder wakes 4 times a second, not
      // every 10 ms to see whether it should stop.
      std::unique_lock lock(stop_mutex_);
      stop_cv_.wait_for(lock, std::chrono::milliseconds(pause_ms),
                        [this] { return stop_.load(std::memory_order_acquire); });
    }
  });
}

std::vector<std::string> Collector::errors() const {
  std::lock_guard lock(error_mutex_);
  return errors_;
}

void Collector::add_error(std::string error) {
  std::lock_guard lock(error_mutex_);
  errors_.push_back(std::move(error));
}

bool Collector::output_lost() const {
  {
    std::lock_guard lock(move_mutex_);
    if (!unjournaled_.empty()) return true;
  }
  std::lock_guard lock(build_mutex_);
  for (const auto& [pid, proc] : processes_)
    if (proc.failed) return true;
  return false;
}

// <journal dir>/<pid>.dbpath: which database a process's journals build, so that recovery rebuilds
// the same file.
void Collector::note_db_path(int pid, const std::string& path) const {
  const std::string note = options_.journal_dir + "/" + std::to_string(pid) + ".dbpath";
  const std::string temp = note + ".tmp";
  if (std::FILE* f = std::fopen(temp.c_str(), "w")) {
    std::fputs(path.c_str(), f);
    if (std::fclose(f) == 0) std::rename(temp.c_str(), note.c_str());
  }
}

// <runtime>-prof-<pid>.db, named after the runtime of the call that created the buffer seen
// first; finish() renames it prof-<pid>.db if the process called more than one runtime.
Collector::Process* Collector::process(int pid, uint32_t first_runtime) {
  Process& proc = processes_[pid];
  if (proc.writer || proc.failed) return &proc;
  const RuntimeDescription* runtime = find_runtime(first_runtime);
  if (!runtime) runtime = kRuntimeDescriptions[0];  // a newer preload library's runtime: never expected
  proc.db_path.clear();
  if (options_.recovering) {
    // The database the killed prof had begun: rebuilt from the whole journal, at the same path.
    if (std::FILE* f = std::fopen((options_.journal_dir + "/" + std::to_string(pid) + ".dbpath").c_str(), "r")) {
      char path[4096] = {};
      if (std::fgets(path, sizeof path, f)) proc.db_path = path;
      std::fclose(f);
    }
    if (!proc.db_path.empty()) {
      unlink(proc.db_path.c_str());
      unlink((proc.db_path + "-journal").c_str());
    }
  }
  if (proc.db_path.empty())
    proc.db_path = free_name(options_.output_dir + "/" + std::string(runtime->name) + "-prof-" + std::to_string(pid),
                             ".db", options_.replace_existing);
  try {
    note_db_path(pid, proc.db_path);
    proc.writer = std::make_unique<DbWriter>(proc.db_path, pid, options_.prof_version, runtime->id);
    if (!options_.run_id.empty()) proc.writer->set_meta("run_id", options_.run_id);
  } catch (const std::exception& e) {
    proc.failed = true;
    add_error(e.what());
  }
  return &proc;
}

void Collector::fail_process(Process& proc, const std::exception& e) {
  add_error(e.what());
  proc.writer->abandon();
  proc.writer.reset();
  proc.failed = true;
  // A commit that failed half-way (disk full) can leave a hot journal even after the rollback;
  // the next connection replays it, so the file is a plain valid database for any reader.
  try {
    Database replay(proc.db_path, Database::Mode::kReadWrite);
    replay.table_exists("meta");
  } catch (const DbError&) {
  }
  proc.records_not_written += proc.batch_records;
  proc.batch_records = 0;
}

void Collector::load_info(int pid, uint64_t image, Process& proc) {
  std::string base = options_.run_dir + "/" + std::to_string(pid) + "." + std::to_string(image);
  proc.maps_path = base + ".maps";
  if (proc.info_loaded) return;
  if (auto info = read_process_info(base + ".info")) {
    proc.writer->set_process_info(*info);
    proc.info_loaded = true;
  }
}

Collector::LostTally Collector::lost_calls(int pid) const {
  LostTally lost;
  // A process whose run directory was full made its page in the fallback (interpose/thread_buffer.cpp).
  for (const std::string* base : {&options_.run_dir, &options_.fallback_run_dir}) {
    DIR* dir = base->empty() ? nullptr : opendir(base->c_str());
    if (!dir) continue;
    while (dirent* entry = readdir(dir)) {
      int p = 0;
      uint64_t image = 0;
      if (!parse_name(entry->d_name, "lost", p, image, nullptr) || p != pid) continue;
      uint64_t counts[6] = {};  // LostCounts, common/record.hpp
      static_assert(sizeof counts == sizeof(LostCounts));
      std::ifstream in(*base + "/" + entry->d_name, std::ios::binary);
      if (in.read(reinterpret_cast<char*>(counts), sizeof counts)) {
        lost.calls += counts[0];
        lost.threads += counts[1];
        lost.exit_ns = std::max(lost.exit_ns, counts[2]);
        lost.nested_calls += counts[3];
        lost.crowded_threads += counts[4];
        lost.crowded_calls += counts[5];
      }
    }
    closedir(dir);
  }
  return lost;
}

std::string Collector::unrecorded_message(const std::string& who, const LostTally& lost) {
  std::string line;
  if (lost.calls || lost.threads)
    line = who + std::to_string(lost.calls) + " calls on " + std::to_string(lost.threads) +
           " threads not recorded (no room for their rings in the run directory)";
  if (lost.crowded_calls || lost.crowded_threads)
    line += (line.empty() ? who : "; ") + std::to_string(lost.crowded_calls) + " calls on " +
            std::to_string(lost.crowded_threads) +
            " threads not recorded: more than 4096 of its threads were alive at once, and prof records at most "
            "4096 threads of a process at a time";
  return line;
}

Collector::LostTally Collector::account_lost(int pid) {
  const LostTally lost = lost_calls(pid);
  unrecorded_calls_ += lost.calls + lost.crowded_calls;
  if (std::string line = unrecorded_message("process " + std::to_string(pid) + ": ", lost); !line.empty())
    add_error(line);
  return lost;
}

// ---- The builder: journals -> databases ----

void Collector::scan_journals() {
  DIR* dir = opendir(options_.journal_dir.c_str());
  if (!dir) return;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (sources_.count(name)) continue;
    int pid = 0, tid = 0;
    uint64_t image = 0;
    if (!parse_name(name, "jrnl", pid, image, &tid)) continue;
    auto source = std::make_unique<Source>();
    if (!source->reader.open(options_.journal_dir + "/" + name)) continue;  // header not complete yet
    const JournalHeader& h = source->reader.header();
    Process* proc = process(pid, h.first_runtime);
    source->pid = pid;
    source->name = name;
    source->image = image;
    auto [it, inserted] = proc->image_ordinals.emplace(image, proc->image_ordinals.size());
    source->correlation_base = it->second << 56;
    if (proc->writer) {
      try {
        proc->writer->begin_batch();
        proc->writer->add_thread(h.tid, h.thread_index, h.created_ns);
        load_info(pid, image, *proc);
      } catch (const std::exception& e) {
        fail_process(*proc, e);
      }
    }
    sources_.emplace(name, std::move(source));
  }
  closedir(dir);
}

std::optional<Collector::CallKey> Collector::next_call(const Source& source) {
  const JournalReader& reader = source.reader;
  const uint64_t end = reader.end();
  for (uint64_t i = reader.begin(); i < end;) {
    const Record& rec = reader.record(i);
    const uint64_t chunk = sizeof(rec.string_data.text);
    switch (static_cast<RecordType>(rec.type)) {
      case RecordType::kApi:
        return CallKey{rec.api.begin_ns, reader.header().tid, source.correlation_base | rec.api.correlation_id};
      case RecordType::kString:
        i += 1 + (rec.string.length + chunk - 1) / chunk;
        break;
      case RecordType::kMarker: {
        const uint32_t length = std::min(rec.marker.length, kMarkerMessageMaxBytes);
        i += 1 + (length > kMarkerInlineBytes ? length - kMarkerInlineBytes + chunk - 1 : 0) / chunk;
        break;
      }
      default:
        ++i;
        break;
    }
  }
  return std::nullopt;
}

// The latest begin a call of this source can still bring, as far as the builder can tell: the
// last call in its window (a thread's calls arrive in begin order), else the last one built.
uint64_t Collector::call_horizon(const Source& source) {
  const JournalReader& reader = source.reader;
  for (uint64_t i = reader.end(); i > reader.begin(); --i) {
    const Record& rec = reader.record(i - 1);
    if (rec.type == static_cast<uint8_t>(RecordType::kApi)) return rec.api.begin_ns;
  }
  return source.last_call_begin;
}

uint64_t Collector::drain(Source& source, Process& proc, uint64_t calls) {
  JournalReader& reader = source.reader;
  const uint64_t end = reader.end();
  const uint64_t first = reader.begin();
  uint64_t i = first;
  uint64_t done = 0;
  DbWriter& db = *proc.writer;
  const uint32_t tid = reader.header().tid;
  struct Account {  // consumed into the open transaction: lost if it fails
    Process& proc;
    const uint64_t& i;
    uint64_t first;
    ~Account() { proc.batch_records += i - first; }
  } account{proc, i, first};
  while (i < end) {
    const Record& rec = reader.record(i);
    if (rec.type == static_cast<uint8_t>(RecordType::kApi) && done == calls) break;
    switch (static_cast<RecordType>(rec.type)) {
      case RecordType::kLaunch:
        source.pending_launch = rec.launch;
        source.has_pending_launch = true;
        ++i;
        break;
      case RecordType::kApi: {
        const LaunchRecord* launch = source.has_pending_launch &&
                                             source.pending_launch.correlation_id == rec.api.correlation_id
                                         ? &source.pending_launch
                                         : nullptr;
        db.on_api(rec.api, tid, source.correlation_base, launch);
        source.has_pending_launch = false;
        source.last_call_begin = rec.api.begin_ns;
        ++done;
        ++i;
        break;
      }
      case RecordType::kActivity:
        db.on_activity(rec.activity, source.correlation_base);
        ++i;
        break;
      case RecordType::kArgs:
        db.on_args(rec.args, tid);
        ++i;
        break;
      case RecordType::kString: {
        const uint64_t chunk = sizeof(rec.string_data.text);
        const uint64_t parts = (rec.string.length + chunk - 1) / chunk;
        if (end - i - 1 < parts) {  // the text is still being written: next cycle
          reader.release(i);
          return done;
        }
        std::string text;
        text.reserve(rec.string.length);
        uint64_t j = 1;
        for (; j <= parts; ++j) {
          const Record& part = reader.record(i + j);
          if (part.type != static_cast<uint8_t>(RecordType::kStringData)) break;  // a dropped part
          uint64_t take = std::min<uint64_t>(chunk, rec.string.length - text.size());
          text.append(part.string_data.text, take);
        }
        if (j > parts) db.on_string(static_cast<StringKind>(rec.string.kind), rec.string.key, text);
        i += j;
        break;
      }
      case RecordType::kMarker: {
        const uint64_t chunk = sizeof(rec.string_data.text);
        const uint32_t length = std::min(rec.marker.length, kMarkerMessageMaxBytes);
        const uint64_t rest = length > kMarkerInlineBytes ? length - kMarkerInlineBytes : 0;
        const uint64_t parts = (rest + chunk - 1) / chunk;
        if (end - i - 1 < parts) {  // the message is still being written: next cycle
          reader.release(i);
          return done;
        }
        std::string text(rec.marker.text, std::min<uint64_t>(length, kMarkerInlineBytes));
        uint64_t j = 1;
        for (; j <= parts; ++j) {
          const Record& part = reader.record(i + j);
          if (part.type != static_cast<uint8_t>(RecordType::kStringData)) break;  // a dropped part
          text.append(part.string_data.text, std::min<uint64_t>(chunk, length - text.size()));
        }
        // A message cut at the bound may end inside a UTF-8 sequence: that partial character goes.
        if (length == kMarkerMessageMaxBytes) trim_partial_utf8(text);
        db.on_marker(rec.marker, text, tid);
        i += j;
        break;
      }
      default:
        ++i;  // kStringData without its header, or a newer record type: skip
        break;
    }
  }
  reader.release(i);
  return done;
}

// One cycle of the builder: every journal's new records into its process's database, one
// transaction per process. A process's threads are merged by call begin time (begin, thread,
// correlation: the order of `sequence`), so the calls go in already numbered when they arrive in
// order; while the program runs, calls later than what a thread still making calls may bring
// wait for the next cycle (`final`: everything).
uint64_t Collector::build_once(bool final) {
  std::lock_guard lock(build_mutex_);
  // The mover's bounds before the journals: a ring it has bounded has its journal already, so the
  // scan below opens every journal those bounds speak for (this thread runs at idle priority and
  // can be held for tens of ms between the two, while the mover finds new rings).
  std::map<std::string, uint64_t> bounds;
  uint64_t unseen_bound = 0;
  if (!final) {
    std::lock_guard lock(bounds_mutex_);
    bounds = next_call_bounds_;
    unseen_bound = unseen_rings_bound_;
  }
  keep_output_dir();
  if (output_dir_remade_.load(std::memory_order_acquire)) {
    // SQLite makes each rollback journal with its database's mode, from a stat of the database's
    // name: an empty file there until finalize() writes the database back (DbWriter).
    for (auto& [pid, proc] : processes_) {
      struct stat st;
      if (!proc.writer || ::stat(proc.db_path.c_str(), &st) == 0) continue;
      const int fd = ::open(proc.db_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd >= 0) ::close(fd);
    }
  }
  scan_journals();
  const uint64_t now = now_ns();
  std::map<int, std::vector<Source*>> by_process;
  uint64_t built = 0;
  uint32_t since_wake_check = 0;
  for (auto& [name, source] : sources_) {
    JournalReader& reader = source->reader;
    const uint64_t before = reader.end();
    reader.refresh(/*settled=*/final);
    if (reader.broken() && !source->reported_broken) {
      source->reported_broken = true;
      add_error(reader.path() + ": a block of the journal does not decode; the records after it are lost");
    }
    if (reader.end() != before || source->grew_ns == 0) source->grew_ns = now;
    Process& proc = processes_[source->pid];
    if (!proc.writer) {
      proc.records_not_written += reader.end() - reader.begin();
      built += reader.end() - reader.begin();
      reader.release(reader.end());
      continue;
    }
    by_process[source->pid].push_back(source.get());
  }
  for (auto& [pid, sources] : by_process) {
    Process& proc = processes_[pid];
    // No call past what a thread may still bring: one whose journal goes on past the decoded
    // window, or (while the program runs) one inside a call, between calls, or (where the mover
    // does not say) one that made a call within the last second.
    uint64_t horizon = UINT64_MAX;
    if (!final) {
      // A thread the mover has not seen yet: its calls begin after the mover's last scan began.
      horizon = unseen_bound == 0 ? 0 : unseen_bound - 1;
      // A thread the mover has bounded whose journal could not be opened yet (its header not
      // complete): all of its calls are still to come, so nothing is numbered.
      const std::string prefix = std::to_string(pid) + ".";
      for (auto it = bounds.lower_bound(prefix); it != bounds.end() && it->first.compare(0, prefix.size(), prefix) == 0;
           ++it)
        if (!sources_.count(it->first)) horizon = 0;
    }
    for (Source* source : sources) {
      if (source->reader.more()) {
        horizon = std::min(horizon, call_horizon(*source));
      } else if (!final && !source->reader.header().thread_exited) {
        // A thread can still bring calls that begin after its last one here and no earlier than
        // its bound (calls at exactly the bound may sort before others of that time: up to it,
        // not including it).
        if (auto bound = bounds.find(source->name); bound != bounds.end()) {
          horizon = std::min(horizon, std::max(call_horizon(*source), bound->second - 1));
        } else if (now - source->grew_ns < kActiveThreadNs) {
          horizon = std::min(horizon, call_horizon(*source));
        }
      }
    }
    uint64_t begun = 0;
    for (Source* source : sources) begun += source->reader.begin();
    try {
      proc.writer->begin_batch();
      auto later = [](const std::pair<CallKey, Source*>& a, const std::pair<CallKey, Source*>& b) {
        return b.first < a.first;
      };
      std::vector<std::pair<CallKey, Source*>> heap;
      for (Source* source : sources)
        if (auto key = next_call(*source); key && key->begin_ns <= horizon) heap.emplace_back(*key, source);
      std::make_heap(heap.begin(), heap.end(), later);
      while (!heap.empty()) {
        if (!final && ++since_wake_check == kWakeCheckCalls) {
          since_wake_check = 0;
          wake_mover_if_due();
          // prof is stopping: finish() builds the rest (as if the horizon were here). Where
          // request_stop() could not lift this thread's idle priority (no CAP_SYS_NICE), the wait
          // for it is this block of calls, not the whole backlog.
          if (stop_.load(std::memory_order_acquire)) break;
        }
        std::pop_heap(heap.begin(), heap.end(), later);
        Source* source = heap.back().second;
        heap.pop_back();
        if (drain(*source, proc, 1) == 0) continue;  // a text before the call is still being written
        if (auto key = next_call(*source); key && key->begin_ns <= horizon) {
          heap.emplace_back(*key, source);
          std::push_heap(heap.begin(), heap.end(), later);
        }
      }
      // What precedes each thread's next call (or all that is left, if no call follows).
      for (Source* source : sources) drain(*source, proc, 0);
    } catch (const std::exception& e) {
      fail_process(proc, e);
      for (Source* source : sources) source->reader.release(source->reader.end());
    }
    for (Source* source : sources) built += source->reader.begin();
    built -= begun;
  }
  if (pause_before_commit_) {
    // The fault suite's moment "prof killed while it writes a database" (test/e2e/test_recover.py):
    // a transaction is open, its rollback journal on disk.
    pause_before_commit_ = false;
    std::fputs("prof: PROF_TEST_PAUSE=build: pausing with a transaction open\n", stderr);
    std::this_thread::sleep_for(std::chrono::seconds(60));
  }
  for (auto& [pid, proc] : processes_) {
    if (!proc.writer) continue;
    try {
      // Held by a reader: the batch stays open, its records counted as in it, for the next cycle.
      if (proc.writer->end_batch()) proc.batch_records = 0;
      else spdlog::debug("{}: a reader holds the database; committing later", proc.writer->path());
    } catch (const std::exception& e) {
      fail_process(proc, e);
    }
    if (!final) wake_mover_if_due();
  }
  return built;
}

std::vector<CollectedProcess> Collector::finish(const std::vector<int>& cut_short) {
  request_stop();
  if (mover_.joinable()) mover_.join();
  if (builder_.joinable()) builder_.join();
  move_once(/*final=*/true);
  if (const char* pause = std::getenv("PROF_TEST_PAUSE"); pause && std::strcmp(pause, "build") == 0)
    pause_before_commit_ = true;
  // What the rings still held is in the journals now: build to the end of every journal.
  const uint64_t build_start_ns = now_ns();
  uint64_t records_built = 0;
  while (const uint64_t built = build_once(/*final=*/true)) records_built += built;
  spdlog::debug("finish: {} records left to build, built in {:.3f} s", records_built,
                static_cast<double>(now_ns() - build_start_ns) / 1e9);
  std::lock_guard move_lock(move_mutex_);
  std::lock_guard lock(build_mutex_);
  std::vector<CollectedProcess> done;
  const uint64_t end_ns = now_ns();
  for (auto& [pid, proc] : processes_) {
    DropCounts drops;
    drops.cut_short = std::find(cut_short.begin(), cut_short.end(), pid) != cut_short.end();
    const LostTally lost = account_lost(pid);
    const uint64_t exit_ns = lost.exit_ns;
    drops.unrecorded_calls = lost.calls;
    drops.crowded_calls = lost.crowded_calls;
    drops.nested_calls = lost.nested_calls;
    // Every ring's counters are in its journal's header (the mover copies them each cycle).
    for (auto& [name, source] : sources_) {
      if (source->pid != pid) continue;
      source->reader.refresh();
      drops.records += source->reader.header().dropped;
      drops.device_timings += source->reader.header().timing_dropped;
      drops.full_waits += source->reader.header().full_waits;
      drops.self_moves += source->reader.header().self_moves;
    }
    if (auto it = unjournaled_.find(pid); it != unjournaled_.end()) {
      proc.records_not_written += it->second;
      proc.failed = true;
    }
    // Drops are also in the database and its summary; said here too, in case neither was written.
    if (drops.records || drops.device_timings)
      add_error("process " + std::to_string(pid) + ": " + std::to_string(drops.records) +
                        " records dropped (ring full, PROF_BUFFER_WAIT_MS passed), " +
                        std::to_string(drops.device_timings) + " device timings dropped");
    if (proc.writer) {
      try {
        // <pid>.<image>.clock: the MPI clock offsets the preload measured (interpose/mpi_clock.cpp).
        const std::string clock_path = proc.maps_path.substr(0, proc.maps_path.size() - 5) + ".clock";
        if (std::FILE* clock = std::fopen(clock_path.c_str(), "r")) {
          char line[256];
          while (std::fgets(line, sizeof line, clock)) {
            std::string text(line);
            if (!text.empty() && text.back() == '\n') text.pop_back();
            const size_t eq = text.find('=');
            if (eq != std::string::npos && text.rfind("clock_", 0) == 0)
              proc.writer->set_meta(text.substr(0, eq), text.substr(eq + 1));
          }
          std::fclose(clock);
        }
        if (exit_ns) proc.writer->set_process_end(exit_ns);
        if (!options_.capture_control.empty()) {
          proc.writer->set_meta("capture_control", options_.capture_control);
          proc.writer->set_capture_windows(read_capture_switches(options_.run_dir, pid));
        }
        proc.writer->finalize(proc.maps_path, drops, end_ns);
        const bool several = proc.writer->runtimes_called() > 1;
        proc.writer.reset();  // closes the file before a rename
        const std::string stem = options_.output_dir + "/prof-" + std::to_string(pid);
        if (several && proc.db_path.rfind(stem + ".", 0) != 0) {  // (a recovered one may have it already)
          std::string renamed = free_name(stem, ".db", options_.replace_existing);
          if (std::rename(proc.db_path.c_str(), renamed.c_str()) == 0) proc.db_path = renamed;
          else add_error(proc.db_path + ": cannot rename to " + renamed + ": " + std::strerror(errno));
          note_db_path(pid, proc.db_path);
        }
        done.push_back({pid, proc.db_path});
      } catch (const std::exception& e) {
        fail_process(proc, e);
      }
    }
    if (proc.failed) {
      struct stat st;
      const bool kept = stat(proc.db_path.c_str(), &st) == 0;
      add_error(proc.db_path + ": " + std::to_string(proc.records_not_written) + " records of process " +
                std::to_string(pid) + " not written" +
                (kept ? "; the database holds what was committed before the failure" : ""));
    }
    proc.writer.reset();
  }
  // A process none of whose threads got a ring has no database: its loss is said here.
  std::vector<int> said;
  for (const std::string* base : {&options_.run_dir, &options_.fallback_run_dir}) {
    DIR* dir = base->empty() ? nullptr : opendir(base->c_str());
    if (!dir) continue;
    while (dirent* entry = readdir(dir)) {
      int pid = 0;
      uint64_t image = 0;
      if (!parse_name(entry->d_name, "lost", pid, image, nullptr) || processes_.count(pid) ||
          std::find(said.begin(), said.end(), pid) != said.end())
        continue;
      said.push_back(pid);
      account_lost(pid);
    }
    closedir(dir);
  }
  // Processes that had no room even for their own count (interpose/thread_buffer.cpp): summed in
  // the doorbell, and said without a process.
  if (doorbell_) {
    const uint64_t calls = doorbell_->unplaced.calls.load(std::memory_order_acquire);
    const uint64_t threads = doorbell_->unplaced.threads.load(std::memory_order_acquire);
    unrecorded_calls_ += calls;
    if (calls || threads)
      add_error(std::to_string(calls) + " calls on " + std::to_string(threads) + " threads not recorded: no room for " +
                "rings in " + options_.run_dir +
                (options_.fallback_run_dir.empty() ? "" : " or " + options_.fallback_run_dir) +
                " (both full or not writable; free space there, or set TMPDIR to a file system with room)");
  }
  // The databases are complete: the journals have served. A marker says so, for a recovery of a
  // prof killed while it wrote the reports (the <pid>.dbpath notes stay until remove_journal()).
  sources_.clear();
  for (auto& [name, ring] : rings_) ring->journal.reset();
  if (DIR* dir = opendir(options_.journal_dir.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".jrnl") == 0)
        unlink((options_.journal_dir + "/" + name).c_str());
    }
    closedir(dir);
  }
  if (std::FILE* f = std::fopen((options_.journal_dir + "/built").c_str(), "w")) std::fclose(f);
  return done;
}

void Collector::remove_journal() const {
  if (DIR* dir = opendir(options_.journal_dir.c_str())) {
    while (dirent* entry = readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0)
        unlink((options_.journal_dir + "/" + entry->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(options_.journal_dir.c_str());
}

}  // namespace prof::collector
