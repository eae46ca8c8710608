#include "cli/launcher.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "cli/exit_codes.hpp"

extern char** environ;

namespace prof::cli {
namespace {

std::atomic<pid_t> g_child{-1};
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// A signal sent to prof by a process (kill, a job scheduler) is passed on to the program. One
// the terminal sent to the whole foreground group already reached the program: not again, unless
// the program has left prof's process group (setsid, setpgid) and so did not get it.
void forward_signal(int sig, siginfo_t* info, void*) {
  const int saved_errno = errno;
  pid_t child = g_child.load();
  if (child > 0 && info && (info->si_code != SI_KERNEL || getpgid(child) != getpgrp())) kill(child, sig);
  errno = saved_errno;
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
    } else if (entry.rfind("PROF_RUN_DIR=", 0) == 0 || entry.rfind("PROF_DEVICE_TIMING=", 0) == 0 ||
               entry.rfind("PROF_RUNTIMES=", 0) == 0) {
      // set below
    } else {
      env.push_back(entry);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  if (!options.sim_library_dir.empty()) env.push_back("LD_LIBRARY_PATH=" + library_path);
  env.push_back("PROF_RUN_DIR=" + options.run_dir);
  env.push_back(std::string("PROF_DEVICE_TIMING=") + (options.device_timing ? "1" : "0"));
  env.push_back("PROF_RUNTIMES=" + options.runtimes);
  return env;
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

LaunchResult launch_and_wait(const LaunchOptions& options, const std::string& program_path, std::string& message) {
  LaunchResult result;
  std::vector<std::string> env = build_environment(options);
  std::vector<char*> argv_ptrs, env_ptrs;
  for (const auto& a : options.argv) argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  argv_ptrs.push_back(nullptr);
  for (const auto& e : env) env_ptrs.push_back(const_cast<char*>(e.c_str()));
  env_ptrs.push_back(nullptr);

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
  pid_t pid = fork();
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    close(pipe_fds[0]);
    execve(program_path.c_str(), argv_ptrs.data(), env_ptrs.data());
    int err = errno;
    ssize_t ignored = write(pipe_fds[1], &err, sizeof err);
    (void)ignored;
    _exit(kExitNotExecutable);
  }
  close(pipe_fds[1]);
  if (pid < 0) {
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    close(pipe_fds[0]);
    message = std::string("cannot fork: ") + strerror(errno);
    return result;
  }
  g_child.store(pid);
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_actions[4];
  for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &sa, &old_actions[i]);
  sigprocmask(SIG_SETMASK, &previous, nullptr);

  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(pipe_fds[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(pipe_fds[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child.store(-1);
  for (int i = 0; i < 4; ++i) sigaction(kForwarded[i], &old_actions[i], nullptr);

  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    message = program_path + ": cannot execute: " + strerror(exec_errno);
    result.exit_status = exec_errno == ENOENT ? kExitNotFound : kExitNotExecutable;
    return result;
  }
  result.pid = pid;
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_status = 128 + WTERMSIG(status);
  return result;
}

}  // namespace prof::cli
