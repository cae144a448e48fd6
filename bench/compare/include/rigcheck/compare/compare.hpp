// `rigcheck compare`, `rigcheck history`, `rigcheck noise` and `rigcheck ab`: runs set against each
// other with the run as the unit (docs/methodology.md, "compare and history" and "Comparing runs:
// the statistics"). The pieces, one job per file of bench/compare/src/:
//   load.cpp       loading a run folder once for every command (the one load function), the
//                  registries that say how its rows form cases, and the inventory fields that differ;
//   findings.cpp   one finding per case: two sides of runs (or paired rounds) compared by statistics.cpp;
//   noise.cpp      noise profiles (noise.csv): the run-to-run spread of each case on one machine;
//   cross_run.cpp  the claims judged across runs, registered by id (MEM-2, MEM-3, GPU-3, GPU-4);
//   output.cpp     Markdown, CSV and HTML of findings, the per-flag lines for CI;
//   compare.cpp, history.cpp, ab.cpp   the commands.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "rigcheck/report/report.hpp"
#include "rigcheck/compare/statistics.hpp"

namespace rigcheck {

// ------------------------------------------------------------------ how rows form cases
// A case is matched across runs by what was ASKED: its result file, benchmark, case name and
// requested params. Observed params (what a library dispatched, what the machine gave) are
// attributes, shown and compared, never part of the key: data/params.csv (benchmark or *, param,
// role requested|observed|description; a param it does not list is read as requested, and a test
// (Cases.EveryParamOfTheFixtureRunsIsDeclared) fails for one a fixture run writes). Each case is reported on its
// headline metric with the others beside it: data/metrics.csv (benchmark or *, a preference list).
struct CaseRules {
  std::map<std::pair<std::string, std::string>, std::string> roles;  // (benchmark or *, param) -> role
  std::map<std::string, std::vector<std::string>> headlines;         // benchmark or * -> metrics, preferred first
  std::map<std::string, std::string> area_of_entry;                  // registry entry (file stem) -> area
  // "requested", "observed", "description" (of the method: not part of the key; a change is a
  // method change, named on the case), or "" when data/params.csv does not declare it (read as requested).
  std::string role(const std::string& benchmark, const std::string& param) const;
  bool observed(const std::string& benchmark, const std::string& param) const;  // observed or description
  bool description(const std::string& benchmark, const std::string& param) const;
  // The case's headline among `have` (the metrics it has), by the benchmark's list, then *'s,
  // then the first rate, then the first time.
  std::string headline(const std::string& benchmark, const std::map<std::string, int>& have) const;
};
// data/params.csv, data/metrics.csv and data/benchmarks.csv (default: the registries in data/).
// Throws InputError naming file and line.
CaseRules read_case_rules(const std::string& params_path = "", const std::string& metrics_path = "",
                          const std::string& benchmarks_path = "");

// An inventory value that says nothing: empty, or "unknown..." (with the reason after it).
bool is_unknown(const std::string& v);

// +1 when a larger value is better (a rate), -1 when a smaller one is (a time), 0: not compared.
int direction_of_unit(const std::string& unit);

struct MetricSample {
  std::string unit;
  int better = 0;
  std::vector<double> reps;  // ok repetitions
};
struct CaseRun {  // one case in one run
  std::string source, benchmark, case_name, requested, area;
  std::map<std::string, std::string> observed;  // observed params of its first timed row
  std::map<std::string, MetricSample> metrics;  // the compared metrics (a unit with a direction)
  // Metrics left out of this run: most of their timed repetitions were mistrusted (the benchmark
  // saw something else take the CPU), so the run's value would be the disturbance's.
  std::set<std::string> disturbed;
};
// source \x1f benchmark \x1f case \x1f requested params
std::string case_key(const std::string& source, const std::string& benchmark, const std::string& case_name,
                     const std::string& requested);
// A case_key's four parts (any of them may be empty).
struct CaseKeyParts {
  std::string source, benchmark, case_name, requested;
};
CaseKeyParts split_case_key(const std::string& key);

// ------------------------------------------------------------------ runs
struct LoadedRun {
  std::string dir, label;  // label: the run folder's name
  RunData data;
  std::map<std::string, std::string> area_of;  // result benchmark -> area (manifest or registry)
  std::string time_utc;                        // inventory_time_utc, for ordering
  std::map<std::string, CaseRun> cases;        // by case_key
  // Cases whose rows here were skipped, failed or all mistrusted: case key -> "skipped: the note"; and
  // the same by source \x1f benchmark \x1f case (a skipped row may lack params its ok rows have).
  std::map<std::string, std::string> not_working, not_working_by_name;
  size_t ok_rows = 0, mistrusted_rows = 0;  // timed repetitions (kept when data.results is dropped)
  // Cases of one processor architecture's ISA, when runs of several are compared (pair_across_archs):
  // case key -> why it has no counterpart on the other architecture. Listed as one-sided even where
  // they did not work (an emulated run's mistrusted rows).
  std::map<std::string, std::string> one_sided;
  // The cases paired at each run's widest kernel ISA (pair_across_archs): case key -> the ISA that ran here.
  std::map<std::string, std::string> widest_isa;
};
// How a run is read: read_run of its folder; `rigcheck compare|history|noise --db` reads a stored run
// instead (bench/store: its files in memory, verified and parsed by read_run's code), `dir` then
// standing for its folder. Called from several threads at once (load_runs_for).
using RunReader = std::function<RunData(const std::string& dir)>;
// THE load function of compare, history, noise and ab: read_run (strict: file, line and reason),
// the folder's integrity, an inventory with a method_version, and the cases. Throws InputError.
LoadedRun load_run(const std::string& dir, const CaseRules& rules);
LoadedRun load_run(const std::string& dir, const CaseRules& rules, const RunReader& read);  // empty: read_run
LoadedRun load_run(const std::string& dir);  // with the default registries
// The cases of r.data's rows (load_run calls it; for runs made in memory).
void build_cases(LoadedRun& r, const CaseRules& rules);
// The processor architecture the run's binaries ran (inventory cpu_arch: x86_64, aarch64); "x86_64"
// for a run without the key (the suite versions that did not record it built for x86-64 only).
std::string run_arch(const LoadedRun& r);
// Comparing runs of several architectures (an x86-64 run against an aarch64 one: the vendor
// comparison). Cases pair where the experiment is the same (GEMM, STREAM, the ResNet-50 step, fio,
// all-reduce: same case, same requested params). Of the benchmarks data/cross_arch.csv lists:
// `widest`: each run's case with the widest kernel ISA (data/kernel_isas.csv) for the same experiment
// is renamed to the ISA "widest" (its isa kept as an observed attribute), the narrower ones are
// one-sided; `one_sided`: every case is one-sided, the architecture added to its key so that no
// two such cases pair. Each one-sided case's reason goes to r.one_sided. Nothing changes when all
// the runs are of one architecture. Throws InputError for a bad data file.
void pair_across_archs(std::vector<LoadedRun>& runs, const std::string& cross_arch_path = "",
                       const std::string& kernel_isas_path = "");
// Empty when b may be compared with a; else why not (different method_version...).
std::string incompatibility(const LoadedRun& a, const LoadedRun& b);

// Inventory fields that may explain a difference (data/confounders.csv).
struct ConfounderDef {
  std::string key, label, kind;  // kind: exact, relative, above, ignore (row_fact: accepted, ignored; data/params.csv
                                 // says what is observed)
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
// The same between two sides of runs: each field's values on side A and on side B ("unset ->
// AVX2", several values of one side joined by " | "); a field that varies within the sides but
// has the same values on both says so in its label.
std::vector<FieldDiff> differing_between_sides(const std::vector<const LoadedRun*>& a,
                                               const std::vector<const LoadedRun*>& b,
                                               const std::vector<ConfounderDef>& defs,
                                               std::vector<std::string>* unrecorded = nullptr);
// "field: a -> b; ..." of what changed between two runs, load and time left out ("" when nothing).
std::string changed_between(const LoadedRun& before, const LoadedRun& after, const std::vector<ConfounderDef>& defs);

// ------------------------------------------------------------------ options
struct CompareOptions {
  StatOptions stat;                         // alpha (0.01), threshold (10%), noise_k (1), bootstrap replicates, seed
  double fail_pct = kNaN;                   // --fail-on-regression: exit 1 when a flagged regression exceeds it
  std::string noise_path;                   // --noise: a noise profile of this machine (noise.csv)
  std::vector<std::string> side_a, side_b;  // --a / --b: the runs of each side
  std::string prices_path;                  // --prices
  std::string out_dir;                      // --out: writes NAME.md, NAME.csv, NAME.html there
  bool exclude_broken = false;
  bool fail_on_verdict_flip = false;  // --fail-on-verdict-flip: exit 1 when a claim's verdict differs
  std::string claims_path, confounders_path, plots_path, datasheets_path;
  RunReader read;  // how the runs are read (load_run): read_run of the folders unless set
  // Where set, asked first for a run whose rows are not kept (history, noise, ab): true when it
  // filled `out` as load_run would have, less the rows (the results store's digests: run_digest.hpp);
  // false: the run is read with `read`.
  std::function<bool(const std::string& dir, LoadedRun& out)> cached;
  // history: where set, its runs are moved here at the end instead of freed (the CLI then ends the
  // process without freeing them).
  std::vector<LoadedRun>* keep_runs = nullptr;
  // history --group-by machine|driver|cpu_model: several groups of runs on one time axis, each its own series and
  // change points; group_of, where set, names a run's group (the CLI: the store's machine fingerprint).
  std::string group_by;
  std::function<std::string(const LoadedRun&)> group_of;
  // The text of a run's verdicts.csv, "" where it has none (the claims strip); unset: the folder's file.
  std::function<std::string(const std::string& dir)> verdicts_text;
};

// ------------------------------------------------------------------ noise profiles
struct NoiseProfile {
  std::string path, host, cpu_model;
  std::vector<std::string> runs;       // the run folders it came from
  std::map<std::string, Noise> noise;  // case_key + "\x1f" + metric -> run-to-run noise
  // The machine's typical run-to-run noise: the median over the profile's case metrics of the
  // variance (as sd), the prior every case's noise is moderated toward (statistics.hpp: moderate()).
  Noise typical;
  const Noise* find(const std::string& key, const std::string& metric) const;
  void pool();  // sets `typical` from `noise`
};
// The median of the variances of these noises, as a Noise (df: how many were known); unknown when none is.
Noise typical_noise(const std::vector<Noise>& ns);
// The profile of these runs (>= 2, one machine): per case and compared metric, the standard
// deviation of the log run medians. Throws InputError for too few runs or another machine.
NoiseProfile noise_profile(const std::vector<LoadedRun>& runs);
std::string format_noise_csv(const NoiseProfile& p, const std::vector<LoadedRun>& runs);
// Reads noise.csv strictly; throws InputError naming file, line and reason.
NoiseProfile read_noise_csv(const std::string& path);
// The profile must come from the machine of the runs compared: else an InputError naming it.
void check_profile_machine(const NoiseProfile& p, const std::vector<const LoadedRun*>& runs);

// ------------------------------------------------------------------ findings
struct Side {
  std::string label;                   // a run's name, or "A (3 runs)"
  std::vector<const LoadedRun*> runs;  // paired sides (ab): runs[r] is round r
};
struct OtherMetric {
  std::string metric, unit;
  int better = 1;
  double ratio = kNaN, change_pct = kNaN;  // B / A of the geometric means of the run medians
};
// One finding per case: its headline metric judged, the others beside it.
struct CaseFinding {
  std::string key, label, source, benchmark, case_name, params, area;
  std::string metric, unit;
  int better = 1;
  std::string base_label, run_label;
  Measured base,
      run;  // value: geometric mean of the run medians; low/high: the smallest and largest run median; reps: runs
  Judgement j;
  // regression, improvement, no_change, unstable, cannot_judge, only_in_base, only_in_run, stopped_working,
  // started_working
  std::string flag;
  std::vector<OtherMetric> others;
  std::string attributes;  // observed params that differ between the sides: "impl: a -> b"
  bool implementation_changed = false;
  std::string method_change;       // the description params (data/params.csv) that differ: the method changed
  std::string note;                // why not judged, partial runs, a missing noise profile entry...
  std::string changed_fields;      // inventory fields that changed (history, ab)
  bool holds_family_wise = false;  // its p passes Holm's step-down over the command's cases (evaluate_gate)
  bool fails_gate = false;         // counted by --fail-on-regression
  // A status change whose other side was only mistrusted (its measurements disturbed, by another
  // process or a slow spell), not skipped or failed: the case still works. Listed, never counted by
  // the gate (an A/A of quick runs has such cases: memory_latency_loaded's, whose streams compete).
  bool disturbed_only = false;
  // Why the gate leaves this case out (mark_shared_cache), or "": judged and listed, never counted.
  std::string not_gated;
  bool flagged() const { return flag == "regression" || flag == "improvement"; }
  // ok on one side, skipped, failed or mistrusted on the other: a finding of its own
  bool status_changed() const { return flag == "stopped_working" || flag == "started_working"; }
};
// Every case of side b against side a. Unpaired: hierarchical bootstrap over runs (>= 2 per side),
// else the profile's noise, else pooled from the sides, else cannot_judge. `paired`: round r of a
// against round r of b (ab).
std::vector<CaseFinding> compare_sides(const Side& a, const Side& b, const NoiseProfile* profile,
                                       const CaseRules& rules, const StatOptions& opt, bool paired = false);
// Unique labels: "benchmark case", with the result file added where two files share the case
// name, and the requested params where one file has the case twice.
void label_findings(std::vector<CaseFinding>& fs);

struct FindingCounts {
  int cases = 0, judged = 0, flagged = 0, regressions = 0, improvements = 0, unstable = 0, cannot_judge = 0,
      unmatched = 0, implementation_changes = 0, stopped = 0, started = 0, method_changes = 0;
  double expected_by_chance = 0;  // judged cases (an interval: flagged, no_change, unstable) x alpha
};
FindingCounts count_findings(const std::vector<CaseFinding>& fs, double alpha);

struct AreaSummary {
  std::string area, base_label, run_label;
  double geomean = kNaN, low = kNaN, high = kNaN;  // > 1: the run is faster
  int rows = 0;
};
std::vector<AreaSummary> summarize_areas(const std::vector<CaseFinding>& fs);

// The machine's state (bench/compare/src/machine_state.cpp): when at least kMachineStateShare of the
// kMachineStateCases or more judged cases of a run (or of one of its areas) moved the same way by
// half the threshold or more, and the bootstrap interval (over the cases) of the median of their
// log speed ratios excludes 0 and the median reaches the threshold, that median is the machine's
// state for that run: reported with its interval, and every case of the group judged again against
// it (its interval moved by the shift; the note says so). The whole run is tried first, then each area,
// then each segment of an area that did not move: one benchmark's sweep (the cases whose names share
// all but their last '/' part, e.g. memory_latency's thp/...), but only where its cases' base levels
// span kSegmentSpan or more. Cases whose levels differ that much are limited by different parts of the
// machine (an L1-resident chase at 1 ns and a DRAM one at 200 ns): one factor across all of them is the
// speed the machine ran that part of the run at (a slow spell of a shared VM), not a change of one code
// path, whose cost would not scale every level alike. A sweep of like cases (GEMM sizes, whose
// GFLOP/s differ by less) is never read as a state: a library change slows it as a whole.
constexpr int kMachineStateCases = 5;
constexpr double kMachineStateShare = 0.8;
constexpr double kSegmentSpan = 10;
struct MachineState {
  std::string run_label, area;  // area: "area memory", "segment memory_latency thp" or "the whole run"
  int cases = 0, moved = 0;
  double shift = 0, low = 0, high = 0;  // log speed of the run relative to the base (> 0: faster)
};
std::vector<MachineState> machine_states(std::vector<CaseFinding>& fs, const StatOptions& opt);

// Cases the gate leaves out (bench/compare/src/shared_cache.cpp). On a virtual machine the L3 is
// shared with other guests: a case whose working set (its parameter named in data/working_sets.csv)
// lies between the private L2 and the L3 measures how much of that cache the neighbours leave it,
// and jumps between levels from run to run (the 8 MiB chase of the 2-vCPU VM: 13-30 ns in some runs,
// 75-163 ns in others, docs/performance.md). Such a case is still judged and listed, its not_gated
// saying why; the gate neither tests nor counts it. Applies only when every run's inventory names a
// hypervisor and both cache sizes. Returns how many cases it marked.
std::map<std::string, std::string> read_working_set_params(const std::string& path = "");  // benchmark -> param
int mark_shared_cache(std::vector<CaseFinding>& fs, const std::vector<const LoadedRun*>& runs,
                      const std::map<std::string, std::string>& working_set_param);
// "MACHINE STATE area memory in RUN: -25.0% [-31.2% to -18.0%] (...)"; `load`: load_note of the run, if any.
std::string machine_state_text(const MachineState& s, const std::string& load);
// "RUN started under load (load average 1.57 at its start)" when its inventory's loadavg_1m is over
// 0.5 (data/confounders.csv's rule), else "".
std::string load_note(const LoadedRun& r);
// "benchmark.param" of every parameter the run's rows hold that data/params.csv does not declare
// (read as requested, so a new one splits a case from its history): compare prints one
// `UNDECLARED PARAM` line each, and the smoke runs fail on any.
std::vector<std::string> undeclared_params(const LoadedRun& r, const CaseRules& rules);

// ------------------------------------------------------------------ claims across runs
struct VerdictAcrossRuns {
  std::string claim_id;
  std::vector<Outcome> verdicts;  // per run, in the order given
  // "same"; "changed" (e.g. confirmed -> inconclusive); "FLIP" (confirmed <-> refuted)
  std::string change;
};
std::vector<VerdictAcrossRuns> verdicts_across_runs(const std::vector<Claim>& claims,
                                                    const std::vector<const RunData*>& runs);
// What a claim judged across runs is judged on: the runs, the confounders that may differ between
// them, how their rows form cases, and a noise profile where one was given.
struct CrossRunInput {
  const std::vector<const LoadedRun*>& runs;
  const std::vector<ConfounderDef>& defs;
  const CaseRules& rules;
  const NoiseProfile* profile;
  const std::string& datasheets_path;
};
using CrossRunEvaluator = std::function<Verdict(const Claim&, const CrossRunInput&)>;
// A claim judged across runs by `rigcheck compare` registers here beside its one-run evaluator
// (register_evaluator): MEM-2, MEM-3 (a DDR4 and a DDR5 side), GPU-3, GPU-4 (a Turing and an
// Ampere side), in cross_run.cpp.
bool register_cross_run_evaluator(const std::string& claim_id, CrossRunEvaluator e);
bool has_cross_run_evaluator(const std::string& claim_id);
// The verdict of every claim with a cross-run evaluator, in the claims' order: judged on the
// run-level comparison of two sides (every run of each kind), by the same rules as any case;
// not_measurable without the right pair, inconclusive when the runs cannot judge.
std::vector<std::pair<Claim, Verdict>> cross_run_claims(const std::vector<const LoadedRun*>& runs,
                                                        const std::vector<Claim>& claims,
                                                        const std::string& datasheets_path,
                                                        const NoiseProfile* profile = nullptr);

// --prices: run (folder name or hostname) -> price and power; NaN where the file leaves it empty.
struct Price {
  double price = kNaN, power_w = kNaN;
};
// Reads the CSV run,price,power_w strictly; throws InputError naming file and line.
std::map<std::string, Price> read_prices(const std::string& path);

// ------------------------------------------------------------------ output
std::string md_cell(std::string s);
std::string findings_csv(const std::vector<CaseFinding>& fs);
std::string findings_md(const std::vector<CaseFinding>& fs, bool with_changes);
std::string findings_html(const std::vector<CaseFinding>& fs, bool with_changes);
// "Flagged 2 of 380 cases judged; expected by chance at level 0.01: 3.8" and the rest of the counts.
std::string counts_md(const FindingCounts& c, const StatOptions& opt);
// The cases too noisy to judge (spread, runs needed) and those that could not be judged (why).
std::string unstable_md(const std::vector<CaseFinding>& fs);
std::string statistics_md(const StatOptions& opt, const NoiseProfile* profile);
// One line per regression or improvement (with its p and whether it holds over all cases), case that
// stopped or started working, and implementation change on stdout; then the GATE line
// (evaluate_gate); exit_code = 1 when the gate fails.
void print_flag_lines(std::vector<CaseFinding>& fs, const CompareOptions& opt, int& exit_code);
// The gate of --fail-on-regression (bench/compare/src/gate.cpp): the p of every judged case through
// Holm's step-down at family-wise level gate_alpha (0.05); a regression of fail_pct or more that holds after it,
// or a case that stopped working, fails it. Marks each finding's holds_family_wise and fails_gate.
struct Gate {
  double level = 0.01, fail_pct = kNaN;
  int tested = 0;       // cases with an interval (the family)
  int holding = 0;      // flags whose p passes Holm
  int regressions = 0;  // ... of them regressions of fail_pct or more
  int stopped = 0;      // stopped_working cases
  int not_gated = 0;    // cases left out (CaseFinding::not_gated), flagged or not
  bool fail = false;
};
Gate evaluate_gate(std::vector<CaseFinding>& fs, const CompareOptions& opt);
// "GATE FAIL: 1 regressions of 10% or more that hold after Holm's step-down over 190 judged cases ..."
std::string gate_text(const Gate& g);
std::string runs_table_md(const std::vector<LoadedRun>& runs);
std::string runs_table_html(const std::vector<LoadedRun>& runs);
std::string confounders_md(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded);
std::string confounders_html(const std::vector<FieldDiff>& diffs, const std::vector<std::string>& unrecorded);
std::string exclusions_md(const std::vector<std::string>& exclusions);
std::string exclusions_html(const std::vector<std::string>& exclusions);
// Refuses to overwrite an earlier output; creates the folder only when `create` (just before writing).
void prepare_out_dir(const std::string& dir, const std::string& stem, bool create = false);
std::string data_file(const std::string& given, const std::string& name);  // given, or data/name

// ------------------------------------------------------------------ the commands
// Loads the runs (in parallel), applying --exclude-broken (broken and incompatible runs left out
// and listed). keep_rows false: each run's result rows are dropped once its cases are built (what
// history, noise and ab need), which keeps the memory of a long history small.
std::vector<LoadedRun> load_runs_for(const std::vector<std::string>& dirs, const CompareOptions& opt,
                                     const CaseRules& rules, std::vector<std::string>& exclusions, const char* what,
                                     size_t at_least = 2, bool keep_rows = true);
// Return the exit status (0, or 1 with --fail-on-regression and a regression...). Throw
// InputError for a broken or incompatible run unless exclude_broken.
int run_compare(const std::vector<std::string>& dirs, const CompareOptions& opt);
int run_history(const std::vector<std::string>& dirs, const CompareOptions& opt);
// `rigcheck noise RUN... --out FILE`: the noise profile of these runs.
int run_noise(const std::vector<std::string>& dirs, const std::string& out_path, const CompareOptions& opt);

// `rigcheck ab`: interleaved rounds of two settings on this machine.
struct AbOptions {
  std::string a, b;  // each: KEY=VALUE words and/or a prefix folder
  int rounds = 10;
  std::vector<std::string> only, select;  // areas; registry entries
  std::string filter;                     // passed to the benchmarks as --filter
  std::string profile = "quick";
  std::string out_root = "results";
  std::string rigcheck_path;  // this executable (for the rounds)
  CompareOptions compare;
};
int run_ab(const AbOptions& opt);
// The analysis of a finished ab folder (order.csv and the runs): ab.md, ab.csv. Returns the exit status.
int analyze_ab(const std::string& ab_dir, const CompareOptions& opt);

}  // namespace rigcheck
