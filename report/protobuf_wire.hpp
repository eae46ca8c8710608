// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), only the part a
// writer needs: varints, fixed64 and length-delimited fields, appended to one reused buffer. No
// schema, no reflection, no libprotobuf: the pftrace writer names its field numbers itself, and a
// trace of any size is written a packet at a time with no allocation once the buffer has grown.
//
// A nested message is written in place: open() writes its tag and one byte for its length, the
// caller appends the fields, close() writes the length and, when it needs more than one byte
// (128 bytes or more), moves the body right to make room. Lengths are therefore always minimal
// varints, as libprotobuf writes them, at the cost of a memmove for long messages only.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace prof::report::protobuf_wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

inline constexpr size_t kMaxVarintBytes = 10;

inline size_t varint_size(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

inline char* put_varint(char* p, uint64_t value) {
  while (value >= 0x80) {
    *p++ = static_cast<char>(static_cast<uint8_t>(value) | 0x80);
    value >>= 7;
  }
  *p++ = static_cast<char>(value);
  return p;
}

inline constexpr uint64_t tag(uint32_t field, WireType type) {
  return (uint64_t{field} << 3) | type;
}

// One growing byte buffer that messages are appended to. Offsets, not pointers, name an open
// message: the buffer may move while it grows.
class ProtoBuffer {
 public:
  // int32/int64/uint*/enum/bool fields: a negative int64 (or int32) takes ten bytes, as protobuf
  // sign-extends it; sint (zigzag) fields are not used by the formats written here.
  void varint(uint32_t field, uint64_t value) {
    char* p = room(2 * kMaxVarintBytes);
    p = put_varint(p, tag(field, kVarint));
    end_at(put_varint(p, value));
  }
  void fixed64(uint32_t field, uint64_t value) {
    char* p = put_varint(room(kMaxVarintBytes + 8), tag(field, kFixed64));
    for (int i = 0; i < 8; ++i)
      *p++ = static_cast<char>(static_cast<uint8_t>(value >> (8 * i)));  // little-endian
    end_at(p);
  }
  void bytes(uint32_t field, std::string_view value) {
    char* p = room(2 * kMaxVarintBytes + value.size());
    p = put_varint(p, tag(field, kLengthDelimited));
    p = put_varint(p, value.size());
    if (!value.empty()) std::memcpy(p, value.data(), value.size());
    end_at(p + value.size());
  }
  // Opens a nested message (or any length-delimited field built piece by piece): returns the
  // offset close() needs.
  size_t open(uint32_t field) {
    char* p = put_varint(room(kMaxVarintBytes + 1), tag(field, kLengthDelimited));
    const size_t length_at = static_cast<size_t>(p - data_.data());
    end_at(p + 1);
    return length_at;
  }
  void close(size_t length_at) {
    const size_t body_at = length_at + 1;
    const uint64_t length = size_ - body_at;
    const size_t extra = varint_size(length) - 1;
    if (extra > 0) {
      room(extra);
      std::memmove(data_.data() + body_at + extra, data_.data() + body_at, length);
      size_ += extra;
    }
    put_varint(data_.data() + length_at, length);
  }
  // Appends bytes already encoded (a message body kept from earlier).
  void raw(std::string_view encoded) {
    char* p = room(encoded.size());
    if (!encoded.empty()) std::memcpy(p, encoded.data(), encoded.size());
    end_at(p + encoded.size());
  }

  std::string_view view() const { return std::string_view(data_.data(), size_); }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  // Drops everything after `size` (a message that turned out empty).
  void truncate(size_t size) { size_ = size; }

 private:
  // Room for `most` more bytes at the end; the returned pointer is where they go.
  char* room(size_t most) {
    if (data_.size() < size_ + most) [[unlikely]]
      grow(most);
    return data_.data() + size_;
  }
  // Out of line: the check above is on every field, the growth almost never.
  [[gnu::noinline]] void grow(size_t most) {
    data_.resize(std::max(2 * data_.size(), size_ + most + 256));
  }
  void end_at(const char* p) { size_ = static_cast<size_t>(p - data_.data()); }

  std::string data_;  // its size is the capacity; size_ bytes are used
  size_t size_ = 0;
};

}  // namespace prof::report::protobuf_wire
