#!/usr/bin/env bash
# `rigcheck compare` and `rigcheck history` on fixture runs (tests/fixtures/runs/compare_*,
# history_*; see their README.md): same machine twice -> nothing flagged; one benchmark slowed ->
# exactly its rows flagged, the confounder named; three runs with a library version change ->
# the change attributed to that field; broken or incompatible runs -> a clear error, or a stated
# exclusion with --exclude-broken; outputs never overwritten. Outputs stay in $3 for reading.
set -uo pipefail
rigcheck="$1"
runs="$2/runs"
out="$3"
rm -rf "$out" && mkdir -p "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The same machine twice: no regression, exit 0 even with --fail-on-regression.
"$rigcheck" compare "$runs/compare_a" "$runs/compare_a2" --fail-on-regression 10 --out "$out/same" >"$out/same.log" 2>&1 ||
  fail "same machine: exit $? ($(tail -3 "$out/same.log"))"
grep -q REGRESSION "$out/same.log" && fail "same machine: a regression was flagged: $(grep REGRESSION "$out/same.log")"
for f in compare.md compare.csv compare.html; do [[ -s "$out/same/$f" ]] || fail "same machine: $f missing"; done
grep -q "^## Confounders" "$out/same/compare.md" || fail "same machine: no confounders section"
echo "ok: same machine twice, nothing flagged"

# 1b. Verdict stability: the same machine twice keeps every verdict; a run in which one claim
# turns from confirmed to refuted (CPU-4: the inventory's L3 set to 8 MiB, below the guide's
# 25 MB) is a FLIP, named in one line, and --fail-on-verdict-flip exits 1 for it.
grep -q "^## Verdicts of each run" "$out/same/compare.md" || fail "same machine: no per-run verdict table"
grep -q "^VERDICT" "$out/same.log" && fail "same machine: a verdict differs: $(grep '^VERDICT' "$out/same.log")"
"$rigcheck" compare "$runs/compare_a" "$runs/compare_a2" --fail-on-verdict-flip >"$out/same_verdicts.log" 2>&1 ||
  fail "same machine: --fail-on-verdict-flip exited $?: $(grep '^VERDICT' "$out/same_verdicts.log")"
rm -rf "$out/l3small" && cp -r "$runs/compare_a2" "$out/l3small"
sed -i -e 's/^cache_l3_bytes,.*/cache_l3_bytes,8388608/' -e 's/^cache_l3_total_bytes,.*/cache_l3_total_bytes,8388608/' \
  "$out/l3small/inventory.csv"
grep -q '^cache_l3_total_bytes,8388608$' "$out/l3small/inventory.csv" || fail "fixture compare_a2 has no cache_l3_total_bytes"
before=$(grep '^| CPU-4 |' "$out/same/compare.md")
rc=0
"$rigcheck" compare "$runs/compare_a" "$out/l3small" --fail-on-verdict-flip >"$out/flip.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "verdict flip: exit $rc, expected 1 ($(tail -3 "$out/flip.log"))"
grep -q "^VERDICT FLIP CPU-4: compare_a=confirmed l3small=refuted$" "$out/flip.log" ||
  fail "verdict flip: no FLIP line for CPU-4 (same-machine row was: $before): $(grep '^VERDICT' "$out/flip.log")"
[[ $(grep -c '^VERDICT' "$out/flip.log") == 1 ]] || fail "verdict flip: other claims named: $(grep '^VERDICT' "$out/flip.log")"
echo "ok: verdicts of each run compared; the one flipped claim named"

# 2. oneDNN capped at SSE4.1: its three benchmarks slowed, OpenBLAS and the FMA kernel not: exit 1;
# the flagged rows are exactly the oneDNN rows.
rc=0
"$rigcheck" compare "$runs/compare_a" "$runs/compare_slowed" --fail-on-regression 10 --out "$out/slowed" >"$out/slowed.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "slowed: exit $rc, expected 1 ($(tail -3 "$out/slowed.log"))"
grep REGRESSION "$out/slowed.log" | grep -v -E "^REGRESSION (gemm_matmul_f32|fc_inner_product_f32|gemm_sgemm_onednn) " &&
  fail "slowed: rows of other benchmarks flagged"
flagged=$(awk -F, 'NR>1 && $25=="regression"{print $1}' "$out/slowed/compare.csv" | sort -u)
[[ $(echo $flagged) == "fc_inner_product_f32 gemm_matmul_f32 gemm_sgemm_onednn" ]] || fail "slowed: flagged benchmarks: '$flagged'"
expected=$(awk -F, 'NR>1 && ($1=="gemm_matmul_f32" || $1=="fc_inner_product_f32" || $1=="gemm_sgemm_onednn")' "$out/slowed/compare.csv" | wc -l)
got=$(awk -F, 'NR>1 && $25=="regression"' "$out/slowed/compare.csv" | wc -l)
[[ $expected == "$got" && $got -gt 0 ]] || fail "slowed: $got rows flagged of $expected oneDNN rows"
grep -q "ISA cap (ONEDNN_MAX_CPU_ISA): unset -> SSE41" "$out/slowed/compare.md" || fail "slowed: the ISA cap is not named"
grep "REGRESSION gemm_matmul_f32" "$out/slowed.log" | grep -q "row: isa: avx2 -> sse41" ||
  fail "slowed: the row's dispatched ISA is not named"
echo "ok: slowed benchmark flagged on exactly its $got rows, confounder named"

# 3. History of three runs given out of order; the oneDNN version change is attributed.
rc=0
"$rigcheck" history "$runs/history_onednn" "$runs/compare_a2" "$runs/compare_a" --fail-on-regression 10 \
  --out "$out/history" >"$out/history.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "history: exit $rc, expected 1 ($(tail -3 "$out/history.log"))"
grep -q "^step compare_a -> compare_a2: " "$out/history.log" || fail "history: runs not in time order"
grep "^REGRESSION" "$out/history.log" | grep -v "compare_a2 -> history_onednn" && fail "history: wrong step flagged"
grep "^REGRESSION gemm_matmul_f32" "$out/history.log" | grep -q "changed: oneDNN version: 2.6.3 (N/A) -> 3.1.0 (N/A)" ||
  fail "history: the change is not attributed to the oneDNN version: $(grep -m1 REGRESSION "$out/history.log")"
for f in history.md history.csv history.html; do [[ -s "$out/history/$f" ]] || fail "history: $f missing"; done
echo "ok: history attributes the regression to the oneDNN version"

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
"$rigcheck" compare "$runs/compare_a" "$out/noinv" "$out/method2" "$runs/compare_a2" --exclude-broken --out "$out/excl" \
  >"$out/excl.log" 2>&1 || fail "exclude-broken: exit $?"
grep -q "excluded: .*noinv" "$out/excl.log" && grep -q "excluded: .*method2" "$out/excl.log" || fail "exclusions not stated"
grep -q "## Excluded runs" "$out/excl/compare.md" || fail "exclusions not in compare.md"
if "$rigcheck" history "$runs/compare_a" "$runs/avx512_synthetic" >"$out/other_machine.log" 2>&1; then
  fail "history accepted another machine's run"
fi
grep -q "another machine" "$out/other_machine.log" || fail "history: $(cat "$out/other_machine.log")"
echo "ok: other machine refused by history"

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
echo "compare_cli ok"
