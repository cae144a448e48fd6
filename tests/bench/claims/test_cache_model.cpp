// bench/claims/src/cache_model.cpp: the L3 working-set analysis (the knee of a curve, log-log
// interpolation, the emulated gain of a larger cache).
#include <gtest/gtest.h>

#include <vector>

#include "rigcheck/claims/cache_model.hpp"

using namespace rigcheck;

namespace {
// A curve with a cache plateau at `fast` up to `knee` bytes and a memory plateau at `slow` beyond.
std::vector<CurvePoint> step_curve(double knee, double fast, double slow) {
  std::vector<CurvePoint> c;
  for (double mib : {1, 2, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256}) {
    double b = mib * 1048576, r = b <= knee ? fast : slow;
    c.push_back({b, r, 0.95 * r, 1.05 * r});
  }
  return c;
}
}  // namespace

TEST(CacheModel, KneeOfAStepCurve) {
  Knee k = find_knee(step_curve(8 * 1048576.0, 40, 10));
  ASSERT_TRUE(k.found) << k.why;
  EXPECT_DOUBLE_EQ(k.below, 8 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.above, 12 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.memory_rate, 10);
  EXPECT_DOUBLE_EQ(k.cache_rate, 40);
}

TEST(CacheModel, NoKneeWithoutACacheEffectOrPastTheCurve) {
  EXPECT_FALSE(find_knee(step_curve(8 * 1048576.0, 12, 10)).found);  // 1.2x: within noise of memory
  auto c = step_curve(128 * 1048576.0, 40, 10);                      // knee at the curve's end
  EXPECT_FALSE(find_knee(c).found);
  EXPECT_FALSE(find_knee({{1, 1, 1, 1}, {2, 1, 1, 1}}).found);
}

TEST(CacheModel, LogLogInterpolation) {
  std::vector<CurvePoint> c = {{1, 100, 90, 110}, {4, 25, 20, 30}};
  bool in = false;
  EXPECT_NEAR(curve_rate(c, 2, 0, in), 50, 1e-9);  // power law between the points
  EXPECT_TRUE(in);
  EXPECT_NEAR(curve_rate(c, 8, 0, in), 25, 1e-9);
  EXPECT_FALSE(in);
}

TEST(CacheModel, EmulatedGainScalesTheWorkingSet) {
  // Effective cache 8 MiB; a 24 MiB layer misses a 16 MiB cache (24 * 8/16 = 12 MiB on the curve,
  // memory) and fits a 32 MiB one (24 * 8/32 = 6 MiB, cache): 40/10 - 1 = +300%.
  auto c = step_curve(8 * 1048576.0, 40, 10);
  EmulatedGain g = emulate_cache_gain(c, 24 * 1048576.0, 8 * 1048576.0, 16 * 1048576.0, 32 * 1048576.0, 0, 0);
  EXPECT_TRUE(g.in_range);
  EXPECT_NEAR(g.gain, 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(g.w_small, 12 * 1048576.0);
  // A 128 MiB layer misses both: no gain.
  EXPECT_NEAR(emulate_cache_gain(c, 128 * 1048576.0, 8 * 1048576.0, 16 * 1048576.0, 32 * 1048576.0, 0, 0).gain, 0,
              1e-9);
}

// One working set thrown off by a disturbance (a fast reading past the cache, a slow one
// inside it) moved the knee or hid it; the running median of 3 sizes keeps it where the step is.
TEST(CacheModel, OneDisturbedSizeDoesNotMoveTheKnee) {
  auto c = step_curve(8 * 1048576.0, 40, 10);
  for (auto& p : c)
    if (p.bytes == 24 * 1048576.0) p.median = 40;  // past the knee, read as fast as the cache
  for (auto& p : c)
    if (p.bytes == 4 * 1048576.0) p.median = 9;  // inside the cache, read as slow as memory
  Knee k = find_knee(c);
  ASSERT_TRUE(k.found) << k.why;
  EXPECT_DOUBLE_EQ(k.below, 8 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.above, 12 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.cache_rate, 40);
}

// A knee on a rising cache plateau (small working sets pay the call's fixed cost) and a gradual
// fall, as measured on the 2-core VM: the knee is where the curve crosses the plateaus' middle.
TEST(CacheModel, KneeOfAMeasuredShape) {
  // tests/fixtures/runs/quick_vm, batch 1 GB/s medians (MiB: GB/s)
  const std::vector<std::pair<double, double>> m = {{3, 90},   {4, 95},   {6, 111},  {8, 113},  {10, 120},
                                                    {12, 119}, {16, 117}, {24, 117}, {32, 111}, {48, 78},
                                                    {64, 75},  {128, 65}, {256, 60}};
  std::vector<CurvePoint> c;
  for (auto [mib, r] : m) c.push_back({mib * 1048576, r, r, r});
  Knee k = find_knee(c);
  ASSERT_TRUE(k.found) << k.why;
  EXPECT_DOUBLE_EQ(k.below, 32 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.above, 48 * 1048576.0);
  EXPECT_DOUBLE_EQ(k.memory_rate, 65);
  EXPECT_DOUBLE_EQ(k.cache_rate, 119);  // the smoothed peak (120 at 10 MiB alone is not it)
}

// The crossing point: log-interpolated between the two sizes that bracket the knee, so that a run
// whose transition size reads a few percent higher moves it a little, not by a whole step.
TEST(CacheModel, CrossingPointMovesLittleWithTheTransitionSize) {
  auto shape = [](double at24) {
    std::vector<CurvePoint> c;
    for (auto [mib, r] : std::vector<std::pair<double, double>>{{1, 87},
                                                                {2, 86},
                                                                {3, 87},
                                                                {4, 87},
                                                                {6, 87},
                                                                {8, 87},
                                                                {12, 86},
                                                                {16, 84},
                                                                {24, at24},
                                                                {32, 54},
                                                                {48, 52},
                                                                {64, 50},
                                                                {128, 43},
                                                                {256, 37}})
      c.push_back({mib * 1048576, r, r, r});
    return find_knee(c);
  };
  Knee a = shape(63), b = shape(67);  // 24 MiB just under, then just over the middle (65)
  ASSERT_TRUE(a.found && b.found);
  EXPECT_DOUBLE_EQ(a.below, 16 * 1048576.0);
  EXPECT_DOUBLE_EQ(b.below, 24 * 1048576.0);  // the bracketing step moves...
  EXPECT_GT(a.at, a.below);
  EXPECT_LT(a.at, a.above);
  EXPECT_NEAR(b.at / a.at, 1.0, 0.12);  // ...the crossing point hardly
}
