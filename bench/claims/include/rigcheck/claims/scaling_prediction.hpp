// Predicting a scaling figure beyond the measured thread counts (CPU-1's E(8), CPU-2's gain from
// 16 to 32 cores) with an interval that holds from run to run (docs/methodology.md
// "Predicted scaling: interval and reach"), for the evaluators (bench/claims/src/evaluators_cpu.cpp).
//
//  - Run-to-run part: a run's E(n) moves between runs far more than its repetitions move within
//    it (docs/performance.md "CPU-1 across runs"). Its standard deviation on the log scale comes
//    from this machine's noise profile beside the run (noise.csv in the run's parent folder
//    when `rigcheck run --repeat` made it), else from the prior this project measured
//    (data/run_to_run_prior.csv: E(2) of the ResNet-50 step per run on the 2-vCPU VM class).
//  - The interval: each measured E(n)'s within-run interval, each end moved out by
//    k = t(1 - kAlpha / 2, df) run-to-run standard deviations (log scale), then the Amdahl fits of the
//    low ends and of the high ends.
//  - With 3 or more thread counts the fit has spare points: its residual (log scale) is reported,
//    and where it exceeds the run-to-run sd (the model misses by more than the runs move) the
//    ends move out by t(1 - kAlpha / 2, points - 1) residuals more.
//  - Reach: a prediction more than kReach times the largest measured thread count is information,
//    not a verdict.
#pragma once
#include <map>
#include <string>

#include "rigcheck/claims/claim.hpp"

namespace rigcheck::prediction {

// How far beyond the largest measured thread count a one-parameter fit may predict and be judged.
// Chosen in docs/methodology.md "Predicted scaling: interval and reach".
inline constexpr double kReach = 4;
// Two-sided level of the interval: 99%, the level of every interval of `rigcheck compare` (its
// default --alpha), so that a run-to-run noise judged there and here reads alike.
inline constexpr double kAlpha = 0.01;

// Run-to-run standard deviation (log scale) of E(n) = X(n) / (n X(1)), with where it came from.
struct RunToRun {
  double sd = kNaN;
  double df = 0;       // its degrees of freedom (runs - 1)
  std::string source;  // "noise profile of 5 runs (DIR/noise.csv)" or "prior for the 2-vCPU VM class, ..."
  bool from_profile = false;
};

// The run-to-run sd of E(n) for the cases `case_1` (1 thread) and `case_n` of `bench`/`metric`:
// from a noise profile of this machine (hostname and cpu_model as the run's inventory) with both
// cases, as sqrt(sd_1^2 + sd_n^2); else the prior rows of `prior_quantity` in
// data/run_to_run_prior.csv (the sd of the log of their values). Throws InputError on a broken
// profile or prior file.
RunToRun run_to_run(const RunData& run, const std::string& bench, const std::string& metric, const std::string& case_1,
                    const std::string& case_n, const std::string& prior_quantity);

// The prior alone (what run_to_run falls back to), from `path` (data/run_to_run_prior.csv).
RunToRun prior_of(const RunData& run, const std::string& path, const std::string& quantity);

// The Amdahl fit of E(n) (percent per thread count, with 1) and its interval.
struct AmdahlPrediction {
  double p = kNaN, p_lo = kNaN, p_hi = kNaN;  // parallel fraction: the point; the fits of the interval's ends
  int tmax = 0;                               // the largest measured thread count
  int counts = 0;                             // measured thread counts, 1 included
  double k = 0;                               // run-to-run coverage factor t(1 - kAlpha / 2, df)
  double residual = kNaN;                     // 3+ counts: sd of log(S measured / S fitted), points - 1 df
  bool widened = false;                       // the residual exceeded the run-to-run sd: the ends moved by it too
  double shift = 0;                           // how far each end of E(n) moved out (log scale)
  RunToRun r2r;
  // "E(n)'s within-run interval widened by 2.11 x 4.35% run-to-run (prior ...); residual ..."
  std::string text() const;
};
// eff: E(n) in percent by thread count (needs 1 and one count >= 2). r2r.sd NaN: no run-to-run part.
AmdahlPrediction predict(const std::map<int, Measured>& eff, const RunToRun& r2r);

// Whether predicting at `target` threads stays within kReach x the largest measured count.
inline bool within_reach(const AmdahlPrediction& f, int target) { return target <= kReach * f.tmax; }
// "E(8) from 1..2 threads is 4x beyond the largest measured count (the reach is 4x)"
std::string reach_text(const AmdahlPrediction& f, int target);

}  // namespace rigcheck::prediction
