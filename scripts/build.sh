#!/usr/bin/env bash
# Configures (once) and builds rigcheck in build/ with 2 jobs. Used by run.sh and test.sh.
#   scripts/build.sh                 the native build, build/
#   scripts/build.sh --arch arm64    the aarch64 cross build, build-arm64/ (preset arm64-cross, docs/arm.md),
#                                    after installing what it needs (scripts/setup.sh --arch arm64)
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --arch ]]; then
  [[ ${2:-} == arm64 ]] || { echo "rigcheck build: --arch takes arm64 (got '${2:-}')" >&2; exit 2; }
  ./scripts/setup.sh --arch arm64
  if [[ ! -f build-arm64/CMakeCache.txt ]]; then
    cmake --preset arm64-cross >build-arm64-configure.log 2>&1 || { cat build-arm64-configure.log >&2; exit 1; }
    grep -A9 "rigcheck configure summary" build-arm64-configure.log >&2 || true
  fi
  exec cmake --build build-arm64 -j "${RIGCHECK_JOBS:-2}"
fi
[[ $# -eq 0 ]] || { echo "rigcheck build: unknown option $1 (known: --arch arm64)" >&2; exit 2; }
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake --preset default >build-configure.log 2>&1 || { cat build-configure.log >&2; exit 1; }
  grep -A9 "rigcheck configure summary" build-configure.log >&2 || true
fi
cmake --build build -j "${RIGCHECK_JOBS:-2}"
