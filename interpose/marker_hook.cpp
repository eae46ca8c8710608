// The one function that publishes a marker, for every marker runtime's hooks (hooks_roctx.cpp,
// hooks_mstx.cpp: the shape is marker_hook.hpp's).
#include <cstring>

#include "interpose/marker_hook.hpp"

namespace prof::interpose {

void emit_marker(ThreadBuffer& buffer, MarkerKind kind, uint16_t api_id, uint64_t time_ns,
                 int64_t value, uint64_t stream, const char* message) noexcept {
  // strnlen: never reads past the bound, so a message without a terminator costs at most that.
  const size_t length = message ? strnlen(message, kMarkerMessageMaxBytes) : 0;
  Record* r = buffer.reserve();
  if (!r) return;
  MarkerRecord& m = r->marker;
  m.type = static_cast<uint8_t>(RecordType::kMarker);
  m.kind = static_cast<uint8_t>(kind);
  m.api_id = api_id;
  m.length = static_cast<uint32_t>(length);
  m.time_ns = time_ns;
  m.value = value;
  m.stream = stream;
  m.reserved0 = 0;
  const size_t inline_bytes = length < kMarkerInlineBytes ? length : kMarkerInlineBytes;
  if (inline_bytes) memcpy(m.text, message, inline_bytes);
  buffer.commit();
  // The rest in continuations, published one by one: the collector waits for all of them.
  for (size_t off = inline_bytes; off < length; off += sizeof(r->string_data.text)) {
    r = buffer.reserve();
    if (!r) return;
    r->string_data.type = static_cast<uint8_t>(RecordType::kStringData);
    const size_t n =
        length - off < sizeof(r->string_data.text) ? length - off : sizeof(r->string_data.text);
    memcpy(r->string_data.text, message + off, n);
    buffer.commit();
  }
}

}  // namespace prof::interpose
