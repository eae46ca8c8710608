#include "report/event_pass.hpp"

#include <climits>
#include <exception>

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

CallOf call_of(const ApiRow& r) { return {r.thread_id, r.begin_ns, r.end_ns, r.api_id}; }

}  // namespace

void scan_events(Database& db, const RowFilter& filter, const std::vector<EventConsumer*>& consumers,
                 ScanOptions options) {
  // ORDER BY the integer primary key (or, in a merged db, the key after process_id) is the
  // table's own order: SQLite walks the b-tree and sorts nothing.
  Statement calls = db.prepare(
      "SELECT correlation_id, api_id, thread_id, begin_ns, end_ns, result, device, bytes, sequence, stream_index,"
      " aux FROM api_calls ORDER BY correlation_id");
  Statement kernels = db.prepare(
      "SELECT correlation_id, name_id, function_address, device, stream_index, grid_x, grid_y, grid_z, block_x,"
      " block_y, block_z, shared_mem_bytes, device_begin_ns, device_end_ns FROM kernels ORDER BY correlation_id");
  Statement copies = db.prepare(
      "SELECT correlation_id, device, stream_index, direction, bytes, device_begin_ns, device_end_ns FROM copies"
      " ORDER BY correlation_id");
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
    args.emplace(db.prepare("SELECT correlation_id, name, value FROM api_args ORDER BY correlation_id, name"));
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
  ApiRow call;
  KernelRow kernel;
  CopyRow copy;
  bool more_calls = calls.step(), more_kernels = kernels.step(), more_copies = copies.step();
  // Device work up to (before, or at) correlation id `until` whose call is `call` when ids match.
  auto device_work = [&](int64_t until, const ApiRow* with_call) {
    while (more_kernels && (kernel.correlation_id = kernels.column_int(0)) <= until) {
      read_kernel(kernels, kernel);
      const bool has_call = with_call && kernel.correlation_id == with_call->correlation_id;
      kernel.call_thread_id = has_call ? std::optional<int64_t>(with_call->thread_id) : std::nullopt;
      if (has_call) kernel.call = call_of(*with_call);
      if (range ? has_call && covered(*with_call) : true)
        for (EventConsumer* c : consumers) c->kernel(kernel);
      more_kernels = kernels.step();
    }
    while (more_copies && (copy.correlation_id = copies.column_int(0)) <= until) {
      read_copy(copies, copy);
      const bool has_call = with_call && copy.correlation_id == with_call->correlation_id;
      copy.call_thread_id = has_call ? std::optional<int64_t>(with_call->thread_id) : std::nullopt;
      if (has_call) copy.call = call_of(*with_call);
      if (range ? has_call && covered(*with_call) : true)
        for (EventConsumer* c : consumers) c->copy(copy);
      more_copies = copies.step();
    }
  };
  while (more_calls) {
    read_api(calls, call);
    read_args(call);
    device_work(call.correlation_id, &call);
    if (covered(call))
      for (EventConsumer* c : consumers) c->api(call);
    more_calls = calls.step();
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

void api_times(sqlite3_context* c, int, sqlite3_value** v) {
  auto* scan = static_cast<TimesScan*>(sqlite3_user_data(c));
  ApiRow& r = scan->api;
  r.correlation_id = sqlite3_value_int64(v[0]);
  r.api_id = sqlite3_value_int64(v[1]);
  r.thread_id = sqlite3_value_int64(v[2]);
  r.begin_ns = sqlite3_value_int64(v[3]);
  r.end_ns = sqlite3_value_int64(v[4]);
  try {
    for (EventConsumer* consumer : *scan->consumers) consumer->api(r);
  } catch (const std::exception& e) {  // never through SQLite's C frames: the step fails instead
    sqlite3_result_error(c, e.what(), -1);
  }
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
  try {
    for (EventConsumer* consumer : *scan->consumers) consumer->kernel(r);
  } catch (const std::exception& e) {  // never through SQLite's C frames: the step fails instead
    sqlite3_result_error(c, e.what(), -1);
  }
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
  try {
    for (EventConsumer* consumer : *scan->consumers) consumer->copy(r);
  } catch (const std::exception& e) {  // never through SQLite's C frames: the step fails instead
    sqlite3_result_error(c, e.what(), -1);
  }
}

void no_result(sqlite3_context* c) { sqlite3_result_null(c); }

}  // namespace

void scan_event_times(Database& db, const RowFilter& filter, const std::vector<EventConsumer*>& consumers) {
  TimesScan scan{&consumers, {}, {}, {}};
  struct Function {
    const char* name;
    int args;
    void (*step)(sqlite3_context*, int, sqlite3_value**);
    std::string sql;
  };
  const Function functions[] = {
      {"prof_api_times", 5, api_times,
       "SELECT prof_api_times(c.correlation_id, c.api_id, c.thread_id, c.begin_ns, c.end_ns) FROM api_calls c"
       " WHERE " + filter.api_condition("c")},
      {"prof_kernel_times", 6, kernel_times,
       "SELECT prof_kernel_times(k.correlation_id, k.name_id, k.device, k.stream_index, k.device_begin_ns,"
       " k.device_end_ns) FROM kernels k WHERE " + filter.activity_condition("k")},
      {"prof_copy_times", 6, copy_times,
       "SELECT prof_copy_times(m.correlation_id, m.device, m.stream_index, m.direction, m.device_begin_ns,"
       " m.device_end_ns) FROM copies m WHERE " + filter.activity_condition("m")},
  };
  // An aggregate function per table: SQLite calls it for every row inside one step. The
  // functions exist only for this scan (they point at it).
  struct Unregister {
    Database& db;
    const Function* functions;
    ~Unregister() {
      for (int i = 0; i < 3; ++i)
        sqlite3_create_function_v2(db.handle(), functions[i].name, functions[i].args, SQLITE_UTF8, nullptr, nullptr,
                                   nullptr, nullptr, nullptr);
    }
  } unregister{db, functions};
  for (const Function& f : functions) {
    if (sqlite3_create_function_v2(db.handle(), f.name, f.args, SQLITE_UTF8, &scan, nullptr, f.step, no_result,
                                   nullptr) != SQLITE_OK)
      db.fail(std::string("registering ") + f.name);
  }
  for (const Function& f : functions) {
    Statement st = db.prepare(f.sql);
    filter.bind(st);
    st.step();
  }
}

}  // namespace prof::report
