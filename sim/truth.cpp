// The ground-truth file (PROF_SIM_TRUTH): one JSON line per completed kernel, copy or memset,
// written with a single write(2) on an O_APPEND descriptor, so lines from several processes do
// not interleave and a line survives the process being killed later. Async ops are written by
// their worker at completion; blocking copies and memsets are deferred (defer_truth) and written
// shortly after their call returned, by a worker, a synchronize call or at exit.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

struct Deferred {
  int device;
  uint64_t stream_handle;
  Op op;  // without its dependencies
};

struct TruthFile {
  std::mutex mutex;
  int fd = -1;
  std::mutex deferred_mutex;
  std::vector<Deferred> deferred;  // guarded by deferred_mutex
  // Lines deferred and not yet written, also those another thread's flush is writing now: a
  // synchronize's flush must not return while a worker's flush still holds its lines.
  std::atomic<uint64_t> unwritten{0};
  std::mutex flush_mutex;  // held by a flush from taking the lines to writing the last one
};

void flush_at_exit() { flush_deferred_truth(); }

TruthFile* open_truth() {
  const char* path = std::getenv("PROF_SIM_TRUTH");
  if (path == nullptr || *path == '\0') return nullptr;
  auto* t = new TruthFile;  // never destroyed
  t->fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  // Touched now: the first lines deferred on a program's thread must not page-fault in the
  // storage between a blocking copy's end and its return.
  t->deferred.resize(256);
  t->deferred.clear();
  std::atexit(flush_at_exit);
  return t;
}

TruthFile* truth_file() {
  static TruthFile* t = open_truth();
  return t;
}

void append_json_string(std::string& out, const char* text) {
  if (text == nullptr) {
    out += "null";
    return;
  }
  out += '"';
  for (const char* p = text; *p != '\0'; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

const char* kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kKernel: return "kernel";
    case OpKind::kCopy: return "copy";
    default: return "memset";
  }
}

// on_caller: the op ran on the thread that called (a blocking copy, memset or launch): its end is
// when that call began to return.
void write_line(TruthFile* t, int device, uint64_t stream_handle, const Op& op,
                bool on_caller) noexcept {
  const uint64_t bytes =
      op.kind == OpKind::kKernel ? 0 : static_cast<uint64_t>(op.width_bytes) * op.height;
  const char* direction = op.kind == OpKind::kCopy     ? direction_name(op.direction)
                          : op.kind == OpKind::kMemset ? "memset"
                                                       : nullptr;
  char head[512];
  std::snprintf(
      head, sizeof head,
      "{\"kind\":\"%s\",\"device\":%d,\"stream\":%llu,\"stream_seq\":%llu,\"op_seq\":%llu,"
      "\"begin_ns\":%llu,\"end_ns\":%llu,\"bytes\":%llu,\"direction\":",
      kind_name(op.kind), device, static_cast<unsigned long long>(stream_handle),
      static_cast<unsigned long long>(op.stream_seq), static_cast<unsigned long long>(op.op_seq),
      static_cast<unsigned long long>(op.begin_ns), static_cast<unsigned long long>(op.end_ns),
      static_cast<unsigned long long>(bytes));
  std::string line = head;
  append_json_string(line, direction);
  std::snprintf(head, sizeof head,
                ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shared_mem_bytes\":%llu,\"function\":%"
                "llu,\"name\":",
                op.grid.x, op.grid.y, op.grid.z, op.block.x, op.block.y, op.block.z,
                static_cast<unsigned long long>(op.shared_mem_bytes),
                static_cast<unsigned long long>(op.function));
  line += head;
  append_json_string(line, op.name);
  line += on_caller ? ",\"on_caller\":true}\n" : ",\"on_caller\":false}\n";
  std::lock_guard<std::mutex> guard(t->mutex);
  // One write per line: O_APPEND makes it atomic with respect to other writers of the file.
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(t->fd, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void write_truth(const Stream& stream, const Op& op) noexcept {
  activity_report(stream, op);
  TruthFile* t = truth_file();
  if (t == nullptr || t->fd < 0) return;
  write_line(t, stream.device, stream.handle_value, op, /*on_caller=*/false);
}

void open_truth_file() noexcept { (void)truth_file(); }

bool truth_recorded() noexcept { return truth_file() != nullptr; }

void defer_truth(const Stream& stream, Op& op, bool end_now) noexcept {
  TruthFile* t = truth_file();
  if (t == nullptr || t->fd < 0) {
    if (end_now) op.end_ns = now_ns();
    activity_report(stream, op);
    return;
  }
  {
    std::lock_guard<std::mutex> guard(t->deferred_mutex);
    // The op without its dependencies (moved out and back: no allocation on this path).
    std::vector<Dependency> deps = std::move(op.deps);
    op.deps.clear();
    Deferred& d = t->deferred.emplace_back(Deferred{stream.device, stream.handle_value, op});
    op.deps = std::move(deps);
    // Read last: everything this call still touches before it returns is now in cache.
    if (end_now) op.end_ns = now_ns();
    d.op.end_ns = op.end_ns;
    t->unwritten.fetch_add(1, std::memory_order_release);
  }
  activity_report(stream, op);
}

void flush_deferred_truth() noexcept {
  TruthFile* t = truth_file();
  if (t == nullptr || t->unwritten.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> flushing(t->flush_mutex);
  // This thread's buffer, kept with its capacity: what is swapped in for the program's threads to
  // fill next is storage already touched, never a fresh allocation (page faults on their path).
  thread_local std::vector<Deferred> lines;
  if (lines.capacity() < 256) {
    lines.resize(256);
    lines.clear();
  }
  {
    std::lock_guard<std::mutex> guard(t->deferred_mutex);
    lines.swap(t->deferred);
  }
  for (const Deferred& d : lines)
    write_line(t, d.device, d.stream_handle, d.op, /*on_caller=*/true);
  t->unwritten.fetch_sub(lines.size(), std::memory_order_release);
  lines.clear();
}

void lock_truth_for_fork(bool outer) noexcept {
  TruthFile* t = truth_file();
  if (t == nullptr) return;
  if (outer) {
    t->flush_mutex.lock();
  } else {
    t->deferred_mutex.lock();
    t->mutex.lock();
  }
}

void unlock_truth_after_fork(bool child) noexcept {
  TruthFile* t = truth_file();
  if (t == nullptr) return;
  if (child) {
    t->deferred.clear();
    t->unwritten.store(0, std::memory_order_relaxed);
  }
  t->mutex.unlock();
  t->deferred_mutex.unlock();
  t->flush_mutex.unlock();
}

}  // namespace prof::sim
