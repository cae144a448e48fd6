// What report.md and report.html both show (report_util.hpp), computed from a run and its verdicts:
// the Measured cell, a claim's evidence fields, the one-sentence reason, the warnings, "What this
// machine is good for", the claims' anchors.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/report_util.hpp"
#include "report_internal.hpp"

namespace rigcheck {

namespace report_detail {

// f32 FMA peak per thread count: the median of the best ISA, from cpu_peak (medians on both sides).
std::map<std::string, double> peaks(const RunData& run) {
  std::map<std::string, double> p;
  for (auto& [t, rows] : group_by_param(run.select(names::kFmaPeak, names::kGflops), "threads")) {
    std::map<std::string, std::vector<const ResultRow*>> by_isa;
    for (const ResultRow* r : rows) by_isa[param_value(r->params, "isa")].push_back(r);
    for (auto& [isa, rs] : by_isa) p[t] = std::max(p[t], measure(rs).value);
  }
  return p;
}

int max_threads_of(const std::map<std::string, double>& peak) {
  int m = 0;
  for (auto& [t, v] : peak) m = std::max(m, std::atoi(t.c_str()));
  return m;
}
GemmHeadline best_f32_gemm(const RunData& run) {
  GemmHeadline h;
  auto peak = peaks(run);
  const std::string threads = std::to_string(max_threads_of(peak));
  if (!peak.count(threads)) return h;
  std::map<std::pair<std::string, std::string>, std::vector<const ResultRow*>> by_case;  // (source, case)
  for (const ResultRow& r : run.results)
    if ((r.benchmark == names::kGemmMatmul || r.benchmark == names::kGemmSgemmOnednn ||
         r.benchmark == names::kGemmSgemmOpenblas) &&
        r.metric == names::kGflops && r.status == Status::ok && r.repetition >= 0 &&
        param_value(r.params, "dtype") == "f32" && param_value(r.params, "threads") == threads)
      by_case[{r.source, r.benchmark + " " + r.case_name}].push_back(&r);
  for (auto& [key, rows] : by_case) {
    Measured m = measure(rows);
    if (m.value > h.value) {
      h.value = m.value;
      h.what = fmt::format("{}, {}", key.second, param_value(rows.front()->params, "impl", "-"));
      h.shape = shape_of(rows);
    }
  }
  h.peak = peak[threads];
  h.threads = threads;
  return h;
}

// The text up to the first "; " or ". " outside parentheses, brackets and quotes: one clause.
std::string first_clause(const std::string& s) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (c == '"')
      quoted = !quoted;
    else if (quoted)
      continue;
    else if (c == '(' || c == '[')
      ++depth;
    else if ((c == ')' || c == ']') && depth > 0)
      --depth;
    else if (depth == 0 && (c == ';' || c == '.') && s[i + 1] == ' ')
      return s.substr(0, i);
  }
  return s;
}

// At most `max` bytes, cut at a space (never inside a UTF-8 character), with an ellipsis.
std::string at_most(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = s.rfind(' ', max);
  if (cut == std::string::npos || cut < max / 2) {
    cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string out = s.substr(0, cut);
  while (!out.empty() && (out.back() == ',' || out.back() == ':' || out.back() == ' ')) out.pop_back();
  return out + "\u2026";
}

}  // namespace report_detail

using namespace report_detail;

// ------------------------------------------------------------------ shared with report.html
std::vector<ClaimField> claim_fields(const Claim& c, const Verdict& v) {
  std::vector<ClaimField> out = {
      {"Guide (original)", c.text_zh, true}, {"Guide says", c.guide_figure}, {"Measured", measured_text(v)}};
  for (ClaimField f :
       {ClaimField{"Evidence", v.evidence}, ClaimField{"Reason", v.reason}, ClaimField{"Guide error", c.guide_error}})
    if (!f.text.empty()) out.push_back(std::move(f));
  return out;
}

std::string measured_text(const Verdict& v) {
  std::string m = format_measured(v.measured, v.unit);
  if (!std::isnan(v.predicted)) {
    std::string p = fmt::format("predicted (not measured): {} {}", fmt_num(v.predicted), v.unit);
    m = m == "-" ? p : m + "; " + p;
  }
  return m;
}

std::string verdict_summary(const Claim& c, const Verdict& v) {
  std::string s;
  const bool numeric = c.kind == ClaimKind::range || c.kind == ClaimKind::approx || c.kind == ClaimKind::at_least ||
                       c.kind == ClaimKind::at_most;
  // A verdict judged on the claim's own bounds from the measured interval: say where the interval lies.
  // Not for a verdict judged on a predicted interval (Basis::predicted): its reason says so.
  if (numeric && is_judged(v.verdict) && v.basis != Basis::predicted && v.measured.ok() &&
      (v.unit.empty() || v.unit == c.unit)) {
    Outcome o = Outcome::inconclusive;
    try {
      o = judge(c, v.measured.low, v.measured.high);
    } catch (const std::exception&) {
      o = Outcome::no_benchmark;  // no numeric rule after all: fall back to the evaluator's words
    }
    if (o == v.verdict) {
      const std::string u = c.unit.empty() ? "" : " " + c.unit;
      auto typed = [](double x) { return fmt::format("{:g}", x); };  // the guide's bounds, as typed
      const double lo = c.kind == ClaimKind::at_most ? kNaN : c.low - c.tolerance;
      const double hi = c.kind == ClaimKind::at_least ? kNaN
                        : c.kind == ClaimKind::approx ? c.low + c.tolerance
                                                      : c.high + c.tolerance;
      std::string bound, where;
      if (c.kind == ClaimKind::at_least) {
        bound = fmt::format("minimum, {}{} with its tolerance", typed(lo), u);
        where = o == Outcome::confirmed ? "wholly at or above" : o == Outcome::refuted ? "wholly below" : "across";
      } else if (c.kind == ClaimKind::at_most) {
        bound = fmt::format("maximum, {}{} with its tolerance", typed(hi), u);
        where = o == Outcome::confirmed ? "wholly at or below" : o == Outcome::refuted ? "wholly above" : "across";
      } else {
        bound = fmt::format("figure, {} to {}{} with its tolerance", typed(lo), typed(hi), u);
        where = o == Outcome::confirmed ? "wholly within"
                : o == Outcome::refuted ? (v.measured.high < lo ? "wholly below" : "wholly above")
                                        : "across a bound of";
      }
      s = fmt::format("the measured interval lies {} the guide's {}", where, bound);
      if (o == Outcome::inconclusive) s += ": the noise decides nothing";
    }
  }
  if (s.empty()) s = at_most(first_clause(v.reason.empty() ? v.evidence : v.reason), 170);
  if (!c.guide_error.empty()) s += "; guide error: " + at_most(first_clause(c.guide_error), 110);
  return s;
}

std::vector<std::string> report_warnings(const RunData& run) {
  std::vector<std::string> w;
  if (const std::string e = inv(run, "emulated"); e.rfind("yes", 0) == 0)
    w.push_back(
        fmt::format("the run ran emulated ({}): its timings are the emulator's, not this CPU's; every row timed by "
                    "the suite's own code is mistrusted and no verdict rests on them (fio's figures are fio's: the "
                    "host's program, run natively)",
                    e.rfind("yes: ", 0) == 0 ? e.substr(5) : e));
  std::string bt = inv(run, "build_type"), san = inv(run, "sanitizers");
  if (bt == "Debug" || bt.empty()) w.push_back(fmt::format("build type is '{}': timings are not representative", bt));
  if (san != "none" && san.rfind("unknown", 0) != 0)
    w.push_back(fmt::format("built with sanitizers ({}): timings are not representative", san));
  double load;
  if (parse_double(inv(run, "loadavg_1m"), load) && load > 0.5)
    w.push_back(fmt::format("load average was {} when the run started: another process may have competed", load));
  std::string gov = inv(run, "cpufreq_governor");
  if (gov.rfind("unknown", 0) != 0 && gov != "performance")
    w.push_back(fmt::format("CPU frequency governor is '{}', not 'performance'", gov));
  std::string core = inv(run, "openblas_coretype_env");
  if (core != "unset" && core.rfind("unknown", 0) != 0)
    w.push_back(
        fmt::format("OPENBLAS_CORETYPE={} is set: OpenBLAS runs that core's kernels, not its own choice", core));
  size_t mistrusted = 0;
  for (const ResultRow& r : run.results) mistrusted += r.status == Status::mistrusted;
  if (mistrusted)
    w.push_back(
        fmt::format("{} result rows are mistrusted (see their note) and left out of every verdict", mistrusted));
  std::vector<std::string> capped;  // adaptive repetitions stopped above their target (repetitions.hpp)
  for (const ResultRow& r : run.results)
    if (r.metric == kRepsCapHit && r.value >= 1) capped.push_back(r.benchmark + "/" + r.case_name);
  if (!capped.empty())
    w.push_back(
        fmt::format("{} cases still spread more than their target when the repetitions stopped (cap hit, see the reps "
                    "column): {}{}",
                    capped.size(), fmt::join(capped.begin(), capped.begin() + std::min<size_t>(capped.size(), 8), ", "),
                    capped.size() > 8 ? ", ..." : ""));
  for (const ManifestRow& m : run.manifest)
    if (m.status == "interrupted" || m.status == "timeout" || m.status == "not_run") {
      w.push_back("the run was cut short: some benchmarks did not finish (see the manifest below)");
      break;
    }
  if (!run.recovered.empty()) w.push_back(run.recovered);
  for (const ConcurrentRun& c : run.concurrent)
    w.push_back(
        fmt::format("another rigcheck run went on at the same time (pid {}, writing {}), seen from {} to {}: "
                    "it competed for the CPU, memory and disk, and the measurements of that span may be "
                    "disturbed (rerun them alone)",
                    c.pid, c.run_dir, c.first_seen, c.last_seen));
  for (const std::string& e : run.excluded) w.push_back("left out of every verdict (--exclude-broken): " + e);
  return w;
}

std::string good_for_text(const RunData& run, const std::vector<Claim>& claims, const std::vector<Verdict>& vs) {
  // Only this run's own figures, each with what it is: no figure that was not measured.
  std::vector<std::string> did;
  GemmHeadline g = best_f32_gemm(run);
  if (g.ok())
    did.push_back(
        fmt::format("f32 matrix multiplication{} at {} GFLOP/s on {} thread{} ({:.0f}% of the suite's FMA "
                    "peak kernel)",
                    g.shape.empty() ? "" : " (" + g.shape + ")", fmt_num(g.value), g.threads,
                    g.threads == "1" ? "" : "s", 100 * g.value / g.peak));
  {  // the ResNet-50 training step at the most threads measured, one case: its rows name its shape
    std::map<int, std::vector<const ResultRow*>> best;  // threads -> the rows of the first case at that count
    for (auto& [c, rows] : run.select(names::kResnetTrainStep, names::kItemsPerS)) {
      const int t = std::atoi(param_value(rows.front()->params, "threads").c_str());
      if (t > 0 && !best.count(t)) best[t] = rows;
    }
    if (!best.empty()) {
      const auto& [t, rows] = *best.rbegin();
      Measured m = measure(rows);
      if (m.ok())
        did.push_back(fmt::format("a ResNet-50 training step{} at {} images/s on {} thread{}",
                                  shape_of(rows).empty() ? "" : " (" + shape_of(rows) + ")", fmt_num(m.value), t,
                                  t == 1 ? "" : "s"));
    }
  }
  {  // memory bandwidth: the best STREAM triad
    double best = 0;
    int threads = 0;
    for (auto& [c, rows] : run.select(names::kMemoryBandwidth, names::kGbps, {{"kernel", "triad"}})) {
      Measured m = measure(rows);
      if (m.ok() && m.value > best) {
        best = m.value;
        threads = std::atoi(param_value(rows.front()->params, "threads").c_str());
      }
    }
    if (best > 0)
      did.push_back(fmt::format("{} GB/s of memory bandwidth (STREAM triad, {} thread{})", fmt_num(best), threads,
                                threads == 1 ? "" : "s"));
  }
  {  // storage: 1 MiB sequential reads per device class
    for (auto& [cls, rows] :
         group_by_param(run.select(names::kFio, names::kGbps, {{"rw", "read"}, {"bs", "1048576"}}), "device_class")) {
      Measured m = measure(rows);
      if (m.ok())
        did.push_back(fmt::format("{} GB/s sequential reads from its {} storage (fio, 1 MiB blocks)", fmt_num(m.value),
                                  cls.empty() ? "unnamed" : cls));
    }
  }
  {  // GPU: the fastest tensor-core GEMM measured
    double best = 0;
    std::string dtype;
    for (auto& [dt, rows] : group_by_param(run.select(names::kGpuGemm, names::kGflops), "dtype")) {
      Measured m = measure(rows);
      if (m.ok() && m.value > best) best = m.value, dtype = dt;
    }
    if (best > 0)
      did.push_back(
          fmt::format("{} TFLOP/s of {} GEMM on its GPU ({})", fmt_num(best / 1000), dtype, inv(run, "gpu0_name")));
  }
  std::map<Outcome, int> n;
  std::vector<std::string> missing;  // what the claims that could not be judged need
  for (size_t i = 0; i < claims.size() && i < vs.size(); ++i) {
    ++n[vs[i].verdict];
    // "a CUDA GPU (and runs of both generations)" and "a CUDA GPU" are one need here.
    const std::string need = claims[i].needs_text.substr(0, claims[i].needs_text.find(" ("));
    if (vs[i].verdict == Outcome::not_measurable && !need.empty() &&
        std::find(missing.begin(), missing.end(), need) == missing.end())
      missing.push_back(need);
  }
  std::string s;
  if (did.empty()) {
    s = "This run measured nothing this paragraph can name (no CPU, memory, storage or GPU throughput rows).";
  } else {
    s = "From this run's own measurements: ";
    for (size_t i = 0; i < did.size(); ++i) s += (i == 0 ? "" : i + 1 == did.size() ? "; and " : "; ") + did[i];
    s += ".";
  }
  const std::string gpus = inv(run, "gpu_count");
  if (gpus == "0") s += " It has no GPU that the suite could use, so nothing here speaks for GPU training.";
  s += fmt::format(
      " Against the guide's {} claims: {} confirmed, {} refuted, {} inconclusive, {} predicted (not measured)",
      claims.size(), n[Outcome::confirmed], n[Outcome::refuted], n[Outcome::inconclusive], n[Outcome::predicted]);
  if (n[Outcome::not_measurable] > 0) {
    std::string needs;
    for (size_t i = 0; i < missing.size() && i < 6; ++i) needs += (i ? ", " : "") + missing[i];
    if (missing.size() > 6) needs += ", ...";
    s += fmt::format(", and {} not measurable here{}", n[Outcome::not_measurable],
                     needs.empty() ? "" : " (they need " + needs + ")");
  }
  if (n[Outcome::no_benchmark] > 0) s += fmt::format("; {} have no benchmark yet", n[Outcome::no_benchmark]);
  return s + ".";
}

std::string claim_anchor(const Claim& c) {
  std::string a;
  for (char ch : c.id) a += std::isalnum(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(ch)) : '-';
  return a;
}

}  // namespace rigcheck
