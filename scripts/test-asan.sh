#!/usr/bin/env bash
# Builds the `asan` preset (AddressSanitizer + UndefinedBehaviorSanitizer, every error fatal:
# -fno-sanitize-recover=all) in build-asan/ and runs the tests there: the unit tests and the
# tiny smoke runs of every area that the preset builds (LibTorch and CUDA are left out: their
# translation units are too slow for CI under the sanitizers; the default build tests them).
# Called by .ci/run after ./scripts/test.sh. Extra arguments go to ctest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
"$here/scripts/setup.sh"
# Configured every time (a few seconds): the preset's flags reach a build-asan/ made before they changed.
fresh=0
[[ -f build-asan/CMakeCache.txt ]] || fresh=1
cmake --preset asan >build-asan-configure.log 2>&1 || { cat build-asan-configure.log >&2; exit 1; }
((fresh)) && { grep -A9 "rigcheck configure summary" build-asan-configure.log >&2 || true; }
cmake --build build-asan -j "${RIGCHECK_JOBS:-2}"
# Leaks are not checked: Open MPI, hwloc and oneDNN keep allocations until exit by design, and
# LeakSanitizer would report theirs at every exit. Everything else aborts the process, and so
# fails its test, at the first report.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cd build-asan
# Left out here, run by the default build (scripts/test.sh): the browser test renders HTML that the
# default build's run already checks; the statistics' simulations (thousands of simulated
# comparisons: 206, 94 and 14 s of the asan stage's 739 s at -O0) run the same code as
# the statistics' unit tests, which stay here, on more seeds: what they find is a wrong rate, which
# the default build finds, not a memory error. store_cli_postgresql (116 s here under the sanitizers,
# the longest test of the stage) runs the SQLite modes' steps again against a throw-away PostgreSQL:
# the store's code is the same but for pg_backend.cpp, whose libpq calls the default build's run of it
# exercises; the SQLite modes stay here.
# The label `script` (tests/*/CMakeLists.txt): tests whose subject is a script, a build rule, the
# install or a launcher (Slurm, the namespace cluster, the GPU pack); the suite's C++ they run is
# run here by other tests (the tiny runs of every area, comm_mpi_allreduce_2ranks,
# comm_netns_node_dies). 170 s of this stage's 565 s of tests at -O0, 156 s of it run alone.
# fuzz_replay_*: the seed corpora and the inputs that once crashed a reader, which scripts/fuzz.sh
# (CI's next stage) runs first under ASan and UBSan before it fuzzes.
ctest --output-on-failure -j "${RIGCHECK_JOBS:-2}" -LE script \
  -E '^(fuzz_replay_.*|html_chromium|store_cli_postgresql|Gate\.AaComparisonsOf190CasesFailAtMostFivePercent|RunLevel\.NoChangeFlaggedAtMostOnePercentAndTenPercentFoundWithFiveRuns|Paired\.PowerTable)$' "$@"
