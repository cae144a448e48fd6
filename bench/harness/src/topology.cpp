#include "rigcheck/harness/topology.hpp"

#include <algorithm>
#include <sched.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "rigcheck/harness/machine_topology.hpp"

namespace rigcheck {

static bool read_line(const std::string& path, std::string& out) {
  std::ifstream f(path);
  return static_cast<bool>(std::getline(f, out));
}

int hardware_thread_count() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) return static_cast<int>(n);
  unsigned h = std::thread::hardware_concurrency();
  return h ? static_cast<int>(h) : 1;
}

int physical_core_count() {
  const Topology& t = this_machine();
  return t.cores.empty() ? hardware_thread_count() : static_cast<int>(t.cores.size());
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  return buf;
}

std::string utc_timestamp_compact() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::vector<int> parse_cpu_list_text(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    while (!item.empty() && (item.back() == '\n' || item.back() == ' ')) item.pop_back();
    if (item.empty()) continue;
    size_t dash = item.find('-');
    try {
      size_t used = 0;
      int a = std::stoi(item.substr(0, dash), &used);
      if (used != (dash == std::string::npos ? item.size() : dash)) return {};
      int b = a;
      if (dash != std::string::npos) {
        std::string rest = item.substr(dash + 1);
        b = std::stoi(rest, &used);
        if (used != rest.size()) return {};
      }
      if (a < 0 || b < a || b - a > 65536) return {};
      for (int i = a; i <= b; ++i) out.push_back(i);
    } catch (const std::exception&) {
      return {};
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return s;
}

double parse_cpu_max(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || period <= 0 || quota == "max") return 0;
  try {
    double q = std::stod(quota);
    // Finite only: cpu_budget turns the quota into a core count ("inf 1" reached it; tests/fuzz).
    return q > 0 && std::isfinite(q / period) ? q / period : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

static void for_each_cgroup_dir(const std::string& proc_self_cgroup, const std::string& cgroup_root,
                                const std::string& controller,
                                const std::function<bool(const std::string& dir, bool v2)>& visit) {
  std::ifstream in(proc_self_cgroup);
  for (std::string l; std::getline(in, l);) {
    // "0::/path" (v2) or "N:cpu,cpuacct:/path" (v1)
    size_t a = l.find(':'), b = a == std::string::npos ? a : l.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string ctrls = l.substr(a + 1, b - a - 1), path = l.substr(b + 1);
    bool v2 = ctrls.empty();
    bool v1match = false;
    std::stringstream cs(ctrls);
    for (std::string c; std::getline(cs, c, ',');) v1match |= c == controller;
    if (!v2 && !v1match) continue;
    std::vector<std::string> mounts = v2 ? std::vector<std::string>{cgroup_root, cgroup_root + "/unified"}
                                         : std::vector<std::string>{cgroup_root + "/" + controller};
    if (!v2 && controller == "cpu") {
      mounts.push_back(cgroup_root + "/cpu,cpuacct");
      mounts.push_back(cgroup_root + "/cpuacct,cpu");
    }
    for (const std::string& m : mounts) {
      // Walk from the process's cgroup up to the mount's root; a namespaced path may not exist.
      for (std::string p = path;; p = p.substr(0, p.rfind('/'))) {
        if (!visit(m + (p == "/" ? "" : p), v2) || p.empty() || p == "/") break;
      }
    }
  }
}

CgroupQuota cgroup_cpu_quota(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  CgroupQuota best;
  std::string seen;
  for_each_cgroup_dir(proc_self_cgroup, cgroup_root, "cpu", [&](const std::string& dir, bool v2) {
    double cpus = 0;
    std::string text, q, per;
    if (v2 && read_line(dir + "/cpu.max", text)) {
      cpus = parse_cpu_max(text);
      text = fmt::format("cpu.max '{}' in {}", text, dir);
    } else if (!v2 && read_line(dir + "/cpu.cfs_quota_us", q) && read_line(dir + "/cpu.cfs_period_us", per)) {
      cpus = parse_cpu_max(q + " " + per);
      text = fmt::format("cpu.cfs_quota_us {} / cpu.cfs_period_us {} in {}", q, per, dir);
    } else {
      return true;
    }
    if (seen.empty()) seen = text;
    if (cpus > 0 && (best.cpus <= 0 || cpus < best.cpus)) {
      best.cpus = cpus;
      best.text = fmt::format("{:.2f} CPUs ({})", cpus, text);
    }
    return true;
  });
  if (best.cpus <= 0) best.text = seen.empty() ? "none (no cgroup CPU controller readable)" : "none (" + seen + ")";
  return best;
}

CgroupMemoryLimit cgroup_memory_limit(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  CgroupMemoryLimit best;
  std::string seen;
  for_each_cgroup_dir(proc_self_cgroup, cgroup_root, "memory", [&](const std::string& dir, bool v2) {
    std::string text;
    const std::string file = v2 ? "memory.max" : "memory.limit_in_bytes";
    if (!read_line(dir + "/" + file, text)) return true;
    if (seen.empty()) seen = fmt::format("{} '{}' in {}", file, text, dir);
    std::uint64_t bytes = 0;
    try {
      size_t used = 0;
      bytes = text == "max" ? 0 : std::stoull(text, &used);
      if (used != text.size()) bytes = 0;
    } catch (const std::exception&) {
      bytes = 0;
    }
    // cgroup v1 writes "no limit" as a huge page-rounded number (2^63 - 4096): no machine has it.
    if (bytes > 0 && bytes < (1ull << 60) && (best.bytes == 0 || bytes < best.bytes)) {
      best.bytes = bytes;
      best.text = fmt::format("cgroup {} in {}", file, dir);
      std::string now;
      best.used = read_line(dir + "/" + (v2 ? "memory.current" : "memory.usage_in_bytes"), now)
                      ? static_cast<std::uint64_t>(std::atoll(now.c_str()))
                      : 0;
    }
    return true;
  });
  if (const char* mb = std::getenv("SLURM_MEM_PER_NODE")) {
    const std::uint64_t b = static_cast<std::uint64_t>(std::atoll(mb)) << 20;
    if (b > 0 && (best.bytes == 0 || b < best.bytes)) {
      best.bytes = b;
      best.used = 0;
      best.text = fmt::format("Slurm SLURM_MEM_PER_NODE={} MB", mb);
    }
  }
  if (best.bytes == 0) best.text = seen.empty() ? "none (no cgroup memory controller readable)" : "none (" + seen + ")";
  return best;
}

std::string CpuBudget::explain() const {
  return fmt::format("affinity {} ({} CPU(s), {} physical core(s)), cgroup CPU quota {}", format_cpu_list(allowed_cpus),
                     allowed_cpus.size(), allowed_cores, quota.text);
}

CpuBudget cpu_budget(const std::vector<int>& allowed) {
  CpuBudget b;
  b.allowed_cpus = allowed;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (b.allowed_cpus.empty() && sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) b.allowed_cpus.push_back(i);
  }
  if (b.allowed_cpus.empty())
    for (int i = 0; i < hardware_thread_count(); ++i) b.allowed_cpus.push_back(i);
  std::sort(b.allowed_cpus.begin(), b.allowed_cpus.end());
  // Physical cores holding an allowed CPU, from the machine's one topology (machine_topology.hpp).
  const Topology& t = this_machine();
  b.allowed_cores = 0;
  for (const TopoCore& c : t.cores)
    if (std::any_of(c.pus.begin(), c.pus.end(),
                    [&](int cpu) { return std::binary_search(b.allowed_cpus.begin(), b.allowed_cpus.end(), cpu); }))
      ++b.allowed_cores;
  if (t.cores.empty()) b.allowed_cores = static_cast<int>(b.allowed_cpus.size());
  b.quota = cgroup_cpu_quota();
  b.usable_cores = b.allowed_cores;
  // Compared as doubles, cast only when smaller than an int it is compared with: a quota of more
  // CPUs than an int holds must not reach the cast.
  if (b.quota.cpus > 0 && std::floor(b.quota.cpus + 1e-9) < b.usable_cores)
    b.usable_cores = static_cast<int>(std::floor(b.quota.cpus + 1e-9));
  b.usable_cores = std::max(1, b.usable_cores);
  b.usable_threads = static_cast<int>(b.allowed_cpus.size());
  if (b.quota.cpus > 0 && std::floor(b.quota.cpus + 1e-9) < b.usable_threads)
    b.usable_threads = static_cast<int>(std::floor(b.quota.cpus + 1e-9));
  b.usable_threads = std::max(b.usable_cores, b.usable_threads);
  return b;
}

}  // namespace rigcheck
