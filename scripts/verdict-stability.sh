#!/usr/bin/env bash
# Verdict stability: do two back-to-back runs of this machine give every claim the same verdict?
#   scripts/verdict-stability.sh                 two quick runs now (about 2 x 9 minutes on 2 cores)
#   scripts/verdict-stability.sh RUN_A RUN_B     two run folders already made
# Prints one line per claim whose verdict differs (VERDICT FLIP: confirmed in one, refuted in the
# other; VERDICT CHANGED: any other difference) and exits 1 when there is any; the comparison
# (compare.md, with the table "Verdicts of each run") is kept in a new folder under results/.
# Too slow for ctest; the mechanism itself is tested by tests/tool/compare/compare_cli.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
rigcheck=build/bin/rigcheck
if (($# == 0)); then
  ./scripts/setup.sh
  ./scripts/build.sh
  runs=()
  for i in 1 2; do
    log=$(mktemp)
    "$rigcheck" run --profile quick 2>&1 | tee "$log" >&2
    runs+=("$(sed -n 's/^rigcheck run: profile [a-z]*, [0-9]* benchmarks -> //p' "$log" | head -1)")
    rm -f "$log"
  done
elif (($# == 2)); then
  runs=("$1" "$2")
else
  echo "usage: $0 [RUN_A RUN_B]" >&2
  exit 2
fi
for r in "${runs[@]}"; do [[ -d "$r" ]] || { echo "verdict-stability: no run folder '$r'" >&2; exit 2; }; done
out="results/verdict-stability-$(date -u +%Y%m%dT%H%M%SZ)"
rc=0
"$rigcheck" compare "${runs[0]}" "${runs[1]}" --fail-on-verdict-flip --out "$out" >"$out.log" 2>&1 || rc=$?
cat "$out.log" && rm -f "$out.log"
if ((rc == 0)); then
  echo "verdict-stability: every claim has the same verdict in ${runs[0]} and ${runs[1]} (table: $out/compare.md)"
elif ((rc == 1)); then
  echo "verdict-stability: verdicts differ (the lines above that start with VERDICT; table: $out/compare.md)" >&2
else
  echo "verdict-stability: rigcheck compare failed (exit $rc), see above" >&2
fi
exit "$rc"
