// What the gate leaves to the machine (scripts/noise-check.sh's splits): a slow spell of one sweep read as the
// machine's state for that part of the run (machine_state.cpp, segments), and the cases of a
// virtual machine whose working set lies in the L3 it shares with other guests, judged but not
// gated (shared_cache.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "rigcheck/compare/compare.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

namespace {
// A judged case of memory_latency's sweep SEGMENT: base level `base` ns, the run `factor` times slower.
CaseFinding chase(const std::string& segment, double bytes, double base, double factor) {
  CaseFinding f;
  f.benchmark = "memory_latency";
  f.case_name = segment + "/" + std::to_string(static_cast<long long>(bytes));
  f.label = f.benchmark + " " + f.case_name;
  f.area = "memory";
  f.metric = "ns_per_load";
  f.better = -1;
  f.run_label = "B";
  f.base.value = base;
  f.run.value = base * factor;
  Interval iv;
  iv.method = Method::bootstrap;
  iv.est = std::log(factor);
  iv.low = iv.est - 0.15;
  iv.high = iv.est + 0.15;
  iv.se = 0.05;
  iv.noise.sd = 0.05;
  iv.noise.df = 4;
  iv.p = student_t_two_sided_p(iv.est / iv.se, iv.noise.df);
  f.j = decide(iv, f.better, false, StatOptions{});
  f.flag = to_string(f.j.flag);
  return f;
}

int flagged(const std::vector<CaseFinding>& fs) {
  int n = 0;
  for (const CaseFinding& f : fs) n += f.flagged();
  return n;
}
}  // namespace

// Run 3 of the five quick runs behind docs/performance.md: every huge-page chase about twice as slow,
// the L1-resident ones (1.2 ns) as much as the DRAM ones (200 ns): the machine ran that part slowly.
TEST(MachineState, ASlowSpellOfOneSweepIsTheMachinesState) {
  std::vector<CaseFinding> fs;
  const double levels[] = {1.2, 1.2, 4.1, 4.2, 14, 160, 213, 250};
  for (int i = 0; i < 8; ++i) fs.push_back(chase("thp", 4096.0 * (1 << (2 * i)), levels[i], i == 3 ? 1.7 : 1.9));
  for (int i = 0; i < 8; ++i) fs.push_back(chase("4k", 4096.0 * (1 << (2 * i)), levels[i], 1.0));
  ASSERT_EQ(flagged(fs), 8);
  const std::vector<MachineState> states = machine_states(fs, StatOptions{});
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].area, "segment memory_latency thp");
  EXPECT_NEAR(std::exp(-states[0].shift), 1.9, 0.01);  // log speed: the run is slower
  EXPECT_EQ(flagged(fs), 0);
  EXPECT_NE(fs[0].note.find("judged against the machine's state of segment memory_latency thp"), std::string::npos)
      << fs[0].note;
  EXPECT_NE(machine_state_text(states[0], "").find("MACHINE STATE segment memory_latency thp in B: -4"),
            std::string::npos)
      << machine_state_text(states[0], "");
}

// A sweep of like cases (levels within 10x, as GEMM's sizes) slowed as a whole is a change of the
// code they share: flagged case by case, never read as the machine's state.
TEST(MachineState, ALikeSweepSlowedAsAWholeIsAChange) {
  std::vector<CaseFinding> fs;
  for (int i = 0; i < 8; ++i) fs.push_back(chase("thp", 4096.0 * (1 << i), 100 + 10 * i, 1.5));
  for (int i = 0; i < 8; ++i) fs.push_back(chase("4k", 4096.0 * (1 << i), 100 + 10 * i, 1.0));
  EXPECT_TRUE(machine_states(fs, StatOptions{}).empty());
  EXPECT_EQ(flagged(fs), 8);
}

namespace {
// quick_vm (a 2-vCPU VM: bhyve, L2 1 MiB, L3 32 MiB) as a run LABEL with its chases of CASES `factor`
// times slower and every value scaled by `jitter`; `virt` replaces its virtualization fact.
LoadedRun vm_run(const std::string& label, const std::vector<std::string>& cases, double factor, double jitter,
                 const std::string& virt, const CaseRules& rules) {
  return edited_run("quick_vm", label, rules, [&](RunData& run) {
    run.inventory["virtualization"] = virt;
    for (ResultRow& row : run.results) {
      if (row.repetition < 0 || row.status != Status::ok || row.metric != "ns_per_load") continue;
      row.value *= jitter;
      for (const std::string& c : cases)
        if (row.benchmark == "memory_latency" && row.case_name == c) row.value *= factor;
    }
  });
}

Gate gate_of(const std::vector<std::string>& slowed, const std::string& virt, std::vector<CaseFinding>& fs) {
  const CaseRules rules = read_case_rules();
  const LoadedRun a1 = vm_run("a1", {}, 1, 1.0, virt, rules), a2 = vm_run("a2", {}, 1, 1.01, virt, rules);
  const LoadedRun b1 = vm_run("b1", slowed, 7, 1.005, virt, rules), b2 = vm_run("b2", slowed, 7, 0.995, virt, rules);
  fs = compare_sides(Side{"A", {&a1, &a2}}, Side{"B", {&b1, &b2}}, nullptr, rules, StatOptions{});
  mark_shared_cache(fs, {&a1, &a2, &b1, &b2}, read_working_set_params());
  CompareOptions opt;
  opt.fail_pct = 10;
  return evaluate_gate(fs, opt);
}

const CaseFinding& find_case(const std::vector<CaseFinding>& fs, std::string_view label) {
  for (const CaseFinding& f : fs)
    if (f.label == label) return f;
  throw std::runtime_error("no finding " + std::string(label));
}
}  // namespace

// The 8 MiB chase of a VM seven times slower (13-30 ns in some runs of the 2-vCPU VM, 75-163 ns in
// others): flagged, listed, left out of the gate with the reason.
TEST(SharedCache, OnAVmTheL3ChasesAreJudgedButNotGated) {
  std::vector<CaseFinding> fs;
  const Gate g = gate_of({"4k/8388608"}, "bhyve", fs);
  const CaseFinding& f = find_case(fs, "memory_latency 4k/8388608");
  EXPECT_EQ(f.flag, "regression");
  EXPECT_NE(f.not_gated.find("between the private L2 (1 MiB) and the L3 (32 MiB)"), std::string::npos) << f.not_gated;
  EXPECT_NE(f.note.find("not gated"), std::string::npos);
  EXPECT_FALSE(f.fails_gate);
  EXPECT_FALSE(g.fail) << gate_text(g);
  EXPECT_GE(g.not_gated, 1);
  EXPECT_NE(gate_text(g).find("left out of the gate"), std::string::npos);
  // L1- and DRAM-sized chases stay gated.
  EXPECT_TRUE(find_case(fs, "memory_latency 4k/16384").not_gated.empty());
  EXPECT_TRUE(find_case(fs, "memory_latency 4k/268435456").not_gated.empty());
}

TEST(SharedCache, AnL1ChaseSlowedFailsTheGate) {
  std::vector<CaseFinding> fs;
  const Gate g = gate_of({"4k/16384"}, "bhyve", fs);
  EXPECT_TRUE(g.fail) << gate_text(g);
  EXPECT_TRUE(find_case(fs, "memory_latency 4k/16384").fails_gate);
}

// On bare metal the L3 is the machine's own: the same 8 MiB chase fails the gate.
TEST(SharedCache, OnBareMetalTheL3ChasesAreGated) {
  std::vector<CaseFinding> fs;
  const Gate g = gate_of({"4k/8388608"}, "none", fs);
  EXPECT_EQ(g.not_gated, 0);
  EXPECT_TRUE(g.fail) << gate_text(g);
  EXPECT_TRUE(find_case(fs, "memory_latency 4k/8388608").fails_gate);
}
