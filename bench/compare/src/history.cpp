// `rigcheck history RUN...`: one machine's runs in time order; each case's series of run values
// (the log of the median of its repetitions in each run); the change points of each series
// (E-divisive means with Otava's t-test, statistics.cpp), each with its magnitude, interval and
// the inventory fields that changed at that point; --fail-on-regression on change points only.
// See compare.hpp and docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/report/report_util.hpp"
#include "rigcheck/compare/timeline.hpp"
#include "rigcheck/runfolder/machine_identity.hpp"
#include "history_internal.hpp"

namespace rigcheck {

namespace {
using history_detail::Change;
using history_detail::find_changes;
using history_detail::Series;
using history_detail::series_of;

std::string get(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? "(not recorded)" : it->second;
}

// One machine: the same host and the same machine by its fingerprint's facts (machine_identity.hpp:
// a Zen 3 and a Zen 5 VM both named "vm" and "AMD EPYC" are two); another machine's run is refused (or
// excluded), unless --group-by puts several machines on one time axis.
void keep_one_machine(std::vector<LoadedRun>& runs, const CompareOptions& opt, std::vector<std::string>& exclusions,
                      const std::string& first_dir) {
  const std::string host = get(runs[0].data.inventory, "hostname");
  const MachineFacts first = machine_facts(runs[0].data.inventory);
  std::vector<LoadedRun> kept{std::move(runs[0])};
  for (size_t i = 1; i < runs.size(); ++i) {
    const std::string h = get(runs[i].data.inventory, "hostname");
    const MachineFacts m = machine_facts(runs[i].data.inventory);
    if ((h == host && same_machine(first, m)) || !opt.group_by.empty()) {
      kept.push_back(std::move(runs[i]));
      continue;
    }
    std::string why = fmt::format(
        "another machine (host {}, CPU {}, machine {}; the first run: host {}, CPU {}, machine "
        "{}): history follows one machine (--group-by puts several on one time axis), use "
        "rigcheck compare across machines",
        h, m.cpu_id, m.fingerprint.substr(0, 12), host, first.cpu_id, first.fingerprint.substr(0, 12));
    if (!opt.exclude_broken) throw InputError(runs[i].dir, 0, why);
    exclusions.push_back(runs[i].dir + ": " + why);
  }
  runs = std::move(kept);
  if (runs.size() < 2)
    throw InputError(first_dir, 0,
                     opt.group_by.empty() ? "rigcheck history needs at least two runs of one machine"
                                          : "rigcheck history needs at least two runs");
  // Time order: the inventory's UTC time (ISO 8601 sorts as text), then the folder name.
  for (const LoadedRun& r : runs)
    if (r.time_utc.empty() || r.time_utc.rfind("unknown", 0) == 0)
      throw InputError(r.dir + "/inventory.csv", 0, "no inventory_time_utc: cannot place this run in time");
  std::stable_sort(runs.begin(), runs.end(), [](const LoadedRun& a, const LoadedRun& b) {
    return a.time_utc != b.time_utc ? a.time_utc < b.time_utc : a.label < b.label;
  });
}

}  // namespace

namespace history_detail {
std::vector<Series> series_of(const std::vector<const LoadedRun*>& runs, const CaseRules& rules) {
  std::map<std::string, Series> by_key;
  for (size_t i = 0; i < runs.size(); ++i)
    for (auto& [key, c] : runs[i]->cases) {
      Series& s = by_key[key];
      if (s.key.empty()) {
        s.key = key;
        s.benchmark = c.benchmark;
        s.case_name = c.case_name;
        s.source = c.source;
        s.params = c.requested;
        std::map<std::string, int> have;
        for (auto& [m, ms] : c.metrics) have[m] = ms.better;
        s.metric = rules.headline(c.benchmark, have);
      }
      auto it = c.metrics.find(s.metric);
      if (it == c.metrics.end()) continue;
      const auto& reps = it->second.reps;
      if (!std::all_of(reps.begin(), reps.end(), [](double x) { return x > 0 && std::isfinite(x); })) continue;
      s.unit = it->second.unit;
      s.better = it->second.better;
      s.run.push_back(i);
      s.value.push_back(run_value(reps));
      s.cases.push_back(&c);
    }
  std::vector<Series> out;
  for (auto& [k, s] : by_key) out.push_back(std::move(s));
  // Labels unique across files, as compare's.
  std::vector<CaseFinding> tmp(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    tmp[i].benchmark = out[i].benchmark;
    tmp[i].case_name = out[i].case_name;
    tmp[i].source = out[i].source;
    tmp[i].params = out[i].params;
  }
  label_findings(tmp);
  for (size_t i = 0; i < out.size(); ++i) out[i].label = tmp[i].label;
  return out;
}

namespace {
std::string observed_changes(const CaseRun* a, const CaseRun* b) {
  std::string s;
  std::set<std::string> keys;
  for (auto& [k, v] : a->observed) keys.insert(k);
  for (auto& [k, v] : b->observed) keys.insert(k);
  for (const std::string& k : keys) {
    auto ia = a->observed.find(k), ib = b->observed.find(k);
    const std::string va = ia == a->observed.end() ? "(none)" : ia->second,
                      vb = ib == b->observed.end() ? "(none)" : ib->second;
    if (va != vb) s += fmt::format("{}{}: {} -> {}", s.empty() ? "" : "; ", k, va, vb);
  }
  return s;
}

}  // namespace

std::vector<Change> find_changes(const std::vector<Series>& series, const std::vector<const LoadedRun*>& runs,
                                 const std::vector<ConfounderDef>& defs, const NoiseProfile* profile,
                                 const StatOptions& opt) {
  std::vector<Change> out;
  std::map<std::pair<size_t, size_t>, std::string> changed_cache;
  const double thr = std::log1p(opt.threshold_pct / 100);
  for (const Series& s : series) {
    double min_change = thr;
    if (const Noise* n = profile ? profile->find(s.key, s.metric) : nullptr)
      min_change = std::max(thr, opt.noise_k * n->sd);
    for (const ChangePoint& cp : change_points(s.value, opt.alpha, min_change, opt.noise_k, 2)) {
      Change c;
      c.s = &s;
      c.cp = cp;
      c.before_run = s.run[cp.index - 1];
      c.after_run = s.run[cp.index];
      const double d = s.better < 0 ? -1 : 1, diff = cp.after - cp.before;
      c.change_pct = 100 * (std::exp(d * diff) - 1);
      c.low_pct = 100 * (std::exp(d > 0 ? cp.low : -cp.high) - 1);
      c.high_pct = 100 * (std::exp(d > 0 ? cp.high : -cp.low) - 1);
      c.flag = c.change_pct < 0 ? "regression" : "improvement";
      c.attributes = observed_changes(s.cases[cp.index - 1], s.cases[cp.index]);
      auto key = std::make_pair(c.before_run, c.after_run);
      auto it = changed_cache.find(key);
      if (it == changed_cache.end())
        it = changed_cache.emplace(key, changed_between(*runs[c.before_run], *runs[c.after_run], defs)).first;
      c.changed_fields = it->second.empty()
                             ? "no inventory field changed (noise, or a cause the inventory does not record)"
                             : it->second;
      out.push_back(c);
    }
  }
  return out;
}
}  // namespace history_detail

namespace {

std::string changes_md(const std::vector<Change>& cs, const std::vector<const LoadedRun*>& runs) {
  std::string md =
      "| case | metric | between | before -> after (geometric means) | change [interval] | p | runs "
      "before, after | what ran | inventory changes at that point |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Change& c : cs)
    md += fmt::format(
        "| {} | {} | {} -> {} | {} -> {} {} | **{} {:+.1f}%** [{:+.1f}% to {:+.1f}%] | {:.2g} | {}, {} | {} | {} |\n",
        md_cell(c.s->label), c.s->metric, md_cell(runs[c.before_run]->label), md_cell(runs[c.after_run]->label),
        fmt_num(std::exp(c.cp.before)), fmt_num(std::exp(c.cp.after)), c.s->unit, c.flag, c.change_pct, c.low_pct,
        c.high_pct, c.cp.p, c.cp.n_before, c.cp.n_after, md_cell(c.attributes), md_cell(c.changed_fields));
  return md;
}

std::string changes_csv(const std::vector<Change>& cs, const std::vector<const LoadedRun*>& runs) {
  const char* header =
      "benchmark,case,source,label,params,metric,unit,better,before_run,after_run,before_value,"
      "after_value,change_pct,change_low_pct,change_high_pct,p_value,runs_before,runs_after,flag,"
      "attributes,changed_fields";
  return format_csv(header, cs, [&runs](const Change& c) -> std::vector<std::string> {
    return {c.s->benchmark,
            c.s->case_name,
            c.s->source,
            c.s->label,
            c.s->params,
            c.s->metric,
            c.s->unit,
            c.s->better > 0 ? "higher" : "lower",
            runs[c.before_run]->label,
            runs[c.after_run]->label,
            format_double(std::exp(c.cp.before)),
            format_double(std::exp(c.cp.after)),
            format_double(c.change_pct),
            format_double(c.low_pct),
            format_double(c.high_pct),
            format_double(c.cp.p),
            std::to_string(c.cp.n_before),
            std::to_string(c.cp.n_after),
            c.flag,
            c.attributes,
            c.changed_fields};
  });
}

std::string series_md(const std::vector<Series>& series, const std::vector<const LoadedRun*>& runs) {
  std::string md = "| case | metric |";
  for (const LoadedRun* r : runs) md += " " + md_cell(r->label) + " |";
  md += "\n|---|---|";
  for (size_t i = 0; i < runs.size(); ++i) md += "---|";
  md += "\n";
  for (const Series& s : series) {
    std::vector<std::string> cell(runs.size(), "-");
    for (size_t k = 0; k < s.run.size(); ++k) cell[s.run[k]] = fmt_num(std::exp(s.value[k]));
    md += fmt::format("| {} | {} ({}) |", md_cell(s.label), s.metric, s.unit);
    for (const std::string& c : cell) md += " " + c + " |";
    md += "\n";
  }
  return md;
}

std::string statistics_text(const StatOptions& opt, size_t cases, size_t testable, size_t found) {
  return fmt::format(
      "Each case's series of run values (the median of its repetitions in each run) is searched for change points: "
      "E-divisive means (Matteson & James 2014) picks the splits, and a split stands when Student's t-test between "
      "its two sides, up to its neighbours, gives p < {} (Apache Otava's test, weakest pruned first) and the change "
      "is at least the larger of {}% and {} x the spread within the two sides. A side needs two runs, so a series "
      "needs four. {} change points in {} series that could hold one ({} cases); expected by chance at level {}: "
      "about {:.1f} ({} x {}).\n",
      opt.alpha, opt.threshold_pct, opt.noise_k, found, testable, cases, opt.alpha, testable * opt.alpha, testable,
      opt.alpha);
}

}  // namespace

std::string history_detail::verdicts_text(const CompareOptions& opt, const std::string& dir) {
  if (opt.verdicts_text) return opt.verdicts_text(dir);
  std::ifstream in(dir + "/verdicts.csv", std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// The gate: Holm over every series that could hold a change point (each series once, its change
// points in it; the series without one count with p = 1), at family-wise level gate_alpha.
int print_gate(const std::vector<const Change*>& changes, const std::vector<const LoadedRun*>& before,
               const std::vector<const LoadedRun*>& after, size_t testable, const CompareOptions& opt) {
  std::vector<double> ps;
  for (const Change* c : changes) ps.push_back(c->cp.p);
  const size_t family = std::max(ps.size(), testable);
  ps.resize(family, 1.0);
  const std::vector<bool> holds = holm(ps, opt.stat.gate_alpha);
  int failing = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = *changes[i];
    std::printf("%s %s %s: %+.1f%% [%+.1f%% to %+.1f%%] between %s and %s (p=%.2g)%s%s; changed: %s\n",
                c.flag == "regression" ? "REGRESSION" : "IMPROVEMENT", c.s->label.c_str(), c.s->metric.c_str(),
                c.change_pct, c.low_pct, c.high_pct, before[i]->label.c_str(), after[i]->label.c_str(), c.cp.p,
                c.attributes.empty() ? "" : "; ran: ", c.attributes.c_str(), c.changed_fields.c_str());
    if (c.flag == "regression" && !std::isnan(opt.fail_pct) && -c.change_pct >= opt.fail_pct && holds[i]) ++failing;
  }
  const std::string rule = fmt::format(
      "Holm's step-down over the {} series that could hold a change point at "
      "family-wise level {} (Holm 1979)",
      family, opt.stat.gate_alpha);
  if (std::isnan(opt.fail_pct))
    std::printf("GATE off (no --fail-on-regression): %s.\n", rule.c_str());
  else
    std::printf("GATE %s: %d regressions of %g%% or more that hold after %s.\n", failing ? "FAIL" : "pass", failing,
                opt.fail_pct, rule.c_str());
  return failing ? 1 : 0;
}

// One group of runs (history --group-by; one group without it): its own steps, series and change points.
struct HistoryGroup {
  std::string name;
  std::vector<const LoadedRun*> runs;
  std::vector<std::string> steps;
  std::vector<Series> series;
  std::vector<Change> changes;
  size_t testable = 0;
};

std::string group_name(const LoadedRun& r, const CompareOptions& opt) {
  if (opt.group_by.empty()) return "";
  if (opt.group_of) return opt.group_of(r);
  const auto& inv = r.data.inventory;
  if (opt.group_by == "driver") return "driver " + get(inv, "nvidia_driver_version");
  if (opt.group_by == "cpu_model") return get(inv, "cpu_model");
  return get(inv, "hostname") + " (" + get(inv, "cpu_model") + ")";  // machine, without a store to name it
}

std::vector<HistoryGroup> history_groups(const std::vector<LoadedRun>& runs, const CompareOptions& opt,
                                         const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                                         const NoiseProfile* prof, std::vector<std::string>& names) {
  std::vector<HistoryGroup> groups;
  for (const LoadedRun& r : runs) {
    names.push_back(group_name(r, opt));
    auto it = std::find_if(groups.begin(), groups.end(), [&](const HistoryGroup& g) { return g.name == names.back(); });
    if (it == groups.end()) {
      it = groups.insert(groups.end(), HistoryGroup{});
      it->name = names.back();
    }
    it->runs.push_back(&r);
  }
  for (HistoryGroup& g : groups) {
    for (size_t i = 1; i < g.runs.size(); ++i) {
      const std::string changed = changed_between(*g.runs[i - 1], *g.runs[i], defs);
      std::string load;
      for (const FieldDiff& d : differing_fields({g.runs[i - 1], g.runs[i]}, defs))
        if (d.key == "loadavg_1m") load = " (" + describe_diff(d) + ")";
      g.steps.push_back(fmt::format("{} -> {}: {}{}", g.runs[i - 1]->label, g.runs[i]->label,
                                    changed.empty() ? "no inventory field changed" : changed, load));
    }
    g.series = series_of(g.runs, rules);
    g.changes = find_changes(g.series, g.runs, defs, prof, opt.stat);
    for (const Series& s : g.series) g.testable += s.value.size() >= 4;
  }
  return groups;
}

std::string group_md(const HistoryGroup& g, const StatOptions& opt) {
  const std::string stats = statistics_text(opt, g.series.size(), g.testable, g.changes.size());
  const std::string of = g.name.empty() ? "" : ": " + md_cell(g.name);
  std::string md = "\n## Inventory changes between consecutive runs" + of + "\n\n";
  for (const std::string& s : g.steps) md += "- " + md_cell(s) + "\n";
  md += "\n## Change points" + of + "\n\n" + stats + "\n";
  if (g.runs.size() < 4)
    md += "Too few runs for change points: " + std::to_string(g.runs.size()) +
          " (four or more, two on each side of a change).\n";
  md += g.changes.empty() ? "None: no case's level changed beyond its noise and the threshold.\n"
                          : changes_md(g.changes, g.runs);
  return md;
}

std::string history_html(const std::vector<HistoryGroup>& groups, const std::vector<LoadedRun>& runs,
                         const std::vector<std::string>& names, const std::vector<std::string>& exclusions,
                         const CompareOptions& opt, const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                         const NoiseProfile* prof) {
  TimelineInput in;
  in.group = names;
  in.group_by = opt.group_by;
  std::vector<history_detail::Found> found;
  for (const HistoryGroup& g : groups) found.push_back({&g.series, &g.changes});
  for (const LoadedRun& r : runs) {
    in.runs.push_back(&r);
    in.verdicts_csv.push_back(history_detail::verdicts_text(opt, r.dir));
  }
  const TimelinePage page = history_detail::timelines_with(in, rules, defs, prof, opt.stat, found);
  std::string body = fmt::format(
      "<h1>rigcheck history</h1>\n<p>{} runs{}, {} to {}: {} claims, {} cases drawn, {} "
      "change points, {} inventory marks.</p>\n",
      runs.size(), opt.group_by.empty() ? "" : fmt::format(" in {} groups by {}", groups.size(), opt.group_by),
      html_escape(runs.front().time_utc), html_escape(runs.back().time_utc), page.claims, page.timelines,
      page.change_points, page.marks);
  body += exclusions_html(exclusions) + page.html;
  for (const HistoryGroup& g : groups) {
    body += "<section><h2>Change points" + (g.name.empty() ? "" : ": " + html_escape(g.name)) + "</h2><p>" +
            html_escape(statistics_text(opt.stat, g.series.size(), g.testable, g.changes.size())) +
            "</p><table><tr><th>case</th><th>metric</th><th>between</th><th>change [interval]</th><th>p</th><th>what "
            "ran</th><th>inventory changes</th></tr>\n";
    for (const Change& c : g.changes)
      body += fmt::format(
          "<tr class=\"f-{}\"><td>{}</td><td>{}</td><td>{} -> {}</td><td class=\"flag\">{} {:+.1f}% "
          "[{:+.1f}% to {:+.1f}%]</td><td>{:.2g}</td><td>{}</td><td>{}</td></tr>\n",
          c.flag, html_escape(c.s->label), html_escape(c.s->metric), html_escape(g.runs[c.before_run]->label),
          html_escape(g.runs[c.after_run]->label), c.flag, c.change_pct, c.low_pct, c.high_pct, c.cp.p,
          html_escape(c.attributes), html_escape(c.changed_fields));
    body += "</table></section>\n";
  }
  return body + "<details id=\"runs\"><summary>The runs</summary>" + runs_table_html(runs) + "</details>\n";
}
}  // namespace

int run_history(const std::vector<std::string>& dirs, const CompareOptions& opt) {
  std::vector<std::string> exclusions;
  auto defs = read_confounders(data_file(opt.confounders_path, "confounders.csv"));
  const CaseRules rules = read_case_rules();
  NoiseProfile profile;
  if (!opt.noise_path.empty()) profile = read_noise_csv(opt.noise_path);
  const NoiseProfile* prof = opt.noise_path.empty() ? nullptr : &profile;
  prepare_out_dir(opt.out_dir, "history");
  std::vector<LoadedRun> runs = load_runs_for(dirs, opt, rules, exclusions, "rigcheck history", 2, false);
  keep_one_machine(runs, opt, exclusions, dirs.front());
  std::vector<const LoadedRun*> ptrs;
  for (const LoadedRun& r : runs) ptrs.push_back(&r);
  if (prof) check_profile_machine(profile, ptrs);
  std::vector<std::string> names;
  const std::vector<HistoryGroup> groups = history_groups(runs, opt, rules, defs, prof, names);
  std::vector<const Change*> changes;
  std::vector<const LoadedRun*> change_runs_before, change_runs_after;
  size_t testable = 0, cases = 0;
  for (const HistoryGroup& g : groups) {
    testable += g.testable, cases += g.series.size();
    for (const Change& c : g.changes) {
      changes.push_back(&c);
      change_runs_before.push_back(g.runs[c.before_run]);
      change_runs_after.push_back(g.runs[c.after_run]);
    }
  }
  const std::string stats = statistics_text(opt.stat, cases, testable, changes.size());
  std::string md = "# rigcheck history\n\n";
  md += opt.group_by.empty() ? "Runs of one machine in time order.\n\n"
                             : "Runs in groups by " + opt.group_by + ", each in time order.\n\n";
  md += runs_table_md(runs) + exclusions_md(exclusions);
  for (const HistoryGroup& g : groups) md += group_md(g, opt.stat);
  for (const HistoryGroup& g : groups)
    md += "\n## Series (median per run)" + (g.name.empty() ? "" : ": " + md_cell(g.name)) + "\n\n" +
          series_md(g.series, g.runs);
  if (!opt.out_dir.empty()) {
    const std::string body = history_html(groups, runs, names, exclusions, opt, rules, defs, prof);
    std::string csv;
    for (const HistoryGroup& g : groups) {
      const std::string part = changes_csv(g.changes, g.runs);
      csv += csv.empty() ? part : part.substr(part.find('\n') + 1);
    }
    prepare_out_dir(opt.out_dir, "history", true);
    write_file_atomic(opt.out_dir + "/history.md", md);
    write_file_atomic(opt.out_dir + "/history.csv", csv);
    write_file_atomic(opt.out_dir + "/history.html", html_page("rigcheck history", body));
    for (const HistoryGroup& g : groups)
      for (const std::string& s : g.steps) std::printf("step %s\n", s.c_str());
    for (const std::string& e : exclusions) std::printf("excluded: %s\n", e.c_str());
    std::printf(
        "%sHistory of %zu runs, %zu cases, %zu change points.\n"
        "Written: %s/history.md, history.csv, history.html\n",
        stats.c_str(), runs.size(), cases, changes.size(), opt.out_dir.c_str());
  } else {
    std::printf("%s\n", md.c_str());
  }
  const int code = print_gate(changes, change_runs_before, change_runs_after, testable, opt);
  if (opt.keep_runs) *opt.keep_runs = std::move(runs);
  return code;
}

}  // namespace rigcheck
