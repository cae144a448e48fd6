// --time-budget: the seconds a benchmark binary may spend on its cases (the runner's share of a
// profile's budget, `rigcheck run --budget`), shared among its units (a case, or an interleaved
// group) as they come: each unit may use what is left over the units still to run, so that a unit
// that finished early leaves its time to the later ones and one that ran over takes from them.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace rigcheck {

// Repetitions a case keeps under a budget, however short: a median and a spread need three.
inline constexpr int kBudgetMinReps = 3;

class TimeBudget {
 public:
  using Clock = std::chrono::steady_clock;
  // seconds <= 0: no budget (every method answers as if time were unlimited).
  // taking_turns: this process takes turns with a second one (alternate.hpp): each side times only
  // itself, so the two could not agree on rounds beyond the floor: rounds_that_fit gives none.
  TimeBudget(double seconds, size_t units, Clock::time_point start = Clock::now(), bool taking_turns = false);
  bool on() const { return seconds_ > 0; }
  // A unit starts: its share is the time left over the units left (this one included).
  void start_unit(Clock::time_point now = Clock::now());
  // Seconds of the current unit's share still unspent (may be negative); +inf without a budget.
  double unit_left(Clock::time_point now = Clock::now()) const;
  double unit_share() const { return share_; }
  double seconds() const { return seconds_; }
  // How many more rounds of `per_round` seconds fit in the unit's share, at most `wanted`.
  int rounds_that_fit(double per_round, int wanted, Clock::time_point now = Clock::now()) const;
  // The words of a case's note when the budget cut its repetitions: "the time budget (4.1 s of
  // this binary's 60 s for this case) allowed 3 of its 5 repetitions"; taking turns, that the
  // floor's were kept.
  std::string cut_note(int done, int wanted) const;

 private:
  double seconds_;
  size_t units_left_;
  Clock::time_point start_, unit_start_;
  double share_ = 0;
  bool taking_turns_ = false;
};

}  // namespace rigcheck
