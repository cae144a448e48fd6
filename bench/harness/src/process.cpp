#include "rigcheck/harness/process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace rigcheck {

namespace {
volatile sig_atomic_t g_stop = 0;
volatile pid_t g_child = 0;
ChildWatcher* g_watcher = nullptr;

std::string tail_of(const std::string& path, size_t max_bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  f.seekg(0, std::ios::end);
  std::streamoff size = f.tellg();
  std::streamoff from =
      size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
  f.seekg(from);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The last line of the output that mentions what, or "".
std::string line_with(const std::string& tail, const std::string& what) {
  std::istringstream in(tail);
  std::string found;
  for (std::string line; std::getline(in, line);)
    if (line.find(what) != std::string::npos) found = line;
  return found;
}
}  // namespace

void stop_children() {
  g_stop = 1;
  pid_t p = g_child;
  if (p > 0) kill(-p, SIGTERM);
}

ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, double timeout_s,
                      const std::string& log_path, bool echo, void (*on_tick)(double, void*), void* ctx,
                      const ChildLimits& limits) {
  ChildResult res;
  auto t0 = std::chrono::steady_clock::now();
  int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    res.output_tail = "cannot open log " + log_path + ": " + std::strerror(errno);
    return res;
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(fd);
    res.output_tail = std::string("fork failed: ") + std::strerror(errno);
    return res;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Dies with the process that started it, SIGKILL of that one included; and if that one is
    // already gone (it died between fork and here), now.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(137);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (limits.address_space_bytes > 0) {
      rlimit rl{static_cast<rlim_t>(limits.address_space_bytes), static_cast<rlim_t>(limits.address_space_bytes)};
      if (setrlimit(RLIMIT_AS, &rl) != 0) {
        std::fprintf(stderr, "FAILED: cannot set RLIMIT_AS: %s\n", std::strerror(errno));
        _exit(126);
      }
    }
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
  if (g_watcher) g_watcher->child_started(pid);
  int status = 0;
  bool term_sent = false;
  double term_at = 0, last_tick = 0;
  while (true) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!term_sent && (g_stop || (timeout_s > 0 && el > timeout_s))) {
      if (g_stop)
        res.interrupted = true;
      else
        res.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at = el;
    } else if (term_sent && el - term_at > 5) {
      kill(-pid, SIGKILL);
      res.needed_sigkill = true;
    }
    if (on_tick && el - last_tick >= 1.0) {
      on_tick(el, ctx);
      last_tick = el;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  g_child = 0;
  kill(-pid, SIGKILL);  // nothing of the group outlives it
  if (g_watcher) g_watcher->child_ended();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status))
    res.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) {
    res.term_signal = WTERMSIG(status);
    res.exit_code = 128 + res.term_signal;
  }
  if (g_stop) res.interrupted = true;
  res.output_tail = tail_of(log_path, 4000);
  if (echo) std::fputs(res.output_tail.c_str(), stderr);
  return res;
}

std::string describe_child_end(const ChildResult& r, unsigned long long as_bytes) {
  const std::string limit =
      as_bytes ? fmt::format(" under its address-space limit of {:.3g} GiB (rigcheck run --memory-limit, RLIMIT_AS)",
                             static_cast<double>(as_bytes) / (1ull << 30))
               : "";
  if (!line_with(r.output_tail, "bad_alloc").empty() || !line_with(r.output_tail, "out of memory").empty() ||
      !line_with(r.output_tail, "Cannot allocate memory").empty())
    return "ran out of memory (its allocation failed: std::bad_alloc)" + limit;
  if (!line_with(r.output_tail, "ReserveShadowMemoryRange failed").empty())
    return "a sanitizer build cannot start under an address-space limit (its shadow memory needs terabytes of "
           "address space): run it without --memory-limit";
  if (std::string asan = line_with(r.output_tail, "ERROR: AddressSanitizer: "); !asan.empty()) {
    std::string what = asan.substr(asan.find("AddressSanitizer: ") + 18);
    if (what.rfind("SEGV", 0) == 0)
      return "crashed with a segmentation fault (a bad memory access; AddressSanitizer: " + what + ")";
    return "AddressSanitizer found a memory error: " + what;
  }
  if (std::string ub = line_with(r.output_tail, "runtime error: "); !ub.empty() && r.exit_code != 0)
    return "UndefinedBehaviorSanitizer: " + ub.substr(ub.find("runtime error: "));
  switch (r.term_signal) {
    case 0: return r.exit_code == 0 ? "" : fmt::format("exited with status {}", r.exit_code);
    case SIGSEGV: return "crashed with SIGSEGV (segmentation fault: a bad memory access)";
    case SIGBUS: return "crashed with SIGBUS (a bad memory access: a mapped file shrank, or a misaligned access)";
    case SIGILL: return "crashed with SIGILL (an instruction this CPU lacks: a binary built for another ISA?)";
    case SIGFPE: return "crashed with SIGFPE (an arithmetic fault such as an integer division by zero)";
    case SIGABRT: return "aborted (SIGABRT: a failed assertion or an uncaught exception; see its log)";
    case SIGXFSZ: return "killed by SIGXFSZ: a file it wrote passed the file-size limit (ulimit -f)";
    case SIGKILL:
      return "killed by SIGKILL from outside the runner (the kernel's out-of-memory killer does this: see dmesg)" +
             limit;
    default: return fmt::format("killed by signal {} ({})", r.term_signal, strsignal(r.term_signal));
  }
}

std::vector<int> tagged_processes(const std::string& tag) {
  std::vector<int> out;
  if (tag.empty()) return out;
  const std::string want = "RIGCHECK_CHILD_TAG=" + tag;
  DIR* d = opendir("/proc");
  if (!d) return out;
  const int self = getpid();
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    std::ifstream f(fmt::format("/proc/{}/environ", pid), std::ios::binary);
    if (!f) continue;
    std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (size_t p = 0; (p = env.find(want, p)) != std::string::npos; p += want.size()) {
      size_t after = p + want.size();
      if ((p == 0 || env[p - 1] == '\0') && (after == env.size() || env[after] == '\0')) {
        out.push_back(static_cast<int>(pid));
        break;
      }
    }
  }
  closedir(d);
  return out;
}

ChildWatcher::ChildWatcher(const std::string& tag) {
  // A socket pair, not a pipe: send(MSG_NOSIGNAL) to a watcher that is gone costs no SIGPIPE.
  int p[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0) return;  // no watcher: PDEATHSIG still holds
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return;
  }
  if (pid == 0) {
    setsid();
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    close(p[1]);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      dup2(devnull, STDOUT_FILENO);  // nothing of a caller's pipe is held open by the watcher
    }
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != p[0]) close(fd);
    int32_t group = 0, v = 0;
    while (true) {
      ssize_t n = read(p[0], &v, sizeof v);
      if (n == static_cast<ssize_t>(sizeof v)) {
        group = v;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break;  // EOF: the runner is gone, or done
    }
    if (group > 0) kill(-group, SIGKILL);
    for (int pass = 0; pass < 100; ++pass) {
      std::vector<int> left = tagged_processes(tag);
      if (left.empty()) break;
      for (int q : left) kill(q, SIGKILL);
      usleep(20000);
    }
    _exit(0);
  }
  close(p[0]);
  fd_ = p[1];
  pid_ = pid;
  g_watcher = this;
}

void ChildWatcher::child_started(int pid) {
  int32_t v = pid;
  if (fd_ >= 0) (void)send(fd_, &v, sizeof v, MSG_NOSIGNAL);
}

void ChildWatcher::child_ended() { child_started(0); }

ChildWatcher::~ChildWatcher() {
  if (g_watcher == this) g_watcher = nullptr;
  if (fd_ >= 0) close(fd_);
  if (pid_ > 0) {
    int st;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
  }
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;  // an empty entry is the current folder: never searched
    const std::string p = dir + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

}  // namespace rigcheck
