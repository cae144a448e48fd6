// Machine inventory: the facts that every result row points to (docs/architecture.md, convention 5).
// Each section is guarded on its own, so one failure does not stop the rest; the sections live
// in the subject files beside this one.
#include "internal.hpp"

namespace rigcheck {

using namespace inventory_detail;

Inventory collect_inventory() {
  try {
    Collector c;
    add_provenance(c);
    CpuId cpu;
    c.section("cpuinfo", [&] { cpu = read_cpuinfo(); });
    c.section("cpu", [&] { add_cpu_identity(c, cpu); });
    c.section("topology", [&] {
      add_topology(c, this_machine(), cpu.vendor);
      c.add("hwloc_api_version", hwloc_version_text());
    });
    c.section("affinity", [&] { add_affinity(c); });
    c.section("caches", [&] { add_caches(c, cpu); });
    c.section("resctrl", [&] { add_resctrl(c); });
    c.section("isa", [&] { add_isa(c, cpu); });
    c.section("arch", [&] { add_arch(c, cpu); });
    c.section("clock", [&] { add_clock(c); });
    c.section("memory", [&] { add_memory(c); });
    c.section("thp", [&] { add_thp(c); });
    c.section("platform", [&] { add_platform(c, cpu); });
    c.section("os", [&] { add_os(c); });
    c.section("build", [&] { add_build(c); });
    c.section("libraries", [&] { add_libraries(c); });
    c.section("tools", [&] { add_tools(c); });
    c.section("gpu", [&] { add_cuda_devices(c); });
    add_cuda_libraries(c);
    c.section("env", [&] { add_environment(c); });
    c.section("slurm", [&] { add_slurm(c); });
    return c.take();
  } catch (...) {
    return {};  // only reachable when memory runs out
  }
}

Inventory collect_captured_inventory(const std::string& root) {
  try {
    Collector c;
    c.add("sysroot", root);
    c.add("live_facts",
          "not collected: cpuid, clocks, the auxiliary vector, libraries, the build and the GPUs are "
          "known only to a process on the machine itself; this inventory describes the captured root, "
          "not the host that read it");
    CpuId cpu;
    c.section("cpuinfo", [&] { cpu = read_cpuinfo(root); });
    c.section("cpu", [&] { add_cpu_identity(c, cpu); });
    c.section("topology", [&] { add_topology(c, load_topology(root), cpu.vendor); });
    c.section("memory", [&] { add_memory_limit(c, root); });
    // The hwloc that read the capture (its release, as the build found it; its API version).
    c.add("hwloc_version", hwloc_release());
    c.add("hwloc_api_version", hwloc_version_text());
    return c.take();
  } catch (...) {
    return {};
  }
}

Inventory collect_cache_inventory() {
  try {
    Collector c;
    CpuId cpu;
    c.section("cpuinfo", [&] { cpu = read_cpuinfo(); });
    c.section("caches", [&] { add_caches(c, cpu); });
    return c.take();
  } catch (...) {
    return {};
  }
}

std::string inventory_get(const Inventory& inv, const std::string& key, const std::string& fallback) {
  for (const auto& [k, v] : inv)
    if (k == key) return v;
  return fallback;
}

std::string format_inventory_csv(const Inventory& inv) {
  return format_csv("key,value", inv, [](const InventoryEntry& e) -> std::vector<std::string> {
    return {e.first, e.second};
  });
}

void write_inventory_csv(const Inventory& inv, const std::string& path) {
  write_file_atomic(path, format_inventory_csv(inv));
}

}  // namespace rigcheck
