// `rigcheck run --budget SECONDS`: the run's wall time shared among its benchmarks. Each
// registry entry says how long it took in the profile on the reference machine (`ref_s`,
// data/benchmarks.csv's quick_ref_s or full_ref_s) and whether its binary keeps a --time-budget (`takes`). Before
// a benchmark that takes one starts, it is given what is left of the budget, less the reference
// time of the entries still to run that take none (their time cannot be cut; kTailMargin times it
// for those after the last entry that takes one), in proportion to its
// reference time among the entries still to run that take one. A benchmark that ran over is paid
// for by the later ones; one that finished early leaves its time to them. An entry not measured yet
// (its reference time empty: a new benchmark, scripts/registry.sh) has no share: it runs uncut, the
// budget reserves nothing for it, and a budgeted run says so on stderr for one that takes a budget.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

// A --time-budget below this is not given (the harness keeps 3 repetitions of each case whatever
// it is given): seconds.
inline constexpr double kMinShareS = 1.0;
// Kept for the report at the end of the run: the reference machine's run vm-20261205T055437Z took
// 386 s, its benchmarks 380, the inventory before them about 2: seconds.
inline constexpr double kReportReserveS = 4;
// An entry that takes no budget and runs after the last one that does (memory_host, in both
// profiles) can only be paid for by going over the budget: its reference time is reserved this many
// times over. Its drift measured: memory_host 54.5, 60.3 and 70.3 s in three back-to-back quick runs
// of 2026-12-06 (+5% over its quick_ref_s of 67.1 at most, +14% over their mean); 687, 633 and
// 693 s in three full runs of 2026-12-06 (full_ref_s 687): 1.15 covers those with headroom.
inline constexpr double kTailMargin = 1.15;
// The quick profile's budget when --budget is not given: 4 minutes (on 2 cores).
inline constexpr double kQuickBudgetS = 240;
// The full profile's: 27 minutes, under the profile's 30 with room for the benchmarks that keep no
// budget to run over their reference times (full_ref_s) on a slow spell of the machine.
inline constexpr double kFullBudgetS = 1620;

struct BudgetPlan {
  using Clock = std::chrono::steady_clock;
  double budget_s = 0;  // 0: no budget
  Clock::time_point start = Clock::now();
  std::vector<double> ref_s;  // per entry to run, in order; 0 for one that will not start
  std::vector<bool> takes;    // per entry: its binary keeps --time-budget
  // The --time-budget of entry k as of `now` (0: none for it).
  double share(size_t k, Clock::time_point now = Clock::now()) const;
  double elapsed(Clock::time_point now = Clock::now()) const;
};

// The plan of a run of `todo` (in order) with `budget_s` (0: none) counted from `start`, shared by
// the entries' reference times in `profile` (BenchmarkEntry::ref_s); `starts`
// says whether an entry will start (its binary built, in this profile, its needs met). Says the
// budget on stderr when there is one.
BudgetPlan plan_budget(double budget_s, BudgetPlan::Clock::time_point start, const std::vector<BenchmarkEntry>& todo,
                       const std::function<bool(const BenchmarkEntry&)>& starts, Profile profile);

// The run's budget from --budget (< 0: the profile's default: 240 s for quick, 1620 s for full, none for tiny).
double resolve_budget(double requested, const std::string& profile);

}  // namespace rigcheck
