// bench/claims/src/verdict.cpp: the verdict rules for each kind of claim, and what a verdict rests on.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <vector>

#include "rigcheck/report/report.hpp"
#include "support/runs.hpp"

using namespace rigcheck;
using namespace rigcheck::testsupport;
namespace fs = std::filesystem;

TEST(Verdict, RulesForEachKindOfClaim) {
  // A claim of each kind (its low and high, its tolerance), and measured intervals with the verdict
  // each gets.
  struct Interval {
    double low, high;
    Outcome want;
    const char* why;
  };
  struct Kind {
    ClaimKind kind;
    double low, high, tolerance;
    std::vector<Interval> measured;
  };
  const Kind kinds[] = {
      {ClaimKind::range,
       20,
       30,
       2,
       {{21, 29, Outcome::confirmed, "inside the range"},
        {18.5, 31.5, Outcome::confirmed, "inside the tolerance"},
        {5, 10, Outcome::refuted, "below"},
        {33, 40, Outcome::refuted, "above"},
        {25, 35, Outcome::inconclusive, "noise straddles the upper edge"}}},
      {ClaimKind::at_least,
       85,
       30,
       5,
       {{90, 99, Outcome::confirmed, "above the floor"},
        {60, 70, Outcome::refuted, "below the floor and its tolerance"},
        {75, 85, Outcome::inconclusive, "straddles the floor's tolerance"}}},
      {ClaimKind::at_most,
       20,
       10,
       0,
       {{1, 9, Outcome::confirmed, "under the ceiling"}, {11, 12, Outcome::refuted, "over the ceiling"}}},
      {ClaimKind::approx,
       18,
       30,
       3,
       {{16, 20, Outcome::confirmed, "within the tolerance of the figure"},
        {0, 2, Outcome::refuted, "far from the figure"}}},
  };
  for (const Kind& k : kinds) {
    Claim c;
    c.id = "X";
    c.kind = k.kind;
    c.low = k.low;
    c.high = k.high;
    c.tolerance = k.tolerance;
    for (const Interval& m : k.measured) EXPECT_EQ(judge(c, m.low, m.high), m.want) << m.why;
  }
  Claim fact;
  fact.kind = ClaimKind::fact;
  EXPECT_THROW(judge(fact, 1, 2), std::logic_error);
}

// ------------------------------------------------------------------ what each verdict rests on
// Every evaluator over every fixture run says what a judged verdict rests on
// (evaluate_claim would throw otherwise), and the GPU claims that rest on datasheets or on an
// extrapolation say so.
TEST(GpuVerdicts, EveryJudgedVerdictOfEveryFixtureRunStatesItsBasis) {
  int runs = 0, judged = 0;
  for (const auto& e : fs::directory_iterator(fs::path(RIGCHECK_FIXTURES) / "runs")) {
    if (!e.is_directory()) continue;
    ++runs;
    std::vector<Verdict> vs;
    ASSERT_NO_THROW(vs = make_report(copy_fixture(e.path().filename().string()), quiet())) << e.path();
    for (const Verdict& v : vs) {
      if (!is_judged(v.verdict)) continue;
      ++judged;
      EXPECT_NE(v.basis, Basis::none) << e.path().filename() << " " << v.claim_id;
    }
    for (const Verdict& v : vs) {
      if (!is_judged(v.verdict)) continue;
      if (v.claim_id == "GPU-2" || v.claim_id == "GPU-3" || v.claim_id == "GPU-5") {
        EXPECT_EQ(v.basis, Basis::datasheet) << e.path().filename() << " " << v.claim_id;
      } else if (v.claim_id == "PWR-2") {
        EXPECT_EQ(v.basis, Basis::predicted) << e.path().filename();
      } else if (v.claim_id == "PWR-1") {
        EXPECT_EQ(v.basis, Basis::measured) << e.path().filename();
      }
    }
  }
  EXPECT_GE(runs, 5);
  EXPECT_GT(judged, 10);
}

TEST(GpuVerdicts, AJudgedVerdictWithoutABasisIsAnError) {
  register_evaluator("TEST-NO-BASIS", [](const Claim&, const RunData&) {
    Verdict v;
    v.verdict = Outcome::confirmed;  // and no basis
    return v;
  });
  register_evaluator("TEST-PREDICTED", [](const Claim&, const RunData&) {
    Verdict v;
    v.verdict = Outcome::predicted;
    return v;
  });
  Claim c;
  c.id = "TEST-NO-BASIS";
  RunData run;
  EXPECT_THROW(evaluate_claim(c, run), std::logic_error);
  c.id = "TEST-PREDICTED";
  EXPECT_EQ(evaluate_claim(c, run).basis, Basis::predicted);
}
