// Queues between an application thread (or a runtime's) and prof's harvester: single-producer
// rings and chains, and one many-producer ring (MpscRing) for the runtimes' per-op reports.
// SpscRing: a ring of N items. push() is called only by the producer thread and pop() only by the
// consumer; each side writes only its own index (on its own cache line).
#pragma once
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

namespace prof::interpose {

template <typename T, size_t N>
class SpscRing {
  static_assert((N & (N - 1)) == 0, "N must be a power of two");
  static_assert(std::is_trivially_copyable_v<T>, "items are copied as bytes");

 public:
  bool push(const T& item) noexcept {
    const size_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) >= N) return false;
    std::memcpy(&items_[(head & (N - 1)) * sizeof(T)], &item, sizeof(T));
    head_.store(head + 1, std::memory_order_release);  // publish after the item is written
    return true;
  }
  bool pop(T& item) noexcept {
    const size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return false;
    std::memcpy(&item, &items_[(tail & (N - 1)) * sizeof(T)], sizeof(T));
    tail_.store(tail + 1, std::memory_order_release);  // the slot may be reused after this
    return true;
  }
  void clear() noexcept {
    tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release);
  }

 private:
  alignas(64) std::atomic<size_t> head_{0};
  alignas(64) std::atomic<size_t> tail_{0};
  // Raw bytes, not T[N]: constructing N items would write every page of the ring when a thread
  // first times work (about 130 page faults, a third of a millisecond, on the application's
  // thread inside its first timed iteration). The ring lives in fresh zeroed memory; a slot is
  // written before it is read.
  alignas(64) unsigned char items_[N * sizeof(T)];
};

// A single-producer, single-consumer queue that grows instead of dropping: a chain of segments of
// N items. When the consumer falls behind (the harvester, a background thread, held off the CPU
// for milliseconds while the program launches thousands of kernels back to back) the producer
// links another segment, up to kMaxSegments; then push() fails as a full ring does. A drained
// segment goes back to the producer through a one-slot exchange, so a lag that lasts maps memory
// only in its first laps. The first segment is part of the object. Unlike SpscRing, neither side
// reads the other's index: the producer never asks how far the consumer is.
template <typename T, size_t N, size_t kMaxSegments>
class SpscChain {
  static_assert(std::is_trivially_copyable_v<T>, "items are copied as bytes");
  static_assert(kMaxSegments >= 1);

  struct Segment {
    alignas(64) std::atomic<size_t> written{0};  // items published in this segment (producer)
    std::atomic<Segment*> next{nullptr};  // the producer's next segment, once this one is full
    bool mapped = false;                  // mmap'd by push(): unmapped when it is retired
    // Raw bytes (see SpscRing): a slot is written before it is read.
    alignas(64) unsigned char items[N * sizeof(T)];
  };

 public:
  SpscChain() noexcept : tail_(&first_), head_(&first_) {}
  SpscChain(const SpscChain&) = delete;
  SpscChain& operator=(const SpscChain&) = delete;

  bool push(const T& item) noexcept {
    Segment* seg = tail_;
    const size_t w = seg->written.load(std::memory_order_relaxed);
    if (w < N) [[likely]] {
      std::memcpy(&seg->items[w * sizeof(T)], &item, sizeof(T));
      seg->written.store(w + 1, std::memory_order_release);  // publish after the item is written
      return true;
    }
    if (segments_.load(std::memory_order_relaxed) >= kMaxSegments) return false;
    Segment* fresh = spare_.exchange(nullptr, std::memory_order_acquire);
    if (fresh == nullptr) {
      void* mem = mmap(nullptr, sizeof(Segment), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) return false;
      fresh = new (mem) Segment;
      fresh->mapped = true;
    } else {
      fresh->written.store(0, std::memory_order_relaxed);
      fresh->next.store(nullptr, std::memory_order_relaxed);
    }
    segments_.fetch_add(1, std::memory_order_relaxed);
    std::memcpy(&fresh->items[0], &item, sizeof(T));
    fresh->written.store(1, std::memory_order_relaxed);
    seg->next.store(fresh, std::memory_order_release);  // publishes the segment and its first item
    tail_ = fresh;
    return true;
  }

  bool pop(T& item) noexcept {
    if (read_ == N) {
      Segment* next = head_->next.load(std::memory_order_acquire);
      if (next == nullptr) return false;
      retire(head_);
      head_ = next;
      read_ = 0;
    }
    if (read_ == head_->written.load(std::memory_order_acquire)) return false;
    std::memcpy(&item, &head_->items[read_ * sizeof(T)], sizeof(T));
    ++read_;
    return true;
  }

  // Segments in use (1 unless the consumer has fallen a segment behind).
  size_t segments() const noexcept { return segments_.load(std::memory_order_relaxed); }

 private:
  // The producer has moved past `seg` (it linked the next one): kept as the spare, or unmapped
  // when a spare is already there. The embedded first segment is never unmapped.
  void retire(Segment* seg) noexcept {
    segments_.fetch_sub(1, std::memory_order_relaxed);
    Segment* displaced = spare_.exchange(seg, std::memory_order_acq_rel);
    if (displaced != nullptr && displaced->mapped) munmap(displaced, sizeof(Segment));
  }

  Segment* tail_;              // producer only
  alignas(64) Segment* head_;  // consumer only
  size_t read_ = 0;            // consumer only: items taken from head_
  alignas(64) std::atomic<size_t> segments_{1};
  std::atomic<Segment*> spare_{nullptr};
  Segment first_;
};

// Many producers, one consumer, N items, never blocking: the runtime's threads (its stream
// workers, a thread inside a blocking copy) hand prof each op's device times; the harvester takes
// them. Each slot carries a sequence number (Vyukov's bounded queue), stored relative to the
// slot's index so that zeroed memory is a valid empty ring: a static ring needs no constructor
// and its pages are touched only as they are used. push() fails when the ring is full.
template <typename T, size_t N>
class MpscRing {
  static_assert((N & (N - 1)) == 0, "N must be a power of two");
  static_assert(std::is_trivially_copyable_v<T>, "items are copied as bytes");

 public:
  bool push(const T& item) noexcept {
    size_t pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[pos & (N - 1)];
      const size_t seq = slot.seq.load(std::memory_order_acquire) + (pos & (N - 1));
      const auto diff = static_cast<std::ptrdiff_t>(seq - pos);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          std::memcpy(slot.item, &item, sizeof(T));
          slot.seq.store(pos + 1 - (pos & (N - 1)), std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // full: the consumer has not freed this slot yet
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }
  bool pop(T& item) noexcept {
    const size_t pos = tail_;
    Slot& slot = slots_[pos & (N - 1)];
    const size_t seq = slot.seq.load(std::memory_order_acquire) + (pos & (N - 1));
    if (seq != pos + 1) return false;  // empty, or its producer is still writing it
    std::memcpy(&item, slot.item, sizeof(T));
    slot.seq.store(pos + N - (pos & (N - 1)), std::memory_order_release);
    tail_ = pos + 1;
    return true;
  }

 private:
  struct Slot {
    std::atomic<size_t> seq;  // the slot's sequence minus its index
    alignas(T) unsigned char item[sizeof(T)];
  };
  alignas(64) std::atomic<size_t> head_{0};
  alignas(64) size_t tail_ = 0;  // the consumer's only
  alignas(64) Slot slots_[N];
};

}  // namespace prof::interpose
