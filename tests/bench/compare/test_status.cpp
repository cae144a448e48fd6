// Cases that stopped or started working (ok on one side; skipped, failed or mistrusted on the other)
// are findings of their own and fail the gate; a shift shared by a whole area is the machine's state.
// On the fixture runs compare_a and compare_a2 (tests/fixtures/runs), changed in memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "rigcheck/compare/compare.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
const CaseFinding& finding(const std::vector<CaseFinding>& fs, std::string_view label) {
  for (const CaseFinding& f : fs)
    if (f.label == label) return f;
  throw std::runtime_error("no finding " + std::string(label));
}

// compare_a2 with fma_peak_f32 avx2/t1 skipped (one row, without the chains param its ok rows have,
// as a benchmark that skips before it sets up writes) and avx2/t2's timed rows all mistrusted.
LoadedRun broken_a2(const CaseRules& rules) {
  return edited_run("compare_a2", "thp_never", rules, [](RunData& run) {
    std::vector<ResultRow> rows;
    bool skipped = false;
    for (ResultRow row : run.results) {
      if (row.benchmark == "fma_peak_f32" && row.case_name == "avx2/t1") {
        if (skipped) continue;
        row = result_row(row.benchmark, row.case_name, "isa=avx2;threads=1;dtype=f32", "", kNaN, "", -1,
                         Status::skipped, "MADV_HUGEPAGE took no effect: AnonHugePages 0 of 2 MiB (THP never)");
        row.source = "cpu_peak";
        skipped = true;
      } else if (row.benchmark == "fma_peak_f32" && row.case_name == "avx2/t2" && row.repetition >= 0) {
        row.status = Status::mistrusted;
        row.note = "cpu_utilization 0.41 < 0.75";
      }
      rows.push_back(row);
    }
    run.results = rows;
  });
}
}  // namespace

TEST(StatusChange, StoppedWorkingIsAFindingThatFailsTheGate) {
  const CaseRules rules = read_case_rules();
  const LoadedRun a = load_run(kRuns + "compare_a", rules), b = broken_a2(rules);
  std::vector<CaseFinding> fs = compare_sides(Side{a.label, {&a}}, Side{b.label, {&b}}, nullptr, rules, StatOptions{});
  const CaseFinding& t1 = finding(fs, "fma_peak_f32 avx2/t1");
  EXPECT_EQ(t1.flag, "stopped_working");
  EXPECT_NE(t1.note.find("skipped: MADV_HUGEPAGE took no effect"), std::string::npos) << t1.note;
  EXPECT_NE(t1.note.find("thp_never"), std::string::npos) << t1.note;
  const CaseFinding& t2 = finding(fs, "fma_peak_f32 avx2/t2");
  EXPECT_EQ(t2.flag, "stopped_working");
  EXPECT_NE(t2.note.find("mistrusted: cpu_utilization 0.41"), std::string::npos) << t2.note;
  const FindingCounts c = count_findings(fs, 0.01);
  EXPECT_EQ(c.stopped, 2);
  EXPECT_EQ(c.unmatched, 0);
  // One run per side, no profile: nothing else is judged; the gate fails on the stopped cases alone.
  CompareOptions opt;
  opt.fail_pct = 10;
  Gate g = evaluate_gate(fs, opt);
  EXPECT_TRUE(g.fail) << gate_text(g);
  // The skipped case counts; the one only mistrusted there (disturbed, still working) is listed and
  // not counted: an A/A of quick runs has such cases, and a quiet night must pass.
  EXPECT_FALSE(t1.disturbed_only);
  EXPECT_TRUE(t2.disturbed_only);
  EXPECT_EQ(g.stopped, 1);
  EXPECT_TRUE(t1.fails_gate);
  EXPECT_FALSE(t2.fails_gate);
  EXPECT_NE(gate_text(g).find("1 cases stopped working"), std::string::npos) << gate_text(g);
  opt.fail_pct = kNaN;
  EXPECT_FALSE(evaluate_gate(fs, opt).fail);
  // The other way round: started working, listed, not a failure.
  std::vector<CaseFinding> back =
      compare_sides(Side{b.label, {&b}}, Side{a.label, {&a}}, nullptr, rules, StatOptions{});
  EXPECT_EQ(finding(back, "fma_peak_f32 avx2/t1").flag, "started_working");
  opt.fail_pct = 10;
  EXPECT_FALSE(evaluate_gate(back, opt).fail);
  // A case simply absent on the other side (another experiment) stays only_in_base.
  LoadedRun gone = b;
  gone.not_working.clear();
  gone.not_working_by_name.clear();
  std::vector<CaseFinding> g2 =
      compare_sides(Side{a.label, {&a}}, Side{gone.label, {&gone}}, nullptr, rules, StatOptions{});
  EXPECT_EQ(finding(g2, "fma_peak_f32 avx2/t1").flag, "only_in_base");
}

namespace {
// A run of the fixture with every timed value of every case slowed by `factor` (a slow spell).
LoadedRun slowed(const std::string& name, double factor, const CaseRules& rules) {
  return edited_run(name, name + "_slow", rules, [factor](RunData& run) {
    for (ResultRow& row : run.results) {
      if (row.repetition < 0 || row.status != Status::ok) continue;
      const int d = direction_of_unit(row.unit);
      if (d > 0) row.value *= factor;
      if (d < 0) row.value /= factor;
    }
    run.inventory["loadavg_1m"] = "1.57";
  });
}
}  // namespace

// Every case of the run 25% slower: one finding, the machine's state, with its interval; no case flagged.
TEST(MachineState, AShiftSharedByEveryCaseIsTheMachines) {
  const CaseRules rules = read_case_rules();
  const LoadedRun a = load_run(kRuns + "compare_a", rules), a3 = load_run(kRuns + "compare_a3", rules);
  const LoadedRun b = slowed("compare_a2", 0.75, rules), b4 = slowed("compare_a4", 0.75, rules);
  std::vector<CaseFinding> fs =
      compare_sides(Side{"A", {&a, &a3}}, Side{"B", {&b, &b4}}, nullptr, rules, StatOptions{});
  int flagged_before = 0;
  for (const CaseFinding& f : fs) flagged_before += f.flagged();
  EXPECT_GE(flagged_before, 5) << "the slow spell flags case after case";
  const std::vector<MachineState> states = machine_states(fs, StatOptions{});
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].area, "the whole run");
  EXPECT_NEAR(std::exp(states[0].shift), 0.75, 0.02);
  EXPECT_LT(states[0].low, states[0].shift);
  EXPECT_GT(states[0].high, states[0].shift);
  EXPECT_LT(states[0].high, 0);
  int flagged_after = 0;
  for (const CaseFinding& f : fs) {
    flagged_after += f.flagged();
    if (f.j.iv.method != Method::none) {
      EXPECT_NE(f.note.find("judged against the machine's state"), std::string::npos);
    }
  }
  EXPECT_EQ(flagged_after, 0);
  EXPECT_NE(machine_state_text(states[0], "").find("MACHINE STATE the whole run in B: -2"), std::string::npos)
      << machine_state_text(states[0], "");
  EXPECT_NE(load_note(b).find("load average 1.57"), std::string::npos);
  LoadedRun quiet = a;
  quiet.data.inventory["loadavg_1m"] = "0.12";
  EXPECT_EQ(load_note(quiet), "");
  EXPECT_NE(load_note(a).find("0.57"), std::string::npos);  // over 0.5, data/confounders.csv's rule
}

// Six of ten cases (oneDNN capped at SSE4.1) 45% slower: a change of those cases, not the machine's.
TEST(MachineState, ACapOnOneLibraryIsNotTheMachine) {
  const CaseRules rules = read_case_rules();
  const LoadedRun a = load_run(kRuns + "compare_a", rules), a2 = load_run(kRuns + "compare_a2", rules);
  const LoadedRun s = load_run(kRuns + "compare_slowed", rules), s2 = load_run(kRuns + "compare_slowed2", rules);
  std::vector<CaseFinding> fs =
      compare_sides(Side{"A", {&a, &a2}}, Side{"B", {&s, &s2}}, nullptr, rules, StatOptions{});
  EXPECT_TRUE(machine_states(fs, StatOptions{}).empty());
  int flagged = 0;
  for (const CaseFinding& f : fs) flagged += f.flagged();
  EXPECT_GE(flagged, 5);
}
