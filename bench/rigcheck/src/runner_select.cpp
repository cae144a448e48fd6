// Which benchmarks a run takes and the manifest it starts from (runner_internal.hpp).
#include <algorithm>
#include <cstdio>
#include <set>

#include "rigcheck/harness/paths.hpp"
#include "runner_internal.hpp"

namespace rigcheck::run_detail {

// The registry's entries that --only and --select keep, in the registry's order; 2 (a usage error,
// said on stderr) for an unknown area or benchmark or a selection that leaves nothing.
int select_benchmarks(const RunOptions& opt, std::vector<BenchmarkEntry>* todo) {
  const std::string data = data_dir();
  std::vector<BenchmarkEntry> all =
      read_benchmark_registry(opt.registry_path.empty() ? data + "/benchmarks.csv" : opt.registry_path);
  std::set<std::string> areas;
  for (const auto& b : all) areas.insert(b.area);
  for (const std::string& a : opt.only)
    if (!areas.count(a)) {
      std::string known;
      for (const auto& x : areas) known += (known.empty() ? "" : ", ") + x;
      std::fprintf(stderr, "rigcheck run: unknown area '%s' (known: %s)\n", a.c_str(), known.c_str());
      return 2;
    }
  for (const std::string& n : opt.select)
    if (std::none_of(all.begin(), all.end(), [&](const BenchmarkEntry& b) { return b.name == n; })) {
      std::fprintf(stderr, "rigcheck run: unknown benchmark '%s' (--select takes names of data/benchmarks.csv)\n",
                   n.c_str());
      return 2;
    }
  for (const auto& b : all)
    if ((opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), b.area) != opt.only.end()) &&
        (opt.select.empty() || std::find(opt.select.begin(), opt.select.end(), b.name) != opt.select.end()))
      todo->push_back(b);
  if (todo->empty()) {
    std::fprintf(stderr, "rigcheck run: --only and --select leave no benchmark to run\n");
    return 2;
  }
  return 0;
}

std::vector<ManifestRow> pending_manifest(const std::vector<BenchmarkEntry>& todo) {
  std::vector<ManifestRow> manifest;
  for (const BenchmarkEntry& b : todo) {
    ManifestRow m;
    m.benchmark = b.name;
    m.area = b.area;
    m.status = "pending";
    m.reason = "not started yet";
    manifest.push_back(m);
  }
  return manifest;
}

}  // namespace rigcheck::run_detail
