#include "rigcheck/claims/cache_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

Knee find_knee(std::vector<CurvePoint> curve, double ratio) {
  Knee k;
  std::sort(curve.begin(), curve.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.bytes < b.bytes; });
  if (curve.size() < 5) {
    k.why = fmt::format("needs at least 5 working-set sizes, has {}", curve.size());
    return k;
  }
  const size_t n = curve.size();
  // Each size's median, then a running median of 3 neighbouring sizes: one size thrown off by a
  // disturbance (up or down) cannot move the knee; a real step survives it unchanged.
  std::vector<double> s(n);
  for (size_t i = 0; i < n; ++i)
    s[i] = i + 1 == n ? curve[i].median
           : i == 0   ? median({curve[0].median, curve[1].median, curve[2].median})
                      : median({curve[i - 1].median, curve[i].median, curve[i + 1].median});
  k.memory_rate = median({curve[n - 1].median, curve[n - 2].median, curve[n - 3].median});
  k.cache_rate = *std::max_element(s.begin(), s.end() - 3);
  if (!(k.cache_rate >= ratio * k.memory_rate)) {
    k.why =
        fmt::format("no working set ran at {:.1f}x the memory plateau ({:.3g}; best {:.3g}): no cache effect visible",
                    ratio, k.memory_rate, k.cache_rate);
    return k;
  }
  // The knee: where the smoothed curve last stands above the middle of the two plateaus (the
  // arithmetic middle: past the knee the curve keeps falling slowly, TLB reach ending too, and a
  // lower, geometric, threshold would let the first working set past the cache count as fast).
  const double mid = (k.cache_rate + k.memory_rate) / 2;
  long last_fast = -1;
  for (size_t i = 0; i + 3 < n; ++i)
    if (s[i] >= mid) last_fast = static_cast<long>(i);
  const size_t i = static_cast<size_t>(last_fast);
  k.below = curve[i].bytes;
  k.above = curve[i + 1].bytes;
  const double t = s[i] > s[i + 1] ? std::clamp((s[i] - mid) / (s[i] - s[i + 1]), 0.0, 1.0) : 0.0;
  k.at = std::exp(std::log(k.below) + t * (std::log(k.above) - std::log(k.below)));
  if (curve[n - 1].bytes < 4 * k.above) {
    k.why =
        fmt::format("the largest working set ({:.0f} MiB) is under 4x the knee: the curve may not have reached memory",
                    curve[n - 1].bytes / 1048576);
    return k;
  }
  k.found = true;
  k.why = fmt::format(
      "cache plateau {:.3g}, memory plateau {:.3g} (median of the 3 largest); the curve (median of 3 "
      "neighbouring sizes) last at or above their middle {:.3g} at {:.3g} MiB; next measured: "
      "{:.3g} MiB; crossing it near {:.3g} MiB",
      k.cache_rate, k.memory_rate, mid, k.below / 1048576, k.above / 1048576, k.at / 1048576);
  return k;
}

double curve_rate(const std::vector<CurvePoint>& curve, double bytes, int which, bool& in_range) {
  auto rate = [which](const CurvePoint& p) { return which < 0 ? p.low : which > 0 ? p.high : p.median; };
  in_range = !curve.empty() && bytes >= curve.front().bytes && bytes <= curve.back().bytes;
  if (curve.empty()) return NAN;
  if (bytes <= curve.front().bytes) return rate(curve.front());
  if (bytes >= curve.back().bytes) return rate(curve.back());
  for (size_t i = 0; i + 1 < curve.size(); ++i) {
    const CurvePoint &a = curve[i], &b = curve[i + 1];
    if (bytes >= a.bytes && bytes <= b.bytes) {
      double t = (std::log(bytes) - std::log(a.bytes)) / (std::log(b.bytes) - std::log(a.bytes));
      return std::exp((1 - t) * std::log(rate(a)) + t * std::log(rate(b)));
    }
  }
  return rate(curve.back());
}

EmulatedGain emulate_cache_gain(const std::vector<CurvePoint>& curve, double w, double c_eff, double c_small,
                                double c_big, int which_small, int which_big) {
  EmulatedGain g;
  g.w_small = w * c_eff / c_small;
  g.w_big = w * c_eff / c_big;
  bool in1 = false, in2 = false;
  double x_small = curve_rate(curve, g.w_small, which_small, in1);
  double x_big = curve_rate(curve, g.w_big, which_big, in2);
  g.in_range = in1 && in2;
  g.gain = x_big / x_small - 1;
  return g;
}

}  // namespace rigcheck
