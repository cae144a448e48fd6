// `rigcheck compare RUN_A RUN_B [RUN...]` and the pieces `rigcheck history` shares with it:
// loading runs for a cross-run comparison (refusing incompatible ones), the confounders that
// differ between runs, the row-by-row comparison with a two-sided Mann-Whitney U test, the
// geometric-mean summary per area and the cross-run claims (MEM-2, MEM-3, GPU-3, GPU-4).
// Formulas: docs/methodology.md, section "compare and history".
#pragma once
#include <map>
#include <string>
#include <vector>

#include "rigcheck/tool/report.hpp"

namespace rigcheck {

// ------------------------------------------------------------------ Mann-Whitney U
struct MannWhitney {
  double u = kNaN;  // U of the first sample: pairs (a, b) with a > b, ties counting 1/2
  double p = kNaN;  // two-sided: P(|U - nm/2| >= |u - nm/2|) under H0
  bool exact = false;  // every arrangement enumerated (ties included); else normal approximation
};
// Exact (full enumeration of the rank sums, ties by mid-ranks) while C(n+m, n) <= 200000,
// else the normal approximation with tie and continuity corrections. Throws on an empty sample.
MannWhitney mann_whitney(const std::vector<double>& a, const std::vector<double>& b);
// The smallest two-sided p the exact test can give with samples of n and m: 2 / C(n+m, n).
double mann_whitney_min_p(size_t n, size_t m);
// The smallest k such that k repetitions on each side can reach p < alpha.
int mann_whitney_reps_needed(double alpha);

// ------------------------------------------------------------------ runs
struct LoadedRun {
  std::string dir, label;  // label: the run folder's name
  RunData data;
  std::map<std::string, std::string> area_of;  // result benchmark -> area (manifest or registry)
  std::string time_utc;                        // inventory_time_utc, for ordering
};
// read_run (strict: file, line and reason) plus what a comparison needs: an inventory with a
// method_version. Throws InputError.
LoadedRun load_run(const std::string& dir);
// Empty when b may be compared with a; else why not (different method_version...).
std::string incompatibility(const LoadedRun& a, const LoadedRun& b);

// Inventory fields that may explain a difference (data/confounders.csv).
struct ConfounderDef {
  std::string key, label, kind;  // kind: exact, relative, above, row_fact, ignore
  double tolerance = 0;
};
std::vector<ConfounderDef> read_confounders(const std::string& path);

struct FieldDiff {
  std::string key, label;
  std::vector<std::string> values;  // one per run, "(not recorded)" when absent
  bool listed = false;              // named in confounders.csv (else: another inventory field)
};
// The inventory fields whose values differ between the runs (by each field's rule).
// `unrecorded` receives the listed confounders no run's inventory records.
std::vector<FieldDiff> differing_fields(const std::vector<const LoadedRun*>& runs,
                                        const std::vector<ConfounderDef>& defs,
                                        std::vector<std::string>* unrecorded = nullptr);
std::string describe_diff(const FieldDiff& d);  // "oneDNN version: 2.6.3 -> 3.1"

// ------------------------------------------------------------------ rows
struct CompareOptions {
  double threshold_pct = 10;  // a significant change smaller than this is not flagged
  double alpha = 0.05;        // two-sided significance level of the Mann-Whitney test
  double fail_pct = kNaN;     // --fail-on-regression: exit 1 when a regression exceeds it
  std::string prices_path;    // --prices
  std::string out_dir;        // --out: writes NAME.md, NAME.csv, NAME.html there
  bool exclude_broken = false;
  bool fail_on_verdict_flip = false;  // --fail-on-verdict-flip: exit 1 when a claim's verdict differs
  std::string claims_path, confounders_path, plots_path, datasheets_path;
};

// One claim judged on each run by itself (rigcheck report's verdict), and whether they differ.
struct VerdictAcrossRuns {
  std::string claim_id;
  std::vector<Outcome> verdicts;  // per run, in the order given
  // "same"; "changed" (e.g. confirmed -> inconclusive); "FLIP" (confirmed <-> refuted: the
  // noise rule was meant to make this impossible between runs of one machine)
  std::string change;
};
std::vector<VerdictAcrossRuns> verdicts_across_runs(const std::vector<Claim>& claims, const std::vector<const RunData*>& runs);
// --prices: run (folder name or hostname) -> price and power; NaN where the file leaves it empty.
struct Price {
  double price = kNaN, power_w = kNaN;
};
// Reads the CSV run,price,power_w strictly; throws InputError naming file and line.
std::map<std::string, Price> read_prices(const std::string& path);

struct RowComparison {
  std::string benchmark, case_name, params, metric, unit, area;
  int better = 1;  // +1 higher is better (rates), -1 lower is better (times)
  std::string base_label, run_label;
  Measured base, run;
  double ratio = kNaN, ratio_low = kNaN, ratio_high = kNaN;  // run / base, medians; [min/max, max/min]
  double change_pct = kNaN;  // signed, positive = the run is better
  MannWhitney mw;
  std::string flag;  // regression, improvement, no_change, too_few_reps, only_in_base, only_in_run
  std::string note;  // row facts that differ (impl, isa...), or why no test
  std::string changed_fields;  // history: inventory fields changed between the two runs
};
// Every comparable row of `run` against `base`.
std::vector<RowComparison> compare_pair(const LoadedRun& base, const LoadedRun& run,
                                        const std::vector<ConfounderDef>& defs, const CompareOptions& opt);

struct AreaSummary {
  std::string area, base_label, run_label;
  double geomean = kNaN, low = kNaN, high = kNaN;  // > 1: the run is faster
  int rows = 0;
};
std::vector<AreaSummary> summarize_areas(const std::vector<RowComparison>& rows);

// Cross-run claims: judged when the runs differ the right way, else not_measurable.
std::vector<std::pair<Claim, Verdict>> cross_run_claims(const std::vector<const LoadedRun*>& runs,
                                                        const std::vector<Claim>& claims,
                                                        const std::string& datasheets_path);

// CSV of row comparisons (the columns of compare.csv and history.csv).
std::string rows_csv(const std::vector<RowComparison>& rows);
std::string md_cell(std::string s);

// The commands. Return the exit status (0, or 1 with --fail-on-regression and a regression).
// Throw InputError for a broken or incompatible run unless exclude_broken.
// Shared by compare and history (compare.cpp).
std::vector<LoadedRun> load_runs_for(const std::vector<std::string>& dirs, const CompareOptions& opt,
                                     std::vector<std::string>& exclusions, const char* what);
// Refuses to overwrite an earlier output; creates the folder only when `create` (just before writing).
void prepare_out_dir(const std::string& dir, const std::string& stem, bool create = false);
std::string confounders_md(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded);
std::string confounders_html(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded);
std::string exclusions_md(const std::vector<std::string>& exclusions);
// One line per regression or improvement on stdout; exit_code = 1 for a regression beyond fail_pct.
void print_flag_lines(const std::vector<RowComparison>& rows, const CompareOptions& opt, int& exit_code);
std::string rows_md(const std::vector<RowComparison>& rows, bool with_changes);
std::string html_rows(const std::vector<RowComparison>& rows, bool with_changes);
std::string runs_table_md(const std::vector<LoadedRun>& runs);
std::string runs_table_html(const std::vector<LoadedRun>& runs);
std::string data_file(const std::string& given, const std::string& name);  // given, or data/name

int run_compare(const std::vector<std::string>& dirs, const CompareOptions& opt);
int run_history(const std::vector<std::string>& dirs, const CompareOptions& opt);

}  // namespace rigcheck
