// The timelines drawn as inline SVG (timeline_internal.hpp): integer pixel coordinates and one
// <path> per kind of stroke, so that a plot of 1,000 runs stays a few kilobytes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iterator>
#include <map>

#include "rigcheck/report/html.hpp"
#include "rigcheck/runfolder/run_query.hpp"
#include "timeline_internal.hpp"

namespace rigcheck::timeline_detail {

namespace {
constexpr int kHeight = 150, kLeft = 62, kRight = 10, kTop = 26, kBottom = 18;

struct Frame {
  double t0, t1, y0, y1;
  int w;
  int x(double t) const {
    const double span = t1 - t0;
    return kLeft + static_cast<int>(
                       std::lround(span > 0 ? (t - t0) / span * (w - kLeft - kRight) : (w - kLeft - kRight) / 2.0));
  }
  int y(double v) const {
    const double span = y1 - y0;
    return kTop + static_cast<int>(std::lround(span > 0 ? (y1 - v) / span * (kHeight - kTop - kBottom)
                                                        : (kHeight - kTop - kBottom) / 2.0));
  }
};

// One column per pixel: the lowest low, the highest high and the median of the medians of the runs
// that fall in it (every run where the series is sparser than the pixels).
struct Column {
  int x = 0;
  double lo = 0, hi = 0, v = 0;
};
std::vector<Column> columns(const Part& p, const Frame& f) {
  std::map<int, std::vector<const Point*>> by_x;
  for (const Point& pt : p.pts) by_x[f.x(pt.t)].push_back(&pt);
  std::vector<Column> out;
  out.reserve(by_x.size());
  for (auto& [x, pts] : by_x) {
    Column c{x, pts[0]->lo, pts[0]->hi, 0};
    std::vector<double> vs;
    for (const Point* pt : pts) {
      c.lo = std::min(c.lo, pt->lo);
      c.hi = std::max(c.hi, pt->hi);
      vs.push_back(pt->v);
    }
    std::nth_element(vs.begin(), vs.begin() + vs.size() / 2, vs.end());
    c.v = vs[vs.size() / 2];
    out.push_back(c);
  }
  return out;
}

void draw_part(fmt::memory_buffer& b, const Part& p, const Frame& f) {
  auto out = std::back_inserter(b);
  const std::vector<Column> cols = columns(p, f);
  fmt::format_to(out, "<g class=\"series\" data-group=\"{}\" data-runs=\"{}\" data-columns=\"{}\">",
                 html_escape(p.name), p.pts.size(), cols.size());
  fmt::format_to(out, "<path class=\"band\" stroke=\"{}\" stroke-opacity=\"0.35\" stroke-width=\"{}\" d=\"", p.colour,
                 cols.size() * 3 > static_cast<size_t>(f.w) ? 1 : 3);
  for (const Column& c : cols) fmt::format_to(out, "M{} {}V{}", c.x, f.y(c.hi), std::max(f.y(c.lo), f.y(c.hi) + 1));
  fmt::format_to(out, "\"/><path class=\"value\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" d=\"", p.colour);
  for (size_t i = 0; i < cols.size(); ++i) fmt::format_to(out, "{}{} {}", i ? "L" : "M", cols[i].x, f.y(cols[i].v));
  fmt::format_to(out, "\"/>");
  if (cols.size() * 6 < static_cast<size_t>(f.w)) {  // few runs: each one a dot
    fmt::format_to(out, "<path class=\"dots\" stroke=\"{}\" stroke-width=\"4\" stroke-linecap=\"round\" d=\"",
                   p.colour);
    for (const Column& c : cols) fmt::format_to(out, "M{} {}h0", c.x, f.y(c.v));
    fmt::format_to(out, "\"/>");
  }
  if (!p.levels.empty()) {
    fmt::format_to(out, "<path class=\"level\" fill=\"none\" stroke=\"{}\" stroke-dasharray=\"4 2\" d=\"", p.colour);
    for (const Level& l : p.levels) fmt::format_to(out, "M{} {}H{}", f.x(l.t0), f.y(l.v), f.x(l.t1));
    fmt::format_to(out, "\"/>");
  }
  fmt::format_to(out, "</g>");
}

void draw_lines(fmt::memory_buffer& b, const std::vector<Vline>& lines, const Frame& f) {
  auto out = std::back_inserter(b);
  int mark_no = 0;
  for (const Vline& l : lines) {
    const int x = f.x(l.t);
    const bool cp = l.cls == "cp";
    const std::string colour = !cp ? "#777" : l.change_pct < 0 ? "#c62828" : "#2e7d32";
    // Marks' names in three rows at the top, change points' sizes at the bottom of the plot area.
    const int ty = cp ? kHeight - kBottom - 3 : 9 + 8 * (mark_no++ % 3);
    fmt::format_to(out,
                   "<g class=\"{}\" data-run=\"{}\" data-before=\"{}\" data-label=\"{}\"><title>{}</title>"
                   "<path stroke=\"{}\" stroke-width=\"{}\"{} d=\"M{} {}V{}\"/>"
                   "<text x=\"{}\" y=\"{}\" fill=\"{}\" font-size=\"9\" text-anchor=\"{}\">{}</text></g>",
                   l.cls, html_escape(l.run), html_escape(l.before), html_escape(l.short_label), html_escape(l.title),
                   colour, cp ? 1.5 : 1, cp ? "" : " stroke-dasharray=\"2 2\"", x, cp ? kTop : 4, kHeight - kBottom,
                   x + 2, ty, colour, x > f.w - 120 ? "end" : "start", html_escape(l.short_label));
  }
}
}  // namespace

std::string plot_svg(const PlotData& d) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Part& p : d.parts)
    for (const Point& pt : p.pts) {
      lo = std::min(lo, pt.lo);
      hi = std::max(hi, pt.hi);
    }
  if (!(lo <= hi)) lo = 0, hi = 1;
  const double pad = (hi - lo) * 0.06 + (hi == lo ? std::abs(hi) * 0.05 + 1e-12 : 0);
  const Frame f{d.t0, d.t1, lo - pad, hi + pad, d.width};
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\">",
                 d.width, kHeight);
  fmt::format_to(out, "<path class=\"axes\" fill=\"none\" stroke=\"#999\" d=\"M{} {}V{}H{}\"/>", kLeft, kTop,
                 kHeight - kBottom, d.width - kRight);
  for (double v : {f.y0 + pad, f.y1 - pad})
    fmt::format_to(out, "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{}</text>", kLeft - 4, f.y(v) + 3,
                   html_escape(fmt_num(v)));
  fmt::format_to(out, "<text x=\"4\" y=\"{}\" font-size=\"9\" fill=\"#555\">{}</text>", kTop + 40, html_escape(d.unit));
  for (double t : {d.t0, d.t1}) {
    // The axis' two ends as UTC dates and times (2026-12-02 12:06).
    const std::time_t s = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&s, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", &tm);
    fmt::format_to(out, "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#555\" text-anchor=\"{}\">{}</text>", f.x(t),
                   kHeight - 5, t == d.t0 ? "start" : "end", text);
  }
  for (const Part& p : d.parts) draw_part(b, p, f);
  draw_lines(b, d.lines, f);
  fmt::format_to(out, "</svg>");
  return fmt::to_string(b);
}

std::string strip_svg(const std::vector<StripRow>& rows, const std::vector<std::string>& run_labels) {
  constexpr int kRow = 14, kArea = 900;
  int label_w = 60;  // wide enough for the longest label at 10 px
  for (const StripRow& row : rows) label_w = std::max(label_w, 6 * static_cast<int>(row.label.size()) + 8);
  const size_t n = std::max<size_t>(run_labels.size(), 1);
  const double cell = static_cast<double>(kArea) / n;
  fmt::memory_buffer b;
  auto out = std::back_inserter(b);
  fmt::format_to(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"strip\" viewBox=\"0 0 {} {}\" "
                 "font-family=\"sans-serif\" data-runs=\"{}\">",
                 label_w + kArea + 4, kRow * rows.size() + 4, run_labels.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const StripRow& row = rows[r];
    const int y = 2 + kRow * static_cast<int>(r);
    fmt::format_to(out, "<g class=\"strip-row\" data-claim=\"{}\"><text x=\"0\" y=\"{}\" font-size=\"10\">{}</text>",
                   html_escape(row.label), y + 10, html_escape(row.label));
    for (size_t i = 0; i < row.verdict.size();) {
      size_t j = i;
      while (j < row.verdict.size() && row.verdict[j] == row.verdict[i]) ++j;
      const std::string v = row.verdict[i].empty() ? "none" : row.verdict[i];
      const size_t from = row.at[i], to = j < row.at.size() ? row.at[j] : run_labels.size();
      fmt::format_to(out,
                     "<rect class=\"s-{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"><title>{} {}: {}{}"
                     "</title></rect>",
                     html_escape(v), label_w + cell * from, y, std::max(cell * (to - from) - (cell > 3 ? 0.6 : 0), 0.4),
                     kRow - 2, html_escape(row.label), row.verdict[i].empty() ? "not judged" : html_escape(v),
                     html_escape(run_labels[from]), j - i > 1 ? " to " + html_escape(run_labels[row.at[j - 1]]) : "");
      i = j;
    }
    fmt::format_to(out, "</g>");
  }
  fmt::format_to(out, "</svg>");
  return fmt::to_string(b);
}

}  // namespace rigcheck::timeline_detail
