// `rigcheck history RUN...`: one machine's runs in time order; each case's series of run values
// (the log of the median of its repetitions in each run); the change points of each series
// (E-divisive means with Otava's t-test, statistics.cpp), each with its magnitude, interval and
// the inventory fields that changed at that point; --fail-on-regression on change points only.
// See compare.hpp and docs/methodology.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

namespace {
std::string get(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? "(not recorded)" : it->second;
}

struct Series {
  std::string key, label, benchmark, case_name, source, params, metric, unit;
  int better = 1;
  std::vector<size_t> run;      // index into the runs, in time order
  std::vector<double> value;    // log(median) in that run
  std::vector<const CaseRun*> cases;
};

struct Change {
  const Series* s = nullptr;
  ChangePoint cp;
  size_t before_run = 0, after_run = 0;  // the runs on each side of the change
  double change_pct = 0, low_pct = 0, high_pct = 0;  // signed, positive = better
  std::string flag, attributes, changed_fields;
};

// One machine: the same host and CPU model; another machine's run is refused (or excluded).
void keep_one_machine(std::vector<LoadedRun>& runs, const CompareOptions& opt, std::vector<std::string>& exclusions,
                      const std::string& first_dir) {
  const std::string host = get(runs[0].data.inventory, "hostname"), cpu = get(runs[0].data.inventory, "cpu_model");
  std::vector<LoadedRun> kept{std::move(runs[0])};
  for (size_t i = 1; i < runs.size(); ++i) {
    const std::string h = get(runs[i].data.inventory, "hostname"), c = get(runs[i].data.inventory, "cpu_model");
    if (h == host && c == cpu) {
      kept.push_back(std::move(runs[i]));
      continue;
    }
    std::string why = fmt::format("another machine (host {}, CPU {}; the first run: host {}, CPU {}): history follows "
                                  "one machine, use rigcheck compare across machines",
                                  h, c, host, cpu);
    if (!opt.exclude_broken) throw InputError(runs[i].dir, 0, why);
    exclusions.push_back(runs[i].dir + ": " + why);
  }
  runs = std::move(kept);
  if (runs.size() < 2) throw InputError(first_dir, 0, "rigcheck history needs at least two runs of one machine");
  // Time order: the inventory's UTC time (ISO 8601 sorts as text), then the folder name.
  for (const LoadedRun& r : runs)
    if (r.time_utc.empty() || r.time_utc.rfind("unknown", 0) == 0)
      throw InputError(r.dir + "/inventory.csv", 0, "no inventory_time_utc: cannot place this run in time");
  std::stable_sort(runs.begin(), runs.end(), [](const LoadedRun& a, const LoadedRun& b) {
    return a.time_utc != b.time_utc ? a.time_utc < b.time_utc : a.label < b.label;
  });
}

std::vector<Series> series_of(const std::vector<LoadedRun>& runs, const CaseRules& rules) {
  std::map<std::string, Series> by_key;
  for (size_t i = 0; i < runs.size(); ++i)
    for (auto& [key, c] : runs[i].cases) {
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

std::string observed_changes(const CaseRun* a, const CaseRun* b) {
  std::string s;
  std::set<std::string> keys;
  for (auto& [k, v] : a->observed) keys.insert(k);
  for (auto& [k, v] : b->observed) keys.insert(k);
  for (const std::string& k : keys) {
    auto ia = a->observed.find(k), ib = b->observed.find(k);
    const std::string va = ia == a->observed.end() ? "(none)" : ia->second, vb = ib == b->observed.end() ? "(none)" : ib->second;
    if (va != vb) s += fmt::format("{}{}: {} -> {}", s.empty() ? "" : "; ", k, va, vb);
  }
  return s;
}

std::vector<Change> find_changes(const std::vector<Series>& series, const std::vector<LoadedRun>& runs,
                                 const std::vector<ConfounderDef>& defs, const NoiseProfile* profile,
                                 const StatOptions& opt) {
  std::vector<Change> out;
  std::map<std::pair<size_t, size_t>, std::string> changed_cache;
  const double thr = std::log1p(opt.threshold_pct / 100);
  for (const Series& s : series) {
    double min_change = thr;
    if (const Noise* n = profile ? profile->find(s.key, s.metric) : nullptr) min_change = std::max(thr, opt.noise_k * n->sd);
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
        it = changed_cache.emplace(key, changed_between(runs[c.before_run], runs[c.after_run], defs)).first;
      c.changed_fields = it->second.empty() ? "no inventory field changed (noise, or a cause the inventory does not record)"
                                            : it->second;
      out.push_back(c);
    }
  }
  return out;
}

std::string changes_md(const std::vector<Change>& cs, const std::vector<LoadedRun>& runs) {
  std::string md = "| case | metric | between | before -> after (geometric means) | change [interval] | p | runs "
                   "before, after | what ran | inventory changes at that point |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Change& c : cs)
    md += fmt::format("| {} | {} | {} -> {} | {} -> {} {} | **{} {:+.1f}%** [{:+.1f}% to {:+.1f}%] | {:.2g} | {}, {} | {} | {} |\n",
                      md_cell(c.s->label), c.s->metric, md_cell(runs[c.before_run].label),
                      md_cell(runs[c.after_run].label), fmt_num(std::exp(c.cp.before)), fmt_num(std::exp(c.cp.after)),
                      c.s->unit, c.flag, c.change_pct, c.low_pct, c.high_pct, c.cp.p, c.cp.n_before, c.cp.n_after,
                      md_cell(c.attributes), md_cell(c.changed_fields));
  return md;
}

std::string changes_csv(const std::vector<Change>& cs, const std::vector<LoadedRun>& runs) {
  const char* header = "benchmark,case,source,label,params,metric,unit,better,before_run,after_run,before_value,"
                       "after_value,change_pct,change_low_pct,change_high_pct,p_value,runs_before,runs_after,flag,"
                       "attributes,changed_fields";
  return format_csv(header, cs, [&runs](const Change& c) -> std::vector<std::string> {
    return {c.s->benchmark, c.s->case_name, c.s->source, c.s->label, c.s->params, c.s->metric, c.s->unit,
            c.s->better > 0 ? "higher" : "lower", runs[c.before_run].label, runs[c.after_run].label,
            format_double(std::exp(c.cp.before)), format_double(std::exp(c.cp.after)), format_double(c.change_pct),
            format_double(c.low_pct), format_double(c.high_pct), format_double(c.cp.p),
            std::to_string(c.cp.n_before), std::to_string(c.cp.n_after), c.flag, c.attributes, c.changed_fields};
  });
}

std::string series_md(const std::vector<Series>& series, const std::vector<LoadedRun>& runs) {
  std::string md = "| case | metric |";
  for (const LoadedRun& r : runs) md += " " + md_cell(r.label) + " |";
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

int run_history(const std::vector<std::string>& dirs, const CompareOptions& opt) {
  std::vector<std::string> exclusions;
  auto defs = read_confounders(data_file(opt.confounders_path, "confounders.csv"));
  auto specs = read_plot_specs(data_file(opt.plots_path, "plots.csv"));
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

  std::vector<std::string> step_changes;
  for (size_t i = 1; i < runs.size(); ++i) {
    const std::string changed = changed_between(runs[i - 1], runs[i], defs);
    std::string load;
    for (const FieldDiff& d : differing_fields({&runs[i - 1], &runs[i]}, defs))
      if (d.key == "loadavg_1m") load = " (" + describe_diff(d) + ")";
    step_changes.push_back(fmt::format("{} -> {}: {}{}", runs[i - 1].label, runs[i].label,
                                       changed.empty() ? "no inventory field changed" : changed, load));
  }
  const std::vector<Series> series = series_of(runs, rules);
  const std::vector<Change> changes = find_changes(series, runs, defs, prof, opt.stat);
  size_t testable = 0;
  for (const Series& s : series) testable += s.value.size() >= 4;
  const std::string stats = statistics_text(opt.stat, series.size(), testable, changes.size());

  std::string md = "# rigcheck history\n\nRuns of one machine in time order.\n\n" + runs_table_md(runs) + exclusions_md(exclusions);
  md += "\n## Inventory changes between consecutive runs\n\n";
  for (const std::string& s : step_changes) md += "- " + md_cell(s) + "\n";
  md += "\n## Change points\n\n" + stats + "\n";
  if (runs.size() < 4) md += "Too few runs for change points: " + std::to_string(runs.size()) + " (four or more, two on each side of a change).\n";
  md += changes.empty() ? "None: no case's level changed beyond its noise and the threshold.\n" : changes_md(changes, runs);
  md += "\n## Series (median per run)\n\n" + series_md(series, runs);

  std::string body = "<h1>rigcheck history</h1>\n" + runs_table_html(runs) + exclusions_html(exclusions);
  body += "<section id=\"changes\"><h2>Inventory changes between consecutive runs</h2><ul>";
  for (const std::string& s : step_changes) body += "<li>" + html_escape(s) + "</li>";
  body += "</ul></section>\n<section><h2>Change points</h2><p>" + html_escape(stats) + "</p><table><tr><th>case</th>"
          "<th>metric</th><th>between</th><th>change [interval]</th><th>p</th><th>what ran</th><th>inventory changes</th></tr>\n";
  for (const Change& c : changes)
    body += fmt::format("<tr class=\"f-{}\"><td>{}</td><td>{}</td><td>{} -> {}</td><td class=\"flag\">{} {:+.1f}% [{:+.1f}% "
                        "to {:+.1f}%]</td><td>{:.2g}</td><td>{}</td><td>{}</td></tr>\n",
                        c.flag, html_escape(c.s->label), html_escape(c.s->metric), html_escape(runs[c.before_run].label),
                        html_escape(runs[c.after_run].label), c.flag, c.change_pct, c.low_pct, c.high_pct, c.cp.p,
                        html_escape(c.attributes), html_escape(c.changed_fields));
  body += "</table></section>\n";
  if (!opt.out_dir.empty()) {
    // A plot of every run of a long history is a tangle of series (and slow to draw): the plots
    // show the last few runs; the series table above has them all.
    constexpr size_t kPlotRuns = 8;
    std::vector<LoadedRun> shown;  // read again with their rows (load_runs_for dropped them)
    for (size_t i = runs.size() > kPlotRuns ? runs.size() - kPlotRuns : 0; i < runs.size(); ++i)
      shown.push_back(load_run(runs[i].dir, rules, opt.read));
    std::vector<PlotRun> pruns;
    for (const LoadedRun& r : shown) pruns.push_back({r.label, &r.data});
    std::string note;
    auto plots = render_plots(specs, pruns, data_file(opt.datasheets_path, "datasheets.csv"), &note);
    if (runs.size() > kPlotRuns)
      note = fmt::format("The plots show the last {} of the {} runs; every run is in the series table of history.md.{}", kPlotRuns,
                         runs.size(), note.empty() ? "" : " " + note);
    body += plots_section(plots, note);
    prepare_out_dir(opt.out_dir, "history", true);
    write_file_atomic(opt.out_dir + "/history.md", md);
    write_file_atomic(opt.out_dir + "/history.csv", changes_csv(changes, runs));
    write_file_atomic(opt.out_dir + "/history.html", html_page("rigcheck history", body));
    for (const std::string& s : step_changes) std::printf("step %s\n", s.c_str());
    for (const std::string& e : exclusions) std::printf("excluded: %s\n", e.c_str());
    std::printf("%sHistory of %zu runs, %zu cases, %zu change points.\nWritten: %s/history.md, history.csv, history.html\n",
                stats.c_str(), runs.size(), series.size(), changes.size(), opt.out_dir.c_str());
  } else {
    std::printf("%s\n", md.c_str());
  }
  // The gate: Holm over every series that could hold a change point (each series once, its change
  // points in it; the series without one count with p = 1), at family-wise level gate_alpha.
  std::vector<double> ps;
  for (const Change& c : changes) ps.push_back(c.cp.p);
  const size_t family = std::max(ps.size(), testable);
  ps.resize(family, 1.0);
  const std::vector<bool> holds = holm(ps, opt.stat.gate_alpha);
  int code = 0, failing = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    std::printf("%s %s %s: %+.1f%% [%+.1f%% to %+.1f%%] between %s and %s (p=%.2g)%s%s; changed: %s\n",
                c.flag == "regression" ? "REGRESSION" : "IMPROVEMENT", c.s->label.c_str(), c.s->metric.c_str(),
                c.change_pct, c.low_pct, c.high_pct, runs[c.before_run].label.c_str(), runs[c.after_run].label.c_str(),
                c.cp.p, c.attributes.empty() ? "" : "; ran: ", c.attributes.c_str(), c.changed_fields.c_str());
    if (c.flag == "regression" && !std::isnan(opt.fail_pct) && -c.change_pct >= opt.fail_pct && holds[i]) ++failing;
  }
  const std::string rule = fmt::format("Holm's step-down over the {} series that could hold a change point at family-wise level {} (Holm 1979)", family, opt.stat.gate_alpha);
  if (std::isnan(opt.fail_pct)) std::printf("GATE off (no --fail-on-regression): %s.\n", rule.c_str());
  else std::printf("GATE %s: %d regressions of %g%% or more that hold after %s.\n", failing ? "FAIL" : "pass", failing, opt.fail_pct, rule.c_str());
  if (failing) code = 1;
  if (opt.keep_runs) *opt.keep_runs = std::move(runs);
  return code;
}

}  // namespace rigcheck
