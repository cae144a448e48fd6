// report.html, compare.html and history.html: one self-contained file each (inline SVG, no
// network when opened). Plots are data, not code: each row of data/plots.csv describes
// one plot (benchmarks, metric, x and series parameters, log axes, marks); the plot appears as
// soon as a run holds rows for it, and a plot without data is omitted. The SVG is drawn by
// gnuplot (Debian gnuplot-nox), run as a child process; without it the pages say so.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/report/report.hpp"

namespace rigcheck {

struct PlotSpec {
  std::string id, title;
  std::vector<std::string> benchmarks;
  std::string metric;
  std::vector<std::pair<std::string, std::string>> where;  // params filter
  std::string x;                                           // parameter on the x axis
  double x_scale = 1;                                      // x shown = param / x_scale (and marks likewise)
  std::string x_label;
  std::vector<std::string> series;  // parameters naming a series ("benchmark" allowed)
  std::string y_label;              // default: the rows' unit
  bool x_log = false, y_log = false;
  std::string style;               // lines (numeric x) or points (categories on x)
  std::vector<std::string> marks;  // amdahl, vline=inventory:KEY:LABEL, hline=..., ref=datasheet:...
  std::string status;              // live, or to_confirm (names guessed before the benchmark landed)
  long line = 0;                   // in plots.csv
};
// Reads plots.csv strictly; throws InputError naming file, line and reason.
std::vector<PlotSpec> read_plot_specs(const std::string& path);

struct PlotRun {
  std::string label;  // shown in series names when more than one run is plotted
  const RunData* run;
};
struct RenderedPlot {
  std::string id, title, svg;  // svg: inline <svg> element, ids made unique per plot
  std::string caption;         // what was plotted, how (median and [min, max])
};
// The gnuplot script of one plot for these runs; empty when there is no data to plot.
std::string plot_script(const PlotSpec& spec, const std::vector<PlotRun>& runs, const std::string& datasheets_path,
                        std::string* caption = nullptr);
// Every plot that has data. `note` receives why plots are missing (no gnuplot, gnuplot failed).
std::vector<RenderedPlot> render_plots(const std::vector<PlotSpec>& specs, const std::vector<PlotRun>& runs,
                                       const std::string& datasheets_path, std::string* note);

std::string html_escape(const std::string& s);
// A whole page: title, inline style, body, and a tiny inline script that marks each plot
// rendered (data-rendered) for the headless-browser test. No external resource.
std::string html_page(const std::string& title, const std::string& body);
// <section> with the plots (or the note saying why there are none).
std::string plots_section(const std::vector<RenderedPlot>& plots, const std::string& note);
// A verdict cell's class, for the colours: v-confirmed, v-refuted...
std::string verdict_class(Outcome verdict);

// report.html of one run, beside report.md (written whole, then renamed). Never throws: a
// plotting problem is written into the page.
void write_run_html(const std::string& run_dir, const RunData& run, const std::vector<Claim>& claims,
                    const std::vector<Verdict>& verdicts);

}  // namespace rigcheck
