// harness/src/harness.cpp through the test benchmark (fake_bench): checks before speeds, skips,
// refusing to overwrite a result file, refusing a bad command line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/schema.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
ChildResult run_fake(const std::string& dir, std::vector<std::string> env = {}) {
  return run_child({RIGCHECK_FAKE_BENCH, "--profile", "tiny", "--out", dir, "--reps", "3"}, env, 60, dir + "/log", false);
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

// Case::interleave: both kernels made and checked once, before any timing; then repetitions
// alternate a0 b0 a1 b1 a2 b2, the rows say `interleaved=pair`; a case outside the group runs its
// repetitions together as before.
TEST(Harness, InterleavedCasesAlternateRepetitions) {
  std::string dir = fresh_dir("fake-interleave");
  ChildResult r = run_fake(dir, {"RIGCHECK_TEST_INTERLEAVE=1"});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  std::string order;
  int checks_a = 0, checks_b = 0;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    const bool pair = row.case_name == "pair_a" || row.case_name == "pair_b";
    if (row.metric == "check_wrong" && row.case_name == "pair_a") ++checks_a;
    if (row.metric == "check_wrong" && row.case_name == "pair_b") ++checks_b;
    if (pair) {
      EXPECT_NE(row.params.find("interleaved=pair"), std::string::npos) << row.params;
    } else {
      EXPECT_EQ(row.params.find("interleaved="), std::string::npos) << row.case_name << ": " << row.params;
    }
    if (row.metric == "check_wrong" && pair) order += row.case_name.substr(5) + "c ";
    if (row.metric == "time_per_iter" && (pair || row.case_name == "alone"))
      order += (pair ? row.case_name.substr(5) : std::string("x")) + std::to_string(row.repetition) + " ";
  }
  EXPECT_EQ(checks_a, 1);
  EXPECT_EQ(checks_b, 1);
  EXPECT_EQ(order, "ac bc a0 b0 a1 b1 a2 b2 x0 x1 x2 ");
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
