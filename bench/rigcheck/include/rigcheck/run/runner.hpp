// `rigcheck run`: inventory, then every benchmark binary of data/benchmarks.csv as a
// child process, then the report.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/runfolder/run_folder.hpp"

namespace rigcheck {

struct RunOptions {
  std::string profile = "quick";
  std::vector<std::string> only;    // areas; empty = all
  std::vector<std::string> select;  // registry entries (names); empty = all (of the areas)
  std::string case_filter;          // passed to every benchmark as --filter (ANDed with an entry's own)
  std::string results_root = "results";
  std::string bin_dir;        // default: the folder of the rigcheck executable
  std::string registry_path;  // default: data/benchmarks.csv
  std::string claims_path;
  double timeout_scale = 1.0;
  // Command that starts the benchmarks whose registry args hold the token @launcher (the comm
  // area: one process per rank), e.g. "mpirun -np 8 --hostfile hosts" or "srun -N 2".
  // Empty: default_launcher().
  std::string launcher;
  // Command every benchmark binary is started through, before its path (after the launcher's):
  // an emulator, e.g. "qemu-aarch64 -L SYSROOT" for an aarch64 build run on x86-64 without
  // binfmt_misc (docs/arm.md). Empty: none.
  std::string exec_prefix;
  double step_budget_s = 0;     // NET-1: seconds per training step the all-reduce may take (0: the report's default)
  double memory_limit_gib = 0;  // RLIMIT_AS of each benchmark (0: none); never for the gpu area
  double budget_s = -1;  // --budget: the run's seconds, shared among the benchmarks; -1: the profile's (quick 240, full
                         // 1620), 0: none
};

// The ranks the local default launcher starts: one per core this process may use (CpuBudget's
// usable_cores: affinity, cpuset, CPU quota), at least 2 (an all-reduce needs a peer) and at most
// kMaxLocalRanks: past a handful of ranks one machine's all-reduce measures its shared memory, not
// more of the claims, and every rank holds NET-1's 400 MB twice (in and out), 6.4 GB at 8.
inline constexpr int kMaxLocalRanks = 8;
int local_rank_count(int usable_cores);
// `launch_args` of the machine: "mpirun -np N" (N = local_rank_count of this process's usable
// cores), with --allow-run-as-root when run as root (Open MPI refuses root otherwise) and
// --oversubscribe where N exceeds those cores; "srun" inside a Slurm allocation.
std::string default_launcher();
std::string local_launcher(int usable_cores, bool as_root);

// Returns the process exit status: 0 all ran (or were skipped for a reason), 1 a benchmark
// failed or timed out, 2 bad options, 130 interrupted. `run_dir` receives the run folder.
int run_suite(const RunOptions& opt, std::string* run_dir = nullptr);

// One regex that matches where both match (std::regex_search, ECMAScript): the case filter of
// --case-filter combined with a registry entry's own --filter.
std::string both_filters(const std::string& a, const std::string& b);

// `rigcheck report` on a folder whose manifest still has benchmarks running or pending: when its
// runner is gone (runlock.hpp), the running one becomes interrupted (its .partial kept up to its
// last full line) and the pending ones not_run, and the manifest is rewritten. Returns what it
// did or saw, in words (empty: nothing to do). Leaves a live run alone.
std::string recover_dead_run(const std::string& run_dir);
// The report of a run folder as `rigcheck report` and the end of `rigcheck run` make it: a folder
// whose runner died is finished first (recover_dead_run; what it did is printed and becomes a
// warning of the report), then make_report. Throws InputError as make_report does.
std::vector<Verdict> recover_and_report(const std::string& run_dir, ReportOptions opt);

// The scratch entries a benchmark registered (harness/scratch_registry.hpp), after it ended:
// the ones it left behind are removed (remove = true) when they pass every rule of
// scratch_cleanup.cpp (a plain absolute path named rigcheck-*, directly in one of `roots`, a file or
// directory of this user, never a symbolic link), or only named (remove = false).
struct ScratchCleanup {
  std::vector<std::string> removed;  // paths removed
  std::vector<std::string> kept;     // "path: why" of entries left in place
};
ScratchCleanup remove_registered_scratch(const std::string& registry_file, const std::vector<std::string>& roots,
                                         bool remove = true);
// The scratch roots of a benchmark's command line: its --scratch DIR, else $TMPDIR or /var/tmp.
std::vector<std::string> scratch_roots_of(const std::vector<std::string>& argv);

// Keeps what a killed child had written: <stem>.csv.partial cut at its last full line and
// renamed to <stem>.csv. Returns the number of data rows kept (-1: nothing to salvage).
long salvage_partial(const std::string& csv_path);

}  // namespace rigcheck
