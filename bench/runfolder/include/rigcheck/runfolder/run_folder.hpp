// A run folder as data: its manifest, the other runs seen beside it, its result rows and inventory,
// read strictly (read_run), and the registry of benchmarks that makes one (data/benchmarks.csv).
// The ground floor of the tool: claims, report, compare and the CLI read a run through this.
#pragma once
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/runfolder/integrity.hpp"

namespace rigcheck {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ManifestRow {
  std::string benchmark, area, command;
  int exit_code = 0;
  // ok, failed, skipped, timeout, interrupted, not_run, not_built; while the run goes on also pending
  // and running (left so by a runner that died: rigcheck report turns them into not_run and interrupted).
  std::string status;
  double duration_s = 0;
  std::string output, reason;
  // Of the output file once the benchmark has ended (integrity.hpp): its data rows (the
  // header not counted) and its SHA-256, 64 lowercase hex digits. -1 and empty: no output, or a
  // manifest written before checksums.
  long rows = -1;
  std::string sha256;
};
inline constexpr const char* kManifestHeader =
    "benchmark,area,command,exit_code,status,duration_s,output,reason,rows,sha256";
std::string format_manifest(const std::vector<ManifestRow>& rows);
// `text`: the file's bytes when they are in memory (RunFiles), `path` then only naming it in errors.
std::vector<ManifestRow> read_manifest(const std::string& path, const std::string* text = nullptr);

// concurrent_runs.csv: the other rigcheck runs seen on the machine while this one ran (runlock.hpp).
struct ConcurrentRun {
  int pid = 0;
  std::string run_dir, first_seen, last_seen;  // first and last seen during: a benchmark, or "the start"
};
inline constexpr const char* kConcurrentRunsHeader = "pid,run_dir,first_seen_during,last_seen_during";
std::string format_concurrent_runs(const std::vector<ConcurrentRun>& rows);
std::vector<ConcurrentRun> read_concurrent_runs(const std::string& path, const std::string* text = nullptr);

// A measured quantity: median over repetitions and the interval the noise allows.
struct Measured {
  double value = kNaN, low = kNaN, high = kNaN;
  int reps = 0;
  bool ok() const { return reps > 0; }
};

struct RunData {
  std::string dir;
  std::map<std::string, std::string> inventory;
  std::map<std::string, std::string> facts;  // inventory + derived facts (nodes, machines, ...)
  std::vector<ManifestRow> manifest;
  std::vector<ConcurrentRun> concurrent;  // other runs at the same time (concurrent_runs.csv)
  std::string recovered;                  // what recover_dead_run did or saw, in words
  std::vector<ResultRow> results;
  std::vector<std::string> result_files;  // the files read (broken ones left out with exclude_broken)
  IntegrityReport integrity;              // every result file against the manifest (integrity.hpp)
  std::vector<std::string> excluded;      // "file: why", the broken files left out (exclude_broken)

  // Per-repetition values of one metric of one benchmark's cases whose params contain every
  // given key=value, status ok only, grouped by case name.
  std::map<std::string, std::vector<const ResultRow*>> select(
      const std::string& benchmark, const std::string& metric,
      const std::map<std::string, std::string>& where = {}) const;
};
struct ReadRunOptions {
  // A broken result file (cut, edited, missing, not written by the run: verify_run_folder) is left
  // out and listed in RunData::excluded with the reason, instead of refusing the folder.
  bool exclude_broken = false;
};
// Reads a run folder strictly: verify_run_folder first, then every result file; throws InputError
// naming file, line and reason (for a broken file: its name and what differs from the manifest).
RunData read_run(const std::string& dir, const ReadRunOptions& opt = {});
// The same of a run's files wherever they are (RunFiles: in memory, a run read from the results store).
RunData read_run(const RunFiles& files, const ReadRunOptions& opt = {});
// Sets run.facts: the inventory and the facts about the run that claims' needs name (nodes,
// machines, mpi_available), the node count from the run's own rows. read_run calls it.
void add_run_facts(RunData& run);

// Creates a fresh results/<host>-<UTC time>[-N]/ (never an existing folder). Returns its path.
std::string create_run_dir(const std::string& root, const std::string& host, const std::string& stamp);

// data/benchmarks.csv: what `rigcheck run` starts.
struct BenchmarkEntry {
  std::string name, area, binary, args, env, needs;
  double timeout_tiny_s = 0, timeout_quick_s = 0, timeout_full_s = 0;  // 0: not part of that profile
  std::string description;  // what it measures, in a few words (`rigcheck list` prints it)
  // Seconds it took in the quick profile on the reference machine (docs/performance.md), 0 unknown;
  // whether its binary keeps --time-budget (`rigcheck run --budget` shares the run's time by them).
  double quick_ref_s = 0;
  bool takes_budget = false;
  double full_ref_s = 0;  // the same for the full profile (its budget's shares), 0 unknown
  double ref_s(Profile p) const { return p == Profile::full ? full_ref_s : quick_ref_s; }
  double timeout_s(Profile p) const {
    return p == Profile::tiny ? timeout_tiny_s : p == Profile::quick ? timeout_quick_s : timeout_full_s;
  }
};
std::vector<BenchmarkEntry> read_benchmark_registry(const std::string& path);
// `rigcheck list`: the registry as a table (name, area, the timeout of each profile, what it
// measures), the names that --select takes.
std::string format_benchmark_list(const std::vector<BenchmarkEntry>& entries);

}  // namespace rigcheck
