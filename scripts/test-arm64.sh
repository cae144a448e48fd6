#!/usr/bin/env bash
# The aarch64 build, cross-compiled on this x86-64 machine and tested under qemu-user (docs/arm.md):
#  1. setup --arch arm64: Debian's cross compiler, qemu-user and the arm64 sysroot;
#  2. the build in build-arm64/ (preset arm64-cross, with 2 jobs);
#  3. its unit tests under qemu-aarch64 (ctest -L unit there: every GoogleTest case but five statistical
#     simulations, below; CMake runs each through the toolchain's CMAKE_CROSSCOMPILING_EMULATOR);
#  4. from the x86-64 build (scripts/build.sh), the tests of label arm64: the arm64 kernels' checks under
#     several emulated CPUs, and `rigcheck run --profile tiny` of the arm64 build with its report and
#     its comparison against an x86-64 run.
# CI runs it after scripts/test.sh (.ci/run); on an Arm machine the ordinary scripts/test.sh is the test.
#   scripts/test-arm64.sh [ctest args...]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh" --tests --arch arm64
cd "$here"
./scripts/build.sh --arch arm64
# Left out under qemu: the five Monte Carlo simulations of the comparison's statistics (hundreds of
# simulated comparisons, each with its bootstrap), the same double arithmetic on either ISA, run
# natively by scripts/test.sh and under the sanitizers; under qemu they took 273 of the unit tests'
# 370 s of test time (2026-12-06, 150 s the longest); the others, 297 now, about 50 s with 2 jobs.
simulations='^(Gate\.AaComparisonsOf190CasesFailAtMostFivePercent|Paired\.(FindsAnEightPercentChangeAndFlagsNothingInAA|PowerTable|TheCalibratedLevelAndPAgree)|RunLevel\.NoChangeFlaggedAtMostOnePercentAndTenPercentFoundWithFiveRuns)$'
t0=$SECONDS
ctest --test-dir build-arm64 --output-on-failure -j "${RIGCHECK_JOBS:-2}" -L unit -E "$simulations" "$@"
echo "test-arm64: the unit tests under qemu took $((SECONDS - t0)) s"
"$here/scripts/build.sh"
t1=$SECONDS
ctest --test-dir build --output-on-failure -j "${RIGCHECK_JOBS:-2}" -L arm64 "$@"
echo "test-arm64: the arm64 run and kernel tests took $((SECONDS - t1)) s"
