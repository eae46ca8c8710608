#pragma once
// The last few (runtime's correlation id -> prof's id) pairs an activity join has used.
//
// CUPTI's contract, which MUPTI and MSPTI follow: every op one API call enqueues carries the
// call's correlation id, and the call has one EXTERNAL_CORRELATION record. A call that enqueues
// several ops (a graph launch, a model run) therefore has one binding and several op records; the
// first op record consumes the binding (the join erases what it joined, so its maps stay small)
// and the others find it here. Looked at only when an op record has no binding waiting.

#include <cstddef>
#include <cstdint>

namespace prof::interpose {

template <size_t N>
struct RecentJoins {
  uint64_t runtime_id[N] = {};
  uint64_t prof_id[N] = {};  // 0: an empty slot (prof's ids start at 1)
  size_t next = 0;

  void add(uint64_t runtime, uint64_t prof) noexcept {
    runtime_id[next] = runtime;
    prof_id[next] = prof;
    next = (next + 1) % N;
  }
  // prof's id joined to `runtime`, or 0.
  uint64_t find(uint64_t runtime) const noexcept {
    for (size_t i = 0; i < N; ++i)
      if (prof_id[i] != 0 && runtime_id[i] == runtime) return prof_id[i];
    return 0;
  }
};

}  // namespace prof::interpose
