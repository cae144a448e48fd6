// How much a case's noise is moderated toward the machine's: the prior's degrees of freedom d0
// estimated from the cases' own spreads (Smyth 2004, sec. 6.2, as limma's fitFDist). See
// statistics.hpp (prior_df) and docs/methodology.md.
#include <cmath>
#include <limits>
#include <vector>

#include "rigcheck/compare/statistics.hpp"

namespace rigcheck {

namespace {
// Recurrence up to x >= 6, then the asymptotic series (Abramowitz & Stegun 6.3.18, 6.4.12).
double digamma(double x) {
  double r = 0;
  for (; x < 6; x += 1) r -= 1 / x;
  const double f = 1 / (x * x);
  return r + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double trigamma(double x) {
  double r = 0;
  for (; x < 6; x += 1) r += 1 / (x * x);
  const double t = 1 / x, f = t * t;
  return r + t + f / 2 + t * f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f / 30)));
}

// x with trigamma(x) = y (trigamma decreases from infinity to 0): bisection on the log scale.
double trigamma_inverse(double y) {
  double lo = 1e-8, hi = 1e8;
  for (int i = 0; i < 200; ++i) {
    const double mid = std::sqrt(lo * hi);
    (trigamma(mid) > y ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}
}  // namespace

double prior_df(const std::vector<Noise>& ns) {
  std::vector<double> e, tg;
  for (const Noise& n : ns) {
    if (!(n.df > 0) || !(n.sd > 0)) continue;
    const double half = n.df / 2;
    e.push_back(std::log(n.sd * n.sd) - digamma(half) + std::log(half));
    tg.push_back(trigamma(half));
  }
  if (e.size() < 3) return std::numeric_limits<double>::infinity();
  double mean = 0, mean_tg = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    mean += e[i];
    mean_tg += tg[i];
  }
  mean /= static_cast<double>(e.size());
  mean_tg /= static_cast<double>(e.size());
  double ss = 0;
  for (double x : e) ss += (x - mean) * (x - mean);
  const double excess = ss / static_cast<double>(e.size() - 1) - mean_tg;
  if (!(excess > 0)) return std::numeric_limits<double>::infinity();
  return 2 * trigamma_inverse(excess);
}

}  // namespace rigcheck
