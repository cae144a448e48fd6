// What the benchmarks of a binary register, and the default thread counts: registry.hpp.
#include "registry.hpp"
#include "rigcheck/harness/machine_topology.hpp"

#include <algorithm>
#include <stdexcept>

#include "rigcheck/harness/repetitions.hpp"

namespace rigcheck {
namespace detail {

std::vector<BenchmarkDef>& registry() {
  static std::vector<BenchmarkDef> defs;
  return defs;
}

std::vector<std::pair<std::string, DeriveRows>>& derivers() {
  static std::vector<std::pair<std::string, DeriveRows>> d;
  return d;
}

SharedOptions& shared_defaults() {
  static SharedOptions s;
  return s;
}

}  // namespace detail

using detail::derivers;
using detail::registry;
using detail::shared_defaults;

bool register_benchmark(BenchmarkDef def) {
  declare_writes({def.name.c_str()});
  registry().push_back(std::move(def));
  return true;
}

bool register_derived_rows(const std::string& benchmark, DeriveRows derive) {
  derivers().emplace_back(benchmark, std::move(derive));
  return true;
}

bool register_repetition_defaults(const std::array<int, 3>& reps, const std::array<double, 3>& min_time_s) {
  for (int p = 0; p < 3; ++p) {
    if (reps[p] < 1 || !(min_time_s[p] > 0))
      throw std::invalid_argument("repetition defaults: reps >= 1, min_time > 0");
    shared_defaults().reps[p] = reps[p];
    shared_defaults().min_time_s[p] = min_time_s[p];
  }
  return true;
}

std::vector<int64_t> default_threads(const CommonOptions& o) {
  if (!o.threads.empty()) return o.threads;
  int64_t n = std::max(1, std::min(o.physical_cores, o.usable_cores));
  std::vector<int64_t> counts = (o.profile != Profile::full && n > 4) || (o.profile == Profile::full && n > 8)
                                    ? parse_int_list("1-max*2,max", n)
                                    : parse_int_list("1-max", n);
  // The machine's own domains (one L3's cores, one NUMA node's, one socket's), and the SMT point:
  // every hardware thread this process may use, where that is more than its cores.
  for (int d : domain_core_counts(this_machine(), o.allowed_cpus))
    if (d <= n) counts.push_back(d);
  if (o.usable_threads > n) counts.push_back(o.usable_threads);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

}  // namespace rigcheck
