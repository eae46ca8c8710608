#include "cli/launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "cli/exit_codes.hpp"

extern char** environ;

namespace prof::cli {
namespace {

std::atomic<pid_t> g_child{-1};
std::atomic<pid_t> g_group{-1};  // the program's process group
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
constexpr int kForwardedCount = sizeof(kForwarded) / sizeof(kForwarded[0]);
// A sender that signals prof twice for one event (`timeout` signals its child, then its own
// process group, which holds prof too) is one signal to the program: the same signal from the
// same sender within this window is not forwarded again.
constexpr int64_t kBurstWindowNs = 50'000'000;

struct LastForward {
  volatile sig_atomic_t sender = -1;
  volatile int64_t at_ns = 0;
};
LastForward g_last[65];

int64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);  // async-signal-safe
  return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// The program runs in its own process group, so a signal sent to prof's group (kill -PGID,
// timeout, a shell's job control) reaches prof only, and prof passes it on: once. Keys typed at a
// terminal go to the program's group directly (it is the terminal's foreground group, see
// hand_terminal), so they never reach prof.
void forward_signal(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  const pid_t child = g_child.load();
  const pid_t group = g_group.load();
  if (child > 0) {
    const pid_t sender = info ? info->si_pid : 0;
    const int64_t now = monotonic_ns();
    LastForward& last = g_last[sig < 65 ? sig : 0];
    const bool repeat = info && info->si_code != SI_KERNEL && last.sender == sender &&
                        now - last.at_ns < kBurstWindowNs;
    if (!repeat) {
      // The group first (the program and whatever it started in it), the program itself if it
      // left its group (setsid, setpgid).
      if (kill(-group, sig) != 0 || getpgid(child) != group) kill(child, sig);
      last.sender = sender;
      last.at_ns = now;
    }
  }
  errno = saved_errno;
}

// When prof runs in the foreground of a terminal, the program's process group becomes the
// terminal's foreground group, as a shell does for a job: Ctrl-C, Ctrl-Z and terminal input reach
// the program directly. Returns the terminal's fd, or -1 when prof is not in the foreground of one.
int controlling_terminal_in_foreground() {
  int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (tcgetpgrp(fd) != getpgrp()) {
    close(fd);
    return -1;
  }
  return fd;
}

// The program's process group is led by a placeholder process, not by the program: the program is
// then no group leader, as when a non-interactive shell or prof before it started it, so its own
// setsid() or setpgid() behaves as without prof. The holder blocks every signal (a signal sent to
// the group is the program's business), dies with prof (PR_SET_PDEATHSIG) and is killed when the
// program has ended. -1 if it could not be started: the program then leads its own group.
pid_t start_group_holder() {
  pid_t holder = fork();
  if (holder == 0) {
    // Async-signal-safe calls only: prof has threads (the collector) at this point.
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);
    for (int fd = 0; fd < 1024; ++fd) close(fd);  // holds no pipe or terminal open
    for (;;) pause();
  }
  if (holder > 0) setpgid(holder, holder);
  return holder;
}

// tcsetpgrp from a process that is not in the foreground group sends it SIGTTOU: blocked here.
void hand_terminal(int tty, pid_t group) {
  if (tty < 0) return;
  sigset_t ttou, previous;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &previous);
  tcsetpgrp(tty, group);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
}

bool is_executable_file(const std::string& path, int& error_code) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    error_code = kExitNotFound;
    return false;
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    error_code = kExitNotExecutable;
    return false;
  }
  return true;
}

std::vector<std::string> build_environment(const LaunchOptions& options) {
  std::vector<std::string> env;
  std::string preload = options.preload_library;
  std::string library_path = options.sim_library_dir;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      // Ours first, the user's kept behind it.
      std::string theirs = entry.substr(11);
      if (!theirs.empty()) preload += ":" + theirs;
    } else if (entry.rfind("LD_LIBRARY_PATH=", 0) == 0 && !options.sim_library_dir.empty()) {
      std::string theirs = entry.substr(16);
      if (!theirs.empty()) library_path += ":" + theirs;
    } else if (entry.rfind("PROF_RUN_DIR=", 0) == 0 ||
               entry.rfind("PROF_RUN_DIR_FALLBACK=", 0) == 0 ||
               entry.rfind("PROF_DEVICE_TIMING=", 0) == 0 ||
               entry.rfind("PROF_RUNTIMES=", 0) == 0 || entry.rfind("PROF_CAPTURE", 0) == 0) {
      // set below
    } else {
      env.push_back(entry);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  if (!options.sim_library_dir.empty()) env.push_back("LD_LIBRARY_PATH=" + library_path);
  env.push_back("PROF_RUN_DIR=" + options.run_dir);
  if (!options.run_dir_fallback.empty())
    env.push_back("PROF_RUN_DIR_FALLBACK=" + options.run_dir_fallback);
  env.push_back(std::string("PROF_DEVICE_TIMING=") + (options.device_timing ? "1" : "0"));
  env.push_back("PROF_RUNTIMES=" + options.runtimes);
  if (options.capture_by_api) env.push_back("PROF_CAPTURE=api");
  if (options.capture_delay_ns > 0)
    env.push_back("PROF_CAPTURE_DELAY_NS=" + std::to_string(options.capture_delay_ns));
  if (options.capture_duration_ns > 0)
    env.push_back("PROF_CAPTURE_DURATION_NS=" + std::to_string(options.capture_duration_ns));
  return env;
}

// argv and environment as execve takes them, and /bin/sh <program> <args> for ENOEXEC. Built
// before fork (no allocation in the child), in place: the pointers point into `env`.
struct ExecArgs {
  ExecArgs() = default;
  ExecArgs(const ExecArgs&) = delete;  // a copy's pointers would point into the original
  ExecArgs& operator=(const ExecArgs&) = delete;
  std::vector<std::string> env;
  std::vector<char*> argv_ptrs, env_ptrs, sh_argv;
};

void build_exec_args(const LaunchOptions& options, const std::string& program_path,
                     ExecArgs& args) {
  args.env = build_environment(options);
  for (const auto& a : options.argv) args.argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  args.argv_ptrs.push_back(nullptr);
  args.sh_argv = {const_cast<char*>("/bin/sh"), const_cast<char*>(program_path.c_str())};
  for (size_t i = 1; i + 1 < args.argv_ptrs.size(); ++i) args.sh_argv.push_back(args.argv_ptrs[i]);
  args.sh_argv.push_back(nullptr);
  for (const auto& e : args.env) args.env_ptrs.push_back(const_cast<char*>(e.c_str()));
  args.env_ptrs.push_back(nullptr);
}

// The child, between fork and exec: async-signal-safe calls only (prof has threads, the
// collector), and nothing allocated. An exec failure's errno goes up the pipe.
[[noreturn]] void exec_program(const LaunchOptions& options, const std::string& program_path,
                               ExecArgs& args, int tty, pid_t holder, const sigset_t& previous,
                               int read_fd, int write_fd) {
  // Its own process group (see forward_signal), and the terminal if prof had it. Both sides
  // set them, so neither the program nor a signal can get in before they are in place.
  setpgid(0, holder > 0 ? holder : 0);
  hand_terminal(tty, holder > 0 ? holder : getpid());
  if (tty >= 0) close(tty);
  signal(SIGPIPE, options.sigpipe_ignored ? SIG_IGN : SIG_DFL);  // as prof found it
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  close(read_fd);
  execve(program_path.c_str(), args.argv_ptrs.data(), args.env_ptrs.data());
  int err = errno;
  if (err == ENOEXEC) {
    // A script without a #! line: run it with /bin/sh, as a shell and execvp do.
    execve("/bin/sh", args.sh_argv.data(), args.env_ptrs.data());
    err = errno;
  }
  ssize_t ignored = write(write_fd, &err, sizeof err);
  (void)ignored;
  _exit(kExitNotExecutable);
}

// fork failed: the holder goes, the pipe closes and the signal mask is as prof found it.
void abandon_launch(int tty, pid_t holder, const sigset_t& previous, int read_fd) {
  if (tty >= 0) close(tty);
  if (holder > 0) {
    kill(holder, SIGKILL);
    waitpid(holder, nullptr, 0);
  }
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  close(read_fd);
}

void install_forwarding(struct sigaction (&old_actions)[kForwardedCount]) {
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < kForwardedCount; ++i) sigaction(kForwarded[i], &sa, &old_actions[i]);
}

// Whether the exec failed, with the child's errno in `exec_errno`; EOF is an exec that succeeded.
bool read_exec_error(int read_fd, int& exec_errno) {
  ssize_t n;
  do {
    n = read(read_fd, &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(read_fd);
  return n == static_cast<ssize_t>(sizeof exec_errno);
}

// The program's wait status once it has ended (0 if it cannot be waited for).
int wait_for_program(pid_t pid, int tty, pid_t group) {
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, tty >= 0 ? WUNTRACED : 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (!WIFSTOPPED(status)) break;
    // Stopped from the terminal (Ctrl-Z): prof takes the terminal back and stops too, so the
    // shell sees its job stopped; when the shell continues prof, the program gets the terminal
    // and SIGCONT again.
    hand_terminal(tty, getpgrp());
    kill(getpid(), SIGSTOP);
    hand_terminal(tty, group);
    kill(-group, SIGCONT);
  }
  return status;
}

// The program has ended: no more forwarding, the holder goes, the terminal comes back to prof.
void end_launch(pid_t holder, int tty, const struct sigaction (&old_actions)[kForwardedCount]) {
  g_child.store(-1);
  if (holder > 0) {
    kill(holder, SIGKILL);
    while (waitpid(holder, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  for (int i = 0; i < kForwardedCount; ++i) sigaction(kForwarded[i], &old_actions[i], nullptr);
  hand_terminal(tty, getpgrp());
  if (tty >= 0) close(tty);
}

// As a shell reports it: the exit code, or 128 + the signal that ended the program.
int shell_exit_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 0;
}

}  // namespace

std::string resolve_program(const std::string& name, int& error_code, std::string& message) {
  error_code = 0;
  if (name.find('/') != std::string::npos) {
    if (is_executable_file(name, error_code)) return name;
    message = name + (error_code == kExitNotFound ? ": no such file" : ": not an executable file");
    return {};
  }
  const char* path_env = getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  int best = kExitNotFound;
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    int code = 0;
    if (is_executable_file(candidate, code)) return candidate;
    if (code == kExitNotExecutable) best = code;
    start = colon + 1;
  }
  error_code = best;
  message = name + (best == kExitNotFound ? ": command not found" : ": not an executable file");
  return {};
}

LaunchResult launch_and_wait(const LaunchOptions& options, const std::string& program_path,
                             std::string& message) {
  LaunchResult result;
  ExecArgs args;
  build_exec_args(options, program_path, args);

  // exec failures travel back through a close-on-exec pipe: EOF means the exec succeeded.
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    message = std::string("cannot create a pipe: ") + strerror(errno);
    return result;
  }
  // Block the forwarded signals around fork so the handlers never see a half-set-up child.
  sigset_t forwarded, previous;
  sigemptyset(&forwarded);
  for (int sig : kForwarded) sigaddset(&forwarded, sig);
  sigprocmask(SIG_BLOCK, &forwarded, &previous);
  const int tty = controlling_terminal_in_foreground();
  const pid_t holder = start_group_holder();
  pid_t pid = fork();
  if (pid == 0)
    exec_program(options, program_path, args, tty, holder, previous, pipe_fds[0], pipe_fds[1]);
  close(pipe_fds[1]);
  if (pid < 0) {
    abandon_launch(tty, holder, previous, pipe_fds[0]);
    message = std::string("cannot fork: ") + strerror(errno);
    return result;
  }
  if (options.on_started) options.on_started(pid);
  const pid_t group = holder > 0 ? holder : pid;
  setpgid(pid, group);  // EACCES once the child has exec'd: it did it itself
  hand_terminal(tty, group);
  g_group.store(group);
  g_child.store(pid);
  struct sigaction old_actions[kForwardedCount];
  install_forwarding(old_actions);
  sigprocmask(SIG_SETMASK, &previous, nullptr);

  int exec_errno = 0;
  const bool exec_failed = read_exec_error(pipe_fds[0], exec_errno);
  const int status = wait_for_program(pid, tty, group);
  end_launch(holder, tty, old_actions);

  if (exec_failed) {
    message = program_path + ": cannot execute: " + strerror(exec_errno);
    result.exit_status = exec_errno == ENOENT ? kExitNotFound : kExitNotExecutable;
    return result;
  }
  result.pid = pid;
  result.exit_status = shell_exit_status(status);
  return result;
}

}  // namespace prof::cli
