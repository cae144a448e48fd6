// Drawing the plots: gnuplot (Debian gnuplot-nox) as a child process, its SVG made inline-ready.
// Why gnuplot: docs/methodology.md, "Plots".
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "rigcheck/report/html.hpp"

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/report_util.hpp"
#include "html_internal.hpp"

namespace rigcheck {

namespace {

std::string find_gnuplot() {
  if (const char* e = std::getenv("RIGCHECK_GNUPLOT")) return e;
  return find_on_path("gnuplot");
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
        *note =
            "Plots are drawn by gnuplot, which is not installed here (Debian package gnuplot-nox; "
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

}  // namespace rigcheck
