// The report's section on where threads and memory were: the placement of the rows behind CPU-1 and
// CPU-2 (the ResNet-50 step's thread counts), STREAM triad per NUMA node and the latency matrix from
// each node's cores to each node's memory (memory_bandwidth's and memory_latency_numa's per-node cases).
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report_internal.hpp"
#include "rigcheck/harness/names.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/report/report_util.hpp"

namespace rigcheck::report_detail {

namespace {

// The median of a case's ok repetitions of `metric`, else of its mistrusted ones (marked), per key.
struct Figure {
  std::vector<double> ok, other;
  std::string median_text(const char* fmt_spec) const {
    const bool trusted = !ok.empty();
    const std::vector<double>& v = trusted ? ok : other;
    if (v.empty()) return "-";
    return fmt::format(fmt::runtime(fmt_spec), summarize(v).median) + (trusted ? "" : " (mistrusted)");
  }
};

void add(Figure& f, const ResultRow& r) {
  if (r.status == Status::ok)
    f.ok.push_back(r.value);
  else if (r.status == Status::mistrusted)
    f.other.push_back(r.value);
}

std::string placement_md(const RunData& run) {
  std::map<int, std::string> by_threads;  // threads -> where, from the first row that says
  for (const ResultRow& r : run.results) {
    if (r.benchmark != names::kResnetTrainStep || r.metric != names::kCheckWrong) continue;
    const std::string cpus = param_value(r.params, "cpus");
    if (cpus.empty()) continue;
    const std::string sockets = param_value(r.params, "sockets");
    by_threads[std::atoi(param_value(r.params, "threads").c_str())] = fmt::format(
        "CPUs {}, {} {}, NUMA node(s) {}, L3 domain(s) {}, {}", cpus,
        sockets.find(',') != std::string::npos ? "sockets" : "socket", sockets.empty() ? "unknown" : sockets,
        param_value(r.params, "numa_nodes"), param_value(r.params, "l3_domains"), param_value(r.params, "placement"));
  }
  if (by_threads.empty()) return "";
  std::string md = "The ResNet-50 training step's thread counts (the rows behind CPU-1 and CPU-2) ran on:\n\n";
  for (const auto& [t, where] : by_threads) md += fmt::format("- {} thread(s): {}\n", t, md_escape(where));
  return md + "\n";
}

std::string bandwidth_md(const RunData& run) {
  std::map<std::string, Figure> figs;  // "node N, memory M" -> GB/s
  std::map<std::string, std::string> cpus;
  std::string skipped;
  for (const ResultRow& r : run.results) {
    if (r.benchmark != names::kMemoryBandwidth) continue;
    if (r.status == Status::skipped && r.case_name.find("per_node") != std::string::npos) skipped = r.note;
    const std::string node = param_value(r.params, "numa_node");
    if (node.empty() || r.metric != "gbps") continue;
    const std::string key = fmt::format("{} | {}", node, param_value(r.params, "memory_node"));
    add(figs[key], r);
    cpus[key] = param_value(r.params, "cpus");
  }
  if (figs.empty()) return skipped.empty() ? "" : "STREAM per NUMA node: not measured: " + md_escape(skipped) + ".\n\n";
  std::string md =
      "STREAM triad (plain stores), GB/s, median of the repetitions:\n\n"
      "| threads on node | memory on node | CPUs | GB/s |\n|---|---|---|---|\n";
  for (const auto& [key, f] : figs) md += fmt::format("| {} | {} | {} |\n", key, cpus[key], f.median_text("{:.1f}"));
  return md + "\n";
}

std::string latency_md(const RunData& run) {
  std::map<std::pair<std::string, std::string>, Figure> figs;  // (cpu node, memory node) -> ns
  std::set<std::string> mems;
  std::string skipped, bytes;
  for (const ResultRow& r : run.results) {
    if (r.benchmark != names::kMemoryLatencyNuma) continue;
    if (r.status == Status::skipped && r.metric.empty()) skipped = r.note;
    if (r.metric != names::kNsPerLoad) continue;
    const std::string cpu = param_value(r.params, "numa_node"), mem = param_value(r.params, "memory_node");
    add(figs[{cpu, mem}], r);
    mems.insert(mem);
    bytes = param_value(r.params, "bytes");
  }
  if (figs.empty()) return skipped.empty() ? "" : "Latency matrix: not measured: " + md_escape(skipped) + ".\n\n";
  std::string md = fmt::format(
      "Load latency, ns, a chase over {:.0f} MiB of 2 MiB pages from the node's first core "
      "(rows) to the memory of each node (columns):\n\n| CPU node |",
      std::atof(bytes.c_str()) / 1048576.0);
  for (const std::string& m : mems) md += " memory " + m + " |";
  md += "\n|---|";
  for (size_t i = 0; i < mems.size(); ++i) md += "---|";
  md += "\n";
  std::string row;
  for (const auto& [key, f] : figs) {
    if (row.empty() || row.rfind("| " + key.first + " |", 0) != 0) {
      if (!row.empty()) md += row + "\n";
      row = "| " + key.first + " |";
    }
    row += " " + f.median_text("{:.1f}") + " |";
  }
  return md + row + "\n\n";
}

}  // namespace

std::string numa_md(const RunData& run) {
  const std::string body = placement_md(run) + bandwidth_md(run) + latency_md(run);
  return body.empty() ? "" : "\n## Where threads and memory were\n\n" + body;
}

}  // namespace rigcheck::report_detail
