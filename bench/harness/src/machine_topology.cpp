#include "rigcheck/harness/machine_topology.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "rigcheck/harness/topology.hpp"

#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace rigcheck {

namespace {

bool contains(const std::vector<int>& cpus, int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); }

std::string bytes_short(std::uint64_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10) && b % (1ull << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

// Sets environment variables for the scope of a topology load and puts back what was there.
class EnvScope {
 public:
  void set(const char* name, const std::string& value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    setenv(name, value.c_str(), 1);
  }
  ~EnvScope() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second)
        setenv(it->first.c_str(), it->second->c_str(), 1);
      else
        unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Each core's local host NUMA node and last-level cache, from the CPUs of both.
void link_cores(Topology& t) {
  const int llc = t.last_level();
  for (TopoCore& c : t.cores) {
    if (c.pus.empty()) continue;
    const int cpu = c.pus.front();
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < t.nodes.size(); ++i)
      if (!t.nodes[i].gpu_memory() && contains(t.nodes[i].cpus, cpu) &&
          (best == SIZE_MAX || t.nodes[i].cpus.size() < t.nodes[best].cpus.size()))
        best = i;
    c.numa = best == SIZE_MAX ? -1 : static_cast<int>(best);
    for (size_t i = 0; i < t.caches.size(); ++i)
      if (t.caches[i].level == llc && !t.caches[i].instruction && contains(t.caches[i].cpus, cpu))
        c.l3 = static_cast<int>(i);
  }
}

#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
std::vector<int> cpus_of(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  if (!set) return out;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) out.push_back(i);
  return out;
}

// The NUMA nodes: their local memory, kind (subtype: GPU memory, CXL), CPUs and package, and whether
// this process may use them.
void read_nodes(hwloc_topology_t topo, Topology& t) {
  hwloc_const_nodeset_t allowed_nodes = hwloc_topology_get_allowed_nodeset(topo);
  for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n));) {
    TopoNode node;
    node.os_index = static_cast<int>(n->os_index);
    node.local_bytes = n->attr ? n->attr->numanode.local_memory : 0;
    node.subtype = n->subtype ? n->subtype : "";
    node.cpus = cpus_of(n->cpuset);
    node.allowed = hwloc_bitmap_isset(allowed_nodes, n->os_index);
    if (hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, n))
      node.package = static_cast<int>(p->logical_index);
    t.nodes.push_back(std::move(node));
  }
}

// Every cache instance with its size, CPUs and the NUMA nodes below it.
void read_caches(hwloc_topology_t topo, Topology& t) {
  for (hwloc_obj_type_t type : {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
                                HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE})
    for (hwloc_obj_t c = nullptr; (c = hwloc_get_next_obj_by_type(topo, type, c));) {
      TopoCache cache;
      cache.level = static_cast<int>(c->attr->cache.depth);
      cache.instruction = c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION;
      cache.bytes = c->attr->cache.size;
      cache.cpus = cpus_of(c->cpuset);
      for (hwloc_obj_t m = c->memory_first_child; m; m = m->next_sibling) {
        if (m->type == HWLOC_OBJ_NUMANODE) cache.nodes.push_back(static_cast<int>(m->os_index));
        if (m->type == HWLOC_OBJ_MEMCACHE)  // a memory-side cache between it and its node
          for (hwloc_obj_t n = m->memory_first_child; n; n = n->next_sibling)
            if (n->type == HWLOC_OBJ_NUMANODE) cache.nodes.push_back(static_cast<int>(n->os_index));
      }
      t.caches.push_back(std::move(cache));
    }
}

// The cores with their package, die and hardware threads (those this process may use marked).
void read_cores(hwloc_topology_t topo, Topology& t) {
  // A core per Core object; a machine that reports none (hwloc then has PUs only) has a core per PU.
  const hwloc_obj_type_t core_type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  for (hwloc_obj_t c = nullptr; (c = hwloc_get_next_obj_by_type(topo, core_type, c));) {
    TopoCore core;
    core.package = -1;
    if (hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, c))
      core.package = static_cast<int>(p->logical_index);
    if (hwloc_obj_t d = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_DIE, c))
      core.die = static_cast<int>(d->logical_index);
    for (hwloc_obj_t pu = nullptr;
         (pu = hwloc_get_next_obj_inside_cpuset_by_type(topo, c->cpuset, HWLOC_OBJ_PU, pu));) {
      core.pus.push_back(static_cast<int>(pu->os_index));
      if (contains(t.allowed_pus, static_cast<int>(pu->os_index)))
        core.allowed_pus.push_back(static_cast<int>(pu->os_index));
    }
    t.cores.push_back(std::move(core));
  }
}

// CPU kinds (hybrid parts): hwloc ranks them by efficiency, and names them where the OS says.
void read_kinds(hwloc_topology_t topo, Topology& t) {
  const int kinds = hwloc_cpukinds_get_nr(topo, 0);
  if (kinds > 1) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int k = 0; k < kinds; ++k) {
      int efficiency = -1;
      unsigned nr = 0;
      struct hwloc_info_s* infos = nullptr;
      if (hwloc_cpukinds_get_info(topo, static_cast<unsigned>(k), set, &efficiency, &nr, &infos, 0) != 0) continue;
      CpuKind kind;
      kind.efficiency = efficiency;
      for (unsigned i = 0; i < nr; ++i)
        if (std::string(infos[i].name) == "CoreType") kind.name = infos[i].value;
      if (kind.name.empty())
        for (unsigned i = 0; i < nr; ++i)
          if (std::string(infos[i].name) == "FrequencyMaxMHz") kind.name = fmt::format("{} MHz max", infos[i].value);
      if (kind.name.empty()) kind.name = fmt::format("kind {}", k);
      const std::vector<int> cpus = cpus_of(set);
      for (TopoCore& c : t.cores)
        if (!c.pus.empty() && contains(cpus, c.pus.front())) {
          c.kind = static_cast<int>(t.kinds.size());
          ++kind.cores;
        }
      t.kinds.push_back(std::move(kind));
    }
    hwloc_bitmap_free(set);
  }
}

Topology load_with_hwloc(const std::string& fsroot) {
  Topology t;
  const unsigned v = hwloc_get_api_version();
  t.source = fmt::format("hwloc (API {}.{}.{})", v >> 16, (v >> 8) & 0xff, v & 0xff);
  EnvScope env;
  if (!fsroot.empty()) {
    // As hwloc's own tests read a capture: its Linux backend only, so that nothing of this host (the
    // x86 cpuid backend, PCI) is mixed in.
    env.set("HWLOC_FSROOT", fsroot);
    env.set("HWLOC_COMPONENTS", "linux,stop");
    env.set("HWLOC_DUMPED_HWDATA_DIR", "/var/run/hwloc");
    t.source += " from the captured root " + fsroot;
  }
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) {
    t.error = "hwloc_topology_init failed";
    return t;
  }
  // The whole machine, with what this process may use marked (its cgroup cpuset, a Slurm job's).
  hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    t.error = "hwloc could not load the topology" + (fsroot.empty() ? std::string() : " from " + fsroot);
    return t;
  }
  t.packages = std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
  t.dies = std::max(0, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_DIE));
  t.allowed_pus = cpus_of(hwloc_topology_get_allowed_cpuset(topo));
  read_nodes(topo, t);
  read_caches(topo, t);
  read_cores(topo, t);
  read_kinds(topo, t);
  hwloc_topology_destroy(topo);
  link_cores(t);
  return t;
}
#endif

// Without hwloc (a build that has none): sysfs's per-CPU topology, nodes and caches, read under
// `root`. The same model, with fewer facts (no CPU kinds, no GPU-memory nodes told apart).
std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int read_number(const std::string& path, int fallback) {
  std::ifstream f(path);
  int v = fallback;
  return (f >> v) ? v : fallback;
}

Topology load_from_sysfs(const std::string& root) {
  Topology t;
  t.source = "sysfs (built without hwloc)" + (root.empty() ? std::string() : " from the captured root " + root);
  const std::string cpu_sys = root + "/sys/devices/system/cpu";
  std::vector<int> cpus = parse_cpu_list_text(read_text(cpu_sys + "/online"));
  if (cpus.empty()) {
    t.error = "no " + cpu_sys + "/online";
    return t;
  }
  std::map<std::tuple<int, int, int>, std::vector<int>> cores;
  std::set<int> packages;
  std::set<std::pair<int, int>> dies;
  for (int cpu : cpus) {
    const std::string d = cpu_sys + "/cpu" + std::to_string(cpu) + "/topology/";
    const int pkg = read_number(d + "physical_package_id", 0), die = read_number(d + "die_id", 0);
    cores[{std::max(pkg, 0), die, read_number(d + "core_id", cpu)}].push_back(cpu);
    packages.insert(std::max(pkg, 0));
    dies.insert({pkg, die});
    std::set<std::string> seen;
    for (int idx = 0; idx < 16; ++idx) {
      const std::string c = cpu_sys + "/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(idx) + "/";
      const std::string shared = read_text(c + "shared_cpu_list");
      if (shared.empty()) break;
      const std::vector<int> sharing = parse_cpu_list_text(shared);
      if (sharing.empty() || sharing.front() != cpu) continue;  // each instance once, from its first CPU
      TopoCache cache;
      cache.level = read_number(c + "level", 0);
      cache.instruction = read_text(c + "type").rfind("Instruction", 0) == 0;
      const std::string size = read_text(c + "size");
      cache.bytes = static_cast<std::uint64_t>(std::atoll(size.c_str()))
                    << (size.find('M') != std::string::npos ? 20 : 10);
      cache.cpus = sharing;
      t.caches.push_back(std::move(cache));
    }
  }
  t.packages = static_cast<int>(packages.size());
  t.dies = dies.size() > packages.size() ? static_cast<int>(dies.size()) : 0;
  for (auto& [key, pus] : cores) {
    TopoCore c;
    c.package = static_cast<int>(std::distance(packages.begin(), packages.find(std::max(std::get<0>(key), 0))));
    c.pus = pus;
    t.cores.push_back(std::move(c));
  }
  for (int n = 0; n < 4096; ++n) {
    const std::string d = root + "/sys/devices/system/node/node" + std::to_string(n);
    const std::string list = read_text(d + "/cpulist");
    if (list.empty() && read_text(d + "/meminfo").empty()) continue;
    TopoNode node;
    node.os_index = n;
    node.cpus = parse_cpu_list_text(list);
    std::istringstream mem(read_text(d + "/meminfo"));
    for (std::string line; std::getline(mem, line);)
      if (auto p = line.find("MemTotal:"); p != std::string::npos)
        node.local_bytes = static_cast<std::uint64_t>(std::atoll(line.c_str() + p + 9)) << 10;
    t.nodes.push_back(std::move(node));
  }
  if (root.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int i = 0; i < CPU_SETSIZE; ++i)
        if (CPU_ISSET(i, &set)) t.allowed_pus.push_back(i);
  }
  if (t.allowed_pus.empty()) t.allowed_pus = cpus;
  for (TopoCore& c : t.cores)
    for (int pu : c.pus)
      if (contains(t.allowed_pus, pu)) c.allowed_pus.push_back(pu);
  link_cores(t);
  return t;
}

}  // namespace

int Topology::hardware_threads() const {
  int n = 0;
  for (const TopoCore& c : cores) n += static_cast<int>(c.pus.size());
  return n;
}

int Topology::host_nodes(bool allowed_only) const {
  int n = 0;
  for (const TopoNode& node : nodes)
    if (!node.gpu_memory() && (!allowed_only || node.allowed)) ++n;
  return n;
}

std::uint64_t Topology::host_memory_bytes(bool allowed_only) const {
  std::uint64_t b = 0;
  for (const TopoNode& node : nodes)
    if (!node.gpu_memory() && (!allowed_only || node.allowed)) b += node.local_bytes;
  return b;
}

std::string Topology::cache_layout(int level, bool allowed_only) const {
  std::map<std::uint64_t, int> count;
  for (const TopoCache& c : caches) {
    if (c.level != level || c.instruction) continue;
    if (allowed_only &&
        std::none_of(c.cpus.begin(), c.cpus.end(), [&](int cpu) { return contains(allowed_pus, cpu); }) &&
        std::none_of(c.nodes.begin(), c.nodes.end(), [&](int os) {
          return std::any_of(nodes.begin(), nodes.end(),
                             [&](const TopoNode& n) { return n.os_index == os && n.allowed; });
        }))
      continue;
    ++count[c.bytes];
  }
  if (count.empty()) return "0x0";
  std::string s;
  for (const auto& [bytes, n] : count) s += fmt::format("{}{}x{}", s.empty() ? "" : ";", bytes, n);
  return s;
}

int Topology::last_level() const {
  int l = 0;
  for (const TopoCache& c : caches)
    if (!c.instruction) l = std::max(l, c.level);
  return l;
}

int Topology::allowed_cores() const {
  return static_cast<int>(
      std::count_if(cores.begin(), cores.end(), [](const TopoCore& c) { return !c.allowed_pus.empty(); }));
}

int Topology::allowed_packages() const {
  std::set<int> p;
  for (const TopoCore& c : cores)
    if (!c.allowed_pus.empty() && c.package >= 0) p.insert(c.package);
  for (const TopoNode& n : nodes)
    if (n.allowed && n.package >= 0) p.insert(n.package);
  return static_cast<int>(p.size());
}

std::string Topology::shape(bool with_llc) const {
  if (!error.empty() || cores.empty())
    return "unknown (" + (error.empty() ? std::string("no cores found") : error) + ")";
  const int per_package = static_cast<int>(cores.size()) / std::max(1, packages);
  const int threads = hardware_threads();
  std::string s = packages == 0
                      ? fmt::format("{} cores (no socket reported)", cores.size())
                      : fmt::format("{} socket{} x {} cores", packages, packages == 1 ? "" : "s", per_package);
  if (threads % static_cast<int>(cores.size()) == 0) {
    s += fmt::format(" x {} thread{}", threads / cores.size(), threads == static_cast<int>(cores.size()) ? "" : "s");
  } else {
    s += fmt::format(", {} hardware threads", threads);
  }
  if (kinds.size() > 1) {
    std::string k;
    for (const CpuKind& kind : kinds) k += fmt::format("{}{} {}", k.empty() ? "" : " + ", kind.cores, kind.name);
    s += " (" + k + ")";
  }
  const int host = host_nodes(), gpu = static_cast<int>(nodes.size()) - host;
  s += fmt::format(", {} NUMA node{}", host, host == 1 ? "" : "s");
  if (gpu > 0) s += fmt::format(" (+{} of GPU memory)", gpu);
  const int llc = with_llc ? last_level() : 0;
  if (llc > 0) {
    std::map<std::uint64_t, int> count;
    for (const TopoCache& c : caches)
      if (c.level == llc && !c.instruction) ++count[c.bytes];
    std::string l;
    for (const auto& [bytes, n] : count)
      l += fmt::format("{}{} L{} of {}", l.empty() ? "" : " + ", n, llc, bytes_short(bytes));
    s += ", " + l;
  }
  return s;
}

const char* to_string(Placement p) { return p == Placement::compact ? "compact" : "spread"; }

Topology load_topology(const std::string& fsroot) {
#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
  Topology t = load_with_hwloc(fsroot);
  if (t.error.empty() && !t.cores.empty()) return t;
#endif
  return load_from_sysfs(fsroot);
}

std::string hwloc_version_text() {
#if defined(RIGCHECK_HAVE_HWLOC) && RIGCHECK_HAVE_HWLOC
  const unsigned v = hwloc_get_api_version();
  return fmt::format("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
#else
  return "unknown: built without hwloc";
#endif
}

const Topology& this_machine() {
  static const Topology t = load_topology();
  return t;
}

}  // namespace rigcheck
