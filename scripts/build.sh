#!/usr/bin/env bash
# Configures (once) and builds rigcheck in build/ with 2 jobs. Used by run.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake --preset default >build-configure.log 2>&1 || { cat build-configure.log >&2; exit 1; }
  grep -A9 "rigcheck configure summary" build-configure.log >&2 || true
fi
cmake --build build -j "${RIGCHECK_JOBS:-2}"
