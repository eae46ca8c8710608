// The journal's record encoding. A record is 8 little-endian 64-bit words; each is written
// against the previous record of the same type in the block (`last`), in one of three forms:
//
// - step: a byte 0x80 | b3 << 4 | b2 << 3 | (type & 7), then the zigzag differences of words 2
//   and 3 (a call's begin and end) in 1 + b2 and 1 + b3 little-endian bytes. It says that word 1
//   (the correlation id) is one more than last's and every other word is last's. A busy thread's
//   calls are nearly all steps: 3 bytes for a hipStreamQuery, written without a data-dependent
//   branch (the mover runs this once per record, on the program's CPUs when it moves its own).
// - mask: the type byte (1..0x7F), a byte whose bit k says word k differs from last's, and for
//   each such word the zigzag varint of the difference (0xFF as that byte: the 64 bytes follow
//   as they are).
// - escaped mask: a 0 byte, then the type byte (0 or 0x80..0xFF), then the mask form's rest.
//   Rings hold types 1..7 only; this keeps every record exact whatever its bytes.
//
// A call takes 3-10 bytes instead of 64: the mover writes a tenth of the bytes or less, and fresh
// page-cache pages are what a journal write costs (docs/bench-data/performance-history.md, "The
// journal's bytes").
//
// Blocks: a JournalBlock header, then `payload_bytes` of encoded records. The state (previous
// record per type) starts from zeros in every block, so each block decodes on its own and a
// block cut short by a kill is recognised by its length and dropped whole.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/record.hpp"

namespace prof {

struct JournalBlock {
  uint32_t payload_bytes;
  uint32_t records;
};
inline constexpr uint32_t kJournalBlockRecords = 16384;  // at most, per block
inline constexpr size_t kJournalMaxRecordBytes =
    3 + kRecordBytes;                                // one record's worst case (escaped, raw)
inline constexpr size_t kJournalMinRecordBytes = 3;  // one record's least (a step)

// Writes one block holding records `get(0) .. get(count - 1)` (count <= kJournalBlockRecords) at
// `out`, which has room for journal_block_bound(count) bytes; returns the end of what it wrote.
template <typename Get>
unsigned char* encode_journal_block(unsigned char* out, uint64_t count, Get get);
inline constexpr size_t journal_block_bound(uint64_t count) {
  return sizeof(JournalBlock) + count * kJournalMaxRecordBytes;
}
// Records get(0) .. get(count - 1) as blocks of at most `block_records` records, as many whole
// blocks as fit their bound in [out, out_end): returns the end of what it wrote and sets `done` to
// the records it encoded (the mover's and a thread's moves, and a journal's own appends).
template <typename Get>
unsigned char* encode_journal_blocks(unsigned char* out, const unsigned char* out_end,
                                     uint64_t count, uint64_t block_records, Get get,
                                     uint64_t& done);
// Decodes one block's payload into `out` (appending); false if it is not a valid block.
bool decode_journal_block(const unsigned char* payload, size_t bytes, uint32_t records,
                          std::vector<Record>& out);

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
inline constexpr uint64_t kPrefetchRecords = 8;

// A zigzag difference as a varint: most take one byte.
inline unsigned char* put_zigzag(unsigned char* p, uint64_t z) {
  if (z < 0x80) {
    *p++ = static_cast<unsigned char>(z);
    return p;
  }
  return put_varint(p, z);
}

// A type byte the mask form writes as it is, and a step may stand for (rings hold 1..7); any
// other is escaped (see the top of this file).
inline bool plain_type(unsigned char type) { return static_cast<unsigned>(type) - 1 < 0x7F; }

inline uint64_t zigzag(uint64_t difference) {
  return (difference << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(difference) >> 63);
}
inline void store16(unsigned char* p, uint64_t v) {
  const uint16_t half = static_cast<uint16_t>(v);
  __builtin_memcpy(p, &half, sizeof half);
}

// Word i of a record, loaded from the record itself.
inline uint64_t word(const unsigned char* raw, int i) {
  uint64_t w;
  __builtin_memcpy(&w, raw + 8 * i, sizeof w);
  return w;
}

// The words a step keeps from the record before it: word 0 (the type byte and what shares its
// word) and words 4-7, loaded once from `last` (the run of steps keeps them in registers).
struct KeptWords {
  explicit KeptWords(const uint64_t* last)
      : w0(last[0])
#if defined(__SSE2__)
        ,
        w45(_mm_loadu_si128(reinterpret_cast<const __m128i*>(last + 4))),
        w67(_mm_loadu_si128(reinterpret_cast<const __m128i*>(last + 6)))
#else
        ,
        w4(last[4]),
        w5(last[5]),
        w6(last[6]),
        w7(last[7])
#endif
  {
  }
  uint64_t w0;
#if defined(__SSE2__)
  __m128i w45, w67;
#else
  uint64_t w4, w5, w6, w7;
#endif
};
// Nonzero when any of the kept words of `raw` differs from `kept`'s. Words 4-7 are compared 16
// bytes at a time where SSE2 is: fewer instructions than four compares and ors. `kept` by value:
// taken by reference, the run of steps measured 0.1-0.2 ns a record slower (journal_codec_bench).
inline uint64_t kept_words_differ(const unsigned char* raw, KeptWords kept) {
#if defined(__SSE2__)
  const __m128i same_hi = _mm_and_si128(
      _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(raw + 32)), kept.w45),
      _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(raw + 48)), kept.w67));
  return (word(raw, 0) ^ kept.w0) | static_cast<uint64_t>(_mm_movemask_epi8(same_hi) ^ 0xFFFF);
#else
  return (word(raw, 0) ^ kept.w0) | (word(raw, 4) ^ kept.w4) | (word(raw, 5) ^ kept.w5) |
         (word(raw, 6) ^ kept.w6) | (word(raw, 7) ^ kept.w7);
#endif
}

// Whether a record is a step from `last`: no other word differs (`others` is 0), the id is one
// more than last's (w1, l1), and the zigzag differences of the times fit 2 bytes.
inline bool is_step(uint64_t others, uint64_t z2, uint64_t z3, uint64_t w1, uint64_t l1) {
  return (others | ((z2 | z3) >> 16) | ((w1 - l1) ^ 1)) == 0;
}
inline unsigned char step_tag(uint64_t type) {
  return static_cast<unsigned char>(0x80 | (type & 7));
}
// A step's bytes at `p`: the tag with the differences' lengths, then the differences.
inline unsigned char* put_step(unsigned char* p, unsigned char tag, uint64_t z2, uint64_t z3) {
  const unsigned b2 = z2 > 0xFF, b3 = z3 > 0xFF;
  p[0] = static_cast<unsigned char>(tag | b3 << 4 | b2 << 3);
  store16(p + 1,
          z2);  // (a 1-byte difference's second byte is overwritten next, or lies past the end)
  p += 2 + b2;
  store16(p, z3);
  return p + 1 + b3;
}

// The step form, when it applies (see the top of this file): its bytes at `p`, `last` updated,
// and the end of what it wrote; nullptr when the record is not a step from `last`. Each word is
// loaded from the record itself: copied into an array first, the words were reloaded from
// stores of another width, which costs a stalled load per record.
inline unsigned char* encode_step(unsigned char* p, const unsigned char* raw, uint64_t* last) {
  const uint64_t w1 = word(raw, 1), w2 = word(raw, 2), w3 = word(raw, 3);
  const uint64_t others = kept_words_differ(raw, KeptWords(last));
  const uint64_t z2 = zigzag(w2 - last[2]), z3 = zigzag(w3 - last[3]);
  if (!is_step(others, z2, z3, w1, last[1]) || !plain_type(raw[0])) return nullptr;
  last[1] = w1;
  last[2] = w2;
  last[3] = w3;
  return put_step(p, step_tag(raw[0]), z2, z3);
}

// The mask forms' first bytes: the type, escaped unless it is 1..0x7F.
inline unsigned char* put_type(unsigned char* p, unsigned char type) {
  if (!plain_type(type)) *p++ = 0;
  *p++ = type;
  return p;
}

// Writes one record: its type, the mask of the words that differ from the previous record of
// its type (`last`), and their zigzag differences (or the raw record when all 8 differ); `last`
// becomes the record. Word by word: the definition, and the encoder where SSE2 is missing.
inline unsigned char* encode_record_portable(unsigned char* p, const unsigned char* raw,
                                             uint64_t* last) {
  uint64_t w[8];
  __builtin_memcpy(w, raw, sizeof w);
  unsigned mask = 0;
  for (int i = 0; i < 8; ++i) mask |= static_cast<unsigned>(w[i] != last[i]) << i;
  p = put_type(p, raw[0]);
  *p++ = static_cast<unsigned char>(mask);
  if (mask == 0xFF) {
    __builtin_memcpy(p, raw, kRecordBytes);
    p += kRecordBytes;
  } else {
    for (unsigned m = mask; m != 0; m &= m - 1) {  // the words that differ, in order
      const int i = __builtin_ctz(m);
      p = put_zigzag(p, zigzag(w[i] - last[i]));
    }
  }
  __builtin_memcpy(last, w, sizeof w);
  return p;
}

#if defined(__SSE2__)
// The same bytes as encode_record_portable (collector_journal_test compares them): the compares
// and differences 16 bytes at a time, kept in registers. The word loop of compares and shifts,
// and reloading 8 bytes at a time what was just stored 16 bytes at a time, were most of the
// mover's encoding time (docs/bench-data/performance-history.md, section 8).
inline unsigned char* encode_record_sse2(unsigned char* p, const unsigned char* raw,
                                         uint64_t* last) {
  __m128i zz[4];
  unsigned same32 = 0;  // bit j: 32-bit half j equal
  for (int v = 0; v < 4; ++v) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(raw) + v);
    __m128i* lastv = reinterpret_cast<__m128i*>(last) + v;
    const __m128i l = _mm_loadu_si128(lastv);
    same32 |= static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(w, l))))
              << (4 * v);
    const __m128i d = _mm_sub_epi64(w, l);
    // zigzag: (d << 1) ^ (d >> 63); the sign of each 64-bit lane from its high half.
    const __m128i sign = _mm_shuffle_epi32(_mm_srai_epi32(d, 31), _MM_SHUFFLE(3, 3, 1, 1));
    zz[v] = _mm_xor_si128(_mm_slli_epi64(d, 1), sign);
    _mm_storeu_si128(lastv, w);
  }
  unsigned same = same32 & (same32 >> 1) & 0x5555;  // bit 2i: word i equal
  same = (same | (same >> 1)) & 0x3333;             // gather the even bits into bits 0..7
  same = (same | (same >> 2)) & 0x0f0f;
  same = (same | (same >> 4)) & 0x00ff;
  const unsigned mask = ~same & 0xffu;
  p = put_type(p, raw[0]);
  *p++ = static_cast<unsigned char>(mask);
  if (mask == 0xFF) {
    __builtin_memcpy(p, raw, kRecordBytes);
    return p + kRecordBytes;
  }
  for (int v = 0; v < 4; ++v) {
    const unsigned pair = (mask >> (2 * v)) & 3;
    if (pair & 1) p = put_zigzag(p, static_cast<uint64_t>(_mm_cvtsi128_si64(zz[v])));
    if (pair & 2)
      p = put_zigzag(p, static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(zz[v], zz[v]))));
  }
  return p;
}
#endif

inline unsigned char* encode_record(unsigned char* p, const unsigned char* raw, uint64_t* last) {
  if (unsigned char* end = encode_step(p, raw, last)) [[likely]]
    return end;
#if defined(__SSE2__)
  return encode_record_sse2(p, raw, last);
#else
  return encode_record_portable(p, raw, last);
#endif
}

// Records get(k), get(k + 1), ... while each is a step from the one before it (the same type,
// every word but the id and the times unchanged): their step bytes at `p`, as encode_step writes
// them. `last` is the previous record of their type (the one just encoded); its words are held in
// registers for the run instead of stored and reloaded at every record, and written back at the
// end. Returns the index of the first record that is not such a step (or `count`); `p` advances.
template <typename Get>
uint64_t encode_step_run(unsigned char*& p, uint64_t k, uint64_t count, Get& get, uint64_t* last) {
  if (!plain_type(static_cast<unsigned char>(last[0])))
    return k;  // escaped types take the mask form
  const KeptWords kept(last);
  uint64_t l1 = last[1], l2 = last[2], l3 = last[3];
  const unsigned char tag = step_tag(kept.w0);
  unsigned char* q = p;
  for (; k < count; ++k) {
    const unsigned char* raw = get(k).raw;
    if (k + kPrefetchRecords < count) __builtin_prefetch(&get(k + kPrefetchRecords));
    const uint64_t w1 = word(raw, 1), w2 = word(raw, 2), w3 = word(raw, 3);
    const uint64_t others = kept_words_differ(raw, kept);
    const uint64_t z2 = zigzag(w2 - l2), z3 = zigzag(w3 - l3);
    // Word 0 unchanged: the same type byte, so the same slot, and a plain type (checked above).
    if (!is_step(others, z2, z3, w1, l1)) break;
    q = put_step(q, tag, z2, z3);
    l1 = w1;
    l2 = w2;
    l3 = w3;
  }
  last[1] = l1;
  last[2] = l2;
  last[3] = l3;
  p = q;
  return k;
}
}  // namespace journal_codec

template <typename Get>
unsigned char* encode_journal_block(unsigned char* out, uint64_t count, Get get) {
  using namespace journal_codec;
  unsigned char* const payload = out + sizeof(JournalBlock);
  unsigned char* p = payload;
  uint64_t prev[kTypeSlots][8] = {};
  for (uint64_t k = 0; k < count;) {
    const Record& r = get(k);
    // The ring was written by another CPU: ask for the lines a few records ahead.
    if (k + kPrefetchRecords < count) __builtin_prefetch(&get(k + kPrefetchRecords));
    uint64_t* last = prev[r.type & (kTypeSlots - 1)];
    p = encode_record(p, r.raw, last);
    // A busy thread's calls follow as steps from this one: encoded in a run.
    k = encode_step_run(p, k + 1, count, get, last);
  }
  const JournalBlock block{static_cast<uint32_t>(p - payload), static_cast<uint32_t>(count)};
  __builtin_memcpy(out, &block, sizeof block);
  return p;
}

template <typename Get>
unsigned char* encode_journal_blocks(unsigned char* out, const unsigned char* out_end,
                                     uint64_t count, uint64_t block_records, Get get,
                                     uint64_t& done) {
  done = 0;
  while (done < count) {
    const uint64_t n = count - done < block_records ? count - done : block_records;
    if (static_cast<size_t>(out_end - out) < journal_block_bound(n)) break;
    const uint64_t first = done;
    out = encode_journal_block(
        out, n, [&get, first](uint64_t k) -> const Record& { return get(first + k); });
    done += n;
  }
  return out;
}

}  // namespace prof
