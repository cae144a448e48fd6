#include "rigcheck/runfolder/renames.hpp"

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"
#include "rigcheck/harness/paths.hpp"

namespace rigcheck {

Renames read_renames(const std::string& path) {
  Renames out;
  with_csv_errors(path, [&] {
    ::io::CSVReader<5, ::io::trim_chars<>, ::io::double_quote_escape<',', '"'>> in(path);
    in.read_header(::io::ignore_missing_column, "kind", "old", "new", "case_suffix", "why");
    for (const char* c : {"kind", "old", "new", "why"})
      if (!in.has_column(c))
        throw InputError(path, 1, fmt::format("no column '{}' (kind,old,new[,case_suffix],why)", c));
    std::string kind, from, to, suffix, why;
    std::map<std::string, std::string> made;  // "new file + suffix" -> the old file it came from
    while (in.read_row(kind, from, to, suffix, why)) {
      const long line = static_cast<long>(in.get_file_line());
      if (kind != "benchmark" && kind != "metric" && kind != "source")
        throw InputError(path, line, fmt::format("kind '{}' (expected benchmark, metric or source)", kind));
      if (from.empty() || to.empty() || (from == to && suffix.empty()))
        throw InputError(path, line, fmt::format("'{}' -> '{}' is not a rename", from, to));
      if (kind != "source" && !suffix.empty())
        throw InputError(path, line,
                         fmt::format("case_suffix '{}' on a {} rename (only a source gets one)", suffix, kind));
      if (kind == "source") {
        if (!out.source.emplace(from, SourceRename{to, suffix}).second)
          throw InputError(path, line, fmt::format("source {} is renamed twice", from));
        if (auto [it, fresh] = made.emplace(to + '\x1f' + suffix, from); !fresh)
          throw InputError(
              path, line,
              fmt::format("sources {} and {} both become {} with case suffix '{}': their cases would merge", it->second,
                          from, to, suffix));
        continue;
      }
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

std::pair<std::string, std::string> compared_as(const Renames& r, const ResultRow& row) {
  auto it = r.source.find(row.source);
  if (it == r.source.end()) return {row.source, row.case_name};
  return {it->second.to, row.case_name + it->second.case_suffix};
}

}  // namespace rigcheck
