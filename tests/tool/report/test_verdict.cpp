// tool/src/report/verdict.cpp: the verdict rules for each kind of claim.
#include <gtest/gtest.h>

#include <stdexcept>

#include "rigcheck/tool/report.hpp"

using namespace rigcheck;

TEST(Verdict, RulesForEachKindOfClaim) {
  Claim range;
  range.id = "X";
  range.kind = ClaimKind::range;
  range.low = 20;
  range.high = 30;
  range.tolerance = 2;
  EXPECT_EQ(judge(range, 21, 29), Outcome::confirmed);
  EXPECT_EQ(judge(range, 18.5, 31.5), Outcome::confirmed);  // inside the tolerance
  EXPECT_EQ(judge(range, 5, 10), Outcome::refuted);
  EXPECT_EQ(judge(range, 33, 40), Outcome::refuted);
  EXPECT_EQ(judge(range, 25, 35), Outcome::inconclusive);  // noise straddles the upper edge
  Claim least = range;
  least.kind = ClaimKind::at_least;
  least.low = 85;
  least.tolerance = 5;
  EXPECT_EQ(judge(least, 90, 99), Outcome::confirmed);
  EXPECT_EQ(judge(least, 60, 70), Outcome::refuted);
  EXPECT_EQ(judge(least, 75, 85), Outcome::inconclusive);
  Claim most = range;
  most.kind = ClaimKind::at_most;
  most.high = 10;
  most.tolerance = 0;
  EXPECT_EQ(judge(most, 1, 9), Outcome::confirmed);
  EXPECT_EQ(judge(most, 11, 12), Outcome::refuted);
  Claim approx = range;
  approx.kind = ClaimKind::approx;
  approx.low = 18;
  approx.tolerance = 3;
  EXPECT_EQ(judge(approx, 16, 20), Outcome::confirmed);
  EXPECT_EQ(judge(approx, 0, 2), Outcome::refuted);
  Claim fact = range;
  fact.kind = ClaimKind::fact;
  EXPECT_THROW(judge(fact, 1, 2), std::logic_error);
}
