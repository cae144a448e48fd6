#!/usr/bin/env bash
# The results store at scale (issue 34; docs/store.md): N copies of one run folder, each under its
# own name (so each is another run: docs/store.md, "Identity of a run"), added to a new SQLite store
# by one `rigcheck store add`; prints the seconds it took and checks the store then holds N runs.
# A benchmark script, not a test: run it on an idle machine, and write the figure with the machine
# and the date into docs/performance.md.
#   scripts/store-scale.sh [--runs N] [--from RUN_DIR] [--rigcheck BIN] [--keep DIR]
# Defaults: 100 runs of tests/fixtures/runs/quick_vm, build/bin/rigcheck, a temporary folder removed
# at the end (--keep DIR: made there and kept). Exit 0 when every run was stored, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=100 from="$here/tests/fixtures/runs/quick_vm" rigcheck="$here/build/bin/rigcheck" keep=""
while (($#)); do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --from) from="$2"; shift 2 ;;
    --rigcheck) rigcheck="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "store-scale: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -x $rigcheck ]] || { echo "store-scale: no rigcheck at $rigcheck (--rigcheck BIN)" >&2; exit 2; }
[[ -f $from/inventory.csv ]] || { echo "store-scale: $from is not a run folder" >&2; exit 2; }
if [[ -n $keep ]]; then
  [[ ! -e $keep ]] || { echo "store-scale: $keep exists" >&2; exit 2; }
  mkdir -p "$keep" && work="$keep"
else
  work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
fi
dirs=()
for i in $(seq "$runs"); do
  cp -r "$from" "$work/$(basename "$from")-copy$i"
  dirs+=("$work/$(basename "$from")-copy$i")
done
start=$(date +%s.%N)
"$rigcheck" store add --db "$work/store.db" "${dirs[@]}" >"$work/add.log"
end=$(date +%s.%N)
stored=$("$rigcheck" store list --db "$work/store.db" | sed -n 's/^Totals: [0-9]* machines, \([0-9]*\) runs, .*/\1/p')
echo "store-scale: $runs runs of $(basename "$from") ($(du -sh "$from" | cut -f1) each) added in" \
     "$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b - a}') s on $(hostname) ($(nproc) CPUs);" \
     "the store holds $stored runs, $(du -h "$work/store.db" | cut -f1)"
[[ $stored == "$runs" ]] || { echo "store-scale: $stored runs stored, $runs added" >&2; exit 1; }
