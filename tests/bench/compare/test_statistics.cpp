// The statistics of comparing runs (bench/compare/src/statistics.cpp) on data with known answers:
// the t-test against R, the run-level rules on simulated machines whose runs
// move as a VM's do (a run-to-run spread of 3% over a within-run spread of 0.5%), the paired
// rounds of interleaved A/B, and change points.
#include <gtest/gtest.h>

#include <cmath>

#include "rigcheck/compare/statistics.hpp"

using namespace rigcheck;

namespace {
// One simulated run: its level moves by `run_cv` (lognormal), its `reps` repetitions by 0.5%.
std::vector<double> sim_run(Rng& rng, double shift, double run_cv, int reps = 5) {
  const double level = run_cv * rng.normal();
  std::vector<double> r;
  for (int i = 0; i < reps; ++i) r.push_back(100 * std::exp(shift + level + 0.005 * rng.normal()));
  return r;
}

struct Tally {
  int trials = 0, flagged = 0, unstable = 0, cannot = 0;
  double flagged_pct() const { return 100.0 * flagged / trials; }
};

// `trials` comparisons of n runs against m runs, side B shifted by `change` (a rate: higher is better).
// As in compare, every case's noise is moderated toward the machine's typical noise, the median
// spread of the comparison's cases: here every case's is run_cv.
Tally simulate(int n, int m, double change, const StatOptions& opt, int trials, int profile_runs = 0,
               double run_cv = 0.03) {
  const Noise machine{run_cv, 400, 0};
  Rng rng(7 + n * 100 + m);
  Tally t;
  for (int k = 0; k < trials; ++k) {
    Runs a, b;
    for (int i = 0; i < n; ++i) a.push_back(sim_run(rng, 0, run_cv));
    for (int i = 0; i < m; ++i) b.push_back(sim_run(rng, std::log1p(change), run_cv));
    Noise prof;
    if (profile_runs) {
      std::vector<double> v;
      for (int i = 0; i < profile_runs; ++i) v.push_back(run_value(sim_run(rng, 0, run_cv)));
      prof = noise_of(v);
    }
    const Judgement j =
        judge_sides(a, b, 1, profile_runs ? &prof : nullptr, opt, seed_for(std::to_string(k), 1), &machine);
    ++t.trials;
    t.flagged += j.flag == Flag::regression || j.flag == Flag::improvement;
    t.unstable += j.flag == Flag::unstable;
    t.cannot += j.flag == Flag::cannot_judge;
  }
  return t;
}
}  // namespace

// Student's t-test of two samples (the quantiles and tails themselves: tests/bench/harness/test_distributions.cpp).
TEST(TTest, PValueMatchesR) {
  // R: t.test(c(1,2,3,4), c(3,4,5,6), var.equal = TRUE)$p.value
  EXPECT_NEAR(t_test_p({1, 2, 3, 4}, {3, 4, 5, 6}), 0.07099, 1e-4);
  EXPECT_DOUBLE_EQ(t_test_p({1}, {2}), 1);  // no degrees of freedom
}

TEST(RunValues, TheLogOfTheMedian) {
  EXPECT_DOUBLE_EQ(run_value({3, 1, 2}), std::log(2.0));
  EXPECT_DOUBLE_EQ(run_value({4, 1, 2, 3}), std::log(2.5));
  EXPECT_THROW(run_value({}), std::invalid_argument);
  EXPECT_THROW(run_value({0, 0, 1}), std::invalid_argument);
  Noise n = noise_of({std::log(100.0), std::log(102.0), std::log(98.0)});
  EXPECT_EQ(n.runs, 3);
  EXPECT_DOUBLE_EQ(n.df, 2);
  EXPECT_NEAR(n.sd, 0.02, 1e-3);
  EXPECT_FALSE(noise_of({1.0}).known());
}

TEST(Rng, SeededAndTheSameEverywhere) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(Rng(42).next(), c.next());
  EXPECT_NE(seed_for("case one", 1), seed_for("case two", 1));
  EXPECT_EQ(seed_for("case one", 1), seed_for("case one", 1));
  Rng r(1);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(r.below(7), 7u);
}

// The failure the issue describes: a test fed the repetitions of one run each is confident about
// run-to-run noise. Pooling the repetitions of 5 runs per side and testing them as one sample
// (what a repetition-level test sees) flags a large share of comparisons without any change.
TEST(RunLevel, RepetitionsAloneAreOverconfident) {
  Rng rng(11);
  int flagged = 0;
  for (int k = 0; k < 500; ++k) {
    std::vector<double> a = sim_run(rng, 0, 0.03), b = sim_run(rng, 0, 0.03);
    flagged += t_test_p(a, b) < 0.01;
  }
  EXPECT_GT(flagged, 250) << "one run per side, repetitions as the sample: " << flagged << " of 500 flagged";
}

// Acceptance: with a run-to-run spread of 3%, a comparison without a real change (only the runs'
// levels move) is flagged in at most 1% of trials, and a 10% change with 5 runs per side in at
// least 95%. The threshold is 5%, half the change to find (the default 10% would let a true 10%
// change through only half of the time: its estimate falls below 10% as often as above).
TEST(RunLevel, NoChangeFlaggedAtMostOnePercentAndTenPercentFoundWithFiveRuns) {
  StatOptions opt;
  opt.threshold_pct = 5;
  opt.bootstrap = 1000;
  const Tally none = simulate(5, 5, 0.0, opt, 2000);
  EXPECT_LE(none.flagged_pct(), 1.0) << none.flagged << " of " << none.trials;
  const Tally ten = simulate(5, 5, 0.10, opt, 2000);
  EXPECT_GE(ten.flagged_pct(), 95.0) << ten.flagged << " of " << ten.trials << ", unstable " << ten.unstable;
  const Tally slower = simulate(5, 5, -0.10, opt, 500);
  EXPECT_GE(slower.flagged_pct(), 95.0);
  // The defaults (threshold 10%) flag no A/A comparison at all here.
  EXPECT_EQ(simulate(5, 5, 0.0, StatOptions{}, 500).flagged, 0);
  // Ten runs per side find it every time.
  EXPECT_GE(simulate(10, 10, 0.10, opt, 300).flagged_pct(), 99.0);
}

TEST(RunLevel, OneRunPerSideNeedsANoiseProfile) {
  StatOptions opt;
  opt.threshold_pct = 5;
  const Tally bare = simulate(1, 1, 0.30, opt, 200);
  EXPECT_EQ(bare.cannot, 200);  // even 30%: never judged from the repetitions of one run
  EXPECT_EQ(bare.flagged, 0);
  Runs a{{100, 101, 99}}, b{{130, 131, 129}};
  Judgement j = judge_sides(a, b, 1, nullptr, opt, 1);
  EXPECT_EQ(j.flag, Flag::cannot_judge);
  EXPECT_NE(j.why.find("no noise profile"), std::string::npos) << j.why;
  EXPECT_NEAR(j.ratio, 1.3, 1e-9);  // the ratio is still given
  // With a profile of 20 runs of the machine: no change flagged in at most 1% of trials, and a
  // 30% change found almost always.
  const Tally none = simulate(1, 1, 0.0, opt, 2000, 20);
  EXPECT_LE(none.flagged_pct(), 1.0) << none.flagged;
  EXPECT_GE(simulate(1, 1, 0.30, opt, 500, 20).flagged_pct(), 95.0);
}

TEST(RunLevel, NoisyCaseIsUnstableWithTheRunsItNeeds) {
  StatOptions opt;                       // threshold 10%, alpha 0.01
  Runs a{{100}, {130}}, b{{90}, {120}};  // a spread of ~20% between runs, two runs per side
  Judgement j = judge_sides(a, b, 1, nullptr, opt, 3);
  EXPECT_EQ(j.flag, Flag::unstable);
  EXPECT_GT(j.resolution_pct, 10);
  // runs needed = 2 (z sd / log 1.1)^2, z = 2.5758
  const double sd = j.iv.noise.sd, want = 2 * std::pow(2.575829 * sd / std::log1p(0.10), 2);
  EXPECT_EQ(j.runs_needed, static_cast<int>(std::ceil(want)));
  EXPECT_EQ(runs_needed(0.2, false, opt), 59);
  EXPECT_EQ(runs_needed(0.0, false, opt), 0);
  EXPECT_EQ(runs_needed(5.0, false, opt), 1000);
}

TEST(RunLevel, BootstrapIsReproducibleAndCoversTheEstimate) {
  Runs a{{100, 101, 99}, {102, 103, 101}, {98, 99, 97}}, b{{120, 121, 119}, {123, 122, 124}, {117, 118, 119}};
  Interval x = bootstrap_interval(a, b, 0.01, 2000, 5), y = bootstrap_interval(a, b, 0.01, 2000, 5);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  EXPECT_NEAR(std::exp(x.est), 1.2, 0.01);
  EXPECT_LT(x.low, x.est);
  EXPECT_GT(x.high, x.est);
  EXPECT_GT(x.low, 0);                                             // 20% with 2% noise: excluded
  Judgement j = judge_sides(a, b, -1, nullptr, StatOptions{}, 5);  // a time: 20% more is a regression
  EXPECT_EQ(j.flag, Flag::regression);
  EXPECT_NEAR(j.change_pct, -100 * (1 - 1 / 1.2), 1);
  EXPECT_THROW(bootstrap_interval({{1}}, b, 0.01, 100, 1), std::invalid_argument);
}

// Interleaved rounds share the drift of their moment: the paired ratio cancels it.
TEST(Paired, RoundsCancelTheDriftTheyShare) {
  Rng rng(3);
  Runs a, b;
  for (int r = 0; r < 10; ++r) {
    const double drift = 0.08 * rng.normal();  // the machine's level this round: +-8%
    std::vector<double> x, y;
    for (int i = 0; i < 5; ++i) {
      x.push_back(100 * std::exp(drift + 0.005 * rng.normal()));
      y.push_back(110 * std::exp(drift + 0.005 * rng.normal()));
    }
    a.push_back(x);
    b.push_back(y);
  }
  StatOptions opt;
  opt.threshold_pct = 5;
  Judgement p = judge_paired(a, b, 1, opt);
  EXPECT_EQ(p.flag, Flag::improvement);
  EXPECT_GT(p.ratio_low, 1.08);
  EXPECT_LT(p.ratio_high, 1.12);
  Judgement u = judge_sides(a, b, 1, nullptr, opt, 9);  // the same runs unpaired: the drift stays in
  EXPECT_GT(u.ratio_high - u.ratio_low, 3 * (p.ratio_high - p.ratio_low));
  // A/A rounds (the same drift, fresh repetition noise): nothing flagged.
  Runs c = a;
  for (auto& run : c)
    for (double& v : run) v *= std::exp(0.005 * rng.normal());
  const Flag aa = judge_paired(a, c, 1, opt).flag;
  EXPECT_TRUE(aa == Flag::no_change) << to_string(aa);
  EXPECT_EQ(judge_paired({{1}}, {{2}}, 1, opt).flag, Flag::cannot_judge);
}

TEST(ChangePoints, OneLevelShiftFoundWhereItIs) {
  Rng rng(5);
  std::vector<double> x;
  for (int i = 0; i < 5; ++i) x.push_back(std::log(100.0) + 0.015 * rng.normal());
  for (int i = 0; i < 3; ++i) x.push_back(std::log(60.0) + 0.015 * rng.normal());
  auto cps = change_points(x, 0.001, std::log1p(0.10), 1, 2);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 5u);
  EXPECT_NEAR(std::exp(cps[0].after - cps[0].before), 0.6, 0.03);
  EXPECT_LT(cps[0].low, cps[0].after - cps[0].before);
  EXPECT_GT(cps[0].high, cps[0].after - cps[0].before);
  EXPECT_LT(cps[0].p, 0.001);
  EXPECT_EQ(cps[0].n_before, 5u);
  EXPECT_EQ(cps[0].n_after, 3u);
}

TEST(ChangePoints, NoneInNoiseTwoWhereThereAreTwo) {
  Rng rng(6);
  int spurious = 0;
  for (int t = 0; t < 200; ++t) {
    std::vector<double> x;
    for (int i = 0; i < 12; ++i) x.push_back(0.03 * rng.normal());
    spurious += !change_points(x, 0.001, std::log1p(0.10), 1, 2).empty();
  }
  EXPECT_LE(spurious, 2) << "of 200 series of 3% noise";
  std::vector<double> y;
  for (double level : {100.0, 100.0, 100.0, 100.0, 70.0, 70.0, 70.0, 70.0, 90.0, 90.0, 90.0, 90.0})
    y.push_back(std::log(level) + 0.01 * rng.normal());
  auto cps = change_points(y, 0.001, std::log1p(0.10), 1, 2);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 4u);
  EXPECT_EQ(cps[1].index, 8u);
  // Too short, or a shift below the threshold: none.
  EXPECT_TRUE(change_points({0, 0, 1}, 0.001, 0.1, 1, 2).empty());
  std::vector<double> small{0, 0.001, -0.001, 0, 0.05, 0.051, 0.049, 0.05};
  EXPECT_TRUE(change_points(small, 0.001, std::log1p(0.10), 1, 2).empty());
  EXPECT_EQ(change_points(small, 0.001, std::log1p(0.01), 1, 2).size(), 1u);
}
