// The statistics of comparing runs (compare, history, ab, noise): the run is the unit.
// Every case is reduced to one value per run, the log of the median of its repetitions; the
// run-to-run noise of a case is the standard deviation of those values. Formulas and sources:
// docs/methodology.md, "Comparing runs: the statistics".
//   - two sides of runs: hierarchical bootstrap (runs, then repetitions within a run) of the ratio
//     of the sides' geometric means (Kalibera & Jones 2013), each side's resampled spread widened
//     by sqrt(n/(n-1)) (Hesterberg 2015);
//   - one run on a side: Student's t interval with the noise of a profile (runs of the same
//     machine measured before) or, without one, pooled from the sides that have several runs;
//   - interleaved rounds (ab): the paired per-round log ratios, slow rounds set aside by Rosner's
//     generalized ESD, Student's t on the rest at a level calibrated by simulation;
//   - history: change points of a series of run values, E-divisive means (Matteson & James 2014)
//     with the Student t-test of Apache Otava (formerly Hunter, Fleming et al. 2023).
// Everything random is drawn from a seeded generator: the same input gives the same output.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "rigcheck/harness/distributions.hpp"  // normal_quantile, student_t_*: the harness's, shared with claims

namespace rigcheck {

// ------------------------------------------------------------------ random numbers
// xoshiro256** seeded through splitmix64 (Blackman & Vigna): fast, and the same on every machine.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  double uniform();        // [0, 1)
  size_t below(size_t n);  // [0, n), n > 0
  double normal();         // standard normal (Box-Muller)

 private:
  uint64_t s_[4];
};
// A seed for one case: FNV-1a of the key mixed with the base seed, so that a case's interval
// does not depend on which other cases were compared or in which order.
uint64_t seed_for(const std::string& key, uint64_t base);

// ------------------------------------------------------------------ run values
// Repetitions of one case (one metric), one vector per run; every value > 0.
using Runs = std::vector<std::vector<double>>;
double run_value(const std::vector<double>& reps);  // log(median(reps)); throws on an empty or non-positive sample
std::vector<double> run_values(const Runs& runs);
// One side of one interleaved round: the Hodges-Lehmann estimate of its log repetitions (the median
// of the pairwise means, i <= j). A round's value feeds a paired difference, where every bit of
// precision is power; the median of 5 repetitions keeps 64% of their information, this about 95%,
// and one wild repetition of 5 still cannot move it far (breakdown 29%). Throws as run_value.
double round_value(const std::vector<double>& reps);
// The paired rounds' d_r = round_value(b[r]) - round_value(a[r]); a and b of equal size.
std::vector<double> paired_diffs(const Runs& a, const Runs& b);

// Run-to-run noise of one case: standard deviation of the run values (log scale, so about the
// coefficient of variation of the run medians) and its degrees of freedom.
struct Noise {
  double sd = 0;
  double df = 0;  // 0: unknown
  int runs = 0;
  bool known() const { return df > 0; }
};
Noise noise_of(const std::vector<double>& values);
// The within-side spread of several sides pooled (each side's deviations from its own mean).
Noise pooled_noise(const std::vector<std::vector<double>>& sides);
// A case's noise moderated toward the machine's typical noise (empirical Bayes, as limma's
// moderated t: Smyth 2004, one prior for all cases): sd^2 = (w prior.sd^2 + df sd^2) / (w + df),
// df + w degrees of freedom, w = prior_runs. A case whose few runs happened to agree does not get
// a tiny noise on a machine whose runs move. Without a prior: own.
Noise moderate(const Noise& own, const Noise* prior, double prior_runs);
// How many runs the machine's noise is worth against a case's own: the prior's degrees of freedom d0
// estimated from the cases' spreads as limma does (Smyth 2004, sec. 6.2: e = ln s^2 - digamma(df/2) +
// ln(df/2); trigamma(d0/2) = var(e) - mean trigamma(df/2)). Cases whose noises differ far more than
// their few runs explain (a VM: compute steady, small messages 3x apart) give a small d0, so a noisy
// case keeps its own noise; alike cases a large one. Infinity when the spread is all sampling noise
// or fewer than 3 cases have a spread. compare moderates with min(d0, prior_runs) (bench/compare/src/prior.cpp).
double prior_df(const std::vector<Noise>& ns);

// ------------------------------------------------------------------ comparing two sides
struct StatOptions {
  double alpha = 0.01;        // two-sided level of every interval and test
  double threshold_pct = 10;  // a change smaller than this is never flagged
  double gate_alpha = 0.05;   // family-wise level of the --fail-on-regression gate (Holm over all cases)
  double noise_k = 1;         // ... nor one smaller than noise_k x the case's run-to-run noise
  double prior_runs = 4;      // weight of the machine's typical noise in a case's (moderate()), in runs
  int bootstrap = 2000;       // bootstrap replicates
  uint64_t seed = 20131;      // base seed (the year of Kalibera & Jones's paper, and a prime's neighbour)
};

enum class Method { none, bootstrap, t_profile, t_pooled, paired };
const char* to_string(Method m);

// The log ratio of side B to side A (geometric means of the run values) with its interval.
struct Interval {
  double est = 0, low = 0, high = 0;  // log scale; low/high meaningless when method is none
  Method method = Method::none;
  Noise noise;    // the run-to-run noise behind the interval and the noise rules
  double se = 0;  // standard error of est implied by that noise, sd * sqrt(1/n + 1/m)
  double p = 1;   // two-sided p of "no change" consistent with the interval (p_of_interval)
};

// Hierarchical bootstrap (Kalibera & Jones): per replicate, each side's runs drawn with
// replacement, each drawn run's repetitions drawn with replacement and reduced to log(median);
// the side's mean of those; each side's deviation from its observed mean widened by
// sqrt(n/(n-1)). Percentile interval at level 1 - alpha. Needs >= 2 runs on each side.
Interval bootstrap_interval(const Runs& a, const Runs& b, double alpha, int replicates, uint64_t seed);
// est +- t(1 - alpha/2, noise.df) * noise.sd * sqrt(1/n + 1/m). Needs noise.known().
Interval t_interval(double est, const Noise& noise, size_t n, size_t m, double alpha, Method method);
// Rounds of interleaved A/B: round r gives the round value (round_value) of A and of B; d_r = b_r -
// a_r. The rounds slow_rounds sets aside are left out; est is the mean of the rest (m of them), the
// interval est +- t(1 - u/2, m - 1) se_m with u = paired_level(R, alpha) and se_m their standard
// error; iv.se the se that gives the same interval at level alpha (so the noise rules read it as
// any other: noise sd = se sqrt(m), df = m - 1); iv.p = paired_p(R, the t's own p). Needs >= 2
// rounds, a and b of equal size.
Interval paired_interval(const Runs& a, const Runs& b, double alpha);

// The decision on one case. `better`: +1 when a larger value is better (a rate), -1 when a
// smaller one is (a time).
enum class Flag { regression, improvement, no_change, unstable, cannot_judge };
const char* to_string(Flag f);
struct Judgement {
  Interval iv;
  Flag flag = Flag::cannot_judge;
  double ratio = 0, ratio_low = 0, ratio_high = 0;  // B / A, in the metric's own direction
  double change_pct = 0;                            // signed, positive = B is better
  double noise_pct = 0;                             // run-to-run noise as a percentage (100 sd)
  double min_change_pct = 0;  // max(threshold, noise_k x noise): the smallest change that may be flagged
  double resolution_pct = 0;  // the smallest change these runs can tell from none: z(1 - alpha/2) x se
  int runs_needed = 0;        // runs per side that would resolve the threshold (unstable cases)
  std::string why;            // for cannot_judge and unstable, in words
};
// A profile's noise for the case may be null. One run per side without a profile: cannot_judge.
// `prior`: the machine's typical noise (the profile's when a profile is given, else the median
// spread within the sides over the cases of these runs), or null.
Judgement judge_sides(const Runs& a, const Runs& b, int better, const Noise* profile, const StatOptions& opt,
                      uint64_t seed, const Noise* prior = nullptr);
// Paired rounds: paired_interval, decided. No moderation toward other cases' noise: the rounds give
// the case its own spread of d, and the t quantile with h - 1 df already pays for knowing it from few
// rounds (cases differ tenfold in noise, so a prior shared by all would widen a quiet case's interval).
Judgement judge_paired(const Runs& a, const Runs& b, int better, const StatOptions& opt);
// Applies the rules to an interval: flag only when it excludes 0 (ratio 1) and the change is at
// least min_change_pct; unstable when not flagged and the resolution exceeds the threshold.
Judgement decide(const Interval& iv, int better, bool paired, const StatOptions& opt);
// Runs per side (or rounds, paired) for z(1 - alpha/2) x sd x sqrt(2/N) (paired: sd_d / sqrt(N))
// to reach the threshold; 0 when no noise is known, capped at 1000.
int runs_needed(double sd, bool paired, const StatOptions& opt);

// ------------------------------------------------------------------ robust paired rounds, p-values, the gate
// (bench/compare/src/paired.cpp)
// Slow rounds of interleaved A/B: Rosner's generalized ESD (Rosner, "Percentage points for a
// generalized ESD many-outlier procedure", Technometrics 25, 1983) on the d_r at kEsdAlpha, at most
// esd_max_set_aside(R) = max(1, floor(R/4)) rounds, from kEsdMinRounds rounds on (fewer: none). The
// positions set aside, ascending. At 10 rounds a round 6 or more standard deviations of d from the
// others is nearly always set aside, one at 3-4.5 about a third of the time (docs/methodology.md).
constexpr double kEsdAlpha = 0.02;
constexpr size_t kEsdMinRounds = 4;
size_t esd_max_set_aside(size_t n);
std::vector<size_t> slow_rounds(const std::vector<double>& d);
// What a case's note says of them, by their place among the rounds judged: "round 7 of 10 set aside as
// slow (Rosner's test)", "rounds 3 and 7 of 10 ..."; "" when none.
std::string slow_rounds_note(const std::vector<double>& d);
// Setting rounds aside after looking at them makes the t on the rest too bold (when the rounds
// happen to be tight, the farthest looks like an outlier), so its level is calibrated: for R rounds,
// the null distribution of the t's raw p (R independent normal d_r, no change, no slow round) is
// drawn kCalibrationDraws times from the seeded generator (the same on every machine, once per R
// in a process) and tabulated at 12 levels from 0.5 to 1e-4, interpolated on log-log scales
// between them and extended below. paired_level: the raw level u whose calibrated p is alpha (at
// 10 rounds and alpha 0.01, u is about 0.0046); paired_p: the calibrated p of a raw p. Below
// kEsdMinRounds rounds both are the identity (a plain paired t).
constexpr size_t kCalibrationDraws = 200000;
double paired_level(size_t rounds, double alpha);
double paired_p(size_t rounds, double raw_p);
// Two-sided p of "no change" consistent with an interval at level 1 - alpha with `df` degrees of
// freedom: the half-width on the side of 0 read as t(1 - alpha/2, df) standard errors, so that
// p < alpha exactly when the interval excludes 0. A t interval gets its own t-test's p.
double p_of_interval(const Interval& iv, double alpha);
// Holm's step-down (Holm 1979): the p-values sorted, the k-th smallest (k from 0) rejected while
// p_(k) <= level / (m - k); true for the rejected ones, in the input's order.
std::vector<bool> holm(const std::vector<double>& p, double level);

// ------------------------------------------------------------------ change points
// Student's t-test of two samples with pooled variance (as Otava uses): two-sided p; 1 when
// undefined (a sample of one, or no variance and equal means), 0 with no variance and unequal means.
double t_test_p(const std::vector<double>& a, const std::vector<double>& b);

struct ChangePoint {
  size_t index = 0;              // the first value after the change
  double before = 0, after = 0;  // means of the segments on each side (log scale)
  double low = 0, high = 0;      // interval of after - before at level 1 - alpha (pooled t)
  double p = 1;
  size_t n_before = 0, n_after = 0;
};
// E-divisive means (Matteson & James 2014, exponent 1) with Otava's t-test: candidates by binary
// segmentation, each split at the maximum of the energy statistic and kept while Student's t-test
// of its two sides gives p < 0.1 (weak change points); then, as Otava prunes them, the weakest
// candidate that does not stand between its neighbours (p >= alpha, or |after - before| below the
// larger of min_change (log) and noise_k x the pooled spread of its two sides) is dropped and the
// rest tested again, until every one stands. Segments of fewer than min_segment values are not split.
std::vector<ChangePoint> change_points(const std::vector<double>& series, double alpha, double min_change,
                                       double noise_k, size_t min_segment = 2);

}  // namespace rigcheck
