#!/usr/bin/env bash
# Builds and runs every test with ctest. GPU tests skip (exit 77) where no GPU answers.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh"
"$here/scripts/build.sh"
cd "$here/build"
ctest --output-on-failure -j "${RIGCHECK_JOBS:-2}" "$@"
