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
const CaseFinding& finding(const std::vector<CaseFinding>& fs, const std::string& label) {
  for (const CaseFinding& f : fs)
    if (f.label == label) return f;
  throw std::runtime_error("no finding " + label);
}

// compare_a2 with fma_peak_f32 avx2/t1 skipped (one row, without the chains param its ok rows have,
// as a benchmark that skips before it sets up writes) and avx2/t2's timed rows all mistrusted.
LoadedRun broken_a2(const CaseRules& rules) {
  LoadedRun r = load_run(kRuns + "compare_a2", rules);
  r.label = "thp_never";
  std::vector<ResultRow> rows;
  bool skipped = false;
  for (ResultRow row : r.data.results) {
    if (row.benchmark == "fma_peak_f32" && row.case_name == "avx2/t1") {
      if (skipped) continue;
      row = result_row(row.benchmark, row.case_name, "isa=avx2;threads=1;dtype=f32", "", kNaN, "", -1, Status::skipped,
                       "MADV_HUGEPAGE took no effect: AnonHugePages 0 of 2 MiB (THP never)");
      row.source = "cpu_peak";
      skipped = true;
    } else if (row.benchmark == "fma_peak_f32" && row.case_name == "avx2/t2" && row.repetition >= 0) {
      row.status = Status::mistrusted;
      row.note = "cpu_utilization 0.41 < 0.75";
    }
    rows.push_back(row);
  }
  r.data.results = rows;
  r.cases.clear();
  r.not_working.clear();
  r.not_working_by_name.clear();
  build_cases(r, rules);
  return r;
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
  EXPECT_EQ(g.stopped, 2);
  EXPECT_TRUE(t1.fails_gate);
  EXPECT_NE(gate_text(g).find("2 cases stopped working"), std::string::npos) << gate_text(g);
  opt.fail_pct = kNaN;
  EXPECT_FALSE(evaluate_gate(fs, opt).fail);
  // The other way round: started working, listed, not a failure.
  std::vector<CaseFinding> back = compare_sides(Side{b.label, {&b}}, Side{a.label, {&a}}, nullptr, rules, StatOptions{});
  EXPECT_EQ(finding(back, "fma_peak_f32 avx2/t1").flag, "started_working");
  opt.fail_pct = 10;
  EXPECT_FALSE(evaluate_gate(back, opt).fail);
  // A case simply absent on the other side (another experiment) stays only_in_base.
  LoadedRun gone = b;
  gone.not_working.clear();
  gone.not_working_by_name.clear();
  std::vector<CaseFinding> g2 = compare_sides(Side{a.label, {&a}}, Side{gone.label, {&gone}}, nullptr, rules, StatOptions{});
  EXPECT_EQ(finding(g2, "fma_peak_f32 avx2/t1").flag, "only_in_base");
}
