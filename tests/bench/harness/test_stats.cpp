// bench/harness/src/stats.cpp: the summary of a sample, and the Amdahl fit.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/units.hpp"

using namespace rigcheck;

TEST(Stats, SummaryOfKnownSample) {
  Summary s = summarize({4, 1, 3, 2, 100});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 22);
  EXPECT_NEAR(s.stddev, 43.6176, 1e-3);
  EXPECT_DOUBLE_EQ(s.spread, 33);
  EXPECT_DOUBLE_EQ(median({1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1, NAN}), std::invalid_argument);
}

TEST(Stats, AmdahlFitRecoversTheParallelFraction) {
  for (double p : {0.5, 0.9, 0.99}) {
    std::vector<std::pair<double, double>> pts;
    for (double n : {1.0, 2.0, 4.0}) pts.push_back({n, amdahl_speedup(p, n)});
    EXPECT_NEAR(amdahl_fit(pts), p, 1e-12);
  }
  // Two threads only, as on a 2-core machine: E(2) = 95% -> S(2) = 1.9 -> p = 2(1 - 1/1.9).
  double p = amdahl_fit({{1, 1.0}, {2, 1.9}});
  EXPECT_NEAR(p, 2 * (1 - 1 / 1.9), 1e-12);
  EXPECT_NEAR(amdahl_speedup(p, 8) / 8, 1 / (8 * (1 - p) + p), 1e-12);
  EXPECT_NEAR(amdahl_speedup(p, 8) / 8, 0.7308, 1e-4);
  EXPECT_DOUBLE_EQ(amdahl_fit({{2, 2.5}}), 1.0);  // superlinear clamps to 1
  EXPECT_THROW(amdahl_fit({{1, 1.0}}), std::invalid_argument);
}

// median_of (the tool's medians): the middle value or the mean of the two middle ones, in any
// order, NaN for an empty sample; median_in_place the same on the caller's vector.
TEST(Stats, MedianOfMiddleValuesAndEmpty) {
  EXPECT_EQ(median_of({5, 1, 3}), 3);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({0.1, 0.7}), (0.1 + 0.7) / 2);  // the midpoint, not 0.1 + (0.7 - 0.1) / 2
  EXPECT_TRUE(std::isnan(median_of({})));
  std::vector<double> v = {9, 8, 7, 6, 5, 4};
  EXPECT_EQ(median_in_place(v), 6.5);
  EXPECT_EQ(v.size(), 6u);
}

TEST(Units, GibHasTwoDecimalsAndADashForNaN) {
  EXPECT_EQ(gib(3.43 * kGiB), "3.43 GiB");
  EXPECT_EQ(gib(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
  EXPECT_EQ(gib(std::nan("")), "-");
}
