#!/usr/bin/env bash
# No ok row of a run folder used more threads than it says: for every result CSV, a row whose params
# say threads=N and whose status is ok must have cpu_utilization x N <= N + 0.3 (kMaxExtraCpus,
# bench/harness/include/rigcheck/harness/session.hpp) and threads_working <= N. Prints each offending
# row; exit 1 when there is one.
#   tests/support/threads_as_stated.sh RUN_FOLDER
set -euo pipefail
run="$1"
[[ -d $run ]] || { echo "threads_as_stated: $run is not a folder" >&2; exit 2; }
bad=0 checked=0
split_csv=$(cat "$(dirname "$0")/split_csv.awk")
for csv in "$run"/*.csv; do
  head -1 "$csv" | grep -q '^schema_version,run_id,benchmark,case,params,metric,value,unit,repetition,status' || continue
  # CSV fields by a small parser (tests/support/split_csv.awk).
  out=$(awk -v file="$(basename "$csv")" "$split_csv"'
    NR > 1 {
      split_csv($0, f)
      if (f[10] != "ok" || (f[6] != "cpu_utilization" && f[6] != "threads_working")) next
      if (match(f[5], /(^|;)threads=[0-9]+/) == 0) next
      t = substr(f[5], RSTART, RLENGTH); sub(/.*threads=/, "", t); t += 0
      n++
      if (f[6] == "cpu_utilization" && f[7] * t > t + 0.3) printf "%s: %s/%s rep %s: %.2f CPUs for %d threads\n", file, f[3], f[4], f[9], f[7] * t, t
      if (f[6] == "threads_working" && f[7] > t) printf "%s: %s/%s rep %s: %d threads worked for %d\n", file, f[3], f[4], f[9], f[7], t
    }
    END { printf "checked %d\n", n }' "$csv")
  checked=$((checked + $(tail -1 <<<"$out" | awk '{print $2}')))
  if [[ $(wc -l <<<"$out") -gt 1 ]]; then
    head -n -1 <<<"$out"
    bad=1
  fi
done
echo "threads_as_stated: $checked rows checked in $run"
((checked > 0)) || { echo "threads_as_stated: no row with threads= and a CPU use to check" >&2; exit 1; }
exit $bad
