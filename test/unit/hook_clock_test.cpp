// The hooks' clock (interpose/hook_clock.hpp) against CLOCK_MONOTONIC: every reading lies between
// two kernel readings taken around it, to within 1 us, on several threads across many segments,
// and never goes back on a thread.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <thread>
#include <vector>

#include "interpose/hook_clock.hpp"

namespace {

using prof::now_ns;
using prof::interpose::g_hook_clock;
using prof::interpose::hook_clock_init;
using prof::interpose::hook_now_ns;

struct Outcome {
  uint64_t readings = 0, outside = 0, backwards = 0;
  int64_t worst_ns = 0;
};

// `maintain`: as a hook does, begin the next segment after a reading that passed its due time.
Outcome read_for(uint64_t duration_ns, bool maintain) {
  Outcome o;
  uint64_t last = 0;
  const uint64_t stop = now_ns() + duration_ns;
  for (uint64_t before = now_ns(); before < stop; before = now_ns()) {
    const uint64_t reading = hook_now_ns();
    const uint64_t after = now_ns();
    if (maintain) prof::interpose::hook_clock_maintain(reading);
    ++o.readings;
    if (reading < last) ++o.backwards;
    last = reading;
    const int64_t off = reading < before  ? static_cast<int64_t>(before - reading)
                        : reading > after ? static_cast<int64_t>(reading - after)
                                          : 0;
    if (off > 1000) ++o.outside;
    if (off > o.worst_ns) o.worst_ns = off;
  }
  return o;
}

}  // namespace

TEST_CASE("hook clock: within 1 us of CLOCK_MONOTONIC on every thread, never backwards",
          "[hook_clock]") {
  unsetenv("PROF_HOOK_CLOCK");
  hook_clock_init();
  std::vector<Outcome> outcomes(3);
  std::vector<std::thread> threads;
  // 300 ms: the first 10 ms on the kernel's clock, then about 29 segments.
  // One thread maintains the clock as hooks do; the others only read (and begin a segment
  // themselves when one is two lengths old).
  for (size_t i = 0; i < outcomes.size(); ++i)
    threads.emplace_back([&outcomes, i] { outcomes[i] = read_for(300'000'000, i == 0); });
  for (auto& t : threads) t.join();
  for (const Outcome& o : outcomes) {
    INFO("counter used: " << g_hook_clock.counter << ", readings " << o.readings << ", worst "
                          << o.worst_ns << " ns");
    CHECK(o.readings > 1000);
    CHECK(o.outside == 0);
    CHECK(o.backwards == 0);
  }
}

TEST_CASE("hook clock: PROF_HOOK_CLOCK=clock_gettime reads the kernel's clock", "[hook_clock]") {
  setenv("PROF_HOOK_CLOCK", "clock_gettime", 1);
  hook_clock_init();
  CHECK_FALSE(g_hook_clock.counter);
  const uint64_t before = now_ns();
  const uint64_t reading = hook_now_ns();
  CHECK(reading >= before);
  CHECK(reading <= now_ns());
  unsetenv("PROF_HOOK_CLOCK");
  hook_clock_init();
}
