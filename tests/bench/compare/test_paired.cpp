// Interleaved rounds judged by Rosner's ESD then a t at a calibrated level (bench/compare/src/paired.cpp),
// checked by simulation: A/A rounds flag about alpha, a known change is found, slow rounds do not hide it;
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
// VM); with `slow_round`, one round per seed has one side (drawn) in a slow spell,
// 15-50% slower (the VM's slow spells: 20-40%, recorded B rounds 147 and 154 against ~185);
// `slow` 2: a second such round (another round, its side drawn too).
struct Sim {
  int rounds = 10;
  double change = 0;  // B's rate over A's, - 1
  double noise = 0.06;
  int slow = 1;
};

void rounds_of(const Sim& s, Rng& rng, Runs& a, Runs& b) {
  const int slow = s.slow > 0 ? static_cast<int>(rng.below(static_cast<size_t>(s.rounds))) : -1;
  const size_t slow_side = rng.below(2);
  const double slow_by = std::log1p(0.15 + 0.35 * rng.uniform());
  int slow2 = -1;
  size_t slow2_side = 0;
  double slow2_by = 0;
  if (s.slow > 1) {
    slow2 = static_cast<int>((static_cast<size_t>(slow) + 1 + rng.below(static_cast<size_t>(s.rounds - 1))) %
                             static_cast<size_t>(s.rounds));
    slow2_side = rng.below(2);
    slow2_by = std::log1p(0.15 + 0.35 * rng.uniform());
  }
  a.clear();
  b.clear();
  for (int r = 0; r < s.rounds; ++r) {
    const double drift = 0.08 * rng.normal();
    for (size_t side = 0; side < 2; ++side) {
      double level = drift + (side ? std::log1p(s.change) : 0);
      if (r == slow && side == slow_side) level -= slow_by;
      if (r == slow2 && side == slow2_side) level -= slow2_by;
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

// Rosner's generalized ESD by hand: with one round far out it is set aside, and nothing else; with
// none, none; at most floor(R/4).
TEST(Paired, SlowRoundsAreRosnersOutliersAndNoMore) {
  const std::vector<double> clean = {0.01, -0.02, 0.00, 0.03, -0.01, 0.02, 0.015, 0.01, -0.01, 0.005};
  EXPECT_TRUE(slow_rounds(clean).empty());
  std::vector<double> one = clean;
  one[6] = -0.40;  // one side 33% slower in round 7
  EXPECT_EQ(slow_rounds(one), std::vector<size_t>{6});
  EXPECT_EQ(slow_rounds_note(one), "round 7 of 10 set aside as slow (Rosner's test)");
  std::vector<double> two = one;
  two[2] = 0.35;
  EXPECT_EQ(slow_rounds(two), (std::vector<size_t>{2, 6}));
  EXPECT_EQ(slow_rounds_note(two), "rounds 3 and 7 of 10 set aside as slow (Rosner's test)");
  EXPECT_EQ(slow_rounds_note(clean), "");
  std::vector<double> three = two;
  three[9] = 0.5;  // floor(10/4) = 2 at most (three such rounds mask each other: the t then widens)
  EXPECT_LE(slow_rounds(three).size(), 2u);
  EXPECT_EQ(esd_max_set_aside(10), 2u);
  EXPECT_EQ(esd_max_set_aside(5), 1u);
  EXPECT_TRUE(slow_rounds({0.01, 0.5, 0.02}).empty()) << "fewer than kEsdMinRounds: a plain paired t";
  // The interval is the t of the rounds kept, at the calibrated level.
  Runs a, b;
  for (double v : one) {
    a.push_back({100, 100, 100});
    b.push_back({100 * std::exp(v), 100 * std::exp(v), 100 * std::exp(v)});
  }
  const Interval iv = paired_interval(a, b, 0.01);
  double mean = 0;
  for (size_t r = 0; r < one.size(); ++r) mean += r == 6 ? 0 : one[r] / 9;
  EXPECT_NEAR(iv.est, mean, 1e-12);
  EXPECT_EQ(iv.noise.df, 8);
  EXPECT_EQ(iv.noise.runs, 10);
}

// The calibration: the level is below alpha (setting rounds aside makes the raw t too bold), the p
// and the interval agree (p <= alpha exactly when the interval excludes 1), and the same table comes
// out every time (seeded).
TEST(Paired, TheCalibratedLevelAndPAgree) {
  for (size_t n : {4, 5, 8, 10, 20}) {
    const double u = paired_level(n, 0.01);
    EXPECT_GT(u, 0.001) << n;
    EXPECT_LT(u, 0.01) << n;
    EXPECT_NEAR(paired_p(n, u), 0.01, 1e-9) << n;
    EXPECT_LT(paired_p(n, 1e-6), paired_p(n, 1e-5)) << n;
    EXPECT_DOUBLE_EQ(paired_p(n, 1), 1);
  }
  EXPECT_DOUBLE_EQ(paired_level(3, 0.01), 0.01);
  EXPECT_DOUBLE_EQ(paired_level(10, 0.01), paired_level(10, 0.01));
  Sim s;
  s.change = 0.05;
  Runs a, b;
  int agree = 0;
  for (int k = 0; k < 300; ++k) {
    Rng rng(seed_for("agree", static_cast<uint64_t>(k)));
    rounds_of(s, rng, a, b);
    const Interval iv = paired_interval(a, b, 0.01);
    agree += (iv.low > 0 || iv.high < 0) == (iv.p <= 0.01);
  }
  EXPECT_EQ(agree, 300);
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

// The case: 10 rounds of SGEMM, B 11% slower, two of B's rounds in a slow spell. A mean
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

// "Found" here: the 99% interval excludes 1 (decide()'s flag also needs
// |change| >= the threshold, 10% by default, which an 8% change passes only by chance). The noise
// model is Sim's. Measured with these seeds (docs/methodology.md, the power table): 10 rounds find
// it in about 87%, short of the 90% the issue asks (its 200 seeds: printed); 15 rounds in about 99%;
// with two slow rounds about 70% at 10. Yuen's 20% trimmed t before it found 79% at 10 (fails the
// 83% below), 57-62% with two slow rounds, and its interval excluded 1 in 1.4% of clean A/A seeds
// at 5 and 10 rounds (a scratch program of this Sim, 20,000 seeds; not run against the 1.3% below).
TEST(Paired, FindsAnEightPercentChangeAndFlagsNothingInAA) {
  StatOptions opt;
  opt.threshold_pct = 5;
  Sim s;
  s.change = 0.08;
  const Rates ten = run_sim(s, 200, opt);
  std::printf("8%% in 10 rounds, one slow round: found in %.1f%% of 200 seeds\n", ten.excludes_one);
  EXPECT_GE(ten.excludes_one, 83) << "8% in 10 rounds";
  s.slow = 2;
  const Rates two = run_sim(s, 200, opt);
  std::printf("8%% in 10 rounds, two slow rounds: found in %.1f%% of 200 seeds\n", two.excludes_one);
  EXPECT_GE(two.excludes_one, 62) << "8% in 10 rounds, two slow rounds";
  s.slow = 1;
  s.rounds = 15;
  const Rates fifteen = run_sim(s, 200, opt);
  EXPECT_GE(fifteen.excludes_one, 95) << "8% in 15 rounds";
  EXPECT_GE(fifteen.flagged, 85) << "8% in 15 rounds, threshold 5%";
  for (int slow : {0, 1, 2}) {
    for (int rounds : {5, 8, 10, 20}) {
      Sim aa;
      aa.rounds = rounds;
      aa.slow = slow;
      const Rates r = run_sim(aa, 4000, opt);
      EXPECT_LE(r.flagged, 1.0) << rounds << " rounds, " << slow << " slow";
      EXPECT_LE(r.excludes_one, 1.3) << rounds << " rounds, " << slow << " slow: the interval's own false alarms";
      EXPECT_GE(r.covers, 98.7) << rounds << " rounds, " << slow << " slow";
    }
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
