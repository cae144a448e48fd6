#!/usr/bin/env bash
# Builds and runs every test with ctest. GPU tests skip (exit 77) where no GPU answers.
# --quick leaves out the long set (ctest label `long`: the entries of 25 s or more on the 2-vCPU VM,
# docs/testing.md) for a developer's loop; without it, as the README and CI run it, every test runs.
# The setup for tests also installs Debian's chromium and fonts-noto-cjk, for the browser test
# of report.html (html_chromium); RIGCHECK_BROWSER=0 leaves them out (that test then skips).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh" --tests
"$here/scripts/build.sh"
cd "$here/build"
args=()
for a in "$@"; do [[ $a == --quick ]] && args+=(-LE long) || args+=("$a"); done
ctest --output-on-failure -j "${RIGCHECK_JOBS:-2}" "${args[@]}"
