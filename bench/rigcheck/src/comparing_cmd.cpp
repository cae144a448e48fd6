// compare, history, noise and ab on the command line: their options, the runs they read (folders, or
// the store's selected runs) and how each is run (comparing_cmd.hpp).
#include "comparing_cmd.hpp"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "rigcheck/compare/run_digest.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/split.hpp"
#include "rigcheck/run/runner.hpp"
#include "rigcheck/store/records.hpp"
#include "rigcheck/store/schema.hpp"
#include "rigcheck/store/select.hpp"
#include "rigcheck/store/store.hpp"

namespace rigcheck {

namespace {
std::vector<std::string> split_commas(const std::string& s) { return split_fields(s, ','); }

// The runs a comparing command reads: the given folders, or, with --db, the selected runs of the
// store (`stored` reads them: CompareOptions::read), each named as a folder that stands for it.
std::vector<std::string> runs_from(const StoreSelection& sel, const std::vector<std::string>& items,
                                   std::unique_ptr<StoreBackend>& db, std::unique_ptr<StoredRuns>& stored) {
  if (sel.db.empty()) {
    if (!sel.terms().empty())
      throw std::invalid_argument("--machine, --since, --until, --where and --last select from a store: give --db");
    return items;
  }
  if (!db) db = open_store(sel.db);
  const std::vector<std::string> picks = sel.selections(items);
  if (picks.empty())
    throw std::invalid_argument(
        "--db: give the runs as selections (e.g. 'machine=HOST,since=DATE') or --machine/--since");
  if (!stored) stored = std::make_unique<StoredRuns>(*db);
  return stored->add(select_runs(*db, picks));
}

}  // namespace

void ComparingCommands::add_common(CLI::App* c, CompareOptions& o, bool with_out) {
  c->add_option("--threshold", o.stat.threshold_pct, "flag only changes of at least this many percent")
      ->capture_default_str();
  c->add_option("--alpha", o.stat.alpha, "two-sided level of the intervals and tests")->capture_default_str();
  c->add_option("--noise-k", o.stat.noise_k, "flag only changes of at least K x the case's run-to-run noise")
      ->capture_default_str();
  c->add_option("--noise", o.noise_path,
                "noise profile of this machine (noise.csv from rigcheck run --repeat N or rigcheck noise)");
  c->add_option("--seed", o.stat.seed, "seed of the bootstrap (the output is the same for the same seed)")
      ->capture_default_str();
  c->add_option("--fail-on-regression", o.fail_pct, "exit 1 when a flagged regression exceeds PCT percent");
  if (!with_out) return;
  c->add_option("--out", o.out_dir,
                "folder for the .md, .csv and .html (files there are never overwritten); "
                "without it the Markdown goes to stdout");
  c->add_flag("--exclude-broken", o.exclude_broken,
              "leave out broken or incompatible runs, saying why, instead of stopping");
  c->add_option("--confounders", o.confounders_path, "confounders CSV (default: data/confounders.csv)");
  c->add_option("--plots", o.plots_path, "plot descriptions CSV (default: data/plots.csv)");
}

void ComparingCommands::add(CLI::App& app) {
  compare_cmd = app.add_subcommand("compare", "runs side by side (vendors, machines): the first run is the baseline");
  compare_cmd->add_option("runs", compare_dirs, "two or more run folders, baseline first (or --a and --b)")
      ->expected(0, 1000);
  compare_cmd
      ->add_option("--a", co.side_a,
                   "the runs of side A (the baseline): two or more make the comparison judge run-to-run noise")
      ->expected(1, 1000);
  compare_cmd->add_option("--b", co.side_b, "the runs of side B")->expected(1, 1000);
  compare_sel.add(compare_cmd, true);
  compare_cmd->add_option("--prices", co.prices_path,
                          "CSV run,price,power_w (run: folder name or hostname): "
                          "adds performance per price and per watt");
  compare_cmd->add_option("--claims", co.claims_path, "claims registry CSV (default: data/claims.csv)");
  compare_cmd->add_flag("--fail-on-verdict-flip", co.fail_on_verdict_flip,
                        "exit 1 when any claim's verdict differs between the runs (each judged by itself)");
  add_common(compare_cmd, co);
  history_cmd = app.add_subcommand("history", "one machine's runs in time order: change points and what changed there");
  history_cmd->add_option("runs", history_dirs, "two or more run folders of one machine, any order")->expected(0, 1000);
  history_sel.add(history_cmd, true);
  ho.stat.alpha = 0.001;  // Apache Otava's default for change points: a history tests many points
  add_common(history_cmd, ho);
  history_cmd
      ->add_option("--group-by", group_by,
                   "several machines or versions side by side on one time axis, each its own series and change "
                   "points: machine (the store's fingerprint), driver (the NVIDIA driver) or cpu_model")
      ->check(CLI::IsMember({"machine", "driver", "cpu_model"}));
  noise_cmd = app.add_subcommand(
      "noise", "noise profile of this machine from runs of it: noise.csv (run-to-run spread per case)");
  noise_cmd->add_option("runs", noise_dirs, "two or more run folders of one machine (three or more is better)")
      ->expected(0, 1000);
  noise_sel.add(noise_cmd, true);
  noise_cmd->add_option("--out", noise_out, "the file to write (never overwritten)")->capture_default_str();
  noise_cmd->add_flag("--exclude-broken", no.exclude_broken, "leave out broken or incompatible runs, saying why");
  ab_cmd = app.add_subcommand("ab", "interleaved A/B on this machine: A and B alternated in random order for N rounds");
  ab_cmd->add_option("--a", ab.a,
                     "side A: KEY=VALUE words (its environment) and/or a prefix folder (lib/, bin/rigcheck)");
  ab_cmd->add_option("--b", ab.b, "side B: the same");
  ab_cmd->add_option("--rounds", ab.rounds, "rounds (each runs A and B once)")->capture_default_str();
  ab_cmd->add_option("--only", ab_only, "areas, e.g. cpu");
  ab_cmd->add_option("--select", ab_select,
                     "benchmarks of data/benchmarks.csv, comma-separated, to keep a round short");
  ab_cmd->add_option("--filter", ab.filter, "only cases whose benchmark/case matches this regex");
  ab_cmd->add_option("--profile", ab.profile, "tiny | quick | full")->capture_default_str();
  ab_cmd->add_option("--out", ab.out_root, "folder that receives the ab folder")->capture_default_str();
  ab_cmd->add_option("--analyze", ab_analyze, "analyse an ab folder again (order.csv and its runs) instead of running");
  add_common(ab_cmd, ab.compare, false);
}

int ComparingCommands::run() {
  std::unique_ptr<StoreBackend> db;  // --db: the store the selected runs are read from
  std::unique_ptr<StoredRuns> stored;
  auto from_store = [&stored](CompareOptions& o) {
    if (!stored) return;
    o.read = [&stored](const std::string& dir) { return stored->read(dir); };
    o.verdicts_text = [&stored](const std::string& dir) { return stored->verdicts_csv(dir); };
    // A run with a digest of today's key is read from it (run_digest.hpp), the others from their files.
    o.cached = [&stored, key = run_digest_key(read_case_rules())](const std::string& dir, LoadedRun& out) {
      std::string body;
      if (!stored->digest(dir, key, body)) return false;
      out = decode_run_digest(body, dir);
      return true;
    };
  };
  if (*compare_cmd) {
    if (co.side_a.empty() || !compare_dirs.empty()) compare_dirs = runs_from(compare_sel, compare_dirs, db, stored);
    if (!co.side_a.empty()) co.side_a = runs_from(compare_sel, co.side_a, db, stored);
    if (!co.side_b.empty()) co.side_b = runs_from(compare_sel, co.side_b, db, stored);
    from_store(co);
    return run_compare(compare_dirs, co);
  }
  if (*history_cmd) {
    const std::vector<std::string> dirs = runs_from(history_sel, history_dirs, db, stored);
    from_store(ho);
    ho.group_by = group_by;
    if (group_by == "machine")  // the machine as the store names it, whether the run is stored or a folder
      ho.group_of = [](const LoadedRun& r) {
        const auto it = r.data.inventory.find("cpu_model");
        return (it == r.data.inventory.end() ? std::string("?") : it->second) + " (" +
               machine_facts(r.data.inventory).fingerprint.substr(0, 8) + ")";
      };
    // The runs (~400 MB of maps over 1,000 quick runs) and the store's connection are left to the
    // kernel, not freed piece by piece (15% of the time); the output and temporary folder first.
    std::vector<LoadedRun> kept;
    ho.keep_runs = &kept;
    const int rc = run_history(dirs, ho);
    stored.reset();
    std::fflush(nullptr);
    std::_Exit(rc);
  }
  if (*noise_cmd) {
    const std::vector<std::string> dirs = runs_from(noise_sel, noise_dirs, db, stored);
    from_store(no);
    return run_noise(dirs, noise_out, no);
  }
  if (!ab_analyze.empty()) return analyze_ab(ab_analyze, ab.compare);
  ab.only = split_commas(ab_only);
  ab.select = split_commas(ab_select);
  ab.rigcheck_path = executable_dir() + "/rigcheck";
  return run_ab(ab);
}

}  // namespace rigcheck
