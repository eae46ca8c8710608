#include "interpose/process_files.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>

#include "common/clock.hpp"
#include "interpose/config.hpp"
#include "interpose/thread_buffer.hpp"

namespace prof::interpose {
namespace {

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Written to a temporary name and renamed, so the collector never reads half a file.
template <typename Fill>
void write_file(const char* suffix, Fill fill) {
  char path[640], tmp[660];
  snprintf(path, sizeof path, "%s/%d.%llu.%s", g_config.run_dir, static_cast<int>(getpid()),
           static_cast<unsigned long long>(g_config.image_token), suffix);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  bool ok = fill(fd);
  ok = close(fd) == 0 && ok;
  if (ok)
    rename(tmp, path);
  else
    unlink(tmp);
}

bool copy_file(int out, const char* from) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  char chunk[8192];
  bool ok = true;
  for (;;) {
    ssize_t n = read(in, chunk, sizeof chunk);
    if (n < 0) ok = false;
    if (n <= 0) break;
    if (!write_all(out, chunk, static_cast<size_t>(n))) {
      ok = false;
      break;
    }
  }
  close(in);
  return ok;
}

pthread_once_t g_announce_once = PTHREAD_ONCE_INIT;
std::atomic<bool> g_announced{false};

void copy_maps() {
  write_file("maps", [](int fd) { return copy_file(fd, "/proc/self/maps"); });
}

void write_info_file() {
  write_file("info", [](int fd) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    // The wall clock of the start: now's, less the monotonic time since.
    const uint64_t since = now_ns() - g_config.image_token;
    const unsigned long long wall_ns =
        static_cast<unsigned long long>(wall.tv_sec) * 1000000000ull +
        static_cast<unsigned long long>(wall.tv_nsec) - since;
    char text[1024];
    int n =
        snprintf(text, sizeof text,
                 "pid=%d\nppid=%d\nstart_ns=%llu\nwall_start_unix_ns=%llu\nhost_name=%s\nrank=%"
                 "d\ncmdline=\n",
                 static_cast<int>(getpid()), g_config.start_ppid,
                 static_cast<unsigned long long>(g_config.image_token), wall_ns, host, mpi_rank());
    // The command line follows as /proc/self/cmdline has it: arguments separated by NUL bytes.
    return n > 0 && write_all(fd, text, static_cast<size_t>(n)) &&
           copy_file(fd, "/proc/self/cmdline");
  });
}

// Set while this thread writes the files: a hooked call from a signal handler that interrupted
// it must not wait for itself in pthread_once (it records without them; the collector reads the
// files when its next journal appears).
__attribute__((tls_model("initial-exec"))) thread_local bool t_announcing = false;

void announce() {
  t_announcing = true;
  map_lost_counters();
  write_info_file();
  copy_maps();
  g_announced.store(true, std::memory_order_release);
  t_announcing = false;
}

}  // namespace

void announce_process() noexcept {
  if (!g_config.enabled || g_announced.load(std::memory_order_acquire) || t_announcing) return;
  pthread_once(&g_announce_once, announce);
}

void announce_after_fork() noexcept {
  // The parent's state is not the child's (and a thread of the parent may have been inside the
  // once routine when it forked).
  g_announce_once = PTHREAD_ONCE_INIT;
  g_announced.store(false, std::memory_order_relaxed);
  t_announcing = false;
}

// The process's rank in an MPI job, from the variables the launchers set (Open MPI, MPICH/PMI,
// PMIx, MVAPICH, Slurm); -1 outside a job. Digits only: anything else is not a rank.
int mpi_rank() noexcept {
  for (const char* name :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"}) {
    const char* value = getenv(name);
    if (value == nullptr || *value == '\0' || strlen(value) > 9) continue;
    int rank = 0;
    const char* p = value;
    for (; *p >= '0' && *p <= '9'; ++p) rank = rank * 10 + (*p - '0');
    if (*p == '\0') return rank;
  }
  return -1;
}

void write_clock_file(const char* text) noexcept {
  if (!g_config.enabled) return;
  write_file("clock", [text](int fd) { return write_all(fd, text, strlen(text)); });
}

void write_maps_snapshot() noexcept {
  if (g_config.enabled && g_announced.load(std::memory_order_acquire)) copy_maps();
}

}  // namespace prof::interpose
