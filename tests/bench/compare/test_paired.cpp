// Interleaved rounds judged by Yuen's trimmed-mean t (bench/compare/src/paired.cpp), checked by
// simulation: A/A rounds flag about alpha, a known change is found, one slow round does not hide it;
// the power table of docs/methodology.md ("Interleaved A/B") is printed by Paired.PowerTable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "rigcheck/compare/statistics.hpp"

using namespace rigcheck;

namespace {
// The simulated machine. Each round both sides share the machine's level of the moment (a drift
// of 8%, which pairing cancels); each side is its own process of 5 repetitions, each repetition
// lognormal with `noise` (6%: the spread of one repetition of cpu_gemm's SGEMM rounds on the 2-vCPU
// VM, issue 32); with `slow_round`, one round per seed has one side (drawn) in a slow spell,
// 15-50% slower (the VM's slow spells: 20-40%, issue 32's B rounds 147 and 154 against ~185).
struct Sim {
  int rounds = 10;
  double change = 0;  // B's rate over A's, - 1
  double noise = 0.06;
  bool slow_round = true;
};

void rounds_of(const Sim& s, Rng& rng, Runs& a, Runs& b) {
  const int slow = s.slow_round ? static_cast<int>(rng.below(static_cast<size_t>(s.rounds))) : -1;
  const size_t slow_side = rng.below(2);
  const double slow_by = std::log1p(0.15 + 0.35 * rng.uniform());
  a.clear();
  b.clear();
  for (int r = 0; r < s.rounds; ++r) {
    const double drift = 0.08 * rng.normal();
    for (size_t side = 0; side < 2; ++side) {
      double level = drift + (side ? std::log1p(s.change) : 0);
      if (r == slow && side == slow_side) level -= slow_by;
      std::vector<double> reps;
      for (int i = 0; i < 5; ++i) reps.push_back(100 * std::exp(level + s.noise * rng.normal()));
      (side ? b : a).push_back(reps);
    }
  }
}

struct Rates {
  double excludes_one = 0, flagged = 0, covers = 0;  // % of seeds
};
Rates run_sim(const Sim& s, int seeds, const StatOptions& opt) {
  int ex = 0, fl = 0, cov = 0;
  Runs a, b;
  for (int k = 0; k < seeds; ++k) {
    Rng rng(seed_for("paired", static_cast<uint64_t>(k)));
    rounds_of(s, rng, a, b);
    const Judgement j = judge_paired(a, b, 1, opt);
    ex += j.iv.low > 0 || j.iv.high < 0;
    fl += j.flag == Flag::regression || j.flag == Flag::improvement;
    cov += j.iv.low <= std::log1p(s.change) && std::log1p(s.change) <= j.iv.high;
  }
  return {100.0 * ex / seeds, 100.0 * fl / seeds, 100.0 * cov / seeds};
}
}  // namespace

// Published values: Wilcox (2017) sec. 4.5's formula by hand on a small sample.
TEST(Paired, YuenTrimmedTByHand) {
  // 10 values, 20%: g = 2 cut from each tail: mean of {3,4,5,6,7,8} = 5.5; winsorized
  // {3,3,3,4,5,6,7,8,8,8}: mean 5.5, sum of squares 42.5; se = sqrt(42.5 / (6 * 5)).
  const TrimmedT t = trimmed_t({1, 2, 3, 4, 5, 6, 7, 8, 100, 1000});
  EXPECT_EQ(t.trimmed, 2);
  EXPECT_DOUBLE_EQ(t.est, 5.5);
  EXPECT_NEAR(t.se, std::sqrt(42.5 / 30), 1e-12);
  EXPECT_DOUBLE_EQ(t.df, 5);
  EXPECT_NEAR(t.p, student_t_two_sided_p(5.5 / std::sqrt(42.5 / 30), 5), 1e-12);
  // Two values: nothing trimmed, Student's paired t.
  const TrimmedT two = trimmed_t({1, 3});
  EXPECT_EQ(two.trimmed, 0);
  EXPECT_DOUBLE_EQ(two.est, 2);
  EXPECT_DOUBLE_EQ(two.df, 1);
  EXPECT_THROW(trimmed_t({1}), std::invalid_argument);
}

// A round's value: the Hodges-Lehmann estimate of the log repetitions, by hand.
TEST(Paired, RoundValueIsTheHodgesLehmannEstimateOfTheLogs) {
  // logs {0, 1, 2, 3, 100}: 15 pairwise means 0 .5 1 1 1.5 1.5 2 2 2.5 3 50 50.5 51 51.5 100, median 2
  // (the wild repetition moves it no further than the median of the clean four would be)
  EXPECT_NEAR(round_value({1, std::exp(1.0), std::exp(2.0), std::exp(3.0), std::exp(100.0)}), 2, 1e-12);
  // logs {0, 1, 5}: 0 .5 1 2.5 3 5, median 1.75 (the median of the logs would be 1)
  EXPECT_NEAR(round_value({1, std::exp(1.0), std::exp(5.0)}), 1.75, 1e-12);
  EXPECT_NEAR(round_value({7}), std::log(7.0), 1e-12);
  EXPECT_THROW(round_value({}), std::invalid_argument);
  EXPECT_THROW(round_value({1, 0}), std::invalid_argument);
}

// Issue 32's case: 10 rounds of SGEMM, B 11% slower, two of B's rounds in a slow spell. A mean
// (and the old bootstrap) is dragged by them; the trimmed mean cuts them and finds the change.
TEST(Paired, TwoSlowRoundsDoNotHideAnElevenPercentChange) {
  Rng rng(32);
  Runs a, b;
  for (int r = 0; r < 10; ++r) {
    const double drift = 0.03 * rng.normal();
    std::vector<double> x, y;
    const double slow = r == 3 ? 147.0 / 185 : r == 7 ? 154.0 / 185 : 1.0;
    for (int i = 0; i < 3; ++i) {
      x.push_back(185 * std::exp(drift + 0.02 * rng.normal()));
      y.push_back(185 * 0.89 * slow * std::exp(drift + 0.02 * rng.normal()));
    }
    a.push_back(x);
    b.push_back(y);
  }
  const Judgement j = judge_paired(a, b, 1, StatOptions{});
  EXPECT_EQ(j.flag, Flag::regression) << j.ratio << " [" << j.ratio_low << ", " << j.ratio_high << "]";
  EXPECT_LT(j.ratio_high, 0.95);
  EXPECT_NEAR(j.ratio, 0.89, 0.03);
  EXPECT_LT(j.iv.p, 0.01);
}

// Issue 32's acceptance, read as: "found" = the 99% interval excludes 1 (decide()'s flag also needs
// |change| >= the threshold, 10% by default, which an 8% change passes only by chance). The noise
// model is Sim's. Measured with these seeds: 10 rounds find it in about 79%, short of the 90% the
// issue asks; 15 rounds in about 99% (docs/methodology.md, the power table). A round's median of 5
// repetitions in place of round_value's Hodges-Lehmann estimate finds it in about 65% at 10 rounds
// (fails the 75% below); the plain paired t (trim 0) in about 27%: the slow round inflates its spread.
TEST(Paired, FindsAnEightPercentChangeAndFlagsNothingInAA) {
  StatOptions opt;
  opt.threshold_pct = 5;
  Sim s;
  s.change = 0.08;
  const Rates ten = run_sim(s, 200, opt);
  EXPECT_GE(ten.excludes_one, 75) << "8% in 10 rounds";
  s.rounds = 15;
  const Rates fifteen = run_sim(s, 200, opt);
  EXPECT_GE(fifteen.excludes_one, 90) << "8% in 15 rounds";
  EXPECT_GE(fifteen.flagged, 85) << "8% in 15 rounds, threshold 5%";
  for (int rounds : {5, 10, 20}) {
    Sim aa;
    aa.rounds = rounds;
    const Rates r = run_sim(aa, 2000, opt);
    EXPECT_LE(r.flagged, 1.0) << rounds << " rounds";
    EXPECT_LE(r.excludes_one, 2.0) << rounds << " rounds: the interval's own false alarms";
    EXPECT_GE(r.covers, 98.0) << rounds << " rounds";
  }
}

// The table of docs/methodology.md: change x rounds -> % of 1000 seeds whose interval excludes 1
// (and, in brackets, flagged at the default threshold of 10%). Printed; checked only for sense.
TEST(Paired, PowerTable) {
  const StatOptions opt;
  std::printf("| change | 5 rounds | 10 rounds | 15 rounds | 20 rounds | 30 rounds |\n|---|---|---|---|---|---|\n");
  double last = -1;
  for (double change : {0.0, 0.03, 0.05, 0.08, 0.11, 0.15, 0.20}) {
    std::printf("| %.0f%% |", 100 * change);
    for (int rounds : {5, 10, 15, 20, 30}) {
      Sim s;
      s.change = change;
      s.rounds = rounds;
      const Rates r = run_sim(s, 1000, opt);
      std::printf(" %.1f%% (%.1f%%) |", r.excludes_one, r.flagged);
      if (rounds == 20) {
        EXPECT_GE(r.excludes_one, last - 1);
        last = r.excludes_one;
      }
    }
    std::printf("\n");
  }
}
