// data/plots.csv: one row per plot (html.hpp, PlotSpec), read strictly.
#include <sstream>

#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/report/html.hpp"

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/report_util.hpp"
#include "html_internal.hpp"

namespace rigcheck {

namespace html_detail {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}
}  // namespace html_detail

using html_detail::split;

std::vector<PlotSpec> read_plot_specs(const std::string& path) {
  std::vector<PlotSpec> out;
  with_csv_errors(path, [&] {
    CsvReader<16> in(path);
    in.read_header(io::ignore_no_column, "id", "title", "benchmark", "metric", "where", "x", "x_scale", "x_label",
                   "series", "y_label", "x_log", "y_log", "style", "marks", "status", "note");
    std::string id, title, bench, metric, where, x, xs, xl, series, yl, xlog, ylog, style, marks, status, note;
    while (
        in.read_row(id, title, bench, metric, where, x, xs, xl, series, yl, xlog, ylog, style, marks, status, note)) {
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
      if (status != "live" && status != "to_confirm")
        bad(fmt::format("status '{}' (expected live or to_confirm)", status));
      for (const std::string& m : split(marks, ';')) {
        const bool ok = m == "amdahl" || m.rfind("vline=inventory:", 0) == 0 || m.rfind("hline=inventory:", 0) == 0 ||
                        m.rfind("ref=datasheet:", 0) == 0;
        if (!ok)
          bad(
              fmt::format("mark '{}' (expected amdahl, vline=inventory:KEY:LABEL, hline=inventory:KEY:LABEL or "
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

}  // namespace rigcheck
