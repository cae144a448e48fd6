// Child processes for the runner: own process group, extra environment, a timeout, and a
// way to stop them from a signal handler.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

struct ChildResult {
  int exit_code = -1;      // exit status, or 128+signal when killed by a signal
  bool timed_out = false;
  bool interrupted = false;  // stopped because stop_children() was called
  double seconds = 0;
  std::string output_tail;   // last lines of stdout+stderr
};

// Runs argv with extra "KEY=VALUE" environment entries; output goes to log_path (and is
// echoed to our stderr when echo is true). Kills the whole group after timeout_s (SIGTERM,
// then SIGKILL after 5 s). on_tick is called about every second with the elapsed seconds.
ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      double timeout_s, const std::string& log_path, bool echo,
                      void (*on_tick)(double elapsed, void* ctx) = nullptr, void* ctx = nullptr);

// Async-signal-safe: asks the running child (if any) to stop; run_child then returns with
// interrupted = true.
void stop_children();

}  // namespace rigcheck
