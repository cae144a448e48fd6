#!/usr/bin/env bash
# Smoke run of the memory area: `rigcheck run --profile tiny --only memory`.
# Each memory binary ran ok (or was skipped with a reason), every check compared something and
# found nothing wrong, the derived rows are there, and MEM-2/3/4 have verdicts with reasons.
source "$(dirname "$0")/../support/lib.sh"
rigcheck="$1"
out="$tmp"

"$rigcheck" run --profile tiny --only memory --out "$out" >"$out/run.log" 2>&1 || { cat "$out/run.log"; fail "run exited $?"; }
run="$(find "$out" -mindepth 1 -maxdepth 1 -type d | head -1)"
# every memory entry of the registry; memory_host measures child processes and checks no kernel
for b in $(awk -F, 'NR > 1 && $2 == "memory" { print $1 }' "$(dirname "$0")/../../data/benchmarks.csv"); do
  grep -Eq "^$b,memory,.*,(ok|skipped)," "$run/manifest.csv" || fail "$b did not run ok: $(grep "^$b," "$run/manifest.csv")"
  if grep -q "^$b,memory,.*,ok," "$run/manifest.csv"; then
    [[ -s "$run/$b.csv" ]] || fail "$b.csv missing"
    if grep -q ',failed,' "$run/$b.csv"; then fail "$b.csv has failed rows: $(grep ',failed,' "$run/$b.csv" | head -3)"; fi
    [[ $b == memory_host ]] || grep -q ',check_wrong,0,count,-1,ok,' "$run/$b.csv" ||
      grep -q ',skipped,' "$run/$b.csv" || fail "$b.csv has no passed check"
  fi
done
if grep -q '^memory_bandwidth,memory,.*,ok,' "$run/manifest.csv"; then
  grep -q ',gbps_write_allocate,' "$run/memory_bandwidth.csv" || fail "no gbps_write_allocate rows"
fi
if grep -q '^memory_latency,memory,.*,ok,' "$run/manifest.csv"; then
  grep -q ',ns_per_load,' "$run/memory_latency.csv" || fail "no ns_per_load rows"
  grep -q '^1,[^,]*,latency_levels,[^,]*/L1,.*,level_latency_ns,' "$run/memory_latency.csv" || fail "no L1 level found"
  # MEM-3's evidence sets each level beside the inventory's nominal size, smallest level first.
  if grep -q '^cache_l1d_bytes,[0-9]' "$run/inventory.csv" && grep -q '^1,[^,]*,latency_levels,thp/L1,.*,ok,' "$run/memory_latency.csv"; then
    grep -Eq '^MEM-3,.*levels found on the curve \(2 MiB pages\): L1 [0-9.]+ ns up to [0-9.]+ KiB \(nominal [0-9.]+ KiB, ' \
      "$run/verdicts.csv" || fail "MEM-3: levels not listed L1 first with the inventory's nominal size: $(grep '^MEM-3,' "$run/verdicts.csv")"
  fi
fi
for id in MEM-2 MEM-3; do
  grep -q "^$id,.*,not_measurable,.*DIMM type and speed" "$run/verdicts.csv" || fail "$id should be not_measurable naming DIMM type and speed"
done
grep -Eq '^MEM-4,.*,(confirmed|refuted|inconclusive|not_measurable),' "$run/verdicts.csv" || fail "MEM-4 has no verdict"
# MEM-1: measured where LibTorch is built, else not_measurable naming the unbuilt benchmark.
if grep -q "^memory_host,memory,.*,0,ok," "$run/manifest.csv"; then
  grep -q ",failed," "$run/memory_host.csv" && fail "memory_host.csv has failed rows: $(grep ",failed," "$run/memory_host.csv" | head -3)"
  grep -q ",peak_rss_bytes,[0-9.e+]*,B,[0-9]*,ok," "$run/memory_host.csv" || fail "no peak_rss_bytes rows"
  grep -Eq "^MEM-1,.*,(confirmed|refuted|inconclusive),.*peak RSS" "$run/verdicts.csv" || fail "MEM-1 has no measured verdict"
else
  grep -Eq "^memory_host,memory,.*,(not_built|skipped)," "$run/manifest.csv" || fail "memory_host neither ran nor says why"
  grep -q "^MEM-1,.*,not_measurable," "$run/verdicts.csv" || fail "MEM-1 should be not_measurable without memory_host"
fi
# Every parameter its rows hold is declared (data/params.csv): later runs pair with it.
bash "$(dirname "$0")/../support/params_declared.sh" "$rigcheck" "$run" || fail "undeclared parameters"
echo "memory smoke run ok: $run"
