#include "rigcheck/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace rigcheck {

namespace {
volatile sig_atomic_t g_stop = 0;
volatile pid_t g_child = 0;

std::string tail_of(const std::string& path, size_t max_bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  f.seekg(0, std::ios::end);
  std::streamoff size = f.tellg();
  std::streamoff from = size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
  f.seekg(from);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

void stop_children() {
  g_stop = 1;
  pid_t p = g_child;
  if (p > 0) kill(-p, SIGTERM);
}

ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      double timeout_s, const std::string& log_path, bool echo,
                      void (*on_tick)(double, void*), void* ctx) {
  ChildResult res;
  auto t0 = std::chrono::steady_clock::now();
  int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    res.output_tail = "cannot open log " + log_path + ": " + std::strerror(errno);
    return res;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fd);
    res.output_tail = std::string("fork failed: ") + std::strerror(errno);
    return res;
  }
  if (pid == 0) {
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    for (const std::string& kv : env) {
      size_t eq = kv.find('=');
      if (eq != std::string::npos) setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot execute %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(fd);
  g_child = pid;
  int status = 0;
  bool term_sent = false;
  double term_at = 0, last_tick = 0;
  while (true) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!term_sent && (g_stop || (timeout_s > 0 && el > timeout_s))) {
      if (g_stop) res.interrupted = true;
      else res.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at = el;
    } else if (term_sent && el - term_at > 5) {
      kill(-pid, SIGKILL);
    }
    if (on_tick && el - last_tick >= 1.0) {
      on_tick(el, ctx);
      last_tick = el;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  g_child = 0;
  kill(-pid, SIGKILL);  // nothing of the group outlives it
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) res.exit_code = 128 + WTERMSIG(status);
  if (g_stop) res.interrupted = true;
  res.output_tail = tail_of(log_path, 4000);
  if (echo) std::fputs(res.output_tail.c_str(), stderr);
  return res;
}

}  // namespace rigcheck
