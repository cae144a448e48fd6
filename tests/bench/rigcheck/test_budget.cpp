// rigcheck run --budget (rigcheck/run/budget.hpp): the run's seconds shared among its benchmarks.
#include <gtest/gtest.h>

#include <fstream>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/run/budget.hpp"
#include "rigcheck/runfolder/run_folder.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

using namespace rigcheck;
using std::chrono::seconds;

namespace {
// Four entries: A (20 s) and B (60 s) take a budget, F (40 s) does not, N will not start.
BudgetPlan plan_of(double budget) {
  BudgetPlan p;
  p.budget_s = budget;
  p.start = BudgetPlan::Clock::time_point{};
  p.ref_s = {20, 40, 60, 0};
  p.takes = {true, false, true, false};
  return p;
}
}  // namespace

// 100 s (less the report's reserve): F's 40 s cannot be cut, so A and B share the rest by 20:60;
// F gets none; after A and F took 50 s, B gets what is left, whatever A's share was.
TEST(Budget, SharesWhatTheUncutEntriesLeaveByReferenceTime) {
  const BudgetPlan p = plan_of(100 + kReportReserveS);
  EXPECT_DOUBLE_EQ(p.share(0, p.start), 15);
  EXPECT_DOUBLE_EQ(p.share(1, p.start + seconds(10)), 0);
  EXPECT_DOUBLE_EQ(p.share(2, p.start + seconds(50)), 50);
  EXPECT_DOUBLE_EQ(p.share(3, p.start + seconds(50)), 0);
}

// A run already over its budget still gives a benchmark kMinShareS (its 3 repetitions are kept
// anyway); no budget gives no share.
TEST(Budget, OverTheBudgetOrNone) {
  const BudgetPlan p = plan_of(100);
  EXPECT_DOUBLE_EQ(p.share(2, p.start + seconds(130)), kMinShareS);
  EXPECT_DOUBLE_EQ(plan_of(0).share(0, p.start), 0);
  EXPECT_DOUBLE_EQ(resolve_budget(-1, "quick"), kQuickBudgetS);
  EXPECT_DOUBLE_EQ(resolve_budget(-1, "full"), kFullBudgetS);
  EXPECT_DOUBLE_EQ(resolve_budget(-1, "tiny"), 0);
  EXPECT_DOUBLE_EQ(resolve_budget(0, "quick"), 0);
  EXPECT_DOUBLE_EQ(resolve_budget(90, "tiny"), 90);
}

// An uncut entry after the last one that takes a budget is reserved kTailMargin times its reference
// time; one with an entry taking a budget after it (F here) is not: B absorbs its drift.
TEST(Budget, AnUncutEntryAtTheEndIsReservedWithAMargin) {
  BudgetPlan p = plan_of(100 + kReportReserveS);
  p.ref_s = {20, 40, 60, 30};
  p.takes = {true, false, true, false};
  EXPECT_DOUBLE_EQ(p.share(0, p.start), (100 - 40 - 30 * kTailMargin) * 20 / 80);
  EXPECT_DOUBLE_EQ(p.share(2, p.start + seconds(50)), 100 - 50 - 30 * kTailMargin);
  p.ref_s[3] = 0;  // will not start: nothing reserved
  EXPECT_DOUBLE_EQ(p.share(2, p.start + seconds(50)), 50);
  // An entry that takes a budget but will not start (ref 0) after the uncut one absorbs nothing:
  // the uncut one is still reserved with the margin.
  p.ref_s = {20, 40, 60, 30, 0};
  p.takes = {true, false, true, false, true};
  EXPECT_DOUBLE_EQ(p.share(2, p.start + seconds(50)), 100 - 50 - 30 * kTailMargin);
}

// The full profile's plan reads full_ref_s, the quick profile's quick_ref_s.
TEST(Budget, TheFullProfileSharesByItsOwnReferenceTimes) {
  BenchmarkEntry a, f;
  a.quick_ref_s = 10, a.full_ref_s = 100, a.takes_budget = true;
  f.quick_ref_s = 20, f.full_ref_s = 500;
  const BudgetPlan p = plan_budget(
      1000 + kReportReserveS, BudgetPlan::Clock::time_point{}, {a, f}, [](const BenchmarkEntry&) { return true; },
      Profile::full);
  EXPECT_EQ(p.ref_s, (std::vector<double>{100, 500}));
  // 1000 s less f's 500 it cannot cut, reserved kTailMargin times over: nothing after f can absorb it
  EXPECT_DOUBLE_EQ(p.share(0, p.start), 1000 - 500 * kTailMargin);
  EXPECT_EQ(plan_budget(
                0, p.start, {a, f}, [](const BenchmarkEntry&) { return true; }, Profile::quick)
                .ref_s,
            (std::vector<double>{10, 20}));  // the quick profile's
}

// An entry not measured yet (reference time empty, as scripts/registry.sh leaves a new one) that takes a
// budget is given no share and runs uncut; the others' shares leave it out; the run says so on stderr.
TEST(Budget, AnEntryNotMeasuredYetRunsUncutAndIsNamed) {
  BenchmarkEntry a, n;
  a.name = "measured", a.quick_ref_s = 10, a.takes_budget = true;
  n.name = "new_entry", n.takes_budget = true;
  testing::internal::CaptureStderr();
  const BudgetPlan p = plan_budget(
      100 + kReportReserveS, BudgetPlan::Clock::time_point{}, {a, n}, [](const BenchmarkEntry&) { return true; },
      Profile::quick);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.share(1, p.start), 0);
  EXPECT_DOUBLE_EQ(p.share(0, p.start), 100);
  EXPECT_NE(said.find("new_entry has no reference time for the quick profile (not measured yet"), std::string::npos)
      << said;
  EXPECT_EQ(said.find("measured has no"), std::string::npos) << said;
}

// The registry's quick_ref_s, full_ref_s and takes_budget: every entry the quick (full) profile
// starts on a machine without a GPU has a reference time for it (else the budget could not reserve
// its time); a bad value is refused with the file and line.

TEST(Budget, RegistryColumns) {
  for (const BenchmarkEntry& b : read_benchmark_registry(RIGCHECK_TEST_DATA_DIR + "/benchmarks.csv")) {
    for (Profile p : {Profile::quick, Profile::full})
      if (b.timeout_s(p) > 0 && b.area != "gpu" && b.needs.find("gpu") == std::string::npos) {
        EXPECT_GT(b.ref_s(p), 0) << b.name << " in " << to_string(p);
      }
    if (b.args.find("--alternate-env") != std::string::npos) {
      EXPECT_TRUE(b.takes_budget) << b.name << ": taking turns, it keeps the floor's 3 pairs under a budget";
    }
  }
  const std::string dir = testsupport::fresh_dir("budget-registry");
  const std::string head =
      "name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description,quick_ref_s,takes_"
      "budget,"
      "full_ref_s\n";
  for (const char* bad :
       {"x,cpu,x,,,,1,1,1,d,-3,yes\n", "x,cpu,x,,,,1,1,1,d,3,maybe\n", "x,cpu,x,,,,1,1,1,d,3,yes,soon\n"}) {
    const std::string p = dir + "/b.csv";
    std::ofstream(p) << head << bad;
    try {
      read_benchmark_registry(p);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(p + ":2"), std::string::npos) << e.what();
    }
  }
  // The three new columns may be missing (an older registry); the others may not.
  const std::string old = dir + "/old.csv";
  std::ofstream(old) << "name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,timeout_full_s,description\n"
                     << "x,cpu,x,,,,1,1,1,d\n";
  ASSERT_EQ(read_benchmark_registry(old).size(), 1u);
  EXPECT_EQ(read_benchmark_registry(old)[0].quick_ref_s, 0);
  const std::string broken = dir + "/broken.csv";
  std::ofstream(broken)
      << "name,area,binary,args,env,needs,timeout_tiny_s,timeout_quick_s,description\nx,cpu,x,,,,1,1,d\n";
  try {
    read_benchmark_registry(broken);
    ADD_FAILURE() << "accepted a registry without timeout_full_s";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("timeout_full_s"), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), 1);
  }
}
