// Benchmark program: N cheap HIP calls (hipStreamQuery on an idle stream) from T threads,
// printing nanoseconds per call. Run plain and under prof by scripts/bench-api.sh; the
// difference is what prof adds to each intercepted call.
#include "test/apps/hip_calls.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

double run_queries(hipStream_t stream, long calls) {
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) {
    if (hipStreamQuery(stream) != hipSuccess) std::abort();
  }
  auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count() / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  hipStream_t stream;
  if (hipStreamCreate(&stream) != hipSuccess) return 1;
  run_queries(stream, calls / 10 + 1);  // warm up: resolve symbols, create buffers
  std::vector<double> per_thread(static_cast<size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] { per_thread[static_cast<size_t>(t)] = run_queries(stream, calls); });
  for (auto& w : workers) w.join();
  double sum = 0;
  for (double v : per_thread) sum += v;
  std::printf("ns_per_call=%.1f calls=%ld threads=%d\n", sum / threads, calls, threads);
  hipStreamDestroy(stream);
  return 0;
}
