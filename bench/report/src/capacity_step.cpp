// The capacity answer's bottleneck: a measured ceiling is named as what limits a
// step only when the step uses at least kLimitingShare of it; otherwise none is, and the answer
// says what the step time is made of as far as this run measured (capacity.hpp: StepPart).
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

std::string bottleneck_of(const std::vector<LimitFigure>& limits, double step_s, const std::vector<StepPart>& parts) {
  const LimitFigure* first = nullptr;
  for (const LimitFigure& l : limits)
    if (l.ok() && (!first || l.share > first->share)) first = &l;
  if (!first) return "none can be named: no ceiling was measured";
  if (first->share >= kLimitingShare)
    return fmt::format("{} ({:.0f}% of its ceiling): {}", first->what, 100 * first->share, first->text);
  std::string s = fmt::format(
      "none of the measured ceilings (the largest, {}, at {:.0f}%): the step uses less than {:.0f}% of every ceiling "
      "the suite "
      "measured, and a ceiling so far off does not limit it. Of the {} s step, as far as this run measured",
      first->what, 100 * first->share, 100 * kLimitingShare, fmt_num(step_s));
  double known = 0;
  std::string missing;
  for (const StepPart& p : parts) {
    if (std::isnan(p.seconds)) {
      missing += fmt::format("{}{} ({})", missing.empty() ? "" : "; ", p.what, p.text);
      continue;
    }
    known += p.seconds;
    s += fmt::format("; {}: {} s, {:.0f}% ({})", p.what, fmt_num(p.seconds), 100 * p.seconds / step_s, p.text);
  }
  s += known < step_s
           ? fmt::format(
                 "; the rest, {} s ({:.0f}%), no figure of the suite accounts for: per-operator overhead (LibTorch's "
                 "dispatch, allocation, the framework between kernels), cache misses and memory latency inside "
                 "the operators are not measured per step",
                 fmt_num(step_s - known), 100 * (step_s - known) / step_s)
           : "; these parts may overlap in time (each is what it alone would take at its measured rate), so together "
             "they bound the step rather than add up to it";
  if (!missing.empty()) s += "; not measured in this run: " + missing;
  return s;
}

}  // namespace rigcheck
