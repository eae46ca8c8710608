// What a new thread's first traced call costs: starts THREADS threads one after another, each
// making two hipStreamQuery calls, and prints the median and p90 of the first (on the new thread)
// and the median of the second, in microseconds, as key=value. scripts/bench.sh (section "threads")
// runs it plain and under prof: the difference is what prof adds to a thread's first call (its
// ring, its device-timing state).
//   new_threads [THREADS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

extern "C" int hipStreamQuery(void* stream);

namespace {
double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 300;
  if (threads < 1) {
    std::fprintf(stderr, "usage: new_threads [THREADS >= 1]\n");
    return 2;
  }
  hipStreamQuery(nullptr);  // the process's own first call is not a thread's
  std::vector<double> first(static_cast<size_t>(threads)), second(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) {
    std::thread t([&, i] {
      const double a = now_us();
      hipStreamQuery(nullptr);
      const double b = now_us();
      hipStreamQuery(nullptr);
      const double c = now_us();
      first[static_cast<size_t>(i)] = b - a;
      second[static_cast<size_t>(i)] = c - b;
    });
    t.join();
  }
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  const size_t n = first.size();
  std::printf("first_call_median_us=%.1f first_call_p90_us=%.1f second_call_median_us=%.2f\n",
              first[n / 2], first[n * 9 / 10], second[n / 2]);
  return 0;
}
