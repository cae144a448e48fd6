// bench/harness/src/process.cpp: child processes killed at their timeout, the watcher that kills a dead
// runner's tagged processes, and the end of a child described in words (the pieces under
// tests/bench/rigcheck/faults.sh).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rigcheck/harness/process.hpp"
#include "support/files.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(Runner, ChildIsKilledAtItsTimeout) {
  std::string dir = fresh_dir("timeout");
  ChildResult r = run_child({"sleep", "30"}, {}, 0.5, dir + "/log", false);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10);
}

TEST(Faults, TheWatcherKillsTaggedProcessesWhenTheRunnerDies) {
  // A "runner" (a child process) starts a watcher and a tagged process that left its process
  // group and session; the runner is SIGKILLed; the tagged process must be gone.
  const std::string tag = "unit-test-" + std::to_string(getpid());
  EXPECT_TRUE(tagged_processes(tag).empty());
  pid_t runner = fork();
  if (runner == 0) {
    ChildWatcher w(tag);
    if (fork() == 0) {
      setsid();
      setenv("RIGCHECK_CHILD_TAG", tag.c_str(), 1);
      execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
      _exit(127);
    }
    while (true) pause();
  }
  for (int i = 0; i < 100 && tagged_processes(tag).empty(); ++i) usleep(20000);
  ASSERT_EQ(tagged_processes(tag).size(), 1u);
  kill(runner, SIGKILL);
  int st;
  waitpid(runner, &st, 0);
  for (int i = 0; i < 100 && !tagged_processes(tag).empty(); ++i) usleep(20000);
  EXPECT_TRUE(tagged_processes(tag).empty());
}

TEST(Faults, ChildEndsAreDescribedInWords) {
  ChildResult r;
  r.exit_code = 0;
  EXPECT_EQ(describe_child_end(r, 0), "");
  r.exit_code = 139;
  r.term_signal = SIGSEGV;
  EXPECT_NE(describe_child_end(r, 0).find("segmentation fault"), std::string::npos);
  r.term_signal = SIGILL;
  r.exit_code = 132;
  EXPECT_NE(describe_child_end(r, 0).find("instruction this CPU lacks"), std::string::npos);
  r.term_signal = SIGKILL;
  r.exit_code = 137;
  EXPECT_NE(describe_child_end(r, 0).find("out-of-memory killer"), std::string::npos);
  r.term_signal = 0;
  r.exit_code = 1;
  r.output_tail = "x\nFAILED: set-up failed: std::bad_alloc\n";
  EXPECT_NE(describe_child_end(r, 2ull << 30)
                .find("ran out of memory (its allocation failed: std::bad_alloc) under its "
                      "address-space limit of 2 GiB"),
            std::string::npos);
  r.output_tail = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n";
  EXPECT_NE(describe_child_end(r, 0).find("segmentation fault"), std::string::npos);
  r.output_tail = "";
  EXPECT_EQ(describe_child_end(r, 0), "exited with status 1");
}

TEST(Faults, ASanitizedChildUnderAnAddressSpaceLimitIsExplained) {
  ChildResult r;
  r.exit_code = 134;
  r.term_signal = SIGABRT;
  r.output_tail =
      "==1==ReserveShadowMemoryRange failed while trying to map 0xdfff0001000 bytes. Perhaps you're using ulimit -v\n";
  EXPECT_NE(describe_child_end(r, 1ull << 30).find("without --memory-limit"), std::string::npos);
}
