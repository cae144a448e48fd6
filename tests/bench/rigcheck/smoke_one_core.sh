#!/usr/bin/env bash
# `taskset -c 0 rigcheck run --profile tiny --only cpu`: the suite must see one usable core, sweep
# only 1 thread, and say CPU-1 is not_measurable for that reason (issue: 2 threads on 1 CPU once
# passed as ok at cpu_utilization 0.5000 and gave a "measured" E(2) of 46%).
source "$(dirname "$0")/../../support/lib.sh"
rigcheck="$1"
command -v taskset >/dev/null || { echo "SKIP: taskset (util-linux) is not installed"; exit 77; }
(( $(nproc) >= 2 )) || { echo "SKIP: needs at least 2 CPUs to restrict to one"; exit 77; }
out="$tmp"
taskset -c 0 "$rigcheck" run --profile tiny --only cpu --out "$out" >"$out/run.log" 2>&1 || true
run="$(find "$out" -mindepth 1 -maxdepth 1 -type d | head -1)"
[[ -s "$run/verdicts.csv" ]] || { cat "$out/run.log"; fail "no verdicts.csv"; }
grep -q '^usable_cores,1$' "$run/inventory.csv" || fail "inventory: usable_cores is not 1: $(grep usable "$run/inventory.csv")"
grep -q '^cpu_affinity,0$' "$run/inventory.csv" || fail "inventory: cpu_affinity is not 0"
grep -q '^CPU-1,.*,not_measurable,' "$run/verdicts.csv" || fail "CPU-1 is not not_measurable: $(grep ^CPU-1 "$run/verdicts.csv")"
if ! grep -qE '^CPU-1,.*(could use 1 core|one usable core)' "$run/verdicts.csv"; then
  # On a busy machine even the 1-thread rows can be mistrusted; then CPU-1 has no data at all.
  grep -q 'result rows are mistrusted' "$run/report.md" || fail "CPU-1 does not name the one usable core: $(grep ^CPU-1 "$run/verdicts.csv")"
  echo "note: CPU-1 had no trusted 1-thread rows (a busy machine)"
fi
# No ok row of a multi-threaded case in any result CSV.
for f in "$run"/*.csv; do
  case "$(basename "$f")" in inventory.csv|manifest.csv|verdicts.csv) continue ;; esac
  if awk -F, 'NR>1 && $10=="ok" && $5 ~ /(^|;)threads=([2-9]|[1-9][0-9])(;|$)/ {print; bad=1} END {exit !bad}' "$f"; then
    fail "$(basename "$f") has ok rows with more than one thread"
  fi
done
echo "one-core smoke run ok: $run"
