// `rigcheck history RUN...`: one machine's runs in time order; each metric's series; the
// inventory fields that changed between consecutive runs; a change beyond the noise flagged as a
// regression or an improvement with the changed fields beside it. See compare.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "rigcheck/tool/compare.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/tool/html.hpp"
#include "rigcheck/tool/report_util.hpp"

namespace rigcheck {

namespace {
std::string get(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? "(not recorded)" : it->second;
}
}  // namespace

int run_history(const std::vector<std::string>& dirs, const CompareOptions& opt) {
  std::vector<std::string> exclusions;
  auto defs = read_confounders(data_file(opt.confounders_path, "confounders.csv"));
  auto specs = read_plot_specs(data_file(opt.plots_path, "plots.csv"));
  prepare_out_dir(opt.out_dir, "history");
  std::vector<LoadedRun> runs = load_runs_for(dirs, opt, exclusions, "rigcheck history");

  // One machine: the same host and CPU model; another machine's run is refused (or excluded).
  {
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
    if (runs.size() < 2) throw InputError(dirs.front(), 0, "rigcheck history needs at least two runs of one machine");
  }
  // Time order: the inventory's UTC time (ISO 8601 sorts as text), then the folder name.
  for (const LoadedRun& r : runs)
    if (r.time_utc.empty() || r.time_utc.rfind("unknown", 0) == 0)
      throw InputError(r.dir + "/inventory.csv", 0, "no inventory_time_utc: cannot place this run in time");
  std::stable_sort(runs.begin(), runs.end(), [](const LoadedRun& a, const LoadedRun& b) {
    return a.time_utc != b.time_utc ? a.time_utc < b.time_utc : a.label < b.label;
  });

  // Consecutive steps.
  std::vector<RowComparison> rows;
  std::vector<std::string> step_changes;
  for (size_t i = 1; i < runs.size(); ++i) {
    auto diffs = differing_fields({&runs[i - 1], &runs[i]}, defs);
    std::string changed;
    for (const FieldDiff& d : diffs) {
      if (d.key == "loadavg_1m") continue;  // load is a condition of the run, named in the step list below
      changed += (changed.empty() ? "" : "; ") + describe_diff(d);
    }
    std::string load;
    for (const FieldDiff& d : diffs)
      if (d.key == "loadavg_1m") load = " (" + describe_diff(d) + ")";
    step_changes.push_back(fmt::format("{} -> {}: {}{}", runs[i - 1].label, runs[i].label,
                                       changed.empty() ? "no inventory field changed" : changed, load));
    for (RowComparison& r : compare_pair(runs[i - 1], runs[i], defs, opt)) {
      r.changed_fields = changed.empty() ? "no inventory field changed (noise, or a cause the inventory does not record)"
                                         : changed;
      rows.push_back(r);
    }
  }

  // Series: each row key's median per run.
  struct Series {
    std::string benchmark, case_name, metric, unit;
    std::map<std::string, Measured> by_run;
  };
  std::map<std::string, Series> series;
  for (const RowComparison& r : rows) {
    const std::string key = r.benchmark + "\x1f" + r.case_name + "\x1f" + r.params + "\x1f" + r.metric;
    Series& s = series[key];
    s.benchmark = r.benchmark;
    s.case_name = r.case_name;
    s.metric = r.metric;
    s.unit = r.unit;
    if (r.base.ok()) s.by_run[r.base_label] = r.base;
    if (r.run.ok()) s.by_run[r.run_label] = r.run;
  }

  std::vector<RowComparison> flagged;
  for (const RowComparison& r : rows)
    if (r.flag == "regression" || r.flag == "improvement") flagged.push_back(r);

  // ---- Markdown
  std::string md = "# rigcheck history\n\nRuns of one machine in time order.\n\n" + runs_table_md(runs);
  md += exclusions_md(exclusions);
  md += "\n## Inventory changes between consecutive runs\n\n";
  for (const std::string& s : step_changes) md += "- " + md_cell(s) + "\n";
  md += fmt::format(
      "\nA step is flagged when the two-sided Mann-Whitney U test gives p < {} and the medians differ by at least "
      "{}%; the inventory fields that changed in that step stand beside it.\n",
      opt.alpha, opt.threshold_pct);
  md += "\n## Regressions and improvements\n\n";
  md += flagged.empty() ? "None beyond the noise and the threshold.\n" : rows_md(flagged, true);
  md += "\n## Series (median per run)\n\n| benchmark | case | metric |";
  for (const LoadedRun& r : runs) md += " " + md_cell(r.label) + " |";
  md += "\n|---|---|---|";
  for (size_t i = 0; i < runs.size(); ++i) md += "---|";
  md += "\n";
  for (auto& [k, s] : series) {
    md += fmt::format("| {} | {} | {} |", s.benchmark, md_cell(s.case_name), s.metric);
    for (const LoadedRun& r : runs) {
      auto it = s.by_run.find(r.label);
      md += " " + (it == s.by_run.end() ? std::string("-") : fmt_num(it->second.value) + " " + s.unit) + " |";
    }
    md += "\n";
  }
  md += "\n## Every step\n\n" + rows_md(rows, true);

  // ---- HTML
  std::string body = "<h1>rigcheck history</h1>\n" + runs_table_html(runs);
  if (!exclusions.empty()) {
    body += "<section><h2>Excluded runs</h2><ul>";
    for (const std::string& e : exclusions) body += "<li>" + html_escape(e) + "</li>";
    body += "</ul></section>\n";
  }
  body += "<section id=\"changes\"><h2>Inventory changes between consecutive runs</h2><ul>";
  for (const std::string& s : step_changes) body += "<li>" + html_escape(s) + "</li>";
  body += "</ul></section>\n<section><h2>Regressions and improvements</h2>" +
          (flagged.empty() ? std::string("<p>None beyond the noise and the threshold.</p>") : html_rows(flagged, true)) +
          "</section>\n";
  std::vector<PlotRun> pruns;
  for (const LoadedRun& r : runs) pruns.push_back({r.label, &r.data});
  std::string note;
  body += plots_section(render_plots(specs, pruns, data_file(opt.datasheets_path, "datasheets.csv"), &note), note);
  body += "<section id=\"series\"><h2>Series (median per run)</h2><table><tr><th>benchmark</th><th>case</th><th>metric</th>";
  for (const LoadedRun& r : runs) body += "<th>" + html_escape(r.label) + "</th>";
  body += "</tr>\n";
  for (auto& [k, s] : series) {
    body += "<tr><td>" + html_escape(s.benchmark) + "</td><td>" + html_escape(s.case_name) + "</td><td>" +
            html_escape(s.metric) + "</td>";
    for (const LoadedRun& r : runs) {
      auto it = s.by_run.find(r.label);
      body += "<td>" + (it == s.by_run.end() ? std::string("-") : html_escape(fmt_num(it->second.value) + " " + s.unit)) + "</td>";
    }
    body += "</tr>\n";
  }
  body += "</table></section>\n";
  body += "<section><h2>Every step</h2>" + html_rows(rows, true) + "</section>\n";

  if (!opt.out_dir.empty()) {
    prepare_out_dir(opt.out_dir, "history", true);
    write_file_atomic(opt.out_dir + "/history.md", md);
    write_file_atomic(opt.out_dir + "/history.csv", rows_csv(rows));
    write_file_atomic(opt.out_dir + "/history.html", html_page("rigcheck history", body));
    for (const std::string& s : step_changes) std::printf("step %s\n", s.c_str());
    for (const std::string& e : exclusions) std::printf("excluded: %s\n", e.c_str());
    std::printf("History of %zu runs, %zu step rows, %zu flagged.\nWritten: %s/history.md, history.csv, history.html\n",
                runs.size(), rows.size(), flagged.size(), opt.out_dir.c_str());
  } else {
    std::printf("%s\n", md.c_str());
  }
  int code = 0;
  print_flag_lines(rows, opt, code);
  return code;
}

}  // namespace rigcheck
