#include "report/event_pass.hpp"

#include <climits>

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

}  // namespace

void scan_events(Database& db, const RowFilter& filter, const std::vector<EventConsumer*>& consumers) {
  // ORDER BY the integer primary key (or, in a merged db, the key after process_id) is the
  // table's own order: SQLite walks the b-tree and sorts nothing.
  Statement calls = db.prepare(
      "SELECT correlation_id, api_id, thread_id, begin_ns, end_ns, result, device, bytes, sequence, stream_index"
      " FROM api_calls ORDER BY correlation_id");
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
      if (range ? has_call && covered(*with_call) : true)
        for (EventConsumer* c : consumers) c->kernel(kernel);
      more_kernels = kernels.step();
    }
    while (more_copies && (copy.correlation_id = copies.column_int(0)) <= until) {
      read_copy(copies, copy);
      const bool has_call = with_call && copy.correlation_id == with_call->correlation_id;
      copy.call_thread_id = has_call ? std::optional<int64_t>(with_call->thread_id) : std::nullopt;
      if (range ? has_call && covered(*with_call) : true)
        for (EventConsumer* c : consumers) c->copy(copy);
      more_copies = copies.step();
    }
  };
  while (more_calls) {
    read_api(calls, call);
    device_work(call.correlation_id, &call);
    if (covered(call))
      for (EventConsumer* c : consumers) c->api(call);
    more_calls = calls.step();
  }
  device_work(INT64_MAX, nullptr);
}

}  // namespace prof::report
