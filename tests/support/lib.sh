# Sourced by the shell tests: strict mode, fail() and $tmp, a new directory removed on exit.
#   source "$(dirname "$0")/../../support/lib.sh"
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
