// bench/compare/src: the case registries (params, metrics), the pairing of cases by what was asked,
// and the comparison of fixture runs (tests/fixtures/runs/compare_*, history_*) by the run-level
// rules (the statistics themselves: test_statistics.cpp; plots and confounders: tests/bench/report/html).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "rigcheck/compare/compare.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/report/html.hpp"
#include "support/files.hpp"
#include "support/runs.hpp"

using namespace rigcheck;

using namespace rigcheck::testsupport;

// ------------------------------------------------------------------ cases: what was asked
namespace {
ResultRow row(const std::string& source, const std::string& bench, const std::string& cname, const std::string& params,
              const std::string& metric, const std::string& unit, int rep, double value) {
  ResultRow r = result_row(bench, cname, params, metric, value, unit, rep);
  r.source = source;
  return r;
}

LoadedRun memory_run(const std::string& label, const std::vector<ResultRow>& rows) {
  LoadedRun r;
  r.label = label;
  r.data.inventory = {{"method_version", "1"}, {"hostname", "h"}, {"cpu_model", "c"}};
  r.data.results = rows;
  for (const ResultRow& x : rows) r.area_of[x.benchmark] = "cpu";
  build_cases(r, read_case_rules());
  return r;
}

std::vector<const LoadedRun*> ptrs(const std::vector<LoadedRun>& v) {
  std::vector<const LoadedRun*> p;
  for (const LoadedRun& r : v) p.push_back(&r);
  return p;
}
}  // namespace

TEST(Cases, RegistriesSayWhatIsRequestedAndWhatObserved) {
  CaseRules rules = read_case_rules();
  EXPECT_TRUE(rules.observed("gemm_matmul_f32", "isa_cap"));  // read from the environment: what ran
  EXPECT_TRUE(rules.observed("gemm_matmul_f32", "impl"));
  EXPECT_FALSE(rules.observed("resnet50_isa", "isa_cap"));  // the registry entry asks for it
  EXPECT_FALSE(rules.observed("fma_peak_f32", "isa"));
  EXPECT_FALSE(rules.observed("gemm_matmul_f32", "threads"));  // not listed: requested
  EXPECT_TRUE(rules.observed("fio", "scratch"));
  EXPECT_EQ(rules.headline("mpi_allreduce_f32", {{"algbw", 1}, {"busbw", 1}, {"time_per_iter", -1}}), "busbw");
  EXPECT_EQ(rules.headline("gemm_matmul_f32", {{"gbps", 1}, {"gflops", 1}, {"time_per_iter", -1}}), "gflops");
  EXPECT_EQ(rules.headline("new_bench", {{"widgets_per_s", 1}, {"time_per_iter", -1}}), "widgets_per_s");
  const std::string bad = temp_file("params_bad.csv", "benchmark,param,role,note\n*,impl,observed,\n*,isa,maybe,\n");
  expect_refused_at([&] { read_case_rules(bad); }, 3, "role 'maybe'");
}

// The missed regression: oneDNN capped at AVX2 through the environment made isa_cap and
// impl differ, and the case fell apart into two unmatched rows. Matched by what was asked, it is
// one finding, with the implementation change named beside the speed change.
TEST(Cases, MatchedByWhatWasAskedNotByWhatRan) {
  auto gemm = [](const std::string& label, const std::string& ran, double gflops, int runs_offset) {
    std::vector<ResultRow> rows;
    for (int rep = 0; rep < 5; ++rep)
      rows.push_back(row("cpu_gemm", "gemm_matmul_f32", "m2048n2048k2048/t1", "m=2048;threads=1;" + ran, "gflops",
                         "GFLOP/s", rep, gflops * (1 + 0.001 * (rep + runs_offset))));
    return memory_run(label, rows);
  };
  std::vector<LoadedRun> base{gemm("n1", "impl=brg:avx512_core;isa=avx512_core_bf16;isa_cap=native", 177, 0),
                              gemm("n2", "impl=brg:avx512_core;isa=avx512_core_bf16;isa_cap=native", 175, 3)};
  std::vector<LoadedRun> capped{gemm("c1", "impl=gemm:jit;isa=avx2;isa_cap=avx2", 110, 1),
                                gemm("c2", "impl=gemm:jit;isa=avx2;isa_cap=avx2", 111, 2)};
  auto fs = compare_sides(Side{"A", ptrs(base)}, Side{"B", ptrs(capped)}, nullptr, read_case_rules(), StatOptions{});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].flag, "regression");
  EXPECT_TRUE(fs[0].implementation_changed);
  EXPECT_NE(fs[0].attributes.find("isa_cap: native -> avx2"), std::string::npos) << fs[0].attributes;
  EXPECT_NE(fs[0].attributes.find("impl: brg:avx512_core -> gemm:jit"), std::string::npos) << fs[0].attributes;
  EXPECT_NEAR(fs[0].j.change_pct, 100 * (110.5 / 176.0 - 1), 1.0);
}

TEST(Cases, OneFindingPerCaseWithUniqueLabelsAcrossFiles) {
  std::vector<ResultRow> rows;
  for (const char* src : {"comm_allreduce_mpi", "comm_allreduce_mpi_tcp"})
    for (int rep = 0; rep < 3; ++rep) {
      const std::string p = std::string("size_bytes=400000000;mpi=Open MPI v4.1.4;transport=") + (rep >= 0 ? src : "");
      rows.push_back(row(src, "mpi_allreduce_f32", "nonoverlapping/400000000B/out", p, "time_per_iter", "s", rep, 0.2));
      rows.push_back(row(src, "mpi_allreduce_f32", "nonoverlapping/400000000B/out", p, "algbw", "GB/s", rep, 2));
      rows.push_back(row(src, "mpi_allreduce_f32", "nonoverlapping/400000000B/out", p, "busbw", "GB/s", rep, 2));
      rows.push_back(
          row(src, "mpi_allreduce_f32", "nonoverlapping/400000000B/out", p, "cpu_utilization", "fraction", rep, 1));
    }
  std::vector<LoadedRun> a{memory_run("a", rows)}, b{memory_run("b", rows)};
  auto fs = compare_sides(Side{"a", ptrs(a)}, Side{"b", ptrs(b)}, nullptr, read_case_rules(), StatOptions{});
  ASSERT_EQ(fs.size(), 2u);  // two files, one finding each: not six (three metrics x two files)
  EXPECT_NE(fs[0].label, fs[1].label);
  for (const CaseFinding& f : fs) {
    EXPECT_EQ(f.metric, "busbw");
    EXPECT_NE(f.label.find("[" + f.source + "]"), std::string::npos) << f.label;
    ASSERT_EQ(f.others.size(), 2u);     // algbw and time_per_iter beside; the CPU share is not a speed
    EXPECT_EQ(f.flag, "cannot_judge");  // one run per side, no profile
  }
}

// ------------------------------------------------------------------ comparisons of fixture runs
TEST(Compare, OneRunPerSideCannotJudgeAndFlagsNothing) {
  std::vector<LoadedRun> a{load_run(kRuns + "compare_a")}, b{load_run(kRuns + "compare_slowed")};
  EXPECT_EQ(incompatibility(a[0], b[0]), "");
  auto fs = compare_sides(Side{"a", ptrs(a)}, Side{"b", ptrs(b)}, nullptr, read_case_rules(), StatOptions{});
  ASSERT_GE(fs.size(), 10u);
  for (const CaseFinding& f : fs) {
    EXPECT_EQ(f.flag, "cannot_judge") << f.label;
    EXPECT_NE(f.note.find("one run per side and no noise profile"), std::string::npos) << f.note;
  }
  const FindingCounts c = count_findings(fs, 0.01);
  EXPECT_EQ(c.flagged, 0);
  EXPECT_EQ(c.judged, 0);
  EXPECT_EQ(c.cannot_judge, c.cases);
}

TEST(Compare, SameMachineSeveralRunsFlagsNothing) {
  std::vector<LoadedRun> a{load_run(kRuns + "compare_a"), load_run(kRuns + "compare_a2")},
      b{load_run(kRuns + "compare_a3"), load_run(kRuns + "compare_a4")};
  auto fs = compare_sides(Side{"A", ptrs(a)}, Side{"B", ptrs(b)}, nullptr, read_case_rules(), StatOptions{});
  ASSERT_GE(fs.size(), 10u);
  for (const CaseFinding& f : fs) {
    EXPECT_FALSE(f.flagged()) << f.label << " " << f.flag << " " << f.j.change_pct;
    EXPECT_NE(f.flag, "cannot_judge") << f.label;
    EXPECT_EQ(f.j.iv.method, Method::bootstrap);
  }
}

TEST(Compare, SlowedBenchmarkFlaggedOnExactlyItsCasesWithWhatRan) {
  std::vector<LoadedRun> a{load_run(kRuns + "compare_a"), load_run(kRuns + "compare_a2")},
      s{load_run(kRuns + "compare_slowed"), load_run(kRuns + "compare_slowed2")};
  auto fs = compare_sides(Side{"A", ptrs(a)}, Side{"B", ptrs(s)}, nullptr, read_case_rules(), StatOptions{});
  int flagged = 0;
  for (const CaseFinding& f : fs) {
    const bool slowed = f.benchmark == "gemm_matmul_f32" || f.benchmark == "fc_inner_product_f32" ||
                        f.benchmark == "gemm_sgemm_onednn";  // oneDNN, capped at SSE4.1
    if (slowed) {
      EXPECT_EQ(f.flag, "regression") << f.label;
      EXPECT_NE(f.attributes.find("isa: avx2 -> sse41"), std::string::npos) << f.attributes;
      EXPECT_NEAR(f.j.change_pct, -45, 3);
      ++flagged;
    } else {
      EXPECT_FALSE(f.flagged()) << f.label;
    }
  }
  EXPECT_GT(flagged, 0);
  std::vector<std::string> unrecorded;
  bool cap_named = false;
  for (const FieldDiff& d : differing_fields({&a[0], &s[0]}, defs(), &unrecorded))
    cap_named |= d.key == "onednn_max_cpu_isa_env" && d.listed;
  EXPECT_TRUE(cap_named);
  auto summary = summarize_areas(fs);
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].area, "cpu");
  EXPECT_LT(summary[0].geomean, 1);
}

TEST(Compare, NoiseProfileJudgesOneRunPerSide) {
  std::vector<LoadedRun> four{load_run(kRuns + "compare_a"), load_run(kRuns + "compare_a2"),
                              load_run(kRuns + "compare_a3"), load_run(kRuns + "compare_a4")};
  NoiseProfile p = noise_profile(four);
  ASSERT_FALSE(p.noise.empty());
  for (auto& [k, n] : p.noise) {
    EXPECT_EQ(n.runs, 4);
    EXPECT_LT(n.sd, 0.05);
  }
  // Through noise.csv and back.
  const std::string path = temp_file("noise.csv", format_noise_csv(p, four));
  NoiseProfile q = read_noise_csv(path);
  ASSERT_EQ(q.noise.size(), p.noise.size());
  EXPECT_EQ(q.runs.size(), 4u);
  EXPECT_EQ(q.host, p.host);
  std::vector<LoadedRun> a{load_run(kRuns + "compare_a")}, s{load_run(kRuns + "compare_slowed")};
  check_profile_machine(q, {&a[0], &s[0]});
  auto fs = compare_sides(Side{"a", ptrs(a)}, Side{"s", ptrs(s)}, &q, read_case_rules(), StatOptions{});
  int flagged = 0;
  for (const CaseFinding& f : fs) {
    EXPECT_EQ(f.j.iv.method, Method::t_profile) << f.label;
    if (f.flagged()) {
      EXPECT_EQ(f.flag, "regression");
      EXPECT_TRUE(f.benchmark == "gemm_matmul_f32" || f.benchmark == "fc_inner_product_f32" ||
                  f.benchmark == "gemm_sgemm_onednn")
          << f.label;
      ++flagged;
    }
  }
  EXPECT_GT(flagged, 0);
  // Broken and mixed profiles: a clear error naming the file and line.
  const std::string bad = temp_file("noise_bad.csv",
                                    "source,benchmark,case,params,metric,unit,runs,sd_log,cv_pct,"
                                    "spread_pct,host,cpu_model,runs_from\ncpu_gemm,g,c,,gflops,GFLOP/s,"
                                    "1,0.01,1,1,h,c,r1\n");
  expect_refused_at([&] { read_noise_csv(bad); }, 2, "runs '1'");
  LoadedRun other = load_run(kRuns + "avx512_synthetic");
  EXPECT_THROW(check_profile_machine(q, {&other}), InputError);
  std::vector<LoadedRun> one{load_run(kRuns + "compare_a")};
  EXPECT_THROW(noise_profile(one), InputError);
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

// cross_run_claims judges every claim with a cross-run evaluator, in the claims' order, and no other:
// a claim registered with register_cross_run_evaluator needs nothing more of the dispatch.
TEST(Compare, CrossRunClaimsAreTheRegisteredOnes) {
  ASSERT_TRUE(register_cross_run_evaluator("TEST-XRUN", [](const Claim& c, const CrossRunInput& in) {
    Verdict v;
    v.claim_id = c.id;
    v.verdict = Outcome::inconclusive;
    v.reason = std::to_string(in.runs.size()) + " runs";
    return v;
  }));
  EXPECT_TRUE(has_cross_run_evaluator("TEST-XRUN"));
  EXPECT_FALSE(has_cross_run_evaluator("CPU-1"));
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  std::vector<Claim> claims = read_claims(data_path("claims.csv"));
  Claim test;
  test.id = "TEST-XRUN";
  claims.insert(claims.begin(), test);
  auto v = cross_run_claims({&a, &b}, claims, data_path("datasheets.csv"));
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].first.id, "TEST-XRUN");
  EXPECT_EQ(v[0].second.reason, "2 runs");
  EXPECT_EQ(v[1].first.id, "GPU-3");  // then the suite's own, in claims.csv's order
  EXPECT_EQ(v[4].first.id, "MEM-3");
}

TEST(Compare, CrossRunClaimFollowsTheRunLevelRules) {
  // One DDR4 run and one DDR5 run: the figure is given, but without run-to-run noise it has no
  // interval, and the verdict is inconclusive, saying why.
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  a.data.inventory["memory_dimm_type"] = "DDR4";
  b.data.inventory["memory_dimm_type"] = "DDR5";
  auto claims = read_claims(data_path("claims.csv"));
  for (auto& [c, v] : cross_run_claims({&a, &b}, claims, data_path("datasheets.csv"))) {
    if (c.id == "MEM-2") {
      EXPECT_EQ(v.verdict, Outcome::inconclusive) << v.reason;
      EXPECT_TRUE(v.measured.ok());
      EXPECT_NE(v.reason.find("one run per side"), std::string::npos) << v.reason;
    }
    if (c.id == "MEM-3") {
      EXPECT_EQ(v.verdict, Outcome::not_measurable);  // no latency benchmark in these runs
    }
  }
  // Two runs of each: judged on the runs' interval.
  LoadedRun a3 = load_run(kRuns + "compare_a3"), a4 = load_run(kRuns + "compare_a4");
  a3.data.inventory["memory_dimm_type"] = "DDR4";
  a4.data.inventory["memory_dimm_type"] = "DDR5";
  for (auto& [c, v] : cross_run_claims({&a, &b, &a3, &a4}, claims, data_path("datasheets.csv")))
    if (c.id == "MEM-2") {
      EXPECT_NE(v.verdict, Outcome::not_measurable) << v.reason;
      EXPECT_LT(v.measured.low, v.measured.high);
      EXPECT_EQ(v.measured.reps, 2);  // runs per side
    }
}

TEST(Compare, GpuGenerationClaimsJudgedAcrossTuringAndAmpere) {
  // In-memory runs, two of each GPU: f16 tensor-core GEMM rows and datasheet peaks in a file.
  auto make = [](const std::string& label, const std::string& cc, const std::string& name, double tflops) {
    std::vector<ResultRow> rows;
    for (int rep = 0; rep < 5; ++rep)
      rows.push_back(row("gpu_gemm", names::kGpuGemm, "m8192/f16", "m=8192;dtype=f16;impl=cublasLt", "gflops",
                         "GFLOP/s", rep, 1000 * tflops * (1 + 0.002 * rep)));
    LoadedRun r = memory_run(label, rows);
    r.data.inventory["gpu0_compute_capability"] = cc;
    r.data.inventory["gpu0_name"] = name;
    return r;
  };
  LoadedRun t1 = make("t4a", "7.5", "Tesla T4", 40), t2 = make("t4b", "7.5", "Tesla T4", 40.4),
            a1 = make("a100a", "8.0", "NVIDIA A100-SXM4-40GB", 200),
            a2 = make("a100b", "8.0", "NVIDIA A100-SXM4-40GB", 198);
  std::string sheet = temp_file(
      "sheet.csv", "product,property,value,source\nT4,peak_tflops_f16,65,test\nA100,peak_tflops_f16,312,test\n");
  auto claims = read_claims(data_path("claims.csv"));
  int judged = 0;
  for (auto& [c, v] : cross_run_claims({&a1, &t1, &a2, &t2}, claims, sheet)) {
    if (c.id == "GPU-3") {
      EXPECT_NEAR(v.measured.value, std::sqrt(200.0 * 198) / std::sqrt(40.0 * 40.4), 0.01);
      EXPECT_EQ(v.verdict, Outcome::refuted);  // the guide says 3x +- 0.3
      ++judged;
    }
    if (c.id == "GPU-4") {
      EXPECT_NEAR(v.measured.value, 100 * ((4.95 * 65 / 312) - 1), 1.0);
      EXPECT_EQ(v.verdict, Outcome::refuted);
      ++judged;
    }
  }
  EXPECT_EQ(judged, 2);
}

TEST(Compare, IncompatibleRunsAreRefused) {
  LoadedRun a = load_run(kRuns + "compare_a"), b = load_run(kRuns + "compare_a2");
  b.data.inventory["method_version"] = "2";
  EXPECT_NE(incompatibility(a, b).find("method_version"), std::string::npos);
  EXPECT_THROW(load_run(kRuns + "does_not_exist"), InputError);
}

// A run folder written before this change (good/: a real tiny run) is read and paired by the new
// rule, never refused for its age.
TEST(Compare, OldRunFoldersAreRead) {
  LoadedRun g = load_run(kRuns + "good");
  EXPECT_FALSE(g.cases.empty());
  for (auto& [k, c] : g.cases) {
    EXPECT_EQ(c.requested.find("impl="), std::string::npos) << c.requested;
    EXPECT_EQ(c.requested.find("isa_cap="), std::string::npos) << c.requested;
  }
}

// Runs before 2026-12-04 wrote cpu_isa_avx2.csv and cpu_isa_native.csv (the same case names in
// each); cpu_isa.csv now holds both sides, its cases ending /isa_cap_avx2 and /isa_cap_native.
// data/renames.csv's source renames make an old run's cases the new ones' (one case each, matched),
// where before they were four unmatched cases; a file with no rename keeps its own name.
TEST(Compare, OldIsaFilesAreComparedAsTheNewOne) {
  const std::string p = "primitive=matmul;dtype=f32;threads=2";
  LoadedRun old_run = memory_run(
      "old",
      {row("cpu_isa_avx2", "isa_primitives", "matmul_f32/m2048/t2", p + ";isa_cap=avx2", "gflops", "GFLOP/s", 0, 180),
       row("cpu_isa_native", "isa_primitives", "matmul_f32/m2048/t2", p + ";isa_cap=native", "gflops", "GFLOP/s", 0,
           330),
       row("cpu_gemm", "gemm_matmul_f32", "m2048/t2", "threads=2", "gflops", "GFLOP/s", 0, 330)});
  LoadedRun new_run = memory_run("new", {row("cpu_isa", "isa_primitives", "matmul_f32/m2048/t2/isa_cap_avx2",
                                             p + ";isa_cap=avx2", "gflops", "GFLOP/s", 0, 181),
                                         row("cpu_isa", "isa_primitives", "matmul_f32/m2048/t2/isa_cap_native",
                                             p + ";isa_cap=native", "gflops", "GFLOP/s", 0, 331)});
  std::set<std::string> old_keys, new_keys;
  for (auto& [k, c] : old_run.cases) old_keys.insert(k);
  for (auto& [k, c] : new_run.cases) new_keys.insert(k);
  EXPECT_EQ(old_run.cases.size(), 3u);
  for (const std::string& k : new_keys) EXPECT_TRUE(old_keys.count(k)) << k;
  bool gemm = false;
  for (auto& [k, c] : old_run.cases) gemm |= c.source == "cpu_gemm" && c.case_name == "m2048/t2";
  EXPECT_TRUE(gemm);
}
