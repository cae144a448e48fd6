// bench/claims/src/claims.cpp: the claims registry (data/claims.csv) covers every claim id of
// docs/claims.md (the catalogue the suite checks), with the guide's errors and its own words; the
// catalogue's needs and the way each claim is judged agree with claims.csv and the registrations.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "rigcheck/harness/paths.hpp"
#include "rigcheck/compare/compare.hpp"
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
    bool expected =
        c.id == "CPU-6" || c.id == "GPU-2" || c.id == "MEM-1" || c.id == "IO-1" || c.id == "NET-1" || c.id == "PWR-1";
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
  register_evaluator("TEST-NEEDS-HOOK", evaluator,
                     [](const Claim&, const RunData&, Verdict& v) { v.evidence = "hook"; });
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

namespace {
// How docs/claims.md's `judged` column says a claim is judged, from the registries: one run (its
// evaluator, register_evaluator), what it predicts from where its needs are unmet
// (register_predicting_evaluator), and across runs (register_cross_run_evaluator, rigcheck compare).
std::string how_judged(const std::string& id) {
  const Registration* r = registration_of(id);
  std::string s = r ? "one run" : "no evaluator";
  if (r && !r->predicts_from.empty()) s += "; with needs unmet, predicted from " + r->predicts_from;
  if (has_cross_run_evaluator(id)) s += "; across runs (rigcheck compare)";
  return s;
}

// The cells of a Markdown table row "| a | b |".
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  const std::string body = line.substr(2, line.size() - 4);
  for (size_t at = 0;;) {
    const size_t bar = body.find(" | ", at);
    out.push_back(body.substr(at, bar == std::string::npos ? std::string::npos : bar - at));
    if (bar == std::string::npos) return out;
    at = bar + 3;
  }
}

}  // namespace

// docs/claims.md's tables against the code they describe: one row per claim of data/claims.csv;
// its `needs` cell is claims.csv's needs_text (or its `needs` expression in backticks, or "none"
// where it has none), which the framework checks before the evaluator runs, optionally followed by
// "; " and more; its `judged` cell is how_judged.
TEST(Claims, ClaimsMdTablesAgreeWithTheCode) {
  std::ifstream md(RIGCHECK_CLAIMS_MD);
  ASSERT_TRUE(md.good()) << "cannot read " << RIGCHECK_CLAIMS_MD;
  std::map<std::string, Claim> claims;
  for (const Claim& c : read_claims(data_path("claims.csv"))) claims[c.id] = c;
  std::set<std::string> rows;
  size_t needs_col = 0, judged_col = 0;
  for (std::string line; std::getline(md, line);) {
    if (line.rfind("| id |", 0) == 0) {
      const std::vector<std::string> head = cells(line);
      needs_col = std::find(head.begin(), head.end(), "needs") - head.begin();
      judged_col = std::find(head.begin(), head.end(), "judged") - head.begin();
      ASSERT_LT(needs_col, head.size()) << "a table without a `needs` column: " << line;
      ASSERT_LT(judged_col, head.size()) << "a table without a `judged` column: " << line;
      continue;
    }
    std::smatch m;
    if (!std::regex_search(line, m, std::regex(R"(^\| ([A-Z]+-[0-9]+) \|)"))) continue;
    const std::string id = m[1];
    EXPECT_TRUE(rows.insert(id).second) << id << " has two rows";
    const std::vector<std::string> row = cells(line);
    ASSERT_GT(row.size(), std::max(needs_col, judged_col)) << line;
    auto it = claims.find(id);
    if (it == claims.end()) continue;  // RegistryHasEveryClaimIdOfClaimsMd names it
    const Claim& c = it->second;
    const std::string& needs = row[needs_col];
    bool agrees = false;
    for (const std::string& head : {c.needs.empty() ? std::string("none") : c.needs_text, "`" + c.needs + "`"})
      agrees = agrees || (!head.empty() && head != "``" && needs.rfind(head, 0) == 0 &&
                          (needs.size() == head.size() || needs.compare(head.size(), 2, "; ") == 0));
    EXPECT_TRUE(agrees) << id << ": the needs cell '" << needs << "' does not begin with claims.csv's needs_text '"
                        << c.needs_text << "' (or `" << c.needs << "`, or none where it has no needs)";
    EXPECT_EQ(row[judged_col], how_judged(id)) << id << ": the judged cell";
  }
  EXPECT_EQ(rows.size(), claims.size());
}
