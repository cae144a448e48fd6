// Interleaved rounds judged by Rosner's outlier test then Student's t on the rounds kept, at a level
// calibrated by simulation for each number of rounds; the p-value of any interval; Holm's step-down
// for the gate. See statistics.hpp and docs/methodology.md, "Comparing runs: the statistics".
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>

#include "rigcheck/compare/statistics.hpp"

namespace rigcheck {

namespace {
// The levels at which the null distribution of the kept rounds' raw p is tabulated; the
// calibrated p between them is interpolated on log-log scales.
constexpr std::array<double, 12> kLevels = {0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 5e-4, 2e-4, 1e-4};

// Rosner's critical values lambda_i, i = 1..r, for n values (Rosner 1983, eq. 2.5).
std::vector<double> esd_critical(size_t n) {
  std::vector<double> lambda;
  const double nn = static_cast<double>(n);
  for (size_t i = 1; i <= esd_max_set_aside(n); ++i) {
    const double ii = static_cast<double>(i);
    const double p = 1 - kEsdAlpha / (2 * (nn - ii + 1));
    const double t = student_t_quantile(p, nn - ii - 1);
    lambda.push_back((nn - ii) * t / std::sqrt((nn - ii - 1 + t * t) * (nn - ii + 1)));
  }
  return lambda;
}

// The rounds Rosner's generalized ESD sets aside (positions in d, most extreme first).
std::vector<size_t> esd_outliers(const std::vector<double>& d, const std::vector<double>& lambda) {
  std::vector<size_t> at(d.size()), out;
  std::iota(at.begin(), at.end(), 0);
  size_t found = 0;
  for (size_t i = 1; i <= lambda.size() && at.size() > 2; ++i) {
    double mean = 0, ss = 0;
    for (size_t k : at) mean += d[k];
    mean /= static_cast<double>(at.size());
    for (size_t k : at) ss += (d[k] - mean) * (d[k] - mean);
    const double sd = std::sqrt(ss / static_cast<double>(at.size() - 1));
    size_t far = 0;
    for (size_t j = 1; j < at.size(); ++j)
      if (std::fabs(d[at[j]] - mean) > std::fabs(d[at[far]] - mean)) far = j;
    if (sd > 0 && std::fabs(d[at[far]] - mean) / sd > lambda[i - 1]) found = i;
    out.push_back(at[far]);
    at.erase(at.begin() + static_cast<long>(far));
  }
  out.resize(found);
  return out;
}

// Student's t of the mean of the rounds not set aside.
struct KeptT {
  double est = 0, se = 0, df = 0, p = 1;
  size_t kept = 0;
};
KeptT kept_t(const std::vector<double>& d, const std::vector<size_t>& aside) {
  std::vector<bool> out(d.size(), false);
  for (size_t k : aside) out[k] = true;
  std::vector<double> kept;
  for (size_t k = 0; k < d.size(); ++k)
    if (!out[k]) kept.push_back(d[k]);
  const Noise spread = noise_of(kept);
  KeptT t;
  t.kept = kept.size();
  t.est = std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(t.kept);
  t.df = spread.df;
  t.se = spread.sd / std::sqrt(static_cast<double>(t.kept));
  t.p = t.se > 0 ? student_t_two_sided_p(t.est / t.se, t.df) : (t.est == 0 ? 1 : 0);
  return t;
}

// For n rounds: Rosner's critical values, and u[j], the kLevels[j]-quantile of the kept rounds'
// raw p when the d_r are independent normal with no change and no slow round, from
// kCalibrationDraws draws of the seeded generator (the same table on every machine).
struct Calibration {
  std::vector<double> lambda;
  std::array<double, kLevels.size()> u{};
};
const Calibration& calibration(size_t n) {
  static std::mutex lock;
  static std::map<size_t, std::unique_ptr<const Calibration>> made;
  std::lock_guard<std::mutex> hold(lock);
  auto& c = made[n];
  if (!c) {
    auto m = std::make_unique<Calibration>();
    m->lambda = esd_critical(n);
    Rng rng(seed_for("paired-calibration", n));
    std::vector<double> d(n), ps(kCalibrationDraws);
    for (double& p : ps) {
      for (double& v : d) v = rng.normal();
      p = kept_t(d, esd_outliers(d, m->lambda)).p;
    }
    std::sort(ps.begin(), ps.end());
    for (size_t j = 0; j < kLevels.size(); ++j) m->u[j] = ps[static_cast<size_t>(kLevels[j] * kCalibrationDraws)];
    c = std::move(m);
  }
  return *c;
}

// The piecewise log-log line through (1, 1) and (u_j, kLevels[j]), extended below the last point
// along its last piece: y of x, or (inverse) x of y.
double loglog(const Calibration& c, double v, bool inverse) {
  std::array<double, kLevels.size() + 1> xs{}, ys{};
  xs[0] = ys[0] = 1;
  for (size_t j = 0; j < kLevels.size(); ++j) xs[j + 1] = c.u[j], ys[j + 1] = kLevels[j];
  const auto& from = inverse ? ys : xs;
  const auto& to = inverse ? xs : ys;
  if (!(v > 0)) return 0;
  if (v >= 1) return 1;
  size_t j = 1;
  while (j + 1 < from.size() && v < from[j]) ++j;
  const double span = std::log(from[j - 1] / from[j]);
  if (!(span > 0)) return to[j];
  const double t = std::log(v / from[j]) / span;
  return std::exp(std::log(to[j]) + t * std::log(to[j - 1] / to[j]));
}
}  // namespace

std::vector<double> paired_diffs(const Runs& a, const Runs& b) {
  if (a.size() != b.size()) throw std::invalid_argument("paired_diffs: the sides have different numbers of rounds");
  std::vector<double> d(a.size());
  for (size_t r = 0; r < a.size(); ++r) d[r] = round_value(b[r]) - round_value(a[r]);
  return d;
}

size_t esd_max_set_aside(size_t n) { return std::max<size_t>(1, n / 4); }

std::vector<size_t> slow_rounds(const std::vector<double>& d) {
  if (d.size() < kEsdMinRounds) return {};
  std::vector<size_t> out = esd_outliers(d, calibration(d.size()).lambda);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {
// The note of slow_rounds_note for the rounds `at` (ascending) of `rounds`.
std::string note_of(const std::vector<size_t>& at, size_t rounds) {
  if (at.empty()) return "";
  std::string places;
  for (size_t i = 0; i < at.size(); ++i) places += (i ? " and " : "") + std::to_string(at[i] + 1);
  return "round" + std::string(at.size() > 1 ? "s " : " ") + places + " of " + std::to_string(rounds) +
         " set aside as slow (Rosner's test)";
}
}  // namespace

std::string slow_rounds_note(const std::vector<double>& d) { return note_of(slow_rounds(d), d.size()); }

double paired_level(size_t rounds, double alpha) {
  return rounds < kEsdMinRounds ? alpha : loglog(calibration(rounds), alpha, true);
}

double paired_p(size_t rounds, double raw_p) {
  return rounds < kEsdMinRounds ? raw_p : loglog(calibration(rounds), raw_p, false);
}

double p_of_interval(const Interval& iv, double alpha) {
  if (iv.method == Method::none) return 1;
  const double half = iv.est >= 0 ? iv.est - iv.low : iv.high - iv.est;
  if (!(half > 0)) return iv.est == 0 ? 1 : 0;
  const double q = student_t_quantile(1 - alpha / 2, iv.noise.df);
  return student_t_two_sided_p(iv.est / (half / q), iv.noise.df);
}

std::vector<bool> holm(const std::vector<double>& p, double level) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return p[i] < p[j]; });
  std::vector<bool> out(p.size(), false);
  const size_t m = p.size();
  for (size_t k = 0; k < m; ++k) {
    if (!(p[order[k]] <= level / static_cast<double>(m - k))) break;
    out[order[k]] = true;
  }
  return out;
}

namespace {
// paired_interval of the d_r with the rounds `aside` set aside.
Interval interval_of(const std::vector<double>& d, const std::vector<size_t>& aside, double alpha) {
  const KeptT t = kept_t(d, aside);
  Interval iv;
  iv.method = Method::paired;
  iv.est = t.est;
  // The interval at the calibrated level; its se is the one that gives the same interval at the
  // nominal level, so that the noise rules and p_of_interval read it as any other.
  const double half = student_t_quantile(1 - paired_level(d.size(), alpha) / 2, t.df) * t.se;
  iv.se = half / student_t_quantile(1 - alpha / 2, t.df);
  iv.noise.sd = iv.se * std::sqrt(static_cast<double>(t.kept));
  iv.noise.df = t.df;
  iv.noise.runs = static_cast<int>(d.size());
  iv.low = t.est - half;
  iv.high = t.est + half;
  iv.p = paired_p(d.size(), t.p);
  return iv;
}
}  // namespace

Interval paired_interval(const Runs& a, const Runs& b, double alpha) {
  if (a.size() != b.size() || a.size() < 2)
    throw std::invalid_argument("paired_interval: needs two or more rounds of both sides");
  const std::vector<double> d = paired_diffs(a, b);
  return interval_of(d, slow_rounds(d), alpha);
}

Judgement judge_paired(const Runs& a, const Runs& b, int better, const StatOptions& opt) {
  if (a.size() != b.size() || a.size() < 2) {
    Judgement j;
    j.why = "interleaved A/B needs two or more complete rounds";
    return j;
  }
  const std::vector<double> d = paired_diffs(a, b);
  const std::vector<size_t> slow = slow_rounds(d);
  Judgement j = decide(interval_of(d, slow, opt.alpha), better, true, opt);
  if (j.flag == Flag::unstable)
    j.why = "the round-to-round noise is too large to resolve the threshold with these rounds";
  // The rounds set aside go with the why (findings put it first in the case's note).
  const std::string aside = note_of(slow, d.size());
  if (!aside.empty()) j.why += (j.why.empty() ? "" : "; ") + aside;
  return j;
}

}  // namespace rigcheck
