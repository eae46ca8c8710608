// The ground-truth file (PROF_SIM_TRUTH): one JSON line per completed kernel, copy or memset,
// written by the worker at completion with a single write(2) on an O_APPEND descriptor, so lines
// from several processes do not interleave and a line survives the process being killed later.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

struct TruthFile {
  std::mutex mutex;
  int fd = -1;
};

TruthFile* open_truth() {
  const char* path = std::getenv("PROF_SIM_TRUTH");
  if (path == nullptr || *path == '\0') return nullptr;
  auto* t = new TruthFile;  // never destroyed
  t->fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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

}  // namespace

void write_truth(const Stream& stream, const Op& op) noexcept {
  TruthFile* t = truth_file();
  if (t == nullptr || t->fd < 0) return;
  const uint64_t bytes = op.kind == OpKind::kKernel ? 0 : static_cast<uint64_t>(op.width_bytes) * op.height;
  const char* direction = op.kind == OpKind::kCopy     ? direction_name(op.direction)
                          : op.kind == OpKind::kMemset ? "memset"
                                                       : nullptr;
  char head[512];
  std::snprintf(head, sizeof head,
                "{\"kind\":\"%s\",\"device\":%d,\"stream\":%llu,\"stream_seq\":%llu,\"op_seq\":%llu,"
                "\"begin_ns\":%llu,\"end_ns\":%llu,\"bytes\":%llu,\"direction\":",
                kind_name(op.kind), stream.device, static_cast<unsigned long long>(stream.handle_value),
                static_cast<unsigned long long>(op.stream_seq), static_cast<unsigned long long>(op.op_seq),
                static_cast<unsigned long long>(op.begin_ns), static_cast<unsigned long long>(op.end_ns),
                static_cast<unsigned long long>(bytes));
  std::string line = head;
  append_json_string(line, direction);
  std::snprintf(head, sizeof head,
                ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shared_mem_bytes\":%llu,\"function\":%llu,\"name\":",
                op.grid.x, op.grid.y, op.grid.z, op.block.x, op.block.y, op.block.z,
                static_cast<unsigned long long>(op.shared_mem_bytes), static_cast<unsigned long long>(op.function));
  line += head;
  append_json_string(line, op.name);
  line += "}\n";
  std::lock_guard<std::mutex> guard(t->mutex);
  // One write per line: O_APPEND makes it atomic with respect to other writers of the file.
  for (size_t done = 0; done < line.size();) {
    const ssize_t n = ::write(t->fd, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace prof::sim
