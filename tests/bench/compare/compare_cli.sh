#!/usr/bin/env bash
# `rigcheck compare`, `noise`, `history` and `ab --analyze` on fixture runs (tests/fixtures/runs/
# compare_*, history_*; see compare_a/README.md), and a tiny real `rigcheck run --repeat` and
# `rigcheck ab`: one run per side without a noise profile -> nothing judged, exit 0, and why;
# one benchmark slowed, two runs per side or a noise profile -> exactly its cases flagged, what
# ran and the confounder named, the flags expected by chance printed; seven runs with a library
# version change -> one change point in the right place, attributed to that field; broken,
# mixed or too-few inputs -> a clear error, or a stated exclusion with --exclude-broken; outputs
# never overwritten. Outputs stay in $3 for reading.
#   compare_cli.sh RIGCHECK FIXTURES OUT [fixtures|real]
# fixtures: steps 1-7, on fixture runs (ctest compare_history_cli, beside other tests); real: step
# 8, the real runs, which need the CPU to itself (ctest compare_real_runs, alone); both by default.
source "$(dirname "$0")/../../support/lib.sh"
set +e  # each step's exit status is checked where it matters
rigcheck="$1"
runs="$2/runs"
out="$3"
part="${4:-both}"
rm -rf "$out" && mkdir -p "$out"
# compare.csv's flag (column 4) per benchmark; the first columns hold no comma.
flagged_benchmarks() { awk -F, -v f="$2" 'NR>1 && $4==f {print $1}' "$1" | sort -u | tr '\n' ' '; }

if [[ $part != real ]]; then
# 1. One run per side, no noise profile: nothing judged, exit 0 even with --fail-on-regression,
# and the output says why (compare_slowed IS slower: still not claimed from repetitions).
"$rigcheck" compare "$runs/compare_a" "$runs/compare_slowed" --fail-on-regression 10 --out "$out/one" >"$out/one.log" 2>&1 ||
  fail "one run per side: exit $? ($(tail -3 "$out/one.log"))"
grep -q REGRESSION "$out/one.log" && fail "one run per side: flagged: $(grep -m1 REGRESSION "$out/one.log")"
grep -q "Cannot judge significance: each side has one run and no noise profile" "$out/one.log" ||
  fail "one run per side: the reason is not said: $(head -20 "$out/one.log")"
grep -q "expected by chance at level 0.01" "$out/one.log" || fail "one run per side: no expected-by-chance count"
for f in compare.md compare.csv compare.html; do [[ -s "$out/one/$f" ]] || fail "one run per side: $f missing"; done
grep -q "^## Confounders" "$out/one/compare.md" || fail "no confounders section"
[[ -z "$(flagged_benchmarks "$out/one/compare.csv" regression)" ]] || fail "one run per side: regression rows in compare.csv"
echo "ok: one run per side: nothing judged, the reason said"

# 1b. Verdict stability: the same machine twice keeps every verdict; a run in which one claim
# turns from confirmed to refuted (CPU-4: the inventory's L3 set to 8 MiB, below the guide's
# 25 MB) is a FLIP, named in one line, and --fail-on-verdict-flip exits 1 for it.
"$rigcheck" compare "$runs/compare_a" "$runs/compare_a2" --out "$out/same" >"$out/same.log" 2>&1 || fail "same: exit $?"
grep -q "^## Verdicts of each run" "$out/same/compare.md" || fail "same machine: no per-run verdict table"
grep -q "^VERDICT" "$out/same.log" && fail "same machine: a verdict differs: $(grep '^VERDICT' "$out/same.log")"
"$rigcheck" compare "$runs/compare_a" "$runs/compare_a2" --fail-on-verdict-flip >"$out/same_verdicts.log" 2>&1 ||
  fail "same machine: --fail-on-verdict-flip exited $?: $(grep '^VERDICT' "$out/same_verdicts.log")"
rm -rf "$out/l3small" && cp -r "$runs/compare_a2" "$out/l3small"
sed -i -e 's/^cache_l3_bytes,.*/cache_l3_bytes,8388608/' -e 's/^cache_l3_total_bytes,.*/cache_l3_total_bytes,8388608/' \
  "$out/l3small/inventory.csv"
grep -q '^cache_l3_total_bytes,8388608$' "$out/l3small/inventory.csv" || fail "fixture compare_a2 has no cache_l3_total_bytes"
rc=0
"$rigcheck" compare "$runs/compare_a" "$out/l3small" --fail-on-verdict-flip >"$out/flip.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "verdict flip: exit $rc, expected 1 ($(tail -3 "$out/flip.log"))"
grep -q "^VERDICT FLIP CPU-4: compare_a=confirmed l3small=refuted$" "$out/flip.log" ||
  fail "verdict flip: no FLIP line for CPU-4: $(grep '^VERDICT' "$out/flip.log")"
[[ $(grep -c '^VERDICT' "$out/flip.log") == 1 ]] || fail "verdict flip: other claims named: $(grep '^VERDICT' "$out/flip.log")"
echo "ok: verdicts of each run compared; the one flipped claim named"

# 2. oneDNN capped at SSE4.1, two runs per side: its three benchmarks flagged (hierarchical
# bootstrap over runs), OpenBLAS and the FMA kernel not; exit 1; what ran and the cap named.
rc=0
"$rigcheck" compare --a "$runs/compare_a" "$runs/compare_a2" --b "$runs/compare_slowed" "$runs/compare_slowed2" \
  --fail-on-regression 10 --out "$out/slowed" >"$out/slowed.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "slowed: exit $rc, expected 1 ($(tail -3 "$out/slowed.log"))"
got=$(flagged_benchmarks "$out/slowed/compare.csv" regression)
[[ "$got" == "fc_inner_product_f32 gemm_matmul_f32 gemm_sgemm_onednn " ]] || fail "slowed: flagged benchmarks: '$got'"
[[ -z "$(flagged_benchmarks "$out/slowed/compare.csv" improvement)" ]] || fail "slowed: improvements flagged"
others=$(awk -F, 'NR>1 && $4!="regression" && ($1=="gemm_matmul_f32" || $1=="fc_inner_product_f32" || $1=="gemm_sgemm_onednn")' \
  "$out/slowed/compare.csv" | wc -l)
[[ $others == 0 ]] || fail "slowed: $others oneDNN cases not flagged"
grep -q "ISA cap (ONEDNN_MAX_CPU_ISA): unset -> SSE41" "$out/slowed/compare.md" || fail "slowed: the ISA cap is not named"
grep "^REGRESSION gemm_matmul_f32" "$out/slowed.log" | grep -q "ran: isa: avx2 -> sse41" || fail "slowed: what ran is not named"
grep -q "expected by chance at level 0.01" "$out/slowed.log" || fail "slowed: no expected-by-chance count"
# Two runs a side: both sides on one time axis in compare.html, each flagged case's timeline open; one
# run a side (1.): none.
n_flagged=$(awk -F, 'NR>1 && $4=="regression"' "$out/slowed/compare.csv" | wc -l)
n_open=$(grep -c '<figure class="plot timeline"' "$out/slowed/compare.html" || true)
[[ $n_open -ge $n_flagged && $n_flagged -gt 0 ]] || fail "slowed: $n_open open timelines for $n_flagged flagged cases"
grep -q "A (2 runs)</span>.*B (2 runs)</span>" "$out/slowed/compare.html" ||
  fail "slowed: the two sides not on the time axis"
! grep -q 'class="plot timeline"' "$out/one/compare.html" || fail "one run a side drew timelines"
echo "ok: slowed benchmarks flagged over two runs per side, what ran and the cap named"

# 2b. A noise profile from four runs of the machine judges one run per side.
"$rigcheck" noise "$runs/compare_a" "$runs/compare_a2" "$runs/compare_a3" "$runs/compare_a4" --out "$out/noise.csv" \
  >"$out/noise.log" 2>&1 || fail "noise: exit $? ($(tail -3 "$out/noise.log"))"
head -1 "$out/noise.csv" | grep -q "^source,benchmark,case,params,metric,unit,runs,sd_log" || fail "noise.csv header"
grep -q ",compare_a compare_a2 compare_a3 compare_a4$" "$out/noise.csv" || fail "noise.csv does not name its runs"
if "$rigcheck" noise "$runs/compare_a" "$runs/compare_a2" --out "$out/noise.csv" >"$out/noise2.log" 2>&1; then
  fail "noise: overwrote noise.csv"
fi
grep -q "never overwritten" "$out/noise2.log" || fail "noise overwrite: $(cat "$out/noise2.log")"
if "$rigcheck" noise "$runs/compare_a" "$runs/avx512_synthetic" --out "$out/noise_mixed.csv" >"$out/noise3.log" 2>&1; then
  fail "noise: accepted two machines"
fi
grep -q "a noise profile describes one machine" "$out/noise3.log" || fail "noise mixed: $(cat "$out/noise3.log")"
rc=0
"$rigcheck" compare "$runs/compare_a" "$runs/compare_slowed" --noise "$out/noise.csv" --fail-on-regression 10 \
  --out "$out/profiled" >"$out/profiled.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "profiled: exit $rc, expected 1 ($(tail -3 "$out/profiled.log"))"
got=$(flagged_benchmarks "$out/profiled/compare.csv" regression)
[[ "$got" == "fc_inner_product_f32 gemm_matmul_f32 gemm_sgemm_onednn " ]] || fail "profiled: flagged benchmarks: '$got'"
grep -q "Noise profile: $out/noise.csv" "$out/profiled/compare.md" || fail "profiled: the profile is not named"
if "$rigcheck" compare "$runs/compare_a" "$runs/avx512_synthetic" --noise "$out/noise.csv" >"$out/otherprof.log" 2>&1; then
  fail "a noise profile of another machine was used"
fi
grep -q "says nothing about another's" "$out/otherprof.log" || fail "other machine's profile: $(cat "$out/otherprof.log")"
echo "ok: a noise profile judges one run per side; a profile of another machine is refused"

# 3. History of seven runs given out of order: one change point per affected case, between
# compare_a4 and history_onednn, attributed to the oneDNN version; nothing else.
rc=0
"$rigcheck" history "$runs/history_onednn3" "$runs/compare_a2" "$runs/history_onednn" "$runs/compare_a" \
  "$runs/compare_a4" "$runs/history_onednn2" "$runs/compare_a3" --fail-on-regression 10 --out "$out/history" \
  >"$out/history.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "history: exit $rc, expected 1 ($(tail -3 "$out/history.log"))"
grep -q "^step compare_a -> compare_a2: " "$out/history.log" || fail "history: runs not in time order"
[[ $(grep -c "^REGRESSION" "$out/history.log") -gt 0 ]] || fail "history: no change point"
grep "^REGRESSION\|^IMPROVEMENT" "$out/history.log" | grep -v "^REGRESSION gemm_matmul_f32 " && fail "history: other cases flagged"
grep "^REGRESSION" "$out/history.log" | grep -v "between compare_a4 and history_onednn " && fail "history: wrong place"
grep "^REGRESSION gemm_matmul_f32" "$out/history.log" | grep -q "changed: oneDNN version: 2.6.3 (N/A) -> 3.1.0 (N/A)" ||
  fail "history: the change is not attributed to the oneDNN version: $(grep -m1 REGRESSION "$out/history.log")"
cases=$(awk -F, 'NR>1 && $1=="gemm_matmul_f32"' "$out/history/history.csv" | cut -d, -f2 | sort | uniq -d)
[[ -z "$cases" ]] || fail "history: more than one change point for $cases"
for f in history.md history.csv history.html; do [[ -s "$out/history/$f" ]] || fail "history: $f missing"; done
"$rigcheck" history "$runs/compare_a" "$runs/compare_a2" "$runs/history_onednn" >"$out/history3.log" 2>&1 ||
  fail "history of three runs: exit $?"
grep -q "Too few runs for change points: 3" "$out/history3.log" || fail "history of three runs: not said"
echo "ok: history finds the change point at the oneDNN upgrade"

# 4. Broken and incompatible runs: a clear error naming the file, or a stated exclusion.
mk() { rm -rf "$out/$1" && cp -r "$runs/compare_a2" "$out/$1"; }
expect_error() {  # name, expected message, run folders...
  local name="$1" msg="$2"
  shift 2
  if "$rigcheck" compare "$@" >"$out/$name.log" 2>&1; then fail "$name: accepted"; fi
  grep -q -- "$msg" "$out/$name.log" || fail "$name: message lacks '$msg': $(cat "$out/$name.log")"
  echo "ok: $name: $(grep -m1 -- "$msg" "$out/$name.log")"
}
mk schema2 && sed -i '3s/^1,/2,/' "$out/schema2/cpu_gemm.csv"
expect_error schema "cpu_gemm.csv:3: unknown schema_version 2" "$runs/compare_a" "$out/schema2" --out "$out/not_written"
[[ ! -e "$out/not_written" ]] || fail "schema: an output folder was created for a refused comparison"
mk noinv && rm "$out/noinv/inventory.csv"
expect_error inventory "noinv/inventory.csv: missing" "$runs/compare_a" "$out/noinv"
mk method2 && sed -i 's/^method_version,1$/method_version,2/' "$out/method2/inventory.csv"
expect_error suite_version "different version of the suite's methods" "$runs/compare_a" "$out/method2"
mk nomethod && sed -i '/^method_version,/d' "$out/nomethod/inventory.csv"
expect_error no_method "no method_version" "$runs/compare_a" "$out/nomethod"
expect_error one_run "at least two usable runs" "$runs/compare_a" "$out/noinv" --exclude-broken
expect_error sides_mixed "either as a list" "$runs/compare_a" --a "$runs/compare_a2" --b "$runs/compare_a3"
expect_error side_alone "--a and --b go together" --a "$runs/compare_a2" "$runs/compare_a3"
printf 'source,benchmark\nx,y\n' >"$out/badnoise.csv"
expect_error bad_profile "badnoise.csv" "$runs/compare_a" "$runs/compare_a2" --noise "$out/badnoise.csv"
"$rigcheck" compare "$runs/compare_a" "$out/noinv" "$out/method2" "$runs/compare_a2" --exclude-broken --out "$out/excl" \
  >"$out/excl.log" 2>&1 || fail "exclude-broken: exit $?"
grep -q "excluded: .*noinv" "$out/excl.log" && grep -q "excluded: .*method2" "$out/excl.log" || fail "exclusions not stated"
grep -q "## Excluded runs" "$out/excl/compare.md" || fail "exclusions not in compare.md"
if "$rigcheck" history "$runs/compare_a" "$runs/avx512_synthetic" >"$out/other_machine.log" 2>&1; then
  fail "history accepted another machine's run"
fi
grep -q "another machine" "$out/other_machine.log" || fail "history: $(cat "$out/other_machine.log")"
# The Zen 3 VM of compare_a and the Zen 5 VM of quick_vm: both host "vm" and "AMD EPYC", two machines by family.
if "$rigcheck" history "$runs/compare_a" "$runs/quick_vm" >"$out/zen5.log" 2>&1; then
  fail "history put a Zen 3 and a Zen 5 VM in one series"
fi
grep -q "another machine.*family 26" "$out/zen5.log" || fail "history, Zen 5: $(cat "$out/zen5.log")"
if "$rigcheck" noise "$runs/compare_a" --out "$out/noise1.csv" >"$out/noise1.log" 2>&1; then fail "noise of one run"; fi
echo "ok: other machine refused by history; a noise profile needs two runs"

# 5. Results are never overwritten.
if "$rigcheck" compare "$runs/compare_a" "$runs/compare_a2" --out "$out/same" >"$out/again.log" 2>&1; then
  fail "overwrote an earlier compare"
fi
grep -q "never overwritten" "$out/again.log" || fail "overwrite: $(cat "$out/again.log")"

# 6. Prices: performance per price and per watt.
printf 'run,price,power_w\ncompare_a,1000,200\ncompare_slowed,500,100\n' >"$out/prices.csv"
"$rigcheck" compare "$runs/compare_a" "$runs/compare_slowed" --prices "$out/prices.csv" >"$out/prices.md" 2>&1 ||
  fail "prices: exit $?"
grep -q "perf per price" "$out/prices.md" || fail "prices: no per-price column"
printf 'run,price,power_w\ncompare_a,cheap,200\n' >"$out/badprices.csv"
if "$rigcheck" compare "$runs/compare_a" "$runs/compare_a2" --prices "$out/badprices.csv" >"$out/bp.log" 2>&1; then
  fail "bad prices accepted"
fi
grep -q "badprices.csv:2: price 'cheap' is not a number" "$out/bp.log" || fail "bad prices: $(cat "$out/bp.log")"

# 7. ab --analyze on rounds laid out as `rigcheck ab` writes them: A = compare_a, _a2, _a3;
# B = compare_slowed, _slowed2 and a copy of compare_slowed. Paired rounds: oneDNN flagged.
ab="$out/abdir" && mkdir -p "$ab/a" "$ab/b"
printf 'round,position,side,spec,run_dir,exit_code,started_utc\n' >"$ab/order.csv"
n=0
for pair in "compare_a compare_slowed" "compare_a2 compare_slowed2" "compare_a3 compare_slowed"; do
  n=$((n + 1)); set -- $pair
  cp -r "$runs/$1" "$ab/a/r$n" && cp -r "$runs/$2" "$ab/b/r$n"
  printf '%d,1,b,ONEDNN_MAX_CPU_ISA=SSE41,b/r%d,0,x\n%d,2,a,,a/r%d,0,x\n' $n $n $n $n >>"$ab/order.csv"
done
rc=0
"$rigcheck" ab --analyze "$ab" --threshold 10 --fail-on-regression 10 >"$out/ab.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "ab --analyze: exit $rc ($(tail -3 "$out/ab.log"))"
got=$(flagged_benchmarks "$ab/ab.csv" regression)
[[ "$got" == "fc_inner_product_f32 gemm_matmul_f32 gemm_sgemm_onednn " ]] || fail "ab: flagged benchmarks: '$got'"
grep -q "ISA cap (ONEDNN_MAX_CPU_ISA): unset -> SSE41" "$ab/ab.md" || fail "ab: the differing field is not named"
grep -q "3 complete rounds" "$ab/ab.md" || fail "ab: rounds not stated"
echo "ok: ab --analyze pairs the rounds and finds the capped oneDNN"

fi
if [[ $part != fixtures ]]; then
# 8. Real, tiny: `rigcheck run --repeat 2` writes noise.csv beside its runs, and `rigcheck ab`
# runs two rounds, each side its own process, in a recorded order.
"$rigcheck" run --profile tiny --select cpu_peak --repeat 2 --out "$out/repeat" >"$out/repeat.log" 2>&1 ||
  fail "run --repeat: exit $? ($(grep -E '^(rigcheck|\[)' "$out/repeat.log" | tail -4))"
rep=$(find "$out/repeat" -mindepth 1 -maxdepth 1 -type d -name 'noise-*')
[[ -s "$rep/noise.csv" ]] || fail "run --repeat: no noise.csv in $rep"
[[ $(find "$rep" -mindepth 1 -maxdepth 1 -type d | wc -l) == 2 ]] || fail "run --repeat: not two run folders in $rep"
grep -q "^cpu_peak,fma_peak_f32," "$rep/noise.csv" || fail "run --repeat: noise.csv lacks cpu_peak"
"$rigcheck" ab --a "RIGCHECK_AB_SIDE=a" --b "RIGCHECK_AB_SIDE=b" --rounds 2 --select cpu_peak --filter 'avx2/t1$' \
  --profile tiny --out "$out/ab_real" >"$out/ab_real.log" 2>&1 || fail "ab: exit $? ($(tail -5 "$out/ab_real.log"))"
abd=$(find "$out/ab_real" -mindepth 1 -maxdepth 1 -type d)
[[ $(tail -n +2 "$abd/order.csv" | wc -l) == 4 ]] || fail "ab: order.csv has not 4 rows: $(cat "$abd/order.csv")"
[[ -s "$abd/ab.md" ]] || fail "ab: no ab.md"
grep -q "2 complete rounds" "$abd/ab.md" || fail "ab: $(head -5 "$abd/ab.md")"
cut -d, -f1 "$abd/ab.csv" | tail -n +2 | sort -u | grep -qx fma_peak_f32 || fail "ab: no fma_peak_f32 case"
[[ $(tail -n +2 "$abd/ab.csv" | wc -l) == 1 ]] || fail "ab: --filter did not keep one case: $(cut -d, -f1,2 "$abd/ab.csv")"
fi
echo "compare_cli ok ($part)"
