// Timing GPU work as the field does (docs/methodology.md, gpu: launch timing): k back-to-back
// launches between ONE pair of CUDA events, the per-call time = interval / k. One event pair around
// a single call puts the host's launch time (cuBLASLt a few us, ATen's dispatch 10-30 us) inside the
// interval while the GPU idles; with k calls queued back to back the GPU runs them without gaps
// and the launch time is paid once per interval, not once per call. The single-call time is kept
// beside it as a second metric. Plain C++ (no CUDA): gpu_gemm, gpu_transfer and gpu_torch_peer
// use it with their own events, and the unit tests check its arithmetic on a simulated stream.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/stats.hpp"

namespace rigcheck::gpu {

// One event pair spans this long at least (k chosen from a single call's time), and at most
// kMaxLaunches calls: long enough that one launch's time is a small share of the interval.
inline constexpr double kBatchTargetSeconds = 0.02;
inline constexpr int kMaxLaunches = 100;
// k is fixed per case before it runs (the harness's work per iteration is k calls' work, so that a
// rate is k x work / interval and Google Benchmark's --min-time counts the real interval): from
// the work of one call, so that the suite's case and the torch peer's identical one get the same
// k. A GEMM interval of at least 8.7 TFLOP (8 calls at 8192^3, 12 ms at 700 TFLOP/s; 64 at
// 4096^3), a copy interval of at least 4 GiB (4 copies of 1 GiB).
inline constexpr double kGemmFlopsPerInterval = 8.7e12;
inline constexpr double kCopyBytesPerInterval = 4.0 * (1u << 30);

// How many back-to-back launches one event pair spans: enough that they add up to `target` at
// `per_call` each (seconds, FLOP or bytes alike), at least 1, at most max_k (max_k also when the
// per-call amount is unknown).
inline int launches_per_interval(double per_call, double target = kBatchTargetSeconds, int max_k = kMaxLaunches) {
  if (!(per_call > 0) || !std::isfinite(per_call)) return max_k;
  const double k = std::ceil(target / per_call);
  return static_cast<int>(std::clamp(k, 1.0, static_cast<double>(max_k)));
}
inline int gemm_launches(int64_t m, int64_t n, int64_t k) {
  return launches_per_interval(2.0 * m * n * k, kGemmFlopsPerInterval);
}
inline int copy_launches(double bytes) { return launches_per_interval(bytes, kCopyBytesPerInterval); }

// start(); launch() k times; stop() returns the seconds between the two events: the per-call
// time, interval / k.
template <class Start, class Launch, class Stop>
double per_call_seconds(int k, Start&& start, Launch&& launch, Stop&& stop) {
  start();
  for (int i = 0; i < k; ++i) launch();
  return stop() / k;
}

// k launches between one start/stop pair: the interval's seconds (the harness's time per iteration,
// whose work is k calls').
template <class Start, class Launch, class Stop>
double interval_seconds(int k, Start&& start, Launch&& launch, Stop&& stop) {
  return per_call_seconds(k, start, launch, stop) * k;
}

// One GPU iteration with its second metric: one launch alone between start() and stop() (its seconds
// appended to `single`, the single_call_* row), then k back to back: the interval's seconds.
template <class Start, class Launch, class Stop>
double single_then_interval(int k, std::vector<double>& single, Start&& start, Launch&& launch, Stop&& stop) {
  start();
  launch();
  single.push_back(stop());
  return interval_seconds(k, start, launch, stop);
}

// The rate of one call alone between the event pair (the second metric, single_call_gflops or
// single_call_gbps): work / the median single-call time / 1e9; NaN without a time.
inline double single_call_rate(const std::vector<double>& seconds, double work) {
  if (seconds.empty()) return NAN;
  return work / median(seconds) / 1e9;
}

// The `timing` fact every such GPU case writes (data/params.csv: a description of the method).
inline std::string timing_fact(int k) {
  return fmt::format(
      "{} back-to-back launches between one CUDA event pair (an iteration), per call = interval / {}; "
      "single_call_* row: one launch between the pair",
      k, k);
}

}  // namespace rigcheck::gpu
