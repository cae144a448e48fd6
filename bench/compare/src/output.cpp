// What compare, history and ab print and write: findings as Markdown, CSV and HTML, the counts
// with the flags expected by chance, the unstable cases, the runs, the confounders, the per-flag
// lines for CI logs. See compare.hpp.
#include <sys/stat.h>

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

namespace {
std::string get(const std::map<std::string, std::string>& m, const std::string& k, const std::string& fb = "") {
  auto it = m.find(k);
  return it == m.end() ? fb : it->second;
}

bool judged(const CaseFinding& f) { return f.j.iv.method != Method::none && f.base.ok() && f.run.ok(); }

std::string ratio_text(const CaseFinding& f) {
  if (!f.base.ok() || !f.run.ok()) return "-";
  if (!judged(f)) return fmt::format("{:.3f} (no interval)", f.j.ratio);
  return fmt::format("{:.3f} [{:.3f} to {:.3f}]", f.j.ratio, f.j.ratio_low, f.j.ratio_high);
}

std::string side_text(const Measured& m, const std::string& unit) {
  if (!m.ok()) return "-";
  if (m.reps == 1) return fmt::format("{} {} (1 run)", fmt_num(m.value), unit);
  return fmt::format("{} {} [{} to {}], {} runs", fmt_num(m.value), unit, fmt_num(m.low), fmt_num(m.high), m.reps);
}

std::string noise_text(const CaseFinding& f) {
  if (!judged(f)) return "-";
  return fmt::format("{:.1f}% ({}{})", f.j.noise_pct, to_string(f.j.iv.method),
                     f.j.iv.noise.df > 0 ? fmt::format(", df {:g}", f.j.iv.noise.df) : "");
}

std::string flag_text(const CaseFinding& f) {
  if (f.flag == "regression") return fmt::format("**REGRESSION {:+.1f}%**", f.j.change_pct);
  if (f.flag == "improvement") return fmt::format("**improvement {:+.1f}%**", f.j.change_pct);
  if (f.flag == "stopped_working") return "**STOPPED WORKING**";
  if (f.flag == "started_working") return "**STARTED WORKING**";
  if (f.flag == "no_change" || f.flag == "unstable" || f.flag == "cannot_judge")
    if (f.base.ok() && f.run.ok()) return fmt::format("{} ({:+.1f}%)", f.flag, f.j.change_pct);
  return f.flag;
}

std::string others_text(const CaseFinding& f) {
  std::string s;
  for (const OtherMetric& o : f.others)
    s += fmt::format("{}{} {}", s.empty() ? "" : "; ", o.metric,
                     std::isnan(o.change_pct) ? std::string("-") : fmt::format("{:+.1f}%", o.change_pct));
  return s;
}

std::string notes_text(const CaseFinding& f) {
  std::string s = f.attributes.empty() ? "" : "ran: " + f.attributes;
  if (!f.note.empty()) s += (s.empty() ? "" : "; ") + f.note;
  return s;
}
}  // namespace

std::string md_cell(std::string s) { return md_escape(std::move(s)); }

std::string findings_csv(const std::vector<CaseFinding>& fs) {
  // The first columns hold no comma (names, numbers), so that `cut -d,` and awk can read them.
  std::string s =
      "benchmark,case,source,flag,metric,unit,better,change_pct,ratio,ratio_low,ratio_high,method,noise_pct,noise_df,"
      "min_change_pct,resolution_pct,runs_needed,base_runs,run_runs,base_value,base_low,base_high,run_value,run_low,"
      "run_high,implementation_changed,area,label,params,base,run,attributes,other_metrics,note,changed_fields\n";
  for (const CaseFinding& f : fs) {
    const bool j = judged(f), both = f.base.ok() && f.run.ok();
    auto num = [](bool on, double v) { return on ? format_double(v) : std::string(); };
    s += csv_line({f.benchmark,
                   f.case_name,
                   f.source,
                   f.flag,
                   f.metric,
                   f.unit,
                   f.better > 0 ? "higher" : "lower",
                   num(both, f.j.change_pct),
                   num(both, f.j.ratio),
                   num(j, f.j.ratio_low),
                   num(j, f.j.ratio_high),
                   to_string(f.j.iv.method),
                   num(j, f.j.noise_pct),
                   num(j, f.j.iv.noise.df),
                   num(j, f.j.min_change_pct),
                   num(j, f.j.resolution_pct),
                   f.j.runs_needed ? std::to_string(f.j.runs_needed) : "",
                   std::to_string(f.base.reps),
                   std::to_string(f.run.reps),
                   num(f.base.ok(), f.base.value),
                   num(f.base.ok(), f.base.low),
                   num(f.base.ok(), f.base.high),
                   num(f.run.ok(), f.run.value),
                   num(f.run.ok(), f.run.low),
                   num(f.run.ok(), f.run.high),
                   f.implementation_changed ? "yes" : "no",
                   f.area,
                   f.label,
                   f.params,
                   f.base_label,
                   f.run_label,
                   f.attributes,
                   others_text(f),
                   f.note,
                   f.changed_fields}) +
         "\n";
  }
  return s;
}

std::string findings_md(const std::vector<CaseFinding>& fs, bool with_changes) {
  std::string md =
      "| case | metric | base | base: geometric mean of run medians [lowest to highest] | run | run: the same "
      "| run/base [interval] | run-to-run noise (method) | flag | other metrics | what ran, notes |";
  if (with_changes) md += " inventory changes |";
  md += "\n|---|---|---|---|---|---|---|---|---|---|---|";
  if (with_changes) md += "---|";
  md += "\n";
  for (const CaseFinding& f : fs) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |", md_cell(f.label), f.metric,
                      md_cell(f.base_label), md_cell(side_text(f.base, f.unit)), md_cell(f.run_label),
                      md_cell(side_text(f.run, f.unit)), ratio_text(f), noise_text(f), flag_text(f),
                      md_cell(others_text(f)), md_cell(notes_text(f)));
    if (with_changes) md += " " + md_cell(f.changed_fields) + " |";
    md += "\n";
  }
  return md;
}

std::string findings_html(const std::vector<CaseFinding>& fs, bool with_changes) {
  std::string h =
      "<style>tr.f-unstable td.flag,tr.f-cannot_judge td.flag{background:#eee;color:#555}</style>"
      "<table><tr><th>case</th><th>metric</th><th>base</th><th>base: geometric mean of run medians "
      "[lowest to highest]</th><th>run</th><th>run: the same</th><th>run/base [interval]</th><th>run-to-run "
      "noise (method)</th><th>flag</th><th>other metrics</th><th>what ran, notes</th>";
  if (with_changes) h += "<th>inventory changes</th>";
  h += "</tr>\n";
  for (const CaseFinding& f : fs) {
    std::string flag = flag_text(f);
    for (const char* strip : {"**"})
      for (size_t p; (p = flag.find(strip)) != std::string::npos;) flag.erase(p, 2);
    h += fmt::format(
        "<tr class=\"f-{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td class=\"flag\">{}</td><td>{}</td><td>{}</td>",
        f.flag, html_escape(f.label), html_escape(f.metric), html_escape(f.base_label),
        html_escape(side_text(f.base, f.unit)), html_escape(f.run_label), html_escape(side_text(f.run, f.unit)),
        html_escape(ratio_text(f)), html_escape(noise_text(f)), html_escape(flag), html_escape(others_text(f)),
        html_escape(notes_text(f)));
    if (with_changes) h += "<td>" + html_escape(f.changed_fields) + "</td>";
    h += "</tr>\n";
  }
  return h + "</table>\n";
}

std::string counts_md(const FindingCounts& c, const StatOptions& opt) {
  std::string md = fmt::format(
      "Flagged **{}** of {} cases judged ({} regressions, {} improvements); expected by chance at level {}: {:.1f} "
      "({} cases x {}).",
      c.flagged, c.judged, c.regressions, c.improvements, opt.alpha, c.expected_by_chance, c.judged, opt.alpha);
  if (c.unstable)
    md += fmt::format(" Of them unstable on this machine (too noisy to resolve {}% with these runs): {}.",
                      opt.threshold_pct, c.unstable);
  if (c.cannot_judge) md += fmt::format(" Cannot judge: {}.", c.cannot_judge);
  if (c.stopped)
    md +=
        fmt::format(" **Stopped working** (ok in the base, skipped, failed or mistrusted in the run): {}.", c.stopped);
  if (c.started) md += fmt::format(" Started working: {}.", c.started);
  if (c.unmatched) md += fmt::format(" In one side only: {}.", c.unmatched);
  if (c.implementation_changes)
    md += fmt::format(" Implementation changed (what ran differs): {}.", c.implementation_changes);
  if (c.method_changes)
    md += fmt::format(
        " Method changed (a description of the method, data/params.csv, differs; the cases still pair): {}.",
        c.method_changes);
  return md + "\n";
}

std::string statistics_md(const StatOptions& opt, const NoiseProfile* profile) {
  std::string md = fmt::format(
      "The run is the unit: each case is reduced to one value per run (the median of its repetitions) and the sides "
      "are compared on those values. A case is flagged only when the interval of run/base at level {} (confidence "
      "{:g}%) excludes 1 and the change is at least the larger of {}% and {} x the case's run-to-run noise. Interval: "
      "hierarchical bootstrap over runs, then repetitions (>= 2 runs per side, {} replicates, seed {}); with one run "
      "on a side, Student's t with the noise profile's spread (or the spread pooled from the sides that have several "
      "runs). A case whose noise cannot resolve {}% with the runs given is listed as unstable, with the runs per side "
      "that would. Formulas and sources: docs/methodology.md.",
      opt.alpha, 100 * (1 - opt.alpha), opt.threshold_pct, opt.noise_k, opt.bootstrap, opt.seed, opt.threshold_pct);
  if (profile)
    md += fmt::format(" Noise profile: {} ({} entries, runs {}).", profile->path, profile->noise.size(), [&] {
      std::string s;
      for (const std::string& r : profile->runs) s += (s.empty() ? "" : ", ") + r;
      return s;
    }());
  return md + "\n";
}

std::string unstable_md(const std::vector<CaseFinding>& fs) {
  std::string md;
  std::string unstable, cannot;
  for (const CaseFinding& f : fs) {
    if (f.flag == "unstable")
      unstable += fmt::format(
          "| {} | {} | {:.1f}% | {} | {:.1f}% | {:+.1f}%{} | {} |\n", md_cell(f.label), f.metric, f.j.noise_pct,
          f.base.reps == f.run.reps ? std::to_string(f.base.reps) : fmt::format("{} and {}", f.base.reps, f.run.reps),
          f.j.resolution_pct, f.j.change_pct,
          f.j.ratio_low > 1 || f.j.ratio_high < 1 ? " (outside its interval, below the noise rule)" : "",
          f.j.runs_needed >= 1000 ? std::string("more than 1000") : std::to_string(f.j.runs_needed));
    if (f.flag == "cannot_judge") cannot += "- " + md_cell(f.label) + ": " + md_cell(f.note) + "\n";
  }
  if (!unstable.empty())
    md +=
        "\n## Unstable on this machine: too noisy to resolve the threshold with these runs (never flagged)\n\n| case "
        "| metric | run-to-run noise | runs per side | smallest change these runs resolve | change seen | runs per "
        "side that would resolve the threshold |\n|---|---|---|---|---|---|---|\n" +
        unstable;
  if (!cannot.empty()) md += "\n## Cannot judge\n\n" + cannot;
  return md;
}

void print_flag_lines(std::vector<CaseFinding>& fs, const CompareOptions& opt, int& exit_code) {
  const Gate gate = evaluate_gate(fs, opt);
  for (const CaseFinding& f : fs) {
    if (f.flagged()) {
      std::printf("%s %s %s: %+.1f%% (%s -> %s, %s -> %s %s, run/base %s, noise %.1f%%, p %.2g%s)%s%s%s%s\n",
                  f.flag == "regression" ? "REGRESSION" : "IMPROVEMENT", f.label.c_str(), f.metric.c_str(),
                  f.j.change_pct, f.base_label.c_str(), f.run_label.c_str(), fmt_num(f.base.value).c_str(),
                  fmt_num(f.run.value).c_str(), f.unit.c_str(), ratio_text(f).c_str(), f.j.noise_pct, f.j.iv.p,
                  !f.not_gated.empty()  ? ", left out of the gate: a working set in the L3 a VM shares"
                  : f.holds_family_wise ? ", holds over all cases"
                                        : ", this case alone: not past the gate's rule",
                  f.attributes.empty() ? "" : "; ran: ", f.attributes.c_str(),
                  f.changed_fields.empty() ? "" : "; changed: ", f.changed_fields.c_str());
    } else if (f.status_changed()) {
      std::printf(
          "%s %s %s: %s (%s -> %s)%s\n", f.flag == "stopped_working" ? "STOPPED WORKING" : "STARTED WORKING",
          f.label.c_str(), f.metric.c_str(), f.note.c_str(), f.base_label.c_str(), f.run_label.c_str(),
          f.disturbed_only ? " [only disturbed (mistrusted), not skipped or failed: not counted by the gate]" : "");
    } else if (f.implementation_changed) {
      std::printf("IMPLEMENTATION %s: %s (%s -> %s; %s)\n", f.label.c_str(), f.attributes.c_str(), f.base_label.c_str(),
                  f.run_label.c_str(), flag_text(f).c_str());
    }
    if (!f.method_change.empty())
      std::printf("METHOD %s: %s (%s -> %s)\n", f.label.c_str(), f.method_change.c_str(), f.base_label.c_str(),
                  f.run_label.c_str());
  }
  std::printf("%s\n", gate_text(gate).c_str());
  if (gate.fail) exit_code = 1;
}

namespace {
// "48 ok, 160 mistrusted (left out)" over the timed repetitions of a run.
std::string row_counts(const LoadedRun& r) {
  return r.mistrusted_rows ? fmt::format("{} ok, {} mistrusted (left out)", r.ok_rows, r.mistrusted_rows)
                           : fmt::format("{} ok", r.ok_rows);
}
}  // namespace

std::string runs_table_md(const std::vector<LoadedRun>& runs) {
  std::string md =
      "| run | host | CPU | inventory time (UTC) | method version | suite commit | timed rows |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const LoadedRun& r : runs)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", md_cell(r.label),
                      md_cell(get(r.data.inventory, "hostname", "?")), md_cell(get(r.data.inventory, "cpu_model", "?")),
                      r.time_utc, get(r.data.inventory, "method_version"), get(r.data.inventory, "suite_commit", "?"),
                      row_counts(r));
  return md;
}

std::string runs_table_html(const std::vector<LoadedRun>& runs) {
  std::string h =
      "<table><tr><th>run</th><th>host</th><th>CPU</th><th>inventory time (UTC)</th><th>method "
      "version</th><th>suite commit</th><th>timed rows</th></tr>\n";
  for (const LoadedRun& r : runs)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     html_escape(r.label), html_escape(get(r.data.inventory, "hostname", "?")),
                     html_escape(get(r.data.inventory, "cpu_model", "?")), html_escape(r.time_utc),
                     html_escape(get(r.data.inventory, "method_version")),
                     html_escape(get(r.data.inventory, "suite_commit", "?")), html_escape(row_counts(r)));
  return h + "</table>\n";
}

namespace {
std::string others_of(const std::vector<FieldDiff>& diffs) {
  std::string others;
  for (const FieldDiff& d : diffs)
    if (!d.listed) others += (others.empty() ? "" : "; ") + describe_diff(d);
  return others;
}
std::string joined(const std::vector<std::string>& v) {
  std::string u;
  for (const std::string& s : v) u += (u.empty() ? "" : ", ") + s;
  return u;
}
}  // namespace

// The confounders section's lines, as text: each listed confounder that differs (true: a
// confounder), or that none does; the other inventory fields that differ; what no run recorded.
std::vector<std::pair<std::string, bool>> confounder_lines(const std::vector<FieldDiff>& diffs,
                                                           const std::vector<std::string>& unrecorded) {
  std::vector<std::pair<std::string, bool>> lines;
  for (const FieldDiff& d : diffs)
    if (d.listed) lines.emplace_back(describe_diff(d), true);
  if (lines.empty()) lines.emplace_back("none of the listed confounders differ (data/confounders.csv)", false);
  if (const std::string o = others_of(diffs); !o.empty())
    lines.emplace_back("other inventory fields that differ: " + o, false);
  if (!unrecorded.empty())
    lines.emplace_back("not recorded by any run's inventory, so not checked: " + joined(unrecorded), false);
  return lines;
}

std::string confounders_md(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded) {
  std::string md = "\n## Confounders: what differs between the runs besides what was measured\n\n";
  for (const auto& [line, confounder] : confounder_lines(diffs, unrecorded)) md += "- " + md_cell(line) + "\n";
  return md;
}

std::string confounders_html(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded) {
  std::string h =
      "<section id=\"confounders\"><h2>Confounders: what differs between the runs besides what was "
      "measured</h2><ul>\n";
  for (const auto& [line, confounder] : confounder_lines(diffs, unrecorded))
    h += std::string(confounder ? "<li class=\"confounder\">" : "<li>") + html_escape(line) + "</li>\n";
  return h + "</ul></section>\n";
}

std::string exclusions_md(const std::vector<std::string>& ex) {
  if (ex.empty()) return "";
  std::string md = "\n## Excluded runs\n\n";
  for (const std::string& e : ex) md += "- " + md_cell(e) + "\n";
  return md;
}

std::string exclusions_html(const std::vector<std::string>& ex) {
  if (ex.empty()) return "";
  std::string h = "<section><h2>Excluded runs</h2><ul>";
  for (const std::string& e : ex) h += "<li>" + html_escape(e) + "</li>";
  return h + "</ul></section>\n";
}

void prepare_out_dir(const std::string& dir, const std::string& stem, bool create) {
  if (dir.empty()) return;
  struct stat sb;
  if (::stat(dir.c_str(), &sb) != 0) {
    if (create && ::mkdir(dir.c_str(), 0755) != 0)
      throw std::runtime_error(fmt::format("{}: cannot create the folder", dir));
  } else if (!S_ISDIR(sb.st_mode)) {
    throw std::runtime_error(fmt::format("{}: not a folder", dir));
  }
  for (const char* ext : {".md", ".csv", ".html"})
    if (::stat((dir + "/" + stem + ext).c_str(), &sb) == 0)
      throw std::runtime_error(
          fmt::format("{}/{}{} exists: results are never overwritten, choose another --out", dir, stem, ext));
}

}  // namespace rigcheck
