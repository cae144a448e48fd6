// `rigcheck compare`: runs side by side, the run as the unit. Positional runs: the first is the
// baseline and every other run a side of one run against it; --a RUN... --b RUN...: two sides of
// several runs each. See compare.hpp and docs/methodology.md.
#include <cmath>
#include <cstdio>
#include <set>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/compare/timeline.hpp"
#include "history_internal.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

// Not in the anonymous namespace: tests/fuzz reads --prices files through it.
std::map<std::string, Price> read_prices(const std::string& path) {
  std::map<std::string, Price> out;
  with_csv_errors(path, [&] {
    CsvReader<3> in(path);
    in.read_header(io::ignore_no_column, "run", "price", "power_w");
    std::string run, price, power;
    while (in.read_row(run, price, power)) {
      long line = static_cast<long>(in.get_file_line());
      Price p;
      if (!price.empty() && !parse_double(price, p.price))
        throw InputError(path, line, fmt::format("price '{}' is not a number", price));
      if (!power.empty() && !parse_double(power, p.power_w))
        throw InputError(path, line, fmt::format("power_w '{}' is not a number", power));
      if (run.empty()) throw InputError(path, line, "empty run");
      out[run] = p;
    }
  });
  return out;
}

namespace {
std::string get(const std::map<std::string, std::string>& m, const std::string& k, const std::string& fb = "") {
  auto it = m.find(k);
  return it == m.end() ? fb : it->second;
}

Price price_of(const std::map<std::string, Price>& prices, const LoadedRun& r) {
  auto it = prices.find(r.label);
  if (it == prices.end()) it = prices.find(get(r.data.inventory, "hostname"));
  return it == prices.end() ? Price{} : it->second;
}

std::string side_label(const std::vector<const LoadedRun*>& runs, const char* name) {
  if (runs.size() == 1) return runs[0]->label;
  std::string s;
  for (const LoadedRun* r : runs) s += (s.empty() ? "" : ", ") + r->label;
  return fmt::format("{} ({} runs: {})", name, runs.size(), s);
}

// The pairs of sides to compare: --a/--b, or the baseline against each other run.
std::vector<std::pair<Side, Side>> sides_of(const std::vector<LoadedRun>& runs, const CompareOptions& opt) {
  std::vector<std::pair<Side, Side>> out;
  if (opt.side_a.empty()) {
    for (size_t i = 1; i < runs.size(); ++i)
      out.push_back({Side{runs[0].label, {&runs[0]}}, Side{runs[i].label, {&runs[i]}}});
    return out;
  }
  Side a, b;
  for (const LoadedRun& r : runs) {
    for (const std::string& d : opt.side_a)
      if (d == r.dir) a.runs.push_back(&r);
    for (const std::string& d : opt.side_b)
      if (d == r.dir) b.runs.push_back(&r);
  }
  if (a.runs.empty() || b.runs.empty())
    throw InputError(a.runs.empty() ? opt.side_a.front() : opt.side_b.front(), 0,
                     "no usable run left on this side after the exclusions");
  a.label = side_label(a.runs, "A");
  b.label = side_label(b.runs, "B");
  out.push_back({a, b});
  return out;
}

// Where a side has several runs: every run of both sides on one time axis (timeline.hpp), a colour per
// side, each side its own change points, the flagged cases open beside the claims' inputs.
std::string sides_over_time(const std::pair<Side, Side>& sides, const std::vector<CaseFinding>& flagged,
                            const CompareOptions& opt, const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                            const NoiseProfile* prof) {
  if (opt.side_a.empty() || std::max(sides.first.runs.size(), sides.second.runs.size()) < 2) return "";
  std::vector<std::pair<const LoadedRun*, std::string>> all;
  for (const LoadedRun* r : sides.first.runs) all.emplace_back(r, fmt::format("A ({} runs)", sides.first.runs.size()));
  for (const LoadedRun* r : sides.second.runs)
    all.emplace_back(r, fmt::format("B ({} runs)", sides.second.runs.size()));
  std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return x.first->time_utc != y.first->time_utc ? x.first->time_utc < y.first->time_utc
                                                  : x.first->label < y.first->label;
  });
  TimelineInput in;
  in.group_by = "side";
  for (const auto& [r, side] : all) {
    in.runs.push_back(r);
    in.group.push_back(side);
    in.verdicts_csv.push_back(history_detail::verdicts_text(opt, r->dir));
  }
  for (const CaseFinding& f : flagged) in.open_cases.push_back(f.key);
  return timelines_html(in, rules, defs, prof, opt.stat).html;
}

std::string areas_md(const std::vector<AreaSummary>& areas, const std::vector<LoadedRun>& runs,
                     const std::map<std::string, Price>& prices, const CompareOptions& opt) {
  std::string md =
      "\n## Summary per area: geometric mean of the run's speed relative to the baseline (> 1: faster)\n\n";
  md += "| run | area | cases | geometric mean [interval] |";
  const bool with_prices = !prices.empty();
  if (with_prices) md += " price ratio | perf per price | power ratio | perf per watt |";
  md += "\n|---|---|---|---|";
  if (with_prices) md += "---|---|---|---|";
  md += "\n";
  for (const AreaSummary& a : areas) {
    md += fmt::format("| {} | {} | {} | {:.3f} {} |", md_cell(a.run_label), a.area, a.rows, a.geomean,
                      std::isnan(a.low) ? std::string("(no interval: a case without one)")
                                        : fmt::format("[{:.3f} to {:.3f}]", a.low, a.high));
    if (with_prices) {
      const LoadedRun* rr = nullptr;
      for (const LoadedRun& r : runs)
        if (r.label == a.run_label) rr = &r;
      Price pb = price_of(prices, runs[0]), pr = rr ? price_of(prices, *rr) : Price{};
      double kp = pr.price / pb.price, kw = pr.power_w / pb.power_w;
      md += fmt::format(" {} | {} | {} | {} |", std::isnan(kp) ? "no price" : fmt::format("{:.3f}", kp),
                        std::isnan(kp) ? "-" : fmt::format("{:.3f}", a.geomean / kp),
                        std::isnan(kw) ? "no power" : fmt::format("{:.3f}", kw),
                        std::isnan(kw) ? "-" : fmt::format("{:.3f}", a.geomean / kw));
    }
    md += "\n";
  }
  if (with_prices)
    md += "\nPrices and power from " + md_cell(opt.prices_path) +
          " (typed by the user, not measured); perf per price = geometric mean / price ratio.\n";
  return md;
}

// Runs of several architectures compare as two sides of one architecture each (two runs, or --a and
// --b), their cases paired by pair_across_archs: it renames cases for the whole list, which would
// change a same-architecture pair of a longer list.
void check_arch_sides(std::vector<LoadedRun>& runs, const CompareOptions& opt) {
  std::set<std::string> all;
  std::string archs;
  for (const LoadedRun& r : runs)
    if (all.insert(run_arch(r)).second) archs += (archs.empty() ? "" : ", ") + run_arch(r);
  if (all.size() < 2) return;
  auto one_arch = [&](const std::vector<std::string>& dirs) {
    std::set<std::string> s;
    for (const LoadedRun& r : runs)
      for (const std::string& d : dirs)
        if (d == r.dir) s.insert(run_arch(r));
    return s.size() == 1;
  };
  if (opt.side_a.empty() ? runs.size() == 2 : one_arch(opt.side_a) && one_arch(opt.side_b))
    return pair_across_archs(runs);
  throw InputError(runs.front().dir, 0,
                   fmt::format("runs of several processor architectures ({}): compare them as two sides of one "
                               "architecture each (two runs, or --a RUN... --b RUN...)",
                               archs));
}

// Runs of several processor architectures: how their cases were paired (pair_across_archs).
std::string cross_arch_md(const std::vector<LoadedRun>& runs) {
  std::string archs;
  std::set<std::string> seen, one_sided_keys;
  for (const LoadedRun& r : runs) {
    if (seen.insert(run_arch(r)).second) archs += (archs.empty() ? "" : ", ") + run_arch(r);
    for (auto& [k, why] : r.one_sided) one_sided_keys.insert(k);
  }
  const size_t one_sided = one_sided_keys.size();
  if (seen.size() < 2) return "";
  return fmt::format(
      "Runs of {} processor architectures ({}): cases pair where the experiment is the same (the same case "
      "and requested params: GEMM, the ResNet-50 step, fio, all-reduce; STREAM at each run's widest kernel "
      "ISA); the {} cases of one architecture's ISA are listed one-sided with the reason "
      "(data/cross_arch.csv).\n\n",
      seen.size(), archs, one_sided);
}

std::string xclaims_md(const std::vector<std::pair<Claim, Verdict>>& xclaims) {
  std::string md =
      "\n## Cross-run claims\n\n| Claim | Guide says | Measured | Verdict | Evidence and reason "
      "|\n|---|---|---|---|---|\n";
  for (auto& [c, v] : xclaims)
    md += fmt::format("| {} | {} | {} | **{}** | {} |\n", c.id, md_cell(c.guide_figure),
                      md_cell(format_measured(v.measured, v.unit)), to_string(v.verdict),
                      md_cell(v.evidence + (v.evidence.empty() ? "" : ". ") + v.reason));
  return md;
}

std::string verdicts_md(const std::vector<VerdictAcrossRuns>& vs, const std::vector<LoadedRun>& runs) {
  std::string md =
      "\n## Verdicts of each run\n\nEach run judged by itself, as `rigcheck report` judges it. `FLIP`: "
      "confirmed in one run and refuted in another; `changed`: any other difference (e.g. confirmed -> "
      "inconclusive).\n\n| Claim |";
  for (const LoadedRun& r : runs) md += " " + md_escape(r.label) + " |";
  md += " across runs |\n|---|";
  for (size_t i = 0; i < runs.size(); ++i) md += "---|";
  md += "---|\n";
  for (const VerdictAcrossRuns& v : vs) {
    md += "| " + v.claim_id + " |";
    for (Outcome x : v.verdicts) md += fmt::format(" {} |", to_string(x));
    md += v.change == "same" ? " same |\n" : " **" + v.change + "** |\n";
  }
  return md;
}

std::string claims_html(const std::vector<std::pair<Claim, Verdict>>& xclaims,
                        const std::vector<VerdictAcrossRuns>& per_run, const std::vector<LoadedRun>& runs) {
  std::string body =
      "<section><h2>Cross-run claims</h2><table><tr><th>Claim</th><th>Guide says</th><th>Measured</th>"
      "<th>Verdict</th><th>Evidence and reason</th></tr>\n";
  for (auto& [c, v] : xclaims)
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n", c.id,
                        html_escape(c.guide_figure), html_escape(format_measured(v.measured, v.unit)),
                        verdict_class(v.verdict), to_string(v.verdict), html_escape(v.evidence + " " + v.reason));
  body += "</table></section>\n<section><h2>Verdicts of each run</h2><table><tr><th>Claim</th>";
  for (const LoadedRun& r : runs) body += "<th>" + html_escape(r.label) + "</th>";
  body += "<th>across runs</th></tr>\n";
  for (const VerdictAcrossRuns& v : per_run) {
    body += "<tr><td>" + v.claim_id + "</td>";
    for (Outcome x : v.verdicts) body += fmt::format("<td class=\"{}\">{}</td>", verdict_class(x), to_string(x));
    body += "<td>" + (v.change == "same" ? v.change : "<b>" + v.change + "</b>") + "</td></tr>\n";
  }
  return body + "</table></section>\n";
}

// The machine's state of each run whose cases moved together, and the runs that started under load;
// "" when neither.
std::string machine_md(const std::vector<MachineState>& states, const std::vector<LoadedRun>& runs) {
  std::string md;
  for (const MachineState& s : states) md += "- " + md_cell(machine_state_text(s, "")) + "\n";
  for (const LoadedRun& r : runs)
    if (const std::string l = load_note(r); !l.empty()) md += "- " + md_cell(l) + ": its figures may be the load's\n";
  return md.empty() ? md : "\n## The machine's state: shifts shared by many cases, load at the start\n\n" + md + "\n";
}

// Said first when nothing could be judged: why, and how to get runs that can be.
std::string cannot_judge_md(const FindingCounts& c) {
  if (c.judged > 0 || c.cannot_judge == 0) return "";
  return "\n**Cannot judge significance: each side has one run and no noise profile was given.** The repetitions "
         "inside a run move together with the run's level (placement, neighbours, clocks), so they cannot tell a "
         "real change from run-to-run noise, and nothing is flagged. Give two or more runs per side (`--a RUN... "
         "--b RUN...`, e.g. from `rigcheck run --repeat 3`), or a noise profile of this machine (`--noise "
         "noise.csv`, from `rigcheck run --repeat N` or `rigcheck noise RUN...`).\n";
}

// The lines for CI logs and scripts, after the report: the machine's states, the runs that started
// under load, undeclared parameters, the flagged cases and the claims whose verdict differs between
// the runs. Returns the exit code (--fail-on-regression, --fail-on-verdict-flip).
int print_log_lines(const std::vector<MachineState>& states, const std::vector<LoadedRun>& runs, const CaseRules& rules,
                    std::vector<CaseFinding>& fs, const std::vector<VerdictAcrossRuns>& per_run,
                    const CompareOptions& opt) {
  for (const MachineState& s : states) std::printf("%s\n", machine_state_text(s, "").c_str());
  for (const LoadedRun& r : runs)
    if (const std::string l = load_note(r); !l.empty()) std::printf("LOAD %s\n", l.c_str());
  for (const LoadedRun& r : runs)
    for (const std::string& u : undeclared_params(r, rules))
      std::printf(
          "UNDECLARED PARAM %s in %s: read as requested, so it splits the case from runs without it "
          "(declare it in data/params.csv: requested, observed or description)\n",
          u.c_str(), r.label.c_str());
  int code = 0;
  print_flag_lines(fs, opt, code);
  // One line per claim whose verdict differs between the runs, for CI logs and
  // scripts/verdict-stability.sh.
  for (const VerdictAcrossRuns& v : per_run) {
    if (v.change == "same") continue;
    std::string line = fmt::format("VERDICT {} {}:", v.change == "FLIP" ? "FLIP" : "CHANGED", v.claim_id);
    for (size_t i = 0; i < v.verdicts.size(); ++i)
      line += fmt::format(" {}={}", runs[i].label, to_string(v.verdicts[i]));
    std::printf("%s\n", line.c_str());
    if (opt.fail_on_verdict_flip) code = 1;
  }
  return code;
}
// The run folders in the order compared: a list (the first the baseline) or --a then --b.
std::vector<std::string> compare_dirs(const std::vector<std::string>& positional, const CompareOptions& opt) {
  if (!positional.empty() && !opt.side_a.empty())
    throw InputError(positional.front(), 0,
                     "give the runs either as a list (the first is the baseline) or as --a and --b, not both");
  if (opt.side_a.empty() != opt.side_b.empty())
    throw InputError(opt.side_a.empty() ? opt.side_b.front() : opt.side_a.front(), 0, "--a and --b go together");
  std::vector<std::string> dirs = positional;
  dirs.insert(dirs.end(), opt.side_a.begin(), opt.side_a.end());
  dirs.insert(dirs.end(), opt.side_b.begin(), opt.side_b.end());
  return dirs;
}

// compare.md, compare.csv and compare.html into --out (the summary on stdout), or compare.md on stdout.
void write_compare(const CompareOptions& opt, const std::string& md, const std::string& body,
                   const std::vector<CaseFinding>& fs, const std::string& confounders,
                   const std::vector<std::string>& exclusions, const std::string& counts, size_t runs) {
  if (!opt.out_dir.empty()) {
    prepare_out_dir(opt.out_dir, "compare", true);
    write_file_atomic(opt.out_dir + "/compare.md", md);
    write_file_atomic(opt.out_dir + "/compare.csv", findings_csv(fs));
    write_file_atomic(opt.out_dir + "/compare.html", html_page("rigcheck compare", body));
    std::printf("%s", confounders.c_str());
    for (const std::string& e : exclusions) std::printf("excluded: %s\n", e.c_str());
    std::printf("%s\nCompared %zu runs, %zu cases.\nWritten: %s/compare.md, compare.csv, compare.html\n",
                counts.c_str(), runs, fs.size(), opt.out_dir.c_str());
  } else {
    std::printf("%s\n", md.c_str());
  }
}
}  // namespace

int run_compare(const std::vector<std::string>& positional, const CompareOptions& opt) {
  const std::vector<std::string> dirs = compare_dirs(positional, opt);
  std::vector<std::string> exclusions;
  auto defs = read_confounders(data_file(opt.confounders_path, "confounders.csv"));
  auto claims = read_claims(data_file(opt.claims_path, "claims.csv"));
  auto specs = read_plot_specs(data_file(opt.plots_path, "plots.csv"));
  const CaseRules rules = read_case_rules();
  std::map<std::string, Price> prices;
  if (!opt.prices_path.empty()) prices = read_prices(opt.prices_path);
  NoiseProfile profile;
  if (!opt.noise_path.empty()) profile = read_noise_csv(opt.noise_path);
  prepare_out_dir(opt.out_dir, "compare");
  std::vector<LoadedRun> runs = load_runs_for(dirs, opt, rules, exclusions, "rigcheck compare");
  check_arch_sides(runs, opt);  // then pair_across_archs: which cases of several architectures are one experiment

  std::vector<const LoadedRun*> ptrs;
  for (const LoadedRun& r : runs) ptrs.push_back(&r);
  const NoiseProfile* prof = opt.noise_path.empty() ? nullptr : &profile;
  if (prof) check_profile_machine(profile, ptrs);
  std::vector<std::string> unrecorded;
  const auto pairs = sides_of(runs, opt);
  auto diffs = opt.side_a.empty()
                   ? differing_fields(ptrs, defs, &unrecorded)
                   : differing_between_sides(pairs[0].first.runs, pairs[0].second.runs, defs, &unrecorded);
  std::vector<CaseFinding> fs;
  for (auto& [a, b] : pairs) {
    auto f = compare_sides(a, b, prof, rules, opt.stat);
    fs.insert(fs.end(), f.begin(), f.end());
  }
  mark_shared_cache(fs, ptrs, read_working_set_params());
  const std::vector<MachineState> states = machine_states(fs, opt.stat);
  const std::string state_md = machine_md(states, runs);
  const FindingCounts counts = count_findings(fs, opt.stat.alpha);
  auto areas = summarize_areas(fs);
  const Gate gate = evaluate_gate(fs, opt);
  auto xclaims = cross_run_claims(ptrs, claims, data_file(opt.datasheets_path, "datasheets.csv"), prof);
  std::vector<const RunData*> datas;
  for (const LoadedRun& r : runs) datas.push_back(&r.data);
  const auto per_run = verdicts_across_runs(claims, datas);
  std::vector<CaseFinding> flagged;
  for (const CaseFinding& f : fs)
    if (f.flagged() || f.status_changed() || f.implementation_changed) flagged.push_back(f);

  // ---- Markdown
  std::string md = "# rigcheck compare\n\n" +
                   (opt.side_a.empty() ? "Baseline: **" + md_cell(runs[0].label) + "**; every other run against it.\n\n"
                                       : "Side A (the baseline): **" + md_cell(pairs[0].first.label) +
                                             "**; side B: **" + md_cell(pairs[0].second.label) + "**.\n\n");
  md += cross_arch_md(runs);
  md += runs_table_md(runs) + exclusions_md(exclusions) + confounders_md(diffs, unrecorded);
  md += cannot_judge_md(counts) + "\n" + statistics_md(opt.stat, prof) + "\n" + counts_md(counts, opt.stat);
  md += "\n" + md_cell(gate_text(gate)) + "\n";
  md += areas_md(areas, runs, prices, opt) + xclaims_md(xclaims) + verdicts_md(per_run, runs);
  md += state_md;
  md += "\n## Flagged cases, cases that stopped or started working, implementation changes\n\n";
  if (!states.empty()) md += "Read with the machine's state above: its cases are judged against it.\n\n";
  md += flagged.empty() ? "No case changed beyond the noise and the threshold, every case works as it did, and what "
                          "ran is the same.\n"
                        : findings_md(flagged, false);
  md += unstable_md(fs);
  md += "\n## All cases\n\n" + findings_md(fs, false);

  // ---- HTML
  std::string body = "<h1>rigcheck compare</h1>\n" + runs_table_html(runs) + exclusions_html(exclusions) +
                     confounders_html(diffs, unrecorded) + "<section><h2>Statistics</h2><p>" +
                     html_escape(cannot_judge_md(counts) + statistics_md(opt.stat, prof)) + "</p><p>" +
                     html_escape(counts_md(counts, opt.stat)) + "</p></section>\n";
  body +=
      "<section><h2>Summary per area</h2><table><tr><th>run</th><th>area</th><th>cases</th><th>geometric mean "
      "[interval]</th></tr>\n";
  for (const AreaSummary& a : areas)
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.3f} [{:.3f} to {:.3f}]</td></tr>\n",
                        html_escape(a.run_label), html_escape(a.area), a.rows, a.geomean, a.low, a.high);
  body += "</table></section>\n" + claims_html(xclaims, per_run, runs);
  std::vector<PlotRun> pruns;
  for (const LoadedRun& r : runs) pruns.push_back({r.label, &r.data});
  std::string note;
  auto plots = render_plots(specs, pruns, data_file(opt.datasheets_path, "datasheets.csv"), &note);
  body += plots_section(plots, note) + sides_over_time(pairs[0], flagged, opt, rules, defs, prof);
  body += "<section><h2>Flagged cases and implementation changes</h2>" +
          (flagged.empty() ? std::string("<p>No case changed beyond the noise and the threshold.</p>")
                           : findings_html(flagged, false)) +
          "</section>\n<section><h2>All cases</h2>" + findings_html(fs, false) + "</section>\n";

  write_compare(opt, md, body, fs, confounders_md(diffs, unrecorded), exclusions,
                cannot_judge_md(counts) + "\n" + counts_md(counts, opt.stat), runs.size());
  return print_log_lines(states, runs, rules, fs, per_run, opt);
}

}  // namespace rigcheck
