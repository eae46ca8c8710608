// A fixed-capacity set of live handles that readers query without a lock (hipStreamQuery and
// hipEventQuery are the benchmark's cheap calls). Writers (insert/erase) are serialised by the
// caller's lock. Open addressing with tombstones; objects behind the handles are never unmapped
// while a reader may hold them (streams are leaked, events are recycled), so a reader that sees a
// handle a moment before it is erased still touches valid memory.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace prof::sim {

class HandleTable {
 public:
  explicit HandleTable(size_t capacity_log2)
      : mask_((size_t{1} << capacity_log2) - 1), slots_(new std::atomic<uintptr_t>[mask_ + 1]) {
    for (size_t i = 0; i <= mask_; ++i) slots_[i].store(kEmpty, std::memory_order_relaxed);
  }

  // Caller holds the writers' lock. False when the table is full.
  bool insert(const void* handle) noexcept {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    for (size_t i = 0, at = hash(key); i <= mask_; ++i, at = (at + 1) & mask_) {
      const uintptr_t v = slots_[at].load(std::memory_order_relaxed);
      if (v == kEmpty || v == kTombstone) {
        slots_[at].store(key, std::memory_order_release);
        return true;
      }
    }
    return false;
  }

  // Caller holds the writers' lock.
  void erase(const void* handle) noexcept {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    for (size_t i = 0, at = hash(key); i <= mask_; ++i, at = (at + 1) & mask_) {
      const uintptr_t v = slots_[at].load(std::memory_order_relaxed);
      if (v == kEmpty) return;
      if (v == key) {
        slots_[at].store(kTombstone, std::memory_order_release);
        return;
      }
    }
  }

  bool contains(const void* handle) const noexcept {
    const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
    if (key == kEmpty || key == kTombstone) return false;
    for (size_t i = 0, at = hash(key); i <= mask_; ++i, at = (at + 1) & mask_) {
      const uintptr_t v = slots_[at].load(std::memory_order_acquire);
      if (v == key) return true;
      if (v == kEmpty) return false;
    }
    return false;
  }

 private:
  static constexpr uintptr_t kEmpty = 0;
  static constexpr uintptr_t kTombstone = 1;

  // The address itself, in 16-byte units: handles are heap objects of at least that alignment,
  // so distinct live handles only share a home slot when they are a multiple of 16 << log2
  // bytes apart (linear probing takes them). Objects allocated together sit in neighbouring
  // slots, on the same few lines and pages of the table: a well-mixed hash sent every lookup to
  // a random line of the 8 MiB event table, a cache and TLB miss that was 30% of a launch under
  // device timing in a 20,000-launch burst (each launch records an event).
  size_t hash(uintptr_t key) const noexcept { return static_cast<size_t>(key >> 4) & mask_; }

  size_t mask_;
  std::unique_ptr<std::atomic<uintptr_t>[]> slots_;
};

}  // namespace prof::sim
