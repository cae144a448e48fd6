#!/usr/bin/env bash
# The suite: installs what is missing, builds if needed, runs the quick profile (or what you
# pass: ./scripts/run.sh --profile full --only cpu) and prints where the report is.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh"
"$here/scripts/build.sh" >/dev/null
cd "$here"
args=("$@")
[[ " $* " == *" --profile "* ]] || args=(--profile quick "${args[@]}")
exec "$here/build/bin/rigcheck" run "${args[@]}"
