// What a benchmark binary does before its cases run (harness_main, harness.cpp): it clears the
// variables that would cap a library's thread pool and starts itself again, reads the CPUs of the
// OpenMP places, and adds its own options (adaptive repetitions, taking turns) to the session's.
#pragma once
#include <string>
#include <vector>

#include "rigcheck/harness/repetitions.hpp"
#include "rigcheck/harness/session.hpp"

namespace rigcheck {

// The options harness_main adds to the session's command line.
struct MainOptions {
  double reps_target = -1;                // --reps-target; -1: the profile's default
  int reps_cap = 0;                       // --reps-cap; 0: 2 x --reps
  double reps_budget = kAddedRepsBudget;  // --reps-budget
  double time_budget = 0;                 // --time-budget seconds; 0: none
  std::string alternate_env, turns_spec;  // --alternate-env VAR=VALUE, --turns R,W,KEY (the second side)
};
void add_main_options(Session& session, MainOptions& mo);
// The check Session::parse runs after parsing: throws std::invalid_argument on a bad value.
void check_main_options(Session& session, const MainOptions& mo);

// Exported thread caps (OMP_NUM_THREADS, ...) cleared and the binary started again, once; returns
// when none was set or the new start failed.
void clear_thread_caps(char** argv);

// The CPUs of every OpenMP place, sorted; empty when no place list is defined.
std::vector<int> openmp_place_cpus();

}  // namespace rigcheck
