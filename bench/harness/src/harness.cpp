#include "rigcheck/harness/harness.hpp"
#include "rigcheck/harness/repetitions.hpp"
#include "alternate.hpp"
#include "startup.hpp"
#include "rigcheck/harness/time_budget.hpp"
#include "registry.hpp"
#include "case_runner.hpp"
#include "rigcheck/harness/write_row_now.hpp"

#include <omp.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include <CLI/CLI.hpp>
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "rigcheck/harness/csv.hpp"
#include "rigcheck/harness/session.hpp"
#include "rigcheck/harness/schema.hpp"
#include "rigcheck/harness/stats.hpp"
#include "rigcheck/harness/topology.hpp"
#include "rigcheck/harness/threads.hpp"
#include "rigcheck/harness/names.hpp"

namespace rigcheck {

using detail::derivers;
using detail::registry;
using detail::shared_defaults;

using detail::CaseState;
using detail::CsvReporter;
using detail::Entry;
using detail::Harness;

namespace {
Session* g_running = nullptr;  // harness_main's session while its cases run (write_row_now)
}  // namespace

void write_row_now(ResultRow r) {
  if (!g_running) throw std::logic_error("write_row_now outside a running harness_main: no result file is open");
  g_running->row(std::move(r));
}

namespace {
// Set when this process takes turns with another (--alternate-env, --turns): called before each
// round, it returns when this process may run (alternate.hpp).
std::function<void()> g_before_round;

// --reps-target and --reps-cap resolved against the profile (repetitions.hpp).
struct AdaptiveReps {
  double target = -1;                // -1: the profile's default
  int cap = 0;                       // 0: 2 x --reps
  double budget = kAddedRepsBudget;  // fraction of the binary's own repetition time
  void resolve(const CommonOptions& o) {
    if (target < 0) target = kRepsTargetDefault[static_cast<int>(o.profile)];
    if (cap <= 0) cap = 2 * o.reps;
    cap = std::max(cap, o.reps);
  }
};

// Registers `rounds` repetitions of the cases of `unit` with Google Benchmark (alone: one
// registration of `rounds` repetitions; an interleaved group: one registration of one repetition
// per case and round, round by round) and runs them. Returns the seconds they took.
double run_unit(Harness& h, const CommonOptions& opt, const std::vector<size_t>& unit, bool interleaved, int rounds,
                benchmark::BenchmarkReporter& reporter, bool reuse_iterations = false) {
  benchmark::ClearRegisteredBenchmarks();
  auto add = [&](size_t i, int reps) {
    const Entry& e = h.entries()[i];
    std::string name = e.def->name + "/" + e.c.name;
    h.index(name, i);
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [&h, i](benchmark::State& st) { h.run(i, st); });
    if (e.c.manual_time)
      b->UseManualTime();
    else
      b->UseRealTime();
    b->Repetitions(reps)->MeasureProcessCPUTime()->ReportAggregatesOnly(false);
    // Taking turns, each repetition is a registration of its own, and added repetitions are one more:
    // the later ones run the first one's iterations, as Google Benchmark's own repetitions do,
    // instead of finding a count again.
    if ((g_before_round || reuse_iterations) && h.states()[i].iterations > 0)
      b->Iterations(h.states()[i].iterations);
    else
      b->MinTime(opt.min_time);
  };
  const auto t0 = std::chrono::steady_clock::now();
  if (g_before_round) {  // taking turns with another process: one round per turn
    for (int r = 0; r < rounds; ++r) {
      g_before_round();
      benchmark::ClearRegisteredBenchmarks();
      for (size_t j : unit) add(j, 1);
      benchmark::RunSpecifiedBenchmarks(&reporter);
    }
  } else {
    if (!interleaved) {
      for (size_t i : unit) add(i, rounds);
    } else {
      for (int r = 0; r < rounds; ++r)
        for (size_t j : unit) add(j, 1);
    }
    benchmark::RunSpecifiedBenchmarks(&reporter);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The units of a run in order: a case alone, or an interleaved group (Case::interleave) where its
// first case stands.
std::vector<std::vector<size_t>> units_of(const Harness& h) {
  std::vector<std::vector<size_t>> units;
  std::set<size_t> done;
  for (size_t i = 0; i < h.entries().size(); ++i) {
    if (done.count(i)) continue;
    std::vector<size_t> unit{i};
    for (size_t j = i + 1; j < h.entries().size(); ++j)
      if (h.same_group(i, j)) unit.push_back(j);
    done.insert(unit.begin(), unit.end());
    units.push_back(std::move(unit));
  }
  return units;
}

// Seconds one round of `unit` takes, from its reported repetitions (the set-up, the check and Google
// Benchmark's search for an iteration count left out); 0 when none was reported.
double round_seconds(const Harness& h, const std::vector<size_t>& unit) {
  double s = 0;
  for (size_t j : unit) {
    const CaseState& st = h.states()[j];
    if (!st.times.empty()) s += median_of(st.times) * static_cast<double>(st.iterations);
  }
  return s;
}

// Every unit in order: --reps repetitions (rounds), then adaptive repetitions (AdaptiveReps) while
// the largest relative IQR of the unit's cases is above the target, one repetition (round) at a
// time, within the cap and kAddedRepsBudget of the time the binary's own repetitions took so far.
// Under --time-budget (time_budget.hpp) a unit first runs kBudgetMinReps rounds, then as many of the
// rest, and of the added ones, as its share of the budget allows; a case cut short says so.
void run_cases(Harness& h, const CommonOptions& opt, const AdaptiveReps& adaptive, TimeBudget& budget,
               benchmark::BenchmarkReporter& reporter) {
  double own_s = 0, added_s = 0;
  for (const std::vector<size_t>& unit : units_of(h)) {
    budget.start_unit();
    const bool interleaved = !h.entries()[unit.front()].c.interleave.empty();
    const int first = budget.on() ? std::min(opt.reps, kBudgetMinReps) : opt.reps;
    own_s += run_unit(h, opt, unit, interleaved, first, reporter);
    int reps = first;
    std::string cut;
    if (reps < opt.reps) {
      const int more = budget.rounds_that_fit(round_seconds(h, unit), opt.reps - reps);
      if (more > 0) own_s += run_unit(h, opt, unit, interleaved, more, reporter, true);
      reps += more;
      if (reps < opt.reps) cut = budget.cut_note(reps, opt.reps);
    }
    double per_round = round_seconds(h, unit);
    std::vector<size_t> timed;  // the unit's cases that ran (ok)
    for (size_t j : unit)
      if (h.states()[j].status == Status::ok && !h.states()[j].times.empty()) timed.push_back(j);
    std::string stop = cut;
    while (adaptive.target > 0 && !timed.empty() && cut.empty()) {
      double spread = 0;
      for (size_t j : timed) spread = std::max(spread, relative_iqr(h.states()[j].times));
      if (spread <= adaptive.target) break;
      if (reps >= adaptive.cap) {
        stop = fmt::format("the cap of {} repetitions was reached", adaptive.cap);
        break;
      }
      if (added_s + per_round > adaptive.budget * own_s) {
        stop = fmt::format(
            "the binary's time for added repetitions ({:.0f}% of its own repetitions' {:.1f} s) was spent "
            "after {} repetitions",
            100 * adaptive.budget, own_s, reps);
        break;
      }
      if (budget.rounds_that_fit(per_round, 1) == 0) {
        stop = fmt::format(
            "the time budget ({:.1f} s of this binary's {:.0f} s for this case) was spent after {} "
            "repetitions",
            budget.unit_share(), budget.seconds(), reps);
        break;
      }
      per_round = run_unit(h, opt, timed, interleaved, 1, reporter, true);
      added_s += per_round;
      ++reps;
    }
    for (size_t j : unit) h.finish(j, adaptive.target, stop, cut);
  }
}
// --list: each benchmark's description, then its cases with their threads, work and params.
int list_entries(Session& session, const std::vector<Entry>& entries) {
  const BenchmarkDef* last = nullptr;
  for (const Entry& e : entries) {
    if (e.def != last && !e.def->description.empty())
      std::printf("# %s: %s\n", e.def->name.c_str(), e.def->description.c_str());
    last = e.def;
    session.list_case(e.def->name, e.c.name,
                      fmt::format("threads={}\tflops={:.6g}\tbytes={:.6g}\t{}", e.c.threads, e.c.work.flops,
                                  e.c.work.bytes, format_params(e.c.params)));
  }
  return kExitOk;
}

// The rows derived from a benchmark's written rows (register_deriver), after all of them are written.
void write_derived_rows(Session& session) {
  for (auto& [name, derive] : derivers()) {
    std::vector<ResultRow> own;
    for (const ResultRow& r : session.written())
      if (r.benchmark == name) own.push_back(r);
    if (own.empty()) continue;
    for (ResultRow& r : derive(own)) session.row(std::move(r));
  }
}
}  // namespace

int harness_main(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();  // --time-budget counts from here
  clear_thread_caps(argv);
  std::string prog = argv[0];
  if (auto slash = prog.rfind('/'); slash != std::string::npos) prog = prog.substr(slash + 1);
  Session session(argv[0], fmt::format("{}: a rigcheck benchmark binary", prog), shared_defaults());
  session.set_allowed_cpus(openmp_place_cpus());
  MainOptions mo;
  add_main_options(session, mo);
  if (auto rc = session.parse(argc, argv, [&] { check_main_options(session, mo); })) return *rc;
  const CommonOptions& opt = session.options();

  std::vector<Entry> entries;
  try {
    for (const BenchmarkDef& d : registry())
      for (Case& c : d.cases(opt))
        if (session.selected(d.name, c.name)) entries.push_back({&d, std::move(c)});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog.c_str(), e.what());
    return kExitUsage;
  }
  if (session.listing()) return list_entries(session, entries);
  if (auto rc = session.require_cases(entries.size())) return *rc;
  if (!session.open_results()) return kExitUsage;

  Harness h(std::move(entries), session);
  std::unique_ptr<AlternateSide> first_side;
  std::unique_ptr<Turns> second_side;
  if (!mo.alternate_env.empty()) {
    try {
      first_side = std::make_unique<AlternateSide>(mo.alternate_env, argc, argv, session, openmp_place_cpus());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: cannot start the second side of --alternate-env %s: %s\n", prog.c_str(),
                   mo.alternate_env.c_str(), e.what());
      return kExitFailed;
    }
    h.set_alternate_key(first_side->key());
    g_before_round = [&first_side] { first_side->before_round(); };
  } else if (!mo.turns_spec.empty()) {
    const TurnsSpec t = parse_turns_spec(mo.turns_spec);
    second_side = std::make_unique<Turns>(t.read_fd, t.write_fd, true);
    h.set_alternate_key(t.key);
    g_before_round = [&second_side] { second_side->before_round(); };
  }
  // Taking turns, the two sides would decide alone, and pairs must stay pairs: no adaptive
  // repetitions; under a time budget (both sides are given the same) the floor's pairs only.
  if (g_before_round) mo.reps_target = 0;
  int gb_argc = 1;
  char* gb_argv[] = {argv[0], nullptr};
  benchmark::Initialize(&gb_argc, gb_argv);
  AdaptiveReps adaptive{mo.reps_target, mo.reps_cap, mo.reps_budget};
  adaptive.resolve(opt);
  TimeBudget budget(mo.time_budget, units_of(h).size(), started, static_cast<bool>(g_before_round));
  std::fprintf(
      stderr, "%s: %zu cases, %d repetitions each%s, profile %s -> %s\n", prog.c_str(), h.entries().size(), opt.reps,
      adaptive.target > 0
          ? fmt::format(" (up to {} while the spread is above {:g}%)", adaptive.cap, 100 * adaptive.target).c_str()
          : "",
      to_string(opt.profile), session.results_path().c_str());
  CsvReporter reporter(h);
  g_running = &session;
  struct Unset {
    ~Unset() { g_running = nullptr; }
  } unset;
  return session.run([&] {
    run_cases(h, opt, adaptive, budget, reporter);
    benchmark::Shutdown();
    if (first_side) first_side->finish();
    write_derived_rows(session);
    for (size_t i = 0; i < h.states().size(); ++i) {
      const CaseState& s = h.states()[i];
      const Entry& e = h.entries()[i];
      if (s.status == Status::failed)
        session.case_failed(e.def->name, e.c.name, s.note,
                            fmt::format("--filter '^{}/{}$' --reps {}", e.def->name, e.c.name, opt.reps));
      else if (s.status == Status::skipped)
        session.case_skipped(s.note);
      else
        session.case_ok();
    }
  });
}

}  // namespace rigcheck
