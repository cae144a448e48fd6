// bench/report/src/report.cpp over fixture run folders (tests/fixtures/runs/): a real tiny run, a
// synthetic AVX-512 8-core run, and broken copies.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/report/report.hpp"
#include "support/files.hpp"
#include "support/runs.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;
using namespace rigcheck::testsupport;

TEST(Report, RealTinyRunGivesOneVerdictPerClaim) {
  std::string dir = copy_fixture("good");
  auto vs = make_report(dir, quiet());
  auto claims = read_claims(data_path("claims.csv"));
  ASSERT_EQ(vs.size(), claims.size());
  for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i].claim_id, claims[i].id);

  const Verdict& cpu1 = verdict_of(vs, "CPU-1");           // 2 cores: E(2) measured, E(8) predicted
  EXPECT_EQ(cpu1.basis, Basis::predicted) << cpu1.reason;  // judged on the predicted interval
  EXPECT_TRUE(is_judged(cpu1.verdict)) << cpu1.reason;
  EXPECT_GT(cpu1.measured.reps, 0);
  EXPECT_GT(cpu1.measured.value, 0);
  EXPECT_FALSE(std::isnan(cpu1.predicted));
  EXPECT_LT(cpu1.predicted, cpu1.measured.value);  // Amdahl efficiency only falls with n
  EXPECT_NE(cpu1.reason.find("PREDICTED"), std::string::npos);
  EXPECT_EQ(verdict_of(vs, "CPU-6").verdict, Outcome::refuted);
  EXPECT_EQ(verdict_of(vs, "CPU-4").verdict, Outcome::confirmed);
  EXPECT_EQ(verdict_of(vs, "CPU-5").verdict, Outcome::not_measurable);
  EXPECT_NE(verdict_of(vs, "CPU-5").reason.find("isa_avx512f=yes (this machine: no)"), std::string::npos);
  EXPECT_EQ(verdict_of(vs, "GPU-1").verdict, Outcome::not_measurable);
  EXPECT_NE(verdict_of(vs, "GPU-1").reason.find("gpu_count>=1 (this machine: 0)"), std::string::npos);
  EXPECT_EQ(verdict_of(vs, "CPU-3").verdict, Outcome::not_measurable);  // no working-set sweep in this fixture
  EXPECT_NE(verdict_of(vs, "CPU-3").reason.find("cpu_cache_fc"), std::string::npos);

  std::string csv = slurp(dir + "/verdicts.csv");
  EXPECT_EQ(csv.rfind("claim_id,section,claim,verdict,guide_value,measured_value,measured_low,measured_high,reps,"
                      "predicted_value,unit,evidence,reason,guide_error,basis,summary\n",
                      0),
            0u);
  std::string md = slurp(dir + "/report.md");
  EXPECT_NE(md.find("对于中等规模模型"), std::string::npos);  // the guide's own words beside each claim
  EXPECT_NE(md.find("% of measured f32 peak"), std::string::npos);
}

TEST(Report, SyntheticAvx512EightCoreRunGivesMeasuredVerdicts) {
  std::string dir = copy_fixture("avx512_synthetic");
  auto vs = make_report(dir, quiet());
  const Verdict& cpu5 = verdict_of(vs, "CPU-5");
  EXPECT_EQ(cpu5.verdict, Outcome::confirmed) << cpu5.reason;
  // geometric mean of 125/100 and 62/50
  EXPECT_NEAR(cpu5.measured.value, 100 * (std::sqrt(1.25 * 1.24) - 1), 1e-9);
  EXPECT_NEAR(cpu5.measured.low, 100 * (std::sqrt(124.0 / 102 * 61 / 51) - 1), 1e-9);
  EXPECT_NE(cpu5.evidence.find("bf16"), std::string::npos);
  const Verdict& cpu1 = verdict_of(vs, "CPU-1");
  EXPECT_EQ(cpu1.verdict, Outcome::confirmed);
  EXPECT_NEAR(cpu1.measured.value, 100 * 72.0 / 80, 1e-9);
  EXPECT_TRUE(std::isnan(cpu1.predicted));
}

// Rows of two registry entries (the same benchmark and case names, an ISA cap apart) never share a
// line of the Measurements table: seen once, a median mixing both ISAs beside one implementation name.
TEST(Report, RowsOfDifferentRegistryEntriesAreNeverMerged) {
  std::string dir = copy_fixture("avx512_synthetic");
  make_report(dir, quiet());
  std::string md = slurp(dir + "/report.md");
  EXPECT_NE(md.find("### isa_primitives (`cpu_isa_avx2.csv`)"), std::string::npos) << md;
  EXPECT_NE(md.find("### isa_primitives (`cpu_isa_native.csv`)"), std::string::npos) << md;
  // Each table has 3 repetitions per case, not the 6 of both files.
  EXPECT_NE(md.find("| matmul_f32/m2048n2048k2048/t8 | brg:avx2 | 100.0 GFLOP/s | 98.00 to 102.0 | 3 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| matmul_f32/m2048n2048k2048/t8 | brg:avx512_core | 125.0 GFLOP/s | 124.0 to 126.0 | 3 |"),
            std::string::npos)
      << md;
  // A case skipped under one cap says so; the other file's bf16 median is not beside it.
  EXPECT_NE(md.find("| matmul_bf16/m2048n2048k2048/t8 | - | - | - | 0 | - | - | 1 skipped:"), std::string::npos) << md;
}

TEST(Report, ClaimFiguresFlipTheVerdict) {
  // The same measurement against a claim it falls short of: refuted, not confirmed.
  std::string dir = copy_fixture("avx512_synthetic");
  std::string claims = slurp(data_path("claims.csv"));
  claims = std::regex_replace(claims, std::regex(",range,20,30,%,2,"), ",range,50,60,%,2,");
  std::string path = dir + "/claims-edited.csv.txt";
  std::ofstream(path) << claims;
  ReportOptions o = quiet();
  o.claims_path = path;
  EXPECT_EQ(verdict_of(make_report(dir, o), "CPU-5").verdict, Outcome::refuted);
}

namespace {
// Corrupts one result file of a copy of the good run, then checks that the report refuses it
// with file and line, and that the earlier report is left as it was.
void expect_refused(const std::string& from, const std::string& to, const std::string& expect_in_message) {
  std::string dir = copy_fixture("good");
  std::ofstream(dir + "/report.md") << "EARLIER REPORT";
  std::string path = dir + "/cpu_gemm.csv";
  std::string text = slurp(path);
  size_t pos = text.find(from);
  ASSERT_NE(pos, std::string::npos) << from;
  text.replace(pos, from.size(), to);
  std::ofstream(path) << text;
  try {
    make_report(dir, quiet());
    ADD_FAILURE() << "report accepted a broken file";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_GT(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find(expect_in_message), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(dir + "/report.md"), "EARLIER REPORT");
  EXPECT_FALSE(fs::exists(dir + "/verdicts.csv"));
}
}  // namespace

TEST(Report, BrokenResultFilesAreRefusedWithFileAndLine) {
  expect_refused(",time_per_iter,", ",time_per_iter,1,", "too many columns");
  expect_refused(",gflops,", ",gflops,fast", "not a finite number");
  expect_refused("\n1,", "\n7,", "unknown schema_version 7");
}

TEST(Report, MissingInventoryIsRefused) {
  std::string dir = copy_fixture("good");
  fs::remove(dir + "/inventory.csv");
  EXPECT_THROW(make_report(dir, quiet()), InputError);
}

// Adaptive repetitions that stopped above their target (reps_cap_hit 1) are named: the reps column
// says "(cap hit)" and the warnings list the case; a case within its target (0) is not marked.
TEST(Report, CasesThatHitTheRepetitionCapAreNamed) {
  std::string dir = copy_fixture("avx512_synthetic");
  {
    std::ofstream f(dir + "/cpu_isa_native.csv", std::ios::app);
    f << "1,synthetic,isa_primitives,matmul_f32/m2048n2048k2048/"
         "t8,primitive=matmul;dtype=f32;threads=8;impl=brg:avx512_core;"
         "isa=avx512_core_bf16;isa_cap=native,reps_cap_hit,1,count,-1,ok,spread 9% still above the target 5%: the cap "
         "of 10 "
         "repetitions was reached\n";
    f << "1,synthetic,isa_primitives,matmul_f32/m2048n2048k2048/"
         "t8,primitive=matmul;dtype=f32;threads=8;impl=brg:avx512_core;"
         "isa=avx512_core_bf16;isa_cap=native,reps_spread,0.09,fraction,-1,ok,\n";
  }
  {
    std::ofstream f(dir + "/cpu_isa_avx2.csv", std::ios::app);
    f << "1,synthetic,isa_primitives,matmul_f32/m2048n2048k2048/t8,primitive=matmul;dtype=f32;threads=8;impl=brg:avx2;"
         "isa=avx2;isa_cap=avx2,reps_cap_hit,0,count,-1,ok,spread 1% within the target 5%\n";
  }
  make_report(dir, quiet());
  std::string md = slurp(dir + "/report.md");
  EXPECT_NE(
      md.find("| matmul_f32/m2048n2048k2048/t8 | brg:avx512_core | 125.0 GFLOP/s | 124.0 to 126.0 | 3 (cap hit) |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| matmul_f32/m2048n2048k2048/t8 | brg:avx2 | 100.0 GFLOP/s | 98.00 to 102.0 | 3 |"),
            std::string::npos)
      << md;
  EXPECT_NE(
      md.find(
          "1 cases still spread more than their target when the repetitions stopped (cap hit, see the reps column): "
          "isa_primitives/matmul_f32/m2048n2048k2048/t8"),
      std::string::npos)
      << md;
}

// report.html draws the machine from the inventory's core_layout: a package per socket, its NUMA nodes,
// their last-level caches, the cores and their CPUs, the CPUs outside the run's cpuset grey.
TEST(Report, HtmlDrawsTheMachinesShape) {
  std::string dir = copy_fixture("good");
  {
    std::ofstream inv(dir + "/inventory.csv", std::ios::app);
    inv << "core_layout,\"0.0.0:0,1;0.0.0:2,3;0.0.0:4,5;0.0.0:6,7;1.1.1:8,9;1.1.1:10,11;1.1.1:12,13;1.1.1:14,15\"\n";
  }
  std::string text;
  {
    std::ifstream in(dir + "/inventory.csv");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("cpu_allowed,", 0) != 0) text += line + "\n";
  }
  std::ofstream(dir + "/inventory.csv") << text << "cpu_allowed,0-11\n";
  make_report(dir, quiet());
  std::ifstream in(dir + "/report.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t p = html.find(what); p != std::string::npos; p = html.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<svg class=\"machine\""), 1u);
  EXPECT_EQ(count("class=\"package\""), 2u);
  EXPECT_EQ(count("class=\"node\""), 2u);
  EXPECT_EQ(count("class=\"llc\""), 2u);
  EXPECT_EQ(count("class=\"core\""), 8u);
  EXPECT_EQ(count("class=\"pu\""), 12u);            // CPUs 0-11, allowed
  EXPECT_EQ(count("class=\"pu disallowed\""), 4u);  // 12-15
  EXPECT_NE(html.find("NUMA node 1"), std::string::npos);
}
