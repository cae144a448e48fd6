// Where a case's threads run, chosen from the machine's shape (machine_topology.hpp): a pure function
// of the topology, tested on captures of real machines (tests/bench/harness/test_placement.cpp).
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "rigcheck/harness/machine_topology.hpp"

namespace rigcheck {

ThreadPlacement place_threads(const Topology& t, int threads, Placement p, const std::vector<int>& allowed_in) {
  ThreadPlacement out;
  const std::vector<int>& allowed = allowed_in.empty() ? t.allowed_pus : allowed_in;
  // Each usable core's allowed hardware threads, cores in logical order.
  std::vector<std::pair<const TopoCore*, std::vector<int>>> cores;
  for (const TopoCore& c : t.cores) {
    std::vector<int> pus;
    for (int pu : c.pus)
      if (std::binary_search(allowed.begin(), allowed.end(), pu)) pus.push_back(pu);
    if (!pus.empty()) cores.emplace_back(&c, std::move(pus));
  }
  if (p == Placement::spread) {
    // Round robin over (package, NUMA node) groups, each group's cores in logical order.
    std::map<std::pair<int, int>, std::vector<size_t>> groups;
    for (size_t i = 0; i < cores.size(); ++i) groups[{cores[i].first->package, cores[i].first->numa}].push_back(i);
    std::vector<std::pair<const TopoCore*, std::vector<int>>> order;
    for (size_t round = 0; order.size() < cores.size(); ++round)
      for (auto& [key, members] : groups)
        if (round < members.size()) order.push_back(cores[members[round]]);
    cores = std::move(order);
  }
  size_t hw = 0;
  for (const auto& c : cores) hw += c.second.size();
  if (threads < 1 || static_cast<size_t>(threads) > hw) {
    out.error = fmt::format("{} threads on {} allowed hardware threads ({} cores)", threads, hw, cores.size());
    return out;
  }
  std::vector<size_t> used;  // indexes into cores
  if (static_cast<size_t>(threads) <= cores.size()) {
    for (int i = 0; i < threads; ++i) {
      out.cpus.push_back(cores[static_cast<size_t>(i)].second.front());
      used.push_back(static_cast<size_t>(i));
    }
  } else {
    // The SMT point: the first cores with every allowed sibling, until the count is reached.
    out.smt = true;
    for (size_t i = 0; i < cores.size() && out.cpus.size() < static_cast<size_t>(threads); ++i) {
      used.push_back(i);
      for (int pu : cores[i].second)
        if (out.cpus.size() < static_cast<size_t>(threads)) out.cpus.push_back(pu);
    }
  }
  std::map<int, int> llc_ordinal;  // index into t.caches -> its ordinal among the last-level caches
  for (const TopoCore& c : t.cores)
    if (c.l3 >= 0 && !llc_ordinal.count(c.l3)) llc_ordinal.emplace(c.l3, static_cast<int>(llc_ordinal.size()));
  std::set<int> nodes, l3, packages;
  for (size_t i : used) {
    const TopoCore& c = *cores[i].first;
    if (c.numa >= 0) nodes.insert(t.nodes[static_cast<size_t>(c.numa)].os_index);
    if (c.l3 >= 0) l3.insert(llc_ordinal[c.l3]);
    packages.insert(c.package);
  }
  out.cores = static_cast<int>(used.size());
  out.nodes.assign(nodes.begin(), nodes.end());
  out.l3.assign(l3.begin(), l3.end());
  out.packages.assign(packages.begin(), packages.end());
  out.memory_nodes = out.nodes;
  return out;
}

namespace {
const TopoNode* host_node(const Topology& t, int os_index) {
  for (const TopoNode& n : t.nodes)
    if (n.os_index == os_index && !n.gpu_memory()) return &n;
  return nullptr;
}
}  // namespace

ThreadPlacement place_threads_on_node(const Topology& t, int threads, int node, int memory_node,
                                      const std::vector<int>& allowed_in) {
  const std::vector<int>& allowed = allowed_in.empty() ? t.allowed_pus : allowed_in;
  const TopoNode* cpu_node = host_node(t, node);
  const int mem = memory_node < 0 ? node : memory_node;
  ThreadPlacement out;
  if (!cpu_node || !host_node(t, mem)) {
    out.error = fmt::format("NUMA node {} is not a host memory node of this machine", cpu_node ? mem : node);
    return out;
  }
  std::vector<int> mine;  // the allowed CPUs local to the node
  for (int c : cpu_node->cpus)
    if (std::binary_search(allowed.begin(), allowed.end(), c)) mine.push_back(c);
  std::sort(mine.begin(), mine.end());
  if (mine.empty()) {
    out.error = fmt::format("no allowed CPU on NUMA node {}", node);
    return out;
  }
  out = place_threads(t, threads, Placement::compact, mine);
  if (out.error.empty()) out.memory_nodes = {mem};
  return out;
}

std::vector<std::pair<int, int>> node_core_counts(const Topology& t, const std::vector<int>& allowed_in) {
  const std::vector<int>& allowed = allowed_in.empty() ? t.allowed_pus : allowed_in;
  std::map<int, int> counts;
  for (const TopoCore& c : t.cores) {
    if (c.numa < 0) continue;
    for (int pu : c.pus)
      if (std::binary_search(allowed.begin(), allowed.end(), pu)) {
        ++counts[t.nodes[static_cast<size_t>(c.numa)].os_index];
        break;
      }
  }
  return {counts.begin(), counts.end()};
}

std::vector<int> domain_core_counts(const Topology& t, const std::vector<int>& allowed_in) {
  const std::vector<int>& allowed = allowed_in.empty() ? t.allowed_pus : allowed_in;
  auto usable = [&](const TopoCore& c) {
    return std::any_of(c.pus.begin(), c.pus.end(),
                       [&](int pu) { return std::binary_search(allowed.begin(), allowed.end(), pu); });
  };
  const TopoCore* first = nullptr;
  for (const TopoCore& c : t.cores)
    if (usable(c)) {
      first = &c;
      break;
    }
  if (!first) return {};
  int l3 = 0, node = 0, package = 0;
  for (const TopoCore& c : t.cores) {
    if (!usable(c)) continue;
    l3 += c.l3 >= 0 && c.l3 == first->l3;
    node += c.numa >= 0 && c.numa == first->numa;
    package += c.package == first->package;
  }
  std::vector<int> out;
  for (int n : {l3, node, package})
    if (n > 0) out.push_back(n);
  return out;
}

}  // namespace rigcheck
