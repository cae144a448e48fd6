#include "rigcheck/run/budget.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace rigcheck {

double BudgetPlan::elapsed(Clock::time_point now) const { return std::chrono::duration<double>(now - start).count(); }

double BudgetPlan::share(size_t k, Clock::time_point now) const {
  if (budget_s <= 0 || k >= ref_s.size() || !takes[k] || !(ref_s[k] > 0)) return 0;
  size_t last_taking = k;  // no later entry can absorb the drift of an uncut one after this
  for (size_t j = k; j < ref_s.size(); ++j)
    if (takes[j] && ref_s[j] > 0) last_taking = j;
  double fixed_later = 0, flexible = 0;
  for (size_t j = k; j < ref_s.size(); ++j) {
    if (takes[j])
      flexible += ref_s[j];
    else if (j > k)
      fixed_later += ref_s[j] * (j > last_taking ? kTailMargin : 1.0);
  }
  const double left = budget_s - elapsed(now) - fixed_later - kReportReserveS;
  return std::max(kMinShareS, left * ref_s[k] / flexible);
}

BudgetPlan plan_budget(double budget_s, BudgetPlan::Clock::time_point start, const std::vector<BenchmarkEntry>& todo,
                       const std::function<bool(const BenchmarkEntry&)>& starts, Profile profile) {
  BudgetPlan plan;
  plan.budget_s = budget_s;
  plan.start = start;
  std::vector<std::string> unmeasured;
  for (const BenchmarkEntry& b : todo) {
    const bool s = starts(b);
    plan.ref_s.push_back(s ? b.ref_s(profile) : 0);
    plan.takes.push_back(s && b.takes_budget);
    if (s && b.takes_budget && !(b.ref_s(profile) > 0)) unmeasured.push_back(b.name);
  }
  if (budget_s > 0) {
    std::fprintf(stderr,
                 "rigcheck run: a budget of %.0f s, shared among the benchmarks by their reference times "
                 "(--budget 0: none)\n",
                 budget_s);
    for (const std::string& name : unmeasured)
      std::fprintf(stderr,
                   "rigcheck run: %s has no reference time for the %s profile (not measured yet: "
                   "data/benchmarks.csv, docs/performance.md): it runs with no share of the budget, uncut\n",
                   name.c_str(), to_string(profile));
  }
  return plan;
}

double resolve_budget(double requested, const std::string& profile) {
  if (requested >= 0) return requested;
  return profile == "quick" ? kQuickBudgetS : profile == "full" ? kFullBudgetS : 0;
}

}  // namespace rigcheck
