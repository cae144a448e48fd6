// report.html's picture of the machine, in the manner of lstopo: packages, their NUMA nodes, their
// last-level caches and cores, each core's hardware threads; the CPUs this run was not allowed are
// greyed, and those the ResNet-50 step's largest thread count ran on (the figure behind CPU-1 and
// CPU-2) are marked. Drawn from the inventory's core_layout and cpu_allowed and the rows' cpus param.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "html_internal.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/report/html.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/report/report_util.hpp"
#include "rigcheck/runfolder/run_query.hpp"

namespace rigcheck::html_detail {

namespace {

struct Core {
  std::string package, node, llc;
  std::vector<int> pus;
};

// core_layout: "PACKAGE.NODE.LLC:CPU,CPU;..." (inventory shape.cpp); empty on a malformed entry.
std::vector<Core> parse_layout(const std::string& layout) {
  std::vector<Core> out;
  for (const std::string& e : split(layout, ';')) {
    const size_t colon = e.find(':');
    const std::vector<std::string> where = split(e.substr(0, colon), '.');
    if (colon == std::string::npos || where.size() != 3) return {};
    Core c{where[0], where[1], where[2], {}};
    for (const std::string& pu : split(e.substr(colon + 1), ',')) c.pus.push_back(std::atoi(pu.c_str()));
    out.push_back(std::move(c));
  }
  return out;
}

// The CPUs of the ResNet-50 step's case of the most threads, and that count.
std::pair<std::set<int>, int> marked_cpus(const RunData& run) {
  std::set<int> cpus;
  int most = 0;
  for (const ResultRow& r : run.results) {
    if (r.benchmark != names::kResnetTrainStep || r.metric != names::kCheckWrong) continue;
    const int t = std::atoi(param_value(r.params, "threads").c_str());
    const std::vector<int> v = parse_cpu_list_text(param_value(r.params, "cpus"));
    if (t > most && !v.empty()) most = t, cpus = std::set<int>(v.begin(), v.end());
  }
  return {cpus, most};
}

constexpr int kPu = 26, kGap = 6, kCoresPerRow = 8;

}  // namespace

std::string machine_svg(const RunData& run) {
  const std::vector<Core> cores = parse_layout(fact_or(run.inventory, "core_layout", ""));
  if (cores.empty()) return "";
  const std::vector<int> allowed_list = parse_cpu_list_text(fact_or(run.inventory, "cpu_allowed", ""));
  const std::set<int> allowed(allowed_list.begin(), allowed_list.end());
  const auto [marked, threads] = marked_cpus(run);
  // package -> node -> llc -> cores, in the order first seen (hwloc's logical order).
  std::vector<std::string> pkgs;
  std::map<std::string, std::vector<std::string>> nodes_of;
  std::map<std::string, std::vector<std::string>> llcs_of;
  std::map<std::string, std::vector<const Core*>> cores_of;
  for (const Core& c : cores) {
    const std::string pn = c.package + "." + c.node, pnl = pn + "." + c.llc;
    if (std::find(pkgs.begin(), pkgs.end(), c.package) == pkgs.end()) pkgs.push_back(c.package);
    auto& ns = nodes_of[c.package];
    if (std::find(ns.begin(), ns.end(), pn) == ns.end()) ns.push_back(pn);
    auto& ls = llcs_of[pn];
    if (std::find(ls.begin(), ls.end(), pnl) == ls.end()) ls.push_back(pnl);
    cores_of[pnl].push_back(&c);
  }
  size_t max_pus = 1;
  for (const Core& c : cores) max_pus = std::max(max_pus, c.pus.size());
  const int core_w = static_cast<int>(max_pus) * kPu + 8, core_h = kPu + 8;
  std::string body;
  int x = kGap, height = 0;
  for (const std::string& p : pkgs) {
    int y = kGap + 18, width = 0;
    std::string inner;
    for (const std::string& pn : nodes_of[p]) {
      const int ny = y;
      y += 18;
      int nw = 0;
      std::string node_inner;
      for (const std::string& pnl : llcs_of[pn]) {
        const std::vector<const Core*>& cs = cores_of[pnl];
        const int cols = std::min<int>(kCoresPerRow, static_cast<int>(cs.size()));
        const int rows = (static_cast<int>(cs.size()) + kCoresPerRow - 1) / kCoresPerRow;
        const int lw = std::max(cols * (core_w + kGap) + kGap, 90), lh = 18 + rows * (core_h + kGap);
        const std::string llc = pnl.substr(pnl.rfind('.') + 1);
        node_inner += fmt::format(
            "<rect class=\"llc\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
            x + 2 * kGap, y, lw, lh, x + 3 * kGap, y + 13, llc == "-" ? "no shared cache" : "L3 #" + llc);
        for (size_t i = 0; i < cs.size(); ++i) {
          const int cx = x + 3 * kGap + static_cast<int>(i % kCoresPerRow) * (core_w + kGap);
          const int cy = y + 18 + static_cast<int>(i / kCoresPerRow) * (core_h + kGap);
          node_inner += fmt::format("<rect class=\"core\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", cx, cy,
                                    core_w, core_h);
          for (size_t k = 0; k < cs[i]->pus.size(); ++k) {
            const int pu = cs[i]->pus[k];
            const char* cls = marked.count(pu)                       ? "pu marked"
                              : allowed.empty() || allowed.count(pu) ? "pu"
                                                                     : "pu disallowed";
            node_inner += fmt::format(
                "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>CPU {}</title></rect>"
                "<text x=\"{}\" y=\"{}\">{}</text>",
                cls, cx + 4 + static_cast<int>(k) * kPu, cy + 4, kPu - 2, kPu, pu, cx + 6 + static_cast<int>(k) * kPu,
                cy + 21, pu);
          }
          node_inner += "\n";
        }
        y += lh + kGap;
        nw = std::max(nw, std::max(lw + 2 * kGap, 110));
      }
      const std::string node = pn.substr(pn.find('.') + 1);
      inner +=
          fmt::format(
              "<rect class=\"node\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
              x + kGap, ny, nw, y - ny, x + 2 * kGap, ny + 13, node == "-" ? "no NUMA node" : "NUMA node " + node) +
          node_inner;
      y += kGap;
      width = std::max(width, nw + 2 * kGap);
    }
    body += fmt::format(
                "<rect class=\"package\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/><text x=\"{}\" y=\"{}\">Package "
                "{}</text>\n",
                x, kGap, width, y - kGap, x + kGap, kGap + 13, p == "-1" ? "(none reported)" : p) +
            inner;
    x += width + kGap;
    height = std::max(height, y + kGap);
  }
  const std::string legend =
      threads > 0
          ? fmt::format(
                "marked: the {} CPU(s) of the ResNet-50 step at {} thread(s), the figure behind CPU-1 and CPU-2; ",
                marked.size(), threads)
          : std::string();
  return fmt::format(
      "<section id=\"shape\"><h2>The machine</h2><p>{}. {}grey: CPUs this run was not allowed "
      "(cpuset {}).</p>\n<svg class=\"machine\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" role=\"img\" aria-label=\"the machine's shape\">\n{}</svg></section>\n",
      html_escape(fact_or(run.inventory, "machine_shape", "")), legend,
      html_escape(fact_or(run.inventory, "cpu_allowed", "unknown")), x, height, body);
}

}  // namespace rigcheck::html_detail
