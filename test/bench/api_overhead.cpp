// Benchmark program (not a test): a HIP-API-heavy loop on the simulated device, run by
// scripts/bench-api.sh plain, under prof, under the do-nothing preload library and under uftrace.
//
//   api_overhead [--mode M] [--calls N] [--threads T] [--seconds S] [--batch B]
//
// Modes (the measured call in brackets):
//   query   [hipStreamQuery] on an idle stream: the cheapest intercepted call
//   launch  [hipLaunchKernel] of a one-thread kernel, B launches then hipStreamSynchronize
//   copy    [hipMemcpyAsync] of 64 bytes host to device, B copies then hipStreamSynchronize
//   inject  [hipStreamIsCapturing + hipEventRecord + hipLaunchKernel + hipEventRecord]: what prof's
//           device timing asks of the runtime per launch, made by hand; run plain it is the
//           runtime's own cost of the injected work
//   clock   [prof::now_ns()]: the clock prof reads twice per call, for the "two clock reads" target
// Only the measured calls are timed (one clock pair per batch); synchronisation is outside the
// timed span, so ns_per_call is host-side cost. wall_ns is the whole loop, synchronisation
// included. With --seconds each thread repeats batches until the time is up (for the sustained-rate
// runs). Prints one line of key=value pairs; exit_realtime_ns lets the script time prof's work
// after exit.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.hpp"
#include "test/apps/hip_calls.hpp"

// A kernel stand-in: the simulated runtime runs nothing, prof names it from its ELF symbol.
__attribute__((noinline, used)) void bench_tiny_kernel(int*) {}

namespace {

enum class Mode { kQuery, kLaunch, kCopy, kInject, kClock };

struct Options {
  Mode mode = Mode::kQuery;
  long calls = 1000000;
  int threads = 1;
  double seconds = 0;  // > 0: run for this long instead of `calls`
  long batch = 64;
};

struct Result {
  double measured_ns = 0;
  double measured_cpu_ns =
      0;  // the thread's CPU time in the measured calls (wall minus waiting for a CPU)
  double wall_ns = 0;
  long calls = 0;
};

using Clock = std::chrono::steady_clock;
std::atomic<uint64_t> g_sink{0};  // keeps the clock-mode loop from being optimised away

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

void check(hipError_t e, const char* what) {
  if (e != hipSuccess) {
    std::fprintf(stderr, "api_overhead: %s failed with hipError_t %d\n", what, static_cast<int>(e));
    std::exit(1);
  }
}

class Worker {
 public:
  Worker(const Options& o, hipStream_t shared_query_stream) : o_(o), stream_(shared_query_stream) {
    if (o_.mode == Mode::kQuery || o_.mode == Mode::kClock) return;
    check(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking), "hipStreamCreateWithFlags");
    check(hipHostMalloc(reinterpret_cast<void**>(&host_), 64, 0), "hipHostMalloc");
    check(hipMalloc(reinterpret_cast<void**>(&device_), 64), "hipMalloc");
    check(hipEventCreate(&begin_), "hipEventCreate");
    check(hipEventCreate(&end_), "hipEventCreate");
  }

  // `count` measured calls; returns the nanoseconds spent in them (and adds their CPU time to
  // `cpu_ns`).
  double batch(long count, double& cpu_ns) {
    const double cpu_start = thread_cpu_ns();
    const auto start = Clock::now();
    switch (o_.mode) {
      case Mode::kQuery:
        for (long i = 0; i < count; ++i) check(hipStreamQuery(stream_), "hipStreamQuery");
        break;
      case Mode::kClock: {
        uint64_t sum = 0;
        for (long i = 0; i < count; ++i) sum += prof::now_ns();
        g_sink += sum;
        break;
      }
      case Mode::kLaunch:
        for (long i = 0; i < count; ++i) launch();
        break;
      case Mode::kCopy:
        for (long i = 0; i < count; ++i)
          check(hipMemcpyAsync(device_, host_, 64, hipMemcpyHostToDevice, stream_),
                "hipMemcpyAsync");
        break;
      case Mode::kInject:
        for (long i = 0; i < count; ++i) {
          hipStreamCaptureStatus status;
          check(hipStreamIsCapturing(stream_, &status), "hipStreamIsCapturing");
          check(hipEventRecord(begin_, stream_), "hipEventRecord");
          launch();
          check(hipEventRecord(end_, stream_), "hipEventRecord");
        }
        break;
    }
    const auto stop = Clock::now();
    cpu_ns += thread_cpu_ns() - cpu_start;
    if (o_.mode != Mode::kQuery && o_.mode != Mode::kClock)
      check(hipStreamSynchronize(stream_), "hipStreamSynchronize");
    return std::chrono::duration<double, std::nano>(stop - start).count();
  }

  Result run(long calls, double seconds) {
    const long batch_size = o_.mode == Mode::kQuery || o_.mode == Mode::kClock ? 4096 : o_.batch;
    Result r;
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    for (;;) {
      long n = batch_size;
      if (seconds <= 0) {
        if (r.calls >= calls) break;
        if (calls - r.calls < n) n = calls - r.calls;
      } else if (Clock::now() >= deadline) {
        break;
      }
      r.measured_ns += batch(n, r.measured_cpu_ns);
      r.calls += n;
    }
    r.wall_ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    return r;
  }

 private:
  void launch() {
    void* args[] = {&device_};
    check(hipLaunchKernel(reinterpret_cast<const void*>(&bench_tiny_kernel), dim3{1, 1, 1},
                          dim3{1, 1, 1}, args, 0, stream_),
          "hipLaunchKernel");
  }

  const Options& o_;
  hipStream_t stream_ = nullptr;
  int* host_ = nullptr;
  int* device_ = nullptr;
  hipEvent_t begin_ = nullptr;
  hipEvent_t end_ = nullptr;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const char* value = argv[i + 1];
    if (key == "--mode") {
      const std::string m = value;
      o.mode = m == "launch"   ? Mode::kLaunch
               : m == "copy"   ? Mode::kCopy
               : m == "inject" ? Mode::kInject
               : m == "clock"  ? Mode::kClock
                               : Mode::kQuery;
      if (m != "query" && o.mode == Mode::kQuery) {
        std::fprintf(stderr, "api_overhead: unknown mode %s\n", value);
        std::exit(2);
      }
    } else if (key == "--calls") {
      o.calls = std::atol(value);
    } else if (key == "--threads") {
      o.threads = std::atoi(value);
    } else if (key == "--seconds") {
      o.seconds = std::atof(value);
    } else if (key == "--batch") {
      o.batch = std::atol(value);
    } else {
      std::fprintf(stderr, "api_overhead: unknown option %s\n", key.c_str());
      std::exit(2);
    }
  }
  if (o.calls < 1 || o.threads < 1 || o.batch < 1) {
    std::fprintf(stderr, "api_overhead: --calls, --threads and --batch must be positive\n");
    std::exit(2);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  hipStream_t query_stream;
  check(hipStreamCreate(&query_stream), "hipStreamCreate");
  std::vector<Result> results(static_cast<size_t>(o.threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < o.threads; ++t) {
    workers.emplace_back([&, t] {
      Worker w(o, query_stream);
      w.run(o.calls / 10 + 1, 0);  // warm up: resolve symbols, create buffers, fault in pages
      results[static_cast<size_t>(t)] = w.run(o.calls, o.seconds);
    });
  }
  for (auto& w : workers) w.join();
  double ns_per_call = 0, cpu_ns_per_call = 0, wall_ns = 0;
  long total = 0;
  for (const Result& r : results) {
    ns_per_call += r.measured_ns / static_cast<double>(r.calls) / o.threads;
    cpu_ns_per_call += r.measured_cpu_ns / static_cast<double>(r.calls) / o.threads;
    wall_ns = std::max(wall_ns, r.wall_ns);
    total += r.calls;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  std::printf(
      "ns_per_call=%.1f cpu_ns_per_call=%.1f calls=%ld threads=%d wall_ns=%.0f calls_per_s=%.0f "
      "max_rss_kb=%ld exit_realtime_ns=%lld\n",
      ns_per_call, cpu_ns_per_call, total, o.threads, wall_ns,
      static_cast<double>(total) / (wall_ns / 1e9), usage.ru_maxrss,
      static_cast<long long>(now.tv_sec) * 1000000000ll + now.tv_nsec);
  std::fflush(stdout);
  return 0;
}
