// data/benchmarks.csv: what `rigcheck run` starts (name, area, binary, args, env, needs, the
// timeout of each profile, what it measures), and `rigcheck list`, which prints it.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/tool/needs.hpp"
#include "rigcheck/tool/runner.hpp"

namespace rigcheck {

std::vector<BenchmarkEntry> read_benchmark_registry(const std::string& path) {
  std::vector<BenchmarkEntry> out;
  with_csv_errors(path, [&] {
    io::CSVReader<10, io::trim_chars<>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_no_column, "name", "area", "binary", "args", "env", "needs", "timeout_tiny_s",
                   "timeout_quick_s", "timeout_full_s", "description");
    BenchmarkEntry e;
    std::string t0, t1, t2;
    while (in.read_row(e.name, e.area, e.binary, e.args, e.env, e.needs, t0, t1, t2, e.description)) {
      long line = static_cast<long>(in.get_file_line());
      if (!parse_double(t0, e.timeout_tiny_s) || !parse_double(t1, e.timeout_quick_s) ||
          !parse_double(t2, e.timeout_full_s))
        throw InputError(path, line, "timeouts must be numbers of seconds");
      if (std::string why = needs_syntax_error(e.needs); !why.empty()) throw InputError(path, line, "needs: " + why);
      for (const BenchmarkEntry& o : out)
        if (o.name == e.name) throw InputError(path, line, fmt::format("benchmark {} appears twice", e.name));
      out.push_back(e);
    }
  });
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
