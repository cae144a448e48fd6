// bench/claims/src/scaling_prediction.cpp: a predicted scaling figure's interval carries
// the run-to-run noise of its inputs (a noise profile of the machine, else the project's prior), a
// fit with spare points reports its residual and widens when the model misses, and a prediction
// beyond the reach is not judged.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "rigcheck/claims/scaling_prediction.hpp"
#include "rigcheck/harness/distributions.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/report.hpp"
#include "support/files.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::prediction;
using namespace rigcheck::testsupport;

namespace {
Measured at(double v, double lo, double hi) {
  Measured m;
  m.value = v, m.low = lo, m.high = hi, m.reps = 5;
  return m;
}
// Amdahl's E(8) from E(2) (fractions), in closed form: p = 2 (1 - 1 / (2 E2)).
double e8_from_e2(double e2) {
  const double p = std::min(1.0, 2 * (1 - 1 / (2 * e2)));
  return 1 / ((1 - p) + p / 8) / 8;
}
}  // namespace

// Known answer: E(2) = 90% with no within-run spread, run-to-run sd 2% over 5 runs (df 4): the ends
// of E(2) move to 90% x exp(-+4.6041 x 0.02) (t(0.995, 4): the 99% level), and E(8) follows in closed form. Without the
// run-to-run part the interval would be the point, 56.25%: this test fails when it is left out.
TEST(ScalingPrediction, IntervalCarriesTheRunToRunPart) {
  RunToRun r2r;
  r2r.sd = 0.02, r2r.df = 4, r2r.source = "test";
  const AmdahlPrediction f = predict({{1, at(100, 100, 100)}, {2, at(90, 90, 90)}}, r2r);
  const double shift = 4.6041 * 0.02;
  EXPECT_NEAR(f.shift, shift, 1e-4);
  EXPECT_NEAR(100 * amdahl_speedup(f.p, 8) / 8, 56.25, 1e-9);
  EXPECT_NEAR(amdahl_speedup(f.p_lo, 8) / 8, e8_from_e2(0.9 * std::exp(-shift)), 1e-4);  // 45.0%
  EXPECT_NEAR(amdahl_speedup(f.p_hi, 8) / 8, e8_from_e2(0.9 * std::exp(shift)), 1e-4);   // 73.7%
  EXPECT_NEAR(100 * amdahl_speedup(f.p_lo, 8) / 8, 39.6, 0.1);
  EXPECT_NEAR(100 * amdahl_speedup(f.p_hi, 8) / 8, 91.5, 0.1);
  EXPECT_TRUE(std::isnan(f.residual));  // two thread counts: nothing to test the model with
  EXPECT_EQ(f.tmax, 2);
  EXPECT_TRUE(within_reach(f, 8));    // 4x
  EXPECT_FALSE(within_reach(f, 32));  // 16x
  EXPECT_NE(f.text().find("4.60 x 2.00%, t(0.995, 4 df)"), std::string::npos) << f.text();
}

// Three or more thread counts: the residual is reported; where it exceeds the run-to-run sd the
// ends move out by t(0.995, points - 1) residuals more; where the points follow Amdahl they do not.
TEST(ScalingPrediction, ResidualOfThreeCountsWidensWhenTheModelMisses) {
  RunToRun r2r;
  r2r.sd = 0.01, r2r.df = 10;
  auto amdahl_e = [](double p, int n) { return 100 * amdahl_speedup(p, n) / n; };
  const AmdahlPrediction fits = predict({{1, at(100, 100, 100)},
                                         {2, at(amdahl_e(0.95, 2), amdahl_e(0.95, 2), amdahl_e(0.95, 2))},
                                         {4, at(amdahl_e(0.95, 4), amdahl_e(0.95, 4), amdahl_e(0.95, 4))}},
                                        r2r);
  EXPECT_NEAR(fits.p, 0.95, 1e-9);
  EXPECT_NEAR(fits.residual, 0, 1e-9);
  EXPECT_FALSE(fits.widened);
  EXPECT_NEAR(fits.shift, student_t_quantile(0.995, 10) * 0.01, 1e-12);
  EXPECT_NE(fits.text().find("within what the runs move"), std::string::npos) << fits.text();

  // E(2) 100%, E(4) 50%: no Amdahl curve passes near both.
  const AmdahlPrediction misses = predict({{1, at(100, 100, 100)}, {2, at(100, 100, 100)}, {4, at(50, 50, 50)}}, r2r);
  EXPECT_GT(misses.residual, 0.1);
  EXPECT_TRUE(misses.widened);
  EXPECT_NEAR(misses.shift, student_t_quantile(0.995, 10) * 0.01 + student_t_quantile(0.995, 1) * misses.residual,
              1e-12);
  EXPECT_NE(misses.text().find("the model misses"), std::string::npos) << misses.text();
}

// The reach on the only rows with more thread counts this project holds: avx512_synthetic's GEMM
// (hand-written, NOT a measurement: see its README.md), fitted on 1..2 threads, predicts 4 and 8
// threads (2x and 4x, within the reach) within the interval it gives. A check of the arithmetic on
// a curve whose answer is known, not evidence about any machine (docs/methodology.md).
TEST(ScalingPrediction, LeaveOutFitOnTheSyntheticGemmRows) {
  const RunData run = read_run(kRuns + "avx512_synthetic");
  std::map<int, std::vector<double>> rate;
  for (auto& [c, rows] : run.select("gemm_matmul_f32", "gflops"))
    for (const ResultRow* r : rows) rate[std::atoi(param_value(r->params, "threads").c_str())].push_back(r->value);
  ASSERT_EQ(rate.size(), 4u);
  const double x1 = median(rate[1]);
  auto e = [&](int t) { return 100 * median(rate[t]) / (t * x1); };
  const RunToRun r2r = prior_of(run, data_path("run_to_run_prior.csv"), "e2_resnet50_train_step");
  const AmdahlPrediction f = predict({{1, at(100, 100, 100)}, {2, at(e(2), e(2), e(2))}}, r2r);
  for (int t : {4, 8}) {
    EXPECT_TRUE(within_reach(f, t));
    EXPECT_GE(e(t), 100 * amdahl_speedup(f.p_lo, t) / t) << t;
    EXPECT_LE(e(t), 100 * amdahl_speedup(f.p_hi, t) / t) << t;
  }
}

// A noise profile beside the run (run --repeat's layout: its parent folder noise-<host>-<time>) is
// used before the prior, and says so; one of another machine is not.
TEST(ScalingPrediction, NoiseProfileOfTheMachineBeforeThePrior) {
  const std::string parent = fresh_dir("noise-vm-20261205T000000Z");
  const std::string dir = parent + "/run1";
  std::filesystem::rename(copy_fixture("resnet_synthetic"), dir);
  auto write_profile = [&](const std::string& host) {
    std::ofstream f(parent + "/noise.csv", std::ios::trunc);
    f << "source,benchmark,case,params,metric,unit,runs,sd_log,cv_pct,spread_pct,host,cpu_model,runs_from\n";
    for (const char* t : {"t1", "t2"})
      f << "cpu_resnet.csv,resnet50_train_step,train_step/b16i224/" << t << ",threads=" << t + 1
        << ",items_per_s,images/s,5,0.01,1.00,2.50," << host << ",AMD EPYC,r1 r2 r3 r4 r5\n";
  };
  write_profile("vm");
  const Verdict v = verdict_of(make_report(dir, quiet()), "CPU-1");
  EXPECT_NE(v.reason.find("from the noise profile of 5 runs (" + parent + "/noise.csv)"), std::string::npos)
      << v.reason;
  EXPECT_NE(v.reason.find("4.60 x 1.41%"), std::string::npos) << v.reason;  // t(0.995, 4) x sqrt(2) x 1%
  EXPECT_EQ(v.reason.find("prior"), std::string::npos) << v.reason;

  write_profile("another-host");
  const Verdict w = verdict_of(make_report(dir, quiet()), "CPU-1");
  EXPECT_NE(w.reason.find("from the prior for the 2-vCPU VM class"), std::string::npos) << w.reason;
  EXPECT_NE(w.reason.find("is of another machine: not used"), std::string::npos) << w.reason;
}

// A noise profile that cannot be read does not stop the report: the prior is used and the reason said.
TEST(ScalingPrediction, BrokenNoiseProfileFallsBackOnThePriorSayingWhy) {
  const std::string parent = fresh_dir("noise-vm-20261205T010000Z");
  const std::string dir = parent + "/run1";
  std::filesystem::rename(copy_fixture("resnet_synthetic"), dir);
  std::ofstream(parent + "/noise.csv")
      << "benchmark,case,metric,runs,sd_log,host,cpu_model\n"
      << "resnet50_train_step,train_step/b16i224/t1,items_per_s,five,0.01,vm,AMD EPYC\n";
  const Verdict v = verdict_of(make_report(dir, quiet()), "CPU-1");
  EXPECT_EQ(v.basis, Basis::predicted) << v.reason;
  EXPECT_NE(v.reason.find("from the prior for the 2-vCPU VM class"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("is not readable as a noise profile"), std::string::npos) << v.reason;
}
