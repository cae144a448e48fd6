// Interleaved rounds judged by Yuen's trimmed-mean t on the per-round log ratios; the p-value of
// any interval; Holm's step-down for the gate. See statistics.hpp and docs/methodology.md,
// "Comparing runs: the statistics".
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "rigcheck/compare/statistics.hpp"

namespace rigcheck {

TrimmedT trimmed_t(std::vector<double> x, double trim) {
  const size_t n = x.size();
  if (n < 2) throw std::invalid_argument("trimmed_t: needs two or more values");
  std::sort(x.begin(), x.end());
  size_t g = static_cast<size_t>(std::floor(trim * static_cast<double>(n)));
  while (g > 0 && n - 2 * g < 2) --g;
  const size_t h = n - 2 * g;
  TrimmedT t;
  t.trimmed = static_cast<int>(g);
  t.est = std::accumulate(x.begin() + static_cast<long>(g), x.end() - static_cast<long>(g), 0.0) / static_cast<double>(h);
  // The winsorized sample: each trimmed value replaced by the nearest value kept.
  std::vector<double> w = x;
  for (size_t i = 0; i < g; ++i) {
    w[i] = x[g];
    w[n - 1 - i] = x[n - 1 - g];
  }
  const double mw = std::accumulate(w.begin(), w.end(), 0.0) / static_cast<double>(n);
  double ss = 0;
  for (double v : w) ss += (v - mw) * (v - mw);
  // (n - 1) s_w^2 / (h (h - 1)) with s_w^2 = ss / (n - 1)
  t.se = std::sqrt(ss / (static_cast<double>(h) * static_cast<double>(h - 1)));
  t.df = static_cast<double>(h - 1);
  if (t.se > 0) t.p = student_t_two_sided_p(t.est / t.se, t.df);
  else t.p = t.est == 0 ? 1 : 0;
  return t;
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

Interval paired_interval(const Runs& a, const Runs& b, double alpha) {
  if (a.size() != b.size() || a.size() < 2) throw std::invalid_argument("paired_interval: needs two or more rounds of both sides");
  std::vector<double> d(a.size());
  for (size_t r = 0; r < a.size(); ++r) d[r] = round_value(b[r]) - round_value(a[r]);
  const TrimmedT t = trimmed_t(d);
  Interval iv;
  iv.method = Method::paired;
  iv.est = t.est;
  iv.se = t.se;
  iv.noise.sd = t.se * std::sqrt(static_cast<double>(d.size()));
  iv.noise.df = t.df;
  iv.noise.runs = static_cast<int>(d.size());
  const double half = student_t_quantile(1 - alpha / 2, t.df) * t.se;
  iv.low = t.est - half;
  iv.high = t.est + half;
  iv.p = t.p;
  return iv;
}

Judgement judge_paired(const Runs& a, const Runs& b, int better, const StatOptions& opt) {
  if (a.size() != b.size() || a.size() < 2) {
    Judgement j;
    j.why = "interleaved A/B needs two or more complete rounds";
    return j;
  }
  Judgement j = decide(paired_interval(a, b, opt.alpha), better, true, opt);
  if (j.flag == Flag::unstable) j.why = "the round-to-round noise is too large to resolve the threshold with these rounds";
  return j;
}

}  // namespace rigcheck
