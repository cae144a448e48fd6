// Text the kernel writes that the suite parses: CPU lists ("0-3,8", sysfs and /proc/self/status),
// RAPL energy counters (/sys/class/powercap/.../energy_uj, the first line again),
// cgroup cpu.max ("150000 100000"), /proc/net/dev (bytes sent, for the MPI all-reduce over TCP).
// The input's first line is a CPU list, its second a cpu.max line, the whole of it a
// /proc/net/dev. None of them refuses by throwing: a malformed text gives an empty list, 0 or -1.
// Checks: a list read and written again (format_cpu_list) reads back the same; a quota is a
// finite number of CPUs (cpu_budget turns it into a core count).
#include <cmath>
#include <stdexcept>

#include "comm_common.hpp"
#include "fuzz.hpp"
#include "power.hpp"
#include "rigcheck/harness/topology.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(kernel_text) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t nl = text.find('\n');
  const std::string first = text.substr(0, nl);
  const std::string second = nl == std::string::npos ? "" : text.substr(nl + 1, text.find('\n', nl + 1) - nl - 1);

  const std::vector<int> cpus = parse_cpu_list_text(first);
  bool ascending = true;
  for (size_t i = 1; i < cpus.size(); ++i) ascending = ascending && cpus[i] > cpus[i - 1];
  if (ascending)
    check(parse_cpu_list_text(format_cpu_list(cpus)) == cpus,
          "a CPU list reads back differently after format_cpu_list");

  // A powercap energy_uj counter ("123456\n"): the only refusal is std::invalid_argument, which the
  // GPU power sampler catches (it then reads the counter as unreadable).
  refused_only_with<std::invalid_argument>([&] { gpu::parse_rapl_uj(first); });

  const double q = parse_cpu_max(second);
  check(std::isfinite(q) && q >= 0, "cpu.max '" + second + "' gives a quota that is not a finite number >= 0");

  comm::net_tx_bytes_total(write_input(data, size, "net_dev"));
  return 0;
}
