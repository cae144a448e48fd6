// tool/src/compare/compare.cpp: Mann-Whitney U against published values, and the comparison of
// fixture runs (tests/fixtures/runs/compare_*, history_*): flags, confounders, cross-run claims.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/tool/compare.hpp"
#include "support/files.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(MannWhitney, SeparatedSamplesGiveTheSmallestExactP) {
  // Every value of one sample below every value of the other: p = 2 / C(n+m, n).
  auto r = mann_whitney({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p, 2.0 / 20, 1e-12);
  EXPECT_NEAR(mann_whitney({5, 6, 7, 8}, {1, 2, 3, 4}).p, 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).p, 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(3, 3), 0.1, 1e-12);
}

TEST(MannWhitney, MatchesRsWilcoxTestExample) {
  // R's ?wilcox.test example: W = 35, one-sided ("greater") exact p = 0.1272; two-sided twice that.
  auto r = mann_whitney({0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}, {1.15, 0.88, 0.90, 0.74, 1.21});
  EXPECT_DOUBLE_EQ(r.u, 35);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p, 0.2544, 1e-4);
}

TEST(MannWhitney, CriticalValuesOfThePublishedTable) {
  // Two-sided alpha = 0.05, n1 = n2 = 5: the table's critical U is 2 (reject when U <= 2).
  // U = 2: a = {1,2,4,5,7}? Build samples with a chosen U: a's values interleaved with b's.
  auto u2 = mann_whitney({1, 2, 3, 5, 6}, {4, 7, 8, 9, 10});  // pairs a > b: 5>4, 6>4 -> U = 2
  EXPECT_DOUBLE_EQ(u2.u, 2);
  EXPECT_LT(u2.p, 0.05);
  EXPECT_NEAR(u2.p, 8.0 / 252, 1e-12);
  auto u3 = mann_whitney({1, 2, 5, 6, 7}, {3, 4, 8, 9, 10});  // U = 2*3... count: 5,6,7 > 3,4 -> 6
  EXPECT_DOUBLE_EQ(u3.u, 6);
  EXPECT_GT(u3.p, 0.05);
  auto u3b = mann_whitney({1, 2, 4, 5, 6}, {3, 7, 8, 9, 10});  // 4,5,6 > 3 -> U = 3
  EXPECT_DOUBLE_EQ(u3b.u, 3);
  EXPECT_GT(u3b.p, 0.05);  // 2 * 7/252 = 0.0556: U = 3 is not significant, as the table says
  EXPECT_NEAR(u3b.p, 14.0 / 252, 1e-12);
  // n1 = 6, n2 = 5, U = 29 (of 30): exact two-sided p = 0.008658 (enumeration of the 462 splits).
  EXPECT_NEAR(mann_whitney({10.1, 10.4, 9.8, 10.0, 10.3, 10.2}, {9.1, 9.5, 9.9, 9.3, 9.7}).p, 0.008658, 1e-6);
  EXPECT_EQ(mann_whitney_reps_needed(0.05), 4);
}

TEST(MannWhitney, TiesUseMidRanksAndStayExact) {
  // Brute force over the 70 splits of {1,2,2,3,2,4,5,6} with mid-ranks gives U = 2, p = 8/70.
  auto r = mann_whitney({1, 2, 2, 3}, {2, 4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 2);
  EXPECT_NEAR(r.p, 8.0 / 70, 1e-12);
  auto same = mann_whitney({1, 1, 1}, {1, 1, 1});
  EXPECT_NEAR(same.p, 1, 1e-12);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) {
    a.push_back(i);
    b.push_back(i + 0.5);
  }
  auto r = mann_whitney(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_GT(r.p, 0.5);  // nearly the same distribution
  for (double& v : b) v += 100;
  EXPECT_LT(mann_whitney(a, b).p, 1e-10);
  EXPECT_THROW(mann_whitney({}, {1}), std::invalid_argument);
}

TEST(Compare, SameMachineTwiceFlagsNothing) {
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  EXPECT_EQ(incompatibility(a, b), "");
  CompareOptions opt;
  auto rows = compare_pair(a, b, defs(), opt);
  ASSERT_GT(rows.size(), 20u);
  for (const RowComparison& r : rows) {
    EXPECT_NE(r.flag, "regression") << r.benchmark << " " << r.case_name << " " << r.metric;
    EXPECT_NE(r.flag, "too_few_reps") << r.benchmark << " " << r.case_name;
  }
}

TEST(Compare, SlowedBenchmarkFlaggedOnExactlyItsRowsWithTheConfounder) {
  LoadedRun a = load_run(kRuns + "compare_a"), s = load_run(kRuns + "compare_slowed");
  CompareOptions opt;
  auto rows = compare_pair(a, s, defs(), opt);
  int flagged = 0;
  for (const RowComparison& r : rows) {
    const bool slowed = r.benchmark == "gemm_matmul_f32" || r.benchmark == "fc_inner_product_f32" ||
                        r.benchmark == "gemm_sgemm_onednn";  // oneDNN, capped at SSE4.1
    if (slowed) {
      EXPECT_EQ(r.flag, "regression") << r.case_name << " " << r.metric;
      EXPECT_NE(r.note.find("isa: avx2 -> sse41"), std::string::npos) << r.note;  // the dispatched ISA, per row
      ++flagged;
    } else {
      EXPECT_NE(r.flag, "regression") << r.benchmark << " " << r.case_name << " " << r.metric;
    }
  }
  EXPECT_GT(flagged, 0);
  std::vector<std::string> unrecorded;
  auto diffs = differing_fields({&a, &s}, defs(), &unrecorded);
  bool cap_named = false;
  for (const FieldDiff& d : diffs) cap_named |= d.key == "onednn_max_cpu_isa_env" && d.listed;
  EXPECT_TRUE(cap_named);
  auto summary = summarize_areas(rows);
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].area, "cpu");
  EXPECT_LT(summary[0].geomean, 1);
}

TEST(Compare, TooFewRepetitionsSaysHowManyAreNeeded) {
  LoadedRun a = load_run(kRuns + "good"), b = load_run(kRuns + "good");
  auto rows = compare_pair(a, b, defs(), CompareOptions{});
  ASSERT_FALSE(rows.empty());
  for (const RowComparison& r : rows) {
    EXPECT_EQ(r.flag, "too_few_reps");
    EXPECT_NE(r.note.find("at least 4 per side"), std::string::npos) << r.note;
  }
}

TEST(Compare, CrossRunClaimsNotMeasurableWithoutTheRightPair) {
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  auto claims = read_claims(data_path("claims.csv"));
  auto v = cross_run_claims({&a, &b}, claims, data_path("datasheets.csv"));
  ASSERT_EQ(v.size(), 4u);
  for (auto& [c, verdict] : v) {
    EXPECT_EQ(verdict.verdict, Outcome::not_measurable) << c.id;
    EXPECT_FALSE(verdict.reason.empty());
  }
}

TEST(Compare, CrossRunClaimJudgedAcrossDdr4AndDdr5) {
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  a.data.inventory["memory_dimm_type"] = "DDR4";
  b.data.inventory["memory_dimm_type"] = "DDR5";
  auto claims = read_claims(data_path("claims.csv"));
  for (auto& [c, v] : cross_run_claims({&a, &b}, claims, data_path("datasheets.csv"))) {
    if (c.id == "MEM-2") {
      EXPECT_NE(v.verdict, Outcome::not_measurable) << v.reason;  // GEMM rows exist in both
      EXPECT_TRUE(v.measured.ok());
    }
    if (c.id == "MEM-3") {
      EXPECT_EQ(v.verdict, Outcome::not_measurable);  // no latency benchmark in these runs
    }
  }
}

TEST(Compare, IncompatibleRunsAreRefused) {
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  b.data.inventory["method_version"] = "2";
  EXPECT_NE(incompatibility(a, b).find("method_version"), std::string::npos);
  EXPECT_THROW(load_run(kRuns + "does_not_exist"), InputError);
}

TEST(Compare, GpuGenerationClaimsJudgedAcrossTuringAndAmpere) {
  // In-memory runs: a Turing and an Ampere GPU, f16 tensor-core GEMM rows (names as plots.csv
  // guesses them until the gpu area lands), and datasheet peaks in a temporary file.
  auto make = [](const std::string& label, const std::string& cc, const std::string& name, double tflops) {
    LoadedRun r;
    r.label = label;
    r.data.inventory = {{"method_version", "1"}, {"gpu0_compute_capability", cc}, {"gpu0_name", name}};
    for (int rep = 0; rep < 5; ++rep) {
      ResultRow row;
      row.benchmark = "gemm_tc";
      row.case_name = "m8192/f16";
      row.params = "m=8192;dtype=f16;impl=cublasLt";
      row.metric = "gflops";
      row.unit = "GFLOP/s";
      row.repetition = rep;
      row.value = 1000 * tflops * (1 + 0.002 * rep);
      r.data.results.push_back(row);
    }
    r.area_of["gemm_tc"] = "gpu";
    return r;
  };
  LoadedRun turing = make("t4", "7.5", "Tesla T4", 40), ampere = make("a100", "8.0", "NVIDIA A100-SXM4-40GB", 200);
  std::string sheet = temp_file("sheet.csv",
                                "product,property,value,source\nT4,peak_tflops_f16,65,test\nA100,peak_tflops_f16,312,test\n");
  auto claims = read_claims(data_path("claims.csv"));
  int judged = 0;
  for (auto& [c, v] : cross_run_claims({&ampere, &turing}, claims, sheet)) {
    if (c.id == "GPU-3") {
      EXPECT_NEAR(v.measured.value, 5.0, 1e-9);  // 200 / 40
      EXPECT_EQ(v.verdict, Outcome::refuted);           // the guide says 3x +- 0.3
      ++judged;
    }
    if (c.id == "GPU-4") {
      // utilisation 200/312 vs 40/65: +4.2%
      EXPECT_NEAR(v.measured.value, 100 * ((200.0 / 312) / (40.0 / 65) - 1), 1e-6);
      EXPECT_EQ(v.verdict, Outcome::refuted);
      ++judged;
    }
  }
  EXPECT_EQ(judged, 2);
}
