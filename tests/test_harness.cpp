// The harness through a fake benchmark binary: checks before speeds, skips, refusing to
// overwrite; and the runner's pieces: fresh run folders, salvaging a cut-short CSV.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/tool/report.hpp"
#include "rigcheck/harness/result_writer.hpp"
#include "rigcheck/tool/runlock.hpp"
#include "rigcheck/tool/runner.hpp"
#include "rigcheck/harness/schema.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;

namespace {
std::string fresh_dir(const std::string& name) {
  fs::path p = fs::path(::testing::TempDir()) / (name + "-" + std::to_string(getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

ChildResult run_fake(const std::string& dir, std::vector<std::string> env = {}) {
  return run_child({RIGCHECK_FAKE_BENCH, "--profile", "tiny", "--out", dir, "--reps", "3"}, env, 60, dir + "/log", false);
}

// A valid result row of benchmark b, case c: 1.5 GFLOP/s at repetition 0.
ResultRow gflops_row() {
  ResultRow r;
  r.benchmark = "b";
  r.case_name = "c";
  r.metric = "gflops";
  r.value = 1.5;
  r.unit = "GFLOP/s";
  r.repetition = 0;
  return r;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
}  // namespace

TEST(Harness, CorrectKernelIsCheckedThenTimed) {
  std::string dir = fresh_dir("fake-ok");
  ChildResult r = run_fake(dir);
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  auto rows = read_results(dir + "/fake_bench.csv");
  int checks = 0, rates = 0, skipped = 0;
  for (const ResultRow& row : rows) {
    if (row.case_name == "n4096" && row.metric == "check_wrong") {
      ++checks;
      EXPECT_EQ(row.value, 0);
      EXPECT_EQ(row.repetition, -1);
    }
    if (row.case_name == "n4096" && row.metric == "gflops") {
      ++rates;
      EXPECT_GT(row.value, 0);
      EXPECT_EQ(row.unit, "GFLOP/s");
    }
    if (row.case_name == "skipped") {
      ++skipped;
      EXPECT_EQ(row.status, Status::skipped);
      EXPECT_EQ(row.note, "test: this case needs a unicorn");
    }
  }
  EXPECT_EQ(checks, 1);
  EXPECT_EQ(rates, 3);
  EXPECT_EQ(skipped, 1);
  EXPECT_FALSE(fs::exists(dir + "/fake_bench.csv.partial"));
}

TEST(Harness, WrongKernelFailsAndReportsNoSpeed) {
  std::string dir = fresh_dir("fake-wrong");
  ChildResult r = run_fake(dir, {"RIGCHECK_TEST_WRONG=1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output_tail.find("FAILED: "), std::string::npos) << r.output_tail;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    if (row.case_name != "n4096") continue;
    EXPECT_EQ(row.metric, "check_wrong") << "a speed was reported for a wrong answer";
    EXPECT_EQ(row.value, 1);
    EXPECT_EQ(row.status, Status::failed);
    EXPECT_NE(row.note.find("WRONG: 1 of 4096"), std::string::npos) << row.note;
  }
}

TEST(Harness, AllCasesSkippedExits77WithReason) {
  std::string dir = fresh_dir("fake-skip");
  ChildResult r = run_fake(dir, {"RIGCHECK_TEST_SKIP_ALL=1"});
  EXPECT_EQ(r.exit_code, 77);
  EXPECT_NE(r.output_tail.find("SKIP: test: no such hardware"), std::string::npos) << r.output_tail;
}

TEST(Harness, NeverOverwritesAResultFile) {
  std::string dir = fresh_dir("fake-exists");
  std::ofstream(dir + "/fake_bench.csv") << "earlier results";
  ChildResult r = run_fake(dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(slurp(dir + "/fake_bench.csv"), "earlier results");
}

TEST(Harness, BadCommandLineIsRefused) {
  std::string dir = fresh_dir("fake-cli");
  EXPECT_EQ(run_child({RIGCHECK_FAKE_BENCH, "--threads", "0", "--out", dir}, {}, 60, dir + "/log", false).exit_code, 2);
  EXPECT_EQ(run_child({RIGCHECK_FAKE_BENCH, "--profile", "huge", "--out", dir}, {}, 60, dir + "/log", false).exit_code, 2);
}

TEST(Runner, RunFoldersAreNeverReused) {
  std::string root = fresh_dir("runs");
  std::string a = create_run_dir(root, "host", "20260101T000000Z");
  std::string b = create_run_dir(root, "host", "20260101T000000Z");
  EXPECT_NE(a, b);
  EXPECT_TRUE(fs::is_directory(a));
  EXPECT_TRUE(fs::is_directory(b));
}

TEST(Runner, SalvageKeepsTheCompleteRowsOfACutShortFile) {
  std::string dir = fresh_dir("salvage");
  const ResultRow r = gflops_row();
  std::ofstream(dir + "/x.csv.partial") << result_header() << "\n" << format_result_row(r) << "\n"
                                         << format_result_row(r) << "\n1,torn,ro";
  EXPECT_EQ(salvage_partial(dir + "/x.csv"), 2);
  EXPECT_EQ(read_results(dir + "/x.csv").size(), 2u);
  EXPECT_FALSE(fs::exists(dir + "/x.csv.partial"));
  EXPECT_EQ(salvage_partial(dir + "/x.csv"), -1);  // nothing left to salvage
}

TEST(Runner, ChildIsKilledAtItsTimeout) {
  std::string dir = fresh_dir("timeout");
  ChildResult r = run_child({"sleep", "30"}, {}, 0.5, dir + "/log", false);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10);
}

// ---- faults (issue 11): the pieces under tests/faults.sh, one by one.
namespace {
// Runs f in a child process; returns its exit status (f's return value).
int in_child(const std::function<int()>& f) {
  pid_t p = fork();
  if (p == 0) _exit(f());
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
}  // namespace

TEST(Runner, SalvageNeverReplacesAResultAndDropsAHeaderOnlyPartial) {
  std::string dir = fresh_dir("salvage2");
  std::ofstream(dir + "/x.csv") << "kept\n";
  std::ofstream(dir + "/x.csv.partial") << result_header() << "\n";
  EXPECT_EQ(salvage_partial(dir + "/x.csv"), -1);
  EXPECT_EQ(slurp(dir + "/x.csv"), "kept\n");
  EXPECT_TRUE(fs::exists(dir + "/x.csv.partial"));  // not ours to decide while x.csv exists
  std::ofstream(dir + "/y.csv.partial") << result_header() << "\nhalf a r";
  EXPECT_EQ(salvage_partial(dir + "/y.csv"), -1);  // no complete row: nothing measured to keep
  EXPECT_FALSE(fs::exists(dir + "/y.csv"));
  EXPECT_FALSE(fs::exists(dir + "/y.csv.partial"));
}

TEST(Faults, AFullDiskLeavesNoFileThatLooksComplete) {
  // Under a file-size limit of 4 KiB (EFBIG, as ENOSPC would be): write_file_atomic throws naming
  // the file and leaves neither the file nor its .tmp; ResultWriter throws, keeps the .partial and
  // never renames it.
  std::string dir = fresh_dir("fsize");
  int rc = in_child([&] {
    signal(SIGXFSZ, SIG_IGN);
    rlimit rl{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &rl);
    try {
      write_file_atomic(dir + "/big.csv", std::string(10000, 'x'));
      return 10;
    } catch (const std::exception& e) {
      if (std::string(e.what()).find("big.csv.tmp: write failed: File too large") == std::string::npos) return 11;
    }
    if (fs::exists(dir + "/big.csv") || fs::exists(dir + "/big.csv.tmp")) return 12;
    ResultWriter w(dir + "/r.csv");
    ResultRow r;
    r.benchmark = "b";
    r.case_name = "c";
    r.metric = "m";
    r.note = std::string(300, 'n');
    try {
      for (int i = 0; i < 100; ++i) w.write(r);
      return 13;
    } catch (const std::exception& e) {
      if (std::string(e.what()).find("r.csv.partial: cannot write a result row: File too large") == std::string::npos)
        return 14;
    }
    try {
      w.finish();
      return 15;
    } catch (const std::exception&) {
    }
    return fs::exists(dir + "/r.csv") ? 16 : fs::exists(dir + "/r.csv.partial") ? 0 : 17;
  });
  EXPECT_EQ(rc, 0);
}

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
  EXPECT_NE(describe_child_end(r, 2ull << 30).find("ran out of memory (its allocation failed: std::bad_alloc) under its "
                                                   "address-space limit of 2 GiB"),
            std::string::npos);
  r.output_tail = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n";
  EXPECT_NE(describe_child_end(r, 0).find("segmentation fault"), std::string::npos);
  r.output_tail = "";
  EXPECT_EQ(describe_child_end(r, 0), "exited with status 1");
}

TEST(Faults, ReportFinishesTheManifestOfADeadRunnerOnly) {
  std::string dir = fresh_dir("recover");
  std::vector<ManifestRow> m(3);
  m[0] = {"a", "cpu", "a", 0, "ok", 1, "a.csv", ""};
  m[1] = {"b", "cpu", "b", 0, "running", 0, "b.csv", "started"};
  m[2] = {"c", "cpu", "c", 0, "pending", 0, "", "not started yet"};
  write_file_atomic(dir + "/manifest.csv", format_manifest(m));
  const ResultRow r = gflops_row();
  std::ofstream(dir + "/b.csv.partial") << result_header() << "\n" << format_result_row(r) << "\nhalf";
  {
    ::setenv("RIGCHECK_LOCK_DIR", (dir + "/machine").c_str(), 1);
    RunLock alive(dir);  // a live runner: nothing is touched
    EXPECT_NE(recover_dead_run(dir).find("still in progress"), std::string::npos);
    EXPECT_EQ(read_manifest(dir + "/manifest.csv")[1].status, "running");
    EXPECT_TRUE(fs::exists(dir + "/b.csv.partial"));
  }
  std::ofstream(dir + "/.runner.lock") << "1\n";  // as a SIGKILLed runner leaves it: nobody holds it
  EXPECT_NE(recover_dead_run(dir).find("died"), std::string::npos);
  auto after = read_manifest(dir + "/manifest.csv");
  EXPECT_EQ(after[0].status, "ok");
  EXPECT_EQ(after[1].status, "interrupted");
  EXPECT_NE(after[1].reason.find("kept the 1 rows"), std::string::npos);
  EXPECT_EQ(after[2].status, "not_run");
  EXPECT_EQ(read_results(dir + "/b.csv").size(), 1u);
  EXPECT_EQ(recover_dead_run(dir), "");  // done once
  ::unsetenv("RIGCHECK_LOCK_DIR");
}

TEST(Faults, ASanitizedChildUnderAnAddressSpaceLimitIsExplained) {
  ChildResult r;
  r.exit_code = 134;
  r.term_signal = SIGABRT;
  r.output_tail = "==1==ReserveShadowMemoryRange failed while trying to map 0xdfff0001000 bytes. Perhaps you're using ulimit -v\n";
  EXPECT_NE(describe_child_end(r, 1ull << 30).find("without --memory-limit"), std::string::npos);
}
