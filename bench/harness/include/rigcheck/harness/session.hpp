// One benchmark binary's session (the role of nccl-tests' common.cu): the shared options with the
// CPU budget, --filter, --list and --describe (the binary's registry entries), the never-overwritten
// result CSV and its rows, the one mistrust rule, and the exit code. Every benchmark binary goes
// through it: the Google Benchmark harness (harness.cpp) and the binaries with a main() of their own
// (io/, comm/), which keep only their own flags and their plan/run/check code. Multi-process binaries
// (MPI) use its rank-0 mode: every rank parses and runs, only rank 0 prints, lists and writes.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/registry_entry.hpp"
#include "rigcheck/harness/schema.hpp"

namespace CLI {
class App;
}

namespace rigcheck {

class ResultWriter;

// Exit status of every benchmark binary.
enum ExitCode : int {
  kExitOk = 0,       // every case ran (ok or mistrusted)
  kExitFailed = 1,   // a case failed (wrong answer, error), or the results could not be written
  kExitUsage = 2,    // bad command line, --filter, or an output that exists or cannot be created
  kExitSkipped = 77  // every case was skipped (the reason on stderr): ctest's SKIP
};

// Below this share of its threads' CPU time a timed repetition is mistrusted: something else ran.
// Two threads sharing one CPU get at most 0.5, so 0.75 catches oversubscription with a margin,
// while a quiet machine gives 0.95 and more. One rule for every binary (threads of one process,
// or each rank of an MPI job: the lowest rank's share counts).
inline constexpr double kMinCpuUtilization = 0.75;
// Above `threads` + this many CPUs' worth of CPU time a timed repetition is mistrusted the other way:
// more threads ran than the row says (a library's pool left at another case's count). A quiet
// repetition of N threads uses N CPUs and a little less; one stray thread adds a whole CPU while it
// works.
inline constexpr double kMaxExtraCpus = 0.3;
// ok, or mistrusted with the reason in *note, for a repetition whose threads had `utilization` of
// their CPU time (cpu seconds / (wall seconds x threads)): too little (something else competed) or
// too much (more threads than `threads` worked). `working_threads`, where known (> 0): the threads
// of the process that each worked a share of the repetition (threads.hpp); more than `threads` is
// mistrusted too, since a binding to `threads` CPUs hides the CPU time of a thread too many. Every
// repetition is mistrusted when the binary runs emulated (emulation.hpp), whatever its share.
Status trust(double utilization, int threads, std::string* note, int working_threads = 0);
// A repetition the benchmark times by its own clock, without trust()'s CPU share (the io area's data
// pipeline, a kernel-timed case): ok, or mistrusted under emulation with the reason in *note.
Status trust_emulated(std::string* note);

// Which shared options a binary takes, and its defaults per profile (tiny, quick, full).
struct SharedOptions {
  bool threads = true;   // --threads: a thread sweep
  bool sizes = true;     // --sizes: a size sweep
  bool min_time = true;  // --min-time: repetitions timed to a minimum duration
  int reps[3] = {3, 5, 10};
  double min_time_s[3] = {0.01, 0.2, 0.5};
};

// This process's rank in a job a launcher started (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID),
// 0 when none: known before MPI_Init, so that only rank 0 reports a bad command line.
int launcher_rank();

class Session {
 public:
  // `about`: one line for --help.
  Session(const char* argv0, std::string about, SharedOptions shared = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Add the binary's own flags here before parse().
  CLI::App& app();
  // The shared options; complete after parse().
  CommonOptions& options() { return opt_; }
  const CommonOptions& options() const { return opt_; }
  // The binary's name without its directory.
  const std::string& prog() const { return prog_; }

  // The CPUs this process may use when the affinity mask does not show them (the harness passes
  // the union of the OpenMP places: OMP_PROC_BIND binds the initial thread before main).
  void set_allowed_cpus(std::vector<int> cpus) { allowed_cpus_ = std::move(cpus); }
  // Rank-0 mode: only rank `rank == 0` prints, lists and writes rows. Defaults to launcher_rank().
  void set_rank(int rank) { rank_ = rank; }
  bool reporting_rank() const { return rank_ == 0; }

  // Parses argv: the shared options and the CPU budget, --filter (compiled here), then `validate`
  // (the binary's own checks and its plan, which may call selected(): throw std::invalid_argument
  // or any std::exception). Returns nothing to go on, or the exit code to return now: 0 after
  // --help, kExitUsage with the reason printed (on the reporting rank).
  std::optional<int> parse(int argc, char** argv, const std::function<void()>& validate = {});

  // --filter over "benchmark/case".
  bool selected(const std::string& benchmark, const std::string& case_name) const;
  // --list given: the binary lists its cases (list_case) and returns list_done().
  bool listing() const { return opt_.list; }
  void list_case(const std::string& benchmark, const std::string& case_name, const std::string& details) const;
  // After selecting: kExitUsage with "no case matches --filter" when nothing was selected.
  std::optional<int> require_cases(size_t selected_cases) const;

  // Opens <out>/<stem>.csv.partial, refusing an existing <stem>.csv (results are never
  // overwritten). On the reporting rank only; false (reason printed) when it cannot: exit 2.
  bool open_results();
  // The result file's final path.
  std::string results_path() const;
  // One row (run_id filled in). Off the reporting rank: nothing. Throws std::runtime_error naming
  // the file and the cause when the row cannot be written (a full disk): let it reach run().
  void row(const std::string& benchmark, const std::string& case_name, const std::string& params,
           const std::string& metric, double value, const std::string& unit, int repetition, Status status,
           const std::string& note = "");
  void row(ResultRow r);
  // Rows written so far (for derived rows).
  const std::vector<ResultRow>& written() const;

  // Case outcomes, for the exit code and the lines that reproduce a failure.
  void case_ok() { ++cases_; }
  void case_skipped(const std::string& reason);
  // `rerun`: the arguments that rerun it (default: --filter '^benchmark/case$').
  void case_failed(const std::string& benchmark, const std::string& case_name, const std::string& why,
                   const std::string& rerun = "");

  // Runs the binary's body: an exception that escapes it (a result that cannot be written, a
  // failed set-up) is reported as FAILED with its reason and gives kExitFailed, after `on_fatal`
  // (e.g. MPI_Abort, so that the other ranks do not wait forever). Then finish().
  int run(const std::function<void()>& body, const std::function<void()>& on_fatal = {});
  // Closes the CSV (renamed from .partial) and returns the exit code: kExitFailed if a case failed
  // or a write failed, kExitSkipped if every case was skipped (the first reason printed), else 0.
  // Prints one FAILED line per failed case with the command that reruns it.
  int finish();

 private:
  std::string prog_, argv0_;
  SharedOptions shared_;
  CommonOptions opt_;
  std::unique_ptr<CLI::App> app_;
  std::vector<int> allowed_cpus_;
  int rank_ = 0;
  struct Filter;
  std::unique_ptr<Filter> filter_;
  std::unique_ptr<ResultWriter> writer_;
  size_t cases_ = 0, skipped_ = 0;
  std::string first_skip_;
  std::vector<std::string> failures_;
  bool fatal_ = false, finished_ = false;
};

}  // namespace rigcheck
