// Statistics over repetitions. Robust ones first: the median is what the suite reports.
#pragma once
#include <cstddef>
#include <vector>

namespace rigcheck {

struct Summary {
  size_t n = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 when n < 2
  double cv = 0;      // stddev / mean
  double spread = 0;  // (max - min) / median: the relative range the report prints
};

// Throws std::invalid_argument on an empty sample or a non-finite value.
Summary summarize(std::vector<double> values);
double median(std::vector<double> values);
// The middle value of a sample, the mean of the two middle ones for an even count; NaN for an
// empty sample. Unlike median() it neither throws nor interpolates: the tool's medians of medians,
// of peaks and of bootstrap draws. median_in_place reorders v (no copy, for resampling loops).
double median_in_place(std::vector<double>& v);
double median_of(std::vector<double> v);
// Linear-interpolation quantile, q in [0,1].
double quantile(std::vector<double> values, double q);

// Amdahl's law: speedup S(n) = 1 / ((1 - p) + p / n). Least-squares fit of the parallel
// fraction p from measured (n, S(n)) pairs with n >= 2, using 1 - 1/S = p (1 - 1/n).
// Result clamped to [0, 1]. Throws std::invalid_argument without a usable point.
double amdahl_fit(const std::vector<std::pair<double, double>>& threads_speedup);
double amdahl_speedup(double p, double n);

}  // namespace rigcheck
