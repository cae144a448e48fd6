// bench/runfolder/src/runlock.cpp: a run sees the other live runs on the machine and forgets dead ones
// (a piece under tests/bench/rigcheck/faults.sh).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "rigcheck/runfolder/runlock.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(Faults, RunLockShowsLiveRunsAndForgetsDeadOnes) {
  std::string dir = fresh_dir("locks");
  ::setenv("RIGCHECK_LOCK_DIR", (dir + "/machine").c_str(), 1);
  fs::create_directories(dir + "/a");
  fs::create_directories(dir + "/b");
  EXPECT_EQ(runner_state(dir + "/a"), RunnerState::no_lock);
  int ready[2], go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  pid_t other = fork();
  if (other == 0) {  // another run, in another process
    RunLock l(dir + "/a");
    char c = 1;
    (void)!write(ready[1], &c, 1);
    (void)!read(go[0], &c, 1);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  {
    RunLock mine(dir + "/b");
    EXPECT_EQ(runner_state(dir + "/a"), RunnerState::alive);
    auto others = mine.others();
    ASSERT_EQ(others.size(), 1u);
    EXPECT_EQ(others[0].pid, other);
    EXPECT_EQ(others[0].run_dir, fs::canonical(dir + "/a").string());
    kill(other, SIGKILL);  // dies without a word: the kernel drops its locks
    int st;
    waitpid(other, &st, 0);
    EXPECT_EQ(runner_state(dir + "/a"), RunnerState::gone);
    EXPECT_TRUE(mine.others().empty());
    EXPECT_FALSE(fs::exists(dir + "/machine/" + std::to_string(other) + ".lock"));  // its stale file is removed
  }
  EXPECT_EQ(runner_state(dir + "/b"), RunnerState::no_lock);  // a run that ended removes its lock
  EXPECT_TRUE(fs::is_empty(dir + "/machine"));
  ::unsetenv("RIGCHECK_LOCK_DIR");
}
