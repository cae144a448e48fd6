// Machine inventory: the facts that every result row points to (docs/architecture.md, convention 5).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rigcheck {

// One fact: key and value. Keys are lower_snake_case and stable (the report reads them).
// Unknown facts are not dropped: their value starts with "unknown:" and says why.
using InventoryEntry = std::pair<std::string, std::string>;
using Inventory = std::vector<InventoryEntry>;

// Collects the inventory of this machine. Never throws and never fails on missing
// hardware or libraries: absent things are reported as such.
Inventory collect_inventory();

// The machine a captured root describes (a folder with sys/ and proc/, as hwloc-gather-topology
// saves them): its identity from the captured /proc/cpuinfo, its shape through hwloc's HWLOC_FSROOT,
// the memory limit of the captured process's cgroup. Facts only a live process can know are not
// collected, and `live_facts` says so.
Inventory collect_captured_inventory(const std::string& root);

// Only the cache facts (cache_*), cheap enough for a benchmark to size its sweep with.
Inventory collect_cache_inventory();

// Looks a key up; returns fallback when absent.
std::string inventory_get(const Inventory& inv, const std::string& key, const std::string& fallback = "");

// Cache sizes by CPU family and model, and the largest L3 instance each vendor makes
// (data/cpu_caches.csv): the last source of a nominal L3 when sysfs, hwloc and cpuinfo are
// silent or implausible, as in VMs that hide the host's cache layout. family -1 = any part.
struct CpuCacheDatasheet {
  std::string vendor, parts, source;
  int family = -1, model_first = -1, model_last = -1;
  std::uint64_t l3_instance_bytes = 0, l3_instance_max_bytes = 0;
};
// Throws InputError naming file and line.
std::vector<CpuCacheDatasheet> read_cpu_cache_datasheets(const std::string& path);
// Why an L3 of `bytes` in one instance cannot be real for this vendor ("" when plausible).
std::string l3_implausible(std::uint64_t bytes, const std::string& vendor, const std::vector<CpuCacheDatasheet>& ds);
// The datasheet row of this CPU, or nullptr.
const CpuCacheDatasheet* cpu_cache_datasheet(const std::string& vendor, int family, int model,
                                             const std::vector<CpuCacheDatasheet>& ds);

// Arm CPUs by MIDR implementer and part number (data/arm_cpus.csv, sourced): implementer and part
// as the kernel writes them in /proc/cpuinfo ("0x41", "0xd4f"), compared case-insensitively.
struct ArmCpu {
  std::string implementer, part, name, source;
};
// Throws InputError naming file and line.
std::vector<ArmCpu> read_arm_cpus(const std::string& path);
// The row of this implementer and part, or nullptr.
const ArmCpu* arm_cpu(const std::string& implementer, const std::string& part, const std::vector<ArmCpu>& table);

// Writes inventory.csv (header "key,value") through a temporary file and rename.
void write_inventory_csv(const Inventory& inv, const std::string& path);
// What write_inventory_csv writes: key,value and a line per entry.
std::string format_inventory_csv(const Inventory& inv);

}  // namespace rigcheck
