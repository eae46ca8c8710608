// Thread churn for the ring-memory tests (test/e2e/test_rings.py): ROUNDS rounds, each starting
// POOL threads that make CALLS hipStreamQuery calls and exit; the rounds are joined one after the
// other, so at most POOL threads are alive at once. Usage: churn ROUNDS POOL CALLS [hold]
// With `hold`, a round's threads wait after their calls until all POOL have made theirs, so POOL
// threads are alive at once (e2e:rings: more than the 4096 a process records at a time).
//
// It prints `PID n` and `EXPECT api_calls=N kernels=0 copies=0` before any HIP call, and at the
// end `SHM_PEAK_KB n`: the most of /dev/shm in use seen after each thread's calls.
#include <pthread.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hip_calls.hpp"

namespace {

std::atomic<unsigned long long> g_shm_peak_kb{0};

void note_shm() {
  struct statvfs st;
  if (statvfs("/dev/shm", &st) != 0) return;
  const unsigned long long used = (st.f_blocks - st.f_bfree) * st.f_frsize / 1024;
  unsigned long long seen = g_shm_peak_kb.load();
  while (used > seen && !g_shm_peak_kb.compare_exchange_weak(seen, used)) {
  }
}

std::mutex g_hold_mutex;
std::condition_variable g_hold_cv;
long g_arrived = 0;

void worker(long calls, long hold_for) {
  for (long i = 0; i < calls; ++i) {
    const hipError_t result = hipStreamQuery(nullptr);
    if (result != hipSuccess && result != hipErrorNotReady) std::abort();
  }
  note_shm();
  if (hold_for > 0) {
    std::unique_lock<std::mutex> lock(g_hold_mutex);
    if (++g_arrived % hold_for == 0) g_hold_cv.notify_all();
    const long round = (g_arrived - 1) / hold_for;
    g_hold_cv.wait(lock, [&] { return g_arrived >= (round + 1) * hold_for; });
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: churn ROUNDS POOL CALLS\n");
    return 2;
  }
  const long rounds = std::atol(argv[1]);
  const long pool = std::atol(argv[2]);
  const long calls = std::atol(argv[3]);
  const long hold_for = argc > 4 && std::string(argv[4]) == "hold" ? pool : 0;
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("EXPECT api_calls=%ld kernels=0 copies=0\n", 1 + rounds * pool * calls);
  std::fflush(stdout);
  if (hipSetDevice(0) != hipSuccess) return 3;
  for (long r = 0; r < rounds; ++r) {
    std::vector<std::thread> threads;
    for (long t = 0; t < pool; ++t) threads.emplace_back(worker, calls, hold_for);
    for (auto& t : threads) t.join();
  }
  note_shm();
  std::printf("SHM_PEAK_KB %llu\n", g_shm_peak_kb.load());
  return 0;
}
