#include "report/event_pass.hpp"

#include <climits>
#include <exception>
#include <thread>

#include "report/batch_queue.hpp"

namespace prof::report {

namespace {

void read_api(const Statement& st, ApiRow& r) {
  r.correlation_id = st.column_int(0);
  r.api_id = st.column_int(1);
  r.thread_id = st.column_int(2);
  r.begin_ns = st.column_int(3);
  r.end_ns = st.column_int(4);
  r.result = st.column_int(5);
  r.device = st.column_int(6);
  r.bytes = st.column_int(7);
  r.sequence = column_nullable(st, 8);
  r.stream_index = column_nullable(st, 9);
  r.aux = st.column_int(10);
}

void read_kernel(const Statement& st, KernelRow& r) {  // r.correlation_id is already read
  r.name_id = column_nullable(st, 1);
  r.function_address = st.column_int(2);
  r.device = st.column_int(3);
  r.stream_index = st.column_int(4);
  for (int i = 0; i < 3; ++i) {
    r.grid[i] = st.column_int(5 + i);
    r.block[i] = st.column_int(8 + i);
  }
  r.shared_mem_bytes = st.column_int(11);
  r.device_begin_ns = column_nullable(st, 12);
  r.device_end_ns = column_nullable(st, 13);
}

void read_copy(const Statement& st, CopyRow& r) {  // r.correlation_id is already read
  r.device = st.column_int(1);
  r.stream_index = st.column_int(2);
  r.direction = st.column_int(3);
  r.bytes = st.column_int(4);
  r.device_begin_ns = column_nullable(st, 5);
  r.device_end_ns = column_nullable(st, 6);
}

// A kernel or copy with its call (nullptr: not in the db) to every consumer, when `wanted`.
template <typename Row>
void hand_over(Row& row, const ApiRow* call, bool wanted,
               const std::vector<EventConsumer*>& consumers,
               void (EventConsumer::*method)(const Row&)) {
  row.call_thread_id = call ? std::optional<int64_t>(call->thread_id) : std::nullopt;
  if (call) row.call = {call->thread_id, call->begin_ns, call->end_ns, call->api_id};
  if (wanted)
    for (EventConsumer* c : consumers) (c->*method)(row);
}

// A kernel or a copy, with its correlation id.
struct DeviceRow {
  bool is_kernel = false;
  KernelRow kernel;
  CopyRow copy;
  int64_t id() const { return is_kernel ? kernel.correlation_id : copy.correlation_id; }
};

// Kernels and copies merged in correlation id order (the kernel first when both share an id),
// each table walked in its own order by one statement.
class DeviceStatements {
 public:
  explicit DeviceStatements(Database& db)
      : kernels_(db.prepare(
            "SELECT correlation_id, name_id, function_address, device, stream_index, grid_x, "
            "grid_y,"
            " grid_z, block_x, block_y, block_z, shared_mem_bytes, device_begin_ns, device_end_ns"
            " FROM kernels ORDER BY correlation_id")),
        copies_(db.prepare(
            "SELECT correlation_id, device, stream_index, direction, bytes, device_begin_ns,"
            " device_end_ns FROM copies ORDER BY correlation_id")) {
    more_kernels_ = kernels_.step();
    more_copies_ = copies_.step();
  }
  // The next row into `row` (its call fields untouched); false after the last.
  bool next(DeviceRow& row) {
    if (!more_kernels_ && !more_copies_) return false;
    if (more_kernels_ && (!more_copies_ || kernels_.column_int(0) <= copies_.column_int(0))) {
      row.is_kernel = true;
      row.kernel.correlation_id = kernels_.column_int(0);
      read_kernel(kernels_, row.kernel);
      more_kernels_ = kernels_.step();
    } else {
      row.is_kernel = false;
      row.copy.correlation_id = copies_.column_int(0);
      read_copy(copies_, row.copy);
      more_copies_ = copies_.step();
    }
    return true;
  }

 private:
  Statement kernels_, copies_;
  bool more_kernels_ = false, more_copies_ = false;
};

// The same rows, read on a thread of its own from a second connection to the same file (in a
// read transaction of its own), handed over in batches: the reading of the kernels and copies
// runs beside the reading of the calls.
class DeviceReader {
 public:
  explicit DeviceReader(Database& second)
      : queue_(kBatches, 1), thread_([this, &second] { run(second); }) {}
  ~DeviceReader() {
    queue_.stop();  // an abandoned scan: the thread stops at its next batch
    thread_.join();
  }
  DeviceReader(const DeviceReader&) = delete;
  DeviceReader& operator=(const DeviceReader&) = delete;

  DeviceRow* peek() {
    if (current_ && position_ < current_->size()) return &(*current_)[position_];
    if (current_) queue_.done(current_);
    current_ = queue_.next(0);
    if (!current_) {
      if (std::exception_ptr error = queue_.error()) std::rethrow_exception(error);
      return nullptr;
    }
    position_ = 0;
    return &(*current_)[0];
  }
  void pop() { ++position_; }

 private:
  static constexpr size_t kBatchRows = 2048;
  static constexpr size_t kBatches = 4;
  using Batch = std::vector<DeviceRow>;

  void run(Database& second) {
    try {
      DeviceStatements rows(second);
      for (bool more = true; more;) {
        Batch* b = queue_.take_free();
        if (!b) break;  // stopped
        b->resize(kBatchRows);
        size_t n = 0;
        while (n < kBatchRows && (more = rows.next((*b)[n]))) ++n;
        b->resize(n);
        if (n > 0)
          queue_.publish(b);
        else
          queue_.give_back(b);
      }
    } catch (...) {
      queue_.fail(std::current_exception());
    }
    queue_.close();
  }

  BatchQueue<Batch> queue_;
  Batch* current_ = nullptr;
  size_t position_ = 0;
  std::thread thread_;  // last: it starts once the queue exists
};

// One of the two, as the scan asked.
class DeviceRows {
 public:
  DeviceRows(Database& db, Database* second) {
    if (second)
      reader_.emplace(*second);
    else
      statements_.emplace(db);
  }
  DeviceRow* peek() {
    if (reader_) return reader_->peek();
    if (!ready_) {
      ready_ = true;
      more_ = statements_->next(row_);
    }
    return more_ ? &row_ : nullptr;
  }
  void pop() {
    if (reader_) return reader_->pop();
    ready_ = false;
  }

 private:
  std::optional<DeviceReader> reader_;
  std::optional<DeviceStatements> statements_;
  DeviceRow row_;
  bool ready_ = false, more_ = false;
};

}  // namespace

void scan_events(Database& db, const RowFilter& filter,
                 const std::vector<EventConsumer*>& consumers, ScanOptions options) {
  // ORDER BY the integer primary key (or, in a merged db, the key after process_id) is the
  // table's own order: SQLite walks the b-tree and sorts nothing.
  Statement calls = db.prepare(
      "SELECT correlation_id, api_id, thread_id, begin_ns, end_ns, result, device, bytes, "
      "sequence, stream_index,"
      " aux FROM api_calls ORDER BY correlation_id");
  DeviceRows device(db, options.second_connection);
  // The filter in C++ (RowFilter's SQL, without a subquery per table): a call is covered when its
  // sequence is in the range; a kernel or copy when the call that enqueued it is.
  const auto& range = filter.sequence_range;
  auto covered = [&range](const ApiRow& r) {
    return !range || (r.sequence && *r.sequence >= range->first && *r.sequence <= range->second);
  };
  // Named arguments in (correlation id, name) order: the primary key's index, no sort.
  std::optional<Statement> args;
  bool more_args = false;
  if (options.api_args && db.table_exists("api_args")) {
    args.emplace(db.prepare(
        "SELECT correlation_id, name, value FROM api_args ORDER BY correlation_id, name"));
    more_args = args->step();
  }
  auto read_args = [&](ApiRow& r) {
    r.has_args = false;
    r.args.clear();
    while (more_args && args->column_int(0) <= r.correlation_id) {
      if (args->column_int(0) == r.correlation_id) {
        if (r.has_args) r.args.push_back(',');
        r.has_args = true;
        r.args.append(args->column_text(1));
        r.args.push_back(':');
        r.args.append(args->column_text(2));
      }
      more_args = args->step();
    }
  };
  // Device work up to (before, or at) correlation id `until`, whose call is `with_call` when ids
  // match.
  auto device_work = [&](int64_t until, const ApiRow* with_call) {
    for (DeviceRow* d; (d = device.peek()) && d->id() <= until; device.pop()) {
      const ApiRow* call = with_call && d->id() == with_call->correlation_id ? with_call : nullptr;
      const bool wanted = range ? call && covered(*call) : true;
      if (d->is_kernel)
        hand_over(d->kernel, call, wanted, consumers, &EventConsumer::kernel);
      else
        hand_over(d->copy, call, wanted, consumers, &EventConsumer::copy);
    }
  };
  ApiRow call;
  for (bool more_calls = calls.step(); more_calls; more_calls = calls.step()) {
    read_api(calls, call);
    read_args(call);
    device_work(call.correlation_id, &call);
    if (covered(call))
      for (EventConsumer* c : consumers) c->api(call);
  }
  device_work(INT64_MAX, nullptr);
}

namespace {

struct TimesScan {
  const std::vector<EventConsumer*>* consumers;
  ApiRow api;
  KernelRow kernel;
  CopyRow copy;
};

std::optional<int64_t> value_nullable(sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
  return sqlite3_value_int64(v);
}

// Hands a row to every consumer of the scan; an exception never crosses SQLite's C frames: the
// step fails with its message instead.
template <typename Row>
void feed(sqlite3_context* c, const TimesScan& scan, const Row& r,
          void (EventConsumer::*method)(const Row&)) {
  try {
    for (EventConsumer* consumer : *scan.consumers) (consumer->*method)(r);
  } catch (const std::exception& e) {
    sqlite3_result_error(c, e.what(), -1);
  }
}

void api_times(sqlite3_context* c, int, sqlite3_value** v) {
  auto* scan = static_cast<TimesScan*>(sqlite3_user_data(c));
  ApiRow& r = scan->api;
  r.correlation_id = sqlite3_value_int64(v[0]);
  r.api_id = sqlite3_value_int64(v[1]);
  r.thread_id = sqlite3_value_int64(v[2]);
  r.begin_ns = sqlite3_value_int64(v[3]);
  r.end_ns = sqlite3_value_int64(v[4]);
  feed(c, *scan, r, &EventConsumer::api);
}

void kernel_times(sqlite3_context* c, int, sqlite3_value** v) {
  auto* scan = static_cast<TimesScan*>(sqlite3_user_data(c));
  KernelRow& r = scan->kernel;
  r.correlation_id = sqlite3_value_int64(v[0]);
  r.name_id = value_nullable(v[1]);
  r.device = sqlite3_value_int64(v[2]);
  r.stream_index = sqlite3_value_int64(v[3]);
  r.device_begin_ns = value_nullable(v[4]);
  r.device_end_ns = value_nullable(v[5]);
  feed(c, *scan, r, &EventConsumer::kernel);
}

void copy_times(sqlite3_context* c, int, sqlite3_value** v) {
  auto* scan = static_cast<TimesScan*>(sqlite3_user_data(c));
  CopyRow& r = scan->copy;
  r.correlation_id = sqlite3_value_int64(v[0]);
  r.device = sqlite3_value_int64(v[1]);
  r.stream_index = sqlite3_value_int64(v[2]);
  r.direction = sqlite3_value_int64(v[3]);
  r.device_begin_ns = value_nullable(v[4]);
  r.device_end_ns = value_nullable(v[5]);
  feed(c, *scan, r, &EventConsumer::copy);
}

void no_result(sqlite3_context* c) { sqlite3_result_null(c); }

}  // namespace

void scan_event_times(Database& db, const RowFilter& filter,
                      const std::vector<EventConsumer*>& consumers, TimeTables tables) {
  TimesScan scan{&consumers, {}, {}, {}};
  struct Function {
    const char* name;
    int args;
    void (*step)(sqlite3_context*, int, sqlite3_value**);
    std::string sql;
    bool calls;  // of the calls table (else of the kernels or copies)
  };
  const Function functions[] = {
      {"prof_api_times", 5, api_times,
       "SELECT prof_api_times(c.correlation_id, c.api_id, c.thread_id, c.begin_ns, c.end_ns) FROM "
       "api_calls c"
       " WHERE " +
           filter.api_condition("c"),
       true},
      {"prof_kernel_times", 6, kernel_times,
       "SELECT prof_kernel_times(k.correlation_id, k.name_id, k.device, k.stream_index, "
       "k.device_begin_ns,"
       " k.device_end_ns) FROM kernels k WHERE " +
           filter.activity_condition("k") +
           // Launch order, for --kernel-iteration-range (the table's own order: no sort).
           " ORDER BY k.correlation_id",
       false},
      {"prof_copy_times", 6, copy_times,
       "SELECT prof_copy_times(m.correlation_id, m.device, m.stream_index, m.direction, "
       "m.device_begin_ns,"
       " m.device_end_ns) FROM copies m WHERE " +
           filter.activity_condition("m"),
       false},
  };
  // An aggregate function per table: SQLite calls it for every row inside one step. The
  // functions exist only for this scan (they point at it).
  struct Unregister {
    Database& db;
    const Function* functions;
    ~Unregister() {
      for (int i = 0; i < 3; ++i)
        sqlite3_create_function_v2(db.handle(), functions[i].name, functions[i].args, SQLITE_UTF8,
                                   nullptr, nullptr, nullptr, nullptr, nullptr);
    }
  } unregister{db, functions};
  for (const Function& f : functions) {
    if (sqlite3_create_function_v2(db.handle(), f.name, f.args, SQLITE_UTF8, &scan, nullptr, f.step,
                                   no_result, nullptr) != SQLITE_OK)
      db.fail(std::string("registering ") + f.name);
  }
  for (const Function& f : functions) {
    if (tables == (f.calls ? TimeTables::kDeviceWork : TimeTables::kCalls)) continue;
    Statement st = db.prepare(f.sql);
    filter.bind(st);
    st.step();
  }
}

}  // namespace prof::report
