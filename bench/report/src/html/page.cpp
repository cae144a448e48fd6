// report.html, compare.html, history.html: one self-contained page each (inline style, inline
// SVG, no network when opened), and report.html's content.
#include <cmath>

#include "rigcheck/report/html.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/harness/paths.hpp"

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/export.hpp"
#include "rigcheck/report/report_util.hpp"
#include "html_internal.hpp"

namespace rigcheck {

// HTML5 knows XML's five entities; a page gets the same text an export does (U+FFFD for what is not UTF-8).
std::string html_escape(const std::string& s) { return xml_escape(s); }

std::string verdict_class(Outcome verdict) { return std::string("v-") + to_string(verdict); }

std::string html_page(const std::string& title, const std::string& body) {
  // Fonts: the system's sans-serif, then CJK fonts by name (the guide's quotes are Chinese) so that a
  // browser that has one uses it instead of drawing boxes: Noto Sans CJK (Debian fonts-noto-cjk,
  // which the test setup installs), Source Han Sans, the Windows and macOS ones, WenQuanYi.
  static const char* css = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif,"Noto Sans CJK SC","Noto Sans SC","Source Han Sans SC","Microsoft YaHei","PingFang SC","Hiragino Sans GB","WenQuanYi Micro Hei","WenQuanYi Zen Hei","Droid Sans Fallback";margin:1.5em auto;max-width:1320px;padding:0 1em;color:#222}
:lang(zh){font-family:"Noto Sans CJK SC","Noto Sans SC","Source Han Sans SC","Microsoft YaHei","PingFang SC","Hiragino Sans GB","WenQuanYi Micro Hei","WenQuanYi Zen Hei","Droid Sans Fallback",sans-serif}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}th{background:#f3f3f3}
table.verdicts{display:table;width:100%;table-layout:fixed;font-size:.84em;line-height:1.3}
table.verdicts td,table.verdicts th{padding:.2em .4em}
table.verdicts .c-id{width:5.5em}table.verdicts .c-guide{width:30%}table.verdicts .c-measured{width:17%}
table.verdicts .c-verdict{width:9.5em}
.zh{color:#555;font-size:.92em}.sec{color:#777;font-size:.85em}
.v-confirmed{background:#c9efc9}.v-refuted{background:#f6c6c6}.v-inconclusive{background:#fbefb8}
.v-not_measurable{background:#e4e4e4}.v-predicted{background:#cfe0fb}.v-no_benchmark{background:#f1f1f1;color:#666}
tr.f-regression td.flag{background:#f6c6c6;font-weight:bold}tr.f-improvement td.flag{background:#c9efc9;font-weight:bold}
tr.f-too_few_reps td.flag,tr.f-only_in_base td.flag,tr.f-only_in_run td.flag{background:#eee;color:#555}
details.evidence{border:1px solid #ddd;margin:.3em 0;padding:.2em .6em}details.evidence[open]{background:#fafafa}
details.evidence summary{cursor:pointer}details.evidence dt{font-weight:bold;margin-top:.3em}details.evidence dd{margin-left:1.2em}
figure.plot{margin:1em 0;border:1px solid #ddd;padding:.5em;max-width:780px}
figure.plot svg{width:100%;height:auto;display:block}figcaption{font-size:.85em;color:#444}
svg.machine{max-width:100%;height:auto;font-size:11px}svg.machine rect{stroke:#555;stroke-width:1}
svg.machine .package{fill:#f2f2f2}svg.machine .node{fill:#e4f0e4}svg.machine .llc{fill:#fff8e0}svg.machine .core{fill:#fff}
svg.machine .pu{fill:#fff;stroke:#999}svg.machine .pu.marked{fill:#4a7fd0}svg.machine .pu.disallowed{fill:#bbb}
.warn{background:#fff4d6;padding:.4em .8em;border-left:4px solid #e0a800}.goodfor{background:#eef5ff;padding:.5em .8em;border-left:4px solid #4a7fd0}
)";
  // Marks each plot rendered (its SVG has a laid-out box and drawn paths): read by the
  // headless-browser test through the DOM; the page needs nothing from the network. A link to a
  // claim's evidence (a.ev) opens its <details> (one click from the verdict table).
  static const char* js = R"(
(function(){var f=document.querySelectorAll('figure.plot'),ok=0;
for(var i=0;i<f.length;i++){var s=f[i].querySelector('svg'),r=false;
if(s){var b=s.getBoundingClientRect();r=b.width>0&&b.height>0&&s.querySelectorAll('path').length>0;}
f[i].setAttribute('data-rendered',r?'yes':'no');if(r)ok++;}
document.body.setAttribute('data-plots',String(f.length));document.body.setAttribute('data-plots-rendered',String(ok));
function openEvidence(id){var d=document.getElementById(id);if(d&&d.tagName==='DETAILS')d.open=true;}
var a=document.querySelectorAll('a.ev');for(var j=0;j<a.length;j++)a[j].addEventListener('click',function(){openEvidence(this.getAttribute('href').slice(1));});
if(location.hash)openEvidence(location.hash.slice(1));
window.addEventListener('hashchange',function(){openEvidence(location.hash.slice(1));});})();
)";
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(title) +
         "</title>\n<style>" + css + "</style></head>\n<body>\n" + body + "<script>" + js +
         "</script>\n</body></html>\n";
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
    auto inv = [&](const char* k) { return html_escape(fact_or(run.inventory, k, "unknown")); };
    std::string body = "<h1>rigcheck report: " + html_escape(run_id) + "</h1>\n";
    body += fmt::format(
        "<p>Machine: <b>{}</b> ({}), {} physical cores, best ISA {}, measured clock {} GHz, THP {}, governor {}. "
        "Build {} {}; oneDNN {}, OpenBLAS {} (core {}). GPUs: {}. Method version {}.<br>\n"
        "Result files: {}. The same figures as tables: <code>report.md</code> and <code>verdicts.csv</code> beside "
        "this file.</p>\n",
        inv("cpu_model"), inv("cpu_microarch"), inv("physical_cores"), inv("isa_best"), inv("cpu_clock_measured_ghz"),
        inv("thp_enabled"), inv("cpufreq_governor"), inv("build_type"), inv("compiler"), inv("onednn_version"),
        inv("openblas_version"), inv("openblas_corename"), inv("gpu_count"), inv("method_version"),
        html_escape(run.integrity.summary()));
    body += html_detail::machine_svg(run);
    auto ws = report_warnings(run);
    if (!ws.empty()) {
      body += "<div class=\"warn\" id=\"warnings\"><b>Warnings</b><ul>\n";
      for (const std::string& w : ws) body += "<li>" + html_escape(w) + "</li>\n";
      body += "</ul></div>\n";
    }
    // The verdicts in one screen: one line per claim, its evidence one click away (folded below).
    body += "<section id=\"verdicts\"><h2>Verdicts</h2>\n<p class=\"goodfor\"><b>What this machine is good for.</b> " +
            html_escape(good_for_text(run, claims, verdicts)) + "</p>\n";
    body +=
        "<table class=\"verdicts\"><thead><tr><th class=\"c-id\">Claim</th><th class=\"c-guide\">The guide says "
        "(original)</th><th class=\"c-measured\">Measured: median [min to max], n</th><th class=\"c-verdict\">"
        "Verdict</th><th class=\"c-why\">Why (evidence: click the claim)</th></tr></thead><tbody>\n";
    for (size_t i = 0; i < claims.size() && i < verdicts.size(); ++i) {
      const Claim& c = claims[i];
      const Verdict& v = verdicts[i];
      const std::string ev = "ev-" + claim_anchor(c);
      body += fmt::format(
          "<tr id=\"claim-{}\"><td><a class=\"ev\" href=\"#{}\">{}</a><div class=\"sec\">§{}</div></td>"
          "<td>{}<div class=\"zh\" lang=\"zh-CN\">{}</div></td><td>{}</td><td class=\"{}\"><b>{}</b>{}</td>"
          "<td>{}</td></tr>\n",
          html_escape(claim_anchor(c)), ev, html_escape(c.id), html_escape(c.section), html_escape(c.guide_figure),
          html_escape(c.text_zh), html_escape(measured_text(v)), verdict_class(v.verdict), to_string(v.verdict),
          shows_basis(v) ? fmt::format(" ({})", to_string(v.basis)) : "", html_escape(verdict_summary(c, v)));
    }
    body +=
        "</tbody></table>\n<p class=\"sec\">confirmed / refuted: the measured interval lies inside / outside the "
        "guide's figure widened by its tolerance; inconclusive: it straddles a bound; not_measurable: this machine "
        "lacks what the claim needs; predicted: a model's extrapolation, not a measurement; (emulated): a model of "
        "hardware this machine lacks, built from this run's measurements; (inventory), (datasheet): facts, not "
        "timings. Intervals are the min and max over the repetitions.</p></section>\n";
    body += "<section id=\"evidence\"><h2>Evidence per claim</h2>\n";
    for (size_t i = 0; i < claims.size() && i < verdicts.size(); ++i) {
      const Claim& c = claims[i];
      const Verdict& v = verdicts[i];
      body += fmt::format(
          "<details class=\"evidence\" id=\"ev-{}\"><summary><b>{}</b> {} (§{}): <span class=\"{}\">"
          "{}</span></summary>\n<dl>",
          html_escape(claim_anchor(c)), html_escape(c.id), html_escape(c.text_en), html_escape(c.section),
          verdict_class(v.verdict), html_escape(verdict_label(v)));
      for (const ClaimField& f : claim_fields(c, v))
        body += fmt::format("<dt>{}</dt><dd{}>{}</dd>", f.label, f.chinese ? " lang=\"zh-CN\" class=\"zh\"" : "",
                            html_escape(f.text));
      body += "</dl></details>\n";
    }
    body += "</section>\n";
    try {  // what this machine can train (capacity.hpp), as report.md shows it
      body += capacity_html(capacity_of(run));
    } catch (const std::exception& e) {
      body += "<section id=\"capacity\"><h2>What this machine can train</h2><p class=\"warn\">Not computed: " +
              html_escape(e.what()) + "</p></section>\n";
    }
    std::string note;
    auto plots =
        render_plots(read_plot_specs(data_path("plots.csv")), {{run_id, &run}}, data_path("datasheets.csv"), &note);
    body += plots_section(plots, note);
    if (!run.manifest.empty()) {
      body +=
          "<section id=\"manifest\"><h2>Benchmarks run</h2><table><tr><th>benchmark</th><th>area</th><th>status</th>"
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
