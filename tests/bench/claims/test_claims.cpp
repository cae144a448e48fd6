// bench/claims/src/claims.cpp: the claims registry (data/claims.csv) covers every claim id of
// docs/claims.md (the catalogue the suite checks), with the guide's errors and its own words.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "rigcheck/harness/paths.hpp"
#include "rigcheck/report/report.hpp"
#include "support/paths.hpp"

using namespace rigcheck;

TEST(Claims, RegistryHasEveryClaimIdOfClaimsMd) {
  std::ifstream md(RIGCHECK_CLAIMS_MD);
  ASSERT_TRUE(md.good()) << "cannot read " << RIGCHECK_CLAIMS_MD;
  std::set<std::string> want, have;
  std::regex row(R"(^\| ([A-Z]+-[0-9]+) \|)");
  for (std::string line; std::getline(md, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) want.insert(m[1]);
  }
  for (const Claim& c : read_claims(data_path("claims.csv"))) have.insert(c.id);
  EXPECT_GE(want.size(), 25u);
  EXPECT_EQ(want, have);
}

TEST(Claims, GuideErrorsNamedByClaimsMdAreRecorded) {
  for (const Claim& c : read_claims(data_path("claims.csv"))) {
    bool expected = c.id == "CPU-6" || c.id == "GPU-2" || c.id == "MEM-1" || c.id == "IO-1" || c.id == "NET-1" ||
                    c.id == "PWR-1";
    EXPECT_EQ(!c.guide_error.empty(), expected) << c.id;
    EXPECT_FALSE(c.text_zh.empty()) << c.id;
  }
}

// evaluate_claim checks a claim's needs before its evaluator runs: the evaluator of a claim whose
// needs are unmet never runs, the verdict is the framework's not_measurable (with what a hook adds),
// and only a predicting claim's evaluator runs with its needs unmet.
TEST(Claims, NeedsAreCheckedBeforeTheEvaluatorRuns) {
  static int ran = 0;
  auto evaluator = [](const Claim&, const RunData&) {
    ++ran;
    Verdict v;
    v.verdict = Outcome::predicted;
    return v;
  };
  register_evaluator("TEST-NEEDS", evaluator);
  register_evaluator("TEST-NEEDS-HOOK", evaluator, [](const Claim&, const RunData&, Verdict& v) { v.evidence = "hook"; });
  register_predicting_evaluator("TEST-NEEDS-PREDICTS", "a test's model", evaluator);
  Claim c;
  c.needs = "gpu_count>=1";
  c.needs_text = "a GPU";
  c.unit = "x";
  RunData run;
  run.facts["gpu_count"] = "0";
  c.id = "TEST-NEEDS";
  Verdict v = evaluate_claim(c, run);
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(v.verdict, Outcome::not_measurable);
  EXPECT_EQ(v.reason, "needs a GPU: gpu_count>=1 (this machine: 0)");
  EXPECT_EQ(v.claim_id, "TEST-NEEDS");
  EXPECT_EQ(v.unit, "x");
  c.id = "TEST-NEEDS-HOOK";
  v = evaluate_claim(c, run);
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(v.reason, "needs a GPU: gpu_count>=1 (this machine: 0)");
  EXPECT_EQ(v.evidence, "hook");
  c.id = "TEST-NEEDS-PREDICTS";
  EXPECT_EQ(evaluate_claim(c, run).verdict, Outcome::predicted);
  EXPECT_EQ(ran, 1);
  run.facts["gpu_count"] = "1";
  c.id = "TEST-NEEDS";
  EXPECT_EQ(evaluate_claim(c, run).verdict, Outcome::predicted);
  EXPECT_EQ(ran, 2);
}
