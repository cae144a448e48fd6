// The statistics of comparing runs. See statistics.hpp and docs/methodology.md.
#include "rigcheck/compare/statistics.hpp"
#include "rigcheck/enum_name.hpp"

#include <iterator>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

// ------------------------------------------------------------------ random numbers
namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(uint64_t seed) {
  for (uint64_t& s : s_) s = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

size_t Rng::below(size_t n) {
  // Lemire's multiply-shift; the bias (n / 2^64) is far below anything a bootstrap can see.
  return static_cast<size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
}

double Rng::normal() {
  double u = uniform();
  while (u <= 0) u = uniform();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * uniform());
}

uint64_t seed_for(const std::string& key, uint64_t base) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ULL;
  uint64_t x = h ^ base;
  return splitmix64(x);
}

// ------------------------------------------------------------------ run values
namespace {
double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
}  // namespace

double run_value(const std::vector<double>& reps) {
  if (reps.empty()) throw std::invalid_argument("run_value: a run without repetitions");
  std::vector<double> v = reps;
  const double m = median_in_place(v);
  if (!(m > 0) || !std::isfinite(m)) throw std::invalid_argument("run_value: a median that is not a positive number");
  return std::log(m);
}

double round_value(const std::vector<double>& reps) {
  if (reps.empty()) throw std::invalid_argument("round_value: a round without repetitions");
  std::vector<double> logs;
  logs.reserve(reps.size());
  for (double v : reps) {
    if (!(v > 0) || !std::isfinite(v))
      throw std::invalid_argument("round_value: a repetition that is not a positive number");
    logs.push_back(std::log(v));
  }
  std::vector<double> walsh;
  walsh.reserve(logs.size() * (logs.size() + 1) / 2);
  for (size_t i = 0; i < logs.size(); ++i)
    for (size_t j = i; j < logs.size(); ++j) walsh.push_back((logs[i] + logs[j]) / 2);
  return median_in_place(walsh);
}

std::vector<double> run_values(const Runs& runs) {
  std::vector<double> out;
  out.reserve(runs.size());
  for (const auto& r : runs) out.push_back(run_value(r));
  return out;
}

Noise noise_of(const std::vector<double>& values) { return pooled_noise({values}); }

Noise pooled_noise(const std::vector<std::vector<double>>& sides) {
  Noise n;
  double ss = 0;
  for (const auto& s : sides) {
    n.runs += static_cast<int>(s.size());
    if (s.size() < 2) continue;
    const double m = mean(s);
    for (double x : s) ss += (x - m) * (x - m);
    n.df += static_cast<double>(s.size() - 1);
  }
  n.sd = n.df > 0 ? std::sqrt(ss / n.df) : 0;
  return n;
}

Noise moderate(const Noise& own, const Noise* prior, double prior_runs) {
  if (!prior || !prior->known() || prior_runs <= 0) return own;
  Noise n = own;
  n.df = own.df + prior_runs;
  n.sd = std::sqrt((prior_runs * prior->sd * prior->sd + own.df * own.sd * own.sd) / n.df);
  return n;
}

// ------------------------------------------------------------------ intervals
const char* to_string(Method m) {
  return enum_name(m, {{Method::none, "none"},
                       {Method::bootstrap, "bootstrap"},
                       {Method::t_profile, "t_profile"},
                       {Method::t_pooled, "t_pooled"},
                       {Method::paired, "paired"}});
}

namespace {
// One bootstrap draw of a run: its repetitions drawn with replacement, log(median).
double draw_run(const std::vector<double>& reps, Rng& rng, std::vector<double>& scratch) {
  if (reps.size() == 1) return std::log(reps[0]);
  scratch.resize(reps.size());
  for (double& x : scratch) x = reps[rng.below(reps.size())];
  return std::log(median_in_place(scratch));
}

double quantile_sorted(const std::vector<double>& v, double q) {
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double widen(size_t n) { return std::sqrt(static_cast<double>(n) / static_cast<double>(n - 1)); }

// The variance of a run's log(median) over its repetitions, from 200 bootstrap draws.
double median_variance(const std::vector<double>& reps, Rng& rng) {
  if (reps.size() < 2) return 0;
  std::vector<double> scratch;
  double s = 0, ss = 0;
  const int n = 200;
  for (int i = 0; i < n; ++i) {
    const double v = draw_run(reps, rng, scratch);
    s += v;
    ss += v * v;
  }
  return std::max(0.0, ss / n - (s / n) * (s / n));
}

void check_runs(const Runs& r, const char* what) {
  for (const auto& reps : r)
    for (double x : reps)
      if (!(x > 0) || !std::isfinite(x))
        throw std::invalid_argument(std::string(what) + ": a value that is not a positive number");
}
}  // namespace

Interval bootstrap_interval(const Runs& a, const Runs& b, double alpha, int replicates, uint64_t seed) {
  if (a.size() < 2 || b.size() < 2) throw std::invalid_argument("bootstrap_interval: needs two or more runs per side");
  check_runs(a, "bootstrap_interval");
  check_runs(b, "bootstrap_interval");
  const std::vector<double> va = run_values(a), vb = run_values(b);
  const double ma = mean(va), mb = mean(vb), ca = widen(a.size()), cb = widen(b.size());
  Rng rng(seed);
  std::vector<double> reps(static_cast<size_t>(std::max(replicates, 100))), scratch;
  for (double& rep : reps) {
    double sa = 0, sb = 0;
    for (size_t i = 0; i < a.size(); ++i) sa += draw_run(a[rng.below(a.size())], rng, scratch);
    for (size_t j = 0; j < b.size(); ++j) sb += draw_run(b[rng.below(b.size())], rng, scratch);
    const double da = sa / static_cast<double>(a.size()) - ma, db = sb / static_cast<double>(b.size()) - mb;
    rep = (mb - ma) + cb * db - ca * da;
  }
  std::sort(reps.begin(), reps.end());
  Interval iv;
  iv.method = Method::bootstrap;
  iv.est = mb - ma;
  iv.low = quantile_sorted(reps, alpha / 2);
  iv.high = quantile_sorted(reps, 1 - alpha / 2);
  iv.noise = pooled_noise({va, vb});
  iv.se = iv.noise.sd * std::sqrt(1.0 / static_cast<double>(a.size()) + 1.0 / static_cast<double>(b.size()));
  return iv;
}

Interval t_interval(double est, const Noise& noise, size_t n, size_t m, double alpha, Method method) {
  if (!noise.known()) throw std::invalid_argument("t_interval: no noise estimate");
  Interval iv;
  iv.method = method;
  iv.est = est;
  iv.noise = noise;
  iv.se = noise.sd * std::sqrt(1.0 / static_cast<double>(n) + 1.0 / static_cast<double>(m));
  const double half = student_t_quantile(1 - alpha / 2, noise.df) * iv.se;
  iv.low = est - half;
  iv.high = est + half;
  return iv;
}

// ------------------------------------------------------------------ decisions
const char* to_string(Flag f) {
  return enum_name(f, {{Flag::regression, "regression"},
                       {Flag::improvement, "improvement"},
                       {Flag::no_change, "no_change"},
                       {Flag::unstable, "unstable"},
                       {Flag::cannot_judge, "cannot_judge"}});
}

int runs_needed(double sd, bool paired, const StatOptions& opt) {
  if (!(sd > 0)) return 0;
  const double z = normal_quantile(1 - opt.alpha / 2), thr = std::log1p(opt.threshold_pct / 100);
  const double k = z * sd / thr;
  const double n = paired ? k * k : 2 * k * k;
  if (n >= 1000) return 1000;
  return std::max(2, static_cast<int>(std::ceil(n)));
}

Judgement decide(const Interval& iv, int better, bool paired, const StatOptions& opt) {
  Judgement j;
  j.iv = iv;
  const double dir = better < 0 ? -1.0 : 1.0;
  j.ratio = std::exp(iv.est);
  j.change_pct = 100 * (std::exp(dir * iv.est) - 1);
  if (iv.method == Method::none) {
    j.flag = Flag::cannot_judge;
    return j;
  }
  j.ratio_low = std::exp(iv.low);
  j.ratio_high = std::exp(iv.high);
  // Paired rounds: the spread of a difference of two runs is sqrt(2) times one run's.
  const double run_sd = paired ? iv.noise.sd / std::sqrt(2.0) : iv.noise.sd;
  const double thr = std::log1p(opt.threshold_pct / 100);
  const double min_change = std::max(thr, opt.noise_k * run_sd);
  const double z = normal_quantile(1 - opt.alpha / 2);
  const double resolution = z * iv.se;
  j.noise_pct = 100 * run_sd;
  j.min_change_pct = 100 * (std::exp(min_change) - 1);
  j.resolution_pct = 100 * (std::exp(resolution) - 1);
  const bool excludes_one = iv.low > 0 || iv.high < 0;
  if (excludes_one && std::fabs(iv.est) >= min_change) {
    j.flag = dir * iv.est < 0 ? Flag::regression : Flag::improvement;
  } else if (resolution > thr) {
    j.flag = Flag::unstable;
    j.runs_needed = runs_needed(iv.noise.sd, paired, opt);
  } else {
    j.flag = Flag::no_change;
  }
  return j;
}

namespace {
// A bootstrap interval widened for the few runs behind it: its half-widths scaled by t(df)/z,
// df of the noise the rules use (Hesterberg 2015's expanded percentile interval: a few runs know
// their spread only roughly). `used` becomes the interval's noise.
void widen_to(Interval& iv, const Noise& used, double alpha) {
  if (used.known()) {
    const double k = student_t_quantile(1 - alpha / 2, used.df) / normal_quantile(1 - alpha / 2);
    iv.low = iv.est - k * (iv.est - iv.low);
    iv.high = iv.est + k * (iv.high - iv.est);
  }
  iv.noise = used;
}
}  // namespace

Judgement judge_sides(const Runs& a, const Runs& b, int better, const Noise* profile, const StatOptions& opt,
                      uint64_t seed, const Noise* prior) {
  Judgement none;
  if (a.empty() || b.empty()) {
    none.why = "no runs on one side";
    return none;
  }
  const std::vector<double> va = run_values(a), vb = run_values(b);
  const double est = mean(vb) - mean(va);
  const bool have_profile = profile && profile->known();
  const Noise own = have_profile ? *profile : pooled_noise({va, vb});
  // The noise behind the rules: the profile's (it knows this machine better than a few runs do),
  // else the spread within the sides; either moderated toward the machine's typical noise.
  const Noise noise = moderate(own, prior, opt.prior_runs);
  const double se = noise.sd * std::sqrt(1.0 / static_cast<double>(a.size()) + 1.0 / static_cast<double>(b.size()));
  Interval iv;
  if (a.size() >= 2 && b.size() >= 2) {
    iv = bootstrap_interval(a, b, opt.alpha, opt.bootstrap, seed);
    widen_to(iv, noise, opt.alpha);
    iv.se = se;
  } else if (own.known()) {
    iv = t_interval(est, noise, a.size(), b.size(), opt.alpha, have_profile ? Method::t_profile : Method::t_pooled);
    // A side of one run: that run's own sampling spread is added (the variance of its median
    // over its repetitions, bootstrapped), so that a run whose repetitions scatter is not read
    // as precisely as a steady one.
    double within = 0;
    Rng rng(seed ^ 0x5bd1e995ULL);
    for (const Runs* side : {&a, &b})
      for (const auto& reps : *side)
        within += median_variance(reps, rng) / static_cast<double>(side->size() * side->size());
    const double k = std::sqrt(iv.se * iv.se + within) / iv.se;
    iv.low = est - k * (est - iv.low);
    iv.high = est + k * (iv.high - est);
  } else {
    none.iv.est = est;
    Judgement j = decide(none.iv, better, false, opt);
    j.why =
        "one run per side and no noise profile: the run-to-run noise is unknown, and the repetitions inside a "
        "run cannot stand in for it (they move together with the run's level)";
    return j;
  }
  // p: the t interval's own (inverted); the bootstrap's from the t statistic with the se and df of its
  // widening (a percentile interval of three runs reaches no further than their range: inverted, its
  // tails would make every p large).
  iv.p = iv.method == Method::bootstrap ? (se > 0 ? student_t_two_sided_p(est / se, noise.df) : (est == 0 ? 1.0 : 0.0))
                                        : p_of_interval(iv, opt.alpha);
  Judgement j = decide(iv, better, false, opt);
  if (j.flag == Flag::unstable) j.why = "the run-to-run noise is too large to resolve the threshold with these runs";
  return j;
}

// ------------------------------------------------------------------ change points
namespace {
struct TTest {
  double p = 1, diff = 0, sp = 0, df = 0;
};
TTest pooled_t(const double* a, size_t n, const double* b, size_t m) {
  TTest t;
  if (n == 0 || m == 0) return t;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += a[i];
  for (size_t j = 0; j < m; ++j) mb += b[j];
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(m);
  t.diff = mb - ma;
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (a[i] - ma) * (a[i] - ma);
  for (size_t j = 0; j < m; ++j) ss += (b[j] - mb) * (b[j] - mb);
  t.df = static_cast<double>(n + m) - 2;
  if (t.df < 1) return t;
  t.sp = std::sqrt(ss / t.df);
  if (t.sp == 0) {
    t.p = t.diff == 0 ? 1 : 0;
    return t;
  }
  t.p = student_t_two_sided_p(t.diff / (t.sp * std::sqrt(1.0 / static_cast<double>(n) + 1.0 / static_cast<double>(m))),
                              t.df);
  return t;
}

// The split of x[lo, hi) that maximizes the E-divisive statistic (alpha = 1), or hi when none.
size_t best_split(const std::vector<double>& x, size_t lo, size_t hi, size_t min_seg) {
  const size_t L = hi - lo;
  if (L < 2 * min_seg) return hi;
  // With local indexes: row[a] = sum over i < a, all j of |x_i - x_j| (a prefix of the row sums)
  // and sq[a] = sum over i, j < a of |x_i - x_j|; O(L) memory (a 2D prefix sum of L^2 doubles was
  // 8 MB a call at 1,000 runs, most of history's time in page faults).
  const double* v = x.data() + lo;
  std::vector<double> row(L + 1, 0.0), sq(L + 1, 0.0);
  for (size_t i = 0; i < L; ++i) {
    double all = 0, before = 0;
    for (size_t j = 0; j < L; ++j) {
      const double d = std::fabs(v[i] - v[j]);
      all += d;
      if (j < i) before += d;
    }
    row[i + 1] = row[i] + all;
    sq[i + 1] = sq[i] + 2 * before;
  }
  size_t best = hi;
  double best_q = -std::numeric_limits<double>::infinity();
  for (size_t tau = min_seg; tau + min_seg <= L; ++tau) {
    const double n = static_cast<double>(tau), m = static_cast<double>(L - tau);
    const double between = row[tau] - sq[tau];
    const double within_left = sq[tau] / 2;
    const double within_right = (sq[L] - 2 * row[tau] + sq[tau]) / 2;
    double e = 2 * between / (n * m);
    if (n > 1) e -= within_left / (n * (n - 1) / 2);
    if (m > 1) e -= within_right / (m * (m - 1) / 2);
    const double q = n * m / (n + m) * e;
    if (q > best_q + 1e-15) {
      best_q = q;
      best = lo + tau;
    }
  }
  return best;
}

bool significant(const TTest& t, double alpha, double min_change, double noise_k) {
  return t.p < alpha && std::fabs(t.diff) >= std::max(min_change, noise_k * t.sp);
}

// Candidates: binary segmentation at the E-divisive maximum while the split's t-test is at least
// weakly significant (p < kCandidateP), as Otava first finds weak change points and then prunes them.
constexpr double kCandidateP = 0.1;
void candidates(const std::vector<double>& x, size_t lo, size_t hi, size_t min_seg, std::vector<size_t>& out) {
  const size_t tau = best_split(x, lo, hi, min_seg);
  if (tau >= hi) return;
  if (pooled_t(&x[lo], tau - lo, &x[tau], hi - tau).p >= kCandidateP) return;
  out.push_back(tau);
  candidates(x, lo, tau, min_seg, out);
  candidates(x, tau, hi, min_seg, out);
}

TTest around(const std::vector<double>& x, const std::vector<size_t>& cps, size_t k) {
  const size_t lo = k ? cps[k - 1] : 0, hi = k + 1 < cps.size() ? cps[k + 1] : x.size();
  return pooled_t(&x[lo], cps[k] - lo, &x[cps[k]], hi - cps[k]);
}
}  // namespace

double t_test_p(const std::vector<double>& a, const std::vector<double>& b) {
  return pooled_t(a.data(), a.size(), b.data(), b.size()).p;
}

std::vector<ChangePoint> change_points(const std::vector<double>& x, double alpha, double min_change, double noise_k,
                                       size_t min_segment) {
  min_segment = std::max<size_t>(min_segment, 1);
  std::vector<size_t> cps;
  candidates(x, 0, x.size(), min_segment, cps);
  std::sort(cps.begin(), cps.end());
  // Prune: each candidate tested between its neighbours; the weakest one that does not stand (the
  // largest p, then the smallest change) is dropped, and the rest tested again, until all stand.
  while (!cps.empty()) {
    size_t weakest = cps.size();
    double worst_p = -1, worst_diff = 0;
    for (size_t k = 0; k < cps.size(); ++k) {
      const TTest t = around(x, cps, k);
      if (significant(t, alpha, min_change, noise_k)) continue;
      if (t.p > worst_p || (t.p == worst_p && std::fabs(t.diff) < worst_diff)) {
        weakest = k;
        worst_p = t.p;
        worst_diff = std::fabs(t.diff);
      }
    }
    if (weakest == cps.size()) break;
    cps.erase(cps.begin() + static_cast<long>(weakest));
  }
  std::vector<ChangePoint> out;
  for (size_t k = 0; k < cps.size(); ++k) {
    const TTest t = around(x, cps, k);
    const size_t lo = k ? cps[k - 1] : 0, hi = k + 1 < cps.size() ? cps[k + 1] : x.size(), tau = cps[k];
    ChangePoint c;
    c.index = tau;
    c.n_before = tau - lo;
    c.n_after = hi - tau;
    c.before = std::accumulate(x.begin() + static_cast<long>(lo), x.begin() + static_cast<long>(tau), 0.0) /
               static_cast<double>(c.n_before);
    c.after = c.before + t.diff;
    c.p = t.p;
    const double half = student_t_quantile(1 - alpha / 2, t.df) * t.sp *
                        std::sqrt(1.0 / static_cast<double>(c.n_before) + 1.0 / static_cast<double>(c.n_after));
    c.low = t.diff - half;
    c.high = t.diff + half;
    out.push_back(c);
  }
  return out;
}

}  // namespace rigcheck
