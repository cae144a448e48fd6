#include "rigcheck/harness/time_budget.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace rigcheck {

TimeBudget::TimeBudget(double seconds, size_t units, Clock::time_point start, bool taking_turns)
    : seconds_(seconds > 0 && std::isfinite(seconds) ? seconds : 0),
      units_left_(units),
      start_(start),
      unit_start_(start),
      taking_turns_(taking_turns) {}

void TimeBudget::start_unit(Clock::time_point now) {
  unit_start_ = now;
  if (!on()) return;
  const double left = seconds_ - std::chrono::duration<double>(now - start_).count();
  share_ = std::max(0.0, left) / static_cast<double>(std::max<size_t>(units_left_, 1));
  if (units_left_ > 0) --units_left_;
}

double TimeBudget::unit_left(Clock::time_point now) const {
  if (!on()) return std::numeric_limits<double>::infinity();
  return share_ - std::chrono::duration<double>(now - unit_start_).count();
}

int TimeBudget::rounds_that_fit(double per_round, int wanted, Clock::time_point now) const {
  if (wanted <= 0) return 0;
  if (!on() || !(per_round > 0)) return wanted;
  if (taking_turns_) return 0;
  const double fit = std::floor(unit_left(now) / per_round);
  return static_cast<int>(std::clamp(fit, 0.0, static_cast<double>(wanted)));
}

std::string TimeBudget::cut_note(int done, int wanted) const {
  if (taking_turns_)
    return fmt::format(
        "taking turns under a time budget: the floor's {} of its {} repetitions (the two sides "
        "cannot agree on more)",
        done, wanted);
  return fmt::format(
      "the time budget ({:.1f} s of this binary's {:.0f} s for this case) allowed {} of its {} repetitions", share_,
      seconds_, done, wanted);
}

}  // namespace rigcheck
