// Memory area: plateau detection on synthetic latency curves, the random cycle, the buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "memutil.hpp"

using namespace rigcheck::mem;

namespace {

// A curve 4 KiB .. `largest`, `per_octave` points per octave, latency from f(bytes).
template <class F>
std::vector<CurvePoint> curve(F f, double largest = 1 << 30, int per_octave = 2) {
  std::vector<CurvePoint> c;
  for (int k = 0;; ++k) {
    const double b = 4096 * std::pow(2.0, double(k) / per_octave);
    if (b > largest * 1.0001) break;
    c.push_back({b, f(b)});
  }
  return c;
}

constexpr double KiB = 1024, MiB = 1048576;

// Shaped like the Zen 5 VM (docs/machines.md): 1.2 ns to 32 KiB, ~5 ns to 768 KiB, ~17 ns to 8 MiB,
// then DRAM rising from 110 ns to ~420 ns at 1 GiB (TLB misses grow with the buffer), with
// transitional points between levels.
double zen5(double b) {
  if (b <= 32 * KiB) return 1.2;
  if (b <= 48 * KiB) return 2.6;  // transition
  if (b <= 768 * KiB) return 4.0 + 2.0 * std::log2(b / (64 * KiB)) / std::log2(12.0);
  if (b <= 1.1 * MiB) return 9.0;  // transition
  if (b <= 8 * MiB) return 15 + 2 * std::log2(b / (2 * MiB));
  if (b <= 12 * MiB) return 60;  // transition
  return 110 * std::pow(b / (16 * MiB), 0.22);
}

// The level is `name`, its size in [lo, hi] bytes and its latency in (lat_lo, lat_hi) ns.
void expect_level(const Level& l, const char* name, double lo, double hi, double lat_lo, double lat_hi) {
  EXPECT_EQ(l.name, name);
  EXPECT_GE(l.size_bytes, lo) << name;
  EXPECT_LE(l.size_bytes, hi) << name;
  EXPECT_GT(l.latency_ns, lat_lo) << name;
  EXPECT_LT(l.latency_ns, lat_hi) << name;
}

TEST(Plateaus, FindsL1L2L3AndDramOfAZen5LikeCurve) {
  auto c = curve(zen5);
  auto lv = find_levels(c);
  ASSERT_EQ(lv.size(), 4u);
  EXPECT_EQ(lv[0].name, "L1");
  EXPECT_EQ(lv[0].size_bytes, 32 * KiB);
  EXPECT_NEAR(lv[0].latency_ns, 1.2, 1e-9);
  expect_level(lv[1], "L2", 512 * KiB, 768 * KiB, 4.0, 6.0);
  expect_level(lv[2], "L3", 5.6 * MiB, 8 * MiB, 14.0, 21.0);
  EXPECT_EQ(lv[3].name, "DRAM");
  EXPECT_EQ(lv[3].size_bytes, 0);
  EXPECT_NEAR(lv[3].latency_ns, zen5(1 << 30), 1e-9);  // DRAM: latency at the largest buffer
}

// The 2 MiB-page curve of a real quick run on the Zen 5 VM (results/vm-20261202T172829Z, medians
// of 5): past the L3 the latency climbs in steps from ~130 ns to ~440 ns; the step near 150-280 ns
// was once reported as an "L4" of 128 MiB.
TEST(Plateaus, RealZen5VmCurveHasNoL4) {
  const std::vector<CurvePoint> c = {
      {4096, 1.29},        {8192, 1.25},        {12288, 2.17},       {16384, 1.28},       {24576, 1.54},
      {32768, 2.23},       {45056, 3.78},       {65536, 4.33},       {94208, 4.51},       {131072, 4.49},
      {184320, 4.58},      {262144, 4.92},      {372736, 5.65},      {524288, 7.39},      {741376, 12.07},
      {1048576, 18.08},    {1482752, 18.27},    {2097152, 19.43},    {2965504, 21.47},    {4194304, 26.72},
      {5931008, 133.24},   {8388608, 150.44},   {11862016, 174.61},  {16777216, 179.57},  {23728128, 187.96},
      {33554432, 198.83},  {47452160, 217.11},  {67108864, 240.14},  {94904320, 221.65},  {134217728, 278.42},
      {189812736, 294.39}, {268435456, 377.25}, {379625472, 353.55}, {536870912, 421.52}, {759250944, 449.99},
      {1073741824, 438.20}};
  auto lv = find_levels(c);
  ASSERT_EQ(lv.size(), 4u);
  EXPECT_EQ(lv[0].name, "L1");
  EXPECT_NEAR(lv[0].latency_ns, 1.3, 0.3);
  expect_level(lv[1], "L2", 0, INFINITY, 4.0, 6.0);
  expect_level(lv[2], "L3", 2.9 * MiB, 4 * MiB, 14.0, 21.0);
  EXPECT_EQ(lv[3].name, "DRAM");
  EXPECT_EQ(lv[3].first_bytes, 5931008);
  EXPECT_NEAR(lv[3].latency_ns, 438.20, 1e-9);
}

TEST(Plateaus, ToleratesNoise) {
  uint64_t s = 99;
  auto c = curve([&](double b) {
    SplitMix r(s++);
    return zen5(b) * (1 + 0.16 * (static_cast<double>(r.next() >> 11) * 0x1.0p-53 - 0.5));  // +-8%
  });
  auto lv = find_levels(c);
  ASSERT_EQ(lv.size(), 4u);
  EXPECT_EQ(lv[2].name, "L3");
  EXPECT_GE(lv[2].size_bytes, 4 * MiB);
  EXPECT_LE(lv[2].size_bytes, 8 * MiB);
}

TEST(Plateaus, ThreeLevelsWithoutL3) {
  auto c = curve([](double b) { return b <= 64 * KiB ? 1.0 : b <= 2 * MiB ? 6.0 : 90.0; });
  auto lv = find_levels(c);
  ASSERT_EQ(lv.size(), 3u);
  EXPECT_EQ(lv[0].size_bytes, 64 * KiB);
  EXPECT_EQ(lv[1].name, "L2");
  EXPECT_EQ(lv[1].size_bytes, 2 * MiB);
  EXPECT_EQ(lv[2].name, "DRAM");
  EXPECT_EQ(lv[2].latency_ns, 90.0);
}

TEST(Plateaus, ShortCurveHasNoDram) {
  // Up to 16 MiB only (the tiny profile): the last plateau is a cache, not DRAM.
  auto c = curve([](double b) { return b <= 32 * KiB ? 1.0 : 5.0; }, 16 * MiB, 1);
  auto lv = find_levels(c);
  ASSERT_EQ(lv.size(), 2u);
  EXPECT_EQ(lv[1].name, "L2");
  EXPECT_EQ(lv[1].size_bytes, 16 * MiB);
}

TEST(Plateaus, FlatCurveIsOneLevel) {
  auto lv = find_levels(curve([](double) { return 3.0; }));
  ASSERT_EQ(lv.size(), 1u);
  EXPECT_EQ(lv[0].name, "L1");
}

TEST(Plateaus, EmptyAndInvalidPointsGiveNothing) {
  EXPECT_TRUE(find_levels({}).empty());
  EXPECT_TRUE(find_levels({{4096, NAN}, {8192, 0}}).empty());
}

TEST(RandomCycle, IsOneCycleThroughEveryNode) {
  for (uint32_t n : {2u, 3u, 64u, 1000u, 65536u}) {
    auto next = random_cycle(n, 7);
    std::set<uint32_t> seen;
    uint32_t i = 0;
    for (uint32_t k = 0; k < n; ++k) {
      EXPECT_TRUE(seen.insert(i).second) << "node " << i << " visited twice, n=" << n;
      i = next[i];
    }
    EXPECT_EQ(i, 0u) << "the cycle does not close after n steps, n=" << n;
    EXPECT_EQ(seen.size(), n);
  }
}

TEST(Buffer, AlignedAndHugePagesWhenTheKernelGivesThem) {
  Buffer b(4 * kHugePage, Pages::huge);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kHugePage, 0u);
  b.touch(1);
  const std::string mode = thp_setting("enabled");
  if (mode.rfind("unknown", 0) == 0 || mode == "never") GTEST_SKIP() << "no transparent huge pages here: " << mode;
  const int64_t huge = b.huge_bytes();
  if (huge < 0) GTEST_SKIP() << "/proc/self/smaps not readable";
  // The kernel may not find free huge pages (fragmentation): then say so rather than fail.
  if (huge == 0)
    GTEST_SKIP() << "MADV_HUGEPAGE gave no huge page (THP " << mode << ", defrag " << thp_setting("defrag") << ")";
  EXPECT_GT(huge, 0);
  Buffer s(4 * kHugePage, Pages::nohuge);
  s.touch(1);
  EXPECT_EQ(s.huge_bytes(), 0);
}

}  // namespace
