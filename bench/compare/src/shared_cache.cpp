// Cases that measure the neighbours of a virtual machine, not the machine: a working set between
// the private L2 and the L3 that the guest shares with other guests. See compare.hpp
// (mark_shared_cache) and docs/methodology.md ("Cases the gate leaves out").
#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "rigcheck/compare/compare.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/schema.hpp"

namespace rigcheck {

std::map<std::string, std::string> read_working_set_params(const std::string& path) {
  const std::string p = data_file(path, "working_sets.csv");
  std::map<std::string, std::string> out;
  for_each_csv_row<2>(p, io::ignore_extra_column, {"benchmark", "param"}, [&](long line, const auto& c) {
    if (c[0].empty() || c[1].empty()) throw InputError(p, line, "benchmark and param must not be empty");
    if (!out.emplace(c[0], c[1]).second) throw InputError(p, line, fmt::format("{} appears twice", c[0]));
  });
  return out;
}

namespace {
double fact_bytes(const LoadedRun& r, const char* key) {
  auto it = r.data.inventory.find(key);
  double v = 0;
  return it != r.data.inventory.end() && parse_double(it->second, v) && v > 0 ? v : 0;
}

std::string mib(double bytes) { return fmt::format("{:g} MiB", bytes / (1024.0 * 1024.0)); }
}  // namespace

int mark_shared_cache(std::vector<CaseFinding>& fs, const std::vector<const LoadedRun*>& runs,
                      const std::map<std::string, std::string>& working_set_param) {
  // The rule needs every run to be a guest (the inventory's virtualization names a hypervisor)
  // and to know its caches; L2: the smallest of the runs', L3: the largest.
  double l2 = 0, l3 = 0;
  std::string virt;
  for (const LoadedRun* r : runs) {
    auto it = r->data.inventory.find("virtualization");
    if (it == r->data.inventory.end() || it->second == "none" || is_unknown(it->second)) return 0;
    const double a = fact_bytes(*r, "cache_l2_bytes"), b = fact_bytes(*r, "cache_l3_bytes");
    if (!(a > 0) || !(b > a)) return 0;
    l2 = l2 > 0 ? std::min(l2, a) : a;
    l3 = std::max(l3, b);
    if (virt.empty()) virt = it->second;
  }
  if (runs.empty()) return 0;
  int marked = 0;
  for (CaseFinding& f : fs) {
    auto it = working_set_param.find(f.benchmark);
    // Only a judged level: a status change (stopped working) is not the neighbours' doing.
    if (it == working_set_param.end() || f.j.iv.method == Method::none ||
        !(f.flagged() || f.flag == "no_change" || f.flag == "unstable"))
      continue;
    double ws = 0;
    if (!parse_double(param_value(f.params, it->second), ws) || !(ws > l2) || ws > l3) continue;
    f.not_gated = fmt::format(
        "not gated: its working set ({}) lies between the private L2 ({}) and the L3 ({}) that this virtual "
        "machine ({}) shares with other guests, so its level follows their use of that cache, not a change here",
        mib(ws), mib(l2), mib(l3), virt);
    f.note += (f.note.empty() ? "" : "; ") + f.not_gated;
    ++marked;
  }
  return marked;
}

}  // namespace rigcheck
