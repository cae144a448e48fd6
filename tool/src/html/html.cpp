// report.html, compare.html, history.html and the plots of data/plots.csv (drawn by
// gnuplot's SVG terminal). See html.hpp; why gnuplot: docs/methodology.md, "Plots".
#include "rigcheck/tool/html.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/tool/report_util.hpp"
#include "rigcheck/harness/stats.hpp"

namespace rigcheck {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

// A gnuplot double-quoted string.
std::string gq(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string num(double v) { return fmt::format("{:.9g}", v); }

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                         "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string inv_or(const RunData& r, const std::string& k) {
  auto it = r.inventory.find(k);
  return it == r.inventory.end() ? "" : it->second;
}

}  // namespace

std::vector<PlotSpec> read_plot_specs(const std::string& path) {
  std::vector<PlotSpec> out;
  with_csv_errors(path, [&] {
    io::CSVReader<16, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "id", "title", "benchmark", "metric", "where", "x", "x_scale", "x_label",
                   "series", "y_label", "x_log", "y_log", "style", "marks", "status", "note");
    std::string id, title, bench, metric, where, x, xs, xl, series, yl, xlog, ylog, style, marks, status, note;
    while (in.read_row(id, title, bench, metric, where, x, xs, xl, series, yl, xlog, ylog, style, marks, status, note)) {
      const long line = static_cast<long>(in.get_file_line());
      auto bad = [&](const std::string& why) { throw InputError(path, line, why); };
      PlotSpec s;
      s.line = line;
      s.id = id;
      s.title = title;
      s.benchmarks = split(bench, ' ');
      s.metric = metric;
      s.where = parse_params(where);
      s.x = x;
      s.x_label = xl.empty() ? x : xl;
      s.series = split(series, ' ');
      s.y_label = yl;
      s.style = style;
      s.status = status;
      if (id.empty()) bad("empty id");
      for (const PlotSpec& o : out)
        if (o.id == id) bad(fmt::format("plot id {} appears twice", id));
      if (s.benchmarks.empty()) bad("empty benchmark");
      if (metric.empty()) bad("empty metric");
      if (x.empty()) bad("empty x");
      if (!xs.empty() && (!parse_double(xs, s.x_scale) || s.x_scale <= 0))
        bad(fmt::format("x_scale '{}' is not a positive number", xs));
      for (auto [txt, flag] : {std::make_pair(xlog, &s.x_log), std::make_pair(ylog, &s.y_log)}) {
        if (txt != "yes" && txt != "no") bad(fmt::format("x_log and y_log are yes or no, not '{}'", txt));
        *flag = txt == "yes";
      }
      if (style != "lines" && style != "points") bad(fmt::format("style '{}' (expected lines or points)", style));
      if (status != "live" && status != "to_confirm") bad(fmt::format("status '{}' (expected live or to_confirm)", status));
      for (const std::string& m : split(marks, ';')) {
        const bool ok = m == "amdahl" || m.rfind("vline=inventory:", 0) == 0 || m.rfind("hline=inventory:", 0) == 0 ||
                        m.rfind("ref=datasheet:", 0) == 0;
        if (!ok)
          bad(fmt::format("mark '{}' (expected amdahl, vline=inventory:KEY:LABEL, hline=inventory:KEY:LABEL or "
                          "ref=datasheet:INVENTORY_KEY:PROPERTY:LABEL)",
                          m));
        if (m.rfind("ref=", 0) == 0 && split(m.substr(14), ':').size() != 3)
          bad(fmt::format("mark '{}' needs ref=datasheet:INVENTORY_KEY:PROPERTY:LABEL", m));
        if (m != "amdahl" && m.rfind("ref=", 0) != 0 && split(m.substr(16), ':').size() != 2)
          bad(fmt::format("mark '{}' needs KEY:LABEL after inventory:", m));
        s.marks.push_back(m);
      }
      out.push_back(s);
    }
  });
  return out;
}

std::string plot_script(const PlotSpec& spec, const std::vector<PlotRun>& runs, const std::string& datasheets_path,
                        std::string* caption) {
  struct Point {
    std::vector<double> v;
  };
  // series label -> x (numeric or category index) -> values
  std::vector<std::string> order;  // series in order of appearance
  std::map<std::string, std::map<double, Point>> data;
  std::vector<std::string> categories;
  std::string unit;
  size_t nrows = 0;
  const bool categorical = spec.style == "points";
  for (const PlotRun& pr : runs) {
    for (const ResultRow& r : pr.run->results) {
      if (r.status != Status::ok || r.repetition < 0 || r.metric != spec.metric) continue;
      if (std::find(spec.benchmarks.begin(), spec.benchmarks.end(), r.benchmark) == spec.benchmarks.end()) continue;
      bool match = true;
      for (auto& [k, v] : spec.where) match = match && param_value(r.params, k) == v;
      if (!match) continue;
      const std::string xs = spec.x == "case" ? r.case_name : param_value(r.params, spec.x);
      if (xs.empty()) continue;
      double x;
      if (categorical) {
        auto it = std::find(categories.begin(), categories.end(), xs);
        if (it == categories.end()) {
          categories.push_back(xs);
          it = categories.end() - 1;
        }
        x = static_cast<double>(it - categories.begin());
      } else {
        if (!parse_double(xs, x)) continue;
        x /= spec.x_scale;
        if (spec.x_log && x <= 0) continue;
      }
      if (spec.y_log && r.value <= 0) continue;
      std::string label;
      for (const std::string& k : spec.series) {
        std::string v = k == "benchmark" ? r.benchmark : param_value(r.params, k);
        if (!v.empty()) label += (label.empty() ? "" : " ") + (k == "benchmark" ? v : k + "=" + v);
      }
      if (runs.size() > 1) label = pr.label + (label.empty() ? "" : ": " + label);
      if (label.empty()) label = spec.metric;
      if (!data.count(label)) order.push_back(label);
      data[label][x].v.push_back(r.value);
      if (unit.empty()) unit = r.unit;
      ++nrows;
    }
  }
  if (data.empty()) return "";

  std::string s;
  s += "set encoding utf8\nset grid lc rgb '#dddddd'\nset border lc rgb '#444444'\n";
  s += "set key outside bottom center horizontal maxcols 1 noreverse Left samplen 2\n";
  s += "set xlabel " + gq(spec.x_label) + "\nset ylabel " + gq(spec.y_label.empty() ? unit : spec.y_label) + "\n";
  if (spec.y_log) s += "set logscale y 10\n";
  else s += "set yrange [0:*]\n";
  double xmin = INFINITY, xmax = -INFINITY;
  for (auto& [label, pts] : data)
    for (auto& [x, p] : pts) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
    }
  const bool amdahl = std::find(spec.marks.begin(), spec.marks.end(), "amdahl") != spec.marks.end();
  double xplot_max = xmax;
  if (amdahl && !categorical) xplot_max = std::max(xmax, 8.0);
  if (categorical) {
    s += fmt::format("set xrange [-0.6:{}]\nset xtics (", num(categories.size() - 0.4));
    for (size_t i = 0; i < categories.size(); ++i) s += (i ? ", " : "") + gq(categories[i]) + " " + std::to_string(i);
    s += ") rotate by -20\n";
  } else if (spec.x_log) {
    s += "set logscale x 2\n";
    s += fmt::format("set xrange [{}:{}]\n", num(xmin / 1.3), num(xplot_max * 1.3));
  } else {
    const double pad = std::max(0.5, 0.04 * (xplot_max - xmin));
    s += fmt::format("set xrange [{}:{}]\n", num(xmin - pad), num(xplot_max + pad));
    if (amdahl && xplot_max <= 16) s += "set xtics 1\n";
  }

  std::string cap = fmt::format("{} rows: median with [min, max] over repetitions", nrows);
  // Marks from the inventory (cache sizes...), for each run whose value differs.
  int label_no = 0;
  for (const std::string& m : spec.marks) {
    if (m.rfind("vline=", 0) != 0 && m.rfind("hline=", 0) != 0) continue;
    const bool vertical = m[0] == 'v';
    auto parts = split(m.substr(16), ':');
    std::set<std::string> drawn;
    for (const PlotRun& pr : runs) {
      double v;
      const std::string raw = inv_or(*pr.run, parts[0]);
      if (!parse_double(raw, v) || drawn.count(raw)) continue;
      drawn.insert(raw);
      std::string text = parts[1] + (runs.size() > 1 ? " (" + pr.label + ")" : "");
      if (vertical) {
        const double x = v / spec.x_scale;
        if (categorical || x < xmin / (spec.x_log ? 1.3 : 1) || x > xplot_max * (spec.x_log ? 1.3 : 1)) {
          cap += fmt::format("; {} = {} is outside the measured range", text, fmt_num(x));
          continue;
        }
        s += fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'\n", num(x));
        s += fmt::format("set label {} {} at {}, graph {} rotate by 90 right offset -0.6,0 tc rgb '#555555'\n",
                         ++label_no + 100, gq(text), num(x), num(0.98));
        cap += fmt::format("; dashed vertical line: {} = {} (inventory {})", text, fmt_num(x), parts[0]);
      } else {
        s += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lw 1.5 lc rgb '#555555'\n",
                         num(v));
        s += fmt::format("set label {} {} at graph 0.01, first {} offset 0,0.6 tc rgb '#555555'\n", ++label_no + 100,
                         gq(text), num(v));
        cap += fmt::format("; dashed horizontal line: {} = {} (inventory {})", text, fmt_num(v), parts[0]);
      }
    }
  }

  // Data blocks and plot clauses.
  std::string blocks, plots, fits;
  int entries = 0;  // legend lines
  size_t si = 0;
  const double width = categorical ? 0.7 : 0;
  for (const std::string& label : order) {
    const char* color = kColors[si % (sizeof kColors / sizeof *kColors)];
    const double offset = categorical && order.size() > 1
                              ? -width / 2 + width * static_cast<double>(si) / static_cast<double>(order.size() - 1)
                              : 0;
    blocks += fmt::format("$d{} << EOD\n", si);
    std::vector<std::pair<double, double>> med;  // x, median
    for (auto& [x, p] : data[label]) {
      Summary sm = summarize(p.v);
      blocks += fmt::format("{} {} {} {}\n", num(x + offset), num(sm.median), num(sm.min), num(sm.max));
      med.push_back({x, sm.median});
    }
    blocks += "EOD\n";
    plots += fmt::format("{}$d{} using 1:2:3:4 with {} lw 2 pt 7 ps 0.8 lc rgb '{}' title {}", plots.empty() ? "" : ", ",
                         si, categorical ? "yerrorbars" : "yerrorlines", color, gq(label));
    ++entries;
    if (amdahl && !categorical) {
      double x1 = kNaN;
      std::vector<std::pair<double, double>> speedup;
      for (auto& [x, y] : med)
        if (x == 1) x1 = y;
      for (auto& [x, y] : med)
        if (x >= 2 && !std::isnan(x1)) speedup.push_back({x, y / x1});
      if (!speedup.empty()) {
        const double p = amdahl_fit(speedup);
        blocks += fmt::format("$f{} << EOD\n", si);
        for (double n = 1; n <= xplot_max + 1e-9; n += (xplot_max <= 16 ? 0.25 : xplot_max / 64))
          blocks += fmt::format("{} {}\n", num(n), num(x1 * amdahl_speedup(p, n)));
        blocks += "EOD\n";
        blocks += fmt::format("$p{} << EOD\n", si);
        bool any_pred = false;
        for (double n : {4.0, 8.0})
          if (n > xmax + 1e-9) {
            blocks += fmt::format("{} {}\n", num(n), num(x1 * amdahl_speedup(p, n)));
            any_pred = true;
          }
        blocks += "EOD\n";
        plots += fmt::format(", $f{} using 1:2 with lines dt 2 lw 1.5 lc rgb '{}' title {}", si, color,
                             gq(fmt::format("{}: Amdahl fit p={:.3f}{}", label, p, any_pred ? ", open circles PREDICTED by the fit, not measured" : "")));
        if (any_pred) plots += fmt::format(", $p{} using 1:2 with points pt 6 ps 1.6 lc rgb '{}' notitle", si, color);
        fits += fmt::format("{}{} p = {:.4f}", fits.empty() ? "" : ", ", label, p);
        ++entries;
      }
    }
    ++si;
  }
  // Reference points from the datasheets (e.g. a GPU's peak per dtype).
  for (const std::string& m : spec.marks) {
    if (m.rfind("ref=datasheet:", 0) != 0 || !categorical) continue;
    auto parts = split(m.substr(14), ':');
    std::vector<DatasheetRow> sheet;
    try {
      sheet = read_datasheets(datasheets_path);
    } catch (const std::exception&) {
      continue;
    }
    std::string block;
    for (const PlotRun& pr : runs) {
      const std::string product = inv_or(*pr.run, parts[0]);
      if (product.empty()) continue;
      for (size_t i = 0; i < categories.size(); ++i) {
        std::string prop = parts[1];
        if (auto pos = prop.find("{x}"); pos != std::string::npos) prop.replace(pos, 3, categories[i]);
        for (const DatasheetRow& d : sheet) {
          double v;
          if (d.property == prop && product.find(d.product) != std::string::npos && parse_double(d.value, v)) {
            block += fmt::format("{} {}\n", i, num(v));
            cap += fmt::format("; {} {} = {} ({})", d.product, prop, d.value, d.source);
          }
        }
      }
    }
    if (block.empty()) continue;
    blocks += fmt::format("$r{} << EOD\n{}EOD\n", si, block);
    plots += fmt::format(", $r{} using 1:2 with points pt 5 ps 1.4 lc rgb '#000000' title {}", si, gq(parts[2]));
    ++entries;
    ++si;
  }
  if (!fits.empty())
    cap += "; Amdahl fits S(n) = 1/((1-p) + p/n) of the medians, dashed, with open circles at thread counts not "
           "measured: PREDICTIONS, not measurements: " + fits;
  // Room for the legend below the plot: one line per entry.
  const std::string term = fmt::format("set terminal svg size 760,{} dynamic noenhanced font 'sans,11' background '#ffffff'\n",
                                       std::min(1400, 400 + 17 * entries));
  if (caption) *caption = cap;
  return term + s + blocks + "plot " + plots + "\n";
}

namespace {

std::string find_gnuplot() {
  if (const char* e = std::getenv("RIGCHECK_GNUPLOT")) return e;
  const char* path = std::getenv("PATH");
  for (const std::string& dir : split(path ? path : "/usr/bin:/bin", ':')) {
    std::string p = dir + "/gnuplot";
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// Runs gnuplot on a script; returns its stdout (the SVG) or throws with its first error line.
std::string run_gnuplot(const std::string& gnuplot, const std::string& script) {
  char tmpl[] = "/tmp/rigcheck-plot-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for gnuplot");
  const std::string path = tmpl, err = path + ".err";
  if (::write(fd, script.data(), script.size()) != static_cast<ssize_t>(script.size())) {
    ::close(fd);
    ::unlink(path.c_str());
    throw std::runtime_error("cannot write the gnuplot script");
  }
  ::close(fd);
  const std::string cmd = "'" + gnuplot + "' '" + path + "' 2>'" + err + "'";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start gnuplot");
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  std::string errtext;
  {
    std::ifstream f(err);
    std::string line;
    while (std::getline(f, line))
      if (!line.empty() && line.find("warning") == std::string::npos && errtext.empty()) errtext = line;
  }
  ::unlink(path.c_str());
  ::unlink(err.c_str());
  if (status != 0 || out.find("<svg") == std::string::npos)
    throw std::runtime_error("gnuplot failed" + (errtext.empty() ? std::string() : ": " + errtext));
  return out;
}

// Inline-ready SVG: no XML prolog, ids prefixed so that several plots live in one page.
std::string inline_svg(std::string svg, const std::string& prefix, const std::string& title) {
  svg.erase(0, svg.find("<svg"));
  std::set<std::string> ids;
  for (size_t pos = 0; (pos = svg.find("id=", pos)) != std::string::npos; pos += 3) {
    if (pos + 4 >= svg.size()) break;
    const char q = svg[pos + 3];
    if (q != '\'' && q != '"') continue;
    const size_t end = svg.find(q, pos + 4);
    if (end == std::string::npos) break;
    ids.insert(svg.substr(pos + 4, end - pos - 4));
  }
  std::string out;
  out.reserve(svg.size() + 1024);
  for (size_t i = 0; i < svg.size();) {
    bool done = false;
    if (svg.compare(i, 3, "id=") == 0 && i + 3 < svg.size() && (svg[i + 3] == '\'' || svg[i + 3] == '"')) {
      out += svg.substr(i, 4) + prefix;
      i += 4;
      done = true;
    } else if (svg[i] == '#') {
      for (const std::string& id : ids) {
        if (svg.compare(i + 1, id.size(), id) == 0 && i + 1 + id.size() < svg.size()) {
          const char after = svg[i + 1 + id.size()];
          if (after == '\'' || after == '"' || after == ')') {
            out += "#" + prefix + id;
            i += 1 + id.size();
            done = true;
            break;
          }
        }
      }
    }
    if (!done) out += svg[i++];
  }
  const size_t t0 = out.find("<title>"), t1 = out.find("</title>");
  if (t0 != std::string::npos && t1 != std::string::npos && t1 > t0)
    out.replace(t0, t1 + 8 - t0, "<title>" + html_escape(title) + "</title>");
  return out;
}

}  // namespace

std::vector<RenderedPlot> render_plots(const std::vector<PlotSpec>& specs, const std::vector<PlotRun>& runs,
                                       const std::string& datasheets_path, std::string* note) {
  std::vector<RenderedPlot> out;
  std::string gnuplot;
  std::string problems;
  for (const PlotSpec& spec : specs) {
    std::string caption;
    std::string script;
    try {
      script = plot_script(spec, runs, datasheets_path, &caption);
    } catch (const std::exception& e) {
      problems += fmt::format("{}{}: {}", problems.empty() ? "" : "; ", spec.id, e.what());
      continue;
    }
    if (script.empty()) continue;  // no data: the plot is omitted
    if (gnuplot.empty()) gnuplot = find_gnuplot();
    if (gnuplot.empty()) {
      if (note)
        *note = "Plots are drawn by gnuplot, which is not installed here (Debian package gnuplot-nox; "
                "scripts/setup.sh installs it): the tables above carry every figure.";
      return {};
    }
    try {
      RenderedPlot p;
      p.id = spec.id;
      p.title = spec.title;
      p.svg = inline_svg(run_gnuplot(gnuplot, script), "p" + std::to_string(out.size()) + "-", spec.title);
      p.caption = caption;
      out.push_back(p);
    } catch (const std::exception& e) {
      problems += fmt::format("{}{}: {}", problems.empty() ? "" : "; ", spec.id, e.what());
    }
  }
  if (note && !problems.empty()) *note = "Some plots could not be drawn: " + problems;
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string verdict_class(Outcome verdict) { return std::string("v-") + to_string(verdict); }

std::string html_page(const std::string& title, const std::string& body) {
  static const char* css = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}th{background:#f3f3f3}
.v-confirmed{background:#c9efc9}.v-refuted{background:#f6c6c6}.v-inconclusive{background:#fbefb8}
.v-not_measurable{background:#e4e4e4}.v-predicted{background:#cfe0fb}.v-no_benchmark{background:#f1f1f1;color:#666}
tr.f-regression td.flag{background:#f6c6c6;font-weight:bold}tr.f-improvement td.flag{background:#c9efc9;font-weight:bold}
tr.f-too_few_reps td.flag,tr.f-only_in_base td.flag,tr.f-only_in_run td.flag{background:#eee;color:#555}
figure.plot{margin:1em 0;border:1px solid #ddd;padding:.5em;max-width:780px}
figure.plot svg{width:100%;height:auto;display:block}figcaption{font-size:.85em;color:#444}
.warn{background:#fff4d6;padding:.4em .8em;border-left:4px solid #e0a800}
)";
  // Marks each plot rendered (its SVG has a laid-out box and drawn paths): read by the
  // headless-browser test through the DOM; the page needs nothing from the network.
  static const char* js = R"(
(function(){var f=document.querySelectorAll('figure.plot'),ok=0;
for(var i=0;i<f.length;i++){var s=f[i].querySelector('svg'),r=false;
if(s){var b=s.getBoundingClientRect();r=b.width>0&&b.height>0&&s.querySelectorAll('path').length>0;}
f[i].setAttribute('data-rendered',r?'yes':'no');if(r)ok++;}
document.body.setAttribute('data-plots',String(f.length));document.body.setAttribute('data-plots-rendered',String(ok));})();
)";
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
         "</title>\n<style>" + css + "</style></head>\n<body>\n" + body + "<script>" + js + "</script>\n</body></html>\n";
}

std::string plots_section(const std::vector<RenderedPlot>& plots, const std::string& note) {
  std::string h = "<section id=\"plots\"><h2>Plots</h2>\n";
  if (!note.empty()) h += "<p class=\"warn\">" + html_escape(note) + "</p>\n";
  if (plots.empty() && note.empty()) h += "<p>No plot of data/plots.csv has data in this run.</p>\n";
  for (const RenderedPlot& p : plots)
    h += fmt::format("<figure class=\"plot\" id=\"plot-{}\"><h3>{}</h3>\n{}\n<figcaption>{}</figcaption></figure>\n",
                     html_escape(p.id), html_escape(p.title), p.svg, html_escape(p.caption));
  return h + "</section>\n";
}

void write_run_html(const std::string& run_dir, const RunData& run, const std::vector<Claim>& claims,
                    const std::vector<Verdict>& verdicts) {
  try {
    std::string run_id = run_dir;
    while (run_id.size() > 1 && run_id.back() == '/') run_id.pop_back();
    if (auto p = run_id.rfind('/'); p != std::string::npos) run_id = run_id.substr(p + 1);
    auto inv = [&](const char* k) {
      auto it = run.inventory.find(k);
      return html_escape(it == run.inventory.end() ? "unknown" : it->second);
    };
    std::string body = "<h1>rigcheck report: " + html_escape(run_id) + "</h1>\n";
    body += fmt::format(
        "<p>Machine: <b>{}</b> ({}), {} physical cores, best ISA {}, measured clock {} GHz, THP {}, governor {}. "
        "Build {} {}; oneDNN {}, OpenBLAS {} (core {}). GPUs: {}. Method version {}.</p>\n"
        "<p>The same figures as tables: <code>report.md</code> and <code>verdicts.csv</code> beside this file.</p>\n",
        inv("cpu_model"), inv("cpu_microarch"), inv("physical_cores"), inv("isa_best"), inv("cpu_clock_measured_ghz"),
        inv("thp_enabled"), inv("cpufreq_governor"), inv("build_type"), inv("compiler"), inv("onednn_version"),
        inv("openblas_version"), inv("openblas_corename"), inv("gpu_count"), inv("method_version"));
    body += "<section id=\"verdicts\"><h2>Verdicts</h2><table><tr><th>Claim</th><th>§</th><th>Guide "
            "(original)</th><th>Guide says</th><th>Measured</th><th>Verdict</th><th>Evidence and reason</th></tr>\n";
    for (size_t i = 0; i < claims.size() && i < verdicts.size(); ++i) {
      const Claim& c = claims[i];
      const Verdict& v = verdicts[i];
      std::string measured = format_measured(v.measured, v.unit);
      if (!std::isnan(v.predicted)) measured += fmt::format("; predicted (not measured): {} {}", fmt_num(v.predicted), v.unit);
      std::string why = v.evidence;
      if (!v.reason.empty()) why += (why.empty() ? "" : ". ") + v.reason;
      std::string err = c.guide_error.empty() ? "" : "<br><b>Guide error:</b> " + html_escape(c.guide_error);
      body += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\"><b>{}</b></td><td>{}{}</td></tr>\n",
          html_escape(c.id), html_escape(c.section), html_escape(c.text_zh), html_escape(c.guide_figure),
          html_escape(measured), verdict_class(v.verdict),
          std::string(to_string(v.verdict)) + (shows_basis(v) ? fmt::format("</b> ({})<b>", to_string(v.basis)) : ""),
          html_escape(why), err);
    }
    body += "</table></section>\n";
    std::string note;
    auto plots = render_plots(read_plot_specs(default_data_dir() + "/plots.csv"), {{run_id, &run}},
                              default_data_dir() + "/datasheets.csv", &note);
    body += plots_section(plots, note);
    if (!run.manifest.empty()) {
      body += "<section id=\"manifest\"><h2>Benchmarks run</h2><table><tr><th>benchmark</th><th>area</th><th>status</th>"
              "<th>exit</th><th>seconds</th><th>reason</th></tr>\n";
      for (const ManifestRow& m : run.manifest)
        body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}</td><td>{}</td></tr>\n",
                            html_escape(m.benchmark), html_escape(m.area), html_escape(m.status), m.exit_code,
                            m.duration_s, html_escape(m.reason));
      body += "</table></section>\n";
    }
    write_file_atomic(run_dir + "/report.html", html_page("rigcheck report: " + run_id, body));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck report: report.html not written: %s\n", e.what());
  }
}

}  // namespace rigcheck
