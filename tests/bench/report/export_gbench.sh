#!/usr/bin/env bash
# `rigcheck export --format gbench-json` read by Google Benchmark's own compare.py (Debian
# libbenchmark-tools; its U test needs python3-scipy, so Debian's /usr/bin/python3 runs it): the
# fixture compare_a against compare_slowed (make_compare_fixtures.sh: oneDNN capped at SSE4.1, the
# three oneDNN benchmarks 45% slower, OpenBLAS and the FMA kernel unchanged). compare.py must show
# every repetition of the slowed cases with a time change above +50% and their U test under 0.05,
# and every repetition of the unchanged ones within +-10%. Also: --out never overwrites a file, and a
# damaged run folder is refused with nothing written. Skips (77) where compare.py or scipy is absent.
source "$(dirname "$0")/../../support/lib.sh"  # strict mode, fail(), $tmp removed on exit
rigcheck="$1"
fixtures="$2"
compare=/usr/share/benchmark/compare.py
[[ -f $compare && -x /usr/bin/python3 ]] ||
  { echo "SKIP: $compare or /usr/bin/python3 absent (Debian libbenchmark-tools; scripts/setup.sh --tests)"; exit 77; }

"$rigcheck" export --format gbench-json "$fixtures/runs/compare_a" --out "$tmp/a.json" || fail "export of compare_a failed"
"$rigcheck" export --format gbench-json "$fixtures/runs/compare_slowed" >"$tmp/b.json" || fail "export to stdout failed"
if "$rigcheck" export --format gbench-json "$fixtures/runs/compare_slowed" --out "$tmp/a.json" 2>"$tmp/err"; then
  fail "--out overwrote an existing file"
fi
grep -q "a.json: exists" "$tmp/err" || fail "the refusal does not say why: $(cat "$tmp/err")"
cmp -s "$tmp/a.json" <("$rigcheck" export --format gbench-json "$fixtures/runs/compare_a") || fail "the existing file was changed"

if ! /usr/bin/python3 "$compare" --no-color benchmarks "$tmp/a.json" "$tmp/b.json" >"$tmp/out" 2>"$tmp/cerr"; then
  if grep -q "No module named" "$tmp/cerr"; then echo "SKIP: compare.py lacks a module: $(tail -1 "$tmp/cerr") (python3-scipy)"; exit 77; fi
  fail "compare.py refused the exports: $(cat "$tmp/cerr")"
fi
cat "$tmp/out"

# check BENCHMARK AWK-CONDITION-ON-x WHAT: every repetition line of the benchmark's cases (x: the time
# change) meets the condition, and there are at least 5 per case.
check() {
  local lines cases bad
  lines=$(awk -v b="$1/" 'index($1, b) == 1 && $1 !~ /_pvalue$/' "$tmp/out" | wc -l)
  cases=$(awk -v b="$1/" 'index($1, b) == 1 && $1 ~ /_pvalue$/' "$tmp/out" | wc -l)
  ((cases >= 1 && lines >= 5 * cases)) || fail "$1: compare.py shows $lines repetitions of $cases cases"
  bad=$(awk -v b="$1/" "index(\$1, b) == 1 && \$1 !~ /_pvalue\$/ { x = \$2 + 0; if (!($2)) print }" "$tmp/out")
  [[ -z $bad ]] || fail "$1: not $3: $bad"
  echo "ok: $1: $lines repetitions of $cases cases, each $3"
}
for b in gemm_matmul_f32 gemm_sgemm_onednn fc_inner_product_f32; do
  check "$b" "x > 0.5" "slower by more than 50%"
  bad=$(awk -v b="$b/" 'index($1, b) == 1 && $1 ~ /_pvalue$/ && !($2 + 0 < 0.05)' "$tmp/out")
  [[ -z $bad ]] || fail "$b: the U test does not name the slowed case: $bad"
done
for b in gemm_sgemm_openblas fma_peak_f32; do check "$b" "x > -0.1 && x < 0.1" "within 10%"; done

# A damaged run folder (a result file of the checksummed quick_vm deleted) is refused; nothing written.
cp -r "$fixtures/runs/quick_vm" "$tmp/broken"
rm "$tmp/broken/io_fio_disk.csv"
if "$rigcheck" export --format gbench-json "$tmp/broken" --out "$tmp/broken.json" 2>"$tmp/err"; then
  fail "a damaged run folder was exported"
fi
grep -q "io_fio_disk.csv" "$tmp/err" || fail "the refusal does not name the file: $(cat "$tmp/err")"
[[ ! -e $tmp/broken.json ]] || fail "a file was written from a damaged folder"
echo "export_gbench ok"
