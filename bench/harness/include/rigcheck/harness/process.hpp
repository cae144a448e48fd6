// Child processes for the runner: own process group, extra environment, a timeout, limits, a
// life tied to the runner's, and a way to stop them from a signal handler.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

struct ChildResult {
  int exit_code = -1;   // exit status, or 128+signal when killed by a signal
  int term_signal = 0;  // the signal that ended it (0: it exited)
  bool timed_out = false;
  bool interrupted = false;     // stopped because stop_children() was called
  bool needed_sigkill = false;  // it outlived the SIGTERM by the 5 s grace and got SIGKILL
  double seconds = 0;
  std::string output_tail;  // last lines of stdout+stderr
};

struct ChildLimits {
  // RLIMIT_AS of the child in bytes (0: inherited). Address space, not memory: CUDA and the
  // sanitizers reserve far more address space than they use, so the runner sets none for them.
  unsigned long long address_space_bytes = 0;
};

// Runs argv with extra "KEY=VALUE" environment entries; output goes to log_path (and is
// echoed to our stderr when echo is true). Kills the whole group after timeout_s (SIGTERM,
// then SIGKILL after 5 s). on_tick is called about every second with the elapsed seconds.
// The child gets PR_SET_PDEATHSIG SIGKILL: it dies with the process that started it, even when
// that one is SIGKILLed (its own children are ChildWatcher's).
ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, double timeout_s,
                      const std::string& log_path, bool echo, void (*on_tick)(double elapsed, void* ctx) = nullptr,
                      void* ctx = nullptr, const ChildLimits& limits = {});

// Async-signal-safe: asks the running child (if any) to stop; run_child then returns with
// interrupted = true.
void stop_children();

// Why a child ended, in words: the signal by name and what it usually means (SIGSEGV a bad
// memory access, SIGILL an instruction this CPU lacks, SIGKILL from outside: the kernel's OOM
// killer), an exhausted address space (std::bad_alloc in its output) with the limit named, an
// AddressSanitizer report. Empty when it exited 0.
std::string describe_child_end(const ChildResult& r, unsigned long long address_space_bytes);

// Processes whose environment holds RIGCHECK_CHILD_TAG=<tag>: every process a run started
// (children, grandchildren, even those that left its process groups) carries its run's tag.
std::vector<int> tagged_processes(const std::string& tag);

// The executable `name` in $PATH's folders (/usr/bin:/bin when PATH is unset), or "" when none.
std::string find_on_path(const std::string& name);

// A process of its own (its own session, so Ctrl-C and a kill of the runner's group spare it)
// that outlives the runner: when the runner ends for any reason, SIGKILL included, its pipe
// closes, and the watcher kills the last child's process group and then every process tagged
// with the run's tag, until none is left. Start it before any thread exists.
class ChildWatcher {
 public:
  explicit ChildWatcher(const std::string& tag);
  ~ChildWatcher();              // closes the pipe and waits for the sweep
  void child_started(int pid);  // the group to kill should the runner die now
  void child_ended();
  ChildWatcher(const ChildWatcher&) = delete;
  ChildWatcher& operator=(const ChildWatcher&) = delete;

 private:
  int fd_ = -1, pid_ = -1;
};

}  // namespace rigcheck
