// The gnuplot script of one plot (data/plots.csv row) over one or more runs: data blocks of
// median and [min, max] per x, series per parameter, marks (Amdahl fit, inventory lines,
// datasheet references).
#include <algorithm>
#include <cmath>
#include <set>

#include "rigcheck/report/html.hpp"

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/report_util.hpp"
#include "html_internal.hpp"

namespace rigcheck {

using html_detail::split;

namespace {

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

namespace {

// One plot's script, built in steps: the rows collected into series, the axes, the inventory's
// lines, the series with their Amdahl fits, the datasheet references, then the terminal.
struct PlotBuilder {
  const PlotSpec& spec;
  const std::vector<PlotRun>& runs;
  struct Point {
    std::vector<double> v;
  };
  // series label -> x (numeric or category index) -> values
  std::vector<std::string> order;  // series in order of appearance
  std::map<std::string, std::map<double, Point>> data;
  std::vector<std::string> categories;
  std::string unit, s, cap, blocks, plots, fits;
  size_t nrows = 0, si = 0;
  int entries = 0;  // legend lines
  bool categorical = false, amdahl = false;
  double xmin = INFINITY, xmax = -INFINITY, xplot_max = 0;

  PlotBuilder(const PlotSpec& sp, const std::vector<PlotRun>& rs) : spec(sp), runs(rs) {
    categorical = spec.style == "points";
    amdahl = std::find(spec.marks.begin(), spec.marks.end(), "amdahl") != spec.marks.end();
  }

  // The x of a row: a category's index, or its parameter's number scaled; false when it has none.
  bool x_of(const ResultRow& r, double& x) {
    const std::string xs = spec.x == "case" ? r.case_name : param_value(r.params, spec.x);
    if (xs.empty()) return false;
    if (categorical) {
      auto it = std::find(categories.begin(), categories.end(), xs);
      if (it == categories.end()) {
        categories.push_back(xs);
        it = categories.end() - 1;
      }
      x = static_cast<double>(it - categories.begin());
      return true;
    }
    if (!parse_double(xs, x)) return false;
    x /= spec.x_scale;
    return !(spec.x_log && x <= 0);
  }

  std::string series_label(const PlotRun& pr, const ResultRow& r) const {
    std::string label;
    for (const std::string& k : spec.series) {
      std::string v = k == "benchmark" ? r.benchmark : param_value(r.params, k);
      if (!v.empty()) label += (label.empty() ? "" : " ") + (k == "benchmark" ? v : k + "=" + v);
    }
    if (runs.size() > 1) label = pr.label + (label.empty() ? "" : ": " + label);
    return label.empty() ? spec.metric : label;
  }

  void collect() {
    for (const PlotRun& pr : runs) {
      for (const ResultRow& r : pr.run->results) {
        if (r.status != Status::ok || r.repetition < 0 || r.metric != spec.metric) continue;
        if (std::find(spec.benchmarks.begin(), spec.benchmarks.end(), r.benchmark) == spec.benchmarks.end()) continue;
        bool match = true;
        for (auto& [k, v] : spec.where) match = match && param_value(r.params, k) == v;
        double x;
        if (!match || !x_of(r, x)) continue;
        if (spec.y_log && r.value <= 0) continue;
        const std::string label = series_label(pr, r);
        if (!data.count(label)) order.push_back(label);
        data[label][x].v.push_back(r.value);
        if (unit.empty()) unit = r.unit;
        ++nrows;
      }
    }
  }

  void axes() {
    s += "set encoding utf8\nset grid lc rgb '#dddddd'\nset border lc rgb '#444444'\n";
    s += "set key outside bottom center horizontal maxcols 1 noreverse Left samplen 2\n";
    s += "set xlabel " + gq(spec.x_label) + "\nset ylabel " + gq(spec.y_label.empty() ? unit : spec.y_label) + "\n";
    if (spec.y_log)
      s += "set logscale y 10\n";
    else
      s += "set yrange [0:*]\n";
    for (auto& [label, pts] : data)
      for (auto& [x, p] : pts) {
        xmin = std::min(xmin, x);
        xmax = std::max(xmax, x);
      }
    xplot_max = xmax;
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
  }

  // Marks from the inventory (cache sizes...), for each run whose value differs.
  void inventory_marks() {
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
          s += fmt::format(
              "set arrow from graph 0, first {0} to graph 1, first {0} nohead dt 2 lw 1.5 lc rgb '#555555'\n", num(v));
          s += fmt::format("set label {} {} at graph 0.01, first {} offset 0,0.6 tc rgb '#555555'\n", ++label_no + 100,
                           gq(text), num(v));
          cap += fmt::format("; dashed horizontal line: {} = {} (inventory {})", text, fmt_num(v), parts[0]);
        }
      }
    }
  }

  // The Amdahl fit of one series' medians, dashed, with the thread counts not measured as open circles.
  void amdahl_of(const std::string& label, const std::vector<std::pair<double, double>>& med, const char* color) {
    double x1 = kNaN;
    std::vector<std::pair<double, double>> speedup;
    for (auto& [x, y] : med)
      if (x == 1) x1 = y;
    for (auto& [x, y] : med)
      if (x >= 2 && !std::isnan(x1)) speedup.push_back({x, y / x1});
    if (speedup.empty()) return;
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
                         gq(fmt::format("{}: Amdahl fit p={:.3f}{}", label, p,
                                        any_pred ? ", open circles PREDICTED by the fit, not measured" : "")));
    if (any_pred) plots += fmt::format(", $p{} using 1:2 with points pt 6 ps 1.6 lc rgb '{}' notitle", si, color);
    fits += fmt::format("{}{} p = {:.4f}", fits.empty() ? "" : ", ", label, p);
    ++entries;
  }

  // Data blocks and plot clauses.
  void series() {
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
      plots += fmt::format("{}$d{} using 1:2:3:4 with {} lw 2 pt 7 ps 0.8 lc rgb '{}' title {}",
                           plots.empty() ? "" : ", ", si, categorical ? "yerrorbars" : "yerrorlines", color, gq(label));
      ++entries;
      if (amdahl && !categorical) amdahl_of(label, med, color);
      ++si;
    }
  }

  // Reference points from the datasheets (e.g. a GPU's peak per dtype).
  void datasheet_refs(const std::string& datasheets_path) {
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
  }
};

}  // namespace

std::string plot_script(const PlotSpec& spec, const std::vector<PlotRun>& runs, const std::string& datasheets_path,
                        std::string* caption) {
  PlotBuilder b(spec, runs);
  b.collect();
  if (b.data.empty()) return "";
  b.axes();
  b.cap = fmt::format("{} rows: median with [min, max] over repetitions", b.nrows);
  b.inventory_marks();
  b.series();
  b.datasheet_refs(datasheets_path);
  if (!b.fits.empty())
    b.cap +=
        "; Amdahl fits S(n) = 1/((1-p) + p/n) of the medians, dashed, with open circles at thread counts not "
        "measured: PREDICTIONS, not measurements: " +
        b.fits;
  // Room for the legend below the plot: one line per entry.
  const std::string term =
      fmt::format("set terminal svg size 760,{} dynamic noenhanced font 'sans,11' background '#ffffff'\n",
                  std::min(1400, 400 + 17 * b.entries));
  if (caption) *caption = b.cap;
  return term + b.s + b.blocks + "plot " + b.plots + "\n";
}

}  // namespace rigcheck
