#!/usr/bin/env bash
# rigcheck median (what scripts/gpu-check.sh reads the suite/torch ratios through): the median of
# one case's metric over its ok repetitions, read by the suite's CSV reader. A params field with a
# quoted comma (which a split on raw commas misreads: the value would come from the wrong column),
# a skipped row and a repetition -1 row must not count (--observed: only the -1 rows); a file the
# reader refuses is an error.
# usage: median.sh RIGCHECK
set -uo pipefail
rc_bin=$1
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/rigcheck-median.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
h='schema_version,run_id,benchmark,case,params,metric,value,unit,repetition,status,note'
{
  echo "$h"
  echo '1,peers,gpu_gemm,bf16/n8192,"dtype=bf16;impl=cublasLt TN, fastest of 8",gflops,700000,GFLOP/s,0,ok,'
  echo '1,peers,gpu_gemm,bf16/n8192,"dtype=bf16;impl=cublasLt TN, fastest of 8",gflops,690000,GFLOP/s,1,ok,'
  echo '1,peers,gpu_gemm,bf16/n8192,"dtype=bf16;impl=cublasLt TN, fastest of 8",gflops,1,GFLOP/s,2,skipped,"a note, with a comma"'
  echo '1,peers,gpu_gemm,bf16/n8192,"dtype=bf16;impl=cublasLt TN, fastest of 8",gflops,5,GFLOP/s,-1,ok,'
  echo '1,peers,gpu_gemm,bf16/n4096,dtype=bf16,gflops,3,GFLOP/s,0,ok,'
} >"$tmp/a.csv"
{
  echo "$h"
  echo '1,peers,gpu_gemm,bf16/n8192,"dtype=bf16;impl=cublasLt TN, fastest of 8",gflops,710000,GFLOP/s,0,ok,'
} >"$tmp/b.csv"
out=$("$rc_bin" median --case gpu_gemm/bf16/n8192 --metric gflops "$tmp/a.csv" "$tmp/b.csv") || fail "exit $?"
[[ $out == "700000 3" ]] || fail "median of the two files: '$out', not '700000 3'"
out=$("$rc_bin" median --case gpu_gemm/bf16/n8192 --metric gflops "$tmp/a.csv") || fail "exit $?"
[[ $out == "695000 2" ]] || fail "median of a.csv: '$out', not '695000 2'"
out=$("$rc_bin" median --observed --case gpu_gemm/bf16/n8192 --metric gflops "$tmp/a.csv") || fail "--observed: exit $?"
[[ $out == "5 1" ]] || fail "--observed (the repetition -1 row alone): '$out', not '5 1'"
"$rc_bin" median --case gpu_gemm/bf16/n8192 --metric gbps "$tmp/a.csv" >"$tmp/none.out" 2>&1 && fail "no such metric: exit 0"
grep -q 'no ok repetition' "$tmp/none.out" || fail "no line saying nothing was found: $(cat "$tmp/none.out")"
echo "1,peers,gpu_gemm,bf16/n8192,dtype=bf16,gflops,7,GFLOP/s,0,ok" >>"$tmp/b.csv"  # a column short
"$rc_bin" median --case gpu_gemm/bf16/n8192 --metric gflops "$tmp/b.csv" >"$tmp/bad.out" 2>&1 && fail "a malformed file: exit 0"
grep -q 'b.csv' "$tmp/bad.out" || fail "the error does not name the file: $(cat "$tmp/bad.out")"
echo "ok: rigcheck median reads quoted commas, counts only ok repetitions, refuses a malformed file"
