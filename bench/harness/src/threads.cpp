#include "rigcheck/harness/threads.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include <fmt/format.h>

namespace rigcheck {

namespace {

using SetThreads = void (*)(int);

// A library's setter when the process has it loaded: looked up, not linked, so that the harness
// needs none of them and a benchmark that does not load a library does not get it.
SetThreads find_setter(const char* name) {
  void* p = dlsym(RTLD_DEFAULT, name);
  return reinterpret_cast<SetThreads>(p);
}

double seconds_of(const timespec& t) { return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec); }

// The CPU-time clock of another thread of this process, as glibc's pthread_getcpuclockid makes it
// from a kernel thread id (linux/posix-timers.h: CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK).
clockid_t thread_clock(pid_t tid) { return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6); }

// A thread's name as the kernel keeps it: pools that name their threads say whose they are (an
// unnamed thread has the process's name).
std::string thread_name(pid_t tid) {
  std::string name;
  if (FILE* f = std::fopen(fmt::format("/proc/self/task/{}/comm", tid).c_str(), "r")) {
    char buf[64] = {};
    if (std::fgets(buf, sizeof buf, f)) name = buf;
    std::fclose(f);
  }
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name.empty() ? "?" : name;
}

}  // namespace

std::string set_library_threads(int n) {
  std::string what;
  // OpenMP first, through its own API (the harness links the OpenMP runtime of the benchmarks).
  if (auto omp = find_setter("omp_set_num_threads")) {
    omp(n);
    what += fmt::format("openmp={}", n);
  }
  // Setters of the form void f(int) only (BLIS's takes a 64-bit dim_t: not called through this type).
  for (const char* name : {"openblas_set_num_threads", "MKL_Set_Num_Threads"})
    if (auto set = find_setter(name)) {
      set(n);
      what += fmt::format("{}{}={}", what.empty() ? "" : " ", name, n);
    }
  return what;
}

ThreadCpuSnapshot take_thread_cpu_snapshot() {
  ThreadCpuSnapshot s;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      if (tid <= 0) continue;
      timespec t{};
      if (clock_gettime(thread_clock(tid), &t) == 0) s.thread_s[tid] = seconds_of(t);
    }
    closedir(d);
  }
  timespec p{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p);
  s.process_s = seconds_of(p);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return s;
}

ThreadUse thread_use_between(const ThreadCpuSnapshot& a, const ThreadCpuSnapshot& b) {
  ThreadUse u;
  u.wall_s = b.wall_s - a.wall_s;
  if (u.wall_s <= 0) return u;
  u.cpus = (b.process_s - a.process_s) / u.wall_s;
  for (const auto& [tid, end] : b.thread_s) {
    auto it = a.thread_s.find(tid);
    if (it == a.thread_s.end()) continue;
    ++u.live;
    if (end - it->second < kWorkingThreadShare * u.wall_s) continue;
    ++u.working;
    u.working_names.push_back(thread_name(tid));
  }
  return u;
}

double wait_for_other_threads_idle(int busy_allowed, double max_s) {
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  const auto t0 = std::chrono::steady_clock::now();
  double waited = 0;
  ThreadCpuSnapshot a = take_thread_cpu_snapshot();
  while (waited < max_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ThreadCpuSnapshot b = take_thread_cpu_snapshot();
    const double window = b.wall_s - a.wall_s;
    int busy = 0;
    for (const auto& [tid, end] : b.thread_s) {
      auto it = a.thread_s.find(tid);
      if (tid != self && it != a.thread_s.end() && end - it->second >= 0.1 * window) ++busy;
    }
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (window > 0 && busy <= busy_allowed) break;
    a = std::move(b);
  }
  return waited;
}

}  // namespace rigcheck
