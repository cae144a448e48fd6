#include "rigcheck/run/runner.hpp"
#include "rigcheck/harness/paths.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include "rigcheck/harness/fccp.hpp"

#include "rigcheck/harness/cli.hpp"
#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/inventory/inventory.hpp"
#include "rigcheck/runfolder/integrity.hpp"
#include "rigcheck/runfolder/needs.hpp"
#include "rigcheck/harness/process.hpp"
#include "rigcheck/harness/scratch_registry.hpp"
#include "rigcheck/report/report.hpp"
#include "rigcheck/runfolder/runlock.hpp"
#include "rigcheck/harness/topology.hpp"
#include "runner_internal.hpp"
#include "rigcheck/run/budget.hpp"

namespace rigcheck {

using namespace run_detail;

namespace {
volatile sig_atomic_t g_interrupted = 0;
int g_signal = 0;

void on_signal(int sig) {
  g_interrupted = 1;
  g_signal = sig;
  stop_children();
}

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" \t'\"\\$;&|<>*?()") == std::string::npos && !s.empty()) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

namespace {
// The other runs on this machine while this one ran: seen at each benchmark's start and end and
// every second while it runs; written to concurrent_runs.csv as they come, warned about once each.
struct Competitors {
  const RunLock* lock = nullptr;
  std::string file;
  std::vector<ConcurrentRun> seen;
  void check(const std::string& during) {
    if (!lock) return;
    bool changed = false;
    for (const OtherRun& o : lock->others()) {
      auto it = std::find_if(seen.begin(), seen.end(), [&](const ConcurrentRun& c) { return c.pid == o.pid; });
      if (it == seen.end()) {
        std::fprintf(stderr,
                     "\nrigcheck run: warning: another rigcheck run is going on on this machine (pid %d, "
                     "writing %s): it competes for the CPU, memory and disk, and this run's measurements from "
                     "%s on may be disturbed\n",
                     o.pid, o.run_dir.c_str(), during.c_str());
        seen.push_back({o.pid, o.run_dir, during, during});
        changed = true;
      } else if (it->last_seen != during) {
        it->last_seen = during;
        changed = true;
      }
    }
    if (changed) {
      try {
        write_file_atomic(file, format_concurrent_runs(seen));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rigcheck run: %s\n", e.what());
      }
    }
  }
};

struct Tick {
  std::string label;
  bool tty;
  Competitors* competitors;
  std::string benchmark;
};

void on_tick(double elapsed, void* ctx) {
  auto* t = static_cast<Tick*>(ctx);
  if (t->tty) std::fprintf(stderr, "\r%s %.0fs", t->label.c_str(), elapsed);
  t->competitors->check(t->benchmark);
}
}  // namespace

std::string both_filters(const std::string& a, const std::string& b) {
  return "^(?=[\\s\\S]*?(?:" + a + "))(?=[\\s\\S]*?(?:" + b + "))";
}

namespace {
// How the runner starts one benchmark: its command line (the registry's args, the requested case
// filter ANDed with the entry's own, the launcher where the args hold @launcher), its environment
// (the registry's, the child tag, the scratch registry) and the command as the manifest records it;
// `time_budget` > 0: its share of the run's --budget, as --time-budget.
struct Invocation {
  std::vector<std::string> argv, env;
  bool launched = false;
  std::string command;
};
Invocation invocation_of(const BenchmarkEntry& b, const RunOptions& opt, const std::string& exe, const std::string& dir,
                         const std::string& run_id, const std::string& launcher, const std::string& tag,
                         const std::string& scratch_list, double time_budget) {
  Invocation inv;
  inv.argv = {exe, "--profile", opt.profile, "--out", dir, "--stem", b.name, "--run-id", run_id};
  // Args holding the token @launcher: the benchmark runs one process per rank, started by the
  // launcher (mpirun, srun), never by a launcher of ours.
  bool filtered = false;
  for (auto& a : split_ws(b.args)) {
    if (a == "@launcher") {
      inv.launched = true;
    } else if (filtered && !opt.case_filter.empty()) {  // the entry's own filter AND the requested one
      inv.argv.push_back(both_filters(a, opt.case_filter));
      filtered = false;
    } else {
      inv.argv.push_back(a);
      filtered = a == "--filter";
    }
  }
  if (!opt.case_filter.empty() && std::find(inv.argv.begin(), inv.argv.end(), "--filter") == inv.argv.end()) {
    inv.argv.push_back("--filter");
    inv.argv.push_back(opt.case_filter);
  }
  if (time_budget > 0)  // its share of the run's --budget (budget.hpp)
    inv.argv.insert(inv.argv.end(), {"--time-budget", fmt::format("{:.1f}", time_budget)});
  if (!opt.exec_prefix.empty()) {  // an emulator the binary runs under (RunOptions::exec_prefix)
    std::vector<std::string> p = split_ws(opt.exec_prefix);
    inv.argv.insert(inv.argv.begin(), p.begin(), p.end());
  }
  if (inv.launched) {
    std::vector<std::string> l = split_ws(launcher);
    inv.argv.insert(inv.argv.begin(), l.begin(), l.end());
  }
  inv.env = split_ws(b.env);
  for (const auto& e : inv.env) inv.command += e + " ";
  for (size_t i = 0; i < inv.argv.size(); ++i) inv.command += (i ? " " : "") + shell_quote(inv.argv[i]);
  inv.env.push_back("RIGCHECK_CHILD_TAG=" + tag);
  // The processes a benchmark starts itself go through the prefix too (kExecPrefixEnv, emulation.hpp).
  if (!opt.exec_prefix.empty()) inv.env.push_back(std::string(kExecPrefixEnv) + "=" + opt.exec_prefix);
  // Scratch entries outside the run folder are registered here (io's files), so that what a
  // benchmark killed outright leaves behind is removed when it ends (scratch_cleanup.cpp).
  inv.env.push_back(std::string(kScratchRegistryEnv) + "=" + scratch_list);
  return inv;
}

// The manifest's status and reason for a benchmark whose process has ended: ok, skipped (exit 77
// with its SKIP line), interrupted, timeout or failed (the cause in words, then what it said).
// `launcher` is empty unless a launcher started it. False where the run counts it as a failure.
bool record_child_end(const ChildResult& r, double timeout, unsigned long long address_space_bytes,
                      const std::string& launcher, const std::string& kept_note, ManifestRow& m) {
  bool ok = true;
  const std::string cause = describe_child_end(r, address_space_bytes);
  if (r.interrupted) {
    m.status = "interrupted";
    // Inside a Slurm job that lost a node, Slurm cancels the job (SIGTERM): name the node it reported.
    m.reason = fmt::format("stopped by signal {}{}{}", g_signal,
                           launcher.empty() ? "" : slurm_node_failure(r.output_tail), kept_note);
    ok = false;
  } else if (r.timed_out) {
    m.status = "timeout";
    m.reason = fmt::format("killed after the {:.0f} s timeout{}{}", timeout,
                           r.needed_sigkill ? " (it ignored SIGTERM and got SIGKILL 5 s later)" : "", kept_note);
    ok = false;
  } else if (r.exit_code == 0) {
    m.status = "ok";
  } else if (r.exit_code == 77 && r.term_signal == 0) {
    m.status = "skipped";
    m.reason = reason_from_output(r.output_tail, "SKIP: ");
  } else {
    m.status = "failed";
    std::string said = !launcher.empty() ? launcher_failure(launcher, r.exit_code, r.output_tail)
                                         : reason_from_output(r.output_tail, "FAILED: ");
    // Killed by a signal, its last line is whatever it printed before, not a reason: only FAILED lines count.
    if (r.term_signal != 0 && r.output_tail.find("FAILED: ") == std::string::npos) said.clear();
    // The cause in words first (a signal, memory), then what the benchmark itself said.
    m.reason = cause.rfind("exited with status", 0) == 0 ? said : cause + (said.empty() ? "" : ": " + said);
    m.reason += kept_note;
    ok = false;
  }
  return ok;
}

// Where a benchmark is not started (its binary not built, kept out of this profile, a need the
// machine lacks), the manifest row says so and this returns true.
bool not_started_because(const BenchmarkEntry& b, const std::string& exe, const std::string& bin_dir,
                         const std::string& profile_name, double profile_timeout,
                         const std::map<std::string, std::string>& facts, ManifestRow& m) {
  NeedsResult needs = evaluate_needs(b.needs, facts);
  if (!is_file(exe)) {
    m.status = "not_built";
    std::ifstream why(exe + ".not-built");
    std::string text((std::istreambuf_iterator<char>(why)), std::istreambuf_iterator<char>());
    m.reason = fmt::format("{} was not built: {}", b.binary,
                           text.empty() ? "it is missing from " + bin_dir + " (see the configure summary)" : text);
  } else if (profile_timeout <= 0) {
    // A timeout of 0 in the registry keeps a benchmark out of that profile (too slow for it).
    m.status = "skipped";
    m.reason =
        fmt::format("not part of the {} profile (its registry timeout is 0): run it with --profile full", profile_name);
  } else if (!needs.met) {
    m.status = "skipped";
    m.reason = "needs " + needs.missing;
  } else {
    return false;
  }
  m.output.clear();
  return true;
}

// SIGINT and SIGTERM set g_interrupted: the benchmark running is stopped, the rest become not_run,
// and the report is still written.
void stop_on_interrupt() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

namespace {
// What every benchmark of one run is started with.
struct RunContext {
  const RunOptions& opt;
  Profile profile;
  std::string dir, run_id, tag, bin_dir, launcher;
  std::map<std::string, std::string> facts;  // the inventory, for the registry's needs
  Competitors* competitors;
  bool tty;
};

// Starts one benchmark (unless its binary, profile or needs keep it out) and records how it ended in
// its manifest row: status, cause, rows kept, scratch removed, checksum. `failed` is set when the run
// counts it as a failure. False when the manifest could not be saved (the run then stops).
bool run_benchmark(const RunContext& cx, const BenchmarkEntry& b, const std::string& label, double time_budget,
                   ManifestRow& m, const std::function<bool()>& save_manifest, bool& failed) {
  const std::string exe = cx.bin_dir + "/" + b.binary;
  const std::string scratch_list = cx.dir + "/logs/" + b.name + ".scratch";
  Invocation inv = invocation_of(b, cx.opt, exe, cx.dir, cx.run_id, cx.launcher, cx.tag, scratch_list, time_budget);
  const std::vector<std::string>& argv = inv.argv;
  const std::vector<std::string>& env = inv.env;
  const bool launched = inv.launched;
  m.command = inv.command;

  const double profile_timeout = b.timeout_s(cx.profile);
  if (!not_started_because(b, exe, cx.bin_dir, cx.opt.profile, profile_timeout, cx.facts, m)) {
    double timeout = profile_timeout * cx.opt.timeout_scale;
    m.status = "running";
    m.reason = "started; a run folder left like this had its runner die (rigcheck report finishes it)";
    if (!save_manifest()) return false;
    cx.competitors->check(b.name);
    ChildLimits limits;
    if (cx.opt.memory_limit_gib > 0 && b.area != "gpu")
      limits.address_space_bytes = static_cast<unsigned long long>(cx.opt.memory_limit_gib * (1ull << 30));
    Tick tick{label, cx.tty, cx.competitors, b.name};
    ChildResult r = run_child(argv, env, timeout, cx.dir + "/logs/" + b.name + ".log", false, on_tick, &tick, limits);
    m.exit_code = r.exit_code;
    m.duration_s = r.seconds;
    m.reason.clear();
    const std::string csv = cx.dir + "/" + b.name + ".csv";
    long kept = salvage_partial(csv);
    std::string kept_note = kept > 0 ? fmt::format("; cut short: kept the {} rows it had written", kept) : "";
    if (!record_child_end(r, timeout, limits.address_space_bytes, launched ? cx.launcher : "", kept_note, m))
      failed = true;
    // What it left of its registered scratch (a SIGKILL, the OOM killer: no handler of its ran).
    ScratchCleanup sc = remove_registered_scratch(scratch_list, scratch_roots_of(argv));
    if (!sc.removed.empty()) m.reason += "; the runner removed the scratch it left: " + join(sc.removed);
    if (!sc.kept.empty()) m.reason += "; scratch left in place: " + join(sc.kept);
    if (m.reason.rfind("; ", 0) == 0) m.reason.erase(0, 2);
    if (!is_file(csv)) m.output.clear();
    record_checksum(cx.dir, m);
    cx.competitors->check(b.name);
  }
  return true;
}
}  // namespace

namespace {
// The run's time budget (budget.hpp), shared among the entries of `todo` that will start.
BudgetPlan budget_plan(const RunContext& cx, const std::vector<BenchmarkEntry>& todo,
                       BudgetPlan::Clock::time_point started) {
  return plan_budget(
      resolve_budget(cx.opt.budget_s, cx.opt.profile), started, todo,
      [&](const BenchmarkEntry& b) {
        ManifestRow probe;
        const std::string exe = cx.bin_dir + "/" + b.binary;
        return !not_started_because(b, exe, cx.bin_dir, cx.opt.profile, b.timeout_s(cx.profile), cx.facts, probe);
      },
      cx.profile);
}

// The end of a run: its report (a failed report turns an exit status of 0 into 1), where to find it,
// and whether it was cut short or competed with another run.
int finish_run(const RunOptions& opt, const std::string& dir, int rc, bool competed, const BudgetPlan& plan) {
  try {
    ReportOptions ro;
    ro.claims_path = opt.claims_path;
    ro.step_budget_s = opt.step_budget_s;
    make_report(dir, ro);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck run: the report failed: %s\n", e.what());
    rc = rc ? rc : 1;
  }
  std::printf("\nReport: %s/report.md\nVerdicts: %s/verdicts.csv\n", dir.c_str(), dir.c_str());
  if (g_interrupted) std::printf("The run was cut short (signal %d); what was measured is kept.\n", g_signal);
  if (competed)
    std::printf("Another rigcheck run competed with this one (concurrent_runs.csv): see the report's warnings.\n");
  // The last line: how long the run took, against its budget.
  const double took = plan.elapsed();
  std::printf(
      "Took %.0f s%s\n", took,
      plan.budget_s <= 0 ? " (no time budget)"
      : took <= plan.budget_s
          ? fmt::format(" of its budget of {:.0f} s", plan.budget_s).c_str()
          : fmt::format(", over its budget of {:.0f} s by {:.0f} s", plan.budget_s, took - plan.budget_s).c_str());
  return rc;
}
// The run's manifest.csv, written anew after every change; a write that fails (a full disk, a
// file-size limit) stops the run, what was written before kept.
struct ManifestFile {
  std::string dir, error;
  bool save(const std::vector<ManifestRow>& rows) {
    try {
      write_file_atomic(dir + "/manifest.csv", format_manifest(rows));
      return true;
    } catch (const std::exception& e) {
      error = e.what();
      return false;
    }
  }
  int stop() const {
    std::fprintf(stderr,
                 "rigcheck run: %s\nrigcheck run: the run stops: nothing more can be recorded (a full disk or a "
                 "file-size limit?); what was written before is kept in %s\n",
                 error.c_str(), dir.c_str());
    return 1;
  }
};

// Each benchmark in turn, the manifest saved after each; once the run is interrupted the rest are
// not_run. False when the manifest could not be saved.
bool run_each(const RunContext& cx, const std::vector<BenchmarkEntry>& todo, const BudgetPlan& plan,
              std::vector<ManifestRow>& manifest, ManifestFile& file, bool& failed) {
  const std::function<bool()> save = [&] { return file.save(manifest); };
  for (size_t k = 0; k < todo.size(); ++k) {
    const BenchmarkEntry& b = todo[k];
    ManifestRow& m = manifest[k];
    m.status.clear(), m.reason.clear();
    m.output = b.name + ".csv";
    const std::string label = fmt::format("[{}/{}] {}", k + 1, todo.size(), b.name);
    if (g_interrupted) {
      m.status = "not_run";
      m.reason = "run cut short before this benchmark";
      m.output.clear();
      continue;
    }
    if (!run_benchmark(cx, b, label, plan.share(k), m, save, failed)) return false;
    if (cx.tty) std::fprintf(stderr, "\r");
    std::fprintf(stderr, "%s ... %s (%.1f s)%s%s\n", label.c_str(), m.status.c_str(), m.duration_s,
                 m.reason.empty() ? "" : ": ", m.reason.c_str());
    if (!save()) return false;
  }
  return save();
}

}  // namespace

int run_suite(const RunOptions& opt, std::string* run_dir) {
  const auto started = BudgetPlan::Clock::now();  // the budget and the last line count from here
  Profile profile;
  try {
    profile = profile_from_string(opt.profile);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck run: %s\n", e.what());
    return 2;
  }
  std::vector<BenchmarkEntry> todo;
  if (int rc = select_benchmarks(opt, &todo)) return rc;

  // A file-size limit (ulimit -f) makes write(2) fail with EFBIG, which is reported with the
  // file's name, rather than kill with SIGXFSZ; the benchmarks inherit the setting.
  ::signal(SIGXFSZ, SIG_IGN);
  const std::string dir = create_run_dir(opt.results_root, host_name(), utc_timestamp_compact());
  if (run_dir) *run_dir = dir;
  std::string run_id = dir.substr(dir.rfind('/') + 1);
  ::mkdir((dir + "/logs").c_str(), 0755);
  std::fprintf(stderr, "rigcheck run: profile %s, %zu benchmarks -> %s\n", opt.profile.c_str(), todo.size(),
               dir.c_str());

  // Every process this run starts carries the tag; the watcher kills what is left of them when the
  // runner ends, however it ends. It starts first, before any thread (the inventory starts some).
  const std::string tag = fmt::format("{}.{}", run_id, ::getpid());
  ChildWatcher watcher(tag);
  std::unique_ptr<RunLock> lock;
  try {
    lock = std::make_unique<RunLock>(dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rigcheck run: %s\n", e.what());
    return 1;
  }
  Competitors competitors;
  competitors.lock = lock.get();
  competitors.file = dir + "/concurrent_runs.csv";

  stop_on_interrupt();

  // The manifest comes first, every benchmark pending: a runner killed at any moment leaves a
  // folder that says what ran, what was running and what never started.
  std::vector<ManifestRow> manifest = pending_manifest(todo);
  ManifestFile file{dir, ""};
  if (!file.save(manifest)) return file.stop();
  competitors.check("the start");

  Inventory invent = collect_inventory();
  // What starts the comm benchmarks' ranks (mpirun, srun): NET-1's evidence names it.
  invent.emplace_back("run_launcher", opt.launcher.empty() ? default_launcher() : opt.launcher);
  try {
    write_inventory_csv(invent, dir + "/inventory.csv");
  } catch (const std::exception& e) {
    file.error = e.what();
    return file.stop();
  }

  const RunContext cx{opt,
                      profile,
                      dir,
                      run_id,
                      tag,
                      opt.bin_dir.empty() ? executable_dir() : opt.bin_dir,
                      opt.launcher.empty() ? default_launcher() : opt.launcher,
                      std::map<std::string, std::string>(invent.begin(), invent.end()),
                      &competitors,
                      isatty(STDERR_FILENO) != 0};
  bool failed = false;
  const BudgetPlan plan = budget_plan(cx, todo, started);
  if (!run_each(cx, todo, plan, manifest, file, failed)) return file.stop();
  return finish_run(opt, dir, g_interrupted ? 130 : failed ? 1 : 0, !competitors.seen.empty(), plan);
}

}  // namespace rigcheck
