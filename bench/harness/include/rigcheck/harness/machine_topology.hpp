// The machine's shape, from hwloc (the library Open MPI and Slurm read it with): packages, dies,
// cores with their hardware threads in hwloc's logical order (which follows locality; the operating
// system's CPU numbers do not), NUMA nodes with their local memory (GPU-memory nodes apart from host
// memory), every cache instance with its size and CPUs, CPU kinds on hybrid parts, and what this
// process may use (the cpuset of its cgroup or job). The inventory, the harness's usable-core count
// and thread placement all read this one model. From the live machine or from a captured root
// (hwloc's HWLOC_FSROOT: a /sys and /proc tree saved by hwloc-gather-topology).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rigcheck {

struct TopoCore {
  int package = 0;               // logical index of its package, -1 where the machine reports none
  int die = -1;                  // logical index of its die, -1 when the machine reports none
  int numa = -1;                 // index into Topology::nodes of its (first) local NUMA node
  int l3 = -1;                   // index into Topology::caches of the last-level cache it shares
  int kind = -1;                 // index into Topology::kinds, -1 on a machine of one kind
  std::vector<int> pus;          // operating-system CPU numbers of its hardware threads, logical order
  std::vector<int> allowed_pus;  // those this process may run on
};

struct TopoNode {
  int os_index = 0;
  std::uint64_t local_bytes = 0;
  std::string subtype;    // "" for host memory; "GPUMemory" (GPU memory as a NUMA node), or hwloc's other subtypes
  std::vector<int> cpus;  // operating-system CPU numbers local to it; empty for a CPU-less node
  int package = -1;       // logical index of the package it hangs below, -1 when above them all
  bool allowed = true;
  bool gpu_memory() const { return subtype == "GPUMemory"; }
};

struct TopoCache {
  int level = 0;  // 1, 2, 3, 4
  bool instruction = false;
  std::uint64_t bytes = 0;
  std::vector<int> cpus;   // operating-system CPU numbers sharing it
  std::vector<int> nodes;  // os_index of the NUMA nodes attached to it (hwloc's memory children)
};

struct CpuKind {
  std::string name;     // hwloc's CoreType / FrequencyMaxMHz info, e.g. "IntelCore", "IntelAtom"
  int efficiency = -1;  // hwloc's efficiency rank (higher: more performant), -1 unknown
  int cores = 0;
};

struct Topology {
  std::string source;          // "hwloc 2.9.0", "hwloc 2.9.0 from the captured root DIR", "sysfs (built without hwloc)"
  std::string error;           // non-empty when nothing could be read
  int packages = 0, dies = 0;  // as hwloc reports them: 0 where the machine reports no package
  std::vector<TopoCore> cores;  // hwloc's logical order: a package's cores together, a die's, an L3's
  std::vector<TopoNode> nodes;
  std::vector<TopoCache> caches;
  std::vector<CpuKind> kinds;
  std::vector<int> allowed_pus;  // this process's allowed CPUs (cpuset); every CPU where none is set

  int hardware_threads() const;
  // Host NUMA nodes (not GPU memory), and their local memory in bytes; `allowed_only`: those allowed.
  int host_nodes(bool allowed_only = false) const;
  std::uint64_t host_memory_bytes(bool allowed_only = false) const;
  // Cache instances of one level (data and unified; not instruction), as "SIZExCOUNT;..." in bytes,
  // sizes ascending: "16777216x2", "8388608x1;16777216x1"; "0x0" when the machine has none of that
  // level. `allowed_only`: the instances holding an allowed CPU or an allowed NUMA node (as hwloc
  // keeps them in a restricted topology).
  std::string cache_layout(int level, bool allowed_only = false) const;
  // The highest cache level present (3 on most machines), 0 when none is known.
  int last_level() const;
  // Cores with at least one allowed hardware thread; packages holding one or an allowed NUMA node.
  int allowed_cores() const;
  int allowed_packages() const;
  // "2 sockets x 24 cores x 2 threads, 8 NUMA nodes, 16 L3 of 32 MiB"; without the caches when
  // `with_llc` is false (a VM whose cpuid reports the host's caches: the inventory says why).
  std::string shape(bool with_llc = true) const;
};

// Where a case's threads run (likwid-pin's thread domains, in hwloc's logical order):
//   compact  the first cores: one last-level cache domain filled, then its NUMA node, then its socket;
//   spread   round robin over the sockets, then over the NUMA nodes inside each.
// Up to the allowed cores, one hardware thread per core; more threads than that take the sibling
// hardware threads of the first cores (the SMT point), never two threads on one hardware thread.
enum class Placement { compact, spread };
const char* to_string(Placement p);
struct ThreadPlacement {
  std::vector<int> cpus;          // operating-system CPU numbers, thread i on cpus[i]
  std::vector<int> nodes;         // os_index of the host NUMA nodes of those CPUs
  std::vector<int> l3;            // ordinals of their last-level cache instances (0: the first in logical order)
  std::vector<int> packages;      // logical indexes of their packages
  std::vector<int> memory_nodes;  // os_index of the NUMA nodes its memory is bound to: `nodes`, or a case's own
  int cores = 0;                  // physical cores used
  bool smt = false;               // two or more threads on one core
  std::string error;              // non-empty: cannot place (more threads than allowed hardware threads)
};
// `allowed`: the CPUs this process may use (sorted; empty: the topology's allowed CPUs). A pure
// function of the topology: tested on captures of real machines.
ThreadPlacement place_threads(const Topology& t, int threads, Placement p = Placement::compact,
                              const std::vector<int>& allowed = {});
// The same on the cores of one host NUMA node (`node`: its os_index) with the memory bound to
// `memory_node` (-1: that node; another: remote memory), for the memory area's per-node figures. An
// error when the node has too few allowed hardware threads or either node is not a host node.
ThreadPlacement place_threads_on_node(const Topology& t, int threads, int node, int memory_node = -1,
                                      const std::vector<int>& allowed = {});
// The host NUMA nodes (os_index, ascending) holding an allowed CPU, and how many allowed cores each has.
std::vector<std::pair<int, int>> node_core_counts(const Topology& t, const std::vector<int>& allowed = {});

// The cores (allowed ones) of the first allowed core's last-level cache domain, NUMA node and package:
// the counts a thread sweep adds to its powers of two, so that compact placement's domains are points.
std::vector<int> domain_core_counts(const Topology& t, const std::vector<int>& allowed = {});

// The live machine (`fsroot` empty) or a captured root: a folder holding sys/ and proc/, as
// hwloc-gather-topology saves them. Never throws: Topology::error says what failed.
Topology load_topology(const std::string& fsroot = "");
// The linked hwloc's API version (hwloc_get_api_version: "2.8.0" for the 2.9 release), or why none.
std::string hwloc_version_text();
// The live machine's, loaded once per process.
const Topology& this_machine();

}  // namespace rigcheck
