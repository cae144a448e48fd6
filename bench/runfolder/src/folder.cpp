// The run folder's own files (run_folder.hpp): the manifest, concurrent_runs.csv, and a fresh folder
// for a run. Read with fast-cpp-csv-parser, strictly.
#include "rigcheck/runfolder/run_folder.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/fccp.hpp"

namespace rigcheck {

std::string create_run_dir(const std::string& root, const std::string& host, const std::string& stamp) {
  // mkdir -p root
  std::string acc;
  for (size_t i = 0; i <= root.size(); ++i) {
    if (i == root.size() || root[i] == '/') {
      if (!acc.empty()) ::mkdir(acc.c_str(), 0755);
    }
    if (i < root.size()) acc += root[i];
  }
  for (int n = 1; n < 1000; ++n) {
    std::string dir = fmt::format("{}/{}-{}{}", root, host, stamp, n == 1 ? "" : fmt::format("-{}", n));
    if (::mkdir(dir.c_str(), 0755) == 0) return dir;  // atomic: an existing folder is never reused
    if (errno != EEXIST) throw std::runtime_error(fmt::format("{}: cannot create: {}", dir, std::strerror(errno)));
  }
  throw std::runtime_error(fmt::format("{}: too many runs with the same timestamp", root));
}

std::string format_manifest(const std::vector<ManifestRow>& rows) {
  return format_csv(kManifestHeader, rows, [](const ManifestRow& r) -> std::vector<std::string> {
    return {one_line(r.benchmark),
            one_line(r.area),
            one_line(r.command),
            std::to_string(r.exit_code),
            one_line(r.status),
            fmt::format("{:.3f}", r.duration_s),
            one_line(r.output),
            one_line(r.reason),
            r.rows >= 0 ? std::to_string(r.rows) : "",
            r.sha256};
  });
}

std::vector<ManifestRow> read_manifest(const std::string& path, const std::string* text) {
  std::vector<ManifestRow> out;
  with_csv_errors(path, [&] {
    // rows and sha256 are the checksums: a manifest written before the suite kept them has neither.
    std::optional<CsvReader<10>> slot;
    CsvReader<10>& in = open_csv(slot, path, text);
    in.read_header(io::ignore_missing_column, "benchmark", "area", "command", "exit_code", "status", "duration_s",
                   "output", "reason", "rows", "sha256");
    for (const char* col : {"benchmark", "area", "command", "exit_code", "status", "duration_s", "output", "reason"})
      if (!in.has_column(col)) throw InputError(path, 1, fmt::format("missing column \"{}\" in the header", col));
    if (in.has_column("rows") != in.has_column("sha256"))
      throw InputError(path, 1, "rows and sha256 come together: the header has one without the other");
    ManifestRow r;
    std::string code, dur, rows, sha;
    while (true) {
      rows.clear();
      sha.clear();
      if (!in.read_row(r.benchmark, r.area, r.command, code, r.status, dur, r.output, r.reason, rows, sha)) break;
      long line = static_cast<long>(in.get_file_line());
      double v;
      // An integer that fits an int: casting any other double to int is undefined (found by tests/fuzz).
      if (!parse_double(code, v) || v != std::floor(v) || v < INT_MIN || v > INT_MAX)
        throw InputError(path, line, fmt::format("exit_code '{}' is not an integer exit status", code));
      r.exit_code = static_cast<int>(v);
      if (!parse_double(dur, r.duration_s))
        throw InputError(path, line, fmt::format("duration_s '{}' is not a number", dur));
      r.rows = -1;
      if (!rows.empty()) {
        if (rows.size() > 15 || rows.find_first_not_of("0123456789") != std::string::npos)
          throw InputError(path, line, fmt::format("rows '{}' is not a count of rows", rows));
        r.rows = std::stol(rows);
      }
      if (!sha.empty() && (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos))
        throw InputError(path, line, fmt::format("sha256 '{}' is not 64 lowercase hex digits", sha));
      r.sha256 = sha;
      if ((r.rows >= 0) != !r.sha256.empty())
        throw InputError(path, line, "rows and sha256 come together: one is empty and the other is not");
      if (!r.sha256.empty() && r.output.empty()) throw InputError(path, line, "a checksum without an output file");
      out.push_back(r);
    }
  });
  return out;
}

std::string format_concurrent_runs(const std::vector<ConcurrentRun>& rows) {
  return format_csv(kConcurrentRunsHeader, rows, [](const ConcurrentRun& r) -> std::vector<std::string> {
    return {std::to_string(r.pid), r.run_dir, r.first_seen, r.last_seen};
  });
}

std::vector<ConcurrentRun> read_concurrent_runs(const std::string& path, const std::string* text) {
  std::vector<ConcurrentRun> out;
  for_each_csv_row<4>(
      path, io::ignore_no_column, {"pid", "run_dir", "first_seen_during", "last_seen_during"},
      [&](long line, const std::array<std::string, 4>& f) {
        double v;
        if (!parse_double(f[0], v) || v != std::floor(v) || v < 1 || v > INT_MAX)
          throw InputError(path, line, fmt::format("pid '{}' is not a process id", f[0]));
        out.push_back({static_cast<int>(v), f[1], f[2], f[3]});
      },
      "", 4, text);
  return out;
}

}  // namespace rigcheck
