// The gate of --fail-on-regression (bench/compare/src/gate.cpp): Holm's step-down by hand, and, on
// simulated A/A comparisons of 190 cases at a rented VM's noise, a gate that fails on at most 5% of
// the nights on which nothing changed, where a gate on every case's own flag fails on most.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "rigcheck/compare/compare.hpp"

using namespace rigcheck;

TEST(Gate, HolmStepDownByHand) {
  // m = 4 at level 0.05: 0.01 <= 0.05/4 rejected, 0.015 <= 0.05/3 rejected, 0.03 > 0.05/2: stop.
  EXPECT_EQ(holm({0.03, 0.01, 0.9, 0.015}, 0.05), (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(holm({0.02, 0.02}, 0.05), (std::vector<bool>{true, true}));  // 0.02 <= 0.025, then <= 0.05
  EXPECT_EQ(holm({0.026, 0.001}, 0.05), (std::vector<bool>{true, true}));
  EXPECT_EQ(holm({0.03, 0.03}, 0.05), (std::vector<bool>{false, false}));
  EXPECT_TRUE(holm({}, 0.05).empty());
}

TEST(Gate, PValueAgreesWithTheInterval) {
  Interval iv;
  iv.method = Method::bootstrap;
  iv.noise.df = 6;
  iv.est = 0.2;
  const double q = student_t_quantile(0.995, 6);
  iv.low = 0.2 - q * 0.1;  // just excludes 0 at 99% when se = 0.1 would put low at -0.12...
  iv.high = 0.2 + q * 0.2;
  EXPECT_NEAR(p_of_interval(iv, 0.01), student_t_two_sided_p(2.0, 6), 1e-12);
  iv.low = 1e-9;  // the interval's low end at 0: p = alpha
  EXPECT_NEAR(p_of_interval(iv, 0.01), 0.01, 1e-6);
  iv.low = -1e-9;
  EXPECT_GT(p_of_interval(iv, 0.01), 0.01);
}

namespace {
// One simulated run of `cases` cases: case i's level moves by sd[i] x a Student t(4) variate (heavy
// tails: a VM's slow spells), 5 repetitions within 0.5%.
LoadedRun sim_run(const std::string& label, const std::vector<double>& sd, Rng& rng, bool heavy = true) {
  LoadedRun r;
  r.label = label;
  for (size_t i = 0; i < sd.size(); ++i) {
    double chi = 0;
    for (int k = 0; k < 4; ++k) {
      const double w = rng.normal();
      chi += w * w;
    }
    const double z = rng.normal();
    const double level = heavy ? sd[i] * z / std::sqrt(chi / 4) / std::sqrt(2.0) : sd[i] * z;  // t(4) has variance 2
    CaseRun c;
    c.source = "sim";
    c.benchmark = "sim";
    c.case_name = "case" + std::to_string(i);
    c.area = "cpu";
    MetricSample m;
    m.unit = "GFLOP/s";
    m.better = 1;
    for (int k = 0; k < 5; ++k) m.reps.push_back(100 * std::exp(level + 0.005 * rng.normal()));
    c.metrics["rate"] = m;
    r.cases[case_key(c.source, c.benchmark, c.case_name, "")] = c;
  }
  return r;
}
}  // namespace

// What the gate must hold to: 1,000 A/A comparisons of 190 cases at this VM's noise (two runs against one,
// as `compare --a R1 R2 --b R3 --fail-on-regression 10`): the gate fails in at most 5%. The cases'
// run-to-run noise spans 1% to 30% (log-uniform: compute kernels steady, MPI small messages and
// ResNet-50 steps apart by 30% and more, PITFALLS), with heavy tails.
TEST(Gate, AaComparisonsOf190CasesFailAtMostFivePercent) {
  Rng rng(190);
  std::vector<double> sd(190);
  for (double& s : sd) s = std::exp(std::log(0.01) + rng.uniform() * (std::log(0.30) - std::log(0.01)));
  CompareOptions opt;
  opt.fail_pct = 10;
  const CaseRules rules;
  int gate_fails = 0, case_flag_fails = 0, flags = 0;
  const int comparisons = 1000;
  for (int k = 0; k < comparisons; ++k) {
    const LoadedRun r1 = sim_run("R1", sd, rng), r2 = sim_run("R2", sd, rng), r3 = sim_run("R3", sd, rng);
    std::vector<CaseFinding> fs = compare_sides(Side{"A", {&r1, &r2}}, Side{"B", {&r3}}, nullptr, rules, opt.stat);
    const Gate g = evaluate_gate(fs, opt);
    gate_fails += g.fail;
    bool any = false;
    for (const CaseFinding& f : fs) {
      flags += f.flagged();
      any = any || (f.flag == "regression" && -f.j.change_pct >= opt.fail_pct);
    }
    case_flag_fails += any;
  }
  std::printf(
      "A/A, 190 cases, 2 runs against 1: gate failed %d of %d; a gate on each case's flag: %d; flags "
      "per comparison %.2f\n",
      gate_fails, comparisons, case_flag_fails, static_cast<double>(flags) / comparisons);
  EXPECT_LE(gate_fails, comparisons / 20);
  EXPECT_GT(case_flag_fails, 2 * gate_fails) << "the per-case rule should fail far more often";
}

// A real regression of 40% in one case of 190 still fails the gate (three runs on each side, 2% noise).
TEST(Gate, ARealRegressionStillFails) {
  Rng rng(41);
  std::vector<double> sd(190, 0.02);
  CompareOptions opt;
  opt.fail_pct = 10;
  opt.stat.bootstrap = 500;
  std::vector<LoadedRun> a, b;
  for (int i = 0; i < 3; ++i) a.push_back(sim_run("A" + std::to_string(i), sd, rng, false));
  for (int i = 0; i < 3; ++i) {
    b.push_back(sim_run("B" + std::to_string(i), sd, rng, false));
    for (double& v : b.back().cases.begin()->second.metrics["rate"].reps) v *= 0.6;
  }
  std::vector<CaseFinding> fs =
      compare_sides(Side{"A", {&a[0], &a[1], &a[2]}}, Side{"B", {&b[0], &b[1], &b[2]}}, nullptr, CaseRules{}, opt.stat);
  const Gate g = evaluate_gate(fs, opt);
  EXPECT_TRUE(g.fail) << gate_text(g) << " " << fs[0].flag << " " << fs[0].j.iv.p << " " << fs[0].j.iv.se << " "
                      << fs[0].j.iv.noise.df << " " << to_string(fs[0].j.iv.method);
  EXPECT_EQ(g.regressions, 1);
  EXPECT_EQ(g.tested, 190);
  EXPECT_NE(gate_text(g).find("Holm"), std::string::npos);
}
