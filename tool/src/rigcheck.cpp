// rigcheck: the suite's command. `rigcheck run`, `rigcheck report RUN_DIR`, `rigcheck inventory`,
// `rigcheck schema` (the result CSV schema as Markdown, for docs/csv-schema.md),
// `rigcheck compare RUN...` and `rigcheck history RUN...` (compare.cpp, history.cpp).
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rigcheck/tool/compare.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/tool/report.hpp"
#include "rigcheck/tool/runner.hpp"
#include "rigcheck/harness/schema.hpp"

using namespace rigcheck;

int main(int argc, char** argv) {
  CLI::App app{"rigcheck: checks a hardware buying guide's performance claims on this machine"};
  app.require_subcommand(1);

  RunOptions run;
  std::string only;
  auto* run_cmd = app.add_subcommand("run", "inventory, every benchmark, then the report, in results/<host>-<UTC time>/");
  run_cmd->add_option("--profile", run.profile, "tiny | quick | full")->capture_default_str();
  run_cmd->add_option("--only", only, "areas to run, e.g. cpu,memory");
  run_cmd->add_option("--out", run.results_root, "folder that receives the run folder")->capture_default_str();
  run_cmd->add_option("--bin-dir", run.bin_dir, "where the benchmark binaries are (default: beside rigcheck)");
  run_cmd->add_option("--benchmarks", run.registry_path, "benchmark registry CSV (default: data/benchmarks.csv)");
  run_cmd->add_option("--claims", run.claims_path, "claims registry CSV (default: data/claims.csv)");
  run_cmd->add_option("--timeout-scale", run.timeout_scale, "multiply every benchmark's timeout");
  run_cmd->add_option("--launcher", run.launcher,
                      "command that starts the comm benchmarks, one process per rank, e.g. \"mpirun -np 8 --hostfile hosts\" "
                      "or \"srun -N 2 --ntasks-per-node 4\" (default: " + default_launcher() + ")");
  run_cmd->add_option("--step-budget", run.step_budget_s,
                      "NET-1: seconds of each training step the gradient all-reduce may take (default 1)");
  run_cmd->add_option("--memory-limit", run.memory_limit_gib,
                      "GiB of address space each benchmark may take (RLIMIT_AS; not the gpu area, whose CUDA reserves far more than it uses): one that needs more fails with the cause named, and the run goes on (default: no limit)")
      ->check(CLI::NonNegativeNumber);

  std::string report_dir;
  ReportOptions ro;
  auto* report_cmd = app.add_subcommand("report", "judge every claim from a run folder: report.md, verdicts.csv");
  report_cmd->add_option("run_dir", report_dir, "results/<run-id>")->required();
  report_cmd->add_option("--claims", ro.claims_path, "claims registry CSV (default: data/claims.csv)");
  report_cmd->add_flag("--quiet", ro.quiet, "do not print the table");
  report_cmd->add_flag("--exclude-broken", ro.exclude_broken,
                       "judge without the result files that fail their manifest checksums (cut, edited, missing, "
                       "added), listing them with the reason, instead of refusing the folder");
  report_cmd->add_option("--step-budget", ro.step_budget_s,
                         "NET-1: seconds of each training step the gradient all-reduce may take (default 1)");

  std::string inv_out = "inventory.csv";
  auto* inv_cmd = app.add_subcommand("inventory", "write this machine's inventory");
  inv_cmd->add_option("--out", inv_out, "file to write (never overwritten)")->capture_default_str();

  auto* schema_cmd = app.add_subcommand("schema", "print the result CSV schema as Markdown");

  std::vector<std::string> compare_dirs, history_dirs;
  CompareOptions co, ho;
  auto add_common = [](CLI::App* c, CompareOptions& o) {
    c->add_option("--threshold", o.threshold_pct, "flag only changes of at least this many percent")->capture_default_str();
    c->add_option("--alpha", o.alpha, "significance level of the two-sided Mann-Whitney U test")->capture_default_str();
    c->add_option("--fail-on-regression", o.fail_pct, "exit 1 when a flagged regression exceeds PCT percent");
    c->add_option("--out", o.out_dir, "folder for the .md, .csv and .html (files there are never overwritten); "
                                      "without it the Markdown goes to stdout");
    c->add_flag("--exclude-broken", o.exclude_broken, "leave out broken or incompatible runs, saying why, instead of stopping");
    c->add_option("--confounders", o.confounders_path, "confounders CSV (default: data/confounders.csv)");
    c->add_option("--plots", o.plots_path, "plot descriptions CSV (default: data/plots.csv)");
  };
  auto* compare_cmd = app.add_subcommand("compare", "runs side by side (vendors, machines): the first run is the baseline");
  compare_cmd->add_option("runs", compare_dirs, "two or more run folders, baseline first")->required()->expected(2, 1000);
  compare_cmd->add_option("--prices", co.prices_path, "CSV run,price,power_w (run: folder name or hostname): "
                                                      "adds performance per price and per watt");
  compare_cmd->add_option("--claims", co.claims_path, "claims registry CSV (default: data/claims.csv)");
  compare_cmd->add_flag("--fail-on-verdict-flip", co.fail_on_verdict_flip,
                        "exit 1 when any claim's verdict differs between the runs (each judged by itself)");
  add_common(compare_cmd, co);
  auto* history_cmd = app.add_subcommand("history", "one machine's runs in time order: regressions and what changed");
  history_cmd->add_option("runs", history_dirs, "two or more run folders of one machine, any order")->required()->expected(2, 1000);
  add_common(history_cmd, ho);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*run_cmd) {
      for (size_t s = 0, e; s <= only.size() && !only.empty(); s = e + 1) {
        e = only.find(',', s);
        if (e == std::string::npos) e = only.size();
        if (e > s) run.only.push_back(only.substr(s, e - s));
      }
      return run_suite(run);
    }
    if (*report_cmd) {
      make_report(report_dir, ro);
      std::printf("\nReport: %s/report.md\nVerdicts: %s/verdicts.csv\n", report_dir.c_str(), report_dir.c_str());
      return 0;
    }
    if (*inv_cmd) {
      if (FILE* f = std::fopen(inv_out.c_str(), "r")) {
        std::fclose(f);
        std::fprintf(stderr, "rigcheck inventory: %s exists; not overwritten\n", inv_out.c_str());
        return 2;
      }
      Inventory inv = collect_inventory();
      write_inventory_csv(inv, inv_out);
      for (auto& [k, v] : inv) std::printf("%s = %s\n", k.c_str(), v.c_str());
      return 0;
    }
    if (*compare_cmd) return run_compare(compare_dirs, co);
    if (*history_cmd) return run_history(history_dirs, ho);
    if (*schema_cmd) {
      std::printf("| column | type | unit | meaning |\n|---|---|---|---|\n");
      for (const Column& c : kResultColumns) std::printf("| `%s` | %s | %s | %s |\n", c.name, c.type, c.unit, c.meaning);
      std::printf("\nschema_version: %d\n", kSchemaVersion);
      return 0;
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "rigcheck: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck: %s\n", e.what());
    return 1;
  }
  return 0;
}
