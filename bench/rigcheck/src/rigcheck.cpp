// rigcheck: the suite's command: run, report, inventory, schema (docs/csv-schema.md), capacity (what
// this machine can train: report/src/capacity.cpp), compare, history, noise and ab (bench/compare/src/),
// store add|list|verify|export-run (bench/store, docs/store.md), export --format (report/export.hpp: exporters())
// (report/src/export*.cpp), median CSV... --case B/C --metric M (a case's median, for scripts).
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "comparing_cmd.hpp"
#include "inventory_cmd.hpp"
#include "rigcheck/report/capacity.hpp"
#include "rigcheck/report/export.hpp"
#include "rigcheck/compare/compare.hpp"
#include "rigcheck/compare/run_digest.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/run/huge_pages.hpp"
#include "rigcheck/run/runner.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/harness/paths.hpp"
#include "rigcheck/harness/split.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/store/schema.hpp"
#include "rigcheck/store/select.hpp"
#include "rigcheck/store/store.hpp"

using namespace rigcheck;

namespace {
std::vector<std::string> split_commas(const std::string& s) { return split_fields(s, ','); }

// `rigcheck run --repeat N`: N runs back to back into one new folder, then its noise profile.
int run_repeated(RunOptions run, int n) {
  const std::string parent = create_run_dir(run.results_root, "noise-" + host_name(), utc_timestamp_compact());
  run.results_root = parent;
  std::vector<std::string> dirs;
  int rc = 0;
  for (int i = 1; i <= n; ++i) {
    std::fprintf(stderr, "rigcheck run --repeat %d: run %d of %d\n", n, i, n);
    std::string dir;
    const int r = run_suite(run, &dir);
    if (!dir.empty()) dirs.push_back(dir);
    if (r == 130 || r == 2) return r;  // interrupted, or bad options: no profile of a part
    rc = std::max(rc, r);
  }
  CompareOptions co;
  co.exclude_broken = true;
  run_noise(dirs, parent + "/noise.csv", co);
  // The reports written during the runs had no profile yet: remade now, their predicted intervals
  // carry this machine's own run-to-run noise (docs/methodology.md "Predicted scaling").
  for (const std::string& d : dirs) {
    ReportOptions ro;
    ro.claims_path = run.claims_path;
    ro.step_budget_s = run.step_budget_s;
    ro.quiet = true;
    try {
      make_report(d, ro);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rigcheck run --repeat: the report of %s failed: %s\n", d.c_str(), e.what());
      rc = std::max(rc, 1);
    }
  }
  std::printf("Runs: %s/*/ (%d), reports remade with the noise profile; noise profile: %s/noise.csv\n", parent.c_str(),
              n, parent.c_str());
  return rc;
}

// run and report: a run folder made, or judged again.
struct RunAndReport {
  RunOptions run;
  std::string only, select;
  int repeat = 1;
  std::string report_dir;
  ReportOptions ro;
  CLI::App *run_cmd = nullptr, *report_cmd = nullptr;

  void add(CLI::App& app) {
    run_cmd = app.add_subcommand("run", "inventory, every benchmark, then the report, in results/<host>-<UTC time>/");
    run_cmd->add_option("--profile", run.profile, "tiny | quick | full")->capture_default_str();
    run_cmd->add_option("--only", only, "areas to run, e.g. cpu,memory");
    run_cmd->add_option("--out", run.results_root, "folder that receives the run folder")->capture_default_str();
    run_cmd->add_option("--bin-dir", run.bin_dir, "where the benchmark binaries are (default: beside rigcheck)");
    run_cmd->add_option("--benchmarks", run.registry_path, "benchmark registry CSV (default: data/benchmarks.csv)");
    run_cmd->add_option("--claims", run.claims_path, "claims registry CSV (default: data/claims.csv)");
    run_cmd->add_option("--timeout-scale", run.timeout_scale, "multiply every benchmark's timeout");
    run_cmd
        ->add_option("--budget", run.budget_s,
                     "seconds for the whole run, shared among the benchmarks by their reference times; a case "
                     "cut short says so (default: 240 for the quick profile, 1620 for full, none for tiny; 0: none)")
        ->check(CLI::NonNegativeNumber);
    run_cmd->add_option(
        "--launcher", run.launcher,
        "command that starts the comm benchmarks, one process per rank, e.g. \"mpirun -np 8 --hostfile hosts\" "
        "or \"srun -N 2 --ntasks-per-node 4\" (default: " +
            default_launcher() + ")");
    run_cmd->add_option("--exec-prefix", run.exec_prefix,
                        "command each benchmark binary is started through, e.g. "
                        "\"qemu-aarch64 -L SYSROOT\" (an aarch64 build on x86-64: docs/arm.md)");
    run_cmd->add_option("--step-budget", run.step_budget_s,
                        "NET-1: seconds of each training step the all-reduce may take (default 1)");
    run_cmd
        ->add_option(
            "--memory-limit", run.memory_limit_gib,
            "GiB of address space each benchmark may take (RLIMIT_AS; not the gpu area, whose CUDA reserves far more "
            "than it uses): one that needs more fails with the cause named, and the run goes on (default: no limit)")
        ->check(CLI::NonNegativeNumber);
    run_cmd->add_option("--select", select, "only these benchmarks (names of data/benchmarks.csv, comma-separated)");
    run_cmd->add_option(
        "--case-filter", run.case_filter,
        "only cases whose benchmark/case matches this ECMAScript regex (given to every benchmark as --filter)");
    run_cmd
        ->add_option("--repeat", repeat,
                     "run the profile N times back to back, each into its own folder, in a new folder "
                     "<out>/noise-<host>-<time>/ that also receives noise.csv: the run-to-run noise of every case")
        ->check(CLI::Range(1, 1000));

    report_cmd = app.add_subcommand("report", "judge every claim from a run folder: report.md, verdicts.csv");
    report_cmd->add_option("run_dir", report_dir, "results/<run-id>")->required();
    report_cmd->add_option("--claims", ro.claims_path, "claims registry CSV (default: data/claims.csv)");
    report_cmd->add_flag("--quiet", ro.quiet, "do not print the table");
    report_cmd->add_flag("--exclude-broken", ro.exclude_broken,
                         "judge without the result files that fail their manifest checksums (cut, edited, missing, "
                         "added), listing them with the reason, instead of refusing the folder");
    report_cmd->add_option("--step-budget", ro.step_budget_s,
                           "NET-1: seconds of each training step the gradient all-reduce may take (default 1)");
  }
  bool chosen() const { return *run_cmd || *report_cmd; }
  int run_chosen() {
    if (*run_cmd) {
      run.only = split_commas(only);
      run.select = split_commas(select);
      return repeat > 1 ? run_repeated(run, repeat) : run_suite(run);
    }
    recover_and_report(report_dir, ro);
    std::printf("\nReport: %s/report.md\nVerdicts: %s/verdicts.csv\n", report_dir.c_str(), report_dir.c_str());
    return 0;
  }
};

// capacity, list, schema and median: what the machine can train, the registry, the CSV schema, a case's median.
struct Answers {
  std::string capacity_dir, list_registry;
  std::vector<std::string> median_files;
  std::string median_case, median_metric;
  bool median_observed = false;
  CapacityOptions cap;
  CLI::App *capacity_cmd = nullptr, *list_cmd = nullptr, *schema_cmd = nullptr, *median_cmd = nullptr;

  void add(CLI::App& app) {
    capacity_cmd = app.add_subcommand(
        "capacity",
        "what this machine can train: per zoo model the largest batch that fits in memory (fitted to the "
        "measured peaks), the step time and samples/s there, and what limits the step");
    capacity_cmd->add_option("run_dir", capacity_dir, "results/<run-id>")->required();
    capacity_cmd->add_option("--model-csv", cap.model_csv,
                             "your own models by shape: CSV name,params,activation_bytes_per_sample,flops_per_sample "
                             "(training flops, forward + backward, per sample): a model-based estimate from the "
                             "measured machine figures");
    capacity_cmd->add_option("--margin", cap.margin_fraction, "fraction of the total memory kept free")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 0.9));
    schema_cmd = app.add_subcommand("schema", "print the result CSV schema as Markdown");
    list_cmd = app.add_subcommand("list",
                                  "the benchmarks of the registry: name (what --select takes), area, "
                                  "timeout per profile, what each measures");
    list_cmd->add_option("--benchmarks", list_registry, "benchmark registry CSV (default: data/benchmarks.csv)");
    median_cmd = app.add_subcommand("median",
                                    "the median of one case's metric over its ok repetitions in result CSVs, "
                                    "read by the suite's own reader: prints MEDIAN COUNT (exit 1 when none)");
    median_cmd->add_option("files", median_files, "result CSVs (e.g. the peers' STEM.csv)")
        ->required()
        ->expected(1, 1000);
    median_cmd->add_option("--case", median_case, "BENCHMARK/CASE, e.g. gpu_gemm/bf16/n8192")->required();
    median_cmd->add_option("--metric", median_metric, "the metric, e.g. gflops")->required();
    median_cmd->add_flag("--observed", median_observed,
                         "the rows observed over a whole case (repetition -1, e.g. single_call_gflops), one per file, "
                         "instead of the repetitions");
  }
  bool chosen() const { return *capacity_cmd || *list_cmd || *schema_cmd || *median_cmd; }
  int run_chosen() {
    if (*capacity_cmd) {
      std::fputs(("# What this machine can train\n\n" + capacity_md(capacity_of(read_run(capacity_dir), cap))).c_str(),
                 stdout);
      return 0;
    }
    if (*median_cmd) return median_of_case();
    if (*list_cmd) {
      std::fputs(format_benchmark_list(
                     read_benchmark_registry(list_registry.empty() ? data_dir() + "/benchmarks.csv" : list_registry))
                     .c_str(),
                 stdout);
      return 0;
    }
    std::printf("| column | type | unit | meaning |\n|---|---|---|---|\n");
    for (const Column& c : kResultColumns) std::printf("| `%s` | %s | %s | %s |\n", c.name, c.type, c.unit, c.meaning);
    std::printf(
        "\nRows with repetition -1 that adaptive repetitions add to every timed case (off in the tiny profile; "
        "docs/methodology.md, Timing and noise):\n\n| metric | unit | meaning |\n|---|---|---|\n");
    for (const auto& m : kAdaptiveRepsRows) std::printf("| `%s` | %s | %s |\n", m[0], m[1], m[2]);
    std::printf("\nschema_version: %d\n", kSchemaVersion);
    return 0;
  }
  // scripts/gpu-check.sh reads the peers' figures through this: quoted fields, a comma in params and
  // the schema are the reader's concern (read_results), not a split on raw commas.
  int median_of_case() const {
    std::vector<double> v;
    for (const std::string& f : median_files)
      for (const ResultRow& r : read_results(f))
        if (r.benchmark + "/" + r.case_name == median_case && r.metric == median_metric && r.status == Status::ok &&
            (median_observed ? r.repetition == -1 : r.repetition >= 0) && std::isfinite(r.value))
          v.push_back(r.value);
    if (v.empty()) {
      std::fprintf(stderr, "rigcheck median: no ok %s of %s %s in %zu file(s)\n",
                   median_observed ? "observed row" : "repetition", median_case.c_str(), median_metric.c_str(),
                   median_files.size());
      return 1;
    }
    std::printf("%.9g %zu\n", median(v), v.size());
    return 0;
  }
};
// export: one run in the formats other tools read (bench/report/src/export*.cpp, docs/exports.md).
struct Exporting {
  std::string run_dir, format, out, claims;
  CLI::App* cmd = nullptr;

  void add(CLI::App& app) {
    std::string help, names;
    std::vector<std::string> choices;
    for (const Exporter& e : exporters()) {
      help += std::string(help.empty() ? "" : ", ") + e.reader;
      names += std::string(names.empty() ? "" : " | ") + e.name;
      choices.push_back(e.name);
    }
    cmd = app.add_subcommand("export", "one run for the tools teams already use: " + help);
    cmd->add_option("run_dir", run_dir, "results/<run-id> (verified first: a broken folder is refused)")->required();
    cmd->add_option("--format", format, names)->required()->check(CLI::IsMember(choices));
    cmd->add_option("--out", out, "file to write (never overwritten); without it the export goes to stdout");
    cmd->add_option("--claims", claims, "claims registry CSV (default: data/claims.csv)");
  }
  int run() const {
    const std::string text = find_exporter(format)->write(read_export_input(run_dir, claims));
    if (out.empty())
      std::fputs(text.c_str(), stdout);
    else
      write_new_file(out, text);
    return 0;
  }
};

// store: run folders into the results store and back (bench/store, docs/store.md).
struct StoreCommands {
  std::string db;
  std::vector<std::string> add_dirs;
  StoreSelection filter;
  long long export_id = 0;
  std::string export_dir;
  CLI::App *store_cmd = nullptr, *add_cmd = nullptr, *list_cmd = nullptr, *verify_cmd = nullptr, *export_cmd = nullptr;

  void add(CLI::App& app) {
    store_cmd =
        app.add_subcommand("store", "the results store: run folders into one database (SQLite or PostgreSQL) and back");
    store_cmd->require_subcommand(1);
    add_cmd = store_cmd->add_subcommand("add",
                                        "verify each run folder, then store it in one transaction "
                                        "(a broken folder is refused, nothing written; a stored run adds nothing)");
    add_cmd->add_option("runs", add_dirs, "run folders")->required()->expected(1, 100000);
    list_cmd = store_cmd->add_subcommand("list", "the stored machines and runs");
    filter.add(list_cmd, false);
    verify_cmd =
        store_cmd->add_subcommand("verify", "re-check every stored file against the SHA-256 recorded on import");
    export_cmd = store_cmd->add_subcommand("export-run", "write a stored run back as a run folder, byte for byte");
    export_cmd->add_option("run_id", export_id, "the run's id (rigcheck store list)")->required();
    export_cmd->add_option("dir", export_dir, "the folder to make (never an existing one)")->required();
    for (CLI::App* c : {add_cmd, list_cmd, verify_cmd, export_cmd})
      c->add_option("--db", db,
                    "the store: a SQLite file or a postgresql:// URL (default: $RIGCHECK_DB, else "
                    "results/rigcheck.db)");
  }
  bool chosen() const { return store_cmd->parsed(); }
  int run() {
    std::unique_ptr<StoreBackend> s = open_store(db.empty() ? default_store_path() : db);
    if (*list_cmd) return std::fputs(store_list(*s, parse_run_selector(filter.terms())).c_str(), stdout), 0;
    if (*export_cmd) {
      const std::string set = store_export_run(*s, export_id, export_dir);
      return std::printf("Run %lld of %s written to %s%s%s\n", export_id, s->describe().c_str(), export_dir.c_str(),
                         set.empty() ? "" : "; ", set.c_str()),
             0;
    }
    if (*verify_cmd) {
      const StoreVerifyResult v = store_verify(*s);
      for (const std::string& p : v.problems) std::printf("DIFFERS: %s\n", p.c_str());
      std::printf("%s: %ld files of %ld runs checked, %zu differ from what was imported\n", s->describe().c_str(),
                  v.files, v.runs, v.problems.size());
      return v.problems.empty() ? 0 : 1;
    }
    int rc = 0;
    const CaseRules rules = read_case_rules();  // each run's digest from its files, as load_run reads them
    const RunDigester digest = [&rules, key = run_digest_key(rules)](const RunFiles& files) {
      const LoadedRun r = load_run(files.dir, rules, [&files](const std::string&) { return read_run(files); });
      return RunDigest{key, encode_run_digest(r)};
    };
    for (const StoreAddOutcome& o : store_add(*s, add_dirs, digest)) {
      const bool refused = o.what == StoreAddOutcome::What::refused;
      std::fprintf(refused ? stderr : stdout, "%s%s: %s\n", refused ? "REFUSED " : "", o.dir.c_str(),
                   o.message.c_str());
      if (refused) rc = 1;
    }
    return rc;
  }
};

}  // namespace

int main(int argc, char** argv) {
  malloc_on_huge_pages(argc, argv);
  CLI::App app{"rigcheck: checks a hardware buying guide's performance claims on this machine"};
  app.require_subcommand(1);
  RunAndReport run_report;
  run_report.add(app);
  Answers answers;
  answers.add(app);
  InventoryCommand inventory;
  inventory.add(app);
  ComparingCommands comparing;
  comparing.add(app);
  Exporting exporting;
  exporting.add(app);
  StoreCommands store;
  store.add(app);

  CLI11_PARSE(app, argc, argv);
  try {
    if (run_report.chosen()) return run_report.run_chosen();
    if (answers.chosen()) return answers.run_chosen();
    if (inventory.chosen()) return inventory.run();
    if (comparing.chosen()) return comparing.run();
    if (*exporting.cmd) return exporting.run();
    if (store.chosen()) return store.run();
  } catch (const std::exception& e) {  // InputError among them: the file and line are in what()
    std::fprintf(stderr, "rigcheck: %s\n", e.what());
    return 1;
  }
  return 0;
}
