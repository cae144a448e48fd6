// The drawing of the timelines (timeline_svg.cpp), apart from what is drawn (timeline.cpp): not part
// of the tool's interface.
#pragma once
#include <string>
#include <vector>

namespace rigcheck::timeline_detail {

struct Point {
  double t = 0, v = 0, lo = 0, hi = 0;  // the run's time (s); its median; the interval of its repetitions
};
struct Level {
  double t0 = 0, t1 = 0, v = 0;  // a segment between change points: its geometric mean
};
// A vertical line: a change point (class cp) or an inventory change (class mark).
struct Vline {
  double t = 0;  // where: half way between the runs on each side
  std::string cls, run, before, short_label, title;
  double change_pct = 0;  // change points: their size, signed, positive = better
};
struct Part {  // one group's series of one case
  std::vector<Point> pts;
  std::vector<Level> levels;
  std::string colour, name, caption;
};
struct PlotData {
  double t0 = 0, t1 = 1;  // the time axis, shared by every plot of a page
  int width = 720;        // px of the whole plot
  std::string unit;
  std::vector<Part> parts;
  std::vector<Vline> lines;
};
// One case's plot as an inline <svg>; a series denser than the pixels is drawn per pixel column
// (the column's interval and the median of its runs), every change point and mark kept.
std::string plot_svg(const PlotData& d);

struct StripRow {
  std::string label;
  std::vector<size_t> at;            // its runs' places among the page's runs (time order)
  std::vector<std::string> verdict;  // per run, "" where the run has no verdict for it
};
// The claims strip: one row per claim, one cell per run (equal widths, runs in time order; a row of
// one group's runs: each cell reaches to the group's next run), runs of the same verdict in a row merged
// into one rectangle.
std::string strip_svg(const std::vector<StripRow>& rows, const std::vector<std::string>& run_labels);

}  // namespace rigcheck::timeline_detail
