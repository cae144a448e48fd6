// A benchmark binary's start-up: startup.hpp.
#include "startup.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "alternate.hpp"
#include "rigcheck/harness/emulation.hpp"
#include "rigcheck/harness/time_budget.hpp"

namespace rigcheck {

void add_main_options(Session& session, MainOptions& mo) {
  session.app().add_option(
      "--reps-target", mo.reps_target,
      fmt::format("add repetitions while the relative IQR of a case's time per iteration is above this "
                  "(0 = never; default: {:g} tiny, {:g} quick, {:g} full)",
                  kRepsTargetDefault[0], kRepsTargetDefault[1], kRepsTargetDefault[2]));
  session.app().add_option("--reps-cap", mo.reps_cap,
                           "at most this many repetitions per case with --reps-target (default: 2 x --reps)");
  session.app().add_option("--reps-budget", mo.reps_budget,
                           fmt::format("time for added repetitions, as a fraction of the time the binary's own "
                                       "repetitions took so far (default {:g})",
                                       kAddedRepsBudget));
  session.app().add_option(
      "--time-budget", mo.time_budget,
      fmt::format("seconds for all the cases (rigcheck run --budget gives each binary its share): each case "
                  "gets what is left over the cases left, keeps at least {} repetitions, and adds none "
                  "beyond its share; a case cut short says so (0 = no budget)",
                  kBudgetMinReps));
  session.app().add_option(
      "--alternate-env", mo.alternate_env,
      "VAR=VALUE: start a second process of this binary with VAR=VALUE added to its environment and take "
      "turns with it repetition by repetition (it first), its rows in this CSV, every row saying "
      "interleaved=VAR; adaptive repetitions are off in both");
  session.app()
      .add_option("--turns", mo.turns_spec, "R,W,KEY: the second side of --alternate-env (set by the first)")
      ->group("");
}

void check_main_options(Session& session, const MainOptions& mo) {
  if (!mo.alternate_env.empty()) check_assignment(mo.alternate_env);
  if (!mo.turns_spec.empty()) parse_turns_spec(mo.turns_spec);
  if (session.app().count("--reps-target") && !(mo.reps_target >= 0 && std::isfinite(mo.reps_target)))
    throw std::invalid_argument(
        fmt::format("--reps-target {:g}: expected a fraction >= 0 (0 = never add repetitions)", mo.reps_target));
  if (session.app().count("--reps-cap") && mo.reps_cap < 1)
    throw std::invalid_argument(fmt::format("--reps-cap {}: expected a count >= 1", mo.reps_cap));
  if (!(mo.time_budget >= 0 && std::isfinite(mo.time_budget)))
    throw std::invalid_argument(
        fmt::format("--time-budget {:g}: expected seconds >= 0 (0 = no budget)", mo.time_budget));
  if (!(mo.reps_budget >= 0 && std::isfinite(mo.reps_budget)))
    throw std::invalid_argument(fmt::format("--reps-budget {:g}: expected a fraction >= 0", mo.reps_budget));
}

namespace {
// Variables that cap a library's thread pool when the process starts (OpenBLAS sizes its pool
// from them at load time, before main): exported on many HPC login nodes, they would make a
// "2 threads" case run 1. The harness clears them and starts itself again, once, before any
// library creates its pool; what the user had set is printed and kept in RIGCHECK_USER_THREAD_ENV.
// OpenMP's own binding goes too: the harness places each case's threads itself (placement.hpp), and
// a runtime that binds its threads at creation would move them where the placement did not put them.
constexpr const char* kThreadCapVars[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                          "MKL_NUM_THREADS", "OMP_THREAD_LIMIT",     "DNNL_MAX_THREADS",
                                          "OMP_PROC_BIND",   "OMP_PLACES",           "GOMP_CPU_AFFINITY"};
}  // namespace

void clear_thread_caps(char** argv) {
  if (std::getenv("RIGCHECK_THREAD_ENV_CLEARED")) return;
  std::string user;
  for (const char* v : kThreadCapVars)
    if (const char* x = std::getenv(v)) user += fmt::format("{}{}={}", user.empty() ? "" : " ", v, x);
  if (user.empty()) return;
  for (const char* v : kThreadCapVars) unsetenv(v);
  setenv("RIGCHECK_THREAD_ENV_CLEARED", "1", 1);
  setenv("RIGCHECK_USER_THREAD_ENV", user.c_str(), 1);
  std::fprintf(stderr, "%s: cleared %s so that every thread count swept can run; starting again\n", argv[0],
               user.c_str());
  // A runtime told to bind (OMP_PROC_BIND) bound this thread to its first place before main, and
  // exec keeps a thread's mask: the process starts again on the CPUs of every place.
  if (const std::vector<int> cpus = openmp_place_cpus(); !cpus.empty()) {
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c : cpus)
      if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &all);
    sched_setaffinity(0, sizeof all, &all);
  }
  int argc = 0;
  while (argv[argc]) ++argc;
  exec_command(self_exec_command({argv, argv + argc}));  // through the exec prefix under an emulator (emulation.hpp)
  std::fprintf(stderr, "%s: could not start again (%s); thread counts may be capped by %s\n", argv[0],
               std::strerror(errno), user.c_str());
}

// The CPUs of every OpenMP place (OpenMP 4.5 place API): the process's CPU set as the runtime saw
// it before it bound this thread to the first place (OMP_PROC_BIND=close with OMP_PLACES=cores
// leaves the initial thread's own mask at one core). Empty when no place list is defined.
std::vector<int> openmp_place_cpus() {
  std::set<int> cpus;
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(static_cast<size_t>(std::max(0, omp_get_place_num_procs(p))));
    if (!ids.empty()) omp_get_place_proc_ids(p, ids.data());
    cpus.insert(ids.begin(), ids.end());
  }
  return {cpus.begin(), cpus.end()};
}

}  // namespace rigcheck
