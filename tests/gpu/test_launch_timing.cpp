// The k-launch timer's arithmetic (launch_timing.hpp) on the CPU side's analogue of a CUDA stream:
// the host spends `launch_s` to enqueue each call, the device runs calls in order, each for
// `device_s`, starting when both the call has been enqueued and the one before it has finished; an
// event records the time the work queued before it is done. The numbers are the issue's: a
// cuBLASLt launch of a few us, ATen's dispatch of 10-30 us, a 4096^3 bf16 GEMM of about 0.2 ms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "launch_timing.hpp"

namespace {
struct SimulatedStream {
  double launch_s, device_s;
  double host = 0, device_free = 0, started = 0;
  int launched = 0;
  void start() { started = std::max(host, device_free); }
  void launch() {
    host += launch_s;
    device_free = std::max(host, device_free) + device_s;
    ++launched;
  }
  double stop() { return std::max(host, device_free) - started; }
};

double time_k(SimulatedStream& s, int k) {
  return rigcheck::gpu::per_call_seconds(
      k, [&] { s.start(); }, [&] { s.launch(); }, [&] { return s.stop(); });
}
}  // namespace

TEST(GpuLaunchTiming, OneCallBetweenTheEventsCountsTheLaunch) {
  SimulatedStream s{20e-6, 200e-6};
  EXPECT_NEAR(time_k(s, 1), 220e-6, 1e-12);  // the host's launch inside the interval: 10% too slow
  EXPECT_EQ(s.launched, 1);
}

TEST(GpuLaunchTiming, KBackToBackCallsPayTheLaunchOncePerInterval) {
  SimulatedStream s{20e-6, 200e-6};
  const int k = rigcheck::gpu::launches_per_interval(200e-6);
  EXPECT_EQ(k, 100);  // 20 ms / 0.2 ms
  const double per_call = time_k(s, k);
  EXPECT_EQ(s.launched, 100);
  EXPECT_NEAR(per_call, 200e-6 + 20e-6 / 100, 1e-12);  // interval = launch + k x device
  EXPECT_LT((per_call - 200e-6) / 200e-6, 0.0011);     // within 0.1% of the device's time
  // An 8192^3 GEMM (1.6 ms) with a 5 us launch: one call is 0.3% slow, 13 calls 0.02%.
  SimulatedStream big{5e-6, 1.6e-3};
  EXPECT_EQ(rigcheck::gpu::launches_per_interval(1.6e-3), 13);
  EXPECT_NEAR(time_k(big, 13), 1.6e-3 + 5e-6 / 13, 1e-12);
}

TEST(GpuLaunchTiming, LaunchBoundCallsMeasureTheHost) {
  // Calls shorter than their launch: the GPU waits for the host, whatever k is; the per-call time
  // is the launch time, which is what such a call costs a framework.
  SimulatedStream s{30e-6, 10e-6};
  EXPECT_NEAR(time_k(s, 50), 30e-6 + 10e-6 / 50, 1e-12);
}

TEST(GpuLaunchTiming, LaunchesPerIntervalBounds) {
  using rigcheck::gpu::launches_per_interval;
  EXPECT_EQ(launches_per_interval(1.0), 1);     // a call longer than the target: one
  EXPECT_EQ(launches_per_interval(0.005), 4);   // 20 ms / 5 ms
  EXPECT_EQ(launches_per_interval(1e-9), 100);  // capped
  EXPECT_EQ(launches_per_interval(0.0), 100);   // unknown: the cap
  EXPECT_EQ(launches_per_interval(-1.0, 0.02, 7), 7);
  EXPECT_NE(rigcheck::gpu::timing_fact(13).find("13 back-to-back launches"), std::string::npos);
}

TEST(GpuLaunchTiming, KPerCaseFromItsWorkAndTheIterationsSeconds) {
  using namespace rigcheck::gpu;
  EXPECT_EQ(gemm_launches(8192, 8192, 8192), 8);  // suite and torch peer alike
  EXPECT_EQ(gemm_launches(4096, 4096, 4096), 64);
  EXPECT_EQ(gemm_launches(256, 256, 256), 100);
  EXPECT_EQ(copy_launches(double(int64_t{1} << 30)), 4);
  EXPECT_EQ(copy_launches(double(int64_t{256} << 20)), 16);
  EXPECT_EQ(copy_launches(double(int64_t{1} << 20)), 100);
  // The iteration's seconds are the whole interval (its work is k calls'): the rate is the same
  // as one call's work over the per-call time.
  SimulatedStream s{5e-6, 1.6e-3};
  const double interval = interval_seconds(
      8, [&] { s.start(); }, [&] { s.launch(); }, [&] { return s.stop(); });
  EXPECT_NEAR(interval, 5e-6 + 8 * 1.6e-3, 1e-12);
  EXPECT_NEAR(single_call_rate({2e-3, 1e-3, 4e-3}, 2e6), 1.0, 1e-12);  // 2 MFLOP / the median 2 ms = 1 GFLOP/s
  EXPECT_TRUE(std::isnan(single_call_rate({}, 1)));
}

TEST(GpuLaunchTiming, SingleThenIntervalTimesOneCallAloneThenK) {
  SimulatedStream s{20e-6, 200e-6};
  std::vector<double> single;
  const double interval = rigcheck::gpu::single_then_interval(
      10, single, [&] { s.start(); }, [&] { s.launch(); }, [&] { return s.stop(); });
  EXPECT_EQ(s.launched, 11);  // one alone, then ten back to back
  ASSERT_EQ(single.size(), 1u);
  EXPECT_NEAR(single[0], 220e-6, 1e-12);  // the launch inside the pair
  // The interval (not the per-call time): the ten calls' device time; the host enqueued the first while
  // the device was still busy with the single call, so no launch lies inside the pair.
  EXPECT_NEAR(interval, 10 * 200e-6, 1e-12);
}
