// The benchmark registry (data/benchmarks.csv, or `rigcheck run --benchmarks FILE`):
// read_benchmark_registry, then what `rigcheck run` does with each entry before starting it
// (its needs expression against the machine's facts), so that a registry the reader accepted
// cannot stop a run half way.
#include <cmath>

#include "fuzz.hpp"
#include "rigcheck/runfolder/needs.hpp"
#include "rigcheck/run/runner.hpp"

using namespace rigcheck;
using namespace rigcheck::fuzz;

RIGCHECK_FUZZ_TARGET(benchmarks) {
  std::vector<BenchmarkEntry> entries;
  if (!accepted(data, size, "benchmarks.csv", entries, [](const std::string& p) { return read_benchmark_registry(p); }))
    return 0;
  const std::map<std::string, std::string> facts = {{"physical_cores", "2"}, {"gpu_count", "0"}};
  for (const BenchmarkEntry& e : entries) {
    check(std::isfinite(e.timeout_tiny_s) && std::isfinite(e.timeout_quick_s) && std::isfinite(e.timeout_full_s),
          "accepted a timeout that is not finite");
    evaluate_needs(e.needs, facts);
  }
  return 0;
}
