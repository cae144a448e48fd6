# Sourced by the shell tests: strict mode, fail() and $tmp, a new directory removed on exit.
#   source "$(dirname "$0")/../../support/lib.sh"
# fail prints the file $fail_log after its message where a test sets it (a child's log). A test whose
# files must be in a place of its own (a disk, not tmpfs) sets tmp_template, mktemp's, before.
set -euo pipefail
fail() {
  echo "FAIL: $*" >&2
  [[ -z ${fail_log:-} || ! -f $fail_log ]] || cat "$fail_log" >&2
  exit 1
}
tmp="$(mktemp -d ${tmp_template:+"$tmp_template"})"
trap 'rm -rf "$tmp"' EXIT
