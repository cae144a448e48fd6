// The exit code of compare and ab (--fail-on-regression): Holm's step-down over every judged case
// of the command, so that a night on which nothing changed fails with probability at most alpha
// however many cases were compared. See compare.hpp and docs/methodology.md ("The gate").
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "rigcheck/compare/compare.hpp"

namespace rigcheck {

namespace {
bool has_interval(const CaseFinding& f) {
  return f.j.iv.method != Method::none &&
         (f.flag == "regression" || f.flag == "improvement" || f.flag == "no_change" || f.flag == "unstable");
}
}  // namespace

Gate evaluate_gate(std::vector<CaseFinding>& fs, const CompareOptions& opt) {
  Gate g;
  g.level = opt.stat.gate_alpha;
  g.fail_pct = opt.fail_pct;
  std::vector<double> p;
  std::vector<size_t> at;
  for (size_t i = 0; i < fs.size(); ++i)
    if (has_interval(fs[i]) && !fs[i].not_gated.empty()) {
      ++g.not_gated;  // its level is the neighbours': judged and listed, not tested by the gate
    } else if (has_interval(fs[i])) {
      p.push_back(fs[i].j.iv.p);
      at.push_back(i);
    }
  g.tested = static_cast<int>(p.size());
  const std::vector<bool> holds = holm(p, g.level);
  for (size_t k = 0; k < at.size(); ++k) {
    CaseFinding& f = fs[at[k]];
    f.holds_family_wise = holds[k];
    if (!holds[k] || !f.flagged()) continue;
    ++g.holding;
    if (f.flag == "regression" && !std::isnan(opt.fail_pct) && -f.j.change_pct >= opt.fail_pct) {
      f.fails_gate = true;
      ++g.regressions;
    }
  }
  for (CaseFinding& f : fs)
    if (f.flag == "stopped_working" && !f.disturbed_only) {  // a status change counts wherever its working set lies
      ++g.stopped;
      f.fails_gate = !std::isnan(opt.fail_pct);
    }
  g.fail = !std::isnan(opt.fail_pct) && (g.regressions > 0 || g.stopped > 0);
  return g;
}

std::string gate_text(const Gate& g) {
  const std::string rule = fmt::format(
      "Holm's step-down over the {} judged cases at family-wise level {} (Holm 1979: a night on which nothing changed "
      "fails with probability at most {}, however many cases)",
      g.tested, g.level, g.level);
  if (std::isnan(g.fail_pct))
    return fmt::format("GATE off (no --fail-on-regression): {} of the flags hold after {}.", g.holding, rule);
  return fmt::format("GATE {}: {} regressions of {}% or more that hold after {}; {} cases stopped working.{}",
                     g.fail ? "FAIL" : "pass", g.regressions, g.fail_pct, rule, g.stopped,
                     g.not_gated ? fmt::format(" {} cases left out of the gate (their notes say why: a working set in "
                                               "the L3 a virtual machine shares with other guests).",
                                               g.not_gated)
                                 : "");
}

}  // namespace rigcheck
