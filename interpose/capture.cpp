#include "interpose/capture.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string_view>

#include "common/clock.hpp"
#include "common/quiet_thread.hpp"
#include "interpose/config.hpp"
#include "interpose/hook_clock.hpp"

namespace prof::interpose {

std::atomic<bool> g_capture_on{true};
bool g_capture_by_api = false;
std::atomic<bool> g_capture_timer_pending{false};

namespace {

CaptureLog* g_log = nullptr;
uint64_t g_delay_ns = 0, g_duration_ns = 0, g_start_ns = 0;
bool g_timed = false;

// <pid>.<image>.capture, a fresh zeroed mapping the collector reads when the process is done.
void map_capture_log() noexcept {
  g_log = nullptr;
  char path[640];
  snprintf(path, sizeof path, "%s/%d.%llu.capture", g_config.run_dir, static_cast<int>(getpid()),
           static_cast<unsigned long long>(g_config.image_token));
  const int fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (posix_fallocate(fd, 0, sizeof(CaptureLog)) != 0) {
    ::close(fd);
    unlink(path);
    return;
  }
  void* map = mmap(nullptr, sizeof(CaptureLog), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map != MAP_FAILED) g_log = static_cast<CaptureLog*>(map);
}

void sleep_until(uint64_t at_ns) {
  timespec t{static_cast<time_t>(at_ns / 1'000'000'000), static_cast<long>(at_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) == EINTR) {
  }
}

// --delay / --duration: the window opens --delay after the program's start (the library's load)
// and lasts --duration from the moment it really opened, so a late wake-up on a loaded machine
// shifts the window instead of shortening it.
void* timer_main(void*) {
  uint64_t opened_ns = g_start_ns;
  if (g_delay_ns) {
    sleep_until(g_start_ns + g_delay_ns);
    opened_ns = hook_now_ns();
    capture_switch(true, CaptureCause::kDelay, 0, opened_ns);
  }
  if (g_duration_ns) {
    sleep_until(opened_ns + g_duration_ns);
    capture_switch(false, CaptureCause::kDuration, 0, hook_now_ns());
  }
  return nullptr;
}

}  // namespace

void capture_switch(bool on, CaptureCause cause, uint16_t api_id, uint64_t time_ns) noexcept {
  // Only the switch that changes the state is logged: a second start while recording is nothing.
  if (g_capture_on.exchange(on, std::memory_order_acq_rel) == on) return;
  if (!g_log) return;
  const uint32_t slot = g_log->claimed.fetch_add(1, std::memory_order_relaxed);
  if (slot >= kCaptureLogEntries) return;
  CaptureSwitch& entry = g_log->entries[slot];
  entry.time_ns = time_ns;
  entry.on = on ? 1 : 0;
  entry.cause = static_cast<uint8_t>(cause);
  entry.api_id = api_id;
  std::atomic_ref<uint32_t>(entry.written).store(1, std::memory_order_release);
}

void capture_start(uint64_t start_ns) noexcept {
  const char* mode = getenv("PROF_CAPTURE");
  g_capture_by_api = mode && std::string_view(mode) == "api";
  g_delay_ns = env_number(kEnvCaptureDelayNs);
  g_duration_ns = env_number(kEnvCaptureDurationNs);
  g_timed = g_delay_ns || g_duration_ns;
  g_start_ns = start_ns;
  if (!g_capture_by_api && !g_timed) {
    g_capture_on.store(true, std::memory_order_relaxed);
    return;
  }
  map_capture_log();
  // Off until the program's start call (--trace-start off) or the delay; on from the start with
  // only --duration (its window opens at the program's start: logged as such).
  const bool on_at_start = !g_capture_by_api && g_delay_ns == 0;
  g_capture_on.store(false, std::memory_order_relaxed);
  if (on_at_start) capture_switch(true, CaptureCause::kDelay, 0, start_ns);
  // The timer thread waits for the process's first call (capture_arm): a shell or tool of the
  // launcher that never calls a runtime gets no thread (one that must be single-threaded, as
  // unshare(CLONE_NEWUSER) requires, failed with one).
  g_capture_timer_pending.store(g_timed, std::memory_order_release);
}

namespace {

pthread_once_t g_arm_once = PTHREAD_ONCE_INIT;

void arm() {
  // A first call after the delay: the window opens now, as a late wake-up of the timer would
  // open it, and this call is its first; the duration runs from here (timer_main).
  if (g_delay_ns) {
    const uint64_t now = hook_now_ns();
    if (now >= g_start_ns + g_delay_ns) {
      capture_switch(true, CaptureCause::kDelay, 0, now);
      g_delay_ns = 0;
      g_start_ns = now;
    }
  }
  if (g_delay_ns || g_duration_ns) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    {
      const BlockAsyncSignals
          quiet;  // the program's signals are the program's (common/quiet_thread.hpp)
      pthread_create(&thread, &attr, timer_main, nullptr);
    }
    pthread_attr_destroy(&attr);
  }
  g_capture_timer_pending.store(false, std::memory_order_release);
}

}  // namespace

bool capture_arm() noexcept {
  pthread_once(&g_arm_once, arm);
  return capturing();
}

void capture_after_fork_child() noexcept {
  // The child has its own image token and log. A timer the parent had started did not survive
  // the fork, so the child keeps the state it was forked in (a window open in the parent is open
  // in the child); one the parent had not started yet, the child's first call starts.
  g_arm_once = PTHREAD_ONCE_INIT;
  if (!g_log) return;
  map_capture_log();
  if (g_capture_on.load(std::memory_order_relaxed)) {
    g_capture_on.store(false, std::memory_order_relaxed);
    capture_switch(true, CaptureCause::kProfilerApi, 0, hook_now_ns());
  }
}

}  // namespace prof::interpose
