#!/usr/bin/env bash
# comm_allreduce_nccl in its tiny profile: without a GPU it exits 77 with the reason and writes
# skipped rows (never a crash, never a number); with one it must pass its own checks.
set -uo pipefail
bin="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$bin" --profile tiny --reps 2 --out "$out" --stem nccl >"$out/log" 2>&1
rc=$?
cat "$out/log"
if [[ $rc -eq 77 ]]; then
  grep -q '^SKIP: ' "$out/log" || { echo "FAIL: exit 77 without a SKIP: line"; exit 1; }
  awk -F, 'NR>1 && $10!="skipped" {bad=1} END {exit bad}' "$out/nccl.csv" || { echo "FAIL: non-skipped rows without a GPU"; exit 1; }
  exit 77
fi
[[ $rc -eq 0 ]] || { echo "FAIL: exit $rc"; exit 1; }
awk -F, '$6=="check_wrong" && $7!="0" {bad=1} END {exit bad}' "$out/nccl.csv" || { echo "FAIL: wrong elements"; exit 1; }
