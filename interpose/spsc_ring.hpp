// A single-producer, single-consumer ring. push() is called only by the producer thread and
// pop() only by the consumer; each side writes only its own index (on its own cache line).
#pragma once
#include <atomic>
#include <cstddef>

namespace prof::interpose {

template <typename T, size_t N>
class SpscRing {
  static_assert((N & (N - 1)) == 0, "N must be a power of two");

 public:
  bool push(const T& item) noexcept {
    const size_t head = head_.load(std::memory_order_relaxed);
    if (head - tail_.load(std::memory_order_acquire) >= N) return false;
    items_[head & (N - 1)] = item;
    head_.store(head + 1, std::memory_order_release);  // publish after the item is written
    return true;
  }
  bool pop(T& item) noexcept {
    const size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return false;
    item = items_[tail & (N - 1)];
    tail_.store(tail + 1, std::memory_order_release);  // the slot may be reused after this
    return true;
  }
  void clear() noexcept { tail_.store(head_.load(std::memory_order_acquire), std::memory_order_release); }

 private:
  alignas(64) std::atomic<size_t> head_{0};
  alignas(64) std::atomic<size_t> tail_{0};
  alignas(64) T items_[N];
};

}  // namespace prof::interpose
