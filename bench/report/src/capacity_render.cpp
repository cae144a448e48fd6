// The capacity answer (capacity.hpp) written out: the markdown of report.md and `rigcheck
// capacity`, and the same table and details as HTML for report.html. Both read the same cells
// (CapacityRow) so the two pages cannot say different things.
#include <cmath>

#include <fmt/format.h>

#include "rigcheck/harness/units.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck {

namespace {
// The cells of one model's row in the summary table, plain text (each page escapes them).
struct CapacityRow {
  std::string model, basis, limit, peak, step, samples, check, bottleneck;
};

CapacityRow row_of(const ModelCapacity& m) {
  CapacityRow r;
  r.model = m.model;
  r.basis = m.basis;
  r.limit = m.limit_batch > 0    ? std::to_string(m.limit_batch)
            : m.limit_batch == 0 ? fmt::format("cannot fit at batch 1 (estimate {})", gib(m.estimate_b1))
                                 : "-";
  r.peak = gib(m.predicted_at_limit);
  const bool estimate = m.basis == "model-based estimate";
  r.step = m.step_batch > 0 ? fmt::format("{} s (batch {}, {})", fmt_num(m.step_s), m.step_batch,
                                          estimate                        ? "estimate"
                                          : m.step_batch == m.limit_batch ? "measured there"
                                                                          : "largest measured")
                            : "-";
  r.samples = fmt_num(m.samples_per_s);
  r.check = m.check_batch > 0
                ? fmt::format("b{}: {} measured vs {} predicted ({:+.1f}%)", m.check_batch, gib(m.check_measured),
                              gib(m.check_predicted), 100 * (m.check_measured - m.check_predicted) / m.check_predicted)
                : "-";
  r.bottleneck = m.bottleneck.substr(0, m.bottleneck.find(':'));
  return r;
}

std::string points_text(const ModelCapacity& m) {
  std::string s;
  for (const MemoryPoint& p : m.points)
    s += fmt::format(" b{} {} (n={}{}{})", p.batch, gib(p.peak_bytes), p.reps, p.check ? ", near-limit check" : "",
                     std::isnan(p.step_s) ? "" : fmt::format(", step {} s", fmt_num(p.step_s)));
  return s;
}
}  // namespace

std::string capacity_md(const CapacityAnswer& a) {
  std::string md = "On the CPU (host RAM): " + md_escape(a.memory_text) + ".\n\n";
  md +=
      "| model | basis | largest batch | predicted peak there | step time at | samples/s | near-limit check | first "
      "bottleneck |\n|---|---|---|---|---|---|---|---|\n";
  for (const ModelCapacity& m : a.models) {
    const CapacityRow r = row_of(m);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_escape(r.model), r.basis, r.limit, r.peak,
                      r.step, r.samples, r.check, md_escape(r.bottleneck));
  }
  for (const ModelCapacity& m : a.models) {
    md += fmt::format("\n**{}** ({}): {}.", md_escape(m.model), m.basis, md_escape(m.text));
    if (!m.points.empty()) md += " Measured:" + points_text(m) + ".";
    md += " Step: " + md_escape(m.step_basis) + ".\n";
    if (!m.limits.empty()) {
      md += "\n| what limits it | share of its ceiling | figures |\n|---|---|---|\n";
      for (const LimitFigure& l : m.limits)
        md += fmt::format("| {} | {} | {} |\n", l.what, l.ok() ? fmt::format("{:.0f}%", 100 * l.share) : "-",
                          md_escape(l.text));
      md += "\nFirst bottleneck: " + md_escape(m.bottleneck) + ".\n";
    }
  }
  md += "\nOn the GPU: " + a.gpu_text + "\n";
  return md;
}

std::string capacity_html(const CapacityAnswer& a) {
  std::string h = "<section id=\"capacity\"><h2>What this machine can train</h2>\n<p>On the CPU (host RAM): " +
                  html_escape(a.memory_text) + ".</p>\n";
  h += "<table class=\"capacity\"><tr><th>model</th><th>basis</th><th>largest batch</th><th>predicted peak there</th>"
       "<th>step time at</th><th>samples/s</th><th>near-limit check</th><th>first bottleneck</th></tr>\n";
  for (const ModelCapacity& m : a.models) {
    const CapacityRow r = row_of(m);
    h += "<tr>";
    for (const std::string* c : {&r.model, &r.basis, &r.limit, &r.peak, &r.step, &r.samples, &r.check, &r.bottleneck})
      h += "<td>" + html_escape(*c) + "</td>";
    h += "</tr>\n";
  }
  h += "</table>\n";
  for (const ModelCapacity& m : a.models) {
    h += fmt::format("<details class=\"evidence\" id=\"capacity-{}\"><summary><b>{}</b> ({})</summary>\n<p>{}.",
                     html_escape(m.model), html_escape(m.model), html_escape(m.basis), html_escape(m.text));
    if (!m.points.empty()) h += " Measured:" + html_escape(points_text(m)) + ".";
    h += " Step: " + html_escape(m.step_basis) + ".</p>\n";
    if (!m.limits.empty()) {
      h += "<table><tr><th>what limits it</th><th>share of its ceiling</th><th>figures</th></tr>\n";
      for (const LimitFigure& l : m.limits)
        h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", html_escape(l.what),
                         l.ok() ? fmt::format("{:.0f}%", 100 * l.share) : "-", html_escape(l.text));
      h += "</table>\n<p>First bottleneck: " + html_escape(m.bottleneck) + ".</p>\n";
    }
    h += "</details>\n";
  }
  h += "<p>On the GPU: " + html_escape(a.gpu_text) + "</p>\n</section>\n";
  return h;
}

}  // namespace rigcheck
