// `rigcheck report`: reads a run folder, judges every claim of the guide, writes report.md
// and verdicts.csv. The claims and their evaluators: rigcheck/claims/claim.hpp; the run folder:
// rigcheck/runfolder/run_folder.hpp. A folder whose runner died is finished first by the CLI
// (recover_dead_run, rigcheck/run/runner.hpp), which passes what it did in `recovered`.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/claims/claim.hpp"

namespace rigcheck {

struct ReportOptions {
  std::string claims_path;      // default: the registry in data/
  bool quiet = false;           // do not print the table
  double step_budget_s = 0;     // NET-1: seconds per step the all-reduce may take (0: the evaluator's stated default)
  bool exclude_broken = false;  // judge without the broken result files, saying which and why (ReadRunOptions)
  std::string recovered;        // what recovering a dead runner's folder did, in words (shown as a warning)
};
// Writes report.md and verdicts.csv into the run folder (each written whole, then renamed).
// Returns the verdicts. Throws InputError (bad input: nothing is written).
std::vector<Verdict> make_report(const std::string& run_dir, const ReportOptions& opt);

}  // namespace rigcheck
