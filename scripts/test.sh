#!/usr/bin/env bash
# Builds and runs every test with ctest. GPU tests skip (exit 77) where no GPU answers.
# The setup for tests also installs Debian's chromium and fonts-noto-cjk, for the browser test
# of report.html (html_chromium); RIGCHECK_BROWSER=0 leaves them out (that test then skips).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh" --tests
"$here/scripts/build.sh"
cd "$here/build"
ctest --output-on-failure -j "${RIGCHECK_JOBS:-2}" "$@"
