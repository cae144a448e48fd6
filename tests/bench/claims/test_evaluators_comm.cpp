// bench/claims/src/evaluators_comm.cpp: the comm verdicts over a recorded quick run of 2 ranks on one
// machine (tests/fixtures/runs/comm_2ranks: comm_allreduce_mpi and comm_allreduce_mpi_tcp, no GPU,
// no InfiniBand).
#include <gtest/gtest.h>

#include "rigcheck/harness/names.hpp"
#include "rigcheck/report/report.hpp"
#include "support/runs.hpp"

using rigcheck::testsupport::copy_fixture;
using rigcheck::testsupport::verdict_of;

TEST(CommVerdicts, Net1MeasuredOnTwoRanksWithTheRingFormula) {
  rigcheck::ReportOptions o;
  o.quiet = true;
  auto vs = rigcheck::make_report(copy_fixture("comm_2ranks"), o);
  const auto& net1 = verdict_of(vs, "NET-1");
  EXPECT_EQ(net1.verdict,
            rigcheck::Outcome::refuted);  // 0.8 GB measured in all vs 1.6 GB by the guide's formula at 2 ranks
  EXPECT_EQ(net1.unit, "GB");
  EXPECT_NEAR(net1.measured.value, 0.8, 0.05);
  EXPECT_GE(net1.measured.reps, 3);
  EXPECT_NE(net1.reason.find("2(n-1)/n"), std::string::npos);
  EXPECT_NE(net1.reason.find("step budget of 1 s"), std::string::npos);
  EXPECT_NE(net1.reason.find("4.8 Gbps"), std::string::npos);  // 0.6 GB x 8 / 1 s on the guide's 4 nodes

  o.step_budget_s = 0.5;
  auto vs2 = rigcheck::make_report(copy_fixture("comm_2ranks"), o);
  EXPECT_NE(verdict_of(vs2, "NET-1").reason.find("9.6 Gbps"), std::string::npos);

  const auto& net2 = verdict_of(vs, "NET-2");
  EXPECT_EQ(net2.verdict, rigcheck::Outcome::not_measurable);
  EXPECT_NE(net2.reason.find("InfiniBand"), std::string::npos);
  EXPECT_NE(net2.evidence.find("TCP"), std::string::npos);
  EXPECT_NE(net2.evidence.find("shared memory"), std::string::npos);
  EXPECT_EQ(verdict_of(vs, "GPU-6").verdict, rigcheck::Outcome::not_measurable);
  EXPECT_EQ(verdict_of(vs, "GPU-7").verdict, rigcheck::Outcome::not_measurable);
  EXPECT_NE(verdict_of(vs, "GPU-7").reason.find("2 nodes"), std::string::npos);
}

// GPU-7 needs 2 nodes: a run's `nodes` fact is the most nodes its ok rows ran across (the inventory
// is one node's), so an NCCL all-reduce across 2 nodes meets the need and is judged.
TEST(CommVerdicts, Gpu7IsJudgedOnAnNcclRunAcrossTwoNodes) {
  rigcheck::RunData run;
  run.inventory["gpu_count"] = "1";
  for (int rep = 0; rep < 3; ++rep)
    run.results.push_back(rigcheck::result_row(rigcheck::names::kNcclAllreduce, "n2",
                                               "size_bytes=67108864;ranks=2;nodes=2;launch=process",
                                               rigcheck::names::kBusbw, 5 + 0.1 * rep, "GB/s", rep));
  rigcheck::add_run_facts(run);
  EXPECT_EQ(run.facts.at("nodes"), "2");
  rigcheck::Claim gpu7;
  for (const rigcheck::Claim& c : rigcheck::read_claims(rigcheck::data_path("claims.csv")))
    if (c.id == "GPU-7") gpu7 = c;
  const rigcheck::Verdict v = rigcheck::evaluate_claim(gpu7, run);
  EXPECT_EQ(v.verdict, rigcheck::Outcome::refuted) << v.reason;  // 40 Gbps against the guide's 100
  EXPECT_NEAR(v.measured.value, 40.8, 0.5);
}
