// The builder's cycle: journals -> databases, while the program runs and at its end
// (docs/design-collector.md, "Journal, database, recovery"). finish() is in builder_finish.cpp.
#include "collector/builder.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collector/process_info.hpp"
#include "collector/run_files.hpp"
#include "common/clock.hpp"
#include "runtimes/runtimes.hpp"

namespace prof::collector {

namespace {
// A thread whose journal grew within this long may still bring calls: the builder waits for it
// (a journal whose ring the mover does not watch, as in recovery of a run whose rings are gone).
constexpr uint64_t kActiveThreadNs = 1'000'000'000;

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

// A string record at `i` with its kStringData parts: the records it takes, 0 while its text is
// still being written (next cycle).
uint64_t take_string(const JournalReader& reader, uint64_t i, uint64_t end, DbWriter& db) {
  const Record& rec = reader.record(i);
  const uint64_t chunk = sizeof(rec.string_data.text);
  const uint64_t parts = (rec.string.length + chunk - 1) / chunk;
  if (end - i - 1 < parts) return 0;
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
  return j;
}

// A marker record at `i` with the parts of its message: the records it takes, 0 while its message
// is still being written (next cycle).
uint64_t take_marker(const JournalReader& reader, uint64_t i, uint64_t end, DbWriter& db,
                     uint32_t tid) {
  const Record& rec = reader.record(i);
  const uint64_t chunk = sizeof(rec.string_data.text);
  const uint32_t length = std::min(rec.marker.length, kMarkerMessageMaxBytes);
  const uint64_t rest = length > kMarkerInlineBytes ? length - kMarkerInlineBytes : 0;
  const uint64_t parts = (rest + chunk - 1) / chunk;
  if (end - i - 1 < parts) return 0;
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
  return j;
}

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

void Builder::start() {
  thread_ = std::thread([this] { run(); });
}

void Builder::run() {
  // The database is built on CPU the program leaves idle: it never competes with the program's
  // threads (a backlog is finished after the program exits, at full speed).
  // (Not once stop is requested: request_stop() has given it normal priority, or is about to.)
  shared_.unless_stopped([] {
    sched_param idle{};
    sched_setscheduler(0, SCHED_IDLE, &idle);
  });
  // While journals grow it builds every 10 ms, without a pause when it has a backlog (every
  // record built before the program exits is one the finish does not wait for); a quiet run
  // backs off to build_interval_ms.
  int pause_ms = 10;
  while (!shared_.stop_requested()) {
    const uint64_t built = build_once(/*final=*/false);
    if (built >= kBusyRecords) continue;
    pause_ms = built > 0 ? 10 : std::min(pause_ms * 2, std::max(options_.build_interval_ms, 10));
    shared_.pause(pause_ms);  // finish() ends it (request_stop)
  }
}

void Builder::leave_idle_priority() {
  // The program has exited (or prof is ending): the builder's idle priority has done its job. A
  // builder still in a cycle holds build_mutex_, and finish() waits for it: at idle priority beside
  // busy processes it ran about 0.1% of a CPU, and a cycle of a second's work took minutes
  // (e2e:rings beside 4 busy loops: 9 s to 250 s for the same run).
  if (thread_.joinable()) {
    sched_param normal{};
    pthread_setschedparam(thread_.native_handle(), SCHED_OTHER, &normal);
  }
}

void Builder::join() {
  if (thread_.joinable()) thread_.join();
}

void Builder::build_rest() {
  if (const char* pause = std::getenv("PROF_TEST_PAUSE"); pause && std::strcmp(pause, "build") == 0)
    pause_before_commit_ = true;
  // What the rings still held is in the journals now: build to the end of every journal.
  const uint64_t build_start_ns = now_ns();
  uint64_t records_built = 0;
  while (const uint64_t built = build_once(/*final=*/true)) records_built += built;
  spdlog::debug("finish: {} records left to build, built in {:.3f} s", records_built,
                static_cast<double>(now_ns() - build_start_ns) / 1e9);
}

void Builder::close_journals() {
  std::lock_guard lock(build_mutex_);
  sources_.clear();
}

bool Builder::output_lost() const {
  std::lock_guard lock(build_mutex_);
  for (const auto& [pid, proc] : processes_)
    if (proc.failed) return true;
  return false;
}

// <journal dir>/<pid>.dbpath: which database a process's journals build, so that recovery rebuilds
// the same file.
void Builder::note_db_path(int pid, const std::string& path) const {
  const std::string note = options_.journal_dir + "/" + std::to_string(pid) + ".dbpath";
  const std::string temp = note + ".tmp";
  if (std::FILE* f = std::fopen(temp.c_str(), "w")) {
    std::fputs(path.c_str(), f);
    if (std::fclose(f) == 0) std::rename(temp.c_str(), note.c_str());
  }
}

// <runtime>-prof-<pid>.db, named after the runtime of the call that created the buffer seen
// first; finish() renames it prof-<pid>.db if the process called more than one runtime.
Builder::Process* Builder::process(int pid, uint32_t first_runtime) {
  Process& proc = processes_[pid];
  if (proc.writer || proc.failed) return &proc;
  const RuntimeDescription* runtime = find_runtime(first_runtime);
  if (!runtime)
    runtime = kRuntimeDescriptions[0];  // a newer preload library's runtime: never expected
  proc.db_path.clear();
  if (options_.recovering) {
    // The database the killed prof had begun: rebuilt from the whole journal, at the same path.
    if (std::FILE* f = std::fopen(
            (options_.journal_dir + "/" + std::to_string(pid) + ".dbpath").c_str(), "r")) {
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
    proc.db_path = free_name(
        options_.output_dir + "/" + std::string(runtime->name) + "-prof-" + std::to_string(pid),
        ".db", options_.replace_existing);
  try {
    note_db_path(pid, proc.db_path);
    proc.writer = std::make_unique<DbWriter>(proc.db_path, pid, options_.prof_version, runtime->id);
    if (!options_.run_id.empty()) proc.writer->set_meta("run_id", options_.run_id);
  } catch (const std::exception& e) {
    proc.failed = true;
    shared_.add_error(e.what());
  }
  return &proc;
}

void Builder::fail_process(Process& proc, const std::exception& e) {
  shared_.add_error(e.what());
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

void Builder::load_info(int pid, uint64_t image, Process& proc) {
  std::string base = options_.run_dir + "/" + std::to_string(pid) + "." + std::to_string(image);
  proc.maps_path = base + ".maps";
  if (proc.info_loaded) return;
  if (auto info = read_process_info(base + ".info")) {
    proc.writer->set_process_info(*info);
    proc.info_loaded = true;
  }
}

void Builder::scan_journals() {
  DIR* dir = opendir(options_.journal_dir.c_str());
  if (!dir) return;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (sources_.count(name)) continue;
    int pid = 0, tid = 0;
    uint64_t image = 0;
    if (!parse_name(name, "jrnl", pid, image, &tid)) continue;
    auto source = std::make_unique<Source>();
    if (!source->reader.open(options_.journal_dir + "/" + name))
      continue;  // header not complete yet
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

std::optional<Builder::CallKey> Builder::next_call(const Source& source) {
  const JournalReader& reader = source.reader;
  const uint64_t end = reader.end();
  for (uint64_t i = reader.begin(); i < end;) {
    const Record& rec = reader.record(i);
    const uint64_t chunk = sizeof(rec.string_data.text);
    switch (static_cast<RecordType>(rec.type)) {
      case RecordType::kApi:
        return CallKey{rec.api.begin_ns, reader.header().tid,
                       source.correlation_base | rec.api.correlation_id};
      case RecordType::kString: i += 1 + (rec.string.length + chunk - 1) / chunk; break;
      case RecordType::kMarker: {
        const uint32_t length = std::min(rec.marker.length, kMarkerMessageMaxBytes);
        i +=
            1 + (length > kMarkerInlineBytes ? length - kMarkerInlineBytes + chunk - 1 : 0) / chunk;
        break;
      }
      default: ++i; break;
    }
  }
  return std::nullopt;
}

// The latest begin a call of this source can still bring, as far as the builder can tell: the
// last call in its window (a thread's calls arrive in begin order), else the last one built.
uint64_t Builder::call_horizon(const Source& source) {
  const JournalReader& reader = source.reader;
  for (uint64_t i = reader.end(); i > reader.begin(); --i) {
    const Record& rec = reader.record(i - 1);
    if (rec.type == static_cast<uint8_t>(RecordType::kApi)) return rec.api.begin_ns;
  }
  return source.last_call_begin;
}

uint64_t Builder::drain(Source& source, Process& proc, uint64_t calls) {
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
        const LaunchRecord* launch =
            source.has_pending_launch &&
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
      case RecordType::kString:
      case RecordType::kMarker: {
        const uint64_t taken = rec.type == static_cast<uint8_t>(RecordType::kString)
                                   ? take_string(reader, i, end, db)
                                   : take_marker(reader, i, end, db, tid);
        if (taken == 0) {  // its text is still being written: next cycle
          reader.release(i);
          return done;
        }
        i += taken;
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
uint64_t Builder::build_once(bool final) {
  std::lock_guard lock(build_mutex_);
  // The mover's bounds before the journals: a ring it has bounded has its journal already, so the
  // scan below opens every journal those bounds speak for (this thread runs at idle priority and
  // can be held for tens of ms between the two, while the mover finds new rings).
  const CallBounds::Snapshot bounds = final ? CallBounds::Snapshot{} : shared_.bounds().snapshot();
  keep_output_files();
  scan_journals();
  const uint64_t now = now_ns();
  uint64_t built = 0;
  uint32_t since_wake_check = 0;
  for (auto& [pid, sources] : refresh_sources(final, now, built)) {
    const uint64_t limit = build_horizon(pid, sources, bounds, final, now);
    uint64_t begun = 0;
    for (Source* source : sources) begun += source->reader.begin();
    merge_calls(processes_[pid], sources, limit, final, since_wake_check);
    for (Source* source : sources) built += source->reader.begin();
    built -= begun;
  }
  pause_if_testing_faults();
  commit_batches(final);
  return built;
}

void Builder::keep_output_files() {
  shared_.keep_output_dir();
  if (!shared_.output_dir_remade()) return;
  // SQLite makes each rollback journal with its database's mode, from a stat of the database's
  // name: an empty file there until finalize() writes the database back (DbWriter).
  for (auto& [pid, proc] : processes_) {
    struct stat st;
    if (!proc.writer || ::stat(proc.db_path.c_str(), &st) == 0) continue;
    const int fd =
        ::open(proc.db_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) ::close(fd);
  }
}

// Reads what each journal gained; a process whose database failed has its records consumed and
// counted (`built`) here. Returns the sources left to build, by process.
Builder::SourcesByProcess Builder::refresh_sources(bool final, uint64_t now, uint64_t& built) {
  SourcesByProcess by_process;
  for (auto& [name, source] : sources_) {
    JournalReader& reader = source->reader;
    const uint64_t before = reader.end();
    reader.refresh(/*settled=*/final);
    if (reader.broken() && !source->reported_broken) {
      source->reported_broken = true;
      shared_.add_error(reader.path() +
                        ": a block of the journal does not decode; the records after it are lost");
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
  return by_process;
}

// No call past what a thread may still bring: one whose journal goes on past the decoded
// window, or (while the program runs) one inside a call, between calls, or (where the mover
// does not say) one that made a call within the last second.
uint64_t Builder::build_horizon(int pid, const std::vector<Source*>& sources,
                                const CallBounds::Snapshot& bounds, bool final,
                                uint64_t now) const {
  uint64_t horizon = UINT64_MAX;
  if (!final) {
    // A thread the mover has not seen yet: its calls begin after the mover's last scan began.
    horizon = bounds.unseen_rings == 0 ? 0 : bounds.unseen_rings - 1;
    // A thread the mover has bounded whose journal could not be opened yet (its header not
    // complete): all of its calls are still to come, so nothing is numbered.
    const std::string prefix = std::to_string(pid) + ".";
    const auto& by_journal = bounds.by_journal;
    for (auto it = by_journal.lower_bound(prefix);
         it != by_journal.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
      if (!sources_.count(it->first)) horizon = 0;
  }
  for (Source* source : sources) {
    if (source->reader.more()) {
      horizon = std::min(horizon, call_horizon(*source));
    } else if (!final && !source->reader.header().thread_exited) {
      // A thread can still bring calls that begin after its last one here and no earlier than
      // its bound (calls at exactly the bound may sort before others of that time: up to it,
      // not including it).
      if (auto bound = bounds.by_journal.find(source->name); bound != bounds.by_journal.end()) {
        horizon = std::min(horizon, std::max(call_horizon(*source), bound->second - 1));
      } else if (now - source->grew_ns < kActiveThreadNs) {
        horizon = std::min(horizon, call_horizon(*source));
      }
    }
  }
  return horizon;
}

// The process's calls up to `horizon`, its threads merged in call order, into its open batch.
void Builder::merge_calls(Process& proc, const std::vector<Source*>& sources, uint64_t horizon,
                          bool final, uint32_t& since_wake_check) {
  try {
    proc.writer->begin_batch();
    auto later = [](const std::pair<CallKey, Source*>& a, const std::pair<CallKey, Source*>& b) {
      return b.first < a.first;
    };
    std::vector<std::pair<CallKey, Source*>> heap;
    for (Source* source : sources)
      if (auto key = next_call(*source); key && key->begin_ns <= horizon)
        heap.emplace_back(*key, source);
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
      if (!final && ++since_wake_check == MoverWake::kWakeCheckCalls) {
        since_wake_check = 0;
        shared_.mover_wake().wake_if_due();
        // prof is stopping: finish() builds the rest (as if the horizon were here). Where
        // request_stop() could not lift this thread's idle priority (no CAP_SYS_NICE), the wait
        // for it is this block of calls, not the whole backlog.
        if (shared_.stop_requested()) break;
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
}

void Builder::pause_if_testing_faults() {
  if (!pause_before_commit_) return;
  // The fault suite's moment "prof killed while it writes a database" (test/e2e/test_recover.py):
  // a transaction is open, its rollback journal on disk.
  pause_before_commit_ = false;
  std::fputs("prof: PROF_TEST_PAUSE=build: pausing with a transaction open\n", stderr);
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

void Builder::commit_batches(bool final) {
  for (auto& [pid, proc] : processes_) {
    if (!proc.writer) continue;
    try {
      // Held by a reader: the batch stays open, its records counted as in it, for the next cycle.
      if (proc.writer->end_batch())
        proc.batch_records = 0;
      else
        spdlog::debug("{}: a reader holds the database; committing later", proc.writer->path());
    } catch (const std::exception& e) {
      fail_process(proc, e);
    }
    if (!final) shared_.mover_wake().wake_if_due();
  }
}

}  // namespace prof::collector
