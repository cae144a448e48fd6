// bench/harness/src/harness.cpp through the test benchmark (fake_bench): checks before speeds, skips,
// refusing to overwrite a result file, refusing a bad command line.
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "rigcheck/enum_name.hpp"
#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/topology.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
// fake_bench --profile tiny --out DIR ARGS... with ENV, its output in DIR/log.
ChildResult fake(const std::string& dir, const std::vector<std::string>& args,
                 const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = rigcheck::test::fake_bench_cmd({"--profile", "tiny", "--out", dir});
  argv.insert(argv.end(), args.begin(), args.end());
  return run_child(argv, env, 60, dir + "/log", false);
}

ChildResult run_fake(const std::string& dir, const std::vector<std::string>& env = {}) {
  return fake(dir, {"--reps", "3"}, env);
}

// fake_bench refuses ARGS before it runs anything: exit 2, saying TEXT.
void expect_refused(const std::string& name, const std::vector<std::string>& args, const std::string& text) {
  const std::string dir = fresh_dir(name);
  const ChildResult r = fake(dir, args);
  EXPECT_EQ(r.exit_code, 2) << r.output_tail;
  EXPECT_NE(r.output_tail.find(text), std::string::npos) << r.output_tail;
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

// A kernel that ignores its case's thread count is mistrusted each way, with the reason: more threads
// worked than the row says (by the CPU time, and by the count of working threads when it is bound to
// one CPU and the CPU time cannot show it), or fewer.
namespace {
// The rows of the fake benchmark's case n4096 (every metric) in one try.
std::vector<ResultRow> case_rows(const std::string& name, const std::vector<std::string>& env) {
  const std::string dir = fresh_dir(name);
  const ChildResult r = run_fake(dir, env);
  EXPECT_EQ(r.exit_code, 0) << r.output_tail;
  std::vector<ResultRow> rows;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv"))
    if (row.case_name == "n4096") rows.push_back(row);
  return rows;
}
std::vector<ResultRow> of_metric(const std::vector<ResultRow>& rows, const std::string& metric) {
  std::vector<ResultRow> out;
  for (const ResultRow& row : rows)
    if (row.metric == metric) out.push_back(row);
  EXPECT_EQ(out.size(), 3u) << metric;
  return out;
}
// The case's rows of the first of 3 tries in which no other process took the CPUs the kernel runs on
// (`competed` tells from the rows), or none: on a machine loaded by other work the kernel's threads
// each get too little time, which the rows rightly say, but that is not what these tests plant.
std::vector<ResultRow> quiet_case_rows(const std::string& name, const std::vector<std::string>& env,
                                       bool (*competed)(const ResultRow&)) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::vector<ResultRow> rows = case_rows(name + std::to_string(attempt), env);
    if (std::none_of(rows.begin(), rows.end(), competed)) return rows;
  }
  return {};
}
// The harness says so in the note.
bool noted_competed(const ResultRow& row) { return row.note.find("something else competed") != std::string::npos; }
// The threads had under 70% of their CPUs' time: every thread stretched, a spinning-down pool may pass 20%.
bool starved(const ResultRow& row) { return row.metric == "cpu_utilization" && !(row.value >= 0.7); }
constexpr char kAllTriesCompeted[] = "other work took this process's CPUs in each of 3 tries: nothing to judge";
}  // namespace

TEST(Harness, KernelIgnoringItsThreadCountIsMistrustedEachWay) {
  // Under an emulator every timing is mistrusted as emulated first (trust()): the rule is not reached.
  if (!emulation().empty()) GTEST_SKIP() << "timed under emulation: " << emulation();
  const auto many =
      quiet_case_rows("fake-too-many", {"RIGCHECK_TEST_THREADS=1", "RIGCHECK_TEST_WORKERS=2"}, noted_competed);
  const auto pinned =
      quiet_case_rows("fake-too-many-pinned",
                      {"RIGCHECK_TEST_THREADS=1", "RIGCHECK_TEST_WORKERS=2", "RIGCHECK_TEST_PIN=1"}, noted_competed);
  if (many.empty() || pinned.empty()) GTEST_SKIP() << kAllTriesCompeted;
  for (const ResultRow& row : of_metric(many, "time_per_iter")) {
    EXPECT_EQ(row.status, Status::mistrusted) << row.note;
    EXPECT_NE(row.note.find("more threads ran than it says"), std::string::npos) << row.note;
  }
  for (const ResultRow& row : of_metric(pinned, "time_per_iter")) {
    EXPECT_EQ(row.status, Status::mistrusted) << row.note;
    EXPECT_NE(row.note.find("threads of the process each worked"), std::string::npos) << row.note;
  }
  if (cpu_budget().usable_cores < 2)
    GTEST_SKIP() << "the too-few half needs a 2-thread case: this process may use 1 core";
  const auto few = case_rows("fake-too-few", {"RIGCHECK_TEST_THREADS=2", "RIGCHECK_TEST_WORKERS=1"});
  for (const ResultRow& row : of_metric(few, "time_per_iter")) {
    EXPECT_EQ(row.status, Status::mistrusted) << row.note;
    EXPECT_NE(row.note.find("something else competed"), std::string::npos) << row.note;
  }
}

// An honest kernel of 2 threads of its own (not OpenMP's) is not seen with a third: binding its
// case again before each repetition runs no OpenMP region whose workers would spin beside it.
TEST(Harness, BindingAddsNoWorkingThread) {
  if (!emulation().empty()) GTEST_SKIP() << "timed under emulation: " << emulation();
  if (cpu_budget().usable_cores < 2) GTEST_SKIP() << "needs a 2-thread case: this process may use 1 core";
  const auto rows = quiet_case_rows("fake-honest-two", {"RIGCHECK_TEST_THREADS=2", "RIGCHECK_TEST_WORKERS=2"}, starved);
  if (rows.empty()) GTEST_SKIP() << kAllTriesCompeted;
  for (const ResultRow& row : of_metric(rows, "threads_working")) {
    EXPECT_LE(row.value, 2) << row.note;
    EXPECT_EQ(row.note.find("more threads ran"), std::string::npos) << row.note;
  }
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

// --alternate-env: a second process with RIGCHECK_TEST_SIDE=b in its environment takes turns with
// the first one repetition by repetition (it first), its rows relayed into the first one's CSV
// under this run's id, every row saying interleaved=RIGCHECK_TEST_SIDE; its scratch folder is gone.
TEST(Harness, AlternateEnvTakesTurnsWithASecondProcess) {
  std::string dir = fresh_dir("fake-alternate");
  std::string tmp = fresh_dir("fake-alternate-tmp");
  ChildResult r =
      fake(dir, {"--reps", "3", "--run-id", "alt1", "--alternate-env", "RIGCHECK_TEST_SIDE=b"}, {"TMPDIR=" + tmp});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  std::string order;
  int checks = 0, skipped = 0;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    EXPECT_EQ(row.run_id, "alt1");
    EXPECT_NE(row.params.find("interleaved=RIGCHECK_TEST_SIDE"), std::string::npos) << row.params;
    if (row.metric == "check_wrong") ++checks;
    if (row.case_name == "skipped") ++skipped;
    if (row.metric == "time_per_iter")
      order += (row.case_name == "n4096_b" ? "b"
                : row.case_name == "n4096" ? "a"
                                           : "?") +
               std::to_string(row.repetition) + " ";
  }
  EXPECT_EQ(order, "b0 a0 b1 a1 b2 a2 ");
  EXPECT_EQ(checks, 2);   // each side checks its own kernel
  EXPECT_EQ(skipped, 2);  // and reports its own skip
  EXPECT_TRUE(fs::is_empty(tmp)) << "the second side's scratch folder was left in " << tmp;
  EXPECT_EQ(std::vector<std::string>{"fake_bench.csv"}, [&] {
    std::vector<std::string> csv;
    for (auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".csv" || e.path().extension() == ".partial") csv.push_back(e.path().filename());
    return csv;
  }());
}

// The second side may use the CPUs of the first, not only the core OMP_PROC_BIND bound the first
// one's initial thread to (a child inherits that thread's mask): where the first side's 2-thread
// case runs, the second's runs too.
TEST(Harness, AlternateEnvSecondSideGetsEveryCpuOfTheFirst) {
  std::string dir = fresh_dir("fake-alternate-cpus");
  ChildResult r = fake(dir, {"--reps", "1", "--alternate-env", "RIGCHECK_TEST_SIDE=b"},
                       {"RIGCHECK_TEST_THREADS=2", "OMP_PROC_BIND=close", "OMP_PLACES=cores"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 77) << r.output_tail;
  std::map<std::string, Status> check;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv"))
    if (row.repetition == -1 && (row.case_name == "n4096" || row.case_name == "n4096_b"))
      check[row.case_name] = row.status;
  ASSERT_EQ(check.size(), 2u);
  if (check["n4096"] != Status::ok) GTEST_SKIP() << "fewer than 2 usable cores here";
  EXPECT_EQ(check["n4096_b"], Status::ok) << r.output_tail;
}

// Taking turns under a time budget, however roomy, both sides keep the floor's 3 pairs (each times
// only itself: they could not agree on more) and say so; no added repetition.
TEST(Harness, AlternateEnvUnderABudgetKeepsThreePairs) {
  std::string dir = fresh_dir("fake-alternate-budget");
  ChildResult r = fake(dir, {"--reps", "5", "--time-budget", "600", "--alternate-env", "RIGCHECK_TEST_SIDE=b"});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  std::string order;
  int notes = 0;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    if (row.metric == "time_per_iter")
      order += (row.case_name == "n4096_b" ? "b"
                : row.case_name == "n4096" ? "a"
                                           : "?") +
               std::to_string(row.repetition) + " ";
    if (row.metric == kRepsSpread && (row.case_name == "n4096" || row.case_name == "n4096_b")) {
      ++notes;
      EXPECT_NE(row.note.find("taking turns under a time budget: the floor's 3 of its 5"), std::string::npos)
          << row.note;
    }
  }
  EXPECT_EQ(order, "b0 a0 b1 a1 b2 a2 ");
  EXPECT_EQ(notes, 2);
}

// A bad --alternate-env is refused before anything runs.
TEST(Harness, AlternateEnvNeedsAnAssignment) {
  expect_refused("fake-alternate-bad", {"--alternate-env", "NOEQUALS"}, "expected VAR=VALUE");
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
  EXPECT_EQ(run_child(rigcheck::test::fake_bench_cmd({"--threads", "0", "--out", dir}), {}, 60, dir + "/log", false)
                .exit_code,
            2);
  EXPECT_EQ(run_child(rigcheck::test::fake_bench_cmd({"--profile", "huge", "--out", dir}), {}, 60, dir + "/log", false)
                .exit_code,
            2);
}

// Adaptive repetitions (repetitions.hpp): a target no timing can meet adds repetitions up to the
// cap, interleaved cases by whole rounds (pairs stay pairs), and each case says the cap stopped it.
TEST(Harness, AdaptiveRepetitionsStopAtTheCapInWholeRounds) {
  std::string dir = fresh_dir("fake-adaptive");
  ChildResult r = fake(dir, {"--reps", "3", "--reps-target", "1e-12", "--reps-cap", "5", "--reps-budget", "1000"},
                       {"RIGCHECK_TEST_INTERLEAVE=1"});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  std::string order;
  std::map<std::string, int> reps, cap_hit, spread;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    const bool pair = row.case_name == "pair_a" || row.case_name == "pair_b";
    if (row.metric == "time_per_iter") {
      ++reps[row.case_name];
      if (pair) order += row.case_name.substr(5) + std::to_string(row.repetition) + " ";
    }
    if (row.metric == kRepsCapHit) {
      EXPECT_EQ(row.repetition, -1);
      cap_hit[row.case_name] = static_cast<int>(row.value);
      EXPECT_NE(row.note.find("the cap of 5 repetitions"), std::string::npos) << row.note;
    }
    if (row.metric == kRepsSpread) {
      ++spread[row.case_name];
      EXPECT_GT(row.value, 0);
    }
  }
  EXPECT_EQ(order, "a0 b0 a1 b1 a2 b2 a3 b3 a4 b4 ");
  for (const char* c : {"n4096", "pair_a", "pair_b", "alone"}) {
    EXPECT_EQ(reps[c], 5) << c;
    EXPECT_EQ(cap_hit[c], 1) << c;
    EXPECT_EQ(spread[c], 1) << c;
  }
  EXPECT_EQ(cap_hit.count("skipped"), 0u);
}

// A target already met adds nothing and says so (reps_cap_hit 0); the tiny profile's default is
// off (no reps_* rows); a negative target is refused.
TEST(Harness, AdaptiveRepetitionsWithinTargetOrOff) {
  std::string dir = fresh_dir("fake-adaptive-met");
  ChildResult r = fake(dir, {"--reps", "3", "--reps-target", "1e9"});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  int reps = 0, hits = 0;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    if (row.case_name == "n4096" && row.metric == "time_per_iter") ++reps;
    if (row.case_name == "n4096" && row.metric == kRepsCapHit) {
      ++hits;
      EXPECT_EQ(row.value, 0);
    }
  }
  EXPECT_EQ(reps, 3);
  EXPECT_EQ(hits, 1);

  std::string off = fresh_dir("fake-adaptive-off");
  ASSERT_EQ(run_fake(off).exit_code, 0);
  for (const ResultRow& row : read_results(off + "/fake_bench.csv")) EXPECT_NE(row.metric, kRepsCapHit);

  expect_refused("fake-adaptive-bad", {"--reps-target", "-1"}, "--reps-target");
}

// --time-budget: each unit keeps 3 repetitions however short its share, the ones cut say so in
// their reps_spread row, no added repetition is run past the share; a generous budget changes
// nothing; a negative one is refused.
TEST(Harness, TimeBudgetKeepsThreeRepetitionsAndSaysWhatItCut) {
  std::string dir = fresh_dir("fake-budget");
  // 4 units (n4096, the pair, alone; the skipped case counts too) in 0.02 s: 3 repetitions of at
  // least 0.01 s each are over any unit's share before the 4th could start.
  ChildResult r =
      fake(dir, {"--reps", "8", "--reps-target", "1e-12", "--time-budget", "0.02"}, {"RIGCHECK_TEST_INTERLEAVE=1"});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  std::map<std::string, int> reps;
  int notes = 0;
  for (const ResultRow& row : read_results(dir + "/fake_bench.csv")) {
    if (row.metric == "time_per_iter") ++reps[row.case_name];
    if (row.metric == kRepsSpread) {
      ++notes;
      EXPECT_NE(row.note.find("allowed 3 of its 8 repetitions"), std::string::npos) << row.note;
    }
  }
  for (const char* c : {"n4096", "pair_a", "pair_b", "alone"}) EXPECT_EQ(reps[c], 3) << c;
  EXPECT_EQ(notes, 4);

  std::string roomy = fresh_dir("fake-budget-roomy");
  r = fake(roomy, {"--reps", "4", "--reps-target", "1e-12", "--reps-cap", "6", "--reps-budget", "1000", "--time-budget",
                   "600"});
  ASSERT_EQ(r.exit_code, 0) << r.output_tail;
  int n = 0;
  for (const ResultRow& row : read_results(roomy + "/fake_bench.csv")) {
    if (row.case_name == "n4096" && row.metric == "time_per_iter") ++n;
    if (row.metric == kRepsSpread) {
      EXPECT_EQ(row.note.find("time budget"), std::string::npos) << row.note;
    }
    if (row.metric == kRepsCapHit) {
      EXPECT_NE(row.note.find("the cap of 6"), std::string::npos) << row.note;
    }
  }
  EXPECT_EQ(n, 6);
  expect_refused("fake-budget-bad", {"--time-budget", "-1"}, "--time-budget");
}

TEST(Harness, RelativeIqr) {
  EXPECT_EQ(relative_iqr({}), 0);
  EXPECT_EQ(relative_iqr({5}), 0);
  EXPECT_DOUBLE_EQ(relative_iqr({1, 2, 3, 4, 5}), 2.0 / 3.0);  // q25 2, q75 4, median 3
}

TEST(Harness, CheckResultCountsEachValueAgainstItsTolerance) {
  CheckResult r;
  r.add(0.5);
  r.add(1);  // at the tolerance: passes
  EXPECT_EQ(r.checked, 2);
  EXPECT_EQ(r.wrong, 0);
  EXPECT_EQ(r.worst, 1);
  r.add(1.5);
  EXPECT_EQ(r.wrong, 1);
  EXPECT_EQ(r.worst, 1.5);
  r.add(std::nan(""));  // a NaN output is wrong, and the worst error infinite
  EXPECT_EQ(r.checked, 4);
  EXPECT_EQ(r.wrong, 2);
  EXPECT_TRUE(std::isinf(r.worst));
}

TEST(Harness, ASkippedCaseSaysWhyWhenMade) {
  Case c;
  c.name = "matrix";
  skip_case(c, "needs two host NUMA nodes");
  try {
    c.make();
    FAIL() << "making a skipped case did not throw";
  } catch (const Skip& s) {
    EXPECT_STREQ(s.what(), "needs two host NUMA nodes");
  }
}

TEST(Harness, EnumNamesComeFromTheirPairs) {
  EXPECT_STREQ(to_string(Profile::tiny), "tiny");
  EXPECT_STREQ(to_string(Profile::full), "full");
  enum class Colour { red, green, blue };
  EXPECT_STREQ(enum_name(Colour::green, {{Colour::red, "red"}, {Colour::green, "green"}}), "green");
  EXPECT_STREQ(enum_name(Colour::blue, {{Colour::red, "red"}, {Colour::green, "green"}}), "?");  // not listed
}

TEST(Harness, EnumNamesReadBack) {
  enum class Colour { red, green };
  constexpr std::pair<Colour, const char*> kColours[] = {{Colour::red, "red"}, {Colour::green, "green"}};
  EXPECT_EQ(enum_from_name("green", kColours), Colour::green);
  EXPECT_FALSE(enum_from_name("blue", kColours).has_value());  // not listed
  EXPECT_FALSE(enum_from_name("", kColours).has_value());
}
