#include "rigcheck/tool/renames.hpp"

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/paths.hpp"

namespace rigcheck {

Renames read_renames(const std::string& path) {
  Renames out;
  with_csv_errors(path, [&] {
    ::io::CSVReader<4, ::io::trim_chars<>, ::io::double_quote_escape<',', '"'>> in(path);
    in.read_header(::io::ignore_no_column, "kind", "old", "new", "why");
    std::string kind, from, to, why;
    while (in.read_row(kind, from, to, why)) {
      const long line = static_cast<long>(in.get_file_line());
      if (kind != "benchmark" && kind != "metric")
        throw InputError(path, line, fmt::format("kind '{}' (expected benchmark or metric)", kind));
      if (from.empty() || to.empty() || from == to)
        throw InputError(path, line, fmt::format("'{}' -> '{}' is not a rename", from, to));
      auto& m = kind == "benchmark" ? out.benchmark : out.metric;
      if (!m.emplace(from, to).second) throw InputError(path, line, fmt::format("{} {} is renamed twice", kind, from));
    }
  });
  return out;
}

const Renames& suite_renames() {
  static const Renames r = read_renames(data_path("renames.csv"));
  return r;
}

size_t apply_renames(const Renames& r, std::vector<ResultRow>& rows) {
  size_t n = 0;
  for (ResultRow& row : rows) {
    bool renamed = false;
    if (auto it = r.benchmark.find(row.benchmark); it != r.benchmark.end()) {
      row.benchmark = it->second;
      renamed = true;
    }
    if (auto it = r.metric.find(row.metric); it != r.metric.end()) {
      row.metric = it->second;
      renamed = true;
    }
    n += renamed;
  }
  return n;
}

}  // namespace rigcheck
