// The harvester's queue (interpose/spsc_ring.hpp, SpscChain): items come out once each, in order,
// across segments; it grows while the consumer is behind and refuses past its cap, as a full ring
// does; drained segments are reused; and a producer and a consumer on two threads, the consumer
// pausing now and then as a thread held off the CPU does, lose and reorder nothing.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <cstdint>
#include <memory>
#include <thread>

#include "interpose/spsc_ring.hpp"

namespace {

using prof::interpose::SpscChain;

struct Item {
  uint64_t value;
  uint64_t check;
};

constexpr size_t kN = 64;
constexpr size_t kMax = 4;
using Chain = SpscChain<Item, kN, kMax>;

// Big objects (the first segment is inside), and the harvester's lives in zeroed mmap'd memory.
std::unique_ptr<Chain> make_chain() { return std::make_unique<Chain>(); }

}  // namespace

TEST_CASE("a chain gives back what was pushed, in order, across segments") {
  auto chain = make_chain();
  for (uint64_t i = 0; i < 3 * kN + 5; ++i) REQUIRE(chain->push({i, ~i}));
  CHECK(chain->segments() == 4);
  Item item{};
  for (uint64_t i = 0; i < 3 * kN + 5; ++i) {
    REQUIRE(chain->pop(item));
    REQUIRE(item.value == i);
    REQUIRE(item.check == ~i);
  }
  CHECK_FALSE(chain->pop(item));
  CHECK(chain->segments() == 1);
}

TEST_CASE("a chain refuses past its cap and takes items again once drained") {
  auto chain = make_chain();
  uint64_t pushed = 0;
  while (chain->push({pushed, ~pushed})) ++pushed;
  CHECK(pushed == kN * kMax);
  Item item{};
  for (uint64_t i = 0; i < kN * kMax; ++i) {
    REQUIRE(chain->pop(item));
    REQUIRE(item.value == i);
  }
  // Round and round: the drained segments come back, and the order holds.
  for (int lap = 0; lap < 10; ++lap) {
    for (uint64_t i = 0; i < 2 * kN + 1; ++i) REQUIRE(chain->push({pushed + i, ~(pushed + i)}));
    for (uint64_t i = 0; i < 2 * kN + 1; ++i) {
      REQUIRE(chain->pop(item));
      REQUIRE(item.value == pushed + i);
      REQUIRE(item.check == ~(pushed + i));
    }
    pushed += 2 * kN + 1;
    CHECK_FALSE(chain->pop(item));
  }
}

TEST_CASE("a producer and a pausing consumer on two threads lose and reorder nothing") {
  auto chain = make_chain();
  constexpr uint64_t kItems = 2'000'000;
  uint64_t refused = 0;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kItems;) {
      if (chain->push({i, ~i}))
        ++i;
      else
        ++refused;  // at the cap: the consumer is a whole chain behind; try again
    }
  });
  uint64_t expected = 0, bad = 0, polls = 0;
  Item item{};
  while (expected < kItems) {
    if (chain->pop(item)) {
      if (item.value != expected || item.check != ~expected) ++bad;
      ++expected;
    } else if (++polls % 64 == 0) {
      std::this_thread::yield();  // held off now and then: the chain grows meanwhile
    }
  }
  producer.join();
  CHECK(bad == 0);
  CHECK_FALSE(chain->pop(item));
  INFO("pushes refused at the cap: " << refused);
  CHECK(chain->segments() == 1);
}
