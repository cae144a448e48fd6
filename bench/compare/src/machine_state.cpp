// A shift shared by the cases of an area (or of the whole run, or of one sweep whose cases are
// limited by different parts of the machine): the machine's state for that run (or for that part
// of it), not one regression per case. See compare.hpp (machine_states) and docs/methodology.md ("The
// machine's state").
#include <algorithm>
#include <set>
#include <tuple>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "rigcheck/compare/compare.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

namespace {
// Judged, and not one of the cases the gate leaves out (their level follows the neighbours').
bool judged(const CaseFinding& f) {
  return f.j.iv.method != Method::none && f.not_gated.empty() &&
         (f.flagged() || f.flag == "no_change" || f.flag == "unstable");
}

// The speed of the run relative to the base, log scale (> 0: faster), of a judged case.
double speed(const CaseFinding& f) { return (f.better < 0 ? -1 : 1) * f.j.iv.est; }

// The median of xs with a percentile bootstrap interval over the cases (seeded), level 1 - alpha.
void median_interval(const std::vector<double>& xs, const StatOptions& opt, uint64_t seed, MachineState& s) {
  s.shift = median_of(xs);
  Rng rng(seed);
  std::vector<double> reps(static_cast<size_t>(std::max(opt.bootstrap, 100))), draw(xs.size());
  for (double& r : reps) {
    for (double& d : draw) d = xs[rng.below(xs.size())];
    r = median_of(draw);
  }
  std::sort(reps.begin(), reps.end());
  const auto at = [&](double q) { return reps[static_cast<size_t>(q * static_cast<double>(reps.size() - 1))]; };
  s.low = at(opt.alpha / 2);
  s.high = at(1 - opt.alpha / 2);
}

// A case judged again against the machine's state: its interval moved by the shift.
void judge_against(CaseFinding& f, const MachineState& s, const StatOptions& opt) {
  const double dir = f.better < 0 ? -1 : 1, before = f.j.change_pct;
  Interval iv = f.j.iv;
  iv.est -= dir * s.shift;
  iv.low -= dir * s.shift;
  iv.high -= dir * s.shift;
  iv.p = iv.method == Method::bootstrap && iv.se > 0 ? student_t_two_sided_p(iv.est / iv.se, iv.noise.df)
                                                     : p_of_interval(iv, opt.alpha);
  const std::string why = f.j.why;
  f.j = decide(iv, f.better, iv.method == Method::paired, opt);
  f.j.why = why;
  f.flag = to_string(f.j.flag);
  f.note = fmt::format("judged against the machine's state of {} in {} ({:+.1f}%); {:+.1f}% before{}{}", s.area,
                       s.run_label, 100 * (std::exp(s.shift) - 1), before, f.note.empty() ? "" : "; ", f.note);
}
}  // namespace

namespace {
// The segment of a case: its benchmark and the case name up to its last '/' (memory_latency's
// "thp" of "thp/4096"): cases that ran one after another in one process, one sweep.
std::string segment_of(const CaseFinding& f) {
  const size_t slash = f.case_name.rfind('/');
  return f.benchmark + (slash == std::string::npos ? "" : " " + f.case_name.substr(0, slash));
}

// The largest over the smallest base value of the group's cases (their levels' span).
double level_span(const std::vector<CaseFinding>& fs, const std::vector<size_t>& idx) {
  double lo = 0, hi = 0;
  for (size_t i : idx) {
    const double v = fs[i].base.value;
    if (!(v > 0)) return 1;
    lo = lo > 0 ? std::min(lo, v) : v;
    hi = std::max(hi, v);
  }
  return lo > 0 ? hi / lo : 1;
}
}  // namespace

std::vector<MachineState> machine_states(std::vector<CaseFinding>& fs, const StatOptions& opt) {
  // Groups, tried in this order: each run's whole set of cases (level 0), each of its areas (1),
  // each segment (2: one benchmark's sweep, whose levels span kSegmentSpan or more).
  std::map<std::tuple<std::string, int, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < fs.size(); ++i)
    if (judged(fs[i])) {
      groups[{fs[i].run_label, 0, ""}].push_back(i);
      groups[{fs[i].run_label, 1, fs[i].area}].push_back(i);
      groups[{fs[i].run_label, 2, fs[i].area + '\x1f' + segment_of(fs[i])}].push_back(i);
    }
  const double half = std::log1p(opt.threshold_pct / 200), thr = std::log1p(opt.threshold_pct / 100);
  std::vector<MachineState> out;
  std::set<std::string> moved;  // "run" (the whole run moved) and "run\x1farea"
  for (auto& [key, idx] : groups) {
    const auto& [run, level, name] = key;
    if (idx.size() < static_cast<size_t>(kMachineStateCases) || moved.count(run)) continue;
    const std::string area = level == 2 ? name.substr(0, name.find('\x1f')) : name;
    if (level == 2 && (moved.count(run + '\x1f' + area) || level_span(fs, idx) < kSegmentSpan)) continue;
    std::vector<double> xs;
    int down = 0, up = 0;
    for (size_t i : idx) {
      xs.push_back(speed(fs[i]));
      down += xs.back() <= -half;
      up += xs.back() >= half;
    }
    MachineState s;
    s.run_label = run;
    s.area = level == 0   ? "the whole run"
             : level == 1 ? "area " + name
                          : "segment " + name.substr(name.find('\x1f') + 1);
    s.cases = static_cast<int>(idx.size());
    s.moved = std::max(down, up);
    if (s.moved < kMachineStateShare * static_cast<double>(idx.size())) continue;
    median_interval(xs, opt, seed_for(run + '\x1f' + name, opt.seed), s);
    if (!(s.low > 0 || s.high < 0) || std::fabs(s.shift) < thr) continue;
    if (level < 2) moved.insert(level == 0 ? run : run + '\x1f' + area);
    for (size_t i : idx) judge_against(fs[i], s, opt);
    out.push_back(s);
  }
  return out;
}

std::string machine_state_text(const MachineState& s, const std::string& load) {
  return fmt::format(
      "MACHINE STATE {} in {}: {:+.1f}% [{:+.1f}% to {:+.1f}%] (median speed change of its {} judged "
      "cases, {} of them moved the same way by half the threshold or more; interval: bootstrap over "
      "the cases): read as the machine's state for that run, its cases judged against it{}",
      s.area, s.run_label, 100 * (std::exp(s.shift) - 1), 100 * (std::exp(s.low) - 1), 100 * (std::exp(s.high) - 1),
      s.cases, s.moved, load.empty() ? "" : "; " + load);
}

std::vector<std::string> undeclared_params(const LoadedRun& r, const CaseRules& rules) {
  std::set<std::string> out;
  for (const ResultRow& row : r.data.results)
    for (const auto& [k, v] : parse_params(row.params))
      if (rules.role(row.benchmark, k).empty()) out.insert(row.benchmark + "." + k);
  return {out.begin(), out.end()};
}

std::string load_note(const LoadedRun& r) {
  auto it = r.data.inventory.find("loadavg_1m");
  double v = 0;
  if (it == r.data.inventory.end() || !parse_double(it->second, v) || v <= 0.5) return "";
  return fmt::format("{} started under load (load average {} at its start)", r.label, it->second);
}

}  // namespace rigcheck
