// A single-producer, single-consumer ring. push() is called only by the producer thread and
// pop() only by the consumer; each side writes only its own index (on its own cache line).
#pragma once
#include <atomic>
#include <cstring>
#include <type_traits>
#include <cstddef>

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
  void clear() noexcept { tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release); }

 private:
  alignas(64) std::atomic<size_t> head_{0};
  alignas(64) std::atomic<size_t> tail_{0};
  // Raw bytes, not T[N]: constructing N items would write every page of the ring when a thread
  // first times work (about 130 page faults, a third of a millisecond, on the application's
  // thread inside its first timed iteration). The ring lives in fresh zeroed memory; a slot is
  // written before it is read.
  alignas(64) unsigned char items_[N * sizeof(T)];
};

}  // namespace prof::interpose
