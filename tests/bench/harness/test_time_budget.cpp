// TimeBudget (harness/time_budget.hpp): a binary's --time-budget shared among its units as they come.
#include <gtest/gtest.h>

#include <cmath>

#include "rigcheck/harness/time_budget.hpp"

using namespace rigcheck;
using Clock = TimeBudget::Clock;
using std::chrono::milliseconds;

// 10 s for 4 units: the first gets 2.5 s; it ran 4.5 s, so the second gets (10 - 4.5) / 3; a unit
// that finished early leaves its time to the later ones.
TEST(TimeBudget, EachUnitGetsWhatIsLeftOverTheUnitsLeft) {
  const Clock::time_point t0{};
  TimeBudget b(10, 4, t0);
  ASSERT_TRUE(b.on());
  b.start_unit(t0);
  EXPECT_DOUBLE_EQ(b.unit_share(), 2.5);
  EXPECT_DOUBLE_EQ(b.unit_left(t0 + milliseconds(1000)), 1.5);
  b.start_unit(t0 + milliseconds(4500));
  EXPECT_DOUBLE_EQ(b.unit_share(), 5.5 / 3);
  b.start_unit(t0 + milliseconds(5000));
  EXPECT_DOUBLE_EQ(b.unit_share(), 2.5);   // the second took 0.5 s of its 1.83
  b.start_unit(t0 + milliseconds(12000));  // over the budget: nothing left, never negative
  EXPECT_DOUBLE_EQ(b.unit_share(), 0);
}

TEST(TimeBudget, RoundsThatFitTheShare) {
  const Clock::time_point t0{};
  TimeBudget b(6, 2, t0);
  b.start_unit(t0);                                                   // 3 s
  EXPECT_EQ(b.rounds_that_fit(0.5, 10, t0 + milliseconds(1000)), 4);  // 2 s left
  EXPECT_EQ(b.rounds_that_fit(0.5, 3, t0 + milliseconds(1000)), 3);   // at most what is wanted
  EXPECT_EQ(b.rounds_that_fit(0.5, 10, t0 + milliseconds(3500)), 0);  // spent
  EXPECT_EQ(b.rounds_that_fit(0, 7, t0), 7);                          // a round of no time: all
  EXPECT_NE(b.cut_note(3, 5).find("allowed 3 of its 5 repetitions"), std::string::npos) << b.cut_note(3, 5);
}

TEST(TimeBudget, NoneWhenZero) {
  TimeBudget b(0, 3);
  EXPECT_FALSE(b.on());
  b.start_unit();
  EXPECT_TRUE(std::isinf(b.unit_left()));
  EXPECT_EQ(b.rounds_that_fit(100, 9), 9);
}
