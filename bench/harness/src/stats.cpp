#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/repetitions.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace rigcheck {

static void check_sample(const std::vector<double>& v) {
  if (v.empty()) throw std::invalid_argument("statistics of an empty sample");
  for (double x : v)
    if (!std::isfinite(x)) throw std::invalid_argument("statistics of a non-finite value");
}

double quantile(std::vector<double> v, double q) {
  check_sample(v);
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  const size_t n = v.size(), h = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(h), v.end());
  if (n % 2) return v[h];
  const double upper = v[h];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<long>(h));
  return (lower + upper) / 2;
}

double median_of(std::vector<double> v) { return median_in_place(v); }

Summary summarize(std::vector<double> v) {
  check_sample(v);
  Summary s;
  s.n = v.size();
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = quantile(v, 0.5);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
  s.spread = s.median != 0 ? (s.max - s.min) / std::fabs(s.median) : 0;
  return s;
}

double relative_iqr(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double m = median(values);
  return m != 0 ? (quantile(values, 0.75) - quantile(values, 0.25)) / std::fabs(m) : 0;
}

double amdahl_speedup(double p, double n) { return 1.0 / ((1.0 - p) + p / n); }

double amdahl_fit(const std::vector<std::pair<double, double>>& pts) {
  double sxy = 0, sxx = 0;
  for (auto [n, speedup] : pts) {
    if (n < 2 || !(speedup > 0) || !std::isfinite(speedup)) continue;
    double x = 1.0 - 1.0 / n;
    double y = 1.0 - 1.0 / speedup;
    sxy += x * y;
    sxx += x * x;
  }
  if (sxx == 0) throw std::invalid_argument("Amdahl fit needs a speedup measured at 2 or more threads");
  return std::clamp(sxy / sxx, 0.0, 1.0);
}

}  // namespace rigcheck
