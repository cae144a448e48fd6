// Thread placement (machine_topology.hpp's place_threads): a pure function of the topology, checked
// on a made-up 2-socket machine whose CPU numbers alternate between sockets and on every capture of
// real machines in tests/fixtures/topology/ (hwloc's own test corpus), and live on this machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "rigcheck/harness/machine_topology.hpp"
#include "rigcheck/harness/process.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"

namespace fs = std::filesystem;
using namespace rigcheck;

namespace {

// 2 sockets x 4 cores x 2 threads, one NUMA node and one L3 per socket, CPU numbers alternating
// between the sockets as on many 2-socket Intel servers: core c of socket s has CPUs 2c+s and 8+2c+s.
Topology alternating_two_socket() {
  Topology t;
  t.packages = 2;
  for (int s = 0; s < 2; ++s) {
    TopoNode n;
    n.os_index = s;
    n.local_bytes = 1ull << 34;
    TopoCache l3;
    l3.level = 3;
    l3.bytes = 16ull << 20;
    for (int c = 0; c < 4; ++c) {
      n.cpus.push_back(2 * c + s);
      n.cpus.push_back(8 + 2 * c + s);
    }
    std::sort(n.cpus.begin(), n.cpus.end());
    l3.cpus = n.cpus;
    t.nodes.push_back(n);
    t.caches.push_back(l3);
  }
  for (int s = 0; s < 2; ++s)
    for (int c = 0; c < 4; ++c) {
      TopoCore core;
      core.package = s;
      core.numa = s;
      core.l3 = s;
      core.pus = {2 * c + s, 8 + 2 * c + s};
      core.allowed_pus = core.pus;
      t.cores.push_back(core);
    }
  for (int i = 0; i < 16; ++i) t.allowed_pus.push_back(i);
  return t;
}

}  // namespace

TEST(Placement, CompactFillsOneSocketFirstWhenCpuNumbersAlternate) {
  const Topology t = alternating_two_socket();
  const ThreadPlacement four = place_threads(t, 4);
  EXPECT_EQ(four.cpus, (std::vector<int>{0, 2, 4, 6})) << "the first 4 cores of socket 0, not CPUs 0-3";
  EXPECT_EQ(four.nodes, std::vector<int>{0});
  EXPECT_EQ(four.packages, std::vector<int>{0});
  EXPECT_EQ(four.l3, std::vector<int>{0});
  EXPECT_FALSE(four.smt);
  const ThreadPlacement eight = place_threads(t, 8);
  EXPECT_EQ(eight.nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(eight.cores, 8);
  EXPECT_FALSE(eight.smt);
}

TEST(Placement, SpreadAlternatesSocketsAndSmtIsItsOwnPoint) {
  const Topology t = alternating_two_socket();
  const ThreadPlacement two = place_threads(t, 2, Placement::spread);
  EXPECT_EQ(two.packages, (std::vector<int>{0, 1}));
  EXPECT_EQ(two.cpus, (std::vector<int>{0, 1}));
  const ThreadPlacement sixteen = place_threads(t, 16);
  EXPECT_TRUE(sixteen.smt);
  EXPECT_EQ(sixteen.cores, 8);
  std::vector<int> sorted = sixteen.cpus;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::set<int>(sorted.begin(), sorted.end()).size(), 16u) << "never two threads on one CPU";
  const ThreadPlacement ten = place_threads(t, 10);
  EXPECT_TRUE(ten.smt);
  EXPECT_EQ(ten.cores, 5);
  EXPECT_FALSE(place_threads(t, 17).error.empty());
  EXPECT_FALSE(place_threads(t, 0).error.empty());
}

TEST(Placement, OnlyAllowedCpusAreUsed) {
  const Topology t = alternating_two_socket();
  const ThreadPlacement p = place_threads(t, 2, Placement::compact, {1, 3, 9, 11});  // two cores of socket 1
  EXPECT_EQ(p.cpus, (std::vector<int>{1, 3}));
  EXPECT_EQ(p.nodes, std::vector<int>{1});
  EXPECT_FALSE(place_threads(t, 5, Placement::compact, {1, 3, 9, 11}).error.empty());
  EXPECT_EQ(domain_core_counts(t, {1, 3, 9, 11}), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(domain_core_counts(t), (std::vector<int>{4, 4, 4}));
}

// The memory area's per-node cases: threads on one node's cores (whatever the CPU numbering), memory
// on that node or, asked, on another; the nodes and their allowed cores for the sweep over them.
TEST(Placement, OnOneNodeWithLocalOrRemoteMemory) {
  const Topology t = alternating_two_socket();
  const ThreadPlacement local = place_threads_on_node(t, 4, 1);
  EXPECT_EQ(local.cpus, (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(local.nodes, std::vector<int>{1});
  EXPECT_EQ(local.memory_nodes, std::vector<int>{1});
  const ThreadPlacement remote = place_threads_on_node(t, 4, 0, 1);
  EXPECT_EQ(remote.nodes, std::vector<int>{0});
  EXPECT_EQ(remote.memory_nodes, std::vector<int>{1});
  EXPECT_EQ(place_threads(t, 8).memory_nodes, (std::vector<int>{0, 1}));  // the sweep's: its CPUs' nodes
  EXPECT_TRUE(place_threads_on_node(t, 5, 0).smt);                        // 4 cores there: a 5th thread is a sibling,
  EXPECT_FALSE(place_threads_on_node(t, 9, 0).error.empty());             // and 8 hardware threads at most
  EXPECT_FALSE(place_threads_on_node(t, 1, 2).error.empty());             // no node 2
  EXPECT_FALSE(place_threads_on_node(t, 1, 0, 7).error.empty());
  EXPECT_FALSE(place_threads_on_node(t, 1, 0, -1, {1, 3}).error.empty());  // none of node 0's CPUs allowed
  EXPECT_EQ(node_core_counts(t), (std::vector<std::pair<int, int>>{{0, 4}, {1, 4}}));
  EXPECT_EQ(node_core_counts(t, {1, 3, 9}), (std::vector<std::pair<int, int>>{{1, 2}}));
}

// On every captured machine: compact placement of N threads, N up to one NUMA node's cores, stays on
// one NUMA node, and on one socket up to the cores that node and that socket share (a NUMA node of
// several sockets, as on old SGI Altix machines or a 2-socket machine without NUMA, spans them).
TEST(Placement, CompactStaysOnOneNodeOnEveryCapture) {
  const std::string corpus = RIGCHECK_FIXTURES + "/topology";
  if (!fs::is_directory(corpus)) GTEST_SKIP() << "no " << corpus;
  // A build without hwloc reads sysfs's per-CPU files: no locality order, which is what is tested here.
  if (this_machine().source.rfind("sysfs", 0) == 0) GTEST_SKIP() << "built without hwloc: " << this_machine().source;
  int machines = 0;
  for (const auto& e : fs::directory_iterator(corpus)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 8 || name.substr(name.size() - 8) != ".tar.bz2") continue;
    const std::string dir = testsupport::fresh_dir("placement-" + name);
    const ChildResult r = run_child({"tar", "-xjf", e.path().string(), "-C", dir}, {}, 60, dir + ".log", false);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.output_tail;
    std::string root = dir;
    for (const auto& top : fs::directory_iterator(dir))
      if (top.is_directory()) root = top.path().string();
    const Topology t = load_topology(root);
    if (!t.error.empty() || t.cores.empty()) continue;  // topology_corpus lists what each capture fixes
    ++machines;
    if (t.cores.front().numa < 0) continue;
    const int node = t.cores.front().numa;
    const int package = t.cores.front().package;
    int node_cores = 0, shared = 0;
    for (const TopoCore& c : t.cores) {
      node_cores += c.numa == node && !c.allowed_pus.empty();
      shared += c.numa == node && c.package == package && !c.allowed_pus.empty();
    }
    for (int n = 1; n <= node_cores; ++n) {
      const ThreadPlacement p = place_threads(t, n);
      ASSERT_TRUE(p.error.empty()) << name << " " << n << ": " << p.error;
      EXPECT_EQ(p.nodes.size(), 1u) << name << ": " << n << " threads on nodes " << p.nodes.size();
      if (n <= shared) {
        EXPECT_LE(p.packages.size(), 1u) << name << ": " << n << " threads on packages " << p.packages.size();
      }
    }
  }
  EXPECT_GT(machines, 0) << "no capture in " << corpus << " could be read";
}

// Live: the shape is read, each usable core can be placed, and placement never uses a CPU twice.
TEST(Placement, ThisMachine) {
  const Topology& t = this_machine();
  ASSERT_TRUE(t.error.empty()) << t.error;
  ASSERT_FALSE(t.cores.empty());
  const ThreadPlacement p = place_threads(t, static_cast<int>(t.allowed_cores()));
  EXPECT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(std::set<int>(p.cpus.begin(), p.cpus.end()).size(), p.cpus.size());
  EXPECT_FALSE(t.shape().empty());
}
