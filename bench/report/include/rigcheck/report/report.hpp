// `rigcheck report`: reads a run folder, judges every claim of the guide, writes report.md
// and verdicts.csv. Each claim's logic is a small function registered by claim id
// (evaluators_*.cpp); a claim without one gets not_measurable (hardware missing) or no_benchmark.
#pragma once
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "rigcheck/harness/schema.hpp"
#include "rigcheck/runfolder/integrity.hpp"
#include "rigcheck/claims/verdict.hpp"

namespace rigcheck {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Claim {
  std::string id, section, text_zh, text_en, guide_figure;
  ClaimKind kind = ClaimKind::fact;
  double low = kNaN, high = kNaN, tolerance = 0;
  std::string unit, needs, needs_text, guide_error;
};
// Reads claims.csv strictly (fast-cpp-csv-parser); throws InputError naming file and line.
std::vector<Claim> read_claims(const std::string& path);

struct ManifestRow {
  std::string benchmark, area, command;
  int exit_code = 0;
  // ok, failed, skipped, timeout, interrupted, not_run, not_built; while the run goes on also pending
  // and running (left so by a runner that died: rigcheck report turns them into not_run and interrupted).
  std::string status;
  double duration_s = 0;
  std::string output, reason;
  // Of the output file once the benchmark has ended (issue 21: integrity.hpp): its data rows (the
  // header not counted) and its SHA-256, 64 lowercase hex digits. -1 and empty: no output, or a
  // manifest written before checksums.
  long rows = -1;
  std::string sha256;
};
inline constexpr const char* kManifestHeader =
    "benchmark,area,command,exit_code,status,duration_s,output,reason,rows,sha256";
std::string format_manifest(const std::vector<ManifestRow>& rows);
std::vector<ManifestRow> read_manifest(const std::string& path);

// concurrent_runs.csv: the other rigcheck runs seen on the machine while this one ran (runlock.hpp).
struct ConcurrentRun {
  int pid = 0;
  std::string run_dir, first_seen, last_seen;  // first and last seen during: a benchmark, or "the start"
};
inline constexpr const char* kConcurrentRunsHeader = "pid,run_dir,first_seen_during,last_seen_during";
std::string format_concurrent_runs(const std::vector<ConcurrentRun>& rows);
std::vector<ConcurrentRun> read_concurrent_runs(const std::string& path);

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

struct Verdict {
  std::string claim_id;
  Outcome verdict = Outcome::no_benchmark;
  Measured measured;
  double predicted = kNaN;
  std::string unit, evidence, reason;
  // What the verdict rests on (verdict.hpp), set by the evaluator for every judged verdict
  // (evaluate_claim throws std::logic_error when it is left at none; a predicted verdict left at
  // none becomes predicted).
  Basis basis = Basis::none;
};

// confirmed / refuted / inconclusive for a measured interval against the claim's figure
// widened by its tolerance (docs/methodology.md).
Outcome judge(const Claim& c, double low, double high);
// Whether the basis is shown beside the verdict (not for measured, none, or a predicted verdict),
// and "refuted" or "refuted (datasheet)": the verdict with its basis where shown.
bool shows_basis(const Verdict& v);
std::string verdict_label(const Verdict& v);

using Evaluator = std::function<Verdict(const Claim&, const RunData&)>;
bool register_evaluator(const std::string& claim_id, Evaluator e);
Verdict evaluate_claim(const Claim& c, const RunData& run);
// Verdict "not_measurable" when the claim's needs are unmet on this run's machine, else none.
bool unmet_needs(const Claim& c, const RunData& run, Verdict& out);

struct ReportOptions {
  std::string claims_path;  // default: the registry in data/
  bool quiet = false;       // do not print the table
  double step_budget_s = 0; // NET-1: seconds per step the all-reduce may take (0: the evaluator's stated default)
  bool exclude_broken = false;  // judge without the broken result files, saying which and why (ReadRunOptions)
};
// Writes report.md and verdicts.csv into the run folder (each written whole, then renamed).
// Returns the verdicts. Throws InputError (bad input: nothing is written).
std::vector<Verdict> make_report(const std::string& run_dir, const ReportOptions& opt);


}  // namespace rigcheck
