// Core counts from the machine's topology (machine_topology.hpp: hwloc), and the share of them that
// this process may use (affinity mask, cgroup CPU quota): containers and batch schedulers hand out
// CPU sets and quotas, and a sweep past them measures oversubscription, not scaling.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rigcheck {
int physical_core_count();    // the topology's cores (hwloc's Core objects; dies and sparse core ids counted right)
int hardware_thread_count();  // online CPUs
std::string host_name();
std::string utc_timestamp_compact();  // 20261202T114501Z

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}, sorted, each id once; empty on a malformed list.
std::vector<int> parse_cpu_list_text(const std::string& text);
// {0,1,2,3,8} -> "0-3,8"
std::string format_cpu_list(const std::vector<int>& cpus);

// cgroup CPU quota in CPUs (cpu.max of cgroup v2, cpu.cfs_quota_us / cpu.cfs_period_us of v1):
// the smallest quota on the path from this process's cgroup to the root; <= 0 when none.
struct CgroupQuota {
  double cpus = 0;
  std::string text;  // "none (cgroup v1 cpu.cfs_quota_us = -1)" or "1.50 CPUs (cpu.max: 150000 100000 in /sys/...)"
};
// Parses the two forms: "max 100000" / "150000 100000" (v2) and quota, period (v1). Returns cpus (<=0: none).
double parse_cpu_max(const std::string& cpu_max);
CgroupQuota cgroup_cpu_quota(const std::string& proc_self_cgroup = "/proc/self/cgroup",
                             const std::string& cgroup_root = "/sys/fs/cgroup");

// The smallest memory limit on the path from this process's cgroup to the root (memory.max of cgroup
// v2, memory.limit_in_bytes of v1), or a Slurm job's SLURM_MEM_PER_NODE where smaller.
struct CgroupMemoryLimit {
  std::uint64_t bytes = 0;  // 0: none
  std::string text;         // where it comes from, or "none (...)"
  std::uint64_t used = 0;   // what that cgroup uses now (memory.current, memory.usage_in_bytes); 0 unknown (Slurm's)
};
CgroupMemoryLimit cgroup_memory_limit(const std::string& proc_self_cgroup = "/proc/self/cgroup",
                                      const std::string& cgroup_root = "/sys/fs/cgroup");

// What this process may use.
struct CpuBudget {
  std::vector<int> allowed_cpus;  // sched_getaffinity
  int allowed_cores = 0;          // distinct physical cores among allowed_cpus
  CgroupQuota quota;
  int usable_cores = 1;         // min(allowed_cores, floor(quota)), at least 1
  int usable_threads = 1;       // min(allowed CPUs, floor(quota)), at least 1
  std::string explain() const;  // "affinity 0-1 (2 cores), cgroup quota none"
};
// `allowed`: the CPUs this process was given, when the caller knows them better than
// sched_getaffinity (an OpenMP runtime with OMP_PROC_BIND binds the initial thread to one place
// before main, so its own mask then shows one core: the harness passes the union of the OpenMP
// places instead). Empty: sched_getaffinity.
CpuBudget cpu_budget(const std::vector<int>& allowed = {});
}  // namespace rigcheck
