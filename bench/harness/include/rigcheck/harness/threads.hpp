// A case's thread count is process-wide state of several libraries (OpenMP's pool, OpenBLAS's own
// pool, LibTorch's intra-op pool): it is set where the case's repetitions run, never where its
// kernel is built, and what ran is proven per repetition from the CPU time of every thread of the
// process, not assumed from the count asked for.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace rigcheck {

// Sets the thread count of every threading library loaded in this process that the harness can
// reach without linking it: OpenMP (omp_set_num_threads) and, when their symbols are present,
// OpenBLAS and MKL. LibTorch keeps its own (Kernel::before_repetition). Returns what was set,
// e.g. "openmp=2 openblas=2".
std::string set_library_threads(int n);

// CPU time of every thread of this process (CLOCK_THREAD_CPUTIME of each task in /proc/self/task,
// nanosecond resolution), and of the whole process (threads that exited included).
struct ThreadCpuSnapshot {
  std::map<pid_t, double> thread_s;  // tid -> CPU seconds
  double process_s = 0;
  double wall_s = 0;  // steady clock
};
ThreadCpuSnapshot take_thread_cpu_snapshot();

// What the process did between two snapshots.
struct ThreadUse {
  double wall_s = 0;
  double cpus = 0;                         // process CPU seconds / wall seconds: how many CPUs' worth it used
  int working = 0;                         // threads that ran at least kWorkingThreadShare of the wall time
  int live = 0;                            // threads alive at both snapshots
  std::vector<std::string> working_names;  // the working threads' names (/proc: comm), the process's own first
  bool valid() const { return wall_s > 0; }
};
// A thread counts as working above this share of the interval: a pool thread that took part in the
// work is far above it, an idle one (asleep, or spinning down after an earlier case) far below.
inline constexpr double kWorkingThreadShare = 0.2;
ThreadUse thread_use_between(const ThreadCpuSnapshot& a, const ThreadCpuSnapshot& b);

// Waits until at most `busy_allowed` of the process's other threads work (over 10% of a CPU in a
// 2 ms window), at most `max_s` seconds. A pool that worked for an earlier case of more threads
// spins for a while before it sleeps (OpenBLAS: about 2^28 cycles); timed then, a 1-thread case
// would show that spin as its own. A case of N threads may have N - 1 others working (a kernel's own
// threads that run all along, as the loaded latency's streamers). Returns the seconds waited.
double wait_for_other_threads_idle(int busy_allowed = 0, double max_s = 0.3);

}  // namespace rigcheck
