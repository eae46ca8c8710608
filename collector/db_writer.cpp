#include "collector/db_writer.hpp"

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "collector/symbol_resolver.hpp"
#include "common/clock.hpp"
#include "db/schema.hpp"
#include "runtimes/runtimes.hpp"

namespace prof::collector {
namespace {

// How long the db's completion waits for a reader that holds the database (end_batch(must)).
constexpr uint64_t kCommitPatienceNs = 60'000'000'000;
constexpr int kBusyTimeoutMs = 200;

// A path prof must not touch: thrown before anything is created, so nothing is cleaned up.
class RefusedPath : public DbError {
 public:
  using DbError::DbError;
};

// Replacing a file is only allowed when prof wrote it: never follow a symlink, never clobber
// somebody else's data.
void prepare_path(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  if (!S_ISREG(st.st_mode))
    throw RefusedPath(path + ": exists and is not a regular file; not overwriting it");
  bool ours = false;
  try {
    Database old(path, Database::Mode::kReadOnly);
    ours = old.table_exists("meta") && old.table_exists("api_calls");
  } catch (const DbError&) {
  }
  if (!ours) throw RefusedPath(path + ": exists and is not a prof database; not overwriting it");
  unlink(path.c_str());
  unlink((path + "-wal").c_str());
  unlink((path + "-shm").c_str());
  unlink((path + "-journal").c_str());
}

const std::string& prepared(const std::string& path) {
  prepare_path(path);
  return path;
}

// INSERT INTO api_calls (...) VALUES (?, ...), (?, ...): `rows` rows of 10 parameters each. The
// correlation id is not among them: SQLite gives each row the largest rowid + 1 and appends it,
// with no search for a duplicate (that search was a tenth of the build). That is the id on_api
// gave the call, since every call row goes in here in id order from 1, none is ever deleted, and
// a failed batch ends the writer; flush_api_rows checks it.
std::string api_insert_sql(int rows) {
  std::string sql =
      "INSERT INTO api_calls (api_id, thread_id, begin_ns, end_ns, result, stream_index,"
      " device, bytes, aux, sequence) VALUES ";
  for (int i = 0; i < rows; ++i) sql += i ? ",(?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?)";
  return sql;
}

}  // namespace

// Rollback journal, not WAL: the database file itself always holds the last committed batch, so a
// failed commit (disk full) leaves a valid database of everything before it, with no -wal file
// that a full disk could not checkpoint. synchronous=OFF: the file protects against prof's own
// failures, not against the machine losing power mid-run.
DbWriter::DbWriter(const std::string& path, int pid, const std::string& prof_version,
                   RuntimeId first_runtime) try
    : db_(prepared(path), Database::Mode::kCreate),
      // A reader may open the file as soon as it exists (the db of a running program): its lock
      // delays a statement by up to this before the statement hears of it.
      insert_api_((sqlite3_busy_timeout(db_.handle(), kBusyTimeoutMs),
                   db_.exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF;"
                            " PRAGMA cache_size=-16384; PRAGMA threads=2;"),
                   db_.exec(schema::kCreateSql), db_.exec(schema::kCopyDirectionsSql), db_),
                  api_insert_sql(1)),
      insert_api_rows_(db_, api_insert_sql(kApiRowsPerInsert)),
      insert_kernel_(db_,
                     "INSERT INTO kernels (correlation_id, name_id, function_address, device, "
                     "stream_index, grid_x,"
                     " grid_y, grid_z, block_x, block_y, block_z, shared_mem_bytes, "
                     "device_begin_ns, device_end_ns)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"),
      insert_copy_(db_,
                   "INSERT INTO copies (correlation_id, device, stream_index, direction, bytes, "
                   "device_begin_ns,"
                   " device_end_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
      update_kernel_time_(
          db_,
          "UPDATE kernels SET device_begin_ns = ?2, device_end_ns = ?3 WHERE correlation_id = ?1"),
      update_copy_time_(
          db_,
          "UPDATE copies SET device_begin_ns = ?2, device_end_ns = ?3 WHERE correlation_id = ?1"),
      insert_string_(db_, "INSERT INTO strings (value) VALUES (?1)"),
      find_string_(db_, "SELECT string_id FROM strings WHERE value = ?1"),
      insert_stream_(db_,
                     "INSERT INTO streams (stream_index, stream_handle, device, runtime_id) VALUES "
                     "(?1, ?2, ?3, ?4)"),
      insert_thread_(db_,
                     "INSERT OR IGNORE INTO threads (thread_id, thread_index, created_ns) VALUES "
                     "(?1, ?2, ?3)"),
      upsert_meta_(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)"),
      insert_args_(
          db_, "INSERT OR REPLACE INTO api_args (correlation_id, name, value) VALUES (?1, ?2, ?3)"),
      insert_marker_(
          db_,
          "INSERT INTO markers (kind, message, source, thread_id, begin_ns, end_ns, level, "
          "range_id,"
          " end_thread_id, stream_handle) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
      close_marker_(db_,
                    "UPDATE markers SET end_ns = ?2, end_thread_id = ?3 WHERE marker_id = ?1") {
  if (struct stat st; ::stat(db_.path().c_str(), &st) == 0) {
    db_device_ = st.st_dev;
    db_inode_ = st.st_ino;
  }
  db_.exec("BEGIN");
  {
    Statement names(db_, "INSERT INTO api_names (api_id, name, runtime_id) VALUES (?1, ?2, ?3)");
    for (const ApiInfo& api : kApis)
      names.bind(1, int64_t{api.id})
          .bind(2, api.name)
          .bind(3, static_cast<int64_t>(api.runtime))
          .run();
  }
  set_meta("schema_version", std::to_string(schema::kSchemaVersion));
  set_meta("prof_version", prof_version);
  note_runtime(first_runtime);
  set_meta("pid", std::to_string(pid));
  set_meta("clock", "CLOCK_MONOTONIC");
  // Stream 0: the default stream of the first runtime, every device. Another runtime's default
  // stream gets its own index when first used (its null handle is not the same stream).
  insert_stream_.bind(1, int64_t{0}).bind(2, int64_t{0}).bind(3, int64_t{-1});
  insert_stream_.bind(4, static_cast<int64_t>(first_runtime)).run();
  streams_[{first_runtime, 0}] = {0, true};
  in_batch_ = true;
  end_batch(/*must=*/true);
  api_rows_.reserve(kApiRowsPerInsert);
} catch (const RefusedPath&) {
  throw;
} catch (const DbError&) {
  // A database that could not even be created (disk full, no permission) is not left behind
  // half-made; prepared() has already refused to touch a file prof did not write.
  unlink(path.c_str());
  unlink((path + "-journal").c_str());
  throw;
}

void DbWriter::abandon() noexcept {
  // Whatever the failed batch wrote is undone; the file keeps every earlier batch.
  api_rows_.clear();
  if (in_batch_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  in_batch_ = false;
}

void DbWriter::set_meta(const std::string& key, const std::string& value) {
  upsert_meta_.bind(1, key).bind(2, value).run();
}

void DbWriter::set_process_info(const ProcessInfo& info) {
  set_meta("ppid", std::to_string(info.ppid));
  set_meta("host_name", info.host_name);
  if (info.rank >= 0) set_meta("rank", std::to_string(info.rank));
  set_meta("command_line", join_command_line(info.argv));
  set_meta("start_ns", std::to_string(info.start_ns));
  set_meta("wall_start_unix_ns", std::to_string(info.wall_start_unix_ns));
}

void DbWriter::begin_batch() {
  if (!in_batch_) db_.exec("BEGIN");
  in_batch_ = true;
}

void DbWriter::flush_api_rows() {
  size_t done = 0;
  while (done < api_rows_.size()) {
    const size_t take = api_rows_.size() - done >= kApiRowsPerInsert ? kApiRowsPerInsert : 1;
    Statement& insert = take == 1 ? insert_api_ : insert_api_rows_;
    for (size_t k = 0; k < take; ++k) {
      const ApiRow& row = api_rows_[done + k];
      const int first = static_cast<int>(k) * kApiColumns + 1;
      for (int c = 0; c < kApiColumns; ++c) {
        if ((c == kStreamColumn && !row.has_stream) || (c == kSequenceColumn && !row.has_sequence))
          insert.bind_null(first + c);
        else
          insert.bind(first + c, row.values[c]);
      }
    }
    insert.run();
    done += take;
  }
  if (!api_rows_.empty() && db_.last_insert_rowid() != next_id_ - 1)
    throw DbError(db_.path() + ": api_calls ids out of step (" +
                  std::to_string(db_.last_insert_rowid()) + ", expected " +
                  std::to_string(next_id_ - 1) + ")");
  api_rows_.clear();
}

bool DbWriter::end_batch(bool must) {
  flush_api_rows();
  if (!in_batch_) return true;
  const uint64_t give_up_ns = now_ns() + (must ? kCommitPatienceNs : 0);
  while (!db_.exec_unless_busy("COMMIT")) {  // each try waits the busy timeout
    if (now_ns() >= give_up_ns) {
      if (!must) return false;
      throw DbError(db_.path() + ": cannot commit: another connection holds the database locked");
    }
  }
  in_batch_ = false;
  return true;
}

int64_t DbWriter::intern(const std::string& text) {
  auto it = strings_.find(text);
  if (it != strings_.end()) return it->second;
  find_string_.bind(1, text);
  int64_t id;
  if (find_string_.step()) {
    id = find_string_.column_int(0);
    find_string_.reset();
  } else {
    find_string_.reset();
    insert_string_.bind(1, text).run();
    id = db_.last_insert_rowid();
  }
  strings_.emplace(text, id);
  return id;
}

int64_t DbWriter::intern_kernel_name(const std::string& symbol) {
  const std::string name = demangle(symbol);
  const int64_t id = intern(name);
  if (name != symbol) {
    Statement keep(db_, "INSERT OR IGNORE INTO kernel_symbols (string_id, symbol) VALUES (?1, ?2)");
    keep.bind(1, id).bind(2, symbol).run();
  }
  return id;
}

int64_t DbWriter::stream_index(RuntimeId runtime, uint64_t handle, uint64_t device, bool created) {
  auto it = streams_.find({runtime, handle});
  if (it != streams_.end()) {
    // A handle seen in use before its creation record (another thread's buffer was drained
    // first) keeps its number; a handle created again after a destroy gets a new one.
    if (!created || !it->second.created) {
      it->second.created = it->second.created || created;
      return it->second.index;
    }
  }
  int64_t index = next_stream_index_++;
  streams_[{runtime, handle}] = {index, created};
  // A default stream (handle 0) belongs to every device, as stream 0 does.
  insert_stream_.bind(1, index).bind(2, handle).bind(
      3, handle == 0 ? int64_t{-1} : static_cast<int64_t>(device));
  insert_stream_.bind(4, static_cast<int64_t>(runtime)).run();
  return index;
}

void DbWriter::add_thread(uint32_t tid, uint64_t thread_index, uint64_t created_ns) {
  insert_thread_.bind(1, tid).bind(2, thread_index).bind(3, created_ns).run();
}

std::optional<int64_t> DbWriter::kernel_name_id(uint64_t function) {
  auto it = kernel_names_.find(function);
  if (it == kernel_names_.end()) return std::nullopt;
  return it->second;
}

void DbWriter::on_string(StringKind kind, uint64_t key, const std::string& text) {
  if (kind == StringKind::kKernelSymbol || kind == StringKind::kModuleFunction) {
    const int64_t id = intern_kernel_name(text);
    kernel_names_[key] = id;
    // Launches drained before their registration get their name now.
    Statement fix(
        db_, "UPDATE kernels SET name_id = ?1 WHERE name_id IS NULL AND function_address = ?2");
    fix.bind(1, id).bind(2, key).run();
  } else {
    intern(text);
  }
}

void DbWriter::on_api(const ApiRecord& r, uint32_t tid, uint64_t correlation_base,
                      const LaunchRecord* launch) {
  // The hook's id (thread index and the thread's count) finds the call's arguments and device
  // times; the db's id is the call's place in arrival order, which the builder makes call order.
  const uint64_t hook_corr = correlation_base | r.correlation_id;
  const int64_t corr = next_id_++;
  if (r.begin_ns < first_ns_) first_ns_ = r.begin_ns;
  last_ns_ = std::max(last_ns_, r.end_ns);
  const ApiInfo* api = find_api(r.api_id);
  const bool known = api != nullptr;
  if (known && !runtimes_called_[static_cast<size_t>(api->runtime)]) note_runtime(api->runtime);
  const HookActivity activity = known ? api->activity : HookActivity::kNone;
  const bool has_stream = known && api->has_stream;
  std::optional<int64_t> stream;
  if (known && r.result == 0 && creates_stream(r.api_id))
    stream_index(api->runtime, r.aux, r.device, true);
  if (has_stream)
    stream = stream_index(api->runtime, canonical_stream(*api, r.stream), r.device, false);
  add_api_row(r, tid, hook_corr, corr, stream);

  // The call's named arguments were recorded before it, on its thread.
  if (auto it = pending_args_.find(tid); it != pending_args_.end()) {
    for (const ArgsRecord& args : it->second)
      if ((correlation_base | args.correlation_id) == hook_corr) insert_args(args, corr);
    pending_args_.erase(it);  // any others belonged to calls that were not recorded
  }

  // Work captured into a graph did not run: the graph's launches carry its device time.
  if (activity == HookActivity::kNone || r.result != 0 || (r.flags & kFlagCaptured) != 0) return;
  // Work of a call without a stream argument (a blocking copy) runs on its runtime's default
  // stream.
  const int64_t stream_idx = stream ? *stream : stream_index(api->runtime, 0, r.device, false);
  insert_device_work(r, activity, stream_idx, hook_corr, corr, launch);
}

void DbWriter::add_api_row(const ApiRecord& r, uint32_t tid, uint64_t hook_corr, int64_t corr,
                           std::optional<int64_t> stream) {
  ApiRow& row = api_rows_.emplace_back();
  row.values[0] = r.api_id;
  row.values[1] = tid;
  row.values[2] = static_cast<int64_t>(r.begin_ns);
  row.values[3] = static_cast<int64_t>(r.end_ns);
  row.values[4] = r.result;
  row.has_stream = stream.has_value();
  row.values[kStreamColumn] = stream.value_or(0);
  row.values[6] = static_cast<int64_t>(r.device);
  row.values[7] = static_cast<int64_t>(r.bytes);
  row.values[8] = static_cast<int64_t>(r.aux);
  // Calls that arrive in call order (the builder merges a process's threads by begin time) get
  // their id as sequence number: call order is then rowid order, with no index to build. The
  // first one out of order leaves numbering (and the index) to finalize().
  const std::tuple<uint64_t, uint32_t, uint64_t> key{r.begin_ns, tid, hook_corr};
  row.has_sequence = in_order_ && (corr == 1 || last_key_ < key);
  if (row.has_sequence) {
    row.values[kSequenceColumn] = corr;
    last_key_ = key;
  } else {
    if (in_order_)
      spdlog::debug(
          "{}: call {} (thread {}, begin {}) arrived after one that began at {} (thread {}): "
          "renumbering at the end",
          db_.path(), corr, tid, r.begin_ns, std::get<0>(last_key_), std::get<1>(last_key_));
    in_order_ = false;
    row.values[kSequenceColumn] = 0;
  }
  if (api_rows_.size() == kApiRowsPerInsert) flush_api_rows();
}

void DbWriter::insert_device_work(const ApiRecord& r, HookActivity activity, int64_t stream_idx,
                                  uint64_t hook_corr, int64_t corr, const LaunchRecord* launch) {
  std::optional<std::pair<uint64_t, uint64_t>> times;
  if (auto it = early_timings_.find(hook_corr); it != early_timings_.end()) {
    times = it->second;
    early_timings_.erase(it);
  } else if (r.flags & kFlagDeviceTiming) {
    awaiting_timing_.emplace(hook_corr, corr);  // until its timing arrives
  }
  auto bind_times = [&](Statement& st, int first) {
    if (times)
      st.bind(first, times->first).bind(first + 1, times->second);
    else
      st.bind_null(first).bind_null(first + 1);
  };
  if (activity == HookActivity::kKernel || activity == HookActivity::kKernelSync) {
    uint64_t function = launch ? launch->function : 0;
    insert_kernel_.bind(1, corr);
    if (auto name = kernel_name_id(function))
      insert_kernel_.bind(2, *name);
    else
      insert_kernel_.bind_null(2);
    insert_kernel_.bind(3, function).bind(4, r.device).bind(5, stream_idx);
    for (int i = 0; i < 3; ++i) insert_kernel_.bind(6 + i, launch ? launch->grid[i] : 0u);
    for (int i = 0; i < 3; ++i) insert_kernel_.bind(9 + i, launch ? launch->block[i] : 0u);
    insert_kernel_.bind(12, launch ? launch->shared_mem_bytes : 0u);
    bind_times(insert_kernel_, 13);
    insert_kernel_.run();
  } else {
    insert_copy_.bind(1, corr)
        .bind(2, r.device)
        .bind(3, stream_idx)
        .bind(4, r.aux)
        .bind(5, r.bytes);
    bind_times(insert_copy_, 6);
    insert_copy_.run();
  }
}

// A runtime's first call: its labels go into the runtimes table, its name into meta.runtime
// ("hip", or "hip,musa" for a process that called both).
void DbWriter::note_runtime(RuntimeId id) {
  const RuntimeDescription& d = *kRuntimeDescriptions[static_cast<size_t>(id)];
  runtimes_called_[static_cast<size_t>(id)] = true;
  Statement insert(
      db_,
      "INSERT OR IGNORE INTO runtimes (runtime_id, name, api_title, stream_label, device_label,"
      " api_csv_stem) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  insert.bind(1, static_cast<int64_t>(id))
      .bind(2, d.name)
      .bind(3, d.api_title)
      .bind(4, d.stream_label);
  insert.bind(5, d.device_label).bind(6, d.api_csv_stem).run();
  std::string names;
  for (size_t i = 0; i < kRuntimeCount; ++i)
    if (runtimes_called_[i])
      names += (names.empty() ? "" : ",") + std::string(kRuntimeDescriptions[i]->name);
  set_meta("runtime", names);
}

size_t DbWriter::runtimes_called() const {
  size_t n = 0;
  for (bool called : runtimes_called_) n += called;
  return n;
}

void DbWriter::on_args(const ArgsRecord& r, uint32_t tid) { pending_args_[tid].push_back(r); }

void DbWriter::insert_args(const ArgsRecord& r, int64_t corr) {
  const ApiInfo* api = find_api(r.api_id);
  if (!api) return;
  const auto names = kRuntimeDescriptions[static_cast<size_t>(api->runtime)]->arg_names;
  for (size_t i = 0; i < r.count && i < names.size() && i < 6; ++i)
    insert_args_.bind(1, corr).bind(2, names[i]).bind(3, r.values[i]).run();
}

void DbWriter::on_marker(const MarkerRecord& r, const std::string& message, uint32_t tid) {
  const ApiInfo* api = find_api(r.api_id);
  const std::string source =
      api ? std::string(kRuntimeNames[static_cast<size_t>(api->runtime)]) : "unknown";
  last_ns_ = std::max(last_ns_, r.time_ns);
  if (r.time_ns < first_ns_) first_ns_ = r.time_ns;
  auto insert = [&](std::string_view kind, bool closed, std::optional<int64_t> level,
                    std::optional<int64_t> id) {
    insert_marker_.bind(1, kind).bind(2, message).bind(3, source).bind(4, tid).bind(5, r.time_ns);
    if (closed)
      insert_marker_.bind(6, r.time_ns).bind(9, tid);
    else
      insert_marker_.bind_null(6).bind_null(9);
    if (level)
      insert_marker_.bind(7, *level);
    else
      insert_marker_.bind_null(7);
    if (id)
      insert_marker_.bind(8, *id);
    else
      insert_marker_.bind_null(8);
    insert_marker_.bind(10, r.stream).run();
    return db_.last_insert_rowid();
  };
  auto close = [&](int64_t marker_id, uint64_t end_ns, uint32_t end_tid) {
    close_marker_.bind(1, marker_id).bind(2, end_ns).bind(3, end_tid).run();
  };
  std::vector<OpenPush>& stack = push_stacks_[tid];
  switch (static_cast<MarkerKind>(r.kind)) {
    case MarkerKind::kMark: insert("mark", true, std::nullopt, std::nullopt); break;
    case MarkerKind::kPush: {
      // The level the runtime returned; the thread's own count if it returned an error.
      const int64_t level = r.value >= 0 ? r.value : static_cast<int64_t>(stack.size());
      stack.push_back({level, insert("push_pop", false, level, std::nullopt)});
      break;
    }
    case MarkerKind::kPop:
      // Pops by level: a pop whose push was not recorded (outside a capture window) closes nothing.
      if (r.value < 0) break;
      while (!stack.empty() && stack.back().level > r.value) stack.pop_back();
      if (!stack.empty() && stack.back().level == r.value) {
        close(stack.back().marker_id, r.time_ns, tid);
        stack.pop_back();
      }
      break;
    case MarkerKind::kStart: {
      const int64_t marker_id = insert("start_stop", false, std::nullopt, r.value);
      // A stop on another thread may have been drained first.
      if (auto early = early_stops_.find({source, r.value}); early != early_stops_.end()) {
        close(marker_id, early->second.first, early->second.second);
        early_stops_.erase(early);
      } else {
        open_ranges_[{source, r.value}] = marker_id;
      }
      break;
    }
    case MarkerKind::kStop:
      if (auto open = open_ranges_.find({source, r.value}); open != open_ranges_.end()) {
        close(open->second, r.time_ns, tid);
        open_ranges_.erase(open);
      } else {
        early_stops_[{source, r.value}] = {r.time_ns, tid};
      }
      break;
  }
}

void DbWriter::set_capture_windows(std::vector<CaptureSwitch> switches) {
  std::sort(switches.begin(), switches.end(),
            [](const CaptureSwitch& a, const CaptureSwitch& b) { return a.time_ns < b.time_ns; });
  auto cause = [](const CaptureSwitch& s) -> std::string {
    switch (static_cast<CaptureCause>(s.cause)) {
      case CaptureCause::kProfilerApi: return s.api_id ? std::string(api_name(s.api_id)) : "fork";
      case CaptureCause::kDelay: return "--delay";
      case CaptureCause::kDuration: return "--duration";
    }
    return "unknown";
  };
  Statement insert(
      db_,
      "INSERT INTO capture_windows (window_index, begin_ns, end_ns, started_by, stopped_by)"
      " VALUES (?1, ?2, ?3, ?4, ?5)");
  int64_t index = 0;
  std::optional<CaptureSwitch> open;
  for (const CaptureSwitch& s : switches) {
    if (s.on && !open) open = s;
    if (!s.on && open) {
      insert.bind(1, index++)
          .bind(2, open->time_ns)
          .bind(3, s.time_ns)
          .bind(4, cause(*open))
          .bind(5, cause(s))
          .run();
      open.reset();
    }
  }
  if (open)
    insert.bind(1, index++)
        .bind(2, open->time_ns)
        .bind(3, std::max(last_ns_, open->time_ns))
        .bind(4, cause(*open))
        .bind(5, std::string_view("exit"))
        .run();
}

void DbWriter::on_activity(const ActivityRecord& r, uint64_t correlation_base) {
  const uint64_t hook_corr = correlation_base | r.correlation_id;
  last_ns_ = std::max(last_ns_, r.device_end_ns);
  auto call = awaiting_timing_.find(hook_corr);
  if (call == awaiting_timing_.end()) {
    // The call's own record may still be in another thread's buffer: keep the times for it.
    early_timings_[hook_corr] = {r.device_begin_ns, r.device_end_ns};
    return;
  }
  Statement& update = r.activity == static_cast<uint8_t>(Activity::kKernel) ? update_kernel_time_
                                                                            : update_copy_time_;
  update.bind(1, call->second).bind(2, r.device_begin_ns).bind(3, r.device_end_ns).run();
  awaiting_timing_.erase(call);
}

void DbWriter::finalize(const std::string& maps_path, const DropCounts& drops, uint64_t end_ns) {
  begin_batch();
  flush_api_rows();
  {
    // Kernels whose address was never registered: name them from the ELF symbol tables.
    Statement unnamed(db_, "SELECT DISTINCT function_address FROM kernels WHERE name_id IS NULL");
    std::vector<uint64_t> addresses;
    while (unnamed.step()) addresses.push_back(static_cast<uint64_t>(unnamed.column_int(0)));
    if (!addresses.empty()) {
      SymbolResolver resolver(read_maps(maps_path));
      Statement fix(
          db_, "UPDATE kernels SET name_id = ?1 WHERE name_id IS NULL AND function_address = ?2");
      for (uint64_t address : addresses) {
        int64_t id = 0;
        if (auto symbol = resolver.lookup(address)) {
          id = intern_kernel_name(*symbol);
        } else {
          char text[64];
          snprintf(text, sizeof text, "unknown kernel at 0x%llx",
                   static_cast<unsigned long long>(address));
          id = intern(text);
        }
        fix.bind(1, id).bind(2, address).run();
      }
    }
  }
  {
    // Ranges the program never ended: closed at the process's last recorded time, and flagged.
    Statement close_open(
        db_,
        "UPDATE markers SET end_ns = MAX(?1, begin_ns), open_at_exit = 1 WHERE end_ns IS NULL");
    close_open.bind(1, last_ns_).run();
  }
  // Numbered on insert when every call arrived in order (one thread, or a merge that kept up);
  // otherwise one ROW_NUMBER() pass, which rewrites every row.
  spdlog::debug("{}: {} sequence numbers", db_.path(),
                in_order_ ? "kept the insert's" : "renumbering the");
  const uint64_t index_start_ns = now_ns();
  if (!in_order_) {
    db_.exec(schema::kAssignSequenceSql);
    db_.exec(schema::kSequenceIndexSql);
  }
  db_.exec(schema::kIndexSql);
  spdlog::debug("{}: sequence numbers and indexes in {:.3f} s", db_.path(),
                static_cast<double>(now_ns() - index_start_ns) / 1e9);
  Statement drop(db_, "INSERT OR REPLACE INTO drops (cause, count) VALUES (?1, ?2)");
  auto add_drop = [&](const char* cause, uint64_t count) {
    if (count) drop.bind(1, std::string_view(cause)).bind(2, count).run();
  };
  add_drop("ring_full_records", drops.records);
  add_drop("device_timing_queue_full", drops.device_timings);
  add_drop("device_timing_without_call", drops.unmatched_timings + early_timings_.size());
  // Whatever such a process did after prof stopped is not here, and cannot be counted.
  add_drop("process_still_running_at_stop", drops.cut_short ? 1 : 0);
  add_drop("calls_without_ring", drops.unrecorded_calls);
  add_drop("calls_inside_a_traced_call", drops.nested_calls);
  add_drop("calls_on_threads_beyond_4096", drops.crowded_calls);
  if (drops.cut_short)
    set_meta("incomplete", "the process was still running when prof stopped recording");
  set_meta("ring_full_waits", std::to_string(drops.full_waits));
  set_meta("ring_self_moves", std::to_string(drops.self_moves));
  if (first_ns_ != UINT64_MAX) {
    Statement start(db_, "SELECT value FROM meta WHERE key = 'start_ns'");
    if (!start.step()) set_meta("start_ns", std::to_string(first_ns_));
  }
  set_meta("end_ns", std::to_string(end_ns));
  end_batch(/*must=*/true);
  // The output directory was removed during the run (Collector::keep_output_dir made it again):
  // this connection wrote on in the unlinked file (db/sqlite_db.cpp), which goes back under the
  // database's name now that it is complete.
  struct stat st;
  const bool here = ::stat(db_.path().c_str(), &st) == 0;
  if (db_inode_ != 0 && (!here || st.st_dev != db_device_ || st.st_ino != db_inode_)) {
    // (An empty file the collector put at the name meanwhile is one VACUUM INTO may fill.)
    if (here && st.st_size != 0)
      throw DbError(db_.path() + ": another file took the database's name");
    Statement copy(db_, "VACUUM INTO ?1");
    copy.bind(1, std::string_view(db_.path())).run();
  }
}

}  // namespace prof::collector
