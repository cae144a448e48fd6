// What the timelines show (timeline.hpp): per group of runs each case's series and change points
// (history.cpp's), the inventory changes that may explain them, the claims' verdicts per run; the
// drawing is timeline_svg.cpp's.
#include "rigcheck/compare/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include "history_internal.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "timeline_internal.hpp"

namespace rigcheck {

double utc_seconds(const std::string& iso) {
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &s) != 6) return kNaN;
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
  return static_cast<double>(timegm(&tm));
}

double percentile_of(double x, const std::vector<double>& values) {
  if (values.empty()) return kNaN;
  double below = 0;
  for (double v : values) below += v < x ? 1 : v == x ? 0.5 : 0;
  return 100 * below / values.size();
}

namespace {
using namespace history_detail;
using namespace timeline_detail;

const char* const kColours[] = {"#1f5fbf", "#e07b00", "#7b3fb0", "#00897b", "#8d6e63", "#d81b60"};

struct Group {
  std::string name, colour;
  std::vector<size_t> runs;  // indices into the page's runs
  std::vector<const LoadedRun*> ptrs;
  std::vector<Series> own_series;
  std::vector<Change> own_changes;
  const std::vector<Series>* series = nullptr;
  const std::vector<Change>* changes = nullptr;
};

struct Judged {
  std::map<std::string, std::string> verdict, evidence;  // by claim id
  std::vector<std::string> order;
};
Judged parse_verdicts(const std::string& text, const std::string& name) {
  Judged j;
  if (text.empty()) return j;
  try {
    std::optional<CsvReader<3>> slot;
    CsvReader<3>& in = open_csv(slot, name, &text);
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "claim_id", "verdict", "evidence");
    std::string id, v, ev;
    while (in.read_row(id, v, ev)) {
      j.order.push_back(id);
      j.verdict[id] = v;
      j.evidence[id] = ev;
    }
  } catch (const std::exception&) {
    return {};  // a verdicts.csv that cannot be read: the run counts as not judged
  }
  return j;
}

bool names_word(const std::string& text, const std::string& word) {
  auto inner = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1))
    if ((p == 0 || !inner(text[p - 1])) && (p + word.size() == text.size() || !inner(text[p + word.size()])))
      return true;
  return false;
}

std::string kind_of(const std::vector<ConfounderDef>& defs, const std::string& key) {
  for (const ConfounderDef& d : defs)
    if (d.key == key) return d.kind;
  return "";
}

// A mark where a fact of data/confounders.csv that a machine keeps between runs (exact facts: versions,
// kernel, microcode, THP, governor, limits...) changed between two runs of a group. A fact that changes
// at many steps (kMarkSteps or more, and a tenth of the steps) is no version change but a group of
// several machines taking turns (--group-by driver; the host's name likewise): the changes table
// counts it, no mark is drawn for it.
constexpr size_t kMarkSteps = 7;
std::vector<Vline> marks_of(const Group& g, const std::vector<double>& ts, const std::vector<ConfounderDef>& defs) {
  std::vector<std::vector<FieldDiff>> steps(g.ptrs.size());
  std::map<std::string, size_t> times;
  for (size_t k = 1; k < g.ptrs.size(); ++k)
    for (FieldDiff& d : differing_fields({g.ptrs[k - 1], g.ptrs[k]}, defs)) {
      if (!d.listed || d.key == "hostname" || kind_of(defs, d.key) != "exact") continue;
      ++times[d.key];
      steps[k].push_back(std::move(d));
    }
  std::vector<Vline> out;
  for (size_t k = 1; k < g.ptrs.size(); ++k) {
    std::string labels, title;
    for (const FieldDiff& d : steps[k]) {
      if (times[d.key] >= std::max(kMarkSteps, g.ptrs.size() / 10)) continue;
      labels += (labels.empty() ? "" : ", ") + d.label;
      title += (title.empty() ? "" : "; ") + describe_diff(d);
    }
    if (labels.empty()) continue;
    Vline l;
    l.t = (ts[g.runs[k - 1]] + ts[g.runs[k]]) / 2;
    l.cls = "mark";
    l.run = g.ptrs[k]->label;
    l.before = g.ptrs[k - 1]->label;
    l.short_label = labels.size() > 48 ? labels.substr(0, 45) + "..." : labels;
    l.title = title + " (between " + l.before + " and " + l.run + (g.name.empty() ? "" : ", " + g.name) + ")";
    out.push_back(l);
  }
  return out;
}

// One row per fact that changed: from, to, at which run. A fact that changes at most steps (a
// measured clock, the load) is one row with its count instead of a row per step.
std::string changes_table(const std::vector<Group>& groups, const std::vector<ConfounderDef>& defs) {
  struct Row {
    std::string group, label, from, to, run;
  };
  std::map<std::string, std::vector<Row>> by_fact;
  std::vector<std::string> order;
  for (const Group& g : groups)
    for (size_t k = 1; k < g.ptrs.size(); ++k)
      for (const FieldDiff& d : differing_fields({g.ptrs[k - 1], g.ptrs[k]}, defs)) {
        if (d.key == "loadavg_1m") continue;
        if (!by_fact.count(d.key)) order.push_back(d.key);
        by_fact[d.key].push_back({g.name, d.label, d.values[0], d.values[1], g.ptrs[k]->label});
      }
  std::string h = "<section id=\"changes\"><h2>What changed in the inventory</h2>\n";
  if (order.empty()) return h + "<p>No inventory fact changed between consecutive runs.</p></section>\n";
  h += "<table class=\"changes\"><tr><th>fact</th><th>from</th><th>to</th><th>at run</th>" +
       std::string(groups.size() > 1 ? "<th>group</th>" : "") + "</tr>\n";
  for (const std::string& key : order) {
    const std::vector<Row>& rows = by_fact[key];
    if (rows.size() > 6) {
      h += fmt::format(
          "<tr class=\"varies\"><td>{}</td><td colspan=\"3\">changes at {} steps (first: {} -> {} at {}; "
          "last: {} -> {} at {})</td>{}</tr>\n",
          html_escape(rows[0].label), rows.size(), html_escape(rows[0].from), html_escape(rows[0].to),
          html_escape(rows[0].run), html_escape(rows.back().from), html_escape(rows.back().to),
          html_escape(rows.back().run), groups.size() > 1 ? "<td></td>" : "");
      continue;
    }
    for (const Row& r : rows)
      h += fmt::format("<tr data-fact=\"{}\" data-run=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>\n",
                       html_escape(key), html_escape(r.run), html_escape(r.label), html_escape(r.from),
                       html_escape(r.to), html_escape(r.run),
                       groups.size() > 1 ? "<td>" + html_escape(r.group) + "</td>" : "");
  }
  return h + "</table></section>\n";
}

// The claims strip: one row per claim (per group where there are several), one cell per run.
std::string strip_section(const TimelineInput& in, const std::vector<Judged>& judged, const std::vector<Group>& groups,
                          size_t& claims) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const Judged& j : judged)
    for (const std::string& id : j.order)
      if (seen.insert(id).second) order.push_back(id);
  claims = order.size();
  std::string h = "<section id=\"claims-strip\"><h2>Claims over the runs</h2>\n";
  if (order.empty())
    return h + "<p>No run here has verdicts (verdicts.csv, written by <code>rigcheck report</code>).</p></section>\n";
  std::vector<std::string> labels;
  for (const LoadedRun* r : in.runs) labels.push_back(r->label);
  // A claim no run could judge (not measurable: this hardware lacks what it needs) says the same in
  // every cell: named in one line instead of a row each.
  std::set<std::string> unjudged_ids(order.begin(), order.end());
  std::vector<StripRow> rows;
  for (const Group& g : groups)
    for (const std::string& id : order) {
      StripRow row{groups.size() > 1 ? id + " " + g.name : id, g.runs, {}};
      bool judged_once = false;
      for (size_t i : g.runs) {
        auto it = judged[i].verdict.find(id);
        row.verdict.push_back(it == judged[i].verdict.end() ? "" : it->second);
        judged_once |= !row.verdict.back().empty() && row.verdict.back() != "not_measurable" &&
                       row.verdict.back() != "no_benchmark";
      }
      if (!judged_once) continue;
      unjudged_ids.erase(id);
      rows.push_back(std::move(row));
    }
  std::string unjudged;
  for (const std::string& id : order)
    if (unjudged_ids.count(id)) unjudged += (unjudged.empty() ? "" : ", ") + id;
  h += "<p class=\"sec\">One cell per run, oldest left, runs evenly spaced; a verdict that changed shows as a change "
       "of colour. <span class=\"s-confirmed key\">confirmed</span> <span class=\"s-refuted key\">refuted</span> "
       "<span class=\"s-inconclusive key\">inconclusive</span> <span class=\"s-not_measurable key\">not measurable"
       "</span> <span class=\"s-none key\">not judged</span></p>\n";
  if (!unjudged.empty())
    h += "<p class=\"sec\" id=\"never-judged\">Not measurable or without a benchmark in every run: " +
         html_escape(unjudged) + ".</p>\n";
  return h + (rows.empty() ? "" : strip_svg(rows, labels)) + "</section>\n";
}

struct CaseView {
  std::string label, metric, unit, benchmark;
  std::vector<std::pair<const Group*, const Series*>> parts;
  std::vector<const Change*> changes;
  int rank = 2;  // 0: a claim's input, 1: has a change point, 2: the rest
};

Part part_of(const Group& g, const Series& s, const std::vector<double>& ts, const std::vector<const Change*>& cs) {
  Part p;
  p.colour = g.colour;
  p.name = g.name;
  std::vector<double> values;
  for (size_t k = 0; k < s.run.size(); ++k) {
    const std::vector<double>& reps = s.cases[k]->metrics.at(s.metric).reps;
    const auto [lo, hi] = std::minmax_element(reps.begin(), reps.end());
    p.pts.push_back({ts[g.runs[s.run[k]]], std::exp(s.value[k]), *lo, *hi});
    values.push_back(std::exp(s.value[k]));
  }
  std::vector<size_t> cuts{0};
  for (const Change* c : cs) cuts.push_back(c->cp.index);
  cuts.push_back(s.run.size());
  std::sort(cuts.begin(), cuts.end());
  for (size_t i = 1; !cs.empty() && i < cuts.size(); ++i) {
    if (cuts[i] <= cuts[i - 1]) continue;
    double sum = 0;
    for (size_t k = cuts[i - 1]; k < cuts[i]; ++k) sum += s.value[k];
    p.levels.push_back({p.pts[cuts[i - 1]].t, p.pts[cuts[i] - 1].t, std::exp(sum / (cuts[i] - cuts[i - 1]))});
  }
  const double pct = percentile_of(values.back(), values);
  p.caption = fmt::format("{}latest {} {}: percentile {:.0f} of its {} runs", g.name.empty() ? "" : g.name + ": ",
                          fmt_num(values.back()), s.unit, pct, values.size());
  return p;
}

std::string figure_of(const CaseView& c, const std::vector<double>& ts, double t0, double t1,
                      const std::map<const Group*, std::vector<Vline>>& marks, bool folded) {
  PlotData d;
  d.t0 = t0, d.t1 = t1, d.width = folded ? 480 : 720, d.unit = c.unit;
  std::string captions;
  for (auto& [g, s] : c.parts) {
    std::vector<const Change*> cs;
    for (const Change* ch : c.changes)
      if (ch->s == s) cs.push_back(ch);
    d.parts.push_back(part_of(*g, *s, ts, cs));
    captions += (captions.empty() ? "" : "; ") + d.parts.back().caption;
    for (const Change* ch : cs) {
      const auto& runs = g->ptrs;
      Vline l;
      l.t = (ts[g->runs[ch->before_run]] + ts[g->runs[ch->after_run]]) / 2;
      l.cls = "cp", l.run = runs[ch->after_run]->label, l.before = runs[ch->before_run]->label;
      l.change_pct = ch->change_pct;
      l.short_label = fmt::format("{:+.1f}%", ch->change_pct);
      l.title = fmt::format("{} {:+.1f}% [{:+.1f}% to {:+.1f}%] between {} and {} (p={:.2g}); changed: {}", ch->flag,
                            ch->change_pct, ch->low_pct, ch->high_pct, l.before, l.run, ch->cp.p, ch->changed_fields);
      d.lines.push_back(l);
    }
    if (auto it = marks.find(g); it != marks.end()) d.lines.insert(d.lines.end(), it->second.begin(), it->second.end());
  }
  return fmt::format(
      "<figure class=\"{}\" data-case=\"{}\" data-change-points=\"{}\"><h3>{} <span class=\"sec\">{} "
      "({})</span></h3>\n{}\n<figcaption>{}</figcaption></figure>\n",
      folded ? "timeline folded" : "plot timeline", html_escape(c.label), c.changes.size(), html_escape(c.label),
      html_escape(c.metric), html_escape(c.unit), plot_svg(d), html_escape(captions));
}

std::vector<Group> groups_of(const TimelineInput& in) {
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < in.runs.size(); ++i) {
    const std::string name = i < in.group.size() ? in.group[i] : "";
    auto [it, added] = index.emplace(name, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().name = name;
      groups.back().colour = kColours[it->second % std::size(kColours)];
    }
    groups[it->second].runs.push_back(i);
    groups[it->second].ptrs.push_back(in.runs[i]);
  }
  return groups;
}

// Every case of every group, the claims' inputs first (a benchmark the evidence of a judged verdict
// names), then those with change points (or open_cases), then the rest; within each, those with change
// points first, then by label.
std::vector<CaseView> case_views(const std::vector<Group>& groups, const std::vector<Judged>& judged,
                                 const TimelineInput& in) {
  const std::vector<std::string>& only = in.only_cases;
  const std::set<std::string> open(in.open_cases.begin(), in.open_cases.end());
  std::string evidence;
  for (auto it = judged.rbegin(); it != judged.rend() && evidence.empty(); ++it)
    for (auto& [id, ev] : it->evidence) {
      const std::string& v = it->verdict.at(id);
      if (v == "confirmed" || v == "refuted" || v == "inconclusive") evidence += ev + "\n";
    }
  std::map<std::string, CaseView> by_key;
  for (const Group& g : groups) {
    for (const Series& s : *g.series) {
      if (s.run.empty()) continue;  // no run had a usable value of its headline metric
      if (!only.empty() && std::find(only.begin(), only.end(), s.key) == only.end()) continue;
      CaseView& c = by_key[s.key];
      c.label = s.label, c.metric = s.metric, c.unit = s.unit, c.benchmark = s.benchmark;
      c.parts.emplace_back(&g, &s);
    }
    for (const Change& ch : *g.changes)
      if (auto it = by_key.find(ch.s->key); it != by_key.end()) it->second.changes.push_back(&ch);
  }
  std::map<std::string, bool> input;
  std::vector<CaseView> out;
  for (auto& [key, c] : by_key) {
    if (!input.count(c.benchmark)) input[c.benchmark] = names_word(evidence, c.benchmark);
    c.rank = input[c.benchmark] ? 0 : c.changes.empty() && !open.count(key) ? 2 : 1;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const CaseView& a, const CaseView& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.changes.empty() != b.changes.empty()) return b.changes.empty();  // the moved ones first
    return a.label < b.label;
  });
  return out;
}

std::string timelines_section(const std::vector<CaseView>& cases, const std::vector<Group>& groups,
                              const std::vector<double>& ts, const std::vector<ConfounderDef>& defs,
                              TimelinePage& page) {
  std::map<const Group*, std::vector<Vline>> marks;
  for (const Group& g : groups) page.marks += (marks[&g] = marks_of(g, ts, defs)).size();
  const double t0 = ts.empty() ? 0 : *std::min_element(ts.begin(), ts.end());
  const double t1 = ts.empty() ? 1 : *std::max_element(ts.begin(), ts.end());
  std::string legend;
  for (const Group& g : groups)
    if (!g.name.empty())
      legend += fmt::format(" <span style=\"color:{}\">&#9632; {}</span>", g.colour, html_escape(g.name));
  std::string h =
      "<section id=\"timelines\"><h2>Cases over time</h2>\n<p class=\"sec\">x: the run's start time; y: the "
      "median of the case's repetitions in each run (line) and their range (band); where runs are denser "
      "than the pixels, each pixel column shows the median and the range of its runs. Red or green lines: "
      "change points with their size (dashed levels: the mean between them); grey dashed lines: an "
      "inventory fact changed there (hover for from -> to)." +
      legend + "</p>\n";
  const char* titles[] = {"Inputs of the claims", "Cases with change points or flagged", ""};
  int shown_rank = -1;
  size_t rest = 0;
  for (const CaseView& c : cases) rest += c.rank == 2;
  for (const CaseView& c : cases) {
    if (c.rank != shown_rank) {
      if (c.rank == 2)
        h += fmt::format(
            "<details id=\"other-cases\"><summary>The other {} cases (no change point, not a claim's input)"
            "</summary>\n",
            rest);
      else
        h += fmt::format("<h3 class=\"group\">{}</h3>\n", titles[c.rank]);
      shown_rank = c.rank;
    }
    h += figure_of(c, ts, t0, t1, marks, c.rank == 2);
    ++page.timelines;
    page.change_points += c.changes.size();
  }
  if (shown_rank == 2) h += "</details>\n";
  return h + "</section>\n";
}
}  // namespace

namespace history_detail {
TimelinePage timelines_with(const TimelineInput& in, const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                            const NoiseProfile* profile, const StatOptions& opt, const std::vector<Found>& found) {
  TimelinePage page;
  std::vector<Group> groups = groups_of(in);
  for (size_t k = 0; k < groups.size(); ++k) {
    Group& g = groups[k];
    if (found.size() == groups.size()) {
      g.series = found[k].series, g.changes = found[k].changes;
      continue;
    }
    g.own_series = series_of(g.ptrs, rules);
    g.own_changes = find_changes(g.own_series, g.ptrs, defs, profile, opt);
    g.series = &g.own_series, g.changes = &g.own_changes;
  }
  std::vector<double> ts;
  for (size_t i = 0; i < in.runs.size(); ++i) {
    const double t = utc_seconds(in.runs[i]->time_utc);
    ts.push_back(std::isnan(t) ? (ts.empty() ? 0 : ts.back() + 1) : t);  // an unknown time: just after the last
  }
  std::vector<Judged> judged;
  for (size_t i = 0; i < in.runs.size(); ++i)
    judged.push_back(
        parse_verdicts(i < in.verdicts_csv.size() ? in.verdicts_csv[i] : "", in.runs[i]->dir + "/verdicts.csv"));
  page.html =
      "<style>.s-confirmed{fill:#5cb85c;background:#c9efc9}.s-refuted{fill:#d9534f;background:#f6c6c6}"
      ".s-inconclusive{fill:#f0c419;background:#fbefb8}.s-not_measurable,.s-no_benchmark{fill:#bdbdbd;"
      "background:#e4e4e4}.s-predicted{fill:#7fa8e8;background:#cfe0fb}.s-none{fill:#f4f4f4;background:#f4f4f4}"
      "span.key{padding:0 .4em}svg.strip{width:100%;height:auto}figure.timeline{max-width:760px}"
      "figure.folded{margin:.6em 0;border:1px solid #eee;padding:.3em;max-width:520px}"
      "figure.timeline h3{font-size:.95em;margin:.1em 0}</style>\n";
  page.html += strip_section(in, judged, groups, page.claims);
  page.html += timelines_section(case_views(groups, judged, in), groups, ts, defs, page);
  page.html += changes_table(groups, defs);
  return page;
}
}  // namespace history_detail

TimelinePage timelines_html(const TimelineInput& in, const CaseRules& rules, const std::vector<ConfounderDef>& defs,
                            const NoiseProfile* profile, const StatOptions& opt) {
  return history_detail::timelines_with(in, rules, defs, profile, opt, {});
}

}  // namespace rigcheck
