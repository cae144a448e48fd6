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
# aarch64_elf FILE: FILE is an ELF for AArch64 (e_machine 183), else fail naming what it is.
aarch64_elf() {
  local machine
  machine=$(od -An -tu2 -j18 -N2 "$1" | tr -d ' ')
  [[ $machine == 183 ]] || fail "$1 is not an aarch64 binary (ELF e_machine $machine)"
}
# planted_fails NAME EXPECTED COMMAND...: COMMAND, a check run on the planted copy NAME, must fail and
# say EXPECTED on stdout.
planted_fails() {
  local name=$1 expected=$2 out
  shift 2
  if out=$("$@"); then fail "the planted $name passed"; fi
  grep -qF "$expected" <<<"$out" || fail "the planted $name failed without saying '$expected': $out"
  echo "ok: planted $name fails: $(grep -F "$expected" <<<"$out" | head -n 1)"
}
