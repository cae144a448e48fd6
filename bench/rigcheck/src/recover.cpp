// What a killed runner left: a .partial salvaged up to its last full line, a manifest still saying
// running or pending finished by `rigcheck report` (recover_and_report) once the runner is gone.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/run/runner.hpp"
#include "rigcheck/runfolder/runlock.hpp"
#include "runner_internal.hpp"

namespace rigcheck {

using namespace run_detail;

long salvage_partial(const std::string& csv_path) {
  // In place: the .partial is cut at its last full line and linked to the final name, so that a
  // full disk, which could not take a copy, still gets its rows kept. An existing <stem>.csv is
  // never replaced.
  const std::string partial = csv_path + ".partial";
  if (!is_file(partial) || is_file(csv_path)) return -1;
  std::ifstream in(partial, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  size_t last = s.rfind('\n');
  if (last == std::string::npos) return -1;
  const long rows = static_cast<long>(std::count(s.begin(), s.begin() + static_cast<long>(last) + 1, '\n')) - 1;
  if (rows <= 0) {  // a header and nothing measured: nothing to keep
    ::unlink(partial.c_str());
    return -1;
  }
  if (last + 1 < s.size() && ::truncate(partial.c_str(), static_cast<off_t>(last + 1)) != 0) return -1;
  if (::link(partial.c_str(), csv_path.c_str()) != 0) return -1;
  ::unlink(partial.c_str());
  return rows;
}

std::string recover_dead_run(const std::string& dir) {
  const std::string path = dir + "/manifest.csv";
  if (!is_file(path)) return "";
  std::vector<ManifestRow> rows = read_manifest(path);
  bool open = false;
  for (const ManifestRow& m : rows) open = open || m.status == "running" || m.status == "pending";
  if (!open) return "";
  if (runner_state(dir) == RunnerState::alive)
    return "the run is still in progress (its runner holds .runner.lock): benchmarks marked running or pending have "
           "not finished yet";
  std::string said;
  for (ManifestRow& m : rows) {
    if (m.status == "running") {
      const std::string csv = dir + "/" + m.benchmark + ".csv";
      long kept = salvage_partial(csv);
      m.status = "interrupted";
      m.exit_code = 137;
      m.reason = fmt::format(
          "the runner died while this benchmark ran (SIGKILL, a crash or a power cut; "
          "found by rigcheck report){}",
          kept >= 0      ? fmt::format("; cut short: kept the {} rows it had written", kept)
          : is_file(csv) ? ""
                         : "; it had written no complete row");
      m.output = is_file(csv) ? m.benchmark + ".csv" : "";
      record_checksum(dir, m);
      // Its scratch entries are named, not removed: found later, a pid-named entry may be another
      // process's by now (the runner itself removes them when it sees the benchmark end).
      ScratchCleanup sc = remove_registered_scratch(dir + "/logs/" + m.benchmark + ".scratch",
                                                    scratch_roots_of(command_words(m.command)), false);
      if (!sc.kept.empty())
        m.reason +=
            "; scratch entries it registered are still there (not removed: remove them by hand): " + join(sc.kept);
      said = fmt::format("{} was cut short by the runner's death", m.benchmark);
    } else if (m.status == "pending") {
      m.status = "not_run";
      m.reason = "the runner died before this benchmark";
      m.output.clear();
    }
  }
  write_file_atomic(path, format_manifest(rows));
  return "the runner of this folder died before the end: " + (said.empty() ? "between benchmarks" : said) +
         "; the manifest now says so (what was written is kept)";
}

std::vector<Verdict> recover_and_report(const std::string& run_dir, ReportOptions opt) {
  try {
    opt.recovered = recover_dead_run(run_dir);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    opt.recovered = fmt::format(
        "the runner of this folder died before the end, and its manifest could not be finished: {}", e.what());
  }
  if (!opt.recovered.empty() && !opt.quiet) std::fprintf(stderr, "rigcheck report: %s\n", opt.recovered.c_str());
  return make_report(run_dir, opt);
}

}  // namespace rigcheck
