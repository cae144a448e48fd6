#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/runfolder/renames.hpp"
#include "rigcheck/harness/paths.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/report/report_util.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck {


std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// ------------------------------------------------------------------ writing the report
namespace {

std::string inv(const RunData& r, const std::string& key) {
  auto it = r.inventory.find(key);
  return it == r.inventory.end() ? "unknown: not in inventory" : it->second;
}


std::string mib(const std::string& bytes) {
  double v;
  if (!parse_double(bytes, v)) return bytes;
  return fmt::format("{:.0f} MiB", v / 1048576.0);
}

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

// The best f32 GEMM (benchmarks gemm_*: oneDNN matmul and sgemm, OpenBLAS sgemm; not a convolution
// or an inner product) at the most threads the peak was measured at, beside that peak.
struct GemmHeadline {
  double value = 0, peak = 0;
  std::string threads, what;
  bool ok() const { return value > 0 && peak > 0; }
};

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
    }
  }
  h.peak = peak[threads];
  h.threads = threads;
  return h;
}

std::string gemm_headline_md(const GemmHeadline& g) {
  if (!g.ok()) return "";
  const double pct = 100 * g.value / g.peak;
  const std::string at = g.threads + (g.threads == "1" ? " thread" : " threads");
  std::string s = fmt::format("\nBest f32 GEMM at {}: **{} GFLOP/s** ({}) = **{:.0f}%** of the measured f32 peak "
                              "at {} ({} GFLOP/s, the suite's FMA kernel, best ISA).",
                              at, fmt_num(g.value), md_escape(g.what), pct, at, fmt_num(g.peak));
  if (pct > 100)
    s += " **Above the measured peak**: this GEMM ran faster than the suite's FMA kernel, so that kernel's figure is "
         "not this machine's ceiling (it ran at a lower clock, or did not keep every FMA unit busy), and every "
         "\"% of measured f32 peak\" in this report overstates the share of the true peak.";
  return s + "\n";
}

std::string measurements_md(const RunData& run) {
  std::string md;
  auto peak = peaks(run);
  // One table per (result file, benchmark): rows of different registry entries (an ISA cap, another
  // environment) never share a line, even when their benchmark and case names are the same.
  std::set<std::pair<std::string, std::string>> tables;
  for (const ResultRow& r : run.results) tables.insert({r.source, r.benchmark});
  for (const auto& table : tables) {
    // Named references, not a structured binding: C++17 lets no lambda capture one (clang refuses).
    const std::string &src = table.first, &b = table.second;
    md += fmt::format("\n### {}{}\n\n| case | implementation | median | [min to max] | reps | spread | % of measured f32 peak | status |\n|---|---|---|---|---|---|---|---|\n",
                      b, src.empty() || src == b ? "" : fmt::format(" (`{}.csv`)", src));
    std::string unit = "GFLOP/s";
    std::string metric = "gflops";
    auto of_table = [&](const std::string& m) {
      std::map<std::string, std::vector<const ResultRow*>> out;
      for (auto& [c, rows] : run.select(b, m))
        for (const ResultRow* r : rows)
          if (r->source == src) out[c].push_back(r);
      return out;
    };
    auto rate = of_table(names::kGflops);
    if (rate.empty()) {
      rate = of_table(names::kGbps);
      unit = "GB/s";
    }
    if (rate.empty()) {  // another rate (busbw, IOPS, images/s...): the first timed metric of the file in /s
      for (const ResultRow& r : run.results)
        if (r.benchmark == b && r.source == src && r.repetition >= 0 && r.status == Status::ok &&
            r.unit.size() > 2 && r.unit.compare(r.unit.size() - 2, 2, "/s") == 0) {
          metric = r.metric;
          unit = r.unit + " (" + r.metric + ")";
          rate = of_table(r.metric);
          break;
        }
    }
    std::vector<std::string> cases;  // in file order
    for (const ResultRow& r : run.results)
      if (r.benchmark == b && r.source == src && std::find(cases.begin(), cases.end(), r.case_name) == cases.end())
        cases.push_back(r.case_name);
    for (const std::string& c : cases) {
      const ResultRow* any = nullptr;
      std::map<std::string, int> counts;
      std::string note;
      std::string cap_note;  // adaptive repetitions stopped before their target (repetitions.hpp)
      for (const ResultRow& r : run.results)
        if (r.benchmark == b && r.case_name == c && r.source == src) {
          if (!any) any = &r;
          if (r.metric == kRepsCapHit && r.value >= 1) cap_note = r.note;
          if (r.repetition >= 0 && (r.metric == metric || r.metric == names::kGbps || r.metric == names::kTimePerIter)) {
            if (r.metric == names::kTimePerIter) ++counts[to_string(r.status)];
          } else if (r.repetition < 0 && r.status != Status::ok) {
            ++counts[to_string(r.status)];
          }
          if (r.status != Status::ok && note.empty()) note = r.note;
        }
      std::string status;
      for (auto& [st, n] : counts) status += fmt::format("{}{} {}", status.empty() ? "" : ", ", n, st);
      if (status.empty()) status = "ok";
      else if (counts.size() == 1 && counts.count("ok")) status = "ok";
      if (!note.empty() && !(counts.size() == 1 && counts.count("ok"))) status += ": " + note;
      auto it = rate.find(c);
      Measured m = it == rate.end() ? Measured{} : measure(it->second);
      std::string pct = "-";
      std::string threads = any ? param_value(any->params, "threads") : "";
      if (m.ok() && unit == "GFLOP/s" && b != names::kFmaPeak && peak.count(threads) &&
          param_value(any->params, "dtype") == "f32") {
        const double p = 100 * m.value / peak[threads];
        pct = fmt::format("{:.0f}%{}", p, p > 100 ? " (above the measured peak)" : "");
      }
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_escape(c),
                        md_escape(any ? param_value(any->params, "impl", "-") : "-"),
                        m.ok() ? fmt_num(m.value) + " " + unit : "-",
                        m.ok() ? fmt::format("{} to {}", fmt_num(m.low), fmt_num(m.high)) : "-",
                        cap_note.empty() ? std::to_string(m.reps) : fmt::format("{} (cap hit)", m.reps),
                        m.ok() ? fmt::format("{:.1f}%", 100 * (m.high - m.low) / m.value) : "-", pct,
                        md_escape(status));
    }
  }
  return gemm_headline_md(best_f32_gemm(run)) + md;
}

std::string verdicts_csv(const std::vector<Claim>& claims, const std::vector<Verdict>& vs) {
  std::string s = "claim_id,section,claim,verdict,guide_value,measured_value,measured_low,measured_high,reps,"
                  "predicted_value,unit,evidence,reason,guide_error,basis,summary\n";
  for (size_t i = 0; i < vs.size(); ++i) {
    const Claim& c = claims[i];
    const Verdict& v = vs[i];
    s += csv_line({c.id, c.section, c.text_en, to_string(v.verdict), c.guide_figure, format_double(v.measured.value),
                   format_double(v.measured.low), format_double(v.measured.high), std::to_string(v.measured.reps),
                   format_double(v.predicted), v.unit, v.evidence, v.reason, c.guide_error, to_string(v.basis),
                   verdict_summary(c, v)}) +
         "\n";
  }
  return s;
}

// The text up to the first "; " or ". " outside parentheses, brackets and quotes: one clause.
std::string first_clause(const std::string& s) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c == '(' || c == '[') ++depth;
    else if ((c == ')' || c == ']') && depth > 0) --depth;
    else if (depth == 0 && (c == ';' || c == '.') && s[i + 1] == ' ') return s.substr(0, i);
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

}  // namespace

// ------------------------------------------------------------------ shared with report.html
std::vector<ClaimField> claim_fields(const Claim& c, const Verdict& v) {
  std::vector<ClaimField> out = {{"Guide (original)", c.text_zh, true}, {"Guide says", c.guide_figure},
                                 {"Measured", measured_text(v)}};
  for (ClaimField f : {ClaimField{"Evidence", v.evidence}, ClaimField{"Reason", v.reason},
                       ClaimField{"Guide error", c.guide_error}})
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
    w.push_back(fmt::format("OPENBLAS_CORETYPE={} is set: OpenBLAS runs that core's kernels, not its own choice", core));
  size_t mistrusted = 0;
  for (const ResultRow& r : run.results) mistrusted += r.status == Status::mistrusted;
  if (mistrusted)
    w.push_back(fmt::format("{} result rows are mistrusted (see their note) and left out of every verdict", mistrusted));
  std::vector<std::string> capped;  // adaptive repetitions stopped above their target (repetitions.hpp)
  for (const ResultRow& r : run.results)
    if (r.metric == kRepsCapHit && r.value >= 1) capped.push_back(r.benchmark + "/" + r.case_name);
  if (!capped.empty())
    w.push_back(fmt::format("{} cases still spread more than their target when the repetitions stopped (cap hit, see the reps "
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
    w.push_back(fmt::format("another rigcheck run went on at the same time (pid {}, writing {}), seen from {} to {}: "
                            "it competed for the CPU, memory and disk, and the measurements of that span may be "
                            "disturbed (rerun them alone)",
                            c.pid, c.run_dir, c.first_seen, c.last_seen));
  for (const std::string& e : run.excluded)
    w.push_back("left out of every verdict (--exclude-broken): " + e);
  return w;
}

std::string good_for_text(const RunData& run, const std::vector<Claim>& claims, const std::vector<Verdict>& vs) {
  // Only this run's own figures, each with what it is: no figure that was not measured.
  std::vector<std::string> did;
  GemmHeadline g = best_f32_gemm(run);
  if (g.ok())
    did.push_back(fmt::format("f32 matrix multiplication at {} GFLOP/s on {} thread{} ({:.0f}% of the suite's FMA "
                              "peak kernel)",
                              fmt_num(g.value), g.threads, g.threads == "1" ? "" : "s", 100 * g.value / g.peak));
  {  // the ResNet-50 training step at the most threads measured
    auto by_t = group_by_param(run.select(names::kResnetTrainStep, names::kItemsPerS), "threads");
    int best_t = 0;
    for (auto& [t, rows] : by_t) best_t = std::max(best_t, std::atoi(t.c_str()));
    if (best_t > 0) {
      Measured m = measure(by_t[std::to_string(best_t)]);
      if (m.ok())
        did.push_back(fmt::format("a ResNet-50 training step (batch 16) at {} images/s on {} thread{}", fmt_num(m.value),
                                  best_t, best_t == 1 ? "" : "s"));
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
    for (auto& [cls, rows] : group_by_param(run.select(names::kFio, names::kGbps, {{"rw", "read"}, {"bs", "1048576"}}), "device_class")) {
      Measured m = measure(rows);
      if (m.ok()) did.push_back(fmt::format("{} GB/s sequential reads from its {} storage (fio, 1 MiB blocks)", fmt_num(m.value),
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
    if (best > 0) did.push_back(fmt::format("{} TFLOP/s of {} GEMM on its GPU ({})", fmt_num(best / 1000), dtype,
                                            inv(run, "gpu0_name")));
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
    for (size_t i = 0; i < did.size(); ++i)
      s += (i == 0 ? "" : i + 1 == did.size() ? "; and " : "; ") + did[i];
    s += ".";
  }
  const std::string gpus = inv(run, "gpu_count");
  if (gpus == "0") s += " It has no GPU that the suite could use, so nothing here speaks for GPU training.";
  s += fmt::format(" Against the guide's {} claims: {} confirmed, {} refuted, {} inconclusive, {} predicted (not measured)",
                   claims.size(), n[Outcome::confirmed], n[Outcome::refuted], n[Outcome::inconclusive],
                   n[Outcome::predicted]);
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

std::vector<Verdict> make_report(const std::string& run_dir, const ReportOptions& opt) {
  const std::string claims_path = opt.claims_path.empty() ? data_path("claims.csv") : opt.claims_path;
  std::vector<Claim> claims = read_claims(claims_path);
  ReadRunOptions rro;
  rro.exclude_broken = opt.exclude_broken;
  RunData run = read_run(run_dir, rro);  // everything is read and checked before anything is written
  run.recovered = opt.recovered;
  if (opt.step_budget_s > 0) run.facts["step_budget_s"] = format_double(opt.step_budget_s);

  std::vector<Verdict> vs;
  for (const Claim& c : claims) vs.push_back(evaluate_claim(c, run));

  std::string run_id = run_dir;
  if (auto p = run_id.find_last_not_of('/'); p != std::string::npos) run_id.erase(p + 1);
  if (auto p = run_id.rfind('/'); p != std::string::npos) run_id = run_id.substr(p + 1);

  std::string md = fmt::format("# rigcheck report: {}\n\n", run_id);
  md += fmt::format("Machine: **{}** ({}, family {} model {}), {} socket(s), {} physical cores, {} hardware threads, "
                    "L3 {} x {}, memory {}, best ISA {}, measured clock {} GHz.  \n",
                    inv(run, "cpu_model"), inv(run, "cpu_microarch"), inv(run, "cpu_family"),
                    inv(run, "cpu_model_number"), inv(run, "sockets"), inv(run, "physical_cores"),
                    inv(run, "hardware_threads"), mib(inv(run, "cache_l3_bytes")), inv(run, "cache_l3_instances"),
                    mib(inv(run, "memory_total_bytes")), inv(run, "isa_best"), inv(run, "cpu_clock_measured_ghz"));
  md += fmt::format("GPUs: {} {}. THP: {}. Governor: {}. Kernel {}, {}.  \n", inv(run, "gpu_count"),
                    run.inventory.count("gpu0_name") ? "(" + inv(run, "gpu0_name") + ")" : "(" + inv(run, "gpu_note") + ")",
                    inv(run, "thp_enabled"), inv(run, "cpufreq_governor"), inv(run, "kernel"), inv(run, "os"));
  md += fmt::format("Build: {} {}, commit {}; oneDNN {}, OpenBLAS {} (core {}), method version {}.  \n",
                    inv(run, "build_type"), inv(run, "compiler"), inv(run, "suite_commit"), inv(run, "onednn_version"),
                    inv(run, "openblas_version"), inv(run, "openblas_corename"), inv(run, "method_version"));
  md += "Result files: " + md_escape(run.integrity.summary()) + ".\n";
  md += "The full inventory is in `inventory.csv`; every result row is in the benchmark CSVs beside this file.\n";

  auto ws = report_warnings(run);
  if (!ws.empty()) {
    md += "\n## Warnings\n\n";
    for (auto& w : ws) md += "- " + md_escape(w) + "\n";
  }

  // One line per claim; the evidence of each in a section of its own below, linked from the id.
  md += "\n## Verdicts\n\n**What this machine is good for.** " + md_escape(good_for_text(run, claims, vs)) + "\n\n";
  md += "| Claim | Guide (original) | Guide says | Measured: median [min to max], n | Verdict | Why (evidence: click the claim) |\n"
        "|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < claims.size(); ++i) {
    const Claim& c = claims[i];
    const Verdict& v = vs[i];
    std::string label = fmt::format("**{}**", to_string(v.verdict));
    if (shows_basis(v)) label += fmt::format(" ({})", to_string(v.basis));
    md += fmt::format("| [{}](#{}) | {} | {} | {} | {} | {} |\n", c.id, claim_anchor(c), md_escape(c.text_zh),
                      md_escape(c.guide_figure), md_escape(measured_text(v)), label, md_escape(verdict_summary(c, v)));
  }
  md += "\nVerdicts: confirmed / refuted (the measured interval lies inside / outside the guide's figure widened by "
        "its tolerance), inconclusive (it straddles the boundary), not_measurable (this machine lacks what the "
        "claim needs, named), predicted (a fitted model's extrapolation, never a measurement), no_benchmark (not "
        "built yet). A verdict marked (emulated) rests on a model of hardware this machine lacks, built from this "
        "run's measurements (docs/methodology.md): it is not a measurement. (inventory) and (datasheet) mark "
        "verdicts on facts rather than timings. Intervals are the min and max over repetitions.\n";

  md += "\n## Evidence per claim\n";
  for (size_t i = 0; i < claims.size(); ++i) {
    const Claim& c = claims[i];
    const Verdict& v = vs[i];
    md += fmt::format("\n### {}\n\n{} (§{}): **{}**\n\n", c.id, md_escape(c.text_en), c.section, verdict_label(v));
    for (const ClaimField& f : claim_fields(c, v))
      md += f.label == std::string("Guide error") ? "- **Guide error:** " + md_escape(f.text) + "\n"
                                                  : fmt::format("- {}: {}\n", f.label, md_escape(f.text));
  }

  // What this machine can train (capacity.hpp): per zoo model the largest batch, its speed, its limit.
  md += "\n## What this machine can train\n\n" + capacity_md(capacity_of(run));

  md += "\n## Measurements\n" + measurements_md(run);

  if (!run.manifest.empty()) {
    md += "\n## Benchmarks run\n\n| benchmark | area | status | exit | seconds | reason |\n|---|---|---|---|---|---|\n";
    for (const ManifestRow& m : run.manifest)
      md += fmt::format("| {} | {} | {} | {} | {:.1f} | {} |\n", m.benchmark, m.area, m.status, m.exit_code,
                        m.duration_s, md_escape(m.reason));
  }

  write_file_atomic(run_dir + "/verdicts.csv", verdicts_csv(claims, vs));
  write_file_atomic(run_dir + "/report.md", md);
  write_run_html(run_dir, run, claims, vs);  // report.html beside it (html/page.cpp)

  if (!opt.quiet) {
    // The verdict with its basis where it is not a measurement ("inconclusive (predicted)"), as
    // report.md and report.html show it.
    std::printf("%-6s %-26s %-34s %s\n", "claim", "verdict", "measured", "guide says");
    for (size_t i = 0; i < claims.size(); ++i) {
      std::string m = format_measured(vs[i].measured, vs[i].unit);
      if (!std::isnan(vs[i].predicted)) m += fmt::format(" -> {} pred.", fmt_num(vs[i].predicted));
      std::printf("%-6s %-26s %-34s %s\n", claims[i].id.c_str(), verdict_label(vs[i]).c_str(), m.c_str(),
                  claims[i].guide_figure.c_str());
    }
    std::printf("result files: %s\n", run.integrity.summary().c_str());
    for (auto& w : ws) std::printf("warning: %s\n", w.c_str());
  }
  return vs;
}

}  // namespace rigcheck
