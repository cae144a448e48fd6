#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/report/export.hpp"
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
#include "report_internal.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

std::string md_escape(std::string s) { return replace_chars(s, {{'|', "\\|"}, {'\n', " "}}); }

// ------------------------------------------------------------------ writing the report
namespace {

using namespace report_detail;

std::string mib(const std::string& bytes) {
  double v;
  if (!parse_double(bytes, v)) return bytes;
  return fmt::format("{:.0f} MiB", v / 1048576.0);
}

}  // namespace

namespace report_detail {
std::string shape_and_limits(const RunData& run) {
  if (!run.inventory.count("machine_shape")) return "";
  std::vector<std::string> limits;
  const std::string allowed = inv(run, "allowed_hardware_threads"), all = inv(run, "hardware_threads");
  if (allowed != all) limits.push_back(fmt::format("{} CPUs of {} (cpuset {})", allowed, all, inv(run, "cpu_allowed")));
  const std::string quota = inv(run, "cgroup_cpu_quota");
  if (quota.rfind("none", 0) != 0 && quota.rfind("unknown", 0) != 0)
    limits.push_back("a CPU quota of " + first_clause(quota));
  double mem = 0;
  if (parse_double(inv(run, "memory_limit_bytes"), mem) && mem > 0) {
    std::string from = inv(run, "memory_limit");
    if (auto p = from.find(" ("); p != std::string::npos) from = from.substr(p + 2, from.size() - p - 3);
    limits.push_back(fmt::format("{:.1f} GiB of memory ({})", mem / 1073741824.0, from));
  }
  std::string what;
  for (const std::string& l : limits) what += (what.empty() ? "" : ", ") + l;
  return fmt::format("Shape: {}; this run: {}.", inv(run, "machine_shape"),
                     what.empty() ? "the whole machine, no limit" : what);
}
}  // namespace report_detail

namespace {

std::string gemm_headline_md(const GemmHeadline& g) {
  if (!g.ok()) return "";
  const double pct = 100 * g.value / g.peak;
  const std::string at = g.threads + (g.threads == "1" ? " thread" : " threads");
  std::string s = fmt::format(
      "\nBest f32 GEMM at {}: **{} GFLOP/s** ({}) = **{:.0f}%** of the measured f32 peak "
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
    md += fmt::format(
        "\n### {}{}\n\n| case | implementation | median | [min to max] | reps | spread | % of measured f32 peak | "
        "status |\n|---|---|---|---|---|---|---|---|\n",
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
        if (r.benchmark == b && r.source == src && r.repetition >= 0 && r.status == Status::ok && r.unit.size() > 2 &&
            r.unit.compare(r.unit.size() - 2, 2, "/s") == 0) {
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
          if (r.repetition >= 0 &&
              (r.metric == metric || r.metric == names::kGbps || r.metric == names::kTimePerIter)) {
            if (r.metric == names::kTimePerIter) ++counts[to_string(r.status)];
          } else if (r.repetition < 0 && r.status != Status::ok) {
            ++counts[to_string(r.status)];
          }
          if (r.status != Status::ok && note.empty()) note = r.note;
        }
      std::string status;
      for (auto& [st, n] : counts) status += fmt::format("{}{} {}", status.empty() ? "" : ", ", n, st);
      if (status.empty())
        status = "ok";
      else if (counts.size() == 1 && counts.count("ok"))
        status = "ok";
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
      md += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_escape(c),
          md_escape(any ? param_value(any->params, "impl", "-") : "-"), m.ok() ? fmt_num(m.value) + " " + unit : "-",
          m.ok() ? fmt::format("{} to {}", fmt_num(m.low), fmt_num(m.high)) : "-",
          cap_note.empty() ? std::to_string(m.reps) : fmt::format("{} (cap hit)", m.reps),
          m.ok() ? fmt::format("{:.1f}%", 100 * (m.high - m.low) / m.value) : "-", pct, md_escape(status));
    }
  }
  return gemm_headline_md(best_f32_gemm(run)) + md;
}

std::string verdicts_csv(const std::vector<Claim>& claims, const std::vector<Verdict>& vs) {
  std::string s =
      "claim_id,section,claim,verdict,guide_value,measured_value,measured_low,measured_high,reps,"
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

}  // namespace

// The report's first lines: the architecture, the machine, its shape and limits, GPUs, the build.
static std::string machine_md(const RunData& run) {
  std::string md;
  const std::string arm = run.inventory.count("cpu_arm_name") ? " (" + inv(run, "cpu_arm_name") + ")" : "";
  if (run.inventory.count("cpu_arch")) md += "Architecture: " + inv(run, "cpu_arch") + arm + ".  \n";  // none: x86-64
  md += fmt::format(
      "Machine: **{}** ({}, family {} model {}), {} socket(s), {} physical cores, {} hardware threads, "
      "L3 {} x {}, memory {}, best ISA {}, measured clock {} GHz.  \n",
      inv(run, "cpu_model"), inv(run, "cpu_microarch"), inv(run, "cpu_family"), inv(run, "cpu_model_number"),
      inv(run, "sockets"), inv(run, "physical_cores"), inv(run, "hardware_threads"), mib(inv(run, "cache_l3_bytes")),
      inv(run, "cache_l3_instances"), mib(inv(run, "memory_total_bytes")), inv(run, "isa_best"),
      inv(run, "cpu_clock_measured_ghz"));
  if (const std::string shape = shape_and_limits(run); !shape.empty()) md += md_escape(shape) + "  \n";
  md += fmt::format(
      "GPUs: {} {}. THP: {}. Governor: {}. Kernel {}, {}.  \n", inv(run, "gpu_count"),
      run.inventory.count("gpu0_name") ? "(" + inv(run, "gpu0_name") + ")" : "(" + inv(run, "gpu_note") + ")",
      inv(run, "thp_enabled"), inv(run, "cpufreq_governor"), inv(run, "kernel"), inv(run, "os"));
  md += fmt::format("Build: {} {}, commit {}; oneDNN {}, OpenBLAS {} (core {}), method version {}.  \n",
                    inv(run, "build_type"), inv(run, "compiler"), inv(run, "suite_commit"), inv(run, "onednn_version"),
                    inv(run, "openblas_version"), inv(run, "openblas_corename"), inv(run, "method_version"));
  return md;
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
  md += machine_md(run);
  md += "Result files: " + md_escape(run.integrity.summary()) + ".\n";
  md += "The full inventory is in `inventory.csv`; every result row is in the benchmark CSVs beside this file.\n";

  auto ws = report_warnings(run);
  if (!ws.empty()) {
    md += "\n## Warnings\n\n";
    for (auto& w : ws) md += "- " + md_escape(w) + "\n";
  }

  // One line per claim; the evidence of each in a section of its own below, linked from the id.
  md += "\n## Verdicts\n\n**What this machine is good for.** " + md_escape(good_for_text(run, claims, vs)) + "\n\n";
  md +=
      "| Claim | Guide (original) | Guide says | Measured: median [min to max], n | Verdict | Why (evidence: click the "
      "claim) |\n"
      "|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < claims.size(); ++i) {
    const Claim& c = claims[i];
    const Verdict& v = vs[i];
    std::string label = fmt::format("**{}**", to_string(v.verdict));
    if (shows_basis(v)) label += fmt::format(" ({})", to_string(v.basis));
    md += fmt::format("| [{}](#{}) | {} | {} | {} | {} | {} |\n", c.id, claim_anchor(c), md_escape(c.text_zh),
                      md_escape(c.guide_figure), md_escape(measured_text(v)), label, md_escape(verdict_summary(c, v)));
  }
  md +=
      "\nVerdicts: confirmed / refuted (the measured interval lies inside / outside the guide's figure widened by "
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

  md += numa_md(run);
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
