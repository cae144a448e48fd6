// Inventory: the machine's shape (packages, dies, cores, hardware threads, NUMA nodes, every cache
// instance, CPU kinds) and what this process may use of it, all from the one topology
// (rigcheck/harness/machine_topology.hpp: hwloc, or sysfs in a build without it).
#include "internal.hpp"

#include "rigcheck/harness/machine_topology.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/topology.hpp"

namespace rigcheck::inventory_detail {

void add_topology(Collector& c, const Topology& t, const std::string& vendor) {
  c.add("topology_source", t.source);
  if (!t.error.empty() || t.cores.empty()) {
    const std::string why = unknown("no topology: " + (t.error.empty() ? std::string("no cores found") : t.error));
    for (const char* k :
         {"machine_shape", "sockets", "physical_cores", "hardware_threads", "threads_per_core", "numa_nodes"})
      c.add(k, why);
    return;
  }
  // A VM that hides its caches from sysfs leaves hwloc the CPU's cpuid, which can describe the host's
  // (508 MiB of L3 on a Zen 5 VM): the shape then leaves the L3 out and says where to look.
  std::string llc_bad;
  for (const TopoCache& k : t.caches)
    if (k.level == 3 && !k.instruction && llc_bad.empty()) {
      try {
        llc_bad = l3_implausible(k.bytes, vendor, read_cpu_cache_datasheets(data_path("cpu_caches.csv")));
      } catch (const std::exception&) {
      }
    }
  c.add("machine_shape",
        llc_bad.empty() ? t.shape() : t.shape(false) + ", L3 not reported plausibly (cache_l3_candidates)");
  c.add("sockets", std::to_string(t.packages));
  c.add("dies", t.dies > 0 ? std::to_string(t.dies) : "none reported");
  c.add("physical_cores", std::to_string(t.cores.size()));
  const int threads = t.hardware_threads();
  c.add("hardware_threads", std::to_string(threads));
  if (threads % static_cast<int>(t.cores.size()) == 0)
    c.add("threads_per_core", std::to_string(threads / static_cast<int>(t.cores.size())));
  else  // hybrid parts: some cores with SMT, some without
    c.add("threads_per_core", fmt::format("{:.2f}", double(threads) / double(t.cores.size())));
  if (t.kinds.size() > 1) {
    std::vector<std::string> kinds;
    for (const CpuKind& k : t.kinds)
      kinds.push_back(fmt::format("{} cores {} (efficiency {})", k.cores, k.name, k.efficiency));
    c.add("cpu_kinds", join(kinds, "; "));
  } else {
    c.add("cpu_kinds", "one kind");
  }
  c.add("numa_nodes", std::to_string(t.host_nodes()));
  c.add("numa_nodes_gpu_memory", std::to_string(t.nodes.size() - static_cast<size_t>(t.host_nodes())));
  c.add("memory_host_bytes", std::to_string(t.host_memory_bytes()));
  std::vector<std::string> nodes;
  for (const TopoNode& n : t.nodes)
    nodes.push_back(fmt::format("{}:{}:{}{}", n.os_index, n.local_bytes, n.cpus.empty() ? "-" : format_cpu_list(n.cpus),
                                n.subtype.empty() ? "" : ":" + n.subtype));
  c.add("numa_node_layout", nodes.empty() ? "none reported" : join(nodes, ";"));
  // Every core in hwloc's logical order as PACKAGE.NODE.LLC:CPUS (NODE the os_index of its NUMA node,
  // LLC the ordinal of its last-level cache, "-" where none): the report draws the machine from it.
  std::map<int, int> llc_ordinal;
  std::vector<std::string> cores;
  for (const TopoCore& k : t.cores) {
    if (k.l3 >= 0 && !llc_ordinal.count(k.l3)) llc_ordinal.emplace(k.l3, static_cast<int>(llc_ordinal.size()));
    std::vector<std::string> pus;
    for (int pu : k.pus) pus.push_back(std::to_string(pu));
    cores.push_back(fmt::format("{}.{}.{}:{}", k.package,
                                k.numa >= 0 ? std::to_string(t.nodes[static_cast<size_t>(k.numa)].os_index) : "-",
                                k.l3 >= 0 ? std::to_string(llc_ordinal[k.l3]) : "-", join(pus, ",")));
  }
  c.add("core_layout", join(cores, ";"));
  c.add("cache_llc_level", std::to_string(t.last_level()));
  for (int level : {1, 2, 3}) c.add(fmt::format("cache_l{}_layout", level), t.cache_layout(level));
  // What this process may use of it: its cgroup's cpuset (a container, a Slurm job).
  c.add("cpu_allowed", format_cpu_list(t.allowed_pus));
  c.add("allowed_sockets", std::to_string(t.allowed_packages()));
  c.add("allowed_cores", std::to_string(t.allowed_cores()));
  c.add("allowed_hardware_threads", std::to_string(t.allowed_pus.size()));
  int gpu_allowed = 0;
  for (const TopoNode& n : t.nodes) gpu_allowed += n.allowed && n.gpu_memory();
  c.add("allowed_numa_nodes", std::to_string(t.host_nodes(true)));
  c.add("allowed_numa_nodes_gpu_memory", std::to_string(gpu_allowed));
  c.add("allowed_memory_host_bytes", std::to_string(t.host_memory_bytes(true)));
  for (int level : {2, 3}) c.add(fmt::format("allowed_cache_l{}_layout", level), t.cache_layout(level, true));
}

void add_memory_limit(Collector& c, const std::string& root) {
  const CgroupMemoryLimit m = cgroup_memory_limit(root + "/proc/self/cgroup", root + "/sys/fs/cgroup");
  c.add("memory_limit", m.bytes > 0 ? fmt::format("{} ({})", m.bytes, m.text) : m.text);
  c.add("memory_limit_bytes", m.bytes > 0 ? std::to_string(m.bytes) : "none");
}

}  // namespace rigcheck::inventory_detail
