#include "placement.hpp"

#include <dirent.h>
#include <omp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "rigcheck/harness/threads.hpp"
#include "rigcheck/harness/topology.hpp"

namespace rigcheck::detail {

namespace {

cpu_set_t mask_of(const std::vector<int>& cpus) {
  cpu_set_t m;
  CPU_ZERO(&m);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &m);
  return m;
}

// set_mempolicy(2) without libnuma: MPOL_BIND to the nodes given.
constexpr int kMpolDefault = 0, kMpolBind = 2;
long set_mempolicy_nodes(const std::vector<int>& nodes) {
  if (nodes.empty()) return syscall(SYS_set_mempolicy, kMpolDefault, nullptr, 0);
  std::vector<unsigned long> mask(16, 0);  // 1024 nodes
  const size_t bits = 8 * sizeof(unsigned long);
  for (int n : nodes)
    if (n >= 0 && static_cast<size_t>(n) < mask.size() * bits)
      mask[static_cast<size_t>(n) / bits] |= 1ul << (static_cast<size_t>(n) % bits);
  return syscall(SYS_set_mempolicy, kMpolBind, mask.data(), mask.size() * bits + 1);
}

}  // namespace

ThreadPlacement case_placement(int threads, Placement p, const std::vector<int>& allowed, int numa_node,
                               int memory_node) {
  if (numa_node >= 0) return place_threads_on_node(this_machine(), threads, numa_node, memory_node, allowed);
  return place_threads(this_machine(), threads, p, allowed);
}

namespace {
std::string confine(const std::vector<int>& cpus) {
  std::string problem;
  const cpu_set_t all = mask_of(cpus);
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      if (tid > 0 && sched_setaffinity(tid, sizeof all, &all) != 0 && errno != ESRCH)
        problem = fmt::format("sched_setaffinity of thread {}: {}", tid, std::strerror(errno));
    }
    closedir(d);
  }
  return problem;
}
// The last bind: the same CPUs and memory nodes again keep its pins and policy. Its parallel region
// wakes libgomp's workers, which then spin for a while (GOMP_SPINCOUNT); run before every repetition,
// they worked beside the timed kernel (a third working thread in rows of 2).
struct LastBind {
  std::vector<int> cpus, nodes;
  std::string problems;
};
LastBind& last_bind() {
  static LastBind b;
  return b;
}
}  // namespace

void confine_all_threads(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  confine(cpus);
  last_bind() = {};  // the workers' pins are undone: the next bind pins them again
}

std::string bind_case(const ThreadPlacement& where) {
  if (!where.error.empty() || where.cpus.empty()) return where.error;
  LastBind& last = last_bind();
  if (where.cpus == last.cpus && where.memory_nodes == last.nodes) return last.problems;
  // Every thread of the process (a library's pool that binds nothing, OpenBLAS's) confined to the
  // case's CPUs; threads started later inherit the mask of the thread that starts them.
  std::string problems = confine(where.cpus);
  // The OpenMP team of the case's size, each worker on its own CPU (worker i on CPU i): libgomp keeps
  // the same pool thread in each team slot from one parallel region to the next, so later regions of
  // that size (oneDNN's, LibTorch's, the suite's kernels') run where this one pinned them. The
  // calling thread keeps the case's whole set: threads a kernel starts itself inherit its mask (the
  // loaded latency's streamers), and with its workers pinned it is left CPU 0 of the case's set.
  const int n = static_cast<int>(where.cpus.size());
  int pinned = 1;
#pragma omp parallel num_threads(n) reduction(+ : pinned)
  {
    const int i = omp_get_thread_num();
    if (i > 0) {
      const cpu_set_t one = mask_of({where.cpus[static_cast<size_t>(i)]});
      pinned += sched_setaffinity(0, sizeof one, &one) == 0 ? 1 : 0;
    }
  }
  if (pinned != n) problems += fmt::format("{}{} of {} OpenMP threads pinned", problems.empty() ? "" : "; ", pinned, n);
  // Memory of the case's NUMA nodes, where the machine has more than one: the kernel's buffers are
  // allocated and first touched after this.
  if (this_machine().host_nodes() > 1 && set_mempolicy_nodes(where.memory_nodes) != 0)
    problems += fmt::format("{}set_mempolicy: {}", problems.empty() ? "" : "; ", std::strerror(errno));
  last = {where.cpus, where.memory_nodes, problems};
  // The workers the region woke spin down before the case is timed.
  wait_for_other_threads_idle(0);
  return problems;
}

std::vector<std::pair<std::string, std::string>> placement_params(const ThreadPlacement& where, Placement p) {
  std::vector<int> sorted = where.cpus;
  std::sort(sorted.begin(), sorted.end());
  auto list = [](const std::vector<int>& v) {
    std::string s;
    for (int n : v) s += (s.empty() ? "" : ",") + std::to_string(n);
    return s.empty() ? std::string("unknown") : s;
  };
  const std::string nodes = list(where.nodes), l3 = list(where.l3);
  return {{"cpus", format_cpu_list(sorted)},
          {"numa_nodes", nodes},
          {"memory_nodes", this_machine().host_nodes() > 1 ? list(where.memory_nodes) : "any"},
          {"l3_domains", l3},
          {"sockets", list(where.packages)},
          {"placement", std::string(to_string(p)) + (where.smt ? "+smt" : "")}};
}

}  // namespace rigcheck::detail
