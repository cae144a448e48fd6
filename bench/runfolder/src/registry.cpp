// data/benchmarks.csv: what `rigcheck run` starts (name, area, binary, args, env, needs, the
// timeout of each profile, what it measures, its reference time and whether it keeps a time budget), and `rigcheck
// list`, which prints it.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/runfolder/needs.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

std::vector<BenchmarkEntry> read_benchmark_registry(const std::string& path) {
  std::vector<BenchmarkEntry> out;
  for_each_csv_row<13>(
      path, io::ignore_no_column,
      {"name", "area", "binary", "args", "env", "needs", "timeout_tiny_s", "timeout_quick_s", "timeout_full_s",
       "description", "quick_ref_s", "takes_budget", "full_ref_s"},
      [&](long line, const std::array<std::string, 13>& f) {
        BenchmarkEntry e{f[0], f[1], f[2], f[3], f[4], f[5], 0, 0, 0, f[9]};
        if (!parse_double(f[6], e.timeout_tiny_s) || !parse_double(f[7], e.timeout_quick_s) ||
            !parse_double(f[8], e.timeout_full_s))
          throw InputError(path, line, "timeouts must be numbers of seconds");
        // A reference time: seconds >= 0, or empty (unknown: 0).
        auto ref_seconds = [&](const std::string& v, const char* column, double& out) {
          if (!v.empty() && !(parse_double(v, out) && out >= 0))
            throw InputError(path, line, fmt::format("{} must be a number of seconds >= 0 (or empty)", column));
        };
        ref_seconds(f[10], "quick_ref_s", e.quick_ref_s);
        ref_seconds(f[12], "full_ref_s", e.full_ref_s);
        if (f[11] != "" && f[11] != "yes")
          throw InputError(path, line, "takes_budget must be yes or empty, not '" + f[11] + "'");
        e.takes_budget = f[11] == "yes";
        if (std::string why = needs_syntax_error(e.needs); !why.empty()) throw InputError(path, line, "needs: " + why);
        for (const BenchmarkEntry& o : out)
          if (o.name == e.name) throw InputError(path, line, fmt::format("benchmark {} appears twice", e.name));
        out.push_back(e);
      },
      "", 10);  // quick_ref_s, takes_budget and full_ref_s came later: a registry without them keeps no budget
  return out;
}

std::string format_benchmark_list(const std::vector<BenchmarkEntry>& entries) {
  auto t = [](double s) { return s > 0 ? fmt::format("{:.0f}", s) : std::string("-"); };
  size_t w = 4;
  for (const BenchmarkEntry& b : entries) w = std::max(w, b.name.size());
  std::string out = fmt::format("{:<{}}  {:<6}  {:>5} {:>5} {:>5}  {}\n", "name", w, "area", "tiny", "quick", "full",
                                "what it measures (timeouts in s; -: not in that profile)");
  for (const BenchmarkEntry& b : entries)
    out += fmt::format("{:<{}}  {:<6}  {:>5} {:>5} {:>5}  {}\n", b.name, w, b.area, t(b.timeout_tiny_s),
                       t(b.timeout_quick_s), t(b.timeout_full_s), b.description);
  return out;
}

}  // namespace rigcheck
