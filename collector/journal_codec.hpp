// The journal's record encoding: a record is 8 little-endian 64-bit words, written as its type
// byte, a byte whose bit k says word k differs from the previous record of the same type in the
// block, and for each such word the zigzag varint of the difference (0xFF as that byte: the 64
// bytes follow as they are). A run's records differ from their predecessors in a few small
// steps (the next correlation id, a begin some ns later), so a call takes 6-10 bytes instead of
// 64: the mover writes a tenth of the bytes, and fresh page-cache pages are what a journal write
// costs (docs/performance.md, "The journal's bytes").
//
// Blocks: a JournalBlock header, then `payload_bytes` of encoded records. The state (previous
// record per type) starts from zeros in every block, so each block decodes on its own and a
// block cut short by a kill is recognised by its length and dropped whole.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/record.hpp"

namespace prof::collector {

struct JournalBlock {
  uint32_t payload_bytes;
  uint32_t records;
};
inline constexpr uint32_t kJournalBlockRecords = 16384;            // at most, per block
inline constexpr size_t kJournalMaxRecordBytes = 2 + kRecordBytes;  // one record's worst case (raw)

// Writes one block holding records `get(0) .. get(count - 1)` (count <= kJournalBlockRecords) at
// `out`, which has room for journal_block_bound(count) bytes; returns the end of what it wrote.
template <typename Get>
unsigned char* encode_journal_block(unsigned char* out, uint64_t count, Get get);
inline constexpr size_t journal_block_bound(uint64_t count) {
  return sizeof(JournalBlock) + count * kJournalMaxRecordBytes;
}
// Decodes one block's payload into `out` (appending); false if it is not a valid block.
bool decode_journal_block(const unsigned char* payload, size_t bytes, uint32_t records, std::vector<Record>& out);

// ---- inline: the encoder runs on the mover, once per record ----

namespace journal_codec {
inline unsigned char* put_varint(unsigned char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return p;
}
inline constexpr int kTypeSlots = 8;  // previous record per (type & 7)
}  // namespace journal_codec

template <typename Get>
unsigned char* encode_journal_block(unsigned char* out, uint64_t count, Get get) {
  using namespace journal_codec;
  unsigned char* const payload = out + sizeof(JournalBlock);
  unsigned char* p = payload;
  uint64_t prev[kTypeSlots][8] = {};
  for (uint64_t k = 0; k < count; ++k) {
    const Record& r = get(k);
    uint64_t w[8];
    __builtin_memcpy(w, r.raw, sizeof w);
    uint64_t* last = prev[r.type & (kTypeSlots - 1)];
    unsigned mask = 0;
    for (int i = 0; i < 8; ++i) mask |= static_cast<unsigned>(w[i] != last[i]) << i;
    *p++ = r.type;
    *p++ = static_cast<unsigned char>(mask);
    if (mask == 0xFF) {
      __builtin_memcpy(p, w, sizeof w);
      __builtin_memcpy(last, w, sizeof w);
      p += sizeof w;
    } else {
      for (unsigned m = mask; m != 0; m &= m - 1) {  // the words that differ, in order
        const int i = __builtin_ctz(m);
        const int64_t d = static_cast<int64_t>(w[i] - last[i]);
        const uint64_t z = (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
        if (z < 0x80) *p++ = static_cast<unsigned char>(z);
        else p = put_varint(p, z);
        last[i] = w[i];
      }
    }
  }
  const JournalBlock block{static_cast<uint32_t>(p - payload), static_cast<uint32_t>(count)};
  __builtin_memcpy(out, &block, sizeof block);
  return p;
}

}  // namespace prof::collector
