#!/usr/bin/env bash
# The cost of `rigcheck history` over many run folders, as a benchmark (not a timed test): makes
# COUNT folders from the real run folders given (their CSVs copied, each placed COUNT minutes apart
# in time by its inventory_time_utc, so history sees one machine's long series), then times
#   rigcheck history FOLDERS... --out DIR     (Markdown, CSV and the HTML page of timelines)
#   rigcheck history FOLDERS... > /dev/null   (Markdown to stdout)
# REPS times each and prints every wall time and the median. Run it alone on the machine (the
# numbers in docs/performance.md were taken under the machine lock, nothing else running).
#   scripts/bench-history.sh [--count 100] [--reps 5] [--rigcheck build/bin/rigcheck] RUN_DIR...
set -euo pipefail
count=100 reps=5 rigcheck=build/bin/rigcheck
src=()
while (($#)); do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --rigcheck) rigcheck="$2"; shift 2 ;;
    -h|--help) sed -n 2,9p "$0"; exit 0 ;;
    *) src+=("$1"); shift ;;
  esac
done
((${#src[@]})) || { echo "bench-history: give one or more real run folders" >&2; exit 2; }
work=$(mktemp -d /tmp/rigcheck-bench-history.XXXXXX)
trap 'rm -rf "$work"' EXIT
for ((i = 0; i < count; i++)); do
  s="${src[i % ${#src[@]}]}"
  d=$(printf '%s/runs/h%03d' "$work" "$i")
  mkdir -p "$d"
  for f in "$s"/*.csv; do
    case "$(basename "$f")" in verdicts.csv) ;; *) cp "$f" "$d/" ;; esac
  done
  t=$(date -u -d "2027-01-01 00:00:00 UTC + $i min" +%Y-%m-%dT%H:%M:%SZ)
  sed -i "s/^inventory_time_utc,.*/inventory_time_utc,$t/" "$d/inventory.csv"
done
rows=$(cat "$work"/runs/*/*.csv | wc -l)
echo "bench-history: $count folders from ${#src[@]} real runs, $rows CSV lines in all; $(nproc) CPUs"
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
for mode in out stdout; do
  times=()
  for ((r = 1; r <= reps; r++)); do
    start=$(date +%s.%N)
    if [[ $mode == out ]]; then
      "$rigcheck" history "$work"/runs/h* --out "$work/out$r" >"$work/log$r" 2>&1 || { tail -5 "$work/log$r"; exit 1; }
    else
      "$rigcheck" history "$work"/runs/h* >/dev/null 2>"$work/err$r" || { tail -5 "$work/err$r"; exit 1; }
    fi
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')")
  done
  echo "history ($([[ $mode == out ]] && echo "--out DIR" || echo "Markdown to stdout")): wall s ${times[*]}; median $(printf '%s\n' "${times[@]}" | median)"
done
grep -m1 "History of" "$work/log1" || true
