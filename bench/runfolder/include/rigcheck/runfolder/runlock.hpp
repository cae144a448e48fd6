// What a run holds while it is alive, so that others can tell:
//   <run folder>/.runner.lock   flock'ed by the runner: `rigcheck report` on a folder whose runner
//                               is gone (SIGKILL, a crash, a power cut) finishes its manifest;
//   <lock dir>/<pid>.lock       one per live run on this machine (RIGCHECK_LOCK_DIR, default
//                               /tmp/rigcheck-runs), holding its run folder's path: runs at the
//                               same time see each other and say so (they compete for the CPU).
// Locks are flock(2) locks, which the kernel drops when their holder dies: a stale file is one
// nobody holds, never a run still going.
#pragma once
#include <string>
#include <vector>

namespace rigcheck {

std::string machine_lock_dir();

struct OtherRun {
  int pid = 0;
  std::string run_dir;
};

class RunLock {
 public:
  // Takes <run_dir>/.runner.lock (throws std::runtime_error if it cannot) and registers in the
  // machine lock dir (a warning on stderr if it cannot: the run goes on, blind to others).
  explicit RunLock(const std::string& run_dir);
  ~RunLock();
  // The other runs alive on this machine now; removes the files of dead ones.
  std::vector<OtherRun> others() const;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  std::string run_dir_, folder_lock_, machine_lock_;
  int folder_fd_ = -1, machine_fd_ = -1;
};

enum class RunnerState { alive, gone, no_lock };
// alive: a process holds <run_dir>/.runner.lock; gone: the file is there and nobody holds it;
// no_lock: no such file (the runner ended normally, or the folder is from a version without it).
RunnerState runner_state(const std::string& run_dir);

}  // namespace rigcheck
